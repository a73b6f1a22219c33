/* Contract checks of values against the module's types (docs/bytecode.md, 3.3). The
 * walk follows the value, whose depth is bounded (VALUE_MAX_DEPTH), so the recursion is
 * bounded too. Records are closed: missing required fields and unknown fields fail. */
#include "contract.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Check {
    const OrbcModule *m;
    Arena *a;
    TextBuffer path;
    char *err;
    size_t errlen;
} Check;

static const OrbcType *type_at(const OrbcModule *m, uint32_t type)
{
    static const OrbcType any = {.kind = ORBC_TYPE_ANY};
    return type < m->type_count ? &m->types[type] : &any;
}

static const char *string_at(const OrbcModule *m, uint32_t s)
{
    return s < m->string_count ? m->strings[s].text : "?";
}

static const char *type_name(const OrbcModule *m, const OrbcType *t)
{
    switch (t->kind) {
    case ORBC_TYPE_NULL: return "null";
    case ORBC_TYPE_BOOL: return "bool";
    case ORBC_TYPE_INT: return "int";
    case ORBC_TYPE_NUMBER: return "number";
    case ORBC_TYPE_STRING: return "string";
    case ORBC_TYPE_DURATION: return "duration";
    case ORBC_TYPE_LIST: return "list";
    case ORBC_TYPE_OPTIONAL: return type_name(m, type_at(m, t->elem));
    case ORBC_TYPE_RECORD: return t->name == ORBC_NONE ? "record" : string_at(m, t->name);
    default: return "any";
    }
}

static bool mismatch(Check *c, const OrbcType *t, Value v)
{
    if (c->path.len)
        snprintf(c->err, c->errlen, "expected %s at `%s`, found %s", type_name(c->m, t),
                 c->path.data, value_kind_name(v));
    else
        snprintf(c->err, c->errlen, "expected %s, found %s", type_name(c->m, t),
                 value_kind_name(v));
    return false;
}

static void path_push_field(Check *c, const char *name)
{
    if (c->path.len)
        text_append(&c->path, ".", 1);
    text_append_str(&c->path, name);
}

static void path_pop(Check *c, size_t len)
{
    c->path.len = len;
    if (c->path.data)
        c->path.data[len] = '\0';
}

static bool conform(Check *c, uint32_t type, Value v, Value *out);

static bool field_problem(Check *c, const char *what, const char *name)
{
    size_t mark = c->path.len;
    path_push_field(c, name);
    snprintf(c->err, c->errlen, "%s field `%s`", what, c->path.data);
    path_pop(c, mark);
    return false;
}

static bool conform_list(Check *c, const OrbcType *t, Value v, Value *out)
{
    List *copy = NULL;
    for (uint32_t i = 0; i < v.list->count; i++) {
        size_t mark = c->path.len;
        text_printf(&c->path, "[%" PRIu32 "]", i);
        Value item;
        bool ok = conform(c, t->elem, v.list->items[i], &item);
        path_pop(c, mark);
        if (!ok)
            return false;
        if (!copy && memcmp(&item, &v.list->items[i], sizeof item) != 0) {
            copy = value_list_new(c->a, v.list->count);
            memcpy(copy->items, v.list->items, sizeof(Value) * v.list->count);
        }
        if (copy)
            copy->items[i] = item;
    }
    if (copy) {
        value_list_seal(c->a, copy);
        out->list = copy;
    }
    return true;
}

static bool conform_record(Check *c, const OrbcType *t, Value v, Value *out)
{
    Record *r = v.rec;
    Record *copy = NULL;
    uint32_t matched = 0;
    bool *seen = arena_alloc(c->a, r->count + 1);
    for (uint32_t i = 0; i < t->field_count; i++) {
        const OrbcField *field = &t->fields[i];
        const char *name = string_at(c->m, field->name);
        size_t len = field->name < c->m->string_count ? c->m->strings[field->name].len : 1;
        int64_t at = value_record_find(r, name, len);
        if (at < 0) {
            if (field->optional)
                continue;
            return field_problem(c, "missing", name);
        }
        matched++;
        seen[at] = true;
        size_t mark = c->path.len;
        path_push_field(c, name);
        Value item;
        bool ok = conform(c, field->type, r->values[at], &item);
        path_pop(c, mark);
        if (!ok)
            return false;
        if (!copy && memcmp(&item, &r->values[at], sizeof item) != 0) {
            copy = value_record_new(c->a, r->count);
            memcpy(copy->names, r->names, sizeof(Str *) * r->count);
            memcpy(copy->values, r->values, sizeof(Value) * r->count);
        }
        if (copy)
            copy->values[at] = item;
    }
    if (matched < r->count) {
        /* Some field of the value is not in the contract: report the first one. */
        for (uint32_t i = 0; i < r->count; i++)
            if (!seen[i])
                return field_problem(c, "unexpected", r->names[i]->text);
    }
    if (copy) {
        value_record_seal(c->a, copy);
        out->rec = copy;
    }
    return true;
}

