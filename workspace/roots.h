/* Program roots (docs/cli.md, "Programs and their configuration"). A directory that holds
 * a file named `orbit.program` is the root of one program; each source file belongs to
 * the nearest root at or above its directory, and the files of one root are checked
 * together, as one program, apart from the others. Files below no root form one program
 * of their own, as they always did: without any marker nothing changes.
 *
 * `orbit.program` is written in Orbit's own syntax, read by the front end, and holds the
 * program's name and its lint levels (root_config.c):
 *
 *     program payments {
 *       lints {
 *         W0007: warn     // allow, warn or deny
 *         W00: allow      // a prefix: every code it starts (the longer key wins)
 *       }
 *       files "legacy/x.orbit" {     // the files below the root that match
 *         lints { W0006: allow }     // levels for them alone (file_levels.c)
 *       }
 *     }
 *
 * An empty `orbit.program` marks a root with the default settings. */
#ifndef ORBIT_ROOTS_H
#define ORBIT_ROOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "checker.h"
#include "compiler.h"
#include "inputs.h"
#include "namemap.h"

typedef struct Program Program;

/* The levels a configuration sets: per warning code, its level (LINT_DEFAULT: not set),
 * the length of the code or prefix that set it (a longer one wins: `W0006: warn` over
 * `W00: allow`, whatever their order) and where it was set. */
typedef struct LintTable {
    uint8_t level[DIAG_CODE_COUNT];
    uint8_t set_by[DIAG_CODE_COUNT];
    Span span[DIAG_CODE_COUNT];
} LintTable;

/* `files "PATTERN" { lints { … } }`: levels for the files of the program whose path,
 * relative to the root, matches PATTERN (base/path_glob.h). */
typedef struct FileLevels {
    const char *pattern;
    LintTable lints;
} FileLevels;

/* A root and the files that belong to it, checked as one program; the files below no
 * root are one more, without a directory. */
typedef struct Root {
    char *dir;               /* the root directory as shown: relative to the current
                                directory when below it; NULL for the files below no root */
    char *config_path;       /* its orbit.program as shown; NULL without a root */
    uint32_t config_file;    /* the source index of orbit.program once read, else 0 */
    bool config_unread;      /* added unread (the cache's file index knows it: no mistakes,
                                no `files` blocks): not configured until it is checked */
    const char *name;        /* the name its configuration gives, else the root
                                directory's own name; NULL without a root */
    char *default_name;
    uint32_t *files;         /* source indexes of its files, in the order read */
    uint32_t file_count, file_cap;
    char *real_dir;          /* the root directory, symbolic links resolved; NULL without */
    LintTable lints;         /* its configuration's `lints { … }` */
    FileLevels *file_levels; /* its `files "PATTERN" { … }` blocks, in order */
    uint32_t file_level_count;
} Root;

typedef struct RootSet {
    Root *items;
    uint32_t count, cap;
    NameMap dirs;            /* real directory -> root index + 1, or 0: below no root */
    char *cwd;               /* the real current directory, once asked */
    const InputObserver *observer;   /* told of each orbit.program looked for and read
                                        (input_observer.h), or NULL */
} RootSet;

void roots_init(RootSet *set);
void roots_free(RootSet *set);

/* The index of the root that the file at `path` belongs to (a path as given; the file
 * need not exist: its directory decides, or the current directory when that cannot be
 * resolved). Finds the roots on the way, each directory looked at once. */
uint32_t roots_find(RootSet *set, Compiler *c, const char *path);

/* The same for a file whose directory's real path is known (`real_dir`, as a directory
 * walk finds it: Input.real_dir), without resolving anything; `marker_here`: the walk's
 * listing of that directory says whether it holds an orbit.program (-1: not known). */
uint32_t roots_find_in(RootSet *set, Compiler *c, const char *real_dir, int marker_here);

/* The index of the files below no root: with no roots looked for, the only program. */
uint32_t roots_unrooted(RootSet *set);

