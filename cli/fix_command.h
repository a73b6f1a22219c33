/* The `fix` command of orbitc (docs/cli.md, "Fixing"). */
#ifndef ORBIT_FIX_COMMAND_H
#define ORBIT_FIX_COMMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "fix_rounds.h"
#include "workspace.h"

typedef struct FixCommand {
    uint32_t max_rounds;        /* at least 1 */
    bool diff;                  /* --diff: print a unified diff, write nothing */
    bool deny_warnings;
    bool unread;                /* some inputs could not be read: write nothing */
    bool quiet;                 /* --quiet: no "fixed" or "nothing to fix" lines */
    bool unsafe;                /* --unsafe-fixes: maybe-incorrect fixes too */
    bool show_fixes;            /* --show-fixes: a line for each fix applied */
    bool color;                 /* colour in the diff (--diff) */
    /* Prints the diagnostics that remain, in the format asked for. */
    void (*print)(void *context, Compiler *c);
    void *context;
    uint32_t max_left;          /* --max-diagnostics: "left" lines shown (0: all) */
} FixCommand;

/* Fixes the program(s) of the workspace, already loaded and checked (workspace_check):
 * runs the rounds (fix_rounds.h), then writes each changed file atomically (the file
 * named by standard input, `stdin_path`, goes to standard output whole), or prints the
 * diff, reports on standard error what it fixed, and prints what remains. Returns the
 * exit status: 0 no error remains, 1 errors remain, 2 a file could not be read or
 * written. */
int cli_fix_workspace(Workspace *workspace, const char *stdin_path, const FixCommand *options);

/* Writes the files of `run` that changed (all or none: each is checked first, and one
 * refused writes nothing, each refusal reported), standard input's text to standard
 * output, or with options->diff the diff of every change; written[i] says which file's
 * text reached its place. Returns EXIT_OK or EXIT_USAGE. `check --add-suppressions`
 * writes its files through it too. */
int cli_fix_write_files(const FixRun *run, const FixCommand *options, bool *written);

#endif
