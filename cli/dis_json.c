/* `orbitc dis --format json`: a loaded module as one JSON document (docs/bytecode.md,
 * "The JSON dump"; schema: docs/orbc.schema.json). Every field of the file is there, as
 * the file has it: references stay indices into the tables, ORBC_NONE is null, kinds are
 * their names in the specification. Written with jansson, piece by piece; keys always in
 * the order of the schema's "required" lists. */
#include "dis_json.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "orbc_value.h"

/* ---- small builders ---- */

static json_t *index_or_null(uint32_t index)
{
    return index == ORBC_NONE ? json_null() : json_integer(index);
}

static json_t *u32_array(const uint32_t *items, uint32_t count)
{
    json_t *array = json_array();
    for (uint32_t i = 0; i < count; i++)
        json_array_append_new(array, json_integer(items[i]));
    return array;
}

static const char *name_of(uint8_t kind, const char *const *names, size_t count)
{
    return kind < count ? names[kind] : "?";
}

#define NAME_OF(kind, names) name_of(kind, names, sizeof names / sizeof names[0])

static const char *const const_kinds[] = { "null", "bool", "int", "number", "string",
                                           "duration" };
static const char *const type_kinds[] = { "any", "null", "bool", "int", "number", "string",
                                          "duration", "list", "optional", "record" };
static const char *const task_kinds[] = { "worker", "builtin" };
static const char *const step_kinds[] = { "worker", "builtin", "workflow", "sleep", "await",
                                          "compute" };
static const char *const backoffs[] = { "fixed", "exponential" };
static const char *const section_names[] = { NULL, "STRINGS", "CONSTS", "TYPES", "TASKS",
                                             "CODE", "WORKFLOWS" };

/* ---- the file: header and sections ---- */

static json_t *hex_bytes(const uint8_t *bytes, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char *text = malloc(2 * len + 1);
    if (!text)
        return json_null();
    for (size_t i = 0; i < len; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 15];
    }
    json_t *s = diag_json_text(text, 2 * len);
    free(text);
    return s;
}

/* The sections of a verified file, known and unknown, in file order. */
static json_t *sections(const uint8_t *bytes, size_t len)
{
    json_t *array = json_array();
    for (size_t at = ORBC_HEADER_SIZE; at + 8 <= len;) {
        uint32_t id = orbc_u32(bytes + at), size = orbc_u32(bytes + at + 4);
        bool known = id >= ORBC_SEC_STRINGS && id <= ORBC_SEC_WORKFLOWS;
        json_t *s = json_object();
        json_object_set_new(s, "id", json_integer(id));
        json_object_set_new(s, "name", known ? json_string(section_names[id]) : json_null());
        json_object_set_new(s, "offset", json_integer((json_int_t)at));
        json_object_set_new(s, "length", json_integer(size));
        json_object_set_new(s, "payload", known ? json_null() : hex_bytes(bytes + at + 8, size));
        json_array_append_new(array, s);
        at += 8 + (size_t)size;
    }
    return array;
}

/* ---- tables ---- */

static json_t *number_value(double number)
{
    uint64_t bits;
    memcpy(&bits, &number, sizeof bits);
    char hex[24], text[ORBC_NUMBER_TEXT_SIZE];
    snprintf(hex, sizeof hex, "%016" PRIx64, bits);
    orbc_format_number(text, number);
    json_t *v = json_object();
    json_object_set_new(v, "bits", json_string(hex));
    json_object_set_new(v, "text", json_string(text));
    return v;
}

static json_t *constant(const OrbcConst *c)
{
    json_t *value;
    switch ((OrbcConstKind)c->kind) {
    case ORBC_CONST_BOOL: value = json_boolean(c->boolean); break;
    case ORBC_CONST_INT:
    case ORBC_CONST_DURATION: value = json_integer(c->integer); break;
    case ORBC_CONST_NUMBER: value = number_value(c->number); break;
    case ORBC_CONST_STRING: value = json_integer(c->string); break;
    default: value = json_null(); break;
    }
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(NAME_OF(c->kind, const_kinds)));
    json_object_set_new(o, "value", value);
    return o;
}

static json_t *type(const OrbcType *t)
{
    bool has_elem = t->kind == ORBC_TYPE_LIST || t->kind == ORBC_TYPE_OPTIONAL;
    json_t *fields = json_null();
    if (t->kind == ORBC_TYPE_RECORD) {
        fields = json_array();
        for (uint32_t i = 0; i < t->field_count; i++) {
            json_t *f = json_object();
            json_object_set_new(f, "name", json_integer(t->fields[i].name));
            json_object_set_new(f, "type", json_integer(t->fields[i].type));
            json_object_set_new(f, "optional", json_boolean(t->fields[i].optional));
            json_array_append_new(fields, f);
        }
    }
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(NAME_OF(t->kind, type_kinds)));
    json_object_set_new(o, "elem", has_elem ? json_integer(t->elem) : json_null());
    json_object_set_new(o, "name", t->kind == ORBC_TYPE_RECORD ? index_or_null(t->name)
                                                               : json_null());
    json_object_set_new(o, "fields", fields);
    return o;
}

