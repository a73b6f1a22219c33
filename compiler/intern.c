#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INITIAL_SLOTS = 1024 };

/* FNV-1a: simple, and good enough for identifiers. */
static uint32_t hash_bytes(const char *text, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 16777619u;
    }
    return h;
}

static const Name **alloc_slots(uint32_t count)
{
    const Name **slots = calloc(count, sizeof *slots);
    if (!slots) {
        fprintf(stderr, "orbitc: out of memory (name table)\n");
        exit(2);
    }
    return slots;
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
    const Name **slots = alloc_slots(new_size);
    for (uint32_t i = 0; i <= interner->mask; i++) {
        const Name *name = interner->slots[i];
        if (!name)
            continue;
        uint32_t j = name->hash & (new_size - 1);
        while (slots[j])
            j = (j + 1) & (new_size - 1);
        slots[j] = name;
    }
    free(interner->slots);
    interner->slots = slots;
    interner->mask = new_size - 1;
}

static uint32_t find_slot(const Interner *interner, const char *text, size_t len, uint32_t hash)
{
    uint32_t i = hash & interner->mask;
    for (;;) {
        const Name *name = interner->slots[i];
        if (!name || (name->hash == hash && name->len == len && memcmp(name->text, text, len) == 0))
            return i;
        i = (i + 1) & interner->mask;
    }
}

const Name *intern_lookup(const Interner *interner, const char *text, size_t len)
{
    return interner->slots[find_slot(interner, text, len, hash_bytes(text, len))];
}

const Name *intern(Interner *interner, const char *text, size_t len)
{
    uint32_t hash = hash_bytes(text, len);
    uint32_t i = find_slot(interner, text, len, hash);
    if (interner->slots[i])
        return interner->slots[i];
    Name *name = arena_alloc_raw(interner->arena, sizeof *name + len + 1);
    name->len = (uint32_t)len;
    name->hash = hash;
    memcpy(name->text, text, len);
    name->text[len] = '\0';
    interner->slots[i] = name;
    if (++interner->count * 2 > interner->mask)
        grow(interner);
    return name;
}

const Name *intern_cstr(Interner *interner, const char *text)
{
    return intern(interner, text, strlen(text));
}
