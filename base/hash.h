/* FNV-1a, 64 bits: the one hash of short bytes whose value is kept or compared outside a
 * table (diagnostics' fingerprints, what the language server last published), and
 * hash_wide for whole files. Not for the hash tables of names, which hash a word at a
 * time (intern.h). */
#ifndef ORBIT_HASH_H
#define ORBIT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* A hash of many bytes, 16 at a time (a multiply of 128 bits folded to 64, as wyhash
 * does): some 20 times fewer instructions per byte than FNV-1a, for hashing whole files
 * (the keys of `orbitc check`'s cache, workspace/check_cache.c). Not for adversaries.
 * `hash_wide(hash_wide(h, a), b)` is not the hash of a followed by b: length-prefix the
 * parts. */
static inline uint64_t hash_mix(uint64_t a, uint64_t b)
{
    __uint128_t product = (__uint128_t)a * b;
    return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static inline uint64_t hash_wide(uint64_t hash, const void *bytes, size_t len)
{
    const uint64_t k0 = UINT64_C(0xa0761d6478bd642f), k1 = UINT64_C(0xe7037ed1a0b428db);
    const unsigned char *p = bytes;
    uint64_t h = hash ^ hash_mix(len ^ k0, k1);
    for (; len >= 16; p += 16, len -= 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        h = hash_mix(a ^ k0 ^ h, b ^ k1);
    }
    unsigned char tail[16] = { 0 };
    memcpy(tail, p, len);
    uint64_t a, b;
    memcpy(&a, tail, 8);
    memcpy(&b, tail + 8, 8);
    h = hash_mix(a ^ k0 ^ h, b ^ k1 ^ len);
    return hash_mix(h ^ k1, h ^ k0);
}

#endif
