/* A least-significant-digit radix sort of 64-bit integers (sort.h). Each value is mapped
 * to an unsigned key whose order is the signed order (the sign bit flipped), then
 * distributed byte by byte, lowest first, between `v` and a scratch array. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"

enum { DIGITS = 8, BUCKETS = 256 };

static uint64_t key_of(int64_t x)
{
    return (uint64_t)x ^ ((uint64_t)1 << 63);
}

static unsigned digit(int64_t x, int d)
{
    return (unsigned)(key_of(x) >> (8 * d)) & 0xff;
}

void sort_int64(int64_t *v, size_t n)
{
    if (n < 2)
        return;
    size_t (*count)[BUCKETS] = xcalloc(DIGITS, sizeof *count);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++)
            count[d][digit(v[i], d)]++;
    int64_t *from = v, *to = xmalloc(n * sizeof *to);
    int64_t *scratch = to;
    for (int d = 0; d < DIGITS; d++) {
        if (count[d][digit(v[0], d)] == n)
            continue;   /* every value has this byte: nothing moves */
        size_t at = 0;
        for (int b = 0; b < BUCKETS; b++) {
            size_t c = count[d][b];
            count[d][b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[d][digit(from[i], d)]++] = from[i];
        int64_t *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
    free(scratch);
    free(count);
}
