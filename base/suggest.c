/* Did-you-mean: edit distance (optimal string alignment) and the choice of a suggestion. */
#include "suggest.h"
#include "memory.h"
#include "no_index.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t min2(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    return min2(min2(a, b), c);
}

/* Three rows of the dynamic-programming table: the row two back is needed for swaps. */
static size_t distance_with_rows(const char *a, size_t alen, const char *b, size_t blen,
                                 size_t *rows)
{
    size_t *before = rows, *prev = rows + (blen + 1), *cur = rows + 2 * (blen + 1);
    for (size_t j = 0; j <= blen; j++)
        prev[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                best = min2(best, before[j - 2] + 1);
            cur[j] = best;
        }
        size_t *oldest = before;
        before = prev;
        prev = cur;
        cur = oldest;
    }
    return prev[blen];
}

size_t suggest_edit_distance(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen == 0)
        return blen;
    if (blen == 0)
        return alen;
    size_t stack_rows[3 * (SUGGEST_MAX_LEN + 1)];
    if (blen <= SUGGEST_MAX_LEN)
        return distance_with_rows(a, alen, b, blen, stack_rows);
    if (blen + 1 > SIZE_MAX / (3 * sizeof(size_t)))
        return alen > blen ? alen : blen;
    size_t *rows = xmalloc(3 * (blen + 1) * sizeof *rows);
    size_t d = distance_with_rows(a, alen, b, blen, rows);
    free(rows);
    return d;
}

static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool equal_ignoring_case(const char *word, size_t len, const char *candidate)
{
    size_t i = 0;
    for (; i < len; i++) {
        if (candidate[i] == '\0' || ascii_lower(word[i]) != ascii_lower(candidate[i]))
            return false;
    }
    return candidate[i] == '\0';
}

/* The rule both searches share: which words get a suggestion, how far a candidate may be,
 * and which of two candidates is preferred. */
static bool word_wanted(const char *word, size_t len)
{
    return word && len > 0 && len <= SUGGEST_MAX_LEN;
}

static size_t distance_limit(size_t len)
{
    return (len > 3 ? len : 3) / 3;
}

/* A candidate at `distance`, the `index`th, is preferred to the best so far when it is
 * closer, or as close and earlier in the list. */
static bool better(size_t distance, size_t index, size_t best_distance, size_t best_index)
{
    return distance < best_distance || (distance == best_distance && index < best_index);
}

const char *suggest_name(const char *word, size_t len, const char *const *candidates,
                         size_t count)
{
    if (!word_wanted(word, len))
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (candidates[i] && equal_ignoring_case(word, len, candidates[i]))
            return candidates[i];
    }
    const char *best = NULL;
    size_t best_distance = distance_limit(len) + 1, best_index = 0;
    for (size_t i = 0; i < count; i++) {
        if (!candidates[i])
            continue;
        size_t clen = strlen(candidates[i]);
        if (clen > SUGGEST_MAX_LEN)
            continue;
        /* The distance is at least the difference in length: skip hopeless ones. */
        if ((clen > len ? clen - len : len - clen) >= best_distance)
            continue;
        size_t d = suggest_edit_distance(word, len, candidates[i], clen);
        if (better(d, i, best_distance, best_index)) {
            best = candidates[i];
            best_distance = d;
            best_index = i;
        }
    }
    return best;
}

/* ---- The index: a trie of the candidates ------------------------------------------- */

typedef struct SuggestNode {
    uint32_t child;     /* first child, 0 for none (node 0, the root, is nobody's child) */
    uint32_t sibling;   /* next child of the same parent, 0 for none */
    uint32_t name;      /* the first candidate spelt by the path to here, or NO_INDEX */
    uint32_t least;     /* the first candidate at or below this node */
    unsigned char byte; /* the byte on the edge from the parent */
} SuggestNode;

struct SuggestIndex {
    SuggestNode *nodes;
    uint32_t node_count;
    const char *const *names;   /* the candidates, by their index */
};

static uint32_t child_with(const SuggestIndex *ix, uint32_t node, unsigned char byte)
{
    for (uint32_t c = ix->nodes[node].child; c; c = ix->nodes[c].sibling)
        if (ix->nodes[c].byte == byte)
            return c;
    return 0;
}

static void index_add(SuggestIndex *ix, const char *name, size_t len, uint32_t index)
{
    uint32_t node = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char byte = (unsigned char)name[i];
        uint32_t c = child_with(ix, node, byte);
        if (!c) {
            c = ix->node_count++;
            /* names come in order: the first to pass a node is its least */
            ix->nodes[c] = (SuggestNode){ 0, ix->nodes[node].child, NO_INDEX, index, byte };
            ix->nodes[node].child = c;
        }
        node = c;
    }
    if (ix->nodes[node].name == NO_INDEX)
        ix->nodes[node].name = index;
}

SuggestIndex *suggest_index_new(Arena *arena, const char *const *candidates, uint32_t count)
{
    if (count == UINT32_MAX)
        return NULL;
    uint64_t total = 1;   /* the root */
    for (uint32_t i = 0; i < count; i++) {
        size_t len = candidates[i] ? strlen(candidates[i]) : 0;
        if (len <= SUGGEST_MAX_LEN)
            total += len;
    }
    if (total >= UINT32_MAX)
        return NULL;
    SuggestIndex *ix = arena_alloc(arena, sizeof *ix);
    ix->nodes = arena_alloc_raw(arena, (size_t)total * sizeof *ix->nodes);
    ix->nodes[0] = (SuggestNode){ 0, 0, NO_INDEX, 0, 0 };
    ix->node_count = 1;
    ix->names = candidates;
    for (uint32_t i = 0; i < count; i++) {
        size_t len = candidates[i] ? strlen(candidates[i]) : 0;
        if (candidates[i] && len <= SUGGEST_MAX_LEN)
            index_add(ix, candidates[i], len, i);
    }
    return ix;
}

