/* The server's cache: read-only files it writes for the editor to open — the standard
 * library (for "go to definition" of `len`) and the explanations of the diagnostic codes
 * (the default target of a diagnostic's `codeDescription` and of a code's document
 * link) — under $XDG_CACHE_HOME/orbitc/VERSION/ (else ~/.cache/orbitc/VERSION/), each
 * written once, atomically, and only when it differs. Nothing in memory-only mode. */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "version.h"

/* mkdir -p, for directories the server owns (0755). */
static bool make_directories(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

static bool same_contents(const char *path, const char *text, uint32_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool same = true;
    char buf[4096];
    uint32_t at = 0;
    size_t n;
    while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + n <= len && memcmp(buf, text + at, n) == 0;
        at += (uint32_t)n;
    }
    fclose(f);
    return same && at == len;
}

/* Writes the file atomically (a temporary file renamed over it), read-only. Not synced
 * to the disk: a file that a crash left incomplete differs from what it should hold, and
 * the next server writes it again (lsp_cache_write compares first). */
static bool write_read_only(const char *path, const char *text, uint32_t len)
{
    size_t size = strlen(path) + 32;
    char *tmp = xmalloc(size);
    snprintf(tmp, size, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0444);
    bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
    ok = fd >= 0 && close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok && fd >= 0)
        unlink(tmp);
    free(tmp);
    return ok;
}

bool lsp_cache_path(Server *s, const char *name, char path[LSP_CACHE_PATH_MAX])
{
    if (s->options.memory_only)
        return false;
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (cache && cache[0] == '/')
        n = snprintf(path, LSP_CACHE_PATH_MAX, "%s/orbitc/%s/%s", cache, ORBIT_VERSION, name);
    else if (home && home[0] == '/')
        n = snprintf(path, LSP_CACHE_PATH_MAX, "%s/.cache/orbitc/%s/%s", home, ORBIT_VERSION,
                     name);
    else
        return false;
    return n > 0 && n < LSP_CACHE_PATH_MAX;
}

bool lsp_cache_write(Server *s, const char *path, const char *text, uint32_t len)
{
    if (same_contents(path, text, len))
        return true;
    char dir[LSP_CACHE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!slash || !make_directories(dir) || !write_read_only(path, text, len)) {
        lsp_log_message(s, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}
