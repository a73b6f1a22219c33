/* Program roots: finding the nearest orbit.program of each file, and checking each
 * program on its own (roots.h). */
#define _GNU_SOURCE   /* memrchr */
#include "roots.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checker.h"
#include "memory.h"
#include "workspace.h"

enum { NO_ROOT = UINT32_MAX };

void roots_init(RootSet *set)
{
    memset(set, 0, sizeof *set);
}

/* The real current directory, asked the first time a root is looked for: a run whose
 * files form one program (Workspace.by_roots false: the playground, with no file
 * system) never asks. */
static const char *current_dir(RootSet *set)
{
    if (!set->cwd)
        set->cwd = realpath(".", NULL);
    if (!set->cwd)
        set->cwd = xstrdup("/");
    return set->cwd;
}

void roots_free(RootSet *set)
{
    for (uint32_t i = 0; i < set->count; i++) {
        free(set->items[i].dir);
        free(set->items[i].default_name);
        free(set->items[i].config_path);
        free(set->items[i].files);
        free(set->items[i].real_dir);
        file_levels_free(&set->items[i]);
    }
    free(set->items);
    free(set->cwd);
    memset(set, 0, sizeof *set);
}

/* A real directory as shown: "." for the current directory, relative below it, else
 * absolute. */
static char *shown_dir(RootSet *set, const char *real)
{
    const char *cwd = current_dir(set);
    size_t cwd_len = strlen(cwd);
    if (strcmp(real, cwd) == 0)
        return xstrdup(".");
    bool below = strncmp(real, cwd, cwd_len) == 0
        && (real[cwd_len] == '/' || (cwd_len == 1 && cwd[0] == '/'));
    if (below)
        return xstrdup(real + cwd_len + (cwd_len > 1));
    return xstrdup(real);
}

static uint32_t add_root(RootSet *set, const char *real_root)
{
    if (set->count == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 4;
        set->items = xrealloc(set->items, set->cap * sizeof *set->items);
    }
    Root *root = &set->items[set->count];
    memset(root, 0, sizeof *root);
    if (real_root) {
        const char *base = strrchr(real_root, '/');
        root->default_name = xstrdup(base ? base + 1 : real_root);
        root->name = root->default_name;
        root->dir = shown_dir(set, real_root);
        root->real_dir = xstrdup(real_root);
        inputs_observe(set->observer, INPUT_FOLLOW, real_root, PROGRAM_MARKER);   /* read */
        bool here = strcmp(root->dir, ".") == 0;
        size_t len = strlen(root->dir) + sizeof PROGRAM_MARKER + 1;
        root->config_path = xmalloc(len);
        snprintf(root->config_path, len, "%s%s" PROGRAM_MARKER, here ? "" : root->dir,
                 here ? "" : "/");
    }
    return set->count++;
}

static bool has_marker(RootSet *set, const char *dir)
{
    inputs_observe(set->observer, INPUT_LOOKUP, dir, PROGRAM_MARKER);
    size_t len = strlen(dir) + sizeof PROGRAM_MARKER + 1;
    char *path = xmalloc(len);
    snprintf(path, len, "%s/" PROGRAM_MARKER, strcmp(dir, "/") == 0 ? "" : dir);
    /* Whatever the name is (a dangling or looping symbolic link, a directory, a FIFO)
     * marks a root: roots_read_config then reads it as a file or says why it cannot,
     * so that a configuration is never silently ignored. */
    struct stat st;
    bool found = lstat(path, &st) == 0;
    free(path);
    return found;
}

/* The cached answer for a real directory: a root index + 1, 0 below no root; false when
 * the directory has not been looked at. */
static bool cached(RootSet *set, Compiler *c, const char *dir, uint32_t *value)
{
    const Name *name = intern_cstr(&c->names, dir);
    return names_get(&set->dirs, name, value);
}

static void cache(RootSet *set, Compiler *c, const char *dir, uint32_t value)
{
    names_put(&set->dirs, &c->arena, intern_cstr(&c->names, dir), value);
}

/* The index of the nearest root at or above the real directory `real`, or NO_ROOT. Climbs
 * until a directory already looked at, a root, or "/", then records the answer for every
 * directory passed: each directory is looked at once per run. */
