/* Program roots (docs/cli.md, "Programs and their configuration"). A directory that holds
 * a file named `orbit.program` is the root of one program; each source file belongs to
 * the nearest root at or above its directory, and the files of one root are checked
 * together, as one program, apart from the others. Files below no root form one program
 * of their own, as they always did: without any marker nothing changes.
 *
 * `orbit.program` is written in Orbit's own syntax, read by the front end, and holds the
 * program's name and its lint levels (program_config.c):
 *
 *     program payments {
 *       lints {
 *         W0007: warn     // allow, warn or deny
 *       }
 *     }
 *
 * An empty `orbit.program` marks a root with the default settings. */
#ifndef ORBIT_ROOTS_H
#define ORBIT_ROOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "inputs.h"
#include "namemap.h"

typedef struct Program Program;

typedef struct ProgramUnit {
    char *root;              /* the root directory as shown: relative to the current
                                directory when below it; NULL for the files below no root */
    char *config_path;       /* its orbit.program as shown; NULL without a root */
    uint32_t config_file;    /* the source index of orbit.program once read, else 0 */
    const char *name;        /* the name its configuration gives, else the root
                                directory's own name; NULL without a root */
    char *default_name;
    uint32_t *files;         /* source indexes of its files, in the order read */
    uint32_t file_count, file_cap;
    uint8_t level[DIAG_CODE_COUNT];   /* LintLevel per code from its configuration */
    Span level_span[DIAG_CODE_COUNT]; /* where each level is set (for notes) */
} ProgramUnit;

typedef struct ProgramSet {
    ProgramUnit *items;
    uint32_t count, cap;
    NameMap dirs;            /* real directory -> unit index + 1, or 0: below no root */
    char *cwd;               /* the real current directory */
} ProgramSet;

void programs_init(ProgramSet *set);
void programs_free(ProgramSet *set);

/* The unit of the program that the file at `path` belongs to (a path as given; the file
 * need not exist: its directory decides, or the current directory when that cannot be
 * resolved). Finds the roots on the way, each directory looked at once. */
uint32_t programs_unit_of(ProgramSet *set, Compiler *c, const char *path);

/* The unit of the files below no root: with no roots looked for, the only program. */
uint32_t programs_single_unit(ProgramSet *set);

/* Records that source `file` belongs to `unit`. */
void programs_add_file(ProgramSet *set, uint32_t unit, uint32_t file);

/* Whether the run has program roots (else it is one program, as without this module). */
bool programs_have_roots(const ProgramSet *set);

/* Reads every root's orbit.program into the compiler as a source (to be parsed with the
 * others, never checked as a program). A file that cannot be read is reported and
 * counted in *failures. */
void programs_read_configs(ProgramSet *set, Compiler *c, InputReport report, void *context,
                           unsigned *failures);

/* After compiler_parse: reads each unit's configuration, reporting its mistakes (E0701).
 * May be called again for another compiler holding the same sources (`orbitc fix`). */
void programs_configure(ProgramSet *set, Compiler *c);

/* Sets the lint levels of the unit in c->diags (its configuration's, overridden by
 * `overrides`, the command line's: LINT_DEFAULT where it says nothing) and checks it as
 * one program. NULL when the unit has no files. */
Program *programs_check_unit(ProgramSet *set, Compiler *c, uint32_t unit,
                             const uint8_t *overrides);

/* Whether an error (or, with deny_warnings, a warning) lies in a file of the unit or in
 * its configuration. */
bool programs_unit_failed(const ProgramSet *set, const Compiler *c, uint32_t unit,
                          bool deny_warnings);

/* Reads the configuration of a unit from its parsed orbit.program (program_config.c). */
void program_config_read(Compiler *c, ProgramUnit *unit);

#endif
