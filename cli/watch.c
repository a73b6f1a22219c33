/* `orbitc check --watch` (docs/cli.md, "Watching"): check, then wait for a change to
 * what the check read (inotify), clear the screen and check again, until SIGINT or
 * SIGTERM. What is watched is what the check itself looked at, as the workspace tells it
 * (workspace/input_observer.h): each directory it listed, each name it looked for in a
 * directory, found or not (an orbit.program or a .gitignore above the paths, a `.git`),
 * each entry on the way to a file it read through symbolic links; the baseline file.
 * Each place is watched before the check looks at it, on an inotify descriptor made
 * for that check, so that a change made while it runs is seen too (it starts another).
 * Each check is a new run from the paths, so files that were deleted, renamed or left
 * half-written are met as a fresh `check` would meet them. */
#define _GNU_SOURCE
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
#include "hash.h"
#include "memory.h"

enum {
    QUIET_MS = 150,        /* a change is acted on once the files are quiet this long */
    MAX_DELAY_MS = 2000,   /* ...or this long after the first change, whatever comes */
    MAX_LINKS = 40,        /* symbolic links followed in one path, as the kernel does */
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

/* A name looked for in a watched directory (by watch descriptor), or a directory that
 * could not be watched (wd -1: counted once). */
typedef struct WatchedName {
    char *name;   /* NULL: a free slot */
    int wd;
} WatchedName;

/* The watches of one check: an inotify descriptor, its directories, and for each what
 * matters in it. Every watch is of a directory: a file's text is seen through its
 * directory's events, which name it. */
typedef struct Watcher {
    int fd;
    bool *listed;           /* by watch descriptor: a directory the check listed */
    int listed_cap;
    int watched;            /* directories watched */
    WatchedName *names;     /* open addressing, at most half full */
    size_t name_count, name_cap;
    unsigned over_limit;    /* directories not watched: the kernel's limit of watches */
    unsigned failed;        /* directories not watched for another reason... */
    char *first_failed;     /* ...the first of them, and why */
    int first_errno;
} Watcher;

static const uint32_t WATCH_EVENTS = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE
    | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB | IN_ONLYDIR;

static size_t name_slot(const Watcher *w, int wd, const char *name)
{
    uint64_t hash = hash_fnv1a(HASH_FNV1A_START, &wd, sizeof wd);
    hash = hash_fnv1a(hash, name, strlen(name));
    size_t mask = w->name_cap - 1, slot = (size_t)hash & mask;
    while (w->names[slot].name && (w->names[slot].wd != wd || strcmp(w->names[slot].name, name) != 0))
        slot = (slot + 1) & mask;
    return slot;
}

static bool has_name(const Watcher *w, int wd, const char *name)
{
    return w->name_cap > 0 && w->names[name_slot(w, wd, name)].name != NULL;
}

/* Adds (wd, name); false when it was there already. */
static bool add_name(Watcher *w, int wd, const char *name)
{
    if (2 * (w->name_count + 1) > w->name_cap) {
        WatchedName *old = w->names;
        size_t old_cap = w->name_cap;
        w->name_cap = old_cap ? 2 * old_cap : 64;
        w->names = xcalloc(w->name_cap, sizeof *w->names);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].name)
                w->names[name_slot(w, old[i].wd, old[i].name)] = old[i];
        free(old);
    }
    size_t slot = name_slot(w, wd, name);
    if (w->names[slot].name)
        return false;
    w->names[slot] = (WatchedName){ xstrdup(name), wd };
    w->name_count++;
    return true;
}

static bool watcher_open(Watcher *w)
{
    memset(w, 0, sizeof *w);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return w->fd >= 0;
}

static void watcher_close(Watcher *w)
{
    close(w->fd);
    for (size_t i = 0; i < w->name_cap; i++)
        free(w->names[i].name);
    free(w->names);
    free(w->listed);
    free(w->first_failed);
}

/* Watches directory `dir`; its watch descriptor, or -1 when it cannot be watched. One
 * that does not exist (or is not a directory) needs no watch: the name looked for in
 * its parent, watched too, says when it appears. Any other failure is counted, to be
 * said after the check. */
