/* `orbitc compat` (compat_command.c) and its git sides (compat_git.c). */
#ifndef ORBIT_CLI_COMPAT_COMMAND_H
#define ORBIT_CLI_COMPAT_COMMAND_H

#include <stdbool.h>

#include "cli.h"
#include "orbc.h"

/* One side of the comparison: its argument, and its module once loaded. */
typedef struct CompatSide {
    const char *label;      /* as given: "old.orbc", ".", "git:origin/main" */
    CliRun run;             /* the sources of a source or git side */
    bool have_run;
    OrbcModule module;
    bool loaded;
} CompatSide;

/* Adds the files of the side's git revision to s->run (compiler and workspace set up)
 * under the names the current directory sees; `other` is the other side's path, the
 * default PATH (NULL when it is not a path). False when git fails (said). */
bool cli_compat_git(CompatSide *s, const char *other);

#endif
