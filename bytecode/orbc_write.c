/* The writer: serializes an OrbcModule into the bytes of a .orbc file
 * (docs/bytecode.md, sections 2 and 3). Writing it to a file: orbc_file.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orbc_internal.h"

/* ---- byte buffer ---- */

bool orbc_buf_reserve(OrbcBuf *buf, size_t more)
{
    if (buf->failed)
        return false;
    if (more > (size_t)ORBC_MAX_FILE_SIZE || buf->len + more > (size_t)ORBC_MAX_FILE_SIZE * 2) {
        buf->failed = true;
        return false;
    }
    if (buf->len + more <= buf->cap)
        return true;
    size_t cap = buf->cap ? buf->cap : (more > 256 ? more : 256);
    while (cap < buf->len + more)
        cap *= 2;
    uint8_t *data = realloc(buf->data, cap);
    if (!data) {
        buf->failed = true;
        return false;
    }
    buf->data = data;
    buf->cap = cap;
    return true;
}

void orbc_buf_bytes(OrbcBuf *buf, const void *bytes, size_t len)
{
    if (len == 0 || !orbc_buf_reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
}

void orbc_buf_put_u32(OrbcBuf *buf, size_t at, uint32_t value)
{
    if (buf->failed || at + 4 > buf->len)
        return;
    for (int i = 0; i < 4; i++)
        buf->data[at + i] = (uint8_t)(value >> (8 * i));
}

/* ---- pool ----
 *
 * A bump allocator over chunks of 64 KiB, each allocation zeroed as it is handed out (a
 * chunk zeroed whole would cost its 64 KiB even when little of it is used); a larger
 * request gets a zeroed chunk of its own. One malloc per chunk instead of one per string
 * or code block. */

enum { POOL_CHUNK = 64 * 1024 };

struct OrbcPoolBlock {
    OrbcPoolBlock *next;
    size_t used, size;
    max_align_t data[];
};

static size_t align_up(size_t size)
{
    size_t a = sizeof(max_align_t);
    return (size + a - 1) / a * a;
}

/* A block of `size` bytes, zeroed when asked (a big allocation's own block); a chunk is
 * not: each small allocation is zeroed as it is handed out, when it is to be. */
static OrbcPoolBlock *pool_new_block(OrbcPool *pool, size_t size, bool zeroed)
{
    if (size > SIZE_MAX - sizeof(OrbcPoolBlock))
        return NULL;
    OrbcPoolBlock *block = zeroed ? calloc(1, sizeof *block + size)
                                  : malloc(sizeof *block + size);
    if (!block)
        return NULL;
    block->size = size;
    block->used = 0;
    block->next = pool->blocks;
    pool->blocks = block;
    return block;
}

static void *pool_alloc(OrbcPool *pool, size_t size, bool zeroed)
{
    size_t need = align_up(size ? size : 1);
    if (need < size)
        return NULL;
    OrbcPoolBlock *block = pool->blocks;
    if (!block || block->size - block->used < need) {
        if (need > POOL_CHUNK / 4) {
            /* big: its own block, behind the current one so that it stays in use */
            OrbcPoolBlock *big = pool_new_block(pool, need, zeroed);
            if (!big)
                return NULL;
            if (block) {
                pool->blocks = block;
                big->next = block->next;
                block->next = big;
            }
            big->used = need;
            return big->data;
        }
        block = pool_new_block(pool, POOL_CHUNK, false);
        if (!block)
            return NULL;
    }
    void *p = (char *)block->data + block->used;
    block->used += need;
    return zeroed ? memset(p, 0, need) : p;
}

void *orbc_pool_alloc(OrbcPool *pool, size_t size)
{
    return pool_alloc(pool, size, true);
}

void *orbc_pool_alloc_raw(OrbcPool *pool, size_t size)
{
    return pool_alloc(pool, size, false);
}

void orbc_pool_free(OrbcPool *pool)
{
    while (pool->blocks) {
        OrbcPoolBlock *next = pool->blocks->next;
        free(pool->blocks);
        pool->blocks = next;
    }
}

/* ---- records stored at a pointer ----
 *
 * Each put_ function stores one part of the file at `p`, where the caller has made room
 * for exactly its size (the _size functions below), and returns the byte after it. */

static uint8_t *put_u8(uint8_t *p, uint8_t value)
{
    *p = value;
    return p + 1;
}

static uint8_t *put_i64(uint8_t *p, int64_t value)
{
    uint64_t u = (uint64_t)value;
    p = orbc_put_u32(p, (uint32_t)u);
    return orbc_put_u32(p, (uint32_t)(u >> 32));
}

static uint8_t *put_u32s(uint8_t *p, const uint32_t *values, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        p = orbc_put_u32(p, values[i]);
    return p;
}

static uint8_t *put_const(uint8_t *p, const OrbcConst *value)
{
    p = put_u8(p, value->kind);
    return put_i64(p, (int64_t)orbc_const_payload(value));
}

static uint8_t *put_type(uint8_t *p, const OrbcType *type)
{
    p = put_u8(p, type->kind);
    if (type->kind == ORBC_TYPE_LIST || type->kind == ORBC_TYPE_OPTIONAL)
        return orbc_put_u32(p, type->elem);
    if (type->kind != ORBC_TYPE_RECORD)
        return p;
    p = orbc_put_u32(p, type->name);
    p = orbc_put_u32(p, type->field_count);
    for (uint32_t i = 0; i < type->field_count; i++) {
        p = orbc_put_u32(p, type->fields[i].name);
        p = orbc_put_u32(p, type->fields[i].type);
        p = put_u8(p, type->fields[i].optional ? 1 : 0);
    }
    return p;
}

static uint8_t *put_task(uint8_t *p, const OrbcTask *t)
{
    p = orbc_put_u32(p, t->name);
    p = put_u8(p, t->kind);
    p = orbc_put_u32(p, t->input_type);
    p = orbc_put_u32(p, t->output_type);
    return put_i64(p, t->default_timeout_ms);
}

static uint8_t *put_policy(uint8_t *p, const OrbcPolicy *policy)
{
    p = orbc_put_u32(p, policy->attempts);
    p = put_u8(p, policy->backoff);
    p = put_i64(p, policy->initial_delay_ms);
    p = put_i64(p, policy->max_delay_ms);
    p = orbc_put_u32(p, policy->non_retryable_count);
    return put_u32s(p, policy->non_retryable, policy->non_retryable_count);
}

static uint8_t *put_compensate(uint8_t *p, const OrbcCompensate *c)
{
    p = orbc_put_u32(p, c->task);
    p = orbc_put_u32(p, c->line);
    p = orbc_put_u32(p, c->column);
    p = orbc_put_u32(p, c->with_code);
    p = orbc_put_u32(p, c->key_code);
    p = put_policy(p, &c->policy);
    p = put_i64(p, c->timeout_ms);
    return put_i64(p, c->queue_timeout_ms);
}

uint8_t *orbc_put_step(uint8_t *p, const OrbcStep *s)
{
    p = orbc_put_u32(p, s->name);
    p = put_u8(p, s->kind);
    p = orbc_put_u32(p, s->line);
    p = orbc_put_u32(p, s->column);
    p = orbc_put_u32(p, s->target);
    p = orbc_put_u32(p, s->for_var);
    p = orbc_put_u32(p, s->for_code);
    p = orbc_put_u32(p, s->when_code);
    p = orbc_put_u32(p, s->with_code);
    p = orbc_put_u32(p, s->key_code);
    p = orbc_put_u32(p, s->value_code);
    p = put_policy(p, &s->policy);
    p = put_i64(p, s->timeout_ms);
    p = put_i64(p, s->queue_timeout_ms);
    p = orbc_put_u32(p, s->dep_count);
    p = put_u32s(p, s->deps, s->dep_count);
    p = put_u8(p, s->has_compensate ? 1 : 0);
    return s->has_compensate ? put_compensate(p, &s->compensate) : p;
}

uint8_t *orbc_put_workflow_header(uint8_t *p, const OrbcWorkflow *w)
{
    p = orbc_put_u32(p, w->name);
    p = orbc_put_u32(p, w->file);
    p = orbc_put_u32(p, w->line);
    p = orbc_put_u32(p, w->column);
    p = orbc_put_u32(p, w->input_type);
    p = orbc_put_u32(p, w->output_type);
    p = put_i64(p, w->timeout_ms);
    p = orbc_put_u32(p, w->return_code);
    return orbc_put_u32(p, w->step_count);
}

/* Stores positions as the file holds them (three u32 each). On a little-endian machine
 * an OrbcPos is already those 12 bytes. */
static uint8_t *put_positions(uint8_t *p, const OrbcPos *pos, uint32_t count)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(sizeof(OrbcPos) == 12, "OrbcPos is three u32 without padding");
    if (count)
        memcpy(p, pos, (size_t)count * sizeof *pos);
    return p + (size_t)count * sizeof *pos;
#else
    for (uint32_t i = 0; i < count; i++) {
        p = orbc_put_u32(p, pos[i].offset);
        p = orbc_put_u32(p, pos[i].line);
        p = orbc_put_u32(p, pos[i].column);
    }
    return p;
#endif
}

