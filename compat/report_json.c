/* compat: the report as one JSON object (docs/compat.schema.json), and the entry of the
 * WebAssembly build: two .orbc files' bytes in, that JSON out. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "memory.h"

static json_t *loc_json(const CompatLoc *l)
{
    if (!l->file)
        return json_null();
    return json_pack("{s:s, s:I, s:I}", "file", l->file, "line", (json_int_t)l->line,
                     "column", (json_int_t)l->column);
}

static json_t *change_json(const CompatChange *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "rule", json_string(compat_rule_info(c->rule)->name));
    json_object_set_new(o, "level", json_string(compat_level_name(c->level)));
    json_object_set_new(o, "kind", json_string(compat_kind_name(c->kind)));
    json_object_set_new(o, "workflow", c->workflow ? json_string(c->workflow) : json_null());
    json_object_set_new(o, "message", json_string(c->message));
    json_object_set_new(o, "old", loc_json(&c->old));
    json_object_set_new(o, "new", loc_json(&c->new));
    return o;
}

static json_t *place_json(const CompatPlace *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(p->id));
    json_object_set_new(o, "workflow", json_string(p->workflow));
    json_object_set_new(o, "step", json_string(p->step));
    json_object_set_new(o, "state", json_string(compat_state_name(p->state)));
    json_object_set_new(o, "attempt", p->attempt ? json_integer(p->attempt) : json_null());
    json_object_set_new(o, "continue", json_boolean(p->can_continue));
    json_t *changes = json_array();
    for (uint32_t k = 0; k < p->change_count; k++)
        json_array_append_new(changes, json_integer(p->changes[k]));
    json_object_set_new(o, "changes", changes);
    return o;
}

static json_t *report_json(const CompatReport *r, const char *old_label, const char *new_label)
{
    json_t *o = json_object();
    json_object_set_new(o, "old", json_pack("{s:s}", "label", old_label));
    json_object_set_new(o, "new", json_pack("{s:s}", "label", new_label));
    json_t *changes = json_array(), *places = json_array();
    for (uint32_t i = 0; i < r->change_count; i++)
        json_array_append_new(changes, change_json(&r->changes[i]));
    for (uint32_t i = 0; i < r->place_count; i++)
        json_array_append_new(places, place_json(&r->places[i]));
    json_object_set_new(o, "changes", changes);
    json_object_set_new(o, "places", places);
    json_object_set_new(o, "summary",
                        json_pack("{s:I, s:I, s:I, s:I, s:I}", "errors", (json_int_t)r->errors,
                                  "warnings", (json_int_t)r->warnings, "infos",
                                  (json_int_t)r->infos, "places", (json_int_t)r->place_count,
                                  "places_blocked", (json_int_t)r->places_blocked));
    return o;
}

static int append(const char *text, size_t len, void *out)
{
    text_append(out, text, len);
    return 0;
}

void compat_write_json(const CompatReport *r, const char *old_label, const char *new_label,
                       TextBuffer *out)
{
    json_t *o = report_json(r, old_label, new_label);
    json_dump_callback(o, append, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    text_append_str(out, "\n");
    json_decref(o);
}

static char *error_json(const char *side, const char *why)
{
    json_t *o = json_pack("{s:s, s:s}", "error", why, "side", side);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

char *compat_orbc_json(const uint8_t *old_bytes, uint32_t old_len, const uint8_t *new_bytes,
                       uint32_t new_len)
{
    OrbcModule old, new;
    OrbcError err;
    if (!orbc_load(old_bytes, old_len, &old, &err))
        return error_json("old", err.text);
    if (!orbc_load(new_bytes, new_len, &new, &err)) {
        orbc_module_free(&old);
        return error_json("new", err.text);
    }
    CompatReport r;
    compat_compare(&old, &new, NULL, &r);
    TextBuffer out = { 0 };
    compat_write_json(&r, "old", "new", &out);
    compat_report_free(&r);
    orbc_module_free(&old);
    orbc_module_free(&new);
    char *text = xstrdup(out.data ? out.data : "");
    text_free(&out);
    return text;
}
