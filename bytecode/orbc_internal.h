/* Helpers shared by the files of liborbc (not part of the public header): a growable byte
 * buffer for writing, and a pool that frees many allocations at once. */
#ifndef ORBC_INTERNAL_H
#define ORBC_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "orbc.h"

typedef struct OrbcBuf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed;        /* an allocation failed or the size limit was passed */
} OrbcBuf;

void orbc_buf_bytes(OrbcBuf *buf, const void *bytes, size_t len);
/* Makes room for `more` bytes; false (and buf->failed) when it cannot. */
bool orbc_buf_reserve(OrbcBuf *buf, size_t more);

/* Stores `value` little-endian at p; returns the byte after it. */
static inline uint8_t *orbc_put_u32(uint8_t *p, uint32_t value)
{
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    p[2] = (uint8_t)(value >> 16);
    p[3] = (uint8_t)(value >> 24);
    return p + 4;
}

/* The writes of every field: inline, with the room check as the only branch. */
static inline void orbc_buf_u8(OrbcBuf *buf, uint8_t value)
{
    if (buf->cap - buf->len < 1 && !orbc_buf_reserve(buf, 1))
        return;
    buf->data[buf->len++] = value;
}

static inline void orbc_buf_u32(OrbcBuf *buf, uint32_t value)
{
    if (buf->cap - buf->len < 4 && !orbc_buf_reserve(buf, 4))
        return;
    orbc_put_u32(buf->data + buf->len, value);
    buf->len += 4;
}

static inline void orbc_buf_i64(OrbcBuf *buf, int64_t value)
{
    uint64_t u = (uint64_t)value;
    orbc_buf_u32(buf, (uint32_t)u);
    orbc_buf_u32(buf, (uint32_t)(u >> 32));
}
void orbc_buf_put_u32(OrbcBuf *buf, size_t at, uint32_t value);   /* overwrite in place */

/* A pool of allocations freed together. Each allocation is zeroed. */
typedef struct OrbcPoolBlock OrbcPoolBlock;
typedef struct OrbcPool {
    OrbcPoolBlock *blocks;
} OrbcPool;

void *orbc_pool_alloc(OrbcPool *pool, size_t size);   /* NULL when out of memory */
void *orbc_pool_alloc_raw(OrbcPool *pool, size_t size);   /* the same, not zeroed */
void orbc_pool_free(OrbcPool *pool);

/* The 8 bytes that follow a constant's kind, as a number (docs/bytecode.md 3.2). */
static inline uint64_t orbc_const_payload(const OrbcConst *value)
{
    switch ((OrbcConstKind)value->kind) {
    case ORBC_CONST_BOOL: return value->boolean ? 1 : 0;
    case ORBC_CONST_INT:
    case ORBC_CONST_DURATION: return (uint64_t)value->integer;
    case ORBC_CONST_NUMBER: {
        uint64_t bits;
        memcpy(&bits, &value->number, 8);
        return bits;
    }
    case ORBC_CONST_STRING: return value->string;
    case ORBC_CONST_NULL: break;
    }
    return 0;
}

/* Bytes in a list of fixed-size chunks (orbc_chunks.c): appending never copies what is
 * there, and draining frees each chunk once copied. */
typedef struct OrbcChunks {
    uint8_t **list;
    uint32_t count, cap;
    size_t len;
    bool failed;        /* an allocation failed or the size limit was passed */
} OrbcChunks;

void orbc_chunks_append(OrbcChunks *chunks, const void *bytes, size_t len);
/* Room for `len` contiguous bytes at the end, in the current chunk (or a new one when it
 * is full), to be stored in place and then counted with orbc_chunks_added; NULL when they
 * do not fit there (append them instead). */
uint8_t *orbc_chunks_room(OrbcChunks *chunks, size_t len);
void orbc_chunks_added(OrbcChunks *chunks, size_t len);
void orbc_chunks_put_u32(OrbcChunks *chunks, size_t at, uint32_t value);   /* overwrite */
/* Appends every byte to `out` and frees the chunks (left empty). */
void orbc_chunks_drain(OrbcChunks *chunks, OrbcBuf *out);
void orbc_chunks_free(OrbcChunks *chunks);