uint8_t *orbc_put_code(uint8_t *p, const OrbcCode *code)
{
    p = orbc_put_u32(p, code->file);
    p = orbc_put_u32(p, code->pos_count);
    p = put_positions(p, code->pos, code->pos_count);
    p = orbc_put_u32(p, code->len);
    if (code->len)
        memcpy(p, code->code, code->len);
    return p + code->len;
}

/* ---- the sizes of the parts, so that room is made once ---- */

static uint64_t policy_size(const OrbcPolicy *p)
{
    return 25 + 4 * (uint64_t)p->non_retryable_count;
}

uint64_t orbc_step_size(const OrbcStep *s)
{
    uint64_t size = 41 + policy_size(&s->policy) + 16 + 4 + 4 * (uint64_t)s->dep_count + 1;
    if (s->has_compensate)
        size += 20 + policy_size(&s->compensate.policy) + 16;
    return size;
}

uint64_t orbc_code_size(const OrbcCode *code)
{
    return 12 + 12 * (uint64_t)code->pos_count + code->len;
}

static uint64_t type_size(const OrbcType *t)
{
    if (t->kind == ORBC_TYPE_LIST || t->kind == ORBC_TYPE_OPTIONAL)
        return 5;
    if (t->kind == ORBC_TYPE_RECORD)
        return 9 + 9 * (uint64_t)t->field_count;
    return 1;
}

