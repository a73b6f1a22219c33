/* Interned names: every identifier, field name and worker name is stored once, so names
 * compare by pointer. Identifiers are interned after NFC normalisation (the lexer does it). */
#ifndef ORBIT_INTERN_H
#define ORBIT_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "arena.h"
#include "namemap.h"

typedef struct Name {
    uint32_t len;
    uint32_t hash;
    char text[];     /* NUL-terminated */
} Name;

/* A slot of the table keeps the name's hash beside it, so that a probe compares hashes
 * without following the pointer (a cache miss on a large program). */
typedef struct InternSlot {
    uint32_t hash;
    uint32_t len;
    const Name *name;    /* NULL: empty */
} InternSlot;

/* Where an interner gets a name new to it when its names are shared with other threads'
 * interners (interner_share): the one Name of that text for all of them, which must stay
 * valid as long as they do. */
typedef const struct Name *(*InternShare)(void *context, const char *text, size_t len);

typedef struct Interner {
    Arena *arena;
    InternShare share;   /* NULL: names are made in `arena` */
    void *share_context;
    InternSlot *slots;   /* open addressing, power-of-two size */
    uint32_t mask;
    uint32_t count;
    InternSlot *kept;    /* interner_keep: the names interner_rewind leaves */
    uint32_t kept_count;
} Interner;

void interner_init(Interner *interner, Arena *arena);
void interner_free(Interner *interner);

/* Room for `names` names in all, made at once: the table does not grow on the way to
 * them (each growth moves every name and clears a table twice as large). */
void interner_reserve(Interner *interner, uint32_t names);
/* Room for the names of `bytes` more bytes of source, made before they are parsed. */
void interner_reserve_for_source(Interner *interner, uint64_t bytes);

/* interner_rewind forgets every name interned after the last interner_keep (whose
 * memory its arena's arena_rewind frees), keeping the table's size: a cost in the size
 * of the table, which the job that filled it paid for already. */
void interner_keep(Interner *interner);
void interner_rewind(Interner *interner);

/* From now on, a name new to this interner is asked of `share` (under whatever lock it
 * takes), so that threads that each intern with an interner of their own get the same
 * Name for the same text and their trees can be checked together. Such an interner's
 * table is only a cache: interner_keep and interner_rewind leave it as it is (its names
 * are not in its arena). Call before the first name is interned. */
void interner_share(Interner *interner, InternShare share, void *context);

const Name *intern(Interner *interner, const char *text, size_t len);
const Name *intern_cstr(Interner *interner, const char *text);

/* The name if it has been interned already, else NULL (never inserts). */
const Name *intern_lookup(const Interner *interner, const char *text, size_t len);

/* Equal texts of one length `len`, compared 8 bytes at a time (4 below 8 bytes, with
 * overlapping first and last words): names are short, and a call to memcmp for each
 * probe that matches (almost every probe) costs more than this. */
static inline bool intern_same_text(const char *a, const char *b, size_t len)
{
    if (len < 8) {
        if (len < 4) {
            for (size_t i = 0; i < len; i++)
                if (a[i] != b[i])
                    return false;
            return true;
        }
        uint32_t x1, y1, x2, y2;
        memcpy(&x1, a, 4);
        memcpy(&y1, b, 4);
        memcpy(&x2, a + len - 4, 4);
        memcpy(&y2, b + len - 4, 4);
        return ((x1 ^ y1) | (x2 ^ y2)) == 0;
    }
    uint64_t x, y;
    for (size_t i = 0; i + 8 <= len; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return false;
    }
    memcpy(&x, a + len - 8, 8);   /* the last 8 bytes, overlapping the words above */
    memcpy(&y, b + len - 8, 8);
    return x == y;
}

/* The hash of a name, inline (no call in the lexer's identifier path): the first and the
 * last 8 bytes, overlapping, and every 8 bytes between; names of 4 to 7 bytes as two
 * overlapping 4-byte words; shorter ones byte by byte. */
static inline uint32_t intern_hash(const char *text, size_t len)
{
    const uint64_t K = 0x9E3779B97F4A7C15ull;
    uint64_t h = (uint64_t)len * K;
    if (len >= 8) {
        uint64_t word;
        for (size_t i = 0; i + 8 < len; i += 8) {
            memcpy(&word, text + i, 8);
            h = (h ^ word) * K;
        }
        memcpy(&word, text + len - 8, 8);
        h ^= word;
    } else if (len >= 4) {
        uint32_t first, last;
        memcpy(&first, text, 4);
        memcpy(&last, text + len - 4, 4);
        h ^= (uint64_t)first << 32 | last;
    } else {
        for (size_t i = 0; i < len; i++)
            h ^= (uint64_t)(unsigned char)text[i] << (8 * i);
    }
    h *= K;
    h ^= h >> 29;
    h *= K;
    return (uint32_t)(h >> 32);
}

static inline uint32_t intern_find_slot(const Interner *interner, const char *text, size_t len,
                                 uint32_t hash)
{
    uint32_t i = hash & interner->mask;
    for (;;) {
        const InternSlot *slot = &interner->slots[i];
        if (!slot->name || (slot->hash == hash && slot->len == len &&
                            intern_same_text(slot->name->text, text, len)))
            return i;
        i = (i + 1) & interner->mask;
    }
}

/* Inserts a name not found into the free slot i (intern_find_slot). */
const Name *intern_add(Interner *interner, uint32_t i, const char *text, size_t len,
                       uint32_t hash);

/* intern(), inlined into the lexer, which interns every identifier. */
static inline const Name *intern_inline(Interner *interner, const char *text, size_t len)
{
    uint32_t hash = intern_hash(text, len);
    uint32_t i = intern_find_slot(interner, text, len, hash);
    if (interner->slots[i].name)
        return interner->slots[i].name;
    return intern_add(interner, i, text, len, hash);
}

/* Maps keyed by interned names (base/namemap.h): the name's own hash, and its text
 * pointer, which is unique, so a comparison is one pointer test. */
static inline bool names_get(const NameMap *map, const Name *name, uint32_t *value)
{
    return name && namemap_get(map, name->text, name->hash, value);
}

static inline void names_put(NameMap *map, Arena *arena, const Name *name, uint32_t value)
{
    namemap_put(map, arena, name->text, name->hash, value);
}

#endif