static json_t *task(const OrbcTask *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_integer(t->name));
    json_object_set_new(o, "kind", json_string(NAME_OF(t->kind, task_kinds)));
    json_object_set_new(o, "input", json_integer(t->input_type));
    json_object_set_new(o, "output", json_integer(t->output_type));
    json_object_set_new(o, "default_timeout_ms", json_integer(t->default_timeout_ms));
    return o;
}

/* ---- code ---- */

/* The operands of an instruction as encoded: u32 values, or call's two u8. */
static json_t *operands(const uint8_t *code)
{
    const OrbcOpInfo *info = orbc_op_info(code[0]);
    json_t *array = json_array();
    switch ((OrbcOperands)info->operands) {
    case ORBC_OPERANDS_NONE:
        break;
    case ORBC_OPERANDS_CALL:
        json_array_append_new(array, json_integer(code[1]));
        json_array_append_new(array, json_integer(code[2]));
        break;
    case ORBC_OPERANDS_NAMES:
        for (uint32_t i = 0; i <= orbc_u32(code + 1); i++)
            json_array_append_new(array, json_integer(orbc_u32(code + 1 + 4 * i)));
        break;
    default:
        json_array_append_new(array, json_integer(orbc_u32(code + 1)));
        break;
    }
    return array;
}

static json_t *code_block(const OrbcCode *c)
{
    json_t *positions = json_array();
    for (uint32_t i = 0; i < c->pos_count; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "offset", json_integer(c->pos[i].offset));
        json_object_set_new(p, "line", json_integer(c->pos[i].line));
        json_object_set_new(p, "column", json_integer(c->pos[i].column));
        json_array_append_new(positions, p);
    }
    json_t *instructions = json_array();
    for (uint32_t o = 0; o < c->len;) {
        uint32_t size = orbc_instr_size(c->code + o, c->len - o);
        if (size == 0)
            break;   /* not reached for a verified module */
        json_t *in = json_object();
        json_object_set_new(in, "offset", json_integer(o));
        json_object_set_new(in, "op", json_string(orbc_op_name(c->code[o])));
        json_object_set_new(in, "operands", operands(c->code + o));
        json_array_append_new(instructions, in);
        o += size;
    }
    json_t *o = json_object();
    json_object_set_new(o, "file", json_integer(c->file));
    json_object_set_new(o, "positions", positions);
    json_object_set_new(o, "length", json_integer(c->len));
    json_object_set_new(o, "max_stack", json_integer(c->max_stack));
    json_object_set_new(o, "instructions", instructions);
    return o;
}

/* ---- workflows ---- */

static json_t *policy(const OrbcPolicy *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "attempts", json_integer(p->attempts));
    json_object_set_new(o, "backoff", json_string(NAME_OF(p->backoff, backoffs)));
    json_object_set_new(o, "initial_delay_ms", json_integer(p->initial_delay_ms));
    json_object_set_new(o, "max_delay_ms", json_integer(p->max_delay_ms));
    json_object_set_new(o, "non_retryable", u32_array(p->non_retryable, p->non_retryable_count));
    return o;
}

static json_t *compensate(const OrbcCompensate *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "task", json_integer(c->task));
    json_object_set_new(o, "line", json_integer(c->line));
    json_object_set_new(o, "column", json_integer(c->column));
    json_object_set_new(o, "with", index_or_null(c->with_code));
    json_object_set_new(o, "idempotency_key", index_or_null(c->key_code));
    json_object_set_new(o, "policy", policy(&c->policy));
    json_object_set_new(o, "timeout_ms", json_integer(c->timeout_ms));
    json_object_set_new(o, "queue_timeout_ms", json_integer(c->queue_timeout_ms));
    return o;
}

static json_t *step(const OrbcStep *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_integer(s->name));
    json_object_set_new(o, "kind", json_string(NAME_OF(s->kind, step_kinds)));
    json_object_set_new(o, "line", json_integer(s->line));
    json_object_set_new(o, "column", json_integer(s->column));
    json_object_set_new(o, "target", index_or_null(s->target));
    json_object_set_new(o, "for_var", index_or_null(s->for_var));
    json_object_set_new(o, "for", index_or_null(s->for_code));
    json_object_set_new(o, "when", index_or_null(s->when_code));
    json_object_set_new(o, "with", index_or_null(s->with_code));
    json_object_set_new(o, "idempotency_key", index_or_null(s->key_code));
    json_object_set_new(o, "value", index_or_null(s->value_code));
    json_object_set_new(o, "policy", policy(&s->policy));
    json_object_set_new(o, "timeout_ms", json_integer(s->timeout_ms));
    json_object_set_new(o, "queue_timeout_ms", json_integer(s->queue_timeout_ms));
    json_object_set_new(o, "dependencies", u32_array(s->deps, s->dep_count));
    json_object_set_new(o, "compensate", s->has_compensate ? compensate(&s->compensate)
                                                           : json_null());
    return o;
}

