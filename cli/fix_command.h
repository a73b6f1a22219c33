/* The `fix` command of orbitc (docs/cli.md, "Fixing"). */
#ifndef ORBIT_FIX_COMMAND_H
#define ORBIT_FIX_COMMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "workspace.h"

enum {
    /* Rounds of fixing and checking again before `fix` gives up (a fix that keeps
     * making work for another would otherwise never end), unless --max-rounds says. */
    FIX_MAX_ROUNDS = 10,
};

typedef struct FixCommand {
    uint32_t max_rounds;        /* at least 1 */
    bool diff;                  /* --diff: print a unified diff, write nothing */
    bool deny_warnings;
    bool unread;                /* some inputs could not be read: write nothing */
    /* Prints the diagnostics that remain, in the format asked for. */
    void (*print)(void *context, Compiler *c);
    void *context;
    uint32_t max_left;          /* --max-diagnostics: "left" lines shown (0: all) */
} FixCommand;

/* Fixes the program(s) of the workspace, already loaded and checked (workspace_check):
 * applies every fix fix_select picks, checks again, and repeats until nothing changes or
 * max_rounds rounds; then writes each changed file atomically (the file
 * named by standard input, `stdin_path`, goes to standard output whole), or prints the
 * diff, reports on standard error what it fixed, and prints what remains. Returns the
 * exit status: 0 no error remains, 1 errors remain, 2 a file could not be read or
 * written. */
int fix_command(Workspace *workspace, const char *stdin_path, const FixCommand *options);

/* The rounds of fix_command alone, in memory (the fuzz target): nothing is printed or
 * written. Returns the check of the fixed files, whose sources hold their texts, or
 * `first` when no fix was applied; free another with fix_free_check. *unfinished: fixes
 * were still untried when max_rounds ran out. */
Compiler *fix_in_memory(Workspace *workspace, const FixCommand *options, bool *unfinished);
void fix_free_check(Compiler *c);

#endif
