/* Matching a relative path against a glob pattern, as `files "PATTERN" { … }` of
 * orbit.program and the lines of a .gitignore do (docs/cli.md, "Per-file levels" and
 * "Ignored files"). Both are split into segments at '/'. A segment of the pattern
 * matches one segment of the path as fnmatch(3) does without flags: `*` any run of
 * characters, `?` one, `[abc]`, `[a-z]`, `[!a]` a class, `\x` the character x. A segment
 * `**` matches any number of segments, none included. Empty segments (`a//b`, a
 * trailing `/`) are ignored. The time is bounded by the product of the two segment
 * counts, whatever the pattern. */
#ifndef ORBIT_PATH_GLOB_H
#define ORBIT_PATH_GLOB_H

#include <stdbool.h>

bool path_glob_match(const char *pattern, const char *path);

#endif
