/* The input files of one run: command-line paths expanded into files (inputs.h). */
#define _GNU_SOURCE   /* getdents64 */
#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "memory.h"

static Input *push_input(InputList *list, char *path)
{
    if (list->count == list->cap) {
        list->cap = list->cap ? list->cap * 2 : 16;
        list->items = xrealloc(list->items, list->cap * sizeof *list->items);
    }
    Input *input = &list->items[list->count++];
    *input = (Input){ .path = path };
    return input;
}

static char *join_path(const char *dir, const char *name)
{
    size_t dlen = strlen(dir), nlen = strlen(name);
    bool slash = dlen > 0 && dir[dlen - 1] != '/';
    char *path = xmalloc(dlen + slash + nlen + 1);
    memcpy(path, dir, dlen);
    if (slash)
        path[dlen] = '/';
    memcpy(path + dlen + slash, name, nlen + 1);
    return path;
}

/* Records that `path` (malloc'd, owned by the list from now on) cannot be used:
 * "<before>`<path>`<after>", reported once the list is complete. */
static void push_problem(InputList *list, char *path, const char *before, const char *after)
{
    size_t len = strlen(before) + strlen(path) + strlen(after) + 3;
    char *text = xmalloc(len);
    snprintf(text, len, "%s`%s`%s", before, path, after);
    push_input(list, path)->problem = text;
}

/* A path that cannot be read: "<what> `path`: why". */
static void push_unreadable(InputList *list, char *path, const char *what, const char *why)
{
    size_t len = strlen(why) + 3;
    char *after = xmalloc(len);
    snprintf(after, len, ": %s", why);
    push_problem(list, path, what, after);
    free(after);
}

/* Why a symbolic link cannot be followed (`err` from stat). */
static const char *link_problem(int err)
{
    return err == ENOENT ? "a symbolic link to a file that does not exist (dangling)"
                         : strerror(err);
}

static void set_identity(Input *input, const struct stat *st)
{
    input->known = true;
    input->regular = S_ISREG(st->st_mode);
    input->dev = st->st_dev;
    input->ino = st->st_ino;
    input->size = st->st_size;
    input->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    input->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static bool has_orbit_suffix(const char *name)
{
    size_t len = strlen(name);
    return len > 6 && strcmp(name + len - 6, ".orbit") == 0;
}

/* --- walking a directory --- */

typedef struct DirEntry {
    char *name;
    unsigned char type;   /* d_type: DT_UNKNOWN when the file system does not say */
    int stat_error;       /* of lstat, when `st` was asked for: 0 or an errno */
    struct stat st;       /* the lstat of a possible source or of an entry of type unknown */
} DirEntry;

typedef struct DirListing {
    DirEntry *items;
    size_t count, cap;
    bool has_gitignore;   /* a hidden entry named .gitignore is there */
    bool has_marker;      /* an entry named PROGRAM_MARKER (of any type) is there */
} DirListing;

/* Whether the walk needs the lstat of an entry: a possible source file (or a link to
 * one), or an entry whose type the listing does not give. A directory needs none, and
 * any other entry is passed over. */
static bool wants_stat(const char *name, unsigned char type)
{
    return type == DT_UNKNOWN || (type != DT_DIR && has_orbit_suffix(name));
}

static void add_entry(DirListing *listing, int fd, const char *name, unsigned char type)
{
    if (name[0] == '.') {
        listing->has_gitignore |= strcmp(name, ".gitignore") == 0;
        return;
    }
    if (listing->count == listing->cap) {
        listing->cap = listing->cap ? listing->cap * 2 : 16;
        listing->items = xrealloc(listing->items, listing->cap * sizeof *listing->items);
    }
    DirEntry *entry = &listing->items[listing->count++];
    entry->name = xstrdup(name);
    entry->type = type;
    entry->stat_error = 0;
    if (wants_stat(name, type) && fstatat(fd, name, &entry->st, AT_SYMLINK_NOFOLLOW) != 0)
        entry->stat_error = errno;
    listing->has_marker |= strcmp(name, PROGRAM_MARKER) == 0;
}

/* The visible entries of `dir`, with the lstat of those the walk looks at, read at once
 * so that no directory stays open while its subdirectories are walked (a deep tree would
 * run out of file descriptors). The entries are read with getdents64 and looked at
 * relative to the open directory: the fewest system calls, and no path looked up again
 * from the top for each file (a warm re-check is mostly this walk). Returns false with
 * errno set when `dir` cannot be listed. */
static bool list_dir(const char *dir, DirListing *listing)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[16384];
    ssize_t got;
    while ((got = getdents64(fd, buf, sizeof buf)) > 0)
        for (ssize_t at = 0; at < got;) {
            const struct dirent64 *entry = (const struct dirent64 *)(buf + at);
            at += entry->d_reclen;
            add_entry(listing, fd, entry->d_name, entry->d_type);
        }
    int err = got < 0 ? errno : 0;
    close(fd);
    errno = err;
    return err == 0;
}

