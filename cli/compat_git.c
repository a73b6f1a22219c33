/* `orbitc compat`'s git sides (docs/compat.md, "Git sides"): `git:REV[:PATH]`, the files
 * of a revision of the repository of the current directory, read with git itself (`git
 * ls-tree -r -z`, then `git cat-file --batch`) into memory: nothing is checked out, the
 * user's files are never touched. git runs with a fixed set of arguments, no shell; its
 * failure is said with what it printed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat_command.h"
#include "memory.h"
#include "textbuf.h"

extern char **environ;

/* Reads all of `fd` into `out`. */
static void read_all(int fd, TextBuffer *out)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text_append(out, chunk, (size_t)n);
    }
}

/* Runs git with `argv` (argv[0] "git"), standard input from `input` (NULL: /dev/null),
 * its output into `out`, its errors into `err`; its exit status, or -1 when it could not
 * be started. */
static int run_git(const char *const *argv, const char *input, size_t input_len,
                   TextBuffer *out, TextBuffer *err)
{
    int out_pipe[2], err_pipe[2];
    int in_fd = -1;
    if (input) {   /* a file, not a pipe: git's output is read only after it is written */
        const char *dir = getenv("TMPDIR");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/orbitc-compat-XXXXXX", dir && *dir ? dir : "/tmp");
        in_fd = mkstemp(path);
        if (in_fd < 0)
            return -1;
        unlink(path);
        for (size_t done = 0; done < input_len;) {
            ssize_t n = write(in_fd, input + done, input_len - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        lseek(in_fd, 0, SEEK_SET);
    }
    if (pipe(out_pipe) != 0)
        return -1;
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (in_fd >= 0)
        posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
    else
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    pid_t pid;
    int spawned = posix_spawnp(&pid, "git", &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (in_fd >= 0)
        close(in_fd);
    if (spawned == 0) {
        read_all(out_pipe[0], out);
        read_all(err_pipe[0], err);
    }
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (spawned != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* "orbitc: error: `git:REV`: WHAT: git's first line" */
static bool git_failed(const char *side, const char *what, const TextBuffer *err)
{
    const char *text = err->data ? err->data : "";
    int len = (int)strcspn(text, "\n");
    fprintf(stderr, "orbitc: error: `%s`: %s%s%.*s\n", side, what, len ? ": " : "", len, text);
    return false;
}

/* One line of git's output, its end of line removed (malloc'd). */
static char *git_line(const char *const *argv, const char *side, const char *what)
{
    TextBuffer out = { 0 }, err = { 0 };
    int status = run_git(argv, NULL, 0, &out, &err);
    char *line = NULL;
    if (status == 0)
        line = xstrndup(out.data ? out.data : "", out.data ? strcspn(out.data, "\n") : 0);
    else if (status < 0)
        fprintf(stderr, "orbitc: error: `%s`: cannot run git: %s\n", side, strerror(errno));
    else
        git_failed(side, what, &err);
    text_free(&out);
    text_free(&err);
    return line;
}

/* The other side's path relative to the repository's root, or NULL (said). */
static char *root_relative(const char *top, const char *path, const char *side)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        fprintf(stderr, "orbitc: error: `%s`: cannot find `%s` (%s) to read the same path "
                        "from git: give it as `git:REV:PATH`\n", side, path, strerror(errno));
        return NULL;
    }
    size_t n = strlen(top);
    if (strncmp(real, top, n) != 0 || (real[n] != '\0' && real[n] != '/')) {
        fprintf(stderr, "orbitc: error: `%s`: `%s` is outside the repository at `%s`\n", side,
                path, top);
        return NULL;
    }
    return xstrdup(real[n] == '/' ? real + n + 1 : "");
}

static bool ends_with(const char *text, const char *end)
{
    size_t a = strlen(text), b = strlen(end);
    return a >= b && strcmp(text + a - b, end) == 0;
}

/* The files' names (ls-tree -z: NUL-separated) under `path` that are Orbit sources. */
static void list_sources(const TextBuffer *tree, char ***names, uint32_t *count)
{
    *count = 0;
    *names = NULL;
    uint32_t cap = 0;
    for (size_t at = 0; tree->data && at < tree->len;) {
        const char *name = tree->data + at;
        at += strlen(name) + 1;
        if (!ends_with(name, ".orbit"))
            continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 16;
            *names = xrealloc(*names, cap * sizeof **names);
        }
        (*names)[(*count)++] = (char *)name;
    }
}

/* The name of the revision's file `name` (from the repository's root) as the other side
 * names its own: below `other` as a directory walk joins them (`./a.orbit`), `other`
 * itself for the file it is; or, with PATH given, from the current directory. */
static char *shown_name(const char *name, const char *path, const char *other,
                        const char *prefix)
{
    size_t n = strlen(path), plen = strlen(prefix);
    if (other) {
        const char *rest = strncmp(name, path, n) == 0 ? name + n : name;
        rest += n > 0 && *rest == '/';
        if (!*rest)
            return xstrdup(other);
        size_t olen = strlen(other);
        char *joined = xmalloc(olen + strlen(rest) + 2);
        sprintf(joined, "%s%s%s", other, olen && other[olen - 1] == '/' ? "" : "/", rest);
        return joined;
    }
    return xstrdup(strncmp(name, prefix, plen) == 0 ? name + plen : name);
}

/* Adds each blob of `cat-file --batch`'s output (`SHA blob SIZE\n`, the bytes, `\n`) as
 * the source `names[i]`, named by shown_name. */
static bool add_blobs(CompatSide *s, const TextBuffer *batch, char **names, uint32_t count,
                      const char *path, const char *other, const char *prefix)
{
    size_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        const char *header = batch->data + at;
        const char *eol = memchr(header, '\n', batch->len - at);
        unsigned long long size;
        char type[16];
        if (!eol || sscanf(header, "%*s %15s %llu", type, &size) != 2 || strcmp(type, "blob") != 0
            || size > batch->len - (size_t)(eol + 1 - batch->data)) {
            fprintf(stderr, "orbitc: error: `%s`: git did not give the file `%s`\n", s->label,
                    names[i]);
            return false;
        }
        const char *body = eol + 1;
        char *text = xmalloc(size + 1);
        memcpy(text, body, size);
        text[size] = '\0';
        char *shown = shown_name(names[i], path, other, prefix);
        workspace_add_text(&s->run.w, shown, text, size);
        free(shown);
        at = (size_t)(body - batch->data) + size + 1;
    }
    return true;
}

bool cli_compat_git(CompatSide *s, const char *other)
{
    const char *spec = s->label + 4;   /* after "git:" */
    const char *colon = strchr(spec, ':');
    char *rev = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec);
    char *top = git_line((const char *const[]){ "git", "rev-parse", "--show-toplevel", NULL },
                         s->label, "not in a git repository");
    char *prefix = top ? git_line((const char *const[]){ "git", "rev-parse", "--show-prefix", NULL },
                                  s->label, "not in a git repository") : NULL;
    char *commit = NULL, *path = NULL;
    bool ok = false;
    if (prefix && *rev && rev[0] != '-') {
        char *verify = xmalloc(strlen(rev) + 16);
        sprintf(verify, "%s^{commit}", rev);
        char *unknown = xmalloc(strlen(rev) + 32);
        sprintf(unknown, "unknown revision `%s`", rev);
        commit = git_line((const char *const[]){ "git", "rev-parse", "--verify", "--quiet",
                                                 "--end-of-options", verify, NULL },
                          s->label, unknown);
        free(unknown);
        if (commit && !*commit) {
            fprintf(stderr, "orbitc: error: `%s`: unknown revision `%s`\n", s->label, rev);
            free(commit);
            commit = NULL;
        }
        free(verify);
    } else if (prefix) {
        fprintf(stderr, "orbitc: error: `%s`: no revision after `git:`\n", s->label);
    }
    if (commit)
        path = colon ? xstrdup(colon + 1) : other ? root_relative(top, other, s->label) : NULL;
    if (commit && !path && !colon && !other)
        fprintf(stderr, "orbitc: error: `%s`: give the path as `git:REV:PATH` (the other side "
                        "is not a path)\n", s->label);
    if (path) {
        while (ends_with(path, "/") && strlen(path) > 0)
            path[strlen(path) - 1] = '\0';
        TextBuffer tree = { 0 }, err = { 0 };
        const char *ls[] = { "git", "ls-tree", "-r", "-z", "--full-tree", "--name-only", commit,
                             "--", *path ? path : ".", NULL };
        int status = run_git(ls, NULL, 0, &tree, &err);
        if (status != 0) {
            git_failed(s->label, "cannot list the revision's files", &err);
        } else {
            char **names;
            uint32_t count;
            list_sources(&tree, &names, &count);
            TextBuffer request = { 0 }, batch = { 0 }, err2 = { 0 };
            for (uint32_t i = 0; i < count; i++)
                text_printf(&request, "%s:%s\n", commit, names[i]);
            const char *cat[] = { "git", "cat-file", "--batch", NULL };
            if (count == 0)
                fprintf(stderr, "orbitc: error: `%s`: no .orbit file at `%s` in revision `%s`\n",
                        s->label, *path ? path : ".", rev);
            else if (run_git(cat, request.data, request.len, &batch, &err2) != 0)
                git_failed(s->label, "cannot read the revision's files", &err2);
            else
                ok = add_blobs(s, &batch, names, count, path, colon ? NULL : other, prefix);
            free(names);
            text_free(&request);
            text_free(&batch);
            text_free(&err2);
        }
        text_free(&tree);
        text_free(&err);
    }
    free(rev);
    free(top);
    free(prefix);
    free(commit);
    free(path);
    return ok;
}
