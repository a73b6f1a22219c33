/* `orbitc check --watch` (docs/cli.md, "Watching"): check, then wait for a change to a
 * source file, a program's configuration or a .gitignore below the paths (inotify),
 * clear the screen and check again, until SIGINT or SIGTERM. Each check is a new run
 * from the paths, so files that were deleted, renamed or left half-written are met as
 * a fresh `check` would meet them. The watches are set up again before each check, so
 * that new directories are watched and no change made during a check is lost. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "memory.h"

enum {
    QUIET_MS = 150,        /* a change is acted on once the files are quiet this long */
    MAX_DELAY_MS = 2000,   /* ...or this long after the first change, whatever comes */
    MAX_WATCHES = 65536,   /* directories watched at most (the kernel's default limit) */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int signal)
{
    stop_signal = signal;
}

/* SIGINT and SIGTERM end the loop; without SA_RESTART, so that poll returns at once. */
static void catch_stop_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

typedef struct Watcher {
    int fd;
    unsigned count;
} Watcher;

static const uint32_t WATCH_EVENTS = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE
    | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB;

/* Watches `dir` and, unless `shallow`, every visible subdirectory below it (symbolic
 * links not followed, as the walk does not follow them). */
static void watch_tree(Watcher *w, const char *dir, bool shallow)
{
    if (w->count >= MAX_WATCHES || inotify_add_watch(w->fd, dir, WATCH_EVENTS | IN_ONLYDIR) < 0)
        return;
    w->count++;
    if (shallow)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.' || (entry->d_type != DT_DIR && entry->d_type != DT_UNKNOWN))
            continue;
        size_t size = strlen(dir) + strlen(entry->d_name) + 2;
        char *path = xmalloc(size);
        snprintf(path, size, "%s/%s", dir, entry->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            watch_tree(w, path, false);
        free(path);
    }
    closedir(d);
}

/* A new inotify descriptor watching what the paths name: a directory and the tree below
 * it; for a file (or a path that does not exist yet), its directory, so that a file
 * replaced by a rename or deleted and created again is still seen. */
static bool watch_paths(Watcher *w, const CliOptions *opt)
{
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->count = 0;
    if (w->fd < 0)
        return false;
    for (int i = 0; i < opt->path_count; i++) {
        const char *path = opt->paths[i];
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            watch_tree(w, path, false);
            continue;
        }
        const char *slash = strrchr(path, '/');
        char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
        watch_tree(w, dir, true);
        free(dir);
    }
    return w->count > 0;
}

/* Whether an event may change what check says: a source file, a configuration, a
 * .gitignore, a directory, or a watched directory itself gone. */
static bool relevant(const struct inotify_event *e)
{
    if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW | IN_IGNORED))
        return true;
    if (e->len == 0)
        return false;
    const char *name = e->name;
    size_t len = strlen(name);
    if (e->mask & IN_ISDIR)
        return name[0] != '.';
    return (len > 6 && strcmp(name + len - 6, ".orbit") == 0 && name[0] != '.')
        || strcmp(name, PROGRAM_MARKER) == 0 || strcmp(name, ".gitignore") == 0;
}

/* Reads the events waiting; true when one of them is relevant. */
static bool drain(int fd)
{
    char buffer[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool any = false;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0)
            return any;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            any |= relevant(e);
            p += sizeof *e + e->len;
        }
    }
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Waits for a relevant change, then for the files to be quiet (QUIET_MS without an
 * event, at most MAX_DELAY_MS after the change): an editor's save, a `git checkout` of
 * many files, is one re-check. False when a stop signal came. */
static bool wait_for_change(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    while (!stop_signal) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return false;
        if (!stop_signal && drain(fd))
            break;
    }
    long first = now_ms();
    while (!stop_signal) {
        long left = first + MAX_DELAY_MS - now_ms();
        int wait = left < QUIET_MS ? (int)(left > 0 ? left : 0) : QUIET_MS;
        int ready = poll(&p, 1, wait);
        if (ready == 0 || left <= 0)
            break;
        if (ready > 0)
            drain(fd);
    }
    return !stop_signal;
}

/* As cargo watch and ruff --watch do: the screen cleared (and its scrollback) when the
 * diagnostics go to a terminal. */
static void clear_screen(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\x1b[2J\x1b[3J\x1b[H", stderr);
}

static void report_cycle(int status)
{
    fflush(stdout);   /* the diagnostics of the machine formats, before the line below */
    time_t t = time(NULL);
    struct tm local;
    localtime_r(&t, &local);
    fprintf(stderr, "orbitc: [%02d:%02d:%02d] %s; watching for changes (Ctrl-C to stop)\n",
            local.tm_hour, local.tm_min, local.tm_sec,
            status == EXIT_OK ? "checked, no errors" : status == EXIT_ERRORS
                ? "checked, errors found" : "checked, some paths could not be read");
    fflush(stderr);
}

int cli_watch(const CliOptions *opt, int (*check)(const CliOptions *opt))
{
    for (int i = 0; i < opt->path_count; i++)
        if (strcmp(opt->paths[i], "-") == 0)
            return cli_usage_error("--watch reads files: %s (standard input) cannot be watched", "-");
    if (opt->write_baseline || opt->add_suppressions)
        return cli_usage_error("--watch only checks: it takes no %s",
                               opt->write_baseline ? "--write-baseline" : "--add-suppressions");
    catch_stop_signals();
    for (bool first = true; !stop_signal; first = false) {
        Watcher w;
        if (!watch_paths(&w, opt)) {
            fprintf(stderr, "orbitc: error: cannot watch the paths for changes: %s\n",
                    w.fd < 0 ? strerror(errno) : "none of them, nor their directories, exists");
            if (w.fd >= 0)
                close(w.fd);
            return EXIT_USAGE;
        }
        if (!first)
            clear_screen();
        report_cycle(check(opt));
        bool changed = wait_for_change(w.fd);
        close(w.fd);
        if (!changed)
            break;
    }
    fprintf(stderr, "orbitc: stopped watching\n");
    return EXIT_OK;
}
