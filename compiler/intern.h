/* Interned names: every identifier, field name and worker name is stored once, so names
 * compare by pointer. Identifiers are interned after NFC normalisation (the lexer does it). */
#ifndef ORBIT_INTERN_H
#define ORBIT_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

typedef struct Interner {
    Arena *arena;
    InternSlot *slots;   /* open addressing, power-of-two size */
    uint32_t mask;
    uint32_t count;
} Interner;

void interner_init(Interner *interner, Arena *arena);
void interner_free(Interner *interner);

const Name *intern(Interner *interner, const char *text, size_t len);
const Name *intern_cstr(Interner *interner, const char *text);

/* The name if it has been interned already, else NULL (never inserts). */
const Name *intern_lookup(const Interner *interner, const char *text, size_t len);

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
