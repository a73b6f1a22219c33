/* The loader: reads and verifies a .orbc file (docs/bytecode.md, section 6) into an
 * OrbcModule. Every read is bounds-checked; every count is checked against the limits and
 * against the bytes left before anything is allocated; the first problem stops loading
 * with one message that names the byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_internal.h"

bool orbc_reader_vfail(OrbcReader *r, size_t offset, const char *fmt, va_list args)
{
    if (r->failed)
        return false;
    r->failed = true;
    if (!r->err)
        return false;
    char what[200];
    vsnprintf(what, sizeof what, fmt, args);
    r->err->offset = offset;
    snprintf(r->err->text, sizeof r->err->text, "orbc: %s (offset %zu)", what, offset);
    return false;
}

bool orbc_reader_fail(OrbcReader *r, size_t offset, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    orbc_reader_vfail(r, offset, fmt, args);
    va_end(args);
    return false;
}

/* ---- primitive reads: each checks the bounds of the current section ---- */

static bool need(OrbcReader *r, size_t n)
{
    if (r->failed)
        return false;
    if (n > r->end - r->pos)
        return orbc_reader_fail(r, r->pos, "unexpected end of section %s", r->section);
    return true;
}

static uint8_t read_u8(OrbcReader *r)
{
    if (!need(r, 1))
        return 0;
    return r->data[r->pos++];
}

static uint32_t read_u32(OrbcReader *r)
{
    if (!need(r, 4))
        return 0;
    uint32_t v = orbc_u32(r->data + r->pos);
    r->pos += 4;
    return v;
}

static uint64_t read_u64(OrbcReader *r)
{
    if (!need(r, 8))
        return 0;
    uint64_t v = (uint64_t)orbc_u32(r->data + r->pos) |
                 (uint64_t)orbc_u32(r->data + r->pos + 4) << 32;
    r->pos += 8;
    return v;
}

static int64_t read_i64(OrbcReader *r)
{
    return (int64_t)read_u64(r);
}

/* Reads a count and checks it against `limit` and against the bytes left, given that
 * each entry takes at least `entry_size` bytes. */
static bool read_count(OrbcReader *r, uint32_t *count, uint32_t limit, size_t entry_size,
                       const char *what)
{
    size_t at = r->pos;
    *count = read_u32(r);
    if (r->failed)
        return false;
    if (*count > limit)
        return orbc_reader_fail(r, at, "too many %s: %u (limit %u)", what, *count, limit);
    if ((uint64_t)*count * entry_size > r->end - r->pos)
        return orbc_reader_fail(r, at, "%u %s do not fit in the %zu bytes left", *count, what,
                                r->end - r->pos);
    return true;
}

static void *alloc_array(OrbcReader *r, uint32_t count, size_t size)
{
    void *p = orbc_pool_alloc(r->pool, (size_t)count * size);
    if (!p)
        orbc_reader_fail(r, r->pos, "out of memory");
    return p;
}

/* A string index at the current position; `none_ok` accepts ORBC_NONE. */
static uint32_t read_string_index(OrbcReader *r, bool none_ok)
{
    size_t at = r->pos;
    uint32_t s = read_u32(r);
    if (!r->failed && !(none_ok && s == ORBC_NONE) && s >= r->module->string_count)
        orbc_reader_fail(r, at, "string index %u out of range (%u strings)", s,
                         r->module->string_count);
    return s;
}

/* A type index below `limit` (the types loaded before the current one). */
static uint32_t read_type_index(OrbcReader *r, uint32_t limit)
{
    size_t at = r->pos;
    uint32_t t = read_u32(r);
    if (!r->failed && t >= limit)
        orbc_reader_fail(r, at, "type index %u out of range (%u types)", t, limit);
    return t;
}

/* A source position: a line and a column, each at least 1. */
static void read_position(OrbcReader *r, uint32_t *line, uint32_t *column)
{
    size_t at = r->pos;
    *line = read_u32(r);
    *column = read_u32(r);
    if (!r->failed && (*line == 0 || *column == 0))
        orbc_reader_fail(r, at, "line and column must be at least 1");
}

static int64_t read_duration(OrbcReader *r, const char *what)
{
    size_t at = r->pos;
    int64_t ms = read_i64(r);
    if (!r->failed && ms < 0)
        orbc_reader_fail(r, at, "negative %s %lld", what, (long long)ms);
    return ms;
}

