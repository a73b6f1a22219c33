/* orbc_write_file and orbc_output_write_file: where the bytes of a .orbc file go. A
 * regular file (or one that does not exist yet) is replaced atomically: a temporary file
 * in the same directory, fsync, rename. Anything else that already exists is never
 * replaced: a symbolic link is followed to its final target, a character device, FIFO or
 * socket is written to directly, a directory is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "orbc_internal.h"

enum { MAX_LINKS = 40 };   /* as the kernel's limit of links followed in one path */

static bool fail(OrbcError *err, const char *reason)
{
    if (err) {
        err->offset = 0;
        snprintf(err->text, sizeof err->text, "%s", reason);
    }
    return false;
}

/* The length of the directory part of `path` including its last slash (0: none). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* `name` in the directory of `path` (`name` alone when `path` has no directory or `name`
 * is absolute). malloc'd, NULL when memory runs out. */
static char *beside(const char *path, const char *name)
{
    size_t dlen = name[0] == '/' ? 0 : dir_len(path), nlen = strlen(name);
    char *joined = malloc(dlen + nlen + 1);
    if (joined) {
        memcpy(joined, path, dlen);
        memcpy(joined + dlen, name, nlen + 1);
    }
    return joined;
}

/* The target of the symbolic link `path`, malloc'd; NULL with errno set. */
static char *read_link(const char *path)
{
    for (size_t cap = 256;; cap *= 2) {
        char *target = malloc(cap);
        if (!target)
            return NULL;
        ssize_t n = readlink(path, target, cap);
        if (n < 0) {
            free(target);
            return NULL;
        }
        if ((size_t)n < cap) {
            target[n] = '\0';
            return target;
        }
        free(target);
    }
}

/* The file `path` names once every symbolic link on its last component is followed (it
 * may not exist yet: a dangling link names the file to create). malloc'd; NULL with errno
 * set (ELOOP after MAX_LINKS links). */
static char *resolve_links(const char *path)
{
    char *current = strdup(path);
    for (int followed = 0; current; followed++) {
        struct stat st;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
            return current;   /* missing or unreachable: creating it says why */
        char *target = followed < MAX_LINKS ? read_link(current) : NULL;
        if (followed == MAX_LINKS)
            errno = ELOOP;
        char *next = target ? beside(current, target) : NULL;
        free(target);
        free(current);
        current = next;
    }
    return NULL;
}

static bool write_all(void *fd, const uint8_t *bytes, size_t len)
{
    while (len > 0) {
        ssize_t n = write(*(int *)fd, bytes, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO;
        if (n <= 0)
            return false;
        bytes += n;
        len -= (size_t)n;
    }
    return true;
}

/* Every piece of `out` written to `fd`, in order. */
static bool write_output(int fd, const OrbcOutput *out)
{
    return orbc_output_each(out, write_all, &fd);
}

/* A stream connection to the Unix socket at `path`, or -1 with errno set. */
static int connect_socket(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        fd = -1;
    }
    return fd;
}

/* A character device, FIFO or socket: written to, never replaced. Opening a FIFO waits
 * for its reader, as a shell's `>` does. */
static bool write_in_place(const char *target, mode_t mode, const OrbcOutput *out,
                           OrbcError *err)
{
    int fd = S_ISSOCK(mode) ? connect_socket(target)
                            : open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(err, strerror(errno));
    bool ok = write_output(fd, out);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    return ok || fail(err, strerror(saved));
}

/* Creates a new temporary file in the directory of `target`; its name goes to *temp
 * (malloc'd). Returns the descriptor, or -1 with errno set. */
static int create_temp(const char *target, char **temp)
{
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        char name[64];
        snprintf(name, sizeof name, ".orbc-%ld-%u.tmp", (long)getpid(), attempt);
        *temp = beside(target, name);
        if (!*temp)
            return -1;
        int fd = open(*temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        free(*temp);
        *temp = NULL;
    }
    errno = EEXIST;
    return -1;
}

/* fsync the directory holding `path`, so the rename itself is durable. */
static void sync_parent_dir(const char *path)
{
    size_t dlen = dir_len(path);
    char *dir = dlen ? strndup(path, dlen) : strdup(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

/* A regular file, or none yet: the new bytes replace it at once or not at all. The file
 * replaced keeps its permissions. */
static bool replace_atomically(const char *target, const struct stat *old,
                               const OrbcOutput *out, OrbcError *err)
{
    char *temp = NULL;
    int fd = create_temp(target, &temp);
    if (fd < 0) {
        int saved = errno;
        free(temp);
        return fail(err, strerror(saved));
    }
    bool ok = write_output(fd, out)
              && (!old || fchmod(fd, old->st_mode & 07777) == 0)
              && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(temp, target) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        unlink(temp);
    free(temp);
    if (!ok)
        return fail(err, strerror(saved));
    sync_parent_dir(target);
    return true;
}

bool orbc_output_write_file(const OrbcOutput *out, const char *path, OrbcError *err)
{
    char *target = resolve_links(path);
    if (!target)
        return fail(err, strerror(errno));
    struct stat st;
    bool exists = stat(target, &st) == 0;
    bool ok;
    if (exists && S_ISDIR(st.st_mode))
        ok = fail(err, "is a directory");
    else if (exists && !S_ISREG(st.st_mode))
        ok = write_in_place(target, st.st_mode, out, err);
    else
        ok = replace_atomically(target, exists ? &st : NULL, out, err);
    free(target);
    return ok;
}

bool orbc_write_file(const char *path, const uint8_t *bytes, size_t len, OrbcError *err)
{
    OrbcOutput whole = { .head = bytes, .head_len = len };
    return orbc_output_write_file(&whole, path, err);
}