enum { CONST_SIZE = 9, TASK_SIZE = 21, SECTION_HEADER_SIZE = 8 };

static uint64_t strings_size(const OrbcModule *m)
{
    uint64_t size = 4;
    for (uint32_t i = 0; i < m->string_count; i++)
        size += 4 + (uint64_t)m->strings[i].len;
    return size;
}

static uint64_t types_size(const OrbcModule *m)
{
    uint64_t size = 4;
    for (uint32_t i = 0; i < m->type_count; i++)
        size += type_size(&m->types[i]);
    return size;
}

static uint64_t workflow_size(const OrbcWorkflow *w)
{
    uint64_t size = ORBC_WORKFLOW_HEADER_SIZE;
    for (uint32_t k = 0; k < w->step_count; k++)
        size += orbc_step_size(&w->steps[k]);
    return size;
}

/* The payload sizes of the six sections, in order. */
static void section_sizes(const OrbcModule *m, uint64_t sizes[6])
{
    sizes[0] = strings_size(m);
    sizes[1] = 4 + CONST_SIZE * (uint64_t)m->const_count;
    sizes[2] = types_size(m);
    sizes[3] = 4 + TASK_SIZE * (uint64_t)m->task_count;
    sizes[4] = 4;
    for (uint32_t i = 0; i < m->code_count; i++)
        sizes[4] += orbc_code_size(&m->codes[i]);
    sizes[5] = 4;
    for (uint32_t i = 0; i < m->workflow_count; i++)
        sizes[5] += workflow_size(&m->workflows[i]);
}