/* ---- STRINGS ---- */

static bool valid_utf8(const uint8_t *s, uint32_t len, uint32_t *bad)
{
    uint32_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        uint32_t n, min;
        if (c < 0x80) { i++; continue; }
        else if ((c & 0xE0) == 0xC0) { n = 1; min = 0x80; }
        else if ((c & 0xF0) == 0xE0) { n = 2; min = 0x800; }
        else if ((c & 0xF8) == 0xF0) { n = 3; min = 0x10000; }
        else { *bad = i; return false; }
        if (len - i <= n) { *bad = i; return false; }
        uint32_t cp = c & (0x3F >> n);
        for (uint32_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80) { *bad = i; return false; }
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            *bad = i;
            return false;
        }
        i += n + 1;
    }
    return true;
}

static bool read_strings(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->string_count, ORBC_MAX_TABLE, 4, "strings"))
        return false;
    m->strings = alloc_array(r, m->string_count, sizeof *m->strings);
    for (uint32_t i = 0; !r->failed && i < m->string_count; i++) {
        size_t at = r->pos;
        uint32_t len = read_u32(r);
        if (r->failed)
            break;
        if (len > ORBC_MAX_STRING_LEN)
            return orbc_reader_fail(r, at, "string %u too long: %u bytes (limit %u)", i, len,
                                    ORBC_MAX_STRING_LEN);
        if (!need(r, len))
            break;
        uint32_t bad = 0;
        if (!valid_utf8(r->data + r->pos, len, &bad))
            return orbc_reader_fail(r, r->pos + bad, "invalid UTF-8 in string %u", i);
        char *text = alloc_array(r, len + 1, 1);
        if (!text)
            break;
        memcpy(text, r->data + r->pos, len);
        m->strings[i] = (OrbcString){ text, len };
        r->pos += len;
    }
    return !r->failed;
}

/* ---- CONSTS ---- */

static bool read_const(OrbcReader *r, OrbcConst *c, uint32_t i)
{
    size_t at = r->pos;
    c->kind = read_u8(r);
    uint64_t payload = read_u64(r);
    if (r->failed)
        return false;
    switch ((OrbcConstKind)c->kind) {
    case ORBC_CONST_NULL:
        if (payload != 0)
            return orbc_reader_fail(r, at + 1, "null constant %u has a nonzero payload", i);
        return true;
    case ORBC_CONST_BOOL:
        if (payload > 1)
            return orbc_reader_fail(r, at + 1, "bool constant %u is neither 0 nor 1", i);
        c->boolean = payload == 1;
        return true;
    case ORBC_CONST_INT:
    case ORBC_CONST_DURATION:
        c->integer = (int64_t)payload;
        return true;
    case ORBC_CONST_NUMBER:
        memcpy(&c->number, &payload, 8);
        return true;
    case ORBC_CONST_STRING:
        if (payload >= r->module->string_count)
            return orbc_reader_fail(r, at + 1, "string index %llu out of range (%u strings)",
                                    (unsigned long long)payload, r->module->string_count);
        c->string = (uint32_t)payload;
        return true;
    }
    return orbc_reader_fail(r, at, "unknown constant kind %u", c->kind);
}

static bool read_consts(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->const_count, ORBC_MAX_TABLE, 9, "constants"))
        return false;
    m->consts = alloc_array(r, m->const_count, sizeof *m->consts);
    for (uint32_t i = 0; !r->failed && i < m->const_count; i++)
        read_const(r, &m->consts[i], i);
    return !r->failed;
}

/* ---- TYPES ---- */

/* An optional field may be absent, and then reads as null: its type accepts null (any,
 * null or optional). A field whose type is optional is itself optional (`T?` may be
 * null or absent). docs/bytecode.md 3.3. */
static void check_optional_field(OrbcReader *r, const OrbcField *f, uint32_t type,
                                 uint32_t field, size_t at)
{
    uint8_t kind = r->module->types[f->type].kind;
    bool accepts_null = kind == ORBC_TYPE_ANY || kind == ORBC_TYPE_NULL ||
                        kind == ORBC_TYPE_OPTIONAL;
    if (f->optional && !accepts_null)
        orbc_reader_fail(r, at, "type %u: field %u is optional but its type does not accept "
                         "null", type, field);
    else if (!f->optional && kind == ORBC_TYPE_OPTIONAL)
        orbc_reader_fail(r, at, "type %u: field %u has an optional type but is not optional",
                         type, field);
}