static uint32_t root_above(RootSet *set, Compiler *c, const char *real, int marker_here)
{
    size_t len = strlen(real);
    char *dir = xstrndup(real, len);
    size_t *passed = xmalloc((len + 1) * sizeof *passed);   /* the ends of their prefixes */
    uint32_t passed_count = 0, value = 0;
    for (size_t end = len;;) {
        dir[end] = '\0';   /* climbing only shortens the prefix */
        if (cached(set, c, dir, &value))
            break;
        passed[passed_count++] = end;
        bool marker = end == len && marker_here >= 0 ? marker_here : has_marker(set, dir);
        if (marker) {
            value = add_root(set, dir) + 1;
            break;
        }
        const char *slash = memrchr(dir, '/', end);
        if (end <= 1 || !slash) {
            value = 0;
            break;
        }
        end = slash == dir ? 1 : (size_t)(slash - dir);
    }
    for (uint32_t i = 0; i < passed_count; i++) {
        memcpy(dir, real, passed[i]);
        dir[passed[i]] = '\0';
        cache(set, c, dir, value);
    }
    free(passed);
    free(dir);
    return value ? value - 1 : NO_ROOT;
}

uint32_t roots_unrooted(RootSet *set)
{
    for (uint32_t i = 0; i < set->count; i++)
        if (!set->items[i].dir)
            return i;
    return add_root(set, NULL);
}

uint32_t roots_find(RootSet *set, Compiler *c, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
                      : xstrdup(".");
    char *real = realpath(dir, NULL);
    free(dir);
    uint32_t root = roots_find_in(set, c, real ? real : current_dir(set), -1);
    free(real);
    return root;
}

uint32_t roots_find_in(RootSet *set, Compiler *c, const char *real_dir, int marker_here)
{
    uint32_t root = root_above(set, c, real_dir, marker_here);
    return root == NO_ROOT ? roots_unrooted(set) : root;
}

void roots_add_file(RootSet *set, uint32_t root, uint32_t file)
{
    Root *r = &set->items[root];
    if (r->file_count == r->file_cap) {
        r->file_cap = r->file_cap ? r->file_cap * 2 : 16;
        r->files = xrealloc(r->files, r->file_cap * sizeof *r->files);
    }
    r->files[r->file_count++] = file;
}

void roots_read_config(RootSet *set, uint32_t index, Compiler *c, InputReport report,
                       void *context, unsigned *failures)
{
    Root *root = &set->items[index];
    const char *error = NULL;
    uint32_t file = c->sources.count;
    if (workspace_add_found_file(c, root->config_path, &error)) {
        root->config_file = file;
    } else {
        inputs_report_unreadable(report, context, root->config_path, error);
        ++*failures;
    }
}

bool root_has_file(const Root *root, uint32_t file)
{
    for (uint32_t f = 0; f < root->file_count; f++)
        if (root->files[f] == file)
            return true;
    return false;
}

void roots_configure(RootSet *set, Compiler *c)
{
    for (uint32_t i = 0; i < set->count; i++) {
        Root *root = &set->items[i];
        memset(&root->lints, 0, sizeof root->lints);   /* read anew each time */
        file_levels_free(root);
        root->name = root->default_name;
        if (root->config_file && !root->config_unread)
            root_config_read(c, root);
    }
}

bool roots_failed(const RootSet *set, const Compiler *c, uint32_t index, bool deny_warnings)
{
    const Root *root = &set->items[index];
    for (uint32_t i = 0; i < c->diags.count; i++) {
        const Diagnostic *d = c->diags.items[i];
        if (d->severity != SEV_ERROR && !deny_warnings)
            continue;
        uint32_t file = source_file_at(&c->sources, d->span.start);
        if ((file == root->config_file && file != 0) || root_has_file(root, file))
            return true;
    }
    return false;
}

Program *roots_check(RootSet *set, Compiler *c, uint32_t index, const uint8_t *overrides,
                     const CheckOptions *options)
{
    Root *root = &set->items[index];
    file_levels_for_check(root, overrides, c->diags.level);
    if (root->file_count == 0)
        return NULL;
    uint32_t first = c->diags.count;
    Program *program = check_files(c, root->files, root->file_count, options);
    file_levels_apply(c, root, overrides, first);
    return program;
}
