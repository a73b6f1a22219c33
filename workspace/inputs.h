/* The input files of one run of the command line: the paths it was given, directories
 * walked, each file once, standard input where `-` stands (docs/cli.md). A path that
 * cannot be used (missing, a dangling symbolic link, a directory that cannot be listed,
 * a path longer than PATH_MAX) is reported to the list's `report` callback (the command
 * line prints it as an `orbitc: error: …` line) and counted; everything else goes on. */
#ifndef ORBIT_INPUTS_H
#define ORBIT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ignore.h"
#include "input_observer.h"

/* The name of a program's configuration: the directory holding it is a program root
 * (roots.h, docs/cli.md "Programs and their configuration"). */
#define PROGRAM_MARKER "orbit.program"

typedef struct Input {
    char *path;          /* as given, or directory + name; the name used in diagnostics */
    char *problem;       /* while collecting: why the path cannot be used (then reported) */
    char *real_dir;      /* found by a directory walk: the real path of its directory (the
                            walk's top resolved once, and the walk follows no link to a
                            directory); NULL: not known */
    bool found;          /* found by a directory walk: a regular file, read without blocking */
    bool marker_here;    /* found by a walk: its directory's listing has a PROGRAM_MARKER */
    bool from_stdin;     /* read from standard input */
    bool known;          /* dev and ino identify the file, and the fields below are its */
    bool regular;        /* a regular file (not a pipe or a device) */
    dev_t dev;
    ino_t ino;
    off_t size;          /* as stat said when the path was collected (the cache's file */
    int64_t mtime_ns, ctime_ns;   /* index, file_index.h, compares them) */
} Input;

/* A path that cannot be used: `path` as the user gave it (`-` for standard input) and
 * `message`, the whole sentence ("cannot read `a.orbit`: Permission denied"). */
typedef void (*InputReport)(void *context, const char *path, const char *message);

typedef struct InputList {
    Input *items;
    size_t count, cap;
    unsigned failures;   /* paths reported as unusable */
    InputReport report;  /* set before inputs_collect; NULL: only counted */
    void *report_context;
    InputIgnore ignore;  /* what a directory walk passes over (ignore.h); zero: .gitignore */
    const InputObserver *observer;   /* told what is looked at (input_observer.h), or NULL */
} InputList;

/* Expands `paths` in order: a file as given, a directory into every *.orbit file below it
 * (hidden entries skipped, symbolic links to regular files followed, links to directories
 * not, what .gitignore files and list->ignore exclude passed over), sorted by path; "-" stands for standard input. Reports each path that cannot
 * be used, and each file named as a path that is a program's configuration
 * (inputs_is_program_config: it is read with its root's program, never as a source). */
void inputs_collect(InputList *list, const char *const *paths, int count);

/* Whether a directory walk looks at an entry named `name` (a directory when `is_dir`):
 * a visible directory or *.orbit file, an orbit.program, a .gitignore. An entry of
 * another name, created, changed or removed, changes nothing a walk finds. */
bool inputs_walk_sees(const char *name, bool is_dir);

/* Whether `path` names a program's configuration (its last component is PROGRAM_MARKER):
 * configuration, never a source file to check, build, fix or format. */
bool inputs_is_program_config(const char *path);

/* Reads standard input under `name` (`--stdin-filename`; NULL: "<stdin>"). When `name`
 * is one of the files collected (the same file on disk), standard input replaces that
 * file, in its place. Call after inputs_collect, when "-" was among the paths. */
void inputs_name_stdin(InputList *list, const char *name);

/* The input that is the same file as `path` (following symbolic links), or NULL. */
const Input *inputs_same_file(const InputList *list, const char *path);

void inputs_free(InputList *list);

/* Reports that `path` cannot be read because of `why`: "cannot read `PATH`: WHY". */
void inputs_report_unreadable(InputReport report, void *context, const char *path,
                              const char *why);

#endif