/* Records that source `file` belongs to root `root`. */
void roots_add_file(RootSet *set, uint32_t root, uint32_t file);

/* Reads root `root`'s orbit.program into the compiler as a source (to be parsed with the
 * others, never checked as a program). A file that cannot be read is reported and
 * counted in *failures. */
void roots_read_config(RootSet *set, uint32_t root, Compiler *c, InputReport report,
                       void *context, unsigned *failures);

/* After compiler_parse: reads each root's configuration, reporting its mistakes (E0701)
 * (but not one added unread: Root.config_unread). May be called again for another
 * compiler holding the same sources (`orbitc fix`). */
void roots_configure(RootSet *set, Compiler *c);

/* Sets the lint levels of root `root` in c->diags (its configuration's, overridden by
 * `overrides`, the command line's: LINT_DEFAULT where it says nothing) and checks its
 * files as one program, then gives each warning in its files the level of its file
 * (file_levels_apply). NULL when it has no files. */
Program *roots_check(RootSet *set, Compiler *c, uint32_t root, const uint8_t *overrides,
                     const CheckOptions *options);

/* Whether an error (or, with deny_warnings, a warning) lies in a file of root `root` or
 * in its configuration. */
bool roots_failed(const RootSet *set, const Compiler *c, uint32_t root, bool deny_warnings);

/* Reads the configuration of a root from its parsed orbit.program (root_config.c). */
void root_config_read(Compiler *c, Root *root);

/* Whether source `file` is one of the root's files. */
bool root_has_file(const Root *root, uint32_t file);

/* --- file_levels.c --- */

/* The level each warning code gets while the program of `root` is checked: the command
 * line's (`overrides`) where it sets one; else on when a `files` block sets the code
 * (file_levels_apply then decides, file by file); else the configuration's. */
void file_levels_for_check(const Root *root, const uint8_t *overrides, uint8_t *levels);

/* Gives each warning in the files of `root` the level of its file: the command line's,
 * else that of the last `files` block that matches the file and sets the code, else the
 * configuration's, else the registry's. A warning off there is dropped, one denied is an
 * error (with a label where it is denied), any other a warning. Looks at the reports
 * from `first` on (the check of this program) and at the lexer's W0011 before them
 * (made while every file was read, before any program's levels were known). */
void file_levels_apply(Compiler *c, const Root *root, const uint8_t *overrides, uint32_t first);

/* The last directory whose real path root_relative_path resolved (zero at first): the
 * files of a program come in the order of their paths, a directory's together. */
typedef struct RootPaths {
    const Root *root;        /* the root it was resolved against */
    char *dir;               /* the directory as shown */
    size_t dir_len;
    char *real;              /* its real path; NULL when it cannot be resolved */
    const char *below;       /* in `real`: below the root ("legacy", "" for the root
                                itself); NULL when not below it */
    uint32_t resolved;       /* how many directories it resolved (counts on from
                                root_paths_free) */
} RootPaths;

/* The path of source `file` relative to the root's real directory ("legacy/a.orbit"), as
 * `files` patterns see it: the real path of the directory of its path as shown (a
 * symbolic link on the way is followed, the file's own name is not); NULL when that is
 * not below the root (a name given to standard input that does not exist, for instance).
 * Malloc'd. */
char *root_relative_path(const Compiler *c, const Root *root, uint32_t file, RootPaths *memo);
void root_paths_free(RootPaths *memo);

/* The same in two parts, without making the path: the directory below the root
 * (*below: "legacy", "" for the root itself) and the file's name (*name); false when it
 * is not below the root. The parts point into `memo` and the source's path. */
bool root_relative_parts(const Compiler *c, const Root *root, uint32_t file, RootPaths *memo,
                         const char **below, const char **name);

/* Frees the `files` blocks of a root (before its configuration is read again). */
void file_levels_free(Root *root);

#endif
