/* The builder: collects the tables of a module in first-use order (equal strings,
 * constants and types share one index, found through a hash table, so the result never
 * depends on hash order), emits code blocks, and serializes the result.
 *
 * Two ways to keep code blocks and workflows: as structs (orbc_builder_new, so that
 * orbc_builder_module shows them, for tests and tools), or streamed (orbc_builder_new_
 * streaming): each block and step is written into its section's bytes as it is produced
 * and its scratch reused, so a large module exists once, as bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_internal.h"

/* A growable array of fixed-size items allocated with realloc. */
typedef struct Vec {
    void *items;
    uint32_t count;
    uint32_t cap;
} Vec;

/* Open-addressing table from an encoded key to the index it was given. A slot keeps no
 * key: the entry it names is compared (strings by text, constants and types by their
 * encoding), so the table costs 8 bytes a slot and no copies. */
typedef struct DedupSlot {
    uint32_t hash;
    uint32_t index;      /* ORBC_NONE = empty */
} DedupSlot;

typedef enum DedupTable { DEDUP_STRINGS, DEDUP_CONSTS, DEDUP_TYPES } DedupTable;

typedef struct Dedup {
    DedupSlot *slots;
    uint32_t mask;
    uint32_t count;
} Dedup;

struct OrbcBuilder {
    OrbcModule module;   /* arrays below are views of the Vecs */
    Vec strings, consts, types, tasks, codes, workflows;
    Dedup string_set, const_set, type_set;
    OrbcPool pool;       /* copies of strings, fields, steps, code */
    /* the code block being emitted */
    OrbcBuf code;
    OrbcPos *pos;                /* its positions, pos_count of pos_cap */
    uint32_t pos_count, pos_cap;
    uint32_t code_file;
    uint32_t sp, max_sp;         /* its operand stack depth after the last instruction, and
                                    the deepest so far (jumps are only forward and
                                    conditional, so emission order is the fallthrough path) */
    const char *over_limit;      /* the first limit of the format something added passes
                                    (a loader would reject the module): finish fails */
    /* the workflow being added (orbc_workflow_begin .. orbc_workflow_end) */
    uint32_t steps_expected, steps_added;
    size_t workflow_at;          /* streamed: offset of its record in workflow_sec */
    /* streamed mode: the payloads of the CODE and WORKFLOWS sections, and the record
     * being written */
    bool streaming;
    OrbcChunks code_sec, workflow_sec;
    OrbcBuf record;
    uint32_t code_count, workflow_count;
    bool code_too_long, steps_too_many;
    bool failed;
};

/* Notes the first limit of the format that the module being built passes. */
static void over_limit(OrbcBuilder *b, const char *what)
{
    if (!b->over_limit)
        b->over_limit = what;
}

static void *vec_push(OrbcBuilder *b, Vec *vec, size_t item_size)
{
    if (vec->count == vec->cap) {
        uint32_t cap = vec->cap ? vec->cap * 2 : 16;
        void *items = realloc(vec->items, cap * item_size);
        if (!items) {
            b->failed = true;
            return NULL;
        }
        vec->items = items;
        vec->cap = cap;
    }
    void *item = (char *)vec->items + vec->count * item_size;
    memset(item, 0, item_size);
    vec->count++;
    return item;
}

static void *pool_copy(OrbcBuilder *b, const void *data, size_t size)
{
    void *copy = orbc_pool_alloc(&b->pool, size);
    if (!copy) {
        b->failed = true;
        return NULL;
    }
    if (size)
        memcpy(copy, data, size);
    return copy;
}

/* A set grows four times at once: each growth clears the new slots and rehashes every
 * entry, so fewer and larger steps cost less in all (at most 8 bytes a slot, 1/8 to 1/2
 * full). */