static bool read_record(OrbcReader *r, OrbcType *t, uint32_t self)
{
    t->name = read_string_index(r, true);
    size_t at = r->pos;
    if (!read_count(r, &t->field_count, ORBC_MAX_COUNT, 9, "record fields"))
        return false;
    t->fields = alloc_array(r, t->field_count, sizeof *t->fields);
    uint32_t *names = t->field_count ? malloc(t->field_count * sizeof *names) : NULL;
    if (t->field_count && !names)
        return orbc_reader_fail(r, at, "out of memory");
    for (uint32_t i = 0; !r->failed && i < t->field_count; i++) {
        OrbcField *f = &t->fields[i];
        f->name = names[i] = read_string_index(r, false);
        f->type = read_type_index(r, self);
        size_t flag_at = r->pos;
        uint8_t flags = read_u8(r);
        if (!r->failed && flags > 1)
            orbc_reader_fail(r, flag_at, "unknown field flags 0x%02x", flags);
        f->optional = flags == 1;
        if (!r->failed)
            check_optional_field(r, f, self, i, flag_at);
    }
    uint32_t dup = 0;
    if (!r->failed && !orbc_strings_distinct(r, names, t->field_count, &dup))
        orbc_reader_fail(r, at, "type %u: field %u repeats an earlier field name", self, dup);
    free(names);
    return !r->failed;
}

static bool read_types(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->type_count, ORBC_MAX_TABLE, 1, "types"))
        return false;
    m->types = alloc_array(r, m->type_count, sizeof *m->types);
    for (uint32_t i = 0; !r->failed && i < m->type_count; i++) {
        OrbcType *t = &m->types[i];
        size_t at = r->pos;
        t->kind = read_u8(r);
        t->elem = ORBC_NONE;
        t->name = ORBC_NONE;
        if (r->failed)
            break;
        if (t->kind == ORBC_TYPE_LIST || t->kind == ORBC_TYPE_OPTIONAL)
            t->elem = read_type_index(r, i);
        else if (t->kind == ORBC_TYPE_RECORD)
            read_record(r, t, i);
        else if (t->kind > ORBC_TYPE_RECORD)
            orbc_reader_fail(r, at, "unknown type kind %u", t->kind);
    }
    return !r->failed;
}

/* ---- TASKS ---- */

static bool read_tasks(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->task_count, ORBC_MAX_LARGE, 21, "tasks"))
        return false;
    m->tasks = alloc_array(r, m->task_count, sizeof *m->tasks);
    uint32_t *names = m->task_count ? malloc(m->task_count * sizeof *names) : NULL;
    size_t start = r->pos;
    for (uint32_t i = 0; !r->failed && i < m->task_count; i++) {
        OrbcTask *t = &m->tasks[i];
        t->name = read_string_index(r, false);
        if (names)
            names[i] = t->name;
        size_t at = r->pos;
        t->kind = read_u8(r);
        if (!r->failed && t->kind > ORBC_TASK_BUILTIN)
            orbc_reader_fail(r, at, "unknown task kind %u", t->kind);
        t->input_type = read_type_index(r, m->type_count);
        t->output_type = read_type_index(r, m->type_count);
        size_t timeout_at = r->pos;
        t->default_timeout_ms = read_duration(r, "default timeout");
        if (!r->failed && t->kind == ORBC_TASK_WORKER && t->default_timeout_ms != 0)
            orbc_reader_fail(r, timeout_at, "task %u: a worker task has no default timeout", i);
    }
    uint32_t dup = 0;
    if (!r->failed && names && !orbc_strings_distinct(r, names, m->task_count, &dup))
        orbc_reader_fail(r, start, "task %u repeats the name of an earlier task", dup);
    free(names);
    return !r->failed;
}

/* ---- CODE ---- */

