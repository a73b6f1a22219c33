/* Sorting many integers: a least-significant-digit radix sort, linear in their number
 * (qsort's comparisons cost 20 calls per value on a million). */
#ifndef ORBIT_SORT_H
#define ORBIT_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts the `n` values of `v` in ascending order. Stable, O(n) time, n extra values of
 * memory; the byte positions in which all values agree are skipped. */
void sort_int64(int64_t *v, size_t n);

#endif