static bool dedup_grow(Dedup *set)
{
    uint32_t cap = set->slots ? (set->mask + 1) * 4 : 256;
    DedupSlot *slots = cap ? malloc(cap * sizeof *slots) : NULL;
    if (!slots)
        return false;
    for (uint32_t i = 0; i < cap; i++)
        slots[i].index = ORBC_NONE;
    for (uint32_t i = 0; set->slots && i <= set->mask; i++) {
        if (set->slots[i].index == ORBC_NONE)
            continue;
        uint32_t j = set->slots[i].hash & (cap - 1);
        while (slots[j].index != ORBC_NONE)
            j = (j + 1) & (cap - 1);
        slots[j] = set->slots[i];
    }
    free(set->slots);
    set->slots = slots;
    set->mask = cap - 1;
    return true;
}

/* Hashing a key word by word (constants and types are hashed from their fields, as
 * they are compared, without encoding them first). */
static const uint64_t hash_k = 0x9E3779B97F4A7C15ull;

static uint64_t hash_word(uint64_t h, uint64_t word)
{
    h = (h ^ word) * hash_k;
    return h ^ (h >> 32);
}

static uint32_t hash_end(uint64_t h)
{
    return (uint32_t)((h * hash_k) >> 32);
}

static uint32_t const_hash(const OrbcConst *c)
{
    return hash_end(hash_word(hash_word(0, c->kind), orbc_const_payload(c)));
}

/* Constants are equal when their encodings are (docs/bytecode.md 3.2). */
static bool same_const(const OrbcConst *a, const OrbcConst *b)
{
    return a->kind == b->kind && orbc_const_payload(a) == orbc_const_payload(b);
}

static uint32_t type_hash(const OrbcType *t)
{
    uint64_t h = hash_word(0, t->kind);
    if (t->kind == ORBC_TYPE_LIST || t->kind == ORBC_TYPE_OPTIONAL)
        return hash_end(hash_word(h, t->elem));
    if (t->kind != ORBC_TYPE_RECORD)
        return hash_end(h);
    h = hash_word(h, (uint64_t)t->name << 32 | t->field_count);
    for (uint32_t i = 0; i < t->field_count; i++) {
        const OrbcField *f = &t->fields[i];
        h = hash_word(h, (uint64_t)f->name << 32 | f->type);
        h = hash_word(h, f->optional);
    }
    return hash_end(h);
}

/* Types are equal when their encodings are (docs/bytecode.md 3.3). */
static bool same_type(const OrbcType *a, const OrbcType *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == ORBC_TYPE_LIST || a->kind == ORBC_TYPE_OPTIONAL)
        return a->elem == b->elem;
    if (a->kind != ORBC_TYPE_RECORD)
        return true;
    if (a->name != b->name || a->field_count != b->field_count)
        return false;
    for (uint32_t i = 0; i < a->field_count; i++) {
        const OrbcField *x = &a->fields[i], *y = &b->fields[i];
        if (x->name != y->name || x->type != y->type || !x->optional != !y->optional)
            return false;
    }
    return true;
}

/* A key being looked for: a string's text, a constant or a type. */
typedef struct DedupKey {
    const char *text;
    size_t len;
    const OrbcConst *value;
    const OrbcType *type;
} DedupKey;

/* Whether entry `index` of `table` equals the key. */
static bool entry_has_key(OrbcBuilder *b, DedupTable table, uint32_t index, const DedupKey *key)
{
    Vec *entries = table == DEDUP_STRINGS ? &b->strings
                   : table == DEDUP_CONSTS ? &b->consts : &b->types;
    if (b->failed || index >= entries->count)   /* an entry lost to a failed allocation */
        return false;
    if (table == DEDUP_STRINGS) {
        const OrbcString *s = (const OrbcString *)b->strings.items + index;
        return s->len == key->len && memcmp(s->text, key->text, key->len) == 0;
    }
    if (table == DEDUP_CONSTS)
        return same_const((const OrbcConst *)b->consts.items + index, key->value);
    return same_type((const OrbcType *)b->types.items + index, key->type);
}

/* Finds the key, whose hash is `h`; when absent, inserts it with index `next` (the
 * caller then appends the entry) and sets *added. A set is kept at most half full. */