static bool conform(Check *c, uint32_t type, Value v, Value *out)
{
    const OrbcType *t = type_at(c->m, type);
    *out = v;
    switch (t->kind) {
    case ORBC_TYPE_ANY: return true;
    case ORBC_TYPE_NULL: return v.kind == ORBC_KIND_NULL || mismatch(c, t, v);
    case ORBC_TYPE_BOOL: return v.kind == ORBC_KIND_BOOL || mismatch(c, t, v);
    case ORBC_TYPE_INT: return v.kind == ORBC_KIND_INT || mismatch(c, t, v);
    case ORBC_TYPE_NUMBER:
        return v.kind == ORBC_KIND_INT || v.kind == ORBC_KIND_NUMBER || mismatch(c, t, v);
    case ORBC_TYPE_STRING: return v.kind == ORBC_KIND_STRING || mismatch(c, t, v);
    case ORBC_TYPE_DURATION:
        if (v.kind == ORBC_KIND_INT) {
            *out = value_duration(v.i);
            return true;
        }
        return v.kind == ORBC_KIND_DURATION || mismatch(c, t, v);
    case ORBC_TYPE_OPTIONAL:
        return v.kind == ORBC_KIND_NULL || conform(c, t->elem, v, out);
    case ORBC_TYPE_LIST:
        return v.kind == ORBC_KIND_LIST ? conform_list(c, t, v, out) : mismatch(c, t, v);
    case ORBC_TYPE_RECORD:
        return v.kind == ORBC_KIND_RECORD ? conform_record(c, t, v, out) : mismatch(c, t, v);
    default: return true;
    }
}

bool contract_conform(const OrbcModule *m, Arena *a, uint32_t type, Value v, Value *out,
                      char *err, size_t errlen)
{
    Check c = {.m = m, .a = a, .err = err, .errlen = errlen};
    bool ok = conform(&c, type, v, out);
    text_free(&c.path);
    return ok;
}

static Value default_of(const OrbcModule *m, Arena *a, uint32_t type, int depth)
{
    const OrbcType *t = type_at(m, type);
    /* Types nest as deep as a program writes them (the compiler has no limit below
     * values'), but a malformed module's may loop: stop where values stop, so that any
     * type a value can have gets its value, however deep. */
    if (depth >= VALUE_MAX_DEPTH)
        return value_null();
    switch (t->kind) {
    case ORBC_TYPE_BOOL: return value_bool(false);
    case ORBC_TYPE_INT: return value_int(0);
    case ORBC_TYPE_NUMBER: return value_int(0);
    case ORBC_TYPE_STRING: return value_cstring(a, "");
    case ORBC_TYPE_DURATION: return value_duration(0);
    case ORBC_TYPE_NULL:
    case ORBC_TYPE_OPTIONAL: return value_null();
    case ORBC_TYPE_LIST: {
        Value v = {.kind = ORBC_KIND_LIST, .list = value_list_new(a, 0)};
        value_list_seal(a, v.list);
        return v;
    }
    case ORBC_TYPE_RECORD: {
        uint32_t required = 0;
        for (uint32_t i = 0; i < t->field_count; i++)
            required += !t->fields[i].optional;
        Record *r = value_record_new(a, required);
        uint32_t at = 0;
        for (uint32_t i = 0; i < t->field_count; i++) {
            if (t->fields[i].optional)
                continue;
            uint32_t name = t->fields[i].name;
            r->names[at] = value_str_new(a, string_at(m, name),
                                   name < m->string_count ? m->strings[name].len : 1);
            r->values[at++] = default_of(m, a, t->fields[i].type, depth + 1);
        }
        value_record_seal(a, r);
        Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
        return v;
    }
    default: {
        Value v = {.kind = ORBC_KIND_RECORD, .rec = value_record_new(a, 0)};
        value_record_seal(a, v.rec);
        return v;
    }
    }
}

Value contract_default(const OrbcModule *m, Arena *a, uint32_t type)
{
    return default_of(m, a, type, 0);
}
