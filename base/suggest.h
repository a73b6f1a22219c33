/* Did-you-mean: the one implementation every pass uses to suggest a valid name for a
 * misspelt one. */
#ifndef ORBIT_SUGGEST_H
#define ORBIT_SUGGEST_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

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

/* suggest_name's answer over a fixed list of many candidates, for a list asked again and
 * again (the fields of a wide record type, check_types.c): a trie of the names, walked
 * with one row of the distance table per node and cut where no name below can be better
 * than the best so far. Its memory is linear in the total length of the names (in
 * `arena`); a query allocates nothing, and visits the few nodes near the word rather
 * than every name. */
typedef struct SuggestIndex SuggestIndex;

/* An index of `candidates` (NULL entries are skipped); the array and its strings must
 * outlive it. NULL when `count` or the total length of the names is 2^32 or more. */
SuggestIndex *suggest_index_new(Arena *arena, const char *const *candidates, uint32_t count);

/* Exactly suggest_name(word, len, candidates, count) for the candidates of `index`; NULL
 * for a NULL index, as for the next. */
const char *suggest_index_find(const SuggestIndex *index, const char *word, size_t len);

/* The first candidate equal to `word` (len bytes, at most SUGGEST_MAX_LEN), or NULL. */
const char *suggest_index_exact(const SuggestIndex *index, const char *word, size_t len);

#endif
