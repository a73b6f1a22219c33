/* Arena allocation: every AST node, interned name and diagnostic lives in an arena and is
 * freed all at once. Allocation is a pointer bump; there is no per-object free. */
#ifndef ORBIT_ARENA_H
#define ORBIT_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *chunk;   /* current chunk; older chunks are linked behind it */
    char *next;          /* first free byte in the current chunk */
    char *end;           /* one past the last byte of the current chunk */
    size_t total;        /* bytes reserved from the system, for the benchmark */
} Arena;

void arena_init(Arena *arena);
void arena_free(Arena *arena);

/* Returns `size` zeroed bytes aligned to 16. Aborts with a message when memory runs out. */
void *arena_alloc(Arena *arena, size_t size);

/* Returns `size` uninitialised bytes aligned to 16 (for buffers filled at once). */
void *arena_alloc_raw(Arena *arena, size_t size);

/* A NUL-terminated copy of `len` bytes of `text`. */
char *arena_strndup(Arena *arena, const char *text, size_t len);

/* printf into the arena. */
char *arena_printf(Arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *arena, const char *fmt, va_list args);

#endif
