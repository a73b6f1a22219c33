/* Did-you-mean: the one implementation every pass uses to suggest a valid name for a
 * misspelt one. */
#ifndef ORBIT_SUGGEST_H
#define ORBIT_SUGGEST_H

#include <stddef.h>

enum {
    /* Names longer than this (bytes) get no suggestion: the distance is quadratic. */
    SUGGEST_MAX_LEN = 64,
};

/* The restricted Damerau-Levenshtein distance (optimal string alignment) between two
 * byte strings: insertions, deletions, substitutions and swaps of two adjacent bytes
 * each cost 1. Works for any lengths (time alen * blen, memory O(blen)). */
size_t suggest_edit_distance(const char *a, size_t alen, const char *b, size_t blen);

/* The candidate to suggest for `word` (len bytes, need not be NUL-terminated), or NULL:
 * a candidate equal to it ignoring ASCII case wins; otherwise the first candidate with the
 * smallest distance, if that distance is at most max(len, 3) / 3. */
const char *suggest_name(const char *word, size_t len, const char *const *candidates,
                         size_t count);

#endif