static uint32_t dedup_find(OrbcBuilder *b, Dedup *set, DedupTable table, const DedupKey *key,
                           uint32_t h, uint32_t next, bool *added)
{
    *added = false;
    if ((!set->slots || (set->count + 1) * 2 > set->mask + 1) && !dedup_grow(set)) {
        b->failed = true;
        return 0;
    }
    uint32_t i = h & set->mask;
    while (set->slots[i].index != ORBC_NONE) {
        DedupSlot *s = &set->slots[i];
        if (s->hash == h && entry_has_key(b, table, s->index, key))
            return s->index;
        i = (i + 1) & set->mask;
    }
    set->slots[i] = (DedupSlot){ h, next };
    set->count++;
    *added = true;
    return next;
}

static void refresh_views(OrbcBuilder *b)
{
    OrbcModule *m = &b->module;
    m->major = ORBC_MAJOR;
    m->minor = ORBC_MINOR;
    m->strings = b->strings.items;
    m->string_count = b->strings.count;
    m->consts = b->consts.items;
    m->const_count = b->consts.count;
    m->types = b->types.items;
    m->type_count = b->types.count;
    m->tasks = b->tasks.items;
    m->task_count = b->tasks.count;
    m->codes = b->codes.items;
    m->code_count = b->codes.count;
    m->workflows = b->workflows.items;
    m->workflow_count = b->workflows.count;
}

OrbcBuilder *orbc_builder_new(void)
{
    return calloc(1, sizeof(OrbcBuilder));
}

OrbcBuilder *orbc_builder_new_streaming(void)
{
    OrbcBuilder *b = orbc_builder_new();
    if (b)
        b->streaming = true;
    return b;
}

void orbc_builder_free(OrbcBuilder *b)
{
    if (!b)
        return;
    Vec *vecs[] = { &b->strings, &b->consts, &b->types, &b->tasks, &b->codes,
                    &b->workflows };
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        free(vecs[i]->items);
    free(b->string_set.slots);
    free(b->const_set.slots);
    free(b->type_set.slots);
    free(b->code.data);
    free(b->pos);
    orbc_chunks_free(&b->code_sec);
    orbc_chunks_free(&b->workflow_sec);
    free(b->record.data);
    orbc_pool_free(&b->pool);
    free(b);
}

/* ---- strings, constants, types ---- */

uint32_t orbc_add_string(OrbcBuilder *b, const char *text, size_t len)
{
    bool added;
    DedupKey key = { .text = text, .len = len };
    uint32_t index = dedup_find(b, &b->string_set, DEDUP_STRINGS, &key, orbc_hash(text, len),
                                b->strings.count, &added);
    if (!added)
        return index;
    OrbcString *s = vec_push(b, &b->strings, sizeof *s);
    char *copy = orbc_pool_alloc_raw(&b->pool, len + 1);
    if (!s || !copy) {
        b->failed = true;
        return 0;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->text = copy;
    s->len = (uint32_t)len;
    return index;
}

uint32_t orbc_add_cstring(OrbcBuilder *b, const char *text)
{
    return orbc_add_string(b, text, strlen(text));
}

uint32_t orbc_add_const(OrbcBuilder *b, OrbcConst value)
{
    bool added;
    DedupKey key = { .value = &value };
    uint32_t index = dedup_find(b, &b->const_set, DEDUP_CONSTS, &key, const_hash(&value),
                                b->consts.count, &added);
    if (added) {
        OrbcConst *c = vec_push(b, &b->consts, sizeof *c);
        if (c)
            *c = value;
    }
    return index;
}

uint32_t orbc_const_int(OrbcBuilder *b, int64_t value)
{
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_INT, .integer = value });
}

uint32_t orbc_const_number(OrbcBuilder *b, double value)
{
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_NUMBER, .number = value });
}

uint32_t orbc_const_string(OrbcBuilder *b, const char *text, size_t len)
{
    uint32_t s = orbc_add_string(b, text, len);
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_STRING, .string = s });
}

uint32_t orbc_const_duration(OrbcBuilder *b, int64_t ms)
{
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_DURATION, .integer = ms });
}

uint32_t orbc_const_bool(OrbcBuilder *b, bool value)
{
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_BOOL, .boolean = value });
}

uint32_t orbc_const_null(OrbcBuilder *b)
{
    return orbc_add_const(b, (OrbcConst){ .kind = ORBC_CONST_NULL });
}