static int watch_dir(Watcher *w, const char *dir)
{
    int wd = inotify_add_watch(w->fd, dir, WATCH_EVENTS);
    if (wd >= 0) {
        if (wd >= w->listed_cap) {
            int cap = w->listed_cap ? w->listed_cap : 64;
            while (cap <= wd)
                cap *= 2;
            w->listed = xrealloc(w->listed, (size_t)cap * sizeof *w->listed);
            memset(w->listed + w->listed_cap, 0, (size_t)(cap - w->listed_cap) * sizeof *w->listed);
            w->listed_cap = cap;
        }
        if (wd >= w->watched)   /* (descriptors are given in increasing order) */
            w->watched = wd + 1;
        return wd;
    }
    int err = errno;
    if (err == ENOENT || err == ENOTDIR || !add_name(w, -1, dir))
        return -1;
    if (err == ENOSPC) {
        w->over_limit++;
    } else if (w->failed++ == 0) {
        w->first_failed = xstrdup(dir);
        w->first_errno = err;
    }
    return -1;
}

static void watch_name(Watcher *w, const char *dir, const char *name)
{
    int wd = watch_dir(w, dir);
    if (wd >= 0)
        add_name(w, wd, name);
}

static char *join(const char *dir, const char *name)
{
    size_t len = strlen(dir);
    size_t size = len + strlen(name) + 2;
    char *path = xmalloc(size);
    snprintf(path, size, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
    return path;
}

/* Resolves `path` from directory `dir` (NULL: the current one) as the kernel does, an
 * entry at a time, following symbolic links (MAX_LINKS in all: `links` counts them),
 * and watches each directory for the name looked up in it: a link retargeted, a
 * directory on the way renamed, the file at the end saved or created, is then seen.
 * Returns the path resolved (malloc'd), or NULL where the resolution stops (an entry
 * that does not exist: the watch of its directory says when it appears). */
static char *follow(Watcher *w, const char *dir, const char *path, int *links)
{
    char *cur = xstrdup(path[0] == '/' ? "/" : dir ? dir : ".");
    for (const char *p = path; cur;) {
        p += strspn(p, "/");
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        char *name = xstrndup(p, len);
        p += len;
        if (strcmp(name, ".") == 0) {
            free(name);
            continue;
        }
        if (strcmp(name, "..") != 0)   /* `..` changes only when `cur` moves: MOVE_SELF */
            watch_name(w, cur, name);
        char *next = join(cur, name);
        free(name);
        struct stat st;
        char target[PATH_MAX];
        ssize_t n;
        if (lstat(next, &st) != 0 || (S_ISLNK(st.st_mode) && (++*links > MAX_LINKS
                || (n = readlink(next, target, sizeof target - 1)) < 0))) {
            free(next);
            free(cur);
            return NULL;
        }
        if (S_ISLNK(st.st_mode)) {
            target[n] = '\0';
            free(next);
            next = follow(w, cur, target, links);   /* relative to the link's directory */
        }
        free(cur);
        cur = next;
    }
    return cur;
}

/* The workspace's observer (input_observer.h): watches what a check is about to look at. */
static void look(void *context, InputLook what, const char *dir, const char *name)
{
    Watcher *w = context;
    int links = 0;
    switch (what) {
    case INPUT_LIST: {
        int wd = watch_dir(w, dir);
        if (wd >= 0)
            w->listed[wd] = true;
        break;
    }
    case INPUT_LOOKUP:
        watch_name(w, dir, name);
        break;
    case INPUT_FOLLOW:
        free(follow(w, dir, name, &links));
        break;
    }
}

/* Says, after a check, what could not be watched: changes there are missed. */
static void report_unwatched(const Watcher *w)
{
    if (w->over_limit > 0)
        fprintf(stderr, "orbitc: warning: %u %s read by the check %s not watched: the "
                        "kernel's limit of inotify watches per user is reached; changes "
                        "there are missed until it is raised (sysctl "
                        "fs.inotify.max_user_watches)\n",
                w->over_limit, w->over_limit == 1 ? "directory" : "directories",
                w->over_limit == 1 ? "is" : "are");
    if (w->failed > 0)
        fprintf(stderr, "orbitc: warning: cannot watch `%s` for changes: %s%s; changes "
                        "there are missed\n", w->first_failed, strerror(w->first_errno),
                w->failed > 1 ? " (and other directories)" : "");
}

/* Whether an event may change what check says: one about a watched directory itself
 * (changed, moved or gone), a lost event (the queue overflowed), an entry that a walk
 * looks at in a directory it listed, or a name looked for there. */
static bool relevant(const Watcher *w, const struct inotify_event *e)
{
    if (e->wd < 0 || e->len == 0)
        return true;
    bool listed = e->wd < w->listed_cap && w->listed[e->wd];
    return (listed && inputs_walk_sees(e->name, (e->mask & IN_ISDIR) != 0))
        || has_name(w, e->wd, e->name);
}

/* Reads the events waiting; true when one of them is relevant. */
static bool drain(const Watcher *w)
{
    char buffer[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool any = false;
    for (;;) {
        ssize_t n = read(w->fd, buffer, sizeof buffer);
        if (n <= 0)
            return any;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            any |= relevant(w, e);
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

/* Waits for a relevant change, then for the files to be quiet (QUIET_MS without a
 * relevant event, at most MAX_DELAY_MS after the first): an editor's save, a `git
 * checkout` of many files, is one re-check; events of no interest (a busy /tmp above
 * the paths) neither start nor delay one. False when a stop signal came. */
static bool wait_for_change(const Watcher *w)
{
    struct pollfd p = { w->fd, POLLIN, 0 };
    while (!stop_signal) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return false;
        if (!stop_signal && drain(w))
            break;
    }
    long first = now_ms(), last = first;
    while (!stop_signal) {
        long now = now_ms();
        long until = last + QUIET_MS < first + MAX_DELAY_MS ? last + QUIET_MS : first + MAX_DELAY_MS;
        if (now >= until)
            break;
        if (poll(&p, 1, (int)(until - now)) > 0 && drain(w))
            last = now_ms();
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

/* Whether `path` or its directory exists: a path that cannot appear without a directory
 * made first is a mistake, refused at the start (later, a path gone is watched for). */
static bool exists_or_its_directory(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return true;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    bool found = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    free(dir);
    return found;
}

int cli_watch(const CliOptions *opt, int (*check)(const CliOptions *opt,
                                                  const InputObserver *observer))
{
    bool any = false;
    for (int i = 0; i < opt->path_count; i++) {
        if (strcmp(opt->paths[i], "-") == 0)
            return cli_usage_error("--watch reads files: %s (standard input) cannot be watched", "-");
        any |= exists_or_its_directory(opt->paths[i]);
    }
    if (opt->write_baseline || opt->add_suppressions)
        return cli_usage_error("--watch only checks: it takes no %s",
                               opt->write_baseline ? "--write-baseline" : "--add-suppressions");
    if (!any) {
        fprintf(stderr, "orbitc: error: cannot watch the paths for changes: none of them, "
                        "nor their directories, exists\n");
        return EXIT_USAGE;
    }
    catch_stop_signals();
    for (bool first = true; !stop_signal; first = false) {
        Watcher w;
        if (!watcher_open(&w)) {
            fprintf(stderr, "orbitc: error: cannot watch for changes: %s%s\n", strerror(errno),
                    errno == EMFILE ? " (or the kernel's limit of inotify instances per user "
                                      "is reached: fs.inotify.max_user_instances)" : "");
            return EXIT_USAGE;
        }
        if (!first)
            clear_screen();
        InputObserver observer = { look, &w };
        if (opt->baseline)   /* read by the check after the sources (baseline_command.c) */
            look(&w, INPUT_FOLLOW, NULL, opt->baseline);
        int status = check(opt, &observer);
        report_unwatched(&w);
        if (w.watched == 0) {
            fprintf(stderr, "orbitc: error: nothing the check read could be watched for "
                            "changes\n");
            watcher_close(&w);
            return EXIT_USAGE;
        }
        report_cycle(status);
        bool changed = wait_for_change(&w);
        watcher_close(&w);
        if (!changed)
            break;
    }
    fprintf(stderr, "orbitc: stopped watching\n");
    return EXIT_OK;
}
