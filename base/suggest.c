/* Did-you-mean: edit distance (optimal string alignment) and the choice of a suggestion. */
#include "suggest.h"
#include "memory.h"

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

const char *suggest_name(const char *word, size_t len, const char *const *candidates,
                         size_t count)
{
    if (!word || len == 0 || len > SUGGEST_MAX_LEN)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (candidates[i] && equal_ignoring_case(word, len, candidates[i]))
            return candidates[i];
    }
    size_t limit = (len > 3 ? len : 3) / 3;
    const char *best = NULL;
    size_t best_distance = limit + 1;
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
        if (d < best_distance) {
            best = candidates[i];
            best_distance = d;
        }
    }
    return best;
}