static bool read_positions(OrbcReader *r, OrbcCode *c)
{
    size_t at = r->pos;
    if (!read_count(r, &c->pos_count, ORBC_MAX_LARGE, 12, "positions"))
        return false;
    if (c->pos_count == 0)
        return orbc_reader_fail(r, at, "code block without a source position");
    c->pos = alloc_array(r, c->pos_count, sizeof *c->pos);
    for (uint32_t i = 0; !r->failed && i < c->pos_count; i++) {
        size_t pos_at = r->pos;
        OrbcPos *p = &c->pos[i];
        p->offset = read_u32(r);
        if (r->failed)
            break;
        if (i == 0 && p->offset != 0)
            return orbc_reader_fail(r, pos_at, "first position has offset %u, expected 0",
                                    p->offset);
        if (i > 0 && p->offset <= c->pos[i - 1].offset)
            return orbc_reader_fail(r, pos_at, "position offsets are not increasing");
        read_position(r, &p->line, &p->column);
    }
    return !r->failed;
}

static bool read_code_block(OrbcReader *r, OrbcCode *c, uint32_t i)
{
    r->code_offsets[i] = r->pos;
    c->file = read_string_index(r, false);
    if (!read_positions(r, c))
        return false;
    size_t at = r->pos;
    c->len = read_u32(r);
    if (r->failed)
        return false;
    if (c->len > ORBC_MAX_CODE_LEN)
        return orbc_reader_fail(r, at, "code block %u too long: %u bytes (limit %u)", i, c->len,
                                ORBC_MAX_CODE_LEN);
    if (!need(r, c->len))
        return false;
    if (c->len == 0)
        return orbc_reader_fail(r, at, "empty code block %u", i);
    for (uint32_t k = 0; k < c->pos_count; k++)
        if (c->pos[k].offset >= c->len)
            return orbc_reader_fail(r, at, "position offset %u outside code block of %u bytes",
                                    c->pos[k].offset, c->len);
    c->code = alloc_array(r, c->len, 1);
    if (!c->code)
        return false;
    memcpy(c->code, r->data + r->pos, c->len);
    size_t base = r->pos;
    r->pos += c->len;
    return orbc_verify_code(r, c, base);
}

static bool read_codes(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->code_count, ORBC_MAX_TABLE, 21, "code blocks"))
        return false;
    m->codes = alloc_array(r, m->code_count, sizeof *m->codes);
    r->code_offsets = alloc_array(r, m->code_count, sizeof *r->code_offsets);
    r->code_used = alloc_array(r, m->code_count, 1);
    for (uint32_t i = 0; !r->failed && i < m->code_count; i++)
        read_code_block(r, &m->codes[i], i);
    return !r->failed;
}

/* ---- WORKFLOWS ---- */

/* What code at a place may refer to: step results below `step_limit`, and `item`. */
typedef struct CodeContext {
    uint32_t step_limit;
    bool item_ok;
} CodeContext;

static uint32_t read_code_ref(OrbcReader *r, CodeContext ctx, const char *what)
{
    size_t at = r->pos;
    uint32_t index = read_u32(r);
    if (r->failed || index == ORBC_NONE)
        return index;
    const OrbcModule *m = r->module;
    if (index >= m->code_count) {
        orbc_reader_fail(r, at, "%s code index %u out of range (%u code blocks)", what, index,
                         m->code_count);
        return index;
    }
    const OrbcCode *c = &m->codes[index];
    if (r->code_used[index])
        orbc_reader_fail(r, at, "code block %u used twice", index);
    else if (c->max_step != ORBC_NONE && c->max_step >= ctx.step_limit)
        orbc_reader_fail(r, at, "%s code reads step %u, which has not run yet", what, c->max_step);
    else if (c->uses_item && !ctx.item_ok)
        orbc_reader_fail(r, at, "%s code uses `item` outside a for step", what);
    r->code_used[index] = 1;
    return index;
}

static void read_policy(OrbcReader *r, OrbcPolicy *p)
{
    size_t at = r->pos;
    p->attempts = read_u32(r);
    if (!r->failed && (p->attempts < 1 || p->attempts > ORBC_MAX_ATTEMPTS))
        orbc_reader_fail(r, at, "attempts %u outside 1 to %u", p->attempts, ORBC_MAX_ATTEMPTS);
    at = r->pos;
    p->backoff = read_u8(r);
    if (!r->failed && p->backoff > ORBC_BACKOFF_EXPONENTIAL)
        orbc_reader_fail(r, at, "unknown backoff %u", p->backoff);
    p->initial_delay_ms = read_duration(r, "initial delay");
    at = r->pos;
    p->max_delay_ms = read_duration(r, "max delay");
    if (!r->failed && p->max_delay_ms < p->initial_delay_ms)
        orbc_reader_fail(r, at, "max delay below initial delay");
    if (!read_count(r, &p->non_retryable_count, ORBC_MAX_COUNT, 4, "non_retryable codes"))
        return;
    p->non_retryable = alloc_array(r, p->non_retryable_count, sizeof *p->non_retryable);
    for (uint32_t i = 0; !r->failed && i < p->non_retryable_count; i++)
        p->non_retryable[i] = read_string_index(r, false);
}