static uint32_t add_type(OrbcBuilder *b, const OrbcType *type)
{
    bool added;
    DedupKey key = { .type = type };
    uint32_t index = dedup_find(b, &b->type_set, DEDUP_TYPES, &key, type_hash(type),
                                b->types.count, &added);
    if (!added)
        return index;
    OrbcType *t = vec_push(b, &b->types, sizeof *t);
    if (!t)
        return 0;
    *t = *type;
    if (type->field_count)
        t->fields = pool_copy(b, type->fields, type->field_count * sizeof *type->fields);
    return index;
}

uint32_t orbc_type_simple(OrbcBuilder *b, OrbcTypeKind kind)
{
    return add_type(b, &(OrbcType){ .kind = (uint8_t)kind, .elem = ORBC_NONE,
                                    .name = ORBC_NONE });
}

uint32_t orbc_type_list(OrbcBuilder *b, uint32_t elem)
{
    return add_type(b, &(OrbcType){ .kind = ORBC_TYPE_LIST, .elem = elem, .name = ORBC_NONE });
}

uint32_t orbc_type_optional(OrbcBuilder *b, uint32_t elem)
{
    return add_type(b, &(OrbcType){ .kind = ORBC_TYPE_OPTIONAL, .elem = elem,
                                    .name = ORBC_NONE });
}

uint32_t orbc_type_record(OrbcBuilder *b, uint32_t name, uint32_t field_count,
                          const OrbcField *fields)
{
    OrbcType t = { .kind = ORBC_TYPE_RECORD, .elem = ORBC_NONE, .name = name,
                   .field_count = field_count, .fields = (OrbcField *)fields };
    if (field_count > ORBC_MAX_COUNT)
        over_limit(b, "a record type of more than 65535 fields");
    return add_type(b, &t);
}

/* ---- tasks and workflows ---- */

uint32_t orbc_add_task(OrbcBuilder *b, const OrbcTask *task)
{
    OrbcTask *t = vec_push(b, &b->tasks, sizeof *t);
    if (!t)
        return 0;
    *t = *task;
    return b->tasks.count - 1;
}

static void copy_policy(OrbcBuilder *b, OrbcPolicy *p)
{
    p->non_retryable = pool_copy(b, p->non_retryable,
                                 p->non_retryable_count * sizeof *p->non_retryable);
}

/* Streamed: where a record of `size` bytes is stored, at the end of `section`: in the
 * section itself when its current chunk holds it (*in_place), else in b->record, from
 * where end_record appends it. NULL when memory runs out. */
static uint8_t *record_room(OrbcBuilder *b, OrbcChunks *section, uint64_t size, bool *in_place)
{
    uint8_t *p = size <= ORBC_MAX_FILE_SIZE ? orbc_chunks_room(section, (size_t)size) : NULL;
    *in_place = p != NULL;
    if (p)
        return p;
    b->record.len = 0;
    if (size <= ORBC_MAX_FILE_SIZE && orbc_buf_reserve(&b->record, (size_t)size))
        return b->record.data;
    b->failed = true;
    return NULL;
}

/* Streamed: the record stored where record_room said now ends its section. */
static void end_record(OrbcBuilder *b, OrbcChunks *section, uint64_t size, bool in_place)
{
    if (in_place)
        orbc_chunks_added(section, (size_t)size);
    else
        orbc_chunks_append(section, b->record.data, (size_t)size);
}

/* The offset of return_code in a workflow record (docs/bytecode.md). */
enum { WORKFLOW_RETURN_CODE_AT = 32 };

uint32_t orbc_workflow_begin(OrbcBuilder *b, const OrbcWorkflow *header)
{
    b->steps_expected = header->step_count;
    b->steps_added = 0;
    if (b->streaming) {
        if (header->step_count > ORBC_MAX_LARGE)
            b->steps_too_many = true;
        b->workflow_at = b->workflow_sec.len;
        bool in_place;
        uint8_t *p = record_room(b, &b->workflow_sec, ORBC_WORKFLOW_HEADER_SIZE, &in_place);
        if (p) {
            orbc_put_workflow_header(p, header);
            end_record(b, &b->workflow_sec, ORBC_WORKFLOW_HEADER_SIZE, in_place);
        }
        return b->workflow_count++;
    }
    OrbcWorkflow *w = vec_push(b, &b->workflows, sizeof *w);
    if (!w)
        return 0;
    *w = *header;
    w->steps = orbc_pool_alloc(&b->pool, header->step_count * sizeof *w->steps);
    if (!w->steps)
        b->failed = true;
    return b->workflows.count - 1;
}

