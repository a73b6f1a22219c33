#include "intern.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc.h"   /* orbc_hash */

enum { INITIAL_SLOTS = 1024 };

static InternSlot *alloc_slots(uint32_t count)
{
    return xcalloc(count, sizeof(InternSlot));
}

void interner_init(Interner *interner, Arena *arena)
{
    interner->arena = arena;
    interner->slots = alloc_slots(INITIAL_SLOTS);
    interner->mask = INITIAL_SLOTS - 1;
    interner->count = 0;
}

void interner_free(Interner *interner)
{
    free(interner->slots);
    interner->slots = NULL;
}

static void grow(Interner *interner)
{
    uint32_t new_size = (interner->mask + 1) * 2;
    InternSlot *slots = alloc_slots(new_size);
    for (uint32_t i = 0; i <= interner->mask; i++) {
        const InternSlot *slot = &interner->slots[i];
        if (!slot->name)
            continue;
        uint32_t j = slot->hash & (new_size - 1);
        while (slots[j].name)
            j = (j + 1) & (new_size - 1);
        slots[j] = *slot;
    }
    free(interner->slots);
    interner->slots = slots;
    interner->mask = new_size - 1;
}

/* Equal texts of one length `len`, compared 8 bytes at a time (4 below 8 bytes, with
 * overlapping first and last words): names are short, and a call to memcmp for each
 * probe that matches (almost every probe) costs more than this. */
static inline bool same_text(const char *a, const char *b, size_t len)
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

static inline uint32_t find_slot(const Interner *interner, const char *text, size_t len,
                                 uint32_t hash)
{
    uint32_t i = hash & interner->mask;
    for (;;) {
        const InternSlot *slot = &interner->slots[i];
        if (!slot->name || (slot->hash == hash && slot->len == len &&
                            same_text(slot->name->text, text, len)))
            return i;
        i = (i + 1) & interner->mask;
    }
}

const Name *intern_lookup(const Interner *interner, const char *text, size_t len)
{
    return interner->slots[find_slot(interner, text, len, orbc_hash(text, len))].name;
}

/* A new name into the free slot i: kept out of intern() so that the path taken by nearly
 * every call (the name is there already) needs few registers. */
static __attribute__((noinline)) const Name *add_name(Interner *interner, uint32_t i,
                                                      const char *text, size_t len,
                                                      uint32_t hash)
{
    Name *name = arena_bump(interner->arena, sizeof *name + len + 1, 8);
    name->len = (uint32_t)len;
    name->hash = hash;
    memcpy(name->text, text, len);
    name->text[len] = '\0';
    interner->slots[i] = (InternSlot){ hash, (uint32_t)len, name };
    if (++interner->count * 2 > interner->mask)
        grow(interner);
    return name;
}

const Name *intern(Interner *interner, const char *text, size_t len)
{
    uint32_t hash = orbc_hash(text, len);
    uint32_t i = find_slot(interner, text, len, hash);
    if (interner->slots[i].name)
        return interner->slots[i].name;
    return add_name(interner, i, text, len, hash);
}

const Name *intern_cstr(Interner *interner, const char *text)
{
    return intern(interner, text, strlen(text));
}