static void read_task_ref(OrbcReader *r, uint32_t *task, int kind)
{
    size_t at = r->pos;
    *task = read_u32(r);
    if (r->failed)
        return;
    if (*task >= r->module->task_count)
        orbc_reader_fail(r, at, "task index %u out of range (%u tasks)", *task,
                         r->module->task_count);
    else if (kind >= 0 && r->module->tasks[*task].kind != kind)
        orbc_reader_fail(r, at, "task %u has the wrong kind for this step", *task);
}

static void read_compensate(OrbcReader *r, OrbcCompensate *c, uint32_t self)
{
    CodeContext ctx = { self + 1, false };
    read_task_ref(r, &c->task, -1);
    read_position(r, &c->line, &c->column);
    c->with_code = read_code_ref(r, ctx, "compensate with");
    c->key_code = read_code_ref(r, ctx, "compensate idempotency_key");
    read_policy(r, &c->policy);
    c->timeout_ms = read_duration(r, "timeout");
    c->queue_timeout_ms = read_duration(r, "queue timeout");
}

static void read_target(OrbcReader *r, OrbcStep *s)
{
    size_t at = r->pos;
    switch (s->kind) {
    case ORBC_STEP_WORKER:
    case ORBC_STEP_BUILTIN:
        read_task_ref(r, &s->target, s->kind == ORBC_STEP_WORKER ? ORBC_TASK_WORKER
                                                                 : ORBC_TASK_BUILTIN);
        return;
    case ORBC_STEP_WORKFLOW:
        s->target = read_u32(r);
        if (!r->failed && s->target >= r->module->workflow_count)
            orbc_reader_fail(r, at, "workflow index %u out of range (%u workflows)", s->target,
                             r->module->workflow_count);
        return;
    case ORBC_STEP_AWAIT:
        s->target = read_string_index(r, false);
        return;
    case ORBC_STEP_SLEEP:
    case ORBC_STEP_COMPUTE:
        s->target = read_u32(r);
        if (!r->failed && s->target != ORBC_NONE)
            orbc_reader_fail(r, at, "%s step with a target", s->kind == ORBC_STEP_SLEEP ? "sleep"
                                                                                   : "compute");
        return;
    }
    orbc_reader_fail(r, at - 9, "unknown step kind %u", s->kind);
}

/* The policy of a step that cannot retry (docs/bytecode.md 3.6): the default one. */
static bool is_default_policy(const OrbcPolicy *p)
{
    return p->attempts == 1 && p->backoff == ORBC_BACKOFF_FIXED &&
           p->initial_delay_ms == ORBC_DEFAULT_INITIAL_DELAY_MS &&
           p->max_delay_ms == ORBC_DEFAULT_MAX_DELAY_MS && p->non_retryable_count == 0;
}

/* The rules per step kind of docs/bytecode.md 3.6. Returns a problem or NULL. */
static const char *kind_problem(const OrbcStep *s)
{
    bool task = s->kind == ORBC_STEP_WORKER || s->kind == ORBC_STEP_BUILTIN;
    bool value = s->kind == ORBC_STEP_SLEEP || s->kind == ORBC_STEP_COMPUTE;
    if ((s->for_var == ORBC_NONE) != (s->for_code == ORBC_NONE))
        return "for variable and for code must come together";
    if (value != (s->value_code != ORBC_NONE))
        return value ? "step without its value code" : "value code on a step that takes none";
    if (!task && (s->has_compensate || s->key_code != ORBC_NONE || s->queue_timeout_ms != 0))
        return "queue timeout, idempotency key or compensate on a step that is no task";
    if (!task && !is_default_policy(&s->policy))
        return "a step that is no task has the default policy (attempts 1, fixed, "
               "1000 ms, 60000 ms, no codes)";
    if (s->kind == ORBC_STEP_SLEEP || s->kind == ORBC_STEP_AWAIT)
        if (s->for_code != ORBC_NONE || s->with_code != ORBC_NONE)
            return "for or with on a sleep or await step";
    if (s->kind == ORBC_STEP_COMPUTE && s->with_code != ORBC_NONE)
        return "with on a compute step";
    if (value && s->timeout_ms != 0)
        return "timeout on a sleep or compute step";
    return NULL;
}