void orbc_workflow_step(OrbcBuilder *b, const OrbcStep *step)
{
    if (b->steps_added == b->steps_expected) {   /* more steps than the header said */
        b->failed = true;
        return;
    }
    b->steps_added++;
    if (step->policy.non_retryable_count > ORBC_MAX_COUNT ||
        (step->has_compensate && step->compensate.policy.non_retryable_count > ORBC_MAX_COUNT))
        over_limit(b, "a retry policy of more than 65535 non_retryable codes");
    if (b->streaming) {
        uint64_t size = orbc_step_size(step);
        bool in_place;
        uint8_t *p = record_room(b, &b->workflow_sec, size, &in_place);
        if (p) {
            orbc_put_step(p, step);
            end_record(b, &b->workflow_sec, size, in_place);
        }
        return;
    }
    OrbcWorkflow *w = (OrbcWorkflow *)b->workflows.items + b->workflows.count - 1;
    if (b->failed || !w->steps)
        return;
    OrbcStep *s = &w->steps[b->steps_added - 1];
    *s = *step;
    s->deps = pool_copy(b, s->deps, s->dep_count * sizeof *s->deps);
    copy_policy(b, &s->policy);
    copy_policy(b, &s->compensate.policy);
}

void orbc_workflow_end(OrbcBuilder *b, uint32_t return_code)
{
    if (b->steps_added != b->steps_expected)
        b->failed = true;
    if (b->streaming) {
        orbc_chunks_put_u32(&b->workflow_sec, b->workflow_at + WORKFLOW_RETURN_CODE_AT,
                            return_code);
        return;
    }
    if (b->workflows.count)
        ((OrbcWorkflow *)b->workflows.items)[b->workflows.count - 1].return_code = return_code;
}

uint32_t orbc_add_workflow(OrbcBuilder *b, const OrbcWorkflow *workflow)
{
    uint32_t index = orbc_workflow_begin(b, workflow);
    for (uint32_t i = 0; i < workflow->step_count; i++)
        orbc_workflow_step(b, &workflow->steps[i]);
    orbc_workflow_end(b, workflow->return_code);
    return index;
}

OrbcWorkflow *orbc_builder_workflow(OrbcBuilder *b, uint32_t index)
{
    if (b->streaming || index >= b->workflows.count)
        return NULL;
    return (OrbcWorkflow *)b->workflows.items + index;
}

/* ---- code ---- */

void orbc_code_begin(OrbcBuilder *b, uint32_t file)
{
    b->code.len = 0;
    b->pos_count = 0;
    b->code_file = file;
    b->sp = b->max_sp = 0;
}

/* The stack effect of each opcode (ops.def): the values it pops (a BRANCH: when it falls
 * through; ORBC_POPS_COUNT: as many as its count operand says) and pushes. */
enum { POPS_0 = 0, POPS_1 = 1, POPS_2 = 2, POPS_COUNT = ORBC_POPS_COUNT };

