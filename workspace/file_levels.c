/* The level of a warning in one file (roots.h): `files "PATTERN" { lints { … } }` of
 * orbit.program over its `lints { … }`, the command line over both. The checker runs
 * once per program with one level per code, so a code that some `files` block sets is
 * on while the program is checked, and each report is then given its file's level. */
#include "roots.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "path_glob.h"

void file_levels_free(Root *root)
{
    free(root->file_levels);
    root->file_levels = NULL;
    root->file_level_count = 0;
}

void file_levels_for_check(const Root *root, const uint8_t *overrides, uint8_t *levels)
{
    for (int code = 0; code < DIAG_CODE_COUNT; code++) {
        bool by_file = false;
        for (uint32_t b = 0; b < root->file_level_count; b++)
            by_file |= root->file_levels[b].lints.level[code] != LINT_DEFAULT;
        if (overrides[code] != LINT_DEFAULT)
            levels[code] = overrides[code];
        else if (by_file)
            levels[code] = LINT_WARN;
        else
            levels[code] = root->lints.level[code];
    }
}

void root_paths_free(RootPaths *memo)
{
    uint32_t resolved = memo->resolved;
    free(memo->dir);
    free(memo->real);
    memset(memo, 0, sizeof *memo);
    memo->resolved = resolved;
}

bool root_relative_parts(const Compiler *c, const Root *root, uint32_t file, RootPaths *memo,
                         const char **below, const char **name)
{
    const char *path = source_file(&c->sources, file)->path;
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    const char *dir = slash ? path : ".";
    if (memo->root != root || !memo->dir || memo->dir_len != dir_len
        || memcmp(memo->dir, dir, dir_len) != 0) {
        root_paths_free(memo);
        memo->root = root;
        memo->dir = xstrndup(dir, dir_len);
        memo->dir_len = dir_len;
        memo->real = realpath(memo->dir, NULL);
        memo->resolved++;
        size_t len = strlen(root->real_dir);
        const char *real = memo->real;
        if (real && strncmp(real, root->real_dir, len) == 0
            && (real[len] == '/' || real[len] == '\0'))
            memo->below = real + len + (real[len] == '/');
    }
    *below = memo->below;
    *name = slash ? slash + 1 : path;
    return memo->below != NULL;
}

char *root_relative_path(const Compiler *c, const Root *root, uint32_t file, RootPaths *memo)
{
    const char *below, *name;
    if (!root_relative_parts(c, root, file, memo, &below, &name))
        return NULL;
    size_t size = strlen(below) + strlen(name) + 2;
    char *relative = xmalloc(size);
    snprintf(relative, size, "%s%s%s", below, below[0] ? "/" : "", name);
    return relative;
}

/* The level of `code` in the file at `relative` (NULL: matches no pattern), and in
 * *where the place that set it (a zero span: none, or the command line). */
static LintLevel level_in_file(const Root *root, const uint8_t *overrides, const char *relative,
                               DiagCode code, Span *where)
{
    *where = (Span){ 0, 0 };
    if (overrides[code] != LINT_DEFAULT)
        return (LintLevel)overrides[code];
    for (uint32_t b = root->file_level_count; relative && b-- > 0;) {
        const LintTable *t = &root->file_levels[b].lints;
        if (t->level[code] != LINT_DEFAULT && path_glob_match(root->file_levels[b].pattern, relative)) {
            *where = t->span[code];
            return (LintLevel)t->level[code];
        }
    }
    *where = root->lints.span[code];
    return (LintLevel)root->lints.level[code];
}

/* Gives warning `d` its level in its file; false when it is off there. */
static bool give_level(Compiler *c, const Root *root, const uint8_t *overrides, Diagnostic *d,
                       const char *relative)
{
    Span where;
    LintLevel level = level_in_file(root, overrides, relative, d->code, &where);
    if (level == LINT_ALLOW || (level == LINT_DEFAULT && !diag_info(d->code)->default_on))
        return false;
    d->severity = level == LINT_DENY ? SEV_ERROR : SEV_WARNING;
    if (level == LINT_DENY && where.end > where.start)
        diag_add_label(&c->diags, d, where, "`%s` is denied here, so it is an error",
                       diag_info(d->code)->code);
    return true;
}

void file_levels_apply(Compiler *c, const Root *root, const uint8_t *overrides, uint32_t first)
{
    DiagSink *sink = &c->diags;
    uint32_t cached_file = UINT32_MAX, kept = 0;
    char *relative = NULL;
    RootPaths memo = { 0 };
    for (uint32_t i = 0; i < sink->count; i++) {
        Diagnostic *d = sink->items[i];
        bool ours = (i >= first || d->code == W0011)
            && diag_info(d->code)->severity == SEV_WARNING;
        uint32_t file = ours ? source_file_at(&c->sources, d->span.start) : 0;
        if (ours && root_has_file(root, file)) {
            if (file != cached_file && root->file_level_count > 0 && root->real_dir) {
                free(relative);
                relative = root_relative_path(c, root, file, &memo);
                cached_file = file;
            }
            if (!give_level(c, root, overrides, d, relative))
                continue;
        }
        sink->items[kept++] = d;
    }
    sink->count = kept;
    free(relative);
    root_paths_free(&memo);
}
