/* Runtime values: lists and records, equality, and printing as JSON. What scalar values
 * mean (operators, `str`, number text) is liborbc's (orbc_value.h). */
#include "value.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL_RECORD = 8 };

/* ---- strings, lists, records ---- */

const Str *value_str_new(Arena *a, const char *text, size_t len)
{
    Str *s = arena_alloc(a, sizeof *s);
    s->len = len;
    s->text = arena_strndup(a, text, len);
    return s;
}

Value value_string(Arena *a, const char *text, size_t len)
{
    Value v = {.kind = ORBC_KIND_STRING, .s = value_str_new(a, text, len)};
    return v;
}

Value value_cstring(Arena *a, const char *text)
{
    return value_string(a, text, strlen(text));
}

List *value_list_new(Arena *a, uint32_t count)
{
    List *l = arena_alloc(a, sizeof *l);
    l->count = count;
    l->items = arena_alloc(a, sizeof(Value) * (count ? count : 1));
    return l;
}

Record *value_record_new(Arena *a, uint32_t count)
{
    Record *r = arena_alloc(a, sizeof *r);
    r->count = count;
    r->names = arena_alloc(a, sizeof(Str *) * (count ? count : 1));
    r->values = arena_alloc(a, sizeof(Value) * (count ? count : 1));
    return r;
}

uint32_t value_depth(Value v)
{
    if (v.kind == ORBC_KIND_LIST)
        return v.list->depth;
    if (v.kind == ORBC_KIND_RECORD)
        return v.rec->depth;
    return 0;
}

/* One more than the deepest of `count` values: the depth of a list or record of them. */
static uint32_t container_depth(const Value *values, uint32_t count)
{
    uint32_t deepest = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t d = value_depth(values[i]);
        if (d > deepest)
            deepest = d;
    }
    return deepest + 1;
}

bool value_list_seal(Arena *a, List *l)
{
    (void)a;
    l->depth = container_depth(l->items, l->count);
    return l->depth <= VALUE_MAX_DEPTH;
}

static void record_build_index(Arena *a, Record *r)
{
    uint32_t cap = 16;
    while (cap < r->count * 2)
        cap *= 2;
    r->index = arena_alloc(a, sizeof(uint32_t) * cap);
    r->index_cap = cap;
    for (uint32_t i = 0; i < r->count; i++) {
        uint32_t slot = orbc_hash(r->names[i]->text, r->names[i]->len) & (cap - 1);
        while (r->index[slot])
            slot = (slot + 1) & (cap - 1);
        r->index[slot] = i + 1;
    }
}

bool value_record_seal(Arena *a, Record *r)
{
    r->depth = container_depth(r->values, r->count);
    if (r->count > SMALL_RECORD)
        record_build_index(a, r);
    return r->depth <= VALUE_MAX_DEPTH;
}

static bool name_is(const Str *s, const char *name, size_t len)
{
    return s->len == len && memcmp(s->text, name, len) == 0;
}

int64_t value_record_find(const Record *r, const char *name, size_t len)
{
    if (r->index) {
        uint32_t mask = r->index_cap - 1;
        for (uint32_t slot = orbc_hash(name, len) & mask; r->index[slot];
             slot = (slot + 1) & mask) {
            uint32_t i = r->index[slot] - 1;
            if (name_is(r->names[i], name, len))
                return i;
        }
        return -1;
    }
    for (uint32_t i = 0; i < r->count; i++)
        if (name_is(r->names[i], name, len))
            return i;
    return -1;
}

const Value *value_record_get(const Record *r, const char *name)
{
    int64_t i = value_record_find(r, name, strlen(name));
    return i < 0 ? NULL : &r->values[i];
}

/* ---- liborbc's view ---- */

OrbcValue value_to_orbc(Value v)
{
    OrbcValue o = { .kind = v.kind };
    switch (v.kind) {
    case ORBC_KIND_BOOL: o.boolean = v.b; break;
    case ORBC_KIND_INT:
    case ORBC_KIND_DURATION: o.integer = v.i; break;
    case ORBC_KIND_NUMBER: o.number = v.n; break;
    case ORBC_KIND_STRING: o.string.text = v.s->text; o.string.len = v.s->len; break;
    case ORBC_KIND_LIST: o.container = v.list; break;
    case ORBC_KIND_RECORD: o.container = v.rec; break;
    default: break;
    }
    return o;
}