static void read_deps(OrbcReader *r, OrbcStep *s, uint32_t self)
{
    if (!read_count(r, &s->dep_count, ORBC_MAX_LARGE, 4, "dependencies"))
        return;
    s->deps = alloc_array(r, s->dep_count, sizeof *s->deps);
    for (uint32_t i = 0; !r->failed && i < s->dep_count; i++) {
        size_t at = r->pos;
        s->deps[i] = read_u32(r);
        if (r->failed)
            return;
        if (s->deps[i] >= self)
            orbc_reader_fail(r, at, "step %u depends on step %u, which is not earlier", self,
                             s->deps[i]);
        else if (i > 0 && s->deps[i] <= s->deps[i - 1])
            orbc_reader_fail(r, at, "dependencies are not strictly increasing");
    }
}

/* ---- dependencies: exactly the earlier steps a step's code reads ---- */

typedef struct StepList {
    uint32_t *items;
    uint32_t count, cap;
    bool failed;
} StepList;

/* Appends the operand of every `step` instruction of code block `code` (verified). */
static void add_steps_read(StepList *list, const OrbcModule *m, uint32_t code)
{
    if (code == ORBC_NONE)
        return;
    const OrbcCode *c = &m->codes[code];
    for (uint32_t o = 0; o < c->len && !list->failed;) {
        uint32_t size = orbc_instr_size(c->code + o, c->len - o);
        if (size == 0)
            break;   /* not reached: the block is verified */
        if (c->code[o] == ORBC_OP_STEP) {
            if (list->count == list->cap) {
                uint32_t cap = list->cap ? 2 * list->cap : 16;
                uint32_t *items = realloc(list->items, cap * sizeof *items);
                if (!items) {
                    list->failed = true;
                    break;
                }
                list->items = items;
                list->cap = cap;
            }
            list->items[list->count++] = orbc_u32(c->code + o + 1);
        }
        o += size;
    }
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The dependencies of step `self` are exactly the steps below it that its code (and its
 * compensate block's) reads with `step`, so a runtime may schedule by them
 * (docs/bytecode.md 3.6). */
static void check_dependencies(OrbcReader *r, const OrbcStep *s, uint32_t self, size_t at)
{
    StepList read = { 0 };
    const uint32_t codes[] = { s->for_code, s->when_code, s->with_code, s->key_code,
                               s->value_code,
                               s->has_compensate ? s->compensate.with_code : ORBC_NONE,
                               s->has_compensate ? s->compensate.key_code : ORBC_NONE };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        add_steps_read(&read, r->module, codes[i]);
    if (read.failed) {
        free(read.items);
        orbc_reader_fail(r, at, "out of memory checking dependencies");
        return;
    }
    if (read.count > 1)
        qsort(read.items, read.count, sizeof *read.items, compare_u32);
    uint32_t d = 0;
    for (uint32_t i = 0; i < read.count && !r->failed; i++) {
        uint32_t step = read.items[i];
        if (step == self || (i > 0 && step == read.items[i - 1]))
            continue;   /* a compensate block reads its own step; repeats count once */
        if (d < s->dep_count && s->deps[d] < step)
            break;      /* deps[d] is not read: reported below */
        if (d == s->dep_count || s->deps[d] != step)
            orbc_reader_fail(r, at, "step %u reads step %u, which is not among its "
                             "dependencies", self, step);
        d++;
    }
    if (!r->failed && d < s->dep_count)
        orbc_reader_fail(r, at, "step %u lists step %u as a dependency, which its code does "
                         "not read", self, s->deps[d]);
    free(read.items);
}

static void read_step(OrbcReader *r, OrbcStep *s, uint32_t self)
{
    size_t start = r->pos;
    s->name = read_string_index(r, false);
    s->kind = read_u8(r);
    read_position(r, &s->line, &s->column);
    read_target(r, s);
    s->for_var = read_string_index(r, true);
    bool has_for = s->for_var != ORBC_NONE;
    s->for_code = read_code_ref(r, (CodeContext){ self, false }, "for");
    s->when_code = read_code_ref(r, (CodeContext){ self, false }, "when");
    s->with_code = read_code_ref(r, (CodeContext){ self, has_for }, "with");
    s->key_code = read_code_ref(r, (CodeContext){ self, has_for }, "idempotency_key");
    s->value_code = read_code_ref(r, (CodeContext){ self, has_for }, "value");
    read_policy(r, &s->policy);
    s->timeout_ms = read_duration(r, "timeout");
    s->queue_timeout_ms = read_duration(r, "queue timeout");
    size_t deps_at = r->pos;
    read_deps(r, s, self);
    size_t at = r->pos;
    uint8_t has = read_u8(r);
    if (!r->failed && has > 1)
        orbc_reader_fail(r, at, "has_compensate is %u, expected 0 or 1", has);
    s->has_compensate = has == 1;
    if (s->has_compensate)
        read_compensate(r, &s->compensate, self);
    const char *problem = r->failed ? NULL : kind_problem(s);
    if (problem)
        orbc_reader_fail(r, start, "step %u: %s", self, problem);
    if (!r->failed)
        check_dependencies(r, s, self, deps_at);
}

static void read_workflow(OrbcReader *r, OrbcWorkflow *w)
{
    OrbcModule *m = r->module;
    w->name = read_string_index(r, false);
    w->file = read_string_index(r, false);
    read_position(r, &w->line, &w->column);
    w->input_type = read_type_index(r, m->type_count);
    w->output_type = read_type_index(r, m->type_count);
    w->timeout_ms = read_duration(r, "workflow timeout");
    size_t return_at = r->pos;
    read_u32(r);   /* the return code: checked after the steps, below */
    size_t steps_at = r->pos;
    if (!read_count(r, &w->step_count, ORBC_MAX_LARGE, 87, "steps"))
        return;
    w->steps = alloc_array(r, w->step_count, sizeof *w->steps);
    uint32_t *names = w->step_count ? malloc(w->step_count * sizeof *names) : NULL;
    for (uint32_t i = 0; !r->failed && i < w->step_count; i++) {
        read_step(r, &w->steps[i], i);
        if (names)
            names[i] = w->steps[i].name;
    }
    uint32_t dup = 0;
    if (!r->failed && names && !orbc_strings_distinct(r, names, w->step_count, &dup))
        orbc_reader_fail(r, steps_at, "step %u repeats the name of an earlier step", dup);
    free(names);
    if (r->failed)
        return;
    /* The return code may read every step: check it now that the count is known. */
    size_t end = r->pos;
    r->pos = return_at;
    w->return_code = read_code_ref(r, (CodeContext){ w->step_count, false }, "return");
    r->pos = end;
}

static bool read_workflows(OrbcReader *r)
{
    OrbcModule *m = r->module;
    if (!read_count(r, &m->workflow_count, ORBC_MAX_LARGE, 40, "workflows"))
        return false;
    m->workflows = alloc_array(r, m->workflow_count, sizeof *m->workflows);
    uint32_t *names = m->workflow_count ? malloc(m->workflow_count * sizeof *names) : NULL;
    size_t start = r->pos;
    for (uint32_t i = 0; !r->failed && i < m->workflow_count; i++) {
        read_workflow(r, &m->workflows[i]);
        if (names)
            names[i] = m->workflows[i].name;
    }
    uint32_t dup = 0;
    if (!r->failed && names && !orbc_strings_distinct(r, names, m->workflow_count, &dup))
        orbc_reader_fail(r, start, "workflow %u repeats the name of an earlier workflow", dup);
    free(names);
    for (uint32_t i = 0; !r->failed && i < m->code_count; i++)
        if (!r->code_used[i])
            orbc_reader_fail(r, r->code_offsets[i], "code block %u is never used", i);
    return !r->failed;
}

/* ---- header and sections ---- */

static const char *section_name(uint32_t id)
{
    static const char *names[] = { "", "STRINGS", "CONSTS", "TYPES", "TASKS", "CODE",
                                   "WORKFLOWS" };
    return id >= 1 && id <= 6 ? names[id] : "";
}

static bool read_header(OrbcReader *r, size_t len)
{
    if (len < ORBC_HEADER_SIZE)
        return orbc_reader_fail(r, len, "file too short for the header: %zu bytes", len);
    const uint8_t *d = r->data;
    if (memcmp(d, "ORBC", 4) != 0)
        return orbc_reader_fail(r, 0, "bad magic: not an .orbc file");
    unsigned major = d[4] | d[5] << 8;
    if (major != ORBC_MAJOR)
        return orbc_reader_fail(r, 4, "unsupported major version %u (this loader reads %u)", major,
                                (unsigned)ORBC_MAJOR);
    r->module->major = (uint16_t)major;
    r->module->minor = (uint16_t)(d[6] | d[7] << 8);
    uint32_t file_length = orbc_u32(d + 12);
    if (file_length != len)
        return orbc_reader_fail(r, 12, "file length field says %u bytes, file has %zu",
                                file_length, len);
    if (len > ORBC_MAX_FILE_SIZE)
        return orbc_reader_fail(r, 12, "file too large: %zu bytes (limit %u)", len,
                                ORBC_MAX_FILE_SIZE);
    if (orbc_crc32c(d + 12, len - 12) != orbc_u32(d + 8))
        return orbc_reader_fail(r, 8, "bad checksum");
    return true;
}

static bool read_section_payload(OrbcReader *r, uint32_t id)
{
    switch (id) {
    case ORBC_SEC_STRINGS: return read_strings(r);
    case ORBC_SEC_CONSTS: return read_consts(r);
    case ORBC_SEC_TYPES: return read_types(r);
    case ORBC_SEC_TASKS: return read_tasks(r);
    case ORBC_SEC_CODE: return read_codes(r);
    case ORBC_SEC_WORKFLOWS: return read_workflows(r);
    }
    return true;
}

static bool read_sections(OrbcReader *r, size_t len)
{
    uint32_t next_known = ORBC_SEC_STRINGS;
    r->pos = ORBC_HEADER_SIZE;
    while (r->pos < len) {
        size_t at = r->pos;
        if (len - at < 8)
            return orbc_reader_fail(r, at, "truncated section header");
        uint32_t id = orbc_u32(r->data + at);
        uint32_t size = orbc_u32(r->data + at + 4);
        if (size > len - at - 8)
            return orbc_reader_fail(r, at + 4,
                                    "section of %u bytes extends past the end of the file",
                                    size);
        r->pos = at + 8;
        r->end = r->pos + size;
        if (id >= ORBC_SEC_STRINGS && id <= ORBC_SEC_WORKFLOWS) {
            if (id != next_known)
                return orbc_reader_fail(r, at, "section %s out of order or repeated (expected %s)",
                                        section_name(id), section_name(next_known));
            r->section = section_name(id);
            if (!read_section_payload(r, id))
                return false;
            if (r->pos != r->end)
                return orbc_reader_fail(r, r->pos, "%zu unused bytes at the end of section %s",
                                        r->end - r->pos, r->section);
            next_known++;
        }
        r->pos = r->end;
    }
    if (next_known <= ORBC_SEC_WORKFLOWS)
        return orbc_reader_fail(r, len, "missing section %s", section_name(next_known));
    return true;
}

bool orbc_load(const uint8_t *bytes, size_t len, OrbcModule *module, OrbcError *err)
{
    memset(module, 0, sizeof *module);
    if (err) {
        err->offset = 0;
        err->text[0] = '\0';
    }
    OrbcPool *pool = calloc(1, sizeof *pool);
    if (!pool) {
        if (err)
            snprintf(err->text, sizeof err->text, "orbc: out of memory (offset 0)");
        return false;
    }
    OrbcReader r = { .data = bytes, .err = err, .pool = pool, .module = module,
                     .section = "" };
    bool ok = read_header(&r, len) && read_sections(&r, len);
    if (!ok) {
        orbc_pool_free(pool);
        free(pool);
        memset(module, 0, sizeof *module);
        return false;
    }
    module->memory = pool;
    return true;
}

void orbc_module_free(OrbcModule *module)
{
    if (module->memory) {
        orbc_pool_free(module->memory);
        free(module->memory);
    }
    memset(module, 0, sizeof *module);
}
