/* Arena allocation: a list of chunks, each filled by bumping a pointer.
 *
 * Chunks grow: the first is small, so a small file costs little, and each new one is
 * twice the size of the last, up to MAX_CHUNK. Chunks of HUGE_PAGE bytes or more are
 * aligned to HUGE_PAGE and marked for transparent huge pages: a large program's tree then
 * needs a 512th of the page faults and TLB entries, which is what made checking 100 MB
 * slower per byte than 10 MB. */
#include "arena.h"
#include "memory.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

enum {
    FIRST_CHUNK = 256 * 1024,
    MAX_CHUNK = 32 * 1024 * 1024,
    HUGE_PAGE = 2 * 1024 * 1024,
};

struct ArenaChunk {
    ArenaChunk *prev;
    size_t size;
    _Alignas(16) char data[];
};

void arena_init(Arena *arena)
{
    memset(arena, 0, sizeof *arena);
}

static void free_chunks(ArenaChunk *chunk)
{
    while (chunk) {
        ArenaChunk *prev = chunk->prev;
        free(chunk);
        chunk = prev;
    }
}

void arena_free(Arena *arena)
{
    free_chunks(arena->chunk);
    free_chunks(arena->spare);
    memset(arena, 0, sizeof *arena);
}

void arena_reset(Arena *arena)
{
    ArenaChunk *keep = arena->chunk;
    if (!keep)
        return;
    ArenaChunk *chunk = keep->prev;
    while (chunk) {
        ArenaChunk *prev = chunk->prev;
        arena->total -= chunk->size;
        free(chunk);
        chunk = prev;
    }
    keep->prev = NULL;
    arena->next = keep->data;
    arena->end = keep->data + keep->size;
    for (chunk = arena->spare; chunk; chunk = chunk->prev)
        arena->total -= chunk->size;
    free_chunks(arena->spare);
    arena->spare = NULL;
}

ArenaMark arena_mark(const Arena *arena)
{
    return (ArenaMark){ arena->chunk, arena->chunk ? arena->chunk->prev : NULL,
                        arena->next, arena->end };
}

/* A chunk no longer used goes to the spares, pushed in front: rewinding walks from the
 * newest chunk to the oldest, so the oldest ends first in line, as it was made first.
 * Under AddressSanitizer it is freed, so that a pointer kept past arena_rewind into
 * what it freed is reported. */
static void give_back(Arena *arena, ArenaChunk *chunk)
{
#ifdef __SANITIZE_ADDRESS__
    arena->total -= chunk->size;
    free(chunk);
#else
    chunk->prev = arena->spare;
    arena->spare = chunk;
#endif
}

void arena_rewind(Arena *arena, ArenaMark mark)
{
    ArenaChunk *chunk = arena->chunk;
    while (chunk != mark.chunk) {
        ArenaChunk *prev = chunk->prev;
        give_back(arena, chunk);
        chunk = prev;
    }
    if (mark.chunk) {
        for (chunk = mark.chunk->prev; chunk != mark.behind;) {
            ArenaChunk *prev = chunk->prev;
            give_back(arena, chunk);
            chunk = prev;
        }
        mark.chunk->prev = mark.behind;
    }
    arena->chunk = mark.chunk;
    arena->next = mark.next;
    arena->end = mark.end;
#ifdef __SANITIZE_ADDRESS__
    if (mark.next)   /* what a user poisoned (parse_build.h) is free memory again */
        ASAN_UNPOISON_MEMORY_REGION(mark.next, (size_t)(mark.end - mark.next));
#endif
}

static ArenaChunk *malloc_chunk(Arena *arena, size_t size, bool nominal)
{
    ArenaChunk *chunk;
    if (size >= HUGE_PAGE) {
        /* Whole huge pages, the header included; a chunk then holds a little less than
         * its nominal size, unless it was asked for exactly (alloc_large). */
        size_t bytes = (size + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        if (bytes - sizeof *chunk < size && !nominal)
            bytes += HUGE_PAGE;
        chunk = aligned_alloc(HUGE_PAGE, bytes);
        if (!chunk)
            out_of_memory();
#ifdef MADV_HUGEPAGE
        madvise(chunk, bytes, MADV_HUGEPAGE);   /* only a hint: failure is harmless */
#endif
        size = bytes - sizeof *chunk;
    } else {
        chunk = malloc(sizeof *chunk + size);
        if (!chunk)
            out_of_memory();
    }
    chunk->size = size;
    arena->total += size;
    return chunk;
}

/* The first spare chunk (arena_rewind) that holds `need` bytes, taken off the list, or
 * a new one of `size` (`nominal`: exactly; see malloc_chunk). */
static ArenaChunk *new_chunk(Arena *arena, size_t need, size_t size, bool nominal)
{
    for (ArenaChunk **at = &arena->spare; *at; at = &(*at)->prev)
        if ((*at)->size >= need) {
            ArenaChunk *chunk = *at;
            *at = chunk->prev;
            return chunk;
        }
    return malloc_chunk(arena, size, nominal);
}

/* A block larger than half a chunk gets a chunk of its own, linked behind the current
 * one so that the free space left in the current chunk is still used. */
static void *alloc_large(Arena *arena, size_t size)
{
    ArenaChunk *chunk = new_chunk(arena, size, size, false);
    if (arena->chunk) {
        chunk->prev = arena->chunk->prev;
        arena->chunk->prev = chunk;
    } else {
        chunk->prev = NULL;
        arena->chunk = chunk;
        arena->next = arena->end = chunk->data + size;
    }
    return chunk->data;
}

/* Twice the last chunk's size (the first is FIRST_CHUNK), at most MAX_CHUNK. */
static size_t next_chunk_size(Arena *arena)
{
    size_t size = FIRST_CHUNK;
    if (arena->chunk && arena->chunk->size >= FIRST_CHUNK)
        size = arena->chunk->size * 2;
    return size < MAX_CHUNK ? size : MAX_CHUNK;
}

void *arena_alloc_chunk(Arena *arena, size_t size)
{
    if (size > SIZE_MAX / 2)
        out_of_memory();
    size_t rounded = size ? (size + 15) & ~(size_t)15 : 16;
    uintptr_t at = ((uintptr_t)arena->next + 15) & ~(uintptr_t)15;
    if (!arena->next || at + rounded > (uintptr_t)arena->end) {
        size_t chunk_size = next_chunk_size(arena);
        if (rounded > chunk_size / 2)
            return alloc_large(arena, rounded);
        ArenaChunk *chunk = new_chunk(arena, rounded, chunk_size, true);
        chunk->prev = arena->chunk;
        arena->chunk = chunk;
        arena->next = chunk->data;
        arena->end = chunk->data + chunk->size;
        at = (uintptr_t)arena->next;
    }
    arena->next = (char *)at + rounded;
    return (void *)at;
}

char *arena_strndup(Arena *arena, const char *text, size_t len)
{
    char *copy = arena_bump(arena, len + 1, 8);   /* text needs no 16-byte alignment */
    memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

char *arena_vprintf(Arena *arena, const char *fmt, va_list args)
{
    va_list again;
    va_copy(again, args);
    int len = vsnprintf(NULL, 0, fmt, args);
    if (len < 0)
        len = 0;
    char *text = arena_alloc_raw(arena, (size_t)len + 1);
    vsnprintf(text, (size_t)len + 1, fmt, again);
    va_end(again);
    return text;
}

char *arena_printf(Arena *arena, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *text = arena_vprintf(arena, fmt, args);
    va_end(args);
    return text;
}
