/* The name map (namemap.h). */
#include "namemap.h"

#include <string.h>

static uint32_t capacity_for(uint32_t expected)
{
    uint32_t cap = 16;
    while (cap < expected * 2 && cap < (1u << 30))
        cap *= 2;
    return cap;
}

void namemap_init(NameMap *map, Arena *arena, uint32_t expected)
{
    uint32_t cap = capacity_for(expected);
    map->slots = arena_alloc(arena, (size_t)cap * sizeof *map->slots);
    map->mask = cap - 1;
    map->count = 0;
    map->by_text = false;
}

void namemap_init_text(NameMap *map, Arena *arena, uint32_t expected)
{
    namemap_init(map, arena, expected);
    map->by_text = true;
}

void namemap_reset(NameMap *map, Arena *arena, uint32_t expected)
{
    uint32_t cap = capacity_for(expected);
    if (!map->slots || map->mask + 1 < cap || map->mask + 1 > 8 * cap) {
        namemap_init(map, arena, expected);
        return;
    }
    memset(map->slots, 0, (size_t)(map->mask + 1) * sizeof *map->slots);
    map->count = 0;
}

static void grow(NameMap *map, Arena *arena)
{
    NameMap bigger;
    namemap_init(&bigger, arena, map->mask + 1);
    bigger.by_text = map->by_text;
    for (uint32_t i = 0; i <= map->mask; i++) {
        const NameMapSlot *old = &map->slots[i];
        if (old->text)
            *namemap_slot(&bigger, old->text, old->hash) = *old;
    }
    bigger.count = map->count;
    *map = bigger;
}

/* The slot for the name, made room for; a new name's slot is empty. */
static NameMapSlot *slot_for_insert(NameMap *map, Arena *arena, const char *text,
                                    uint32_t hash)
{
    if (!map->slots)
        namemap_init(map, arena, 8);
    if ((map->count + 1) * 2 > map->mask + 1)
        grow(map, arena);
    return namemap_slot(map, text, hash);
}

void namemap_put(NameMap *map, Arena *arena, const char *text, uint32_t hash, uint32_t value)
{
    NameMapSlot *slot = slot_for_insert(map, arena, text, hash);
    if (!slot->text) {
        *slot = (NameMapSlot){ text, hash, value };
        map->count++;
    }
    slot->value = value;
}

bool namemap_add(NameMap *map, Arena *arena, const char *text, uint32_t hash, uint32_t value)
{
    NameMapSlot *slot = slot_for_insert(map, arena, text, hash);
    if (slot->text)
        return false;
    *slot = (NameMapSlot){ text, hash, value };
    map->count++;
    return true;
}
