#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_SIZE = 1 << 20, ALIGN = 16 };

struct ArenaChunk {
    ArenaChunk *prev;
    size_t size;
    _Alignas(16) char data[];
};

void arena_init(Arena *arena)
{
    memset(arena, 0, sizeof *arena);
}

void arena_free(Arena *arena)
{
    ArenaChunk *chunk = arena->chunk;
    while (chunk) {
        ArenaChunk *prev = chunk->prev;
        free(chunk);
        chunk = prev;
    }
    memset(arena, 0, sizeof *arena);
}

static void out_of_memory(size_t size)
{
    fprintf(stderr, "orbitc: out of memory (allocating %zu bytes)\n", size);
    exit(2);
}

static ArenaChunk *malloc_chunk(Arena *arena, size_t size)
{
    ArenaChunk *chunk = malloc(sizeof *chunk + size);
    if (!chunk)
        out_of_memory(size);
    chunk->size = size;
    arena->total += size;
    return chunk;
}

/* A block larger than half a chunk gets a chunk of its own, linked behind the current
 * one so that the free space left in the current chunk is still used. */
static void *alloc_large(Arena *arena, size_t size)
{
    ArenaChunk *chunk = malloc_chunk(arena, size);
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

void *arena_alloc_raw(Arena *arena, size_t size)
{
    if (size > SIZE_MAX / 2)
        out_of_memory(size);
    size_t rounded = size ? (size + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
    if ((size_t)(arena->end - arena->next) < rounded) {
        if (rounded > CHUNK_SIZE / 2)
            return alloc_large(arena, rounded);
        ArenaChunk *chunk = malloc_chunk(arena, CHUNK_SIZE);
        chunk->prev = arena->chunk;
        arena->chunk = chunk;
        arena->next = chunk->data;
        arena->end = chunk->data + CHUNK_SIZE;
    }
    void *p = arena->next;
    arena->next += rounded;
    return p;
}

void *arena_alloc(Arena *arena, size_t size)
{
    void *p = arena_alloc_raw(arena, size);
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *arena, const char *text, size_t len)
{
    char *copy = arena_alloc_raw(arena, len + 1);
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
