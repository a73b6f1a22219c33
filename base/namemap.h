/* A hash map from names to 32-bit values, allocated in an arena: the checker's tables of
 * steps, workflows and types, the runtime's tables of tasks and signals. The caller gives
 * each name's hash (interned names carry one; other text is hashed with orbc_hash), so
 * base/ needs no hash function of its own.
 *
 * Two kinds of map, chosen when it is made:
 * - a map of interned names (the default; a zeroed NameMap is an empty one) compares keys
 *   by pointer, since equal names are the same pointer;
 * - a map of text (namemap_init_text) compares NUL-terminated keys by their bytes.
 * Open addressing with linear probing; a slot is 16 bytes; the table doubles at half
 * full. */
#ifndef ORBIT_NAMEMAP_H
#define ORBIT_NAMEMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"

typedef struct NameMapSlot {
    const char *text;    /* NULL: empty */
    uint32_t hash;
    uint32_t value;
} NameMapSlot;

typedef struct NameMap {
    NameMapSlot *slots;  /* NULL until the first insertion (or namemap_init) */
    uint32_t mask;       /* capacity - 1; capacity is a power of two */
    uint32_t count;
    bool by_text;        /* keys compare by their bytes, not by pointer */
} NameMap;

/* An empty map of interned names with room for `expected` without growing (optional: a
 * zeroed NameMap is one too). */
void namemap_init(NameMap *map, Arena *arena, uint32_t expected);
/* An empty map of NUL-terminated text. */
void namemap_init_text(NameMap *map, Arena *arena, uint32_t expected);
/* Empties a map of interned names for reuse, with room for `expected` without growing:
 * its table is cleared when it is large enough and at most 8 times too large, else a new
 * one is made. A map made again and again (one per workflow) then costs one table. */
void namemap_reset(NameMap *map, Arena *arena, uint32_t expected);

/* The slot of the key, or the empty slot where it would go (the table is not empty).
 * Inline, with namemap_get, because the checker looks a name up for nearly every
 * identifier of a program. */
static inline NameMapSlot *namemap_slot(const NameMap *map, const char *text, uint32_t hash)
{
    uint32_t i = hash & map->mask;
    for (;;) {
        NameMapSlot *slot = &map->slots[i];
        if (!slot->text || slot->text == text ||
            (map->by_text && slot->hash == hash && strcmp(slot->text, text) == 0))
            return slot;
        i = (i + 1) & map->mask;
    }
}

/* Returns true and sets *value when the key is present. */
static inline bool namemap_get(const NameMap *map, const char *text, uint32_t hash,
                               uint32_t *value)
{
    if (!map->slots)
        return false;
    const NameMapSlot *slot = namemap_slot(map, text, hash);
    if (!slot->text)
        return false;
    *value = slot->value;
    return true;
}

/* namemap_get of a map of interned names (not namemap_init_text), whose keys compare by
 * pointer only: the probe has no byte comparison to make room for. */
static inline bool namemap_get_interned(const NameMap *map, const char *text, uint32_t hash,
                                        uint32_t *value)
{
    if (!map->slots)
        return false;
    for (uint32_t i = hash & map->mask;; i = (i + 1) & map->mask) {
        const NameMapSlot *slot = &map->slots[i];
        if (slot->text == text) {
            *value = slot->value;
            return true;
        }
        if (!slot->text)
            return false;
    }
}

/* Inserts the key, or replaces the value of an equal key. */
void namemap_put(NameMap *map, Arena *arena, const char *text, uint32_t hash, uint32_t value);

/* Inserts the key unless an equal one is present (then the first value stays); returns
 * whether it was inserted. */
bool namemap_add(NameMap *map, Arena *arena, const char *text, uint32_t hash, uint32_t value);

static inline bool namemap_is_empty(const NameMap *map)
{
    return map->count == 0;
}

#endif
