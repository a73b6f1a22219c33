/* Chunked byte storage for the sections a streaming builder writes as it goes: bytes are
 * appended to fixed 1 MiB chunks mapped straight from the system, so growing never copies
 * and draining into the file returns each chunk to the system as soon as it is copied
 * (the module then exists once, not twice, at its largest). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "orbc_internal.h"

enum { CHUNK_SHIFT = 20, CHUNK_SIZE = 1 << CHUNK_SHIFT };

static bool chunks_add(OrbcChunks *c)
{
    if (c->count == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 16;
        uint8_t **list = realloc(c->list, cap * sizeof *list);
        if (!list)
            return false;
        c->list = list;
        c->cap = cap;
    }
    void *chunk = mmap(NULL, CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    if (chunk == MAP_FAILED)
        return false;
    c->list[c->count++] = chunk;
    return true;
}

void orbc_chunks_append(OrbcChunks *c, const void *bytes, size_t len)
{
    const uint8_t *from = bytes;
    if (c->failed)
        return;
    if (len > (size_t)ORBC_MAX_FILE_SIZE * 2 - c->len) {
        c->failed = true;
        return;
    }
    while (len > 0) {
        size_t at = c->len & (CHUNK_SIZE - 1);
        if (at == 0 && (c->len >> CHUNK_SHIFT) == c->count && !chunks_add(c)) {
            c->failed = true;
            return;
        }
        size_t n = CHUNK_SIZE - at < len ? CHUNK_SIZE - at : len;
        memcpy(c->list[c->len >> CHUNK_SHIFT] + at, from, n);
        from += n;
        len -= n;
        c->len += n;
    }
}

uint8_t *orbc_chunks_room(OrbcChunks *c, size_t len)
{
    if (c->failed || len > CHUNK_SIZE || len > (size_t)ORBC_MAX_FILE_SIZE * 2 - c->len)
        return NULL;
    size_t at = c->len & (CHUNK_SIZE - 1);
    if (at == 0 && (c->len >> CHUNK_SHIFT) == c->count && !chunks_add(c))
        return NULL;
    return CHUNK_SIZE - at >= len ? c->list[c->len >> CHUNK_SHIFT] + at : NULL;
}

void orbc_chunks_added(OrbcChunks *c, size_t len)
{
    c->len += len;
}

void orbc_chunks_put_u32(OrbcChunks *c, size_t at, uint32_t value)
{
    if (c->failed || at + 4 > c->len)
        return;
    for (int i = 0; i < 4; i++, at++)
        c->list[at >> CHUNK_SHIFT][at & (CHUNK_SIZE - 1)] = (uint8_t)(value >> (8 * i));
}

void orbc_chunks_drain(OrbcChunks *c, OrbcBuf *out)
{
    for (uint32_t i = 0; i < c->count; i++) {
        size_t left = c->len - ((size_t)i << CHUNK_SHIFT);
        if (!c->failed)
            orbc_buf_bytes(out, c->list[i], left < CHUNK_SIZE ? left : CHUNK_SIZE);
        munmap(c->list[i], CHUNK_SIZE);
        c->list[i] = NULL;
    }
    orbc_chunks_free(c);
}

bool orbc_chunks_each(const OrbcChunks *c, OrbcPieceFn *piece, void *context)
{
    for (uint32_t i = 0; i < c->count; i++) {
        size_t left = c->len - ((size_t)i << CHUNK_SHIFT);
        if (left && !piece(context, c->list[i], left < CHUNK_SIZE ? left : CHUNK_SIZE))
            return false;
    }
    return true;
}

void orbc_chunks_free(OrbcChunks *c)
{
    for (uint32_t i = 0; c->list && i < c->count; i++)
        if (c->list[i])
            munmap(c->list[i], CHUNK_SIZE);
    free(c->list);
    *c = (OrbcChunks){ 0 };
}