static uint64_t file_size(const uint64_t sizes[6])
{
    uint64_t size = ORBC_HEADER_SIZE;
    for (int i = 0; i < 6; i++)
        size += SECTION_HEADER_SIZE + sizes[i];
    return size;
}

/* The limits of the format, in the order they are reported. A streamed module has no
 * code or workflow arrays: the builder checked each block and workflow as it was written
 * and passes what it found. */
static const char *check_limits_of(const OrbcModule *m, bool code_too_long,
                                   bool steps_too_many)
{
    if (m->string_count > ORBC_MAX_TABLE)
        return "too many strings";
    for (uint32_t i = 0; i < m->string_count; i++)
        if (m->strings[i].len > ORBC_MAX_STRING_LEN)
            return "string too long";
    if (m->const_count > ORBC_MAX_TABLE)
        return "too many constants";
    if (m->type_count > ORBC_MAX_TABLE)
        return "too many types";
    for (uint32_t i = 0; i < m->type_count; i++)
        if (m->types[i].field_count > ORBC_MAX_COUNT)
            return "a record type of more than 65535 fields";
    if (m->code_count > ORBC_MAX_TABLE)
        return "too many code blocks";
    for (uint32_t i = 0; m->codes && i < m->code_count; i++)
        if (m->codes[i].len > ORBC_MAX_CODE_LEN || m->codes[i].pos_count > ORBC_MAX_LARGE)
            code_too_long = true;
    if (code_too_long)
        return "code block too long";
    if (m->task_count > ORBC_MAX_LARGE)
        return "too many tasks";
    if (m->workflow_count > ORBC_MAX_LARGE)
        return "too many workflows";
    for (uint32_t i = 0; m->workflows && i < m->workflow_count; i++) {
        if (m->workflows[i].step_count > ORBC_MAX_LARGE)
            steps_too_many = true;
        for (uint32_t j = 0; j < m->workflows[i].step_count && !steps_too_many; j++) {
            const OrbcStep *s = &m->workflows[i].steps[j];
            if (s->policy.non_retryable_count > ORBC_MAX_COUNT ||
                (s->has_compensate &&
                 s->compensate.policy.non_retryable_count > ORBC_MAX_COUNT))
                return "a retry policy of more than 65535 non_retryable codes";
        }
    }
    return steps_too_many ? "too many steps in one workflow" : NULL;
}

static const char *check_limits(const OrbcModule *m)
{
    return check_limits_of(m, false, false);
}

/* ---- the file ---- */

static void set_error(OrbcError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(OrbcError *err, const char *fmt, ...)
{
    if (!err)
        return;
    err->offset = 0;
    int n = snprintf(err->text, sizeof err->text, "orbc: ");
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->text + n, sizeof err->text - (size_t)n, fmt, args);
    va_end(args);
}

/* A section's header and the count its payload starts with. */
static uint8_t *put_section(uint8_t *p, OrbcSectionId id, uint64_t size, uint32_t count)
{
    p = orbc_put_u32(p, id);
    p = orbc_put_u32(p, (uint32_t)size);
    return orbc_put_u32(p, count);
}

/* The header (checksum and length left 0) and the sections before CODE (strings,
 * constants, types, tasks), whose payloads take sizes[0..3] bytes. */
