/* The input files of one run of the command line: the paths it was given, directories
 * walked, each file once, standard input where `-` stands (docs/cli.md). A path that
 * cannot be used (missing, a dangling symbolic link, a directory that cannot be listed,
 * a path longer than PATH_MAX) is reported as an `orbitc: error: …` line and counted;
 * everything else goes on. */
#ifndef ORBIT_INPUTS_H
#define ORBIT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct Input {
    char *path;          /* as given, or directory + name; the name used in diagnostics */
    char *problem;       /* while collecting: why the path cannot be used (then reported) */
    bool found;          /* found by a directory walk: a regular file, read without blocking */
    bool from_stdin;     /* read from standard input */
    bool known;          /* dev and ino identify the file */
    dev_t dev;
    ino_t ino;
} Input;

typedef struct InputList {
    Input *items;
    size_t count, cap;
    unsigned failures;   /* paths reported as unusable */
    Input *unusable;     /* those found by inputs_collect, with their problem, in order */
    size_t unusable_count;
} InputList;

/* Expands `paths` in order: a file as given, a directory into every *.orbit file below it
 * (hidden entries skipped, symbolic links to regular files followed, links to directories
 * not), sorted by path; "-" stands for standard input. Prints a line on stderr for each
 * path that cannot be used. */
void inputs_collect(InputList *list, const char *const *paths, int count);

/* Reads standard input under `name` (`--stdin-filename`; NULL: "<stdin>"). When `name`
 * is one of the files collected (the same file on disk), standard input replaces that
 * file, in its place. Call after inputs_collect, when "-" was among the paths. */
void inputs_name_stdin(InputList *list, const char *name);

/* The input that is the same file as `path` (following symbolic links), or NULL. */
const Input *inputs_same_file(const InputList *list, const char *path);

void inputs_free(InputList *list);

#endif
