/* Arena allocation: every AST node, interned name and diagnostic lives in an arena and is
 * freed all at once. Allocation is a pointer bump; there is no per-object free. */
#ifndef ORBIT_ARENA_H
#define ORBIT_ARENA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "memory.h"

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *chunk;   /* current chunk; older chunks are linked behind it */
    char *next;          /* first free byte in the current chunk */
    char *end;           /* one past the last byte of the current chunk */
    size_t total;        /* bytes reserved from the system, for the benchmark */
    ArenaChunk *spare;   /* chunks given back by arena_rewind, the oldest first, taken
                            again before any new one is asked of the system */
} Arena;

/* Where an arena stands (arena_mark), to come back to (arena_rewind). */
typedef struct ArenaMark {
    ArenaChunk *chunk;
    ArenaChunk *behind;  /* chunk->prev: a large block made later is linked before it */
    char *next, *end;
} ArenaMark;

void arena_init(Arena *arena);
void arena_free(Arena *arena);
/* Frees everything allocated but keeps the newest chunk for the next allocations: an
 * arena reused for many small jobs (a simulation's runs) then costs no system call. */
void arena_reset(Arena *arena);

/* Frees everything allocated since `mark`, keeping what was allocated before it: the
 * chunks made since are kept as spares for the next allocations, so that an arena
 * reused for one job after another (a `--jobs` thread's programs) stays at the size of
 * the largest job, and its pages are not asked of the kernel (and zeroed by it) again. */
ArenaMark arena_mark(const Arena *arena);
void arena_rewind(Arena *arena, ArenaMark mark);

/* The slow path of the allocators below: a new chunk is needed, or a large block. */
void *arena_alloc_chunk(Arena *arena, size_t size);

/* The allocators are inline because the compiler allocates a node every few bytes of
 * source: the fast path is a pointer bump, and with a constant `size` the zeroing becomes
 * a few stores instead of a call to memset. `align` is 8 or 16. */
static inline void *arena_bump(Arena *arena, size_t size, size_t align)
{
    /* `next` is always a multiple of 8, since every allocation rounds its size up to its
     * alignment: only an alignment of 16 needs rounding. */
    uintptr_t at = (uintptr_t)arena->next;
    if (align > 8)
        at = (at + (align - 1)) & ~(uintptr_t)(align - 1);
    size_t rounded = size ? (size + align - 1) & ~(size_t)(align - 1) : align;
    if (size <= 4096 && at + rounded <= (uintptr_t)arena->end) {
        arena->next = (char *)at + rounded;
        return (void *)at;
    }
    return arena_alloc_chunk(arena, size);   /* 16-aligned */
}

/* Returns `size` uninitialised bytes aligned to 16 (for buffers filled at once). When
 * memory runs out, the program stops (memory.h). */
static inline void *arena_alloc_raw(Arena *arena, size_t size)
{
    return arena_bump(arena, size, 16);
}

/* Returns `size` zeroed bytes aligned to 16. */
static inline void *arena_alloc(Arena *arena, size_t size)
{
    void *p = arena_bump(arena, size, 16);
    memset(p, 0, size);
    return p;
}

/* Returns `size` zeroed bytes aligned to 8, for syntax tree nodes and names, which hold
 * nothing wider than a pointer: a 72-byte node then takes 72 bytes, not 80. */
static inline void *arena_alloc_node(Arena *arena, size_t size)
{
    void *p = arena_bump(arena, size, 8);
    memset(p, 0, size);
    return p;
}

/* A NUL-terminated copy of `len` bytes of `text`. */
char *arena_strndup(Arena *arena, const char *text, size_t len);

/* printf into the arena. */
char *arena_printf(Arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *arena, const char *fmt, va_list args);

#endif