/* ---- the document, written piece by piece ---- */

/* The document is written as json_dumpf(doc, JSON_INDENT(2)) would write it, but each
 * table entry, code block and step is made, written and freed in turn: the whole tree of
 * a large module took gigabytes. */
typedef struct Writer {
    FILE *out;
    int depth;       /* of the array or object being written */
    bool first;      /* nothing written in it yet */
    bool failed;
} Writer;

static void newline_and_indent(Writer *w, int depth)
{
    fputc('\n', w->out);
    for (int i = 0; i < depth; i++)
        fputs("  ", w->out);
}

/* A value made on its own, at the current depth: its lines after the first take the
 * depth's indentation (a line end in the dump is always layout: strings escape theirs). */
static void write_value(Writer *w, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!text) {
        w->failed = true;
        return;
    }
    const char *line = text;
    for (const char *end; (end = strchr(line, '\n')); line = end + 1) {
        fwrite(line, 1, (size_t)(end - line), w->out);
        newline_and_indent(w, w->depth);
    }
    fputs(line, w->out);
    free(text);
}

/* Before the next element of an array or member of an object: the separator. */
static void next_item(Writer *w)
{
    if (!w->first)
        fputc(',', w->out);
    w->first = false;
    newline_and_indent(w, w->depth);
}

static void begin(Writer *w, char open)
{
    fputc(open, w->out);
    w->depth++;
    w->first = true;
}

static void end(Writer *w, char close)
{
    w->depth--;
    if (!w->first)
        newline_and_indent(w, w->depth);
    fputc(close, w->out);
    w->first = false;
}

static void key(Writer *w, const char *name)
{
    next_item(w);
    fprintf(w->out, "\"%s\": ", name);
}

static void member(Writer *w, const char *name, json_t *v)
{
    key(w, name);
    write_value(w, v);
}

static void element(Writer *w, json_t *v)
{
    if (!v)
        return;   /* as json_array_append_new of NULL: nothing */
    next_item(w);
    write_value(w, v);
}

static void workflow(Writer *wr, const OrbcWorkflow *w)
{
    begin(wr, '{');
    member(wr, "name", json_integer(w->name));
    member(wr, "file", json_integer(w->file));
    member(wr, "line", json_integer(w->line));
    member(wr, "column", json_integer(w->column));
    member(wr, "input", json_integer(w->input_type));
    member(wr, "output", json_integer(w->output_type));
    member(wr, "timeout_ms", json_integer(w->timeout_ms));
    member(wr, "return", index_or_null(w->return_code));
    key(wr, "steps");
    begin(wr, '[');
    for (uint32_t i = 0; i < w->step_count; i++)
        element(wr, step(&w->steps[i]));
    end(wr, ']');
    end(wr, '}');
}

bool cli_dis_json_write(const OrbcModule *m, const uint8_t *bytes, size_t len, FILE *out)
{
    Writer w = { out, 0, true, false };
    begin(&w, '{');
    member(&w, "major", json_integer(m->major));
    member(&w, "minor", json_integer(m->minor));
    member(&w, "checksum", json_integer(orbc_u32(bytes + 8)));
    member(&w, "file_length", json_integer((json_int_t)len));
    member(&w, "sections", sections(bytes, len));
    key(&w, "strings");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->string_count; i++)
        element(&w, diag_json_text(m->strings[i].text, m->strings[i].len));
    end(&w, ']');
    key(&w, "constants");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->const_count; i++)
        element(&w, constant(&m->consts[i]));
    end(&w, ']');
    key(&w, "types");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->type_count; i++)
        element(&w, type(&m->types[i]));
    end(&w, ']');
    key(&w, "tasks");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->task_count; i++)
        element(&w, task(&m->tasks[i]));
    end(&w, ']');
    key(&w, "code");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->code_count; i++)
        element(&w, code_block(&m->codes[i]));
    end(&w, ']');
    key(&w, "workflows");
    begin(&w, '[');
    for (uint32_t i = 0; i < m->workflow_count; i++) {
        next_item(&w);
        workflow(&w, &m->workflows[i]);
    }
    end(&w, ']');
    end(&w, '}');
    return !w.failed && fputc('\n', out) != EOF && !ferror(out);
}