static const struct {
    uint8_t pops, pushes;
} stack_effect[256] = {
#define ORBC_OP(name, code, mnemonic, operands, pops, pushes, flow, symbol)                 \
    [code] = { POPS_##pops, pushes },
#include "ops.def"
};

/* Tracks the stack depth over one instruction (`operand` is the count of a list, record
 * or call). Emission order is the fallthrough path, where a conditional jump pops its
 * value. */
static void track_stack(OrbcBuilder *b, OrbcOp op, uint32_t operand)
{
    uint32_t pops = stack_effect[(uint8_t)op].pops;
    if (pops == ORBC_POPS_COUNT) {
        pops = operand;
        if (operand > ORBC_MAX_COUNT)
            over_limit(b, "a list, record or call of more than 65535 values");
    }
    b->sp = (b->sp > pops ? b->sp - pops : 0) + stack_effect[(uint8_t)op].pushes;
    if (b->sp > b->max_sp) {
        b->max_sp = b->sp;
        if (b->max_sp > ORBC_MAX_STACK)
            over_limit(b, "an expression needs more than 4096 values on the operand stack");
    }
}

uint32_t orbc_code_max_stack(const OrbcBuilder *b)
{
    return b->max_sp;
}

bool orbc_code_fits(const OrbcBuilder *b, uint64_t *length)
{
    *length = (uint64_t)b->code.len + 1;   /* the RETURN that ends it */
    return *length <= ORBC_MAX_CODE_LEN && b->pos_count <= ORBC_MAX_LARGE;
}

/* The emitters below are called for every instruction and position: their fast path
 * makes no call, and when the block must grow they hand over, as their last act, to an
 * out-of-line function that grows it and calls them again. */

static bool grow_positions(OrbcBuilder *b)
{
    uint32_t cap = b->pos_cap ? b->pos_cap * 2 : 64;
    OrbcPos *pos = cap > b->pos_cap ? realloc(b->pos, cap * sizeof *pos) : NULL;
    if (!pos) {
        b->failed = true;
        return false;
    }
    b->pos = pos;
    b->pos_cap = cap;
    return true;
}

__attribute__((noinline)) static void grow_then_pos(OrbcBuilder *b, uint32_t line,
                                                    uint32_t column)
{
    if (grow_positions(b))
        orbc_code_pos(b, line, column);
}

void orbc_code_pos(OrbcBuilder *b, uint32_t line, uint32_t column)
{
    uint32_t offset = (uint32_t)b->code.len;
    if (b->pos_count) {
        OrbcPos *last = &b->pos[b->pos_count - 1];
        if (last->line == line && last->column == column)
            return;
        if (last->offset == offset) {
            last->line = line;
            last->column = column;
            return;
        }
    }
    if (b->pos_count == b->pos_cap) {
        grow_then_pos(b, line, column);
        return;
    }
    b->pos[b->pos_count++] = (OrbcPos){ offset, line, column };
}

static bool code_has_room(const OrbcBuilder *b, size_t more)
{
    return b->code.cap - b->code.len >= more;
}

/* Where the next `more` bytes of the code block go (the caller adds them to its length);
 * NULL when there is no room (the builder then fails). */
static uint8_t *code_room(OrbcBuilder *b, size_t more)
{
    if (code_has_room(b, more) || orbc_buf_reserve(&b->code, more))
        return b->code.data + b->code.len;
    return NULL;
}

__attribute__((noinline)) static void grow_then_emit(OrbcBuilder *b, OrbcOp op)
{
    if (code_room(b, 1))
        orbc_emit(b, op);
}

__attribute__((noinline)) static void grow_then_emit_u32(OrbcBuilder *b, OrbcOp op,
                                                         uint32_t operand)
{
    if (code_room(b, 5))
        orbc_emit_u32(b, op, operand);
}

void orbc_emit(OrbcBuilder *b, OrbcOp op)
{
    if (!code_has_room(b, 1)) {
        grow_then_emit(b, op);
        return;
    }
    track_stack(b, op, 0);
    b->code.data[b->code.len++] = (uint8_t)op;
}

void orbc_emit_u32(OrbcBuilder *b, OrbcOp op, uint32_t operand)
{
    if (!code_has_room(b, 5)) {
        grow_then_emit_u32(b, op, operand);
        return;
    }
    track_stack(b, op, operand);
    uint8_t *p = b->code.data + b->code.len;
    p[0] = (uint8_t)op;
    orbc_put_u32(p + 1, operand);
    b->code.len += 5;
}

void orbc_emit_call(OrbcBuilder *b, OrbcFunc func, uint8_t argc)
{
    track_stack(b, ORBC_OP_CALL, argc);
    uint8_t *p = code_room(b, 3);
    if (!p)
        return;
    p[0] = ORBC_OP_CALL;
    p[1] = (uint8_t)func;
    p[2] = argc;
    b->code.len += 3;
}

void orbc_emit_record(OrbcBuilder *b, uint32_t count, const uint32_t *names)
{
    orbc_emit_u32(b, ORBC_OP_RECORD, count);
    uint8_t *p = code_room(b, (size_t)count * 4);
    if (!p)
        return;
    for (uint32_t i = 0; i < count; i++)
        p = orbc_put_u32(p, names[i]);
    b->code.len += (size_t)count * 4;
}

uint32_t orbc_emit_jump(OrbcBuilder *b, OrbcOp op)
{
    orbc_emit_u32(b, op, 0);
    return (uint32_t)b->code.len - 4;
}

void orbc_patch_jump(OrbcBuilder *b, uint32_t site)
{
    orbc_buf_put_u32(&b->code, site, (uint32_t)b->code.len);
}

uint32_t orbc_code_end(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_RETURN);
    if (b->pos_count == 0)
        orbc_code_pos(b, 1, 1);
    if (b->code.failed)
        b->failed = true;
    OrbcPos *pos = b->pos_count ? b->pos : NULL;
    if (pos && pos[0].offset != 0)   /* the first position also covers earlier code */
        pos[0].offset = 0;
    OrbcCode view = { .file = b->code_file, .pos_count = b->pos_count, .pos = pos,
                      .len = (uint32_t)b->code.len, .code = b->code.data,
                      .max_step = ORBC_NONE };
    if (b->streaming) {
        if (view.len > ORBC_MAX_CODE_LEN || view.pos_count > ORBC_MAX_LARGE)
            b->code_too_long = true;
        else {
            uint64_t size = orbc_code_size(&view);
            bool in_place;
            uint8_t *p = record_room(b, &b->code_sec, size, &in_place);
            if (p) {
                orbc_put_code(p, &view);
                end_record(b, &b->code_sec, size, in_place);
            }
        }
        return b->code_count++;
    }
    OrbcCode *c = vec_push(b, &b->codes, sizeof *c);
    if (!c)
        return 0;
    *c = view;
    c->pos = pool_copy(b, pos, view.pos_count * sizeof(OrbcPos));
    c->code = pool_copy(b, b->code.data, b->code.len);
    return b->codes.count - 1;
}