/* A visitor of the pieces of a file, in order; returns false to stop. */
typedef bool OrbcPieceFn(void *context, const uint8_t *bytes, size_t len);
/* Hands each chunk's bytes to `piece`; false when it stopped. */
bool orbc_chunks_each(const OrbcChunks *chunks, OrbcPieceFn *piece, void *context);

/* The bytes of a file in pieces (orbc.h): the head (the header, the tables before CODE
 * and CODE's section header), CODE's payload, WORKFLOWS' section header, WORKFLOWS'
 * payload. A module serialized whole has its bytes in the head alone. */
struct OrbcOutput {
    const uint8_t *head;
    size_t head_len;
    uint8_t *owned;              /* the head's malloc'd buffer, freed with the output */
    OrbcChunks code;
    uint8_t middle[12];          /* a section's header: id, size, count */
    size_t middle_len;
    OrbcChunks workflows;
};

/* Hands every piece of `out` to `piece`, in file order; false when it stopped. */
bool orbc_output_each(const OrbcOutput *out, OrbcPieceFn *piece, void *context);

/* CRC-32C carried over pieces: start with 0xFFFFFFFF, extend with each piece in turn,
 * and the checksum is the result xor 0xFFFFFFFF (orbc_crc32c in one call). */
uint32_t orbc_crc32c_extend(uint32_t crc, const uint8_t *bytes, size_t len);

/* The records of the CODE and WORKFLOWS sections (a workflow's header is followed by
 * its steps), for the builder that writes them as they are produced: each is stored at
 * `p`, where room has been made for its size, and the byte after it is returned. */
enum { ORBC_WORKFLOW_HEADER_SIZE = 40 };
uint64_t orbc_code_size(const OrbcCode *code);
uint64_t orbc_step_size(const OrbcStep *step);
uint8_t *orbc_put_code(uint8_t *p, const OrbcCode *code);
uint8_t *orbc_put_workflow_header(uint8_t *p, const OrbcWorkflow *workflow);
uint8_t *orbc_put_step(uint8_t *p, const OrbcStep *step);

/* Serializes a module whose CODE and WORKFLOWS payloads are already written: `tables`
 * gives the strings, constants, types and tasks; the two limit flags say what the builder
 * found while writing. Both payloads move into *out (or are freed on failure) and are
 * left empty. */
bool orbc_serialize_streamed(const OrbcModule *tables, bool code_too_long, bool steps_too_many,
                             OrbcChunks *code, uint32_t code_count, OrbcChunks *workflows,
                             uint32_t workflow_count, OrbcOutput **out, OrbcError *err);
/* The bytes of `out` in one malloc'd buffer; frees `out`, each chunk as soon as it is
 * copied (the module is then never held twice). False when memory runs out. */
bool orbc_output_take_bytes(OrbcOutput *out, uint8_t **bytes, size_t *len, OrbcError *err);

/* ---- reading (orbc_read.c, orbc_verify.c) ---- */

typedef struct OrbcReader {
    const uint8_t *data;   /* the whole file */
    size_t pos;            /* next byte to read */
    size_t end;            /* end of the current section's payload */
    const char *section;   /* name of the section being read, for messages */
    OrbcError *err;
    bool failed;
    OrbcPool *pool;
    OrbcModule *module;
    size_t *code_offsets;  /* file offset of each code block's entry, for messages */
    uint8_t *code_used;    /* per code block: referenced by a workflow yet */
} OrbcReader;

/* Records the first error: "orbc: WHAT (offset N)". Always returns false. */
bool orbc_reader_fail(OrbcReader *r, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool orbc_reader_vfail(OrbcReader *r, size_t offset, const char *fmt, va_list args);

/* Verifies one code block whose bytes start at file offset `base` (all tables before
 * CODE are loaded); fills max_stack, max_step and uses_item. */
bool orbc_verify_code(OrbcReader *r, OrbcCode *code, size_t base);

/* True when the strings named by `names` (string indices) are pairwise distinct.
 * Otherwise sets *dup to the position (in `names`) of a repeated one. O(n log n). */
bool orbc_strings_distinct(OrbcReader *r, const uint32_t *names, uint32_t count, uint32_t *dup);

#endif