Value value_from_orbc(Arena *a, OrbcValue o)
{
    Value v = { .kind = o.kind };
    switch (o.kind) {
    case ORBC_KIND_BOOL: v.b = o.boolean; break;
    case ORBC_KIND_INT:
    case ORBC_KIND_DURATION: v.i = o.integer; break;
    case ORBC_KIND_NUMBER: v.n = o.number; break;
    case ORBC_KIND_STRING: {
        Str *s = arena_alloc(a, sizeof *s);
        s->text = o.string.text;   /* NUL-terminated, in the arena (or a string of the run) */
        s->len = o.string.len;
        v.s = s;
        break;
    }
    case ORBC_KIND_LIST: v.list = (List *)o.container; break;
    case ORBC_KIND_RECORD: v.rec = (Record *)o.container; break;
    default: break;
    }
    return v;
}

/* ---- equality ---- */

bool value_equal(Value a, Value b)
{
    if (a.kind != b.kind || (a.kind != ORBC_KIND_LIST && a.kind != ORBC_KIND_RECORD))
        return orbc_values_equal(value_to_orbc(a), value_to_orbc(b));
    if (a.kind == ORBC_KIND_LIST) {
        if (a.list->count != b.list->count)
            return false;
        for (uint32_t i = 0; i < a.list->count; i++)
            if (!value_equal(a.list->items[i], b.list->items[i]))
                return false;
        return true;
    }
    if (a.rec->count != b.rec->count)
        return false;
    for (uint32_t i = 0; i < a.rec->count; i++) {
        const Str *name = a.rec->names[i];
        int64_t j = value_record_find(b.rec, name->text, name->len);
        if (j < 0 || !value_equal(a.rec->values[i], b.rec->values[j]))
            return false;
    }
    return true;
}

const char *value_kind_name(Value v)
{
    return orbc_kind_name(v.kind);
}

/* ---- printing ---- */

void value_json_quote(TextBuffer *out, const char *text, size_t len)
{
    text_append(out, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        text_append(out, text + start, i - start);
        start = i + 1;
        switch (c) {
        case '"': text_append(out, "\\\"", 2); break;
        case '\\': text_append(out, "\\\\", 2); break;
        case '\n': text_append(out, "\\n", 2); break;
        case '\r': text_append(out, "\\r", 2); break;
        case '\t': text_append(out, "\\t", 2); break;
        default: text_printf(out, "\\u%04x", c); break;
        }
    }
    text_append(out, text + start, len - start);
    text_append(out, "\"", 1);
}

/* null, bool, int, number: their JSON text is their `str` text. */
static void scalar_to_json(TextBuffer *out, Value v)
{
    char text[ORBC_SCALAR_TEXT_SIZE];
    text_append(out, text, orbc_scalar_text(text, value_to_orbc(v)));
}

void value_to_json(TextBuffer *out, Value v)
{
    switch (v.kind) {
    case ORBC_KIND_STRING:
        value_json_quote(out, v.s->text, v.s->len);
        break;
    case ORBC_KIND_DURATION:
        text_printf(out, "%" PRId64, v.i);
        break;
    case ORBC_KIND_NUMBER:
        if (!isfinite(v.n))
            text_append_str(out, "null");
        else
            scalar_to_json(out, v);
        break;
    case ORBC_KIND_LIST:
        text_append(out, "[", 1);
        for (uint32_t i = 0; i < v.list->count; i++) {
            if (i)
                text_append(out, ",", 1);
            value_to_json(out, v.list->items[i]);
        }
        text_append(out, "]", 1);
        break;
    case ORBC_KIND_RECORD:
        text_append(out, "{", 1);
        for (uint32_t i = 0; i < v.rec->count; i++) {
            if (i)
                text_append(out, ",", 1);
            value_json_quote(out, v.rec->names[i]->text, v.rec->names[i]->len);
            text_append(out, ":", 1);
            value_to_json(out, v.rec->values[i]);
        }
        text_append(out, "}", 1);
        break;
    default:
        scalar_to_json(out, v);
        break;
    }
}
