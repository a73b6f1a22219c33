/* FNV-1a, 64 bits: the one hash of bytes whose value is kept or compared outside a
 * table (diagnostics' fingerprints, what the language server last published). Not for
 * the hash tables of names, which hash a word at a time (intern.h). */
#ifndef ORBIT_HASH_H
#define ORBIT_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of no bytes: the value to start from. */
#define HASH_FNV1A_START UINT64_C(0xcbf29ce484222325)

/* `hash` continued over bytes[0..len): hash_fnv1a(hash_fnv1a(START, a), b) is the hash
 * of a followed by b. */
static inline uint64_t hash_fnv1a(uint64_t hash, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < len; i++) {
        hash ^= p[i];
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}

#endif
