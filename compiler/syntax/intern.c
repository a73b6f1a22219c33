#include "intern.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
    interner->kept = NULL;
    interner->kept_count = 0;
    interner->share = NULL;
    interner->share_context = NULL;
}

void interner_free(Interner *interner)
{
    free(interner->slots);
    interner->slots = NULL;
    free(interner->kept);
    interner->kept = NULL;
}

void interner_share(Interner *interner, InternShare share, void *context)
{
    interner->share = share;
    interner->share_context = context;
}

void interner_keep(Interner *interner)
{
    if (interner->share)
        return;
    interner->kept = xrealloc(interner->kept, (interner->count + 1) * sizeof *interner->kept);
    uint32_t n = 0;
    for (uint32_t i = 0; i <= interner->mask; i++)
        if (interner->slots[i].name)
            interner->kept[n++] = interner->slots[i];
    interner->kept_count = n;
}

void interner_rewind(Interner *interner)
{
    if (interner->share || interner->count == interner->kept_count)
        return;   /* shared, or nothing interned since the keep: the table is the kept one */
    memset(interner->slots, 0, (interner->mask + 1) * sizeof *interner->slots);
    for (uint32_t k = 0; k < interner->kept_count; k++) {
        uint32_t i = interner->kept[k].hash & interner->mask;
        while (interner->slots[i].name)
            i = (i + 1) & interner->mask;
        interner->slots[i] = interner->kept[k];
    }
    interner->count = interner->kept_count;
}

static void resize(Interner *interner, uint32_t new_size)
{
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

static void grow(Interner *interner)
{
    resize(interner, (interner->mask + 1) * 2);
}

void interner_reserve(Interner *interner, uint32_t names)
{
    uint32_t size = interner->mask + 1;
    while ((uint64_t)names * 2 > size - 1 && size < (UINT32_C(1) << 31))
        size *= 2;
    if (size != interner->mask + 1)
        resize(interner, size);
}

/* The fewest bytes of source per name, about, that a program has (the realistic 1 MB
 * program of tools/gen_corpus.py: a name every 300 bytes): the table is made that large
 * before a parse, rather than grown to it from its first size. */
enum { BYTES_PER_NAME = 512 };

void interner_reserve_for_source(Interner *interner, uint64_t bytes)
{
    uint64_t names = interner->count + bytes / BYTES_PER_NAME;
    interner_reserve(interner, names > UINT32_MAX ? UINT32_MAX : (uint32_t)names);
}

const Name *intern_lookup(const Interner *interner, const char *text, size_t len)
{
    return interner->slots[intern_find_slot(interner, text, len, intern_hash(text, len))].name;
}

static const Name *new_name(Arena *arena, const char *text, size_t len, uint32_t hash)
{
    Name *name = arena_bump(arena, sizeof *name + len + 1, 8);
    name->len = (uint32_t)len;
    name->hash = hash;
    memcpy(name->text, text, len);
    name->text[len] = '\0';
    return name;
}

/* A new name into the free slot i: kept out of intern() so that the path taken by nearly
 * every call (the name is there already) needs few registers. */
const Name *intern_add(Interner *interner, uint32_t i, const char *text, size_t len,
                       uint32_t hash)
{
    const Name *name = interner->share ? interner->share(interner->share_context, text, len)
                                       : new_name(interner->arena, text, len, hash);
    interner->slots[i] = (InternSlot){ hash, (uint32_t)len, name };
    if (++interner->count * 2 > interner->mask)
        grow(interner);
    return name;
}

const Name *intern(Interner *interner, const char *text, size_t len)
{
    return intern_inline(interner, text, len);
}

const Name *intern_cstr(Interner *interner, const char *text)
{
    return intern(interner, text, strlen(text));
}