const OrbcModule *orbc_builder_module(OrbcBuilder *b)
{
    refresh_views(b);
    return &b->module;
}

/* Why the module cannot be finished (the builder's own failures), or NULL. */
static bool builder_failed(const OrbcBuilder *b, OrbcError *err)
{
    if (!b->failed && !b->over_limit)
        return false;
    if (err) {
        err->offset = 0;
        if (b->failed)
            snprintf(err->text, sizeof err->text, "orbc: out of memory while building");
        else
            snprintf(err->text, sizeof err->text, "orbc: %s", b->over_limit);
    }
    return true;
}

bool orbc_builder_finish(OrbcBuilder *b, uint8_t **bytes, size_t *len, OrbcError *err)
{
    *bytes = NULL;
    *len = 0;
    if (!b->streaming)
        return !builder_failed(b, err)
               && orbc_serialize(orbc_builder_module(b), bytes, len, err);
    OrbcOutput *out;
    return orbc_builder_finish_output(b, &out, err) && orbc_output_take_bytes(out, bytes, len, err);
}

bool orbc_builder_finish_output(OrbcBuilder *b, OrbcOutput **out, OrbcError *err)
{
    *out = NULL;
    if (builder_failed(b, err))
        return false;
    if (b->streaming)
        return orbc_serialize_streamed(orbc_builder_module(b), b->code_too_long,
                                       b->steps_too_many, &b->code_sec, b->code_count,
                                       &b->workflow_sec, b->workflow_count, out, err);
    uint8_t *bytes;
    size_t len;
    OrbcOutput *o = calloc(1, sizeof *o);
    if (!o || !orbc_serialize(orbc_builder_module(b), &bytes, &len, err)) {
        if (!o && err) {
            err->offset = 0;
            snprintf(err->text, sizeof err->text, "orbc: out of memory while building");
        }
        free(o);
        return false;
    }
    o->head = o->owned = bytes;
    o->head_len = len;
    *out = o;
    return true;
}