static uint8_t *put_tables(uint8_t *p, const OrbcModule *m, const uint64_t sizes[6])
{
    memcpy(p, "ORBC", 4);
    p = orbc_put_u32(p + 4, (uint32_t)ORBC_MAJOR | (uint32_t)ORBC_MINOR << 16);
    p = orbc_put_u32(p, 0);   /* checksum */
    p = orbc_put_u32(p, 0);   /* file_length */
    p = put_section(p, ORBC_SEC_STRINGS, sizes[0], m->string_count);
    for (uint32_t i = 0; i < m->string_count; i++) {
        p = orbc_put_u32(p, m->strings[i].len);
        if (m->strings[i].len)
            memcpy(p, m->strings[i].text, m->strings[i].len);
        p += m->strings[i].len;
    }
    p = put_section(p, ORBC_SEC_CONSTS, sizes[1], m->const_count);
    for (uint32_t i = 0; i < m->const_count; i++)
        p = put_const(p, &m->consts[i]);
    p = put_section(p, ORBC_SEC_TYPES, sizes[2], m->type_count);
    for (uint32_t i = 0; i < m->type_count; i++)
        p = put_type(p, &m->types[i]);
    p = put_section(p, ORBC_SEC_TASKS, sizes[3], m->task_count);
    for (uint32_t i = 0; i < m->task_count; i++)
        p = put_task(p, &m->tasks[i]);
    return p;
}

/* Checks that `buf` holds exactly `size` bytes, then stores the length and checksum and
 * hands the bytes to the caller; on failure frees them. */
static bool seal_file(OrbcBuf *buf, uint64_t size, uint8_t **bytes, size_t *len, OrbcError *err)
{
    if (!buf->failed && buf->len != size) {   /* the sizes and the writers disagree */
        free(buf->data);
        set_error(err, "internal error: serialized %zu bytes, expected %llu", buf->len,
                  (unsigned long long)size);
        return false;
    }
    if (buf->failed || buf->len > ORBC_MAX_FILE_SIZE) {
        free(buf->data);
        set_error(err, buf->failed ? "out of memory or module too large" : "module too large");
        return false;
    }
    orbc_buf_put_u32(buf, 12, (uint32_t)buf->len);
    orbc_seal(buf->data, buf->len);
    *bytes = buf->data;
    *len = buf->len;
    return true;
}

bool orbc_serialize(const OrbcModule *m, uint8_t **bytes, size_t *len, OrbcError *err)
{
    *bytes = NULL;
    *len = 0;
    const char *problem = check_limits(m);
    if (problem) {
        set_error(err, "%s", problem);
        return false;
    }
    uint64_t sizes[6];
    section_sizes(m, sizes);
    uint64_t size = file_size(sizes);
    if (size > ORBC_MAX_FILE_SIZE) {
        set_error(err, "module too large");
        return false;
    }
    OrbcBuf buf = { 0 };
    if (!orbc_buf_reserve(&buf, (size_t)size))
        return seal_file(&buf, size, bytes, len, err);
    uint8_t *p = put_tables(buf.data, m, sizes);
    p = put_section(p, ORBC_SEC_CODE, sizes[4], m->code_count);
    for (uint32_t i = 0; i < m->code_count; i++)
        p = orbc_put_code(p, &m->codes[i]);
    p = put_section(p, ORBC_SEC_WORKFLOWS, sizes[5], m->workflow_count);
    for (uint32_t i = 0; i < m->workflow_count; i++) {
        p = orbc_put_workflow_header(p, &m->workflows[i]);
        for (uint32_t k = 0; k < m->workflows[i].step_count; k++)
            p = orbc_put_step(p, &m->workflows[i].steps[k]);
    }
    buf.len = (size_t)(p - buf.data);
    return seal_file(&buf, size, bytes, len, err);
}

static bool crc_piece(void *crc, const uint8_t *bytes, size_t len);

/* A module whose CODE and WORKFLOWS payloads were written as they were produced: the
 * payloads stay where they are, and only the head (the header and the tables) and the
 * header of WORKFLOWS are written; the length and checksum cover every piece. */
