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

static void buf_u16(OrbcBuf *buf, uint16_t value)
{
    uint8_t b[2] = { (uint8_t)value, (uint8_t)(value >> 8) };
    orbc_buf_bytes(buf, b, 2);
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
 * A bump allocator over zeroed chunks of 64 KiB; a larger request gets a chunk of its
 * own. One malloc per chunk instead of one per string or code block. */

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

static OrbcPoolBlock *pool_new_block(OrbcPool *pool, size_t size)
{
    if (size > SIZE_MAX - sizeof(OrbcPoolBlock))
        return NULL;
    OrbcPoolBlock *block = calloc(1, sizeof *block + size);
    if (!block)
        return NULL;
    block->size = size;
    block->next = pool->blocks;
    pool->blocks = block;
    return block;
}

void *orbc_pool_alloc(OrbcPool *pool, size_t size)
{
    size_t need = align_up(size ? size : 1);
    if (need < size)
        return NULL;
    OrbcPoolBlock *block = pool->blocks;
    if (!block || block->size - block->used < need) {
        if (need > POOL_CHUNK / 4) {
            /* big: its own block, behind the current one so that it stays in use */
            OrbcPoolBlock *big = pool_new_block(pool, need);
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
        block = pool_new_block(pool, POOL_CHUNK);
        if (!block)
            return NULL;
    }
    void *p = (char *)block->data + block->used;
    block->used += need;
    return p;
}

void orbc_pool_free(OrbcPool *pool)
{
    while (pool->blocks) {
        OrbcPoolBlock *next = pool->blocks->next;
        free(pool->blocks);
        pool->blocks = next;
    }
}

/* ---- encoders ---- */

void orbc_encode_const(OrbcBuf *buf, const OrbcConst *value)
{
    orbc_buf_u8(buf, value->kind);
    orbc_buf_i64(buf, (int64_t)orbc_const_payload(value));
}

void orbc_encode_type(OrbcBuf *buf, const OrbcType *type)
{
    orbc_buf_u8(buf, type->kind);
    if (type->kind == ORBC_TYPE_LIST || type->kind == ORBC_TYPE_OPTIONAL) {
        orbc_buf_u32(buf, type->elem);
    } else if (type->kind == ORBC_TYPE_RECORD) {
        orbc_buf_u32(buf, type->name);
        orbc_buf_u32(buf, type->field_count);
        for (uint32_t i = 0; i < type->field_count; i++) {
            orbc_buf_u32(buf, type->fields[i].name);
            orbc_buf_u32(buf, type->fields[i].type);
            orbc_buf_u8(buf, type->fields[i].optional ? 1 : 0);
        }
    }
}

/* ---- serializer ---- */

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

static size_t section_begin(OrbcBuf *buf, OrbcSectionId id)
{
    orbc_buf_u32(buf, id);
    orbc_buf_u32(buf, 0);
    return buf->len;
}

static void section_end(OrbcBuf *buf, size_t payload_start)
{
    orbc_buf_put_u32(buf, payload_start - 4, (uint32_t)(buf->len - payload_start));
}

static void write_policy(OrbcBuf *buf, const OrbcPolicy *p)
{
    orbc_buf_u32(buf, p->attempts);
    orbc_buf_u8(buf, p->backoff);
    orbc_buf_i64(buf, p->initial_delay_ms);
    orbc_buf_i64(buf, p->max_delay_ms);
    orbc_buf_u32(buf, p->non_retryable_count);
    for (uint32_t i = 0; i < p->non_retryable_count; i++)
        orbc_buf_u32(buf, p->non_retryable[i]);
}

static void write_compensate(OrbcBuf *buf, const OrbcCompensate *c)
{
    orbc_buf_u32(buf, c->task);
    orbc_buf_u32(buf, c->line);
    orbc_buf_u32(buf, c->column);
    orbc_buf_u32(buf, c->with_code);
    orbc_buf_u32(buf, c->key_code);
    write_policy(buf, &c->policy);
    orbc_buf_i64(buf, c->timeout_ms);
    orbc_buf_i64(buf, c->queue_timeout_ms);
}

void orbc_write_step(OrbcBuf *buf, const OrbcStep *s)
{
    orbc_buf_u32(buf, s->name);
    orbc_buf_u8(buf, s->kind);
    orbc_buf_u32(buf, s->line);
    orbc_buf_u32(buf, s->column);
    orbc_buf_u32(buf, s->target);
    orbc_buf_u32(buf, s->for_var);
    orbc_buf_u32(buf, s->for_code);
    orbc_buf_u32(buf, s->when_code);
    orbc_buf_u32(buf, s->with_code);
    orbc_buf_u32(buf, s->key_code);
    orbc_buf_u32(buf, s->value_code);
    write_policy(buf, &s->policy);
    orbc_buf_i64(buf, s->timeout_ms);
    orbc_buf_i64(buf, s->queue_timeout_ms);
    orbc_buf_u32(buf, s->dep_count);
    for (uint32_t i = 0; i < s->dep_count; i++)
        orbc_buf_u32(buf, s->deps[i]);
    orbc_buf_u8(buf, s->has_compensate ? 1 : 0);
    if (s->has_compensate)
        write_compensate(buf, &s->compensate);
}

void orbc_write_workflow_header(OrbcBuf *buf, const OrbcWorkflow *w)
{
    orbc_buf_u32(buf, w->name);
    orbc_buf_u32(buf, w->file);
    orbc_buf_u32(buf, w->line);
    orbc_buf_u32(buf, w->column);
    orbc_buf_u32(buf, w->input_type);
    orbc_buf_u32(buf, w->output_type);
    orbc_buf_i64(buf, w->timeout_ms);
    orbc_buf_u32(buf, w->return_code);
    orbc_buf_u32(buf, w->step_count);
}

static void write_workflow(OrbcBuf *buf, const OrbcWorkflow *w)
{
    orbc_write_workflow_header(buf, w);
    for (uint32_t i = 0; i < w->step_count; i++)
        orbc_write_step(buf, &w->steps[i]);
}

/* The bytes of a code block's record: file, position count, positions, length, code. */
static uint64_t code_size(const OrbcCode *code)
{
    return 12 + 12 * (uint64_t)code->pos_count + code->len;
}

/* Stores positions as the file holds them (three u32 each); returns the byte after them.
 * On a little-endian machine an OrbcPos is already those 12 bytes. */
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

/* Room is made once for the whole record (a block has a position for nearly every
 * instruction), then its fields are stored. */
void orbc_write_code(OrbcBuf *buf, const OrbcCode *code)
{
    uint64_t size = code_size(code);
    if (size > (uint64_t)ORBC_MAX_FILE_SIZE * 2 || !orbc_buf_reserve(buf, (size_t)size)) {
        buf->failed = true;
        return;
    }
    uint8_t *p = orbc_put_u32(buf->data + buf->len, code->file);
    p = orbc_put_u32(p, code->pos_count);
    p = put_positions(p, code->pos, code->pos_count);
    p = orbc_put_u32(p, code->len);
    if (code->len)
        memcpy(p, code->code, code->len);
    buf->len += (size_t)size;
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

/* ---- the exact size of the file, so the serializer allocates once ---- */

static uint64_t policy_size(const OrbcPolicy *p)
{
    return 25 + 4 * (uint64_t)p->non_retryable_count;
}

static uint64_t step_size(const OrbcStep *s)
{
    uint64_t size = 41 + policy_size(&s->policy) + 16 + 4 + 4 * (uint64_t)s->dep_count + 1;
    if (s->has_compensate)
        size += 20 + policy_size(&s->compensate.policy) + 16;
    return size;
}

static uint64_t type_size(const OrbcType *t)
{
    if (t->kind == ORBC_TYPE_LIST || t->kind == ORBC_TYPE_OPTIONAL)
        return 5;
    if (t->kind == ORBC_TYPE_RECORD)
        return 9 + 9 * (uint64_t)t->field_count;
    return 1;
}

static uint64_t module_size(const OrbcModule *m)
{
    uint64_t size = ORBC_HEADER_SIZE + 6 * (8 + 4);
    for (uint32_t i = 0; i < m->string_count; i++)
        size += 4 + (uint64_t)m->strings[i].len;
    size += 9 * (uint64_t)m->const_count;
    for (uint32_t i = 0; i < m->type_count; i++)
        size += type_size(&m->types[i]);
    size += 21 * (uint64_t)m->task_count;
    for (uint32_t i = 0; i < m->code_count; i++)
        size += code_size(&m->codes[i]);
    for (uint32_t i = 0; i < m->workflow_count; i++) {
        size += 40;
        for (uint32_t k = 0; k < m->workflows[i].step_count; k++)
            size += step_size(&m->workflows[i].steps[k]);
    }
    return size;
}

/* The header and the sections before CODE (strings, constants, types, tasks). */
static void write_tables(OrbcBuf *buf, const OrbcModule *m)
{
    orbc_buf_bytes(buf, "ORBC", 4);
    buf_u16(buf, ORBC_MAJOR);
    buf_u16(buf, ORBC_MINOR);
    orbc_buf_u32(buf, 0);   /* checksum */
    orbc_buf_u32(buf, 0);   /* file_length */

    size_t at = section_begin(buf, ORBC_SEC_STRINGS);
    orbc_buf_u32(buf, m->string_count);
    for (uint32_t i = 0; i < m->string_count; i++) {
        orbc_buf_u32(buf, m->strings[i].len);
        orbc_buf_bytes(buf, m->strings[i].text, m->strings[i].len);
    }
    section_end(buf, at);

    at = section_begin(buf, ORBC_SEC_CONSTS);
    orbc_buf_u32(buf, m->const_count);
    for (uint32_t i = 0; i < m->const_count; i++)
        orbc_encode_const(buf, &m->consts[i]);
    section_end(buf, at);

    at = section_begin(buf, ORBC_SEC_TYPES);
    orbc_buf_u32(buf, m->type_count);
    for (uint32_t i = 0; i < m->type_count; i++)
        orbc_encode_type(buf, &m->types[i]);
    section_end(buf, at);

    at = section_begin(buf, ORBC_SEC_TASKS);
    orbc_buf_u32(buf, m->task_count);
    for (uint32_t i = 0; i < m->task_count; i++) {
        const OrbcTask *t = &m->tasks[i];
        orbc_buf_u32(buf, t->name);
        orbc_buf_u8(buf, t->kind);
        orbc_buf_u32(buf, t->input_type);
        orbc_buf_u32(buf, t->output_type);
        orbc_buf_i64(buf, t->default_timeout_ms);
    }
    section_end(buf, at);
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
    uint64_t size = module_size(m);
    if (size > ORBC_MAX_FILE_SIZE) {
        set_error(err, "module too large");
        return false;
    }
    OrbcBuf buf = { 0 };
    orbc_buf_reserve(&buf, (size_t)size);
    write_tables(&buf, m);

    size_t at = section_begin(&buf, ORBC_SEC_CODE);
    orbc_buf_u32(&buf, m->code_count);
    for (uint32_t i = 0; i < m->code_count; i++)
        orbc_write_code(&buf, &m->codes[i]);
    section_end(&buf, at);

    at = section_begin(&buf, ORBC_SEC_WORKFLOWS);
    orbc_buf_u32(&buf, m->workflow_count);
    for (uint32_t i = 0; i < m->workflow_count; i++)
        write_workflow(&buf, &m->workflows[i]);
    section_end(&buf, at);
    return seal_file(&buf, size, bytes, len, err);
}

/* A module whose CODE and WORKFLOWS payloads were written as they were produced: the
 * file is allocated once, and each chunk of the payloads is freed as soon as it is copied
 * in, so the module is never held twice. */
bool orbc_serialize_streamed(const OrbcModule *tables, bool code_too_long, bool steps_too_many,
                             OrbcChunks *code, uint32_t code_count, OrbcChunks *workflows,
                             uint32_t workflow_count, uint8_t **bytes, size_t *len, OrbcError *err)
{
    *bytes = NULL;
    *len = 0;
    OrbcModule m = *tables;
    m.code_count = code_count;
    m.workflow_count = workflow_count;
    m.codes = NULL;
    m.workflows = NULL;
    const char *problem = check_limits_of(&m, code_too_long, steps_too_many);
    m.code_count = m.workflow_count = 0;
    uint64_t size = module_size(&m) + code->len + workflows->len;
    bool failed = code->failed || workflows->failed;
    OrbcBuf buf = { 0 };
    if (problem || size > ORBC_MAX_FILE_SIZE || failed || !orbc_buf_reserve(&buf, (size_t)size)) {
        set_error(err, "%s", problem ? problem
                             : size > ORBC_MAX_FILE_SIZE ? "module too large"
                                                         : "out of memory or module too large");
        orbc_chunks_free(code);
        orbc_chunks_free(workflows);
        free(buf.data);
        return false;
    }
    m.code_count = code_count;
    m.workflow_count = workflow_count;
    write_tables(&buf, &m);
    size_t at = section_begin(&buf, ORBC_SEC_CODE);
    orbc_buf_u32(&buf, code_count);
    orbc_chunks_drain(code, &buf);
    section_end(&buf, at);
    at = section_begin(&buf, ORBC_SEC_WORKFLOWS);
    orbc_buf_u32(&buf, workflow_count);
    orbc_chunks_drain(workflows, &buf);
    section_end(&buf, at);
    return seal_file(&buf, size, bytes, len, err);
}