const char *suggest_index_exact(const SuggestIndex *ix, const char *word, size_t len)
{
    if (!ix || len > SUGGEST_MAX_LEN)
        return NULL;
    uint32_t node = 0;
    for (size_t i = 0; i < len; i++) {
        node = child_with(ix, node, (unsigned char)word[i]);
        if (!node)
            return NULL;
    }
    uint32_t name = ix->nodes[node].name;
    return name == NO_INDEX ? NULL : ix->names[name];
}

/* The first candidate below `node` (at `depth`) equal to `word` ignoring ASCII case, or
 * NO_INDEX: at each byte the child of either case. */
static uint32_t find_ignoring_case(const SuggestIndex *ix, uint32_t node, const char *word,
                                   size_t len, size_t depth)
{
    if (depth == len)
        return ix->nodes[node].name;
    uint32_t found = NO_INDEX;
    char want = ascii_lower(word[depth]);
    for (uint32_t c = ix->nodes[node].child; c; c = ix->nodes[c].sibling) {
        if (ascii_lower((char)ix->nodes[c].byte) != want || ix->nodes[c].least >= found)
            continue;
        uint32_t f = find_ignoring_case(ix, c, word, len, depth + 1);
        if (f < found)
            found = f;
    }
    return found;
}

/* One walk of the trie: rows[i] is row i of the distance table between the path to the
 * current node (i bytes) and the word, as in distance_with_rows (transposed: the distance
 * is symmetric). Entries are at most 2 * SUGGEST_MAX_LEN: a byte each. */
typedef struct Walk {
    const SuggestIndex *ix;
    const char *word;
    size_t len;
    size_t best_distance, best_index;
    uint8_t rows[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
} Walk;

static void walk_node(Walk *w, uint32_t node, size_t depth, unsigned char before_byte);

/* The children of `node` (at `depth`): first the one whose byte is the word's next, which
 * finds a close name early and so cuts more of the rest. */
static void walk_children(Walk *w, uint32_t node, size_t depth)
{
    const SuggestNode *nodes = w->ix->nodes;
    uint32_t first = depth < w->len ? child_with(w->ix, node, (unsigned char)w->word[depth]) : 0;
    if (first)
        walk_node(w, first, depth + 1, nodes[node].byte);
    for (uint32_t c = nodes[node].child; c; c = nodes[c].sibling)
        if (c != first)
            walk_node(w, c, depth + 1, nodes[node].byte);
}

/* Row `depth` for `node`, whose parent's byte is `before_byte`, then its name and its
 * children, unless nothing at or below it can be better than the best so far. */
static void walk_node(Walk *w, uint32_t node, size_t depth, unsigned char before_byte)
{
    const SuggestNode *n = &w->ix->nodes[node];
    const unsigned char *word = (const unsigned char *)w->word;
    const uint8_t *prev = w->rows[depth - 1];
    uint8_t *cur = w->rows[depth];
    size_t least = depth;
    cur[0] = (uint8_t)depth;
    for (size_t j = 1; j <= w->len; j++) {
        size_t cost = n->byte == word[j - 1] ? 0 : 1;
        size_t best = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
        if (depth > 1 && j > 1 && n->byte == word[j - 2] && before_byte == word[j - 1])
            best = min2(best, w->rows[depth - 2][j - 2] + 1);
        cur[j] = (uint8_t)best;
        least = min2(least, best);
    }
    /* No entry of a later row is below this row's least: a step down costs 0 only on
     * the diagonal, and a swap (two rows back, + 1) is no cheaper, since every row's
     * least is at most the one before's + 1. So no name at or below this node is closer. */
    if (!better(least, n->least, w->best_distance, w->best_index))
        return;
    if (n->name != NO_INDEX && better(cur[w->len], n->name, w->best_distance, w->best_index)) {
        w->best_distance = cur[w->len];
        w->best_index = n->name;
    }
    if (depth < SUGGEST_MAX_LEN)
        walk_children(w, node, depth);
}

const char *suggest_index_find(const SuggestIndex *ix, const char *word, size_t len)
{
    if (!ix || !word_wanted(word, len))
        return NULL;
    uint32_t same = find_ignoring_case(ix, 0, word, len, 0);
    if (same != NO_INDEX)
        return ix->names[same];
    Walk w;
    w.ix = ix;
    w.word = word;
    w.len = len;
    w.best_distance = distance_limit(len) + 1;
    w.best_index = 0;   /* with the distance above: nothing is better yet but a closer name */
    for (size_t j = 0; j <= len; j++)
        w.rows[0][j] = (uint8_t)j;
    uint32_t empty = ix->nodes[0].name;   /* the empty name, at distance len */
    if (empty != NO_INDEX && better(len, empty, w.best_distance, w.best_index)) {
        w.best_distance = len;
        w.best_index = empty;
    }
    walk_children(&w, 0, 0);
    return w.best_distance <= distance_limit(len) ? ix->names[w.best_index] : NULL;
}