/* A walk: the list it fills and what it passes over. */
typedef struct Walk {
    InputList *list;
    IgnoreStack *ignore;
    bool marker_here;    /* the directory being listed holds a PROGRAM_MARKER */
} Walk;

static void walk_dir(Walk *walk, const char *dir, const char *real, const char *rel,
                     bool enter);
static void walk_one(Walk *walk, const char *dir, const char *real, const char *rel,
                     const DirEntry *entry);

/* One entry of a directory: a subdirectory is walked, a *.orbit regular file (or a
 * symbolic link to one) is taken; anything else is not a source file and is passed over,
 * and so is what the ignore files exclude. `rel` is the directory below the walk's top
 * ("" for the top); `real` the real path of `dir` (NULL: not known). */
static void walk_entry(Walk *walk, const char *dir, const char *real, const char *rel,
                       const DirEntry *entry)
{
    char *entry_rel = rel[0] ? join_path(rel, entry->name) : xstrdup(entry->name);
    walk_one(walk, dir, real, entry_rel, entry);
    free(entry_rel);
}

static void walk_one(Walk *walk, const char *dir, const char *real, const char *rel,
                     const DirEntry *entry)
{
    InputList *list = walk->list;
    IgnoreStack *ignore = walk->ignore;
    bool orbit = has_orbit_suffix(entry->name);
    if (entry->type != DT_DIR && !wants_stat(entry->name, entry->type))
        return;   /* the listing says it is neither a directory nor a source */
    char *path = join_path(dir, entry->name);
    struct stat st;
    if (entry->type == DT_DIR) {   /* no stat: a directory that vanished lists nothing */
        st.st_mode = S_IFDIR;
    } else if (entry->stat_error) {
        /* An entry that vanished since it was listed holds nothing to read; one that
         * cannot be looked at for another reason (a possible source, or of a type the
         * listing did not give: wants_stat) may: a directory or a source file. */
        int err = entry->stat_error;
        if (err != ENOENT)
            push_unreadable(list, path, "cannot read ", strerror(err));
        else
            free(path);
        return;
    } else {
        st = entry->st;
    }
    if (ignore_matches(ignore, rel, S_ISDIR(st.st_mode))) {
        free(path);
        return;
    }
    if (S_ISDIR(st.st_mode)) {   /* a directory itself, never a link to one */
        char *sub = real ? join_path(real, entry->name) : NULL;
        walk_dir(walk, path, sub, rel, true);
        free(sub);
        free(path);
        return;
    }
    if (orbit && S_ISLNK(st.st_mode))
        inputs_observe(list->observer, INPUT_FOLLOW, dir, entry->name);
    if (orbit && S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        push_unreadable(list, path, "cannot read ", link_problem(errno));
        return;
    }
    if (!orbit || !S_ISREG(st.st_mode)) {   /* a FIFO, a device, a link to a directory */
        free(path);
        return;
    }
    Input *input = push_input(list, path);
    input->found = true;
    input->real_dir = real ? xstrdup(real) : NULL;
    input->marker_here = walk->marker_here;
    set_identity(input, &st);
}

/* Walks directory `dir`; `enter`: its .gitignore applies below it (the walk's top has
 * had its own read by ignore_start). */
static void walk_dir(Walk *walk, const char *dir, const char *real, const char *rel,
                     bool enter)
{
    DirListing listing = { 0 };
    inputs_observe(walk->list->observer, INPUT_LIST, dir, NULL);
    if (!list_dir(dir, &listing) && errno != ENOENT)   /* ENOENT: it vanished meanwhile */
        push_unreadable(walk->list, xstrdup(dir),   /* a path too long is not the directory's */
                        errno == ENAMETOOLONG ? "cannot read " : "cannot read directory ",
                        strerror(errno));
    size_t mark = enter ? ignore_enter(walk->ignore, dir, rel, listing.has_gitignore) : 0;
    for (size_t i = 0; i < listing.count; i++) {
        walk->marker_here = listing.has_marker;   /* (a subdirectory walked changes it) */
        walk_entry(walk, dir, real, rel, &listing.items[i]);
        free(listing.items[i].name);
    }
    if (enter)
        ignore_leave(walk->ignore, mark);
    free(listing.items);
}

/* --- the whole list --- */

static int compare_paths(const void *a, const void *b)
{
    return strcmp(((const Input *)a)->path, ((const Input *)b)->path);
}

/* One command-line path. */
static void collect_path(InputList *list, const char *arg)
{
    if (strcmp(arg, "-") == 0) {
        push_input(list, xstrdup(arg))->from_stdin = true;
        return;
    }
    inputs_observe(list->observer, INPUT_FOLLOW, NULL, arg);
    struct stat st;
    if (stat(arg, &st) != 0) {
        int err = errno;
        bool link = lstat(arg, &st) == 0 && S_ISLNK(st.st_mode);
        push_unreadable(list, xstrdup(arg), "cannot read ",
                        link ? link_problem(err) : strerror(err));
        return;
    }
    if (!S_ISDIR(st.st_mode) && inputs_is_program_config(arg)) {
        push_problem(list, xstrdup(arg), "",
                     " is a program configuration, not a source file: give its directory "
                     "(docs/cli.md, \"Programs and their configuration\")");
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        set_identity(push_input(list, xstrdup(arg)), &st);
        return;
    }
    size_t before = list->count;
    Walk walk = { list, ignore_start(&list->ignore, arg, list->observer), false };
    char *real = realpath(arg, NULL);   /* once: the walk's directories are below it */
    walk_dir(&walk, arg, real, "", false);
    free(real);
    ignore_free(walk.ignore);
    if (list->count == before)
        push_problem(list, xstrdup(arg), "no .orbit files in directory ", "");
    qsort(list->items + before, list->count - before, sizeof *list->items, compare_paths);
}

