/* Which entries a directory walk passes over (docs/cli.md, "Ignored files"): those that
 * the .gitignore files say git ignores, and those of `--exclude PATTERN`. A subset of
 * gitignore(5), documented there: blank lines and `#` comments; `!` re-includes; a
 * trailing `/` matches directories only; a pattern with a `/` elsewhere is anchored to
 * the directory of its .gitignore, one without matches a name at any depth; `*`, `?`,
 * `[…]` within a name and `**` across directories (base/path_glob.h); the last pattern
 * that matches decides, deeper files after their parents. The .gitignore files are
 * those of the directory walked, of its subdirectories, and of its parents up to the
 * top of its git repository (the nearest directory above holding `.git`). Not read:
 * `.git/info/exclude`, the user's `core.excludesFile`, backslash escapes other than a
 * leading `\#` or `\!`. */
#ifndef ORBIT_IGNORE_H
#define ORBIT_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

#include "input_observer.h"

/* What a walk ignores, from the command line. */
typedef struct InputIgnore {
    bool no_gitignore;              /* --no-ignore: the .gitignore files are not read */
    const char *const *excludes;    /* --exclude PATTERN: lines of a .gitignore at the */
    int exclude_count;              /* top of every directory walked, read last */
} InputIgnore;

typedef struct IgnoreStack IgnoreStack;

/* The patterns that apply below directory `dir`, the top of a walk: its parents' and
 * its own .gitignore, and the excludes. `observer` (NULL: none) is told of each `.git`
 * and .gitignore looked for, then and in ignore_enter. */
IgnoreStack *ignore_start(const InputIgnore *options, const char *dir,
                          const InputObserver *observer);

/* Entering subdirectory `path` of the walk, `rel` below its top ("gen/sub"): its
 * .gitignore applies below it (`has_gitignore`: its listing holds one; else none is
 * looked for). Returns what ignore_leave needs to undo it. */
size_t ignore_enter(IgnoreStack *stack, const char *path, const char *rel, bool has_gitignore);
void ignore_leave(IgnoreStack *stack, size_t mark);

/* Whether the entry `rel` below the walk's top ("gen/x.orbit") is ignored; `is_dir`
 * when it is a directory. */
bool ignore_matches(const IgnoreStack *stack, const char *rel, bool is_dir);

void ignore_free(IgnoreStack *stack);

#endif
