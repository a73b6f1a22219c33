/* The `fmt` command of orbitc (docs/style.md, docs/cli.md). */
#ifndef ORBIT_FORMAT_COMMAND_H
#define ORBIT_FORMAT_COMMAND_H

#include <stdbool.h>

#include "ignore.h"

typedef struct FormatOptions {
    bool check;     /* --check: list the files that would change; write nothing */
    bool diff;      /* --diff: print how they would change (a unified diff); write nothing */
    bool color;     /* colour in the errors of files that do not parse */
    bool diff_color;                /* colour in the diff (standard output) */
    const char *stdin_filename;     /* --stdin-filename: the name of `-` */
    InputIgnore ignore;             /* what a directory walk passes over */
} FormatOptions;

/* Formats the files the paths name (directories: every *.orbit file below them; none:
 * the current directory; `-`: standard input to standard output). Returns the exit
 * status: 0 done (or, under --check and --diff, nothing to change), 1 a file has syntax
 * errors or, under --check and --diff, would change, 2 a path could not be read or
 * written. */
int cli_fmt_paths(const char *const *paths, int count, const FormatOptions *options);

#endif