bool orbc_serialize_streamed(const OrbcModule *tables, bool code_too_long, bool steps_too_many,
                             OrbcChunks *code, uint32_t code_count, OrbcChunks *workflows,
                             uint32_t workflow_count, OrbcOutput **out, OrbcError *err)
{
    *out = NULL;
    OrbcModule m = *tables;
    m.code_count = code_count;
    m.workflow_count = workflow_count;
    m.codes = NULL;
    m.workflows = NULL;
    const char *problem = check_limits_of(&m, code_too_long, steps_too_many);
    m.code_count = m.workflow_count = 0;
    uint64_t sizes[6];
    section_sizes(&m, sizes);
    uint64_t head_size = file_size(sizes) - (SECTION_HEADER_SIZE + sizes[5]);   /* less WORKFLOWS */
    sizes[4] += code->len;
    sizes[5] += workflows->len;
    uint64_t size = file_size(sizes);
    bool failed = code->failed || workflows->failed;
    OrbcOutput *o = NULL;
    uint8_t *head = NULL;
    if (!problem && size <= ORBC_MAX_FILE_SIZE && !failed) {
        o = calloc(1, sizeof *o);
        head = malloc((size_t)head_size);
    }
    if (!o || !head) {
        set_error(err, "%s", problem ? problem
                             : size > ORBC_MAX_FILE_SIZE ? "module too large"
                                                         : "out of memory or module too large");
        orbc_chunks_free(code);
        orbc_chunks_free(workflows);
        free(o);
        free(head);
        return false;
    }
    uint8_t *p = put_tables(head, &m, sizes);
    p = put_section(p, ORBC_SEC_CODE, sizes[4], code_count);
    o->head = o->owned = head;
    o->head_len = (size_t)(p - head);
    o->code = *code;
    put_section(o->middle, ORBC_SEC_WORKFLOWS, sizes[5], workflow_count);
    o->middle_len = sizeof o->middle;
    o->workflows = *workflows;
    *code = *workflows = (OrbcChunks){ 0 };
    if (orbc_output_len(o) != size) {   /* the sizes and the writers disagree */
        set_error(err, "internal error: serialized %zu bytes, expected %llu", orbc_output_len(o),
                  (unsigned long long)size);
        orbc_output_free(o);
        return false;
    }
    orbc_put_u32(head + 12, (uint32_t)size);
    uint32_t crc = orbc_crc32c_extend(0xFFFFFFFFu, head + 12, o->head_len - 12);
    orbc_chunks_each(&o->code, crc_piece, &crc);
    crc = orbc_crc32c_extend(crc, o->middle, o->middle_len);
    orbc_chunks_each(&o->workflows, crc_piece, &crc);
    orbc_put_u32(head + 8, crc ^ 0xFFFFFFFFu);
    *out = o;
    return true;
}

/* ---- a file in pieces ---- */

static bool crc_piece(void *crc, const uint8_t *bytes, size_t len)
{
    *(uint32_t *)crc = orbc_crc32c_extend(*(uint32_t *)crc, bytes, len);
    return true;
}

bool orbc_output_each(const OrbcOutput *out, OrbcPieceFn *piece, void *context)
{
    return piece(context, out->head, out->head_len)
           && orbc_chunks_each(&out->code, piece, context)
           && (!out->middle_len || piece(context, out->middle, out->middle_len))
           && orbc_chunks_each(&out->workflows, piece, context);
}

size_t orbc_output_len(const OrbcOutput *out)
{
    return out->head_len + out->code.len + out->middle_len + out->workflows.len;
}

void orbc_output_free(OrbcOutput *out)
{
    if (!out)
        return;
    orbc_chunks_free(&out->code);
    orbc_chunks_free(&out->workflows);
    free(out->owned);
    free(out);
}

bool orbc_output_take_bytes(OrbcOutput *out, uint8_t **bytes, size_t *len, OrbcError *err)
{
    OrbcBuf buf = { 0 };
    if (orbc_buf_reserve(&buf, orbc_output_len(out))) {
        orbc_buf_bytes(&buf, out->head, out->head_len);
        orbc_chunks_drain(&out->code, &buf);
        orbc_buf_bytes(&buf, out->middle, out->middle_len);
        orbc_chunks_drain(&out->workflows, &buf);
    }
    orbc_output_free(out);
    if (buf.failed) {
        free(buf.data);
        *bytes = NULL;
        *len = 0;
        set_error(err, "out of memory or module too large");
        return false;
    }
    *bytes = buf.data;
    *len = buf.len;
    return true;
}