static void input_free(Input *input)
{
    free(input->path);
    free(input->problem);
    free(input->real_dir);
}

/* Reports every problem found while collecting, in list order, and removes those
 * entries. */
static void report_problems(InputList *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        Input *input = &list->items[i];
        if (input->problem) {
            if (list->report)
                list->report(list->report_context, input->path, input->problem);
            list->failures++;
            input_free(input);
        } else {
            list->items[kept++] = *input;
        }
    }
    list->count = kept;
}

static bool same_file(const Input *input, const struct stat *st)
{
    return input->known && input->dev == st->st_dev && input->ino == st->st_ino;
}

/* The same file named twice (directly, through a directory, a link or another spelling)
 * is read once, where it first appears: each file's identity goes into a table (open
 * addressing, a power of two of slots, at most half full) in list order, and an input
 * whose identity is there already is dropped. O(n). */
typedef struct Identity {
    dev_t dev;
    ino_t ino;
    bool used;
} Identity;

/* Whether `input`'s identity was in `table` (`mask` + 1 slots) before; adds it if not. */
static bool seen_before(Identity *table, size_t mask, const Input *input)
{
    uint64_t key[2] = { (uint64_t)input->dev, (uint64_t)input->ino };
    size_t slot = (size_t)hash_wide(0, key, sizeof key) & mask;
    for (; table[slot].used; slot = (slot + 1) & mask)
        if (table[slot].dev == input->dev && table[slot].ino == input->ino)
            return true;
    table[slot] = (Identity){ input->dev, input->ino, true };
    return false;
}

static void drop_duplicates(InputList *list)
{
    size_t slots = 16;
    while (slots < 2 * list->count)
        slots *= 2;
    Identity *table = xcalloc(slots, sizeof *table);
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        Input *input = &list->items[i];
        if (input->known && seen_before(table, slots - 1, input))
            input_free(input);
        else
            list->items[kept++] = *input;
    }
    list->count = kept;
    free(table);
}

void inputs_collect(InputList *list, const char *const *paths, int count)
{
    for (int i = 0; i < count; i++)
        collect_path(list, paths[i]);
    report_problems(list);
    drop_duplicates(list);
}

bool inputs_walk_sees(const char *name, bool is_dir)
{
    if (name[0] == '.')   /* add_entry: of the hidden entries, only the .gitignore */
        return strcmp(name, ".gitignore") == 0;
    return is_dir || has_orbit_suffix(name) || strcmp(name, PROGRAM_MARKER) == 0;
}

bool inputs_is_program_config(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, PROGRAM_MARKER) == 0;
}

void inputs_name_stdin(InputList *list, const char *name)
{
    size_t at = 0;
    while (at < list->count && !list->items[at].from_stdin)
        at++;
    if (at == list->count)
        return;
    Input *stdin_input = &list->items[at];
    struct stat st;
    if (name && stat(name, &st) == 0) {
        for (size_t i = 0; i < list->count; i++) {
            Input *input = &list->items[i];
            if (i == at || !same_file(input, &st))
                continue;
            /* the editor's unsaved buffer of a file of the program: it takes its place */
            free(input->path);
            input->path = xstrdup(name);
            free(input->real_dir);   /* the name's own directory decides (a hard link) */
            input->real_dir = NULL;
            input->from_stdin = true;
            input->found = false;
            input_free(stdin_input);
            memmove(stdin_input, stdin_input + 1, (list->count - at - 1) * sizeof *stdin_input);
            list->count--;
            return;
        }
    }
    free(stdin_input->path);
    stdin_input->path = xstrdup(name ? name : "<stdin>");
    if (fstat(STDIN_FILENO, &st) == 0)
        set_identity(stdin_input, &st);
}

const Input *inputs_same_file(const InputList *list, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    for (size_t i = 0; i < list->count; i++) {
        if (same_file(&list->items[i], &st))
            return &list->items[i];
    }
    return NULL;
}

void inputs_free(InputList *list)
{
    for (size_t i = 0; i < list->count; i++)
        input_free(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

void inputs_report_unreadable(InputReport report, void *context, const char *path,
                              const char *why)
{
    if (!report)
        return;
    size_t len = strlen(path) + strlen(why) + 20;
    char *message = xmalloc(len);
    snprintf(message, len, "cannot read `%s`: %s", path, why);
    report(context, path, message);
    free(message);
}
