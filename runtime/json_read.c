/* The runtime's JSON readers' shared checks (json_read.h). Names are looked up through
 * hash maps, so a large file or module costs linear time. */
#include "json_read.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suggest.h"
#include "textbuf.h"

/* ---- maps of names to indices (text maps: keys compare by their bytes) ---- */

void json_read_map_put(NameMap *map, Arena *a, const char *key, uint32_t value)
{
    namemap_add(map, a, key, orbc_hash(key, strlen(key)), value);
}

bool json_read_map_get(const NameMap *map, const char *key, uint32_t *value)
{
    return namemap_get(map, key, orbc_hash(key, strlen(key)), value);
}

void json_read_init(JsonRead *r, const OrbcModule *module, Arena *arena, const char *path, char *err,
                size_t errlen)
{
    *r = (JsonRead){.m = module, .a = arena, .path = path, .err = err, .errlen = errlen};
    namemap_init_text(&r->tasks, arena, module->task_count);
    for (uint32_t i = 0; i < module->task_count; i++)
        json_read_map_put(&r->tasks, arena, json_read_string(module, module->tasks[i].name), i);
}

json_t *json_read_parse(const char *path, const char *bytes, size_t len, char *err, size_t errlen)
{
    json_error_t error;
    json_t *root = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &error);
    if (!root)
        snprintf(err, errlen, "%s:%d:%d: %s", path, error.line < 0 ? 1 : error.line,
                 error.column < 0 ? 1 : error.column, error.text);
    return root;
}

bool json_read_problem(JsonRead *r, const char *where, const char *fmt, ...)
{
    int n = snprintf(r->err, r->errlen, "%s: %s%s", r->path, where ? where : "",
                     where ? ": " : "");
    if (n < 0 || (size_t)n >= r->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

bool json_read_unknown_name(JsonRead *r, const char *where, const char *what, const char *name,
                        const char *const *candidates, size_t count)
{
    const char *close = suggest_name(name, strlen(name), candidates, count);
    if (close)
        return json_read_problem(r, where, "unknown %s `%s` (did you mean `%s`?)", what, name, close);
    return json_read_problem(r, where, "unknown %s `%s`", what, name);
}

const char *json_read_string(const OrbcModule *m, uint32_t index)
{
    return index < m->string_count ? m->strings[index].text : "";
}

const char *json_read_where_key(JsonRead *r, const char *where, const char *key)
{
    return where ? arena_printf(r->a, "%s.%s", where, key) : key;
}

const char *json_read_where_name(JsonRead *r, const char *where, const char *name)
{
    return arena_printf(r->a, "%s[\"%s\"]", where, name);
}

const char *json_read_where_index(JsonRead *r, const char *where, size_t i)
{
    return arena_printf(r->a, "%s[%zu]", where, i);
}

bool json_read_check_keys(JsonRead *r, const char *where, json_t *object, const char *const *keys,
                      size_t count)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        bool known = false;
        for (size_t i = 0; i < count && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known)
            return json_read_unknown_name(r, where, "key", key, keys, count);
    }
    return true;
}

bool json_read_object(JsonRead *r, const char *where, json_t *value)
{
    return json_is_object(value) || json_read_problem(r, where, "expected an object");
}

bool json_read_ms(JsonRead *r, const char *where, json_t *value, int64_t *out)
{
    if (!json_is_integer(value) || json_integer_value(value) < 0 ||
        json_integer_value(value) > JREAD_MAX_MS)
        return json_read_problem(r, where, "expected a number of milliseconds (an integer from 0 "
                             "to %lld)", (long long)JREAD_MAX_MS);
    *out = json_integer_value(value);
    return true;
}

bool json_read_bool(JsonRead *r, const char *where, json_t *value, bool *out)
{
    if (!json_is_boolean(value))
        return json_read_problem(r, where, "expected true or false");
    *out = json_is_true(value);
    return true;
}

bool json_read_text(JsonRead *r, const char *where, json_t *value, const char **out)
{
    if (!json_is_string(value))
        return json_read_problem(r, where, "expected a string");
    *out = arena_strndup(r->a, json_string_value(value), json_string_length(value));
    return true;
}

Value json_read_value(Arena *a, json_t *json)
{
    switch (json_typeof(json)) {
    case JSON_TRUE: return value_bool(true);
    case JSON_FALSE: return value_bool(false);
    case JSON_INTEGER: return value_int(json_integer_value(json));
    case JSON_REAL: return value_number(json_real_value(json));
    case JSON_STRING: return value_string(a, json_string_value(json), json_string_length(json));
    case JSON_ARRAY: {
        List *l = value_list_new(a, (uint32_t)json_array_size(json));
        for (size_t i = 0; i < json_array_size(json); i++)
            l->items[i] = json_read_value(a, json_array_get(json, i));
        value_list_seal(a, l);
        Value v = {.kind = ORBC_KIND_LIST, .list = l};
        return v;
    }
    case JSON_OBJECT: {
        Record *rec = value_record_new(a, (uint32_t)json_object_size(json));
        const char *key;
        json_t *item;
        uint32_t i = 0;
        json_object_foreach(json, key, item) {
            rec->names[i] = value_str_new(a, key, strlen(key));
            rec->values[i++] = json_read_value(a, item);
        }
        value_record_seal(a, rec);
        Value v = {.kind = ORBC_KIND_RECORD, .rec = rec};
        return v;
    }
    default: return value_null();
    }
}

/* ---- tasks and signals ---- */

bool json_read_task(JsonRead *r, const char *where, const char *name, uint32_t *task)
{
    if (json_read_map_get(&r->tasks, name, task))
        return true;
    const char **names = arena_alloc(r->a, sizeof(char *) * (r->m->task_count + 1));
    for (uint32_t i = 0; i < r->m->task_count; i++)
        names[i] = json_read_string(r->m, r->m->tasks[i].name);
    return json_read_unknown_name(r, where, "worker or built-in task", name, names, r->m->task_count);
}

bool json_read_is_builtin(const JsonRead *r, uint32_t task)
{
    return task < r->m->task_count && r->m->tasks[task].kind == ORBC_TASK_BUILTIN;
}

static void collect_signals(JsonRead *r)
{
    uint32_t total = 0;
    for (uint32_t w = 0; w < r->m->workflow_count; w++)
        total += r->m->workflows[w].step_count;
    namemap_init_text(&r->signals, r->a, total);
    for (uint32_t w = 0; w < r->m->workflow_count; w++)
        for (uint32_t s = 0; s < r->m->workflows[w].step_count; s++) {
            const OrbcStep *step = &r->m->workflows[w].steps[s];
            if (step->kind == ORBC_STEP_AWAIT)
                json_read_map_put(&r->signals, r->a, json_read_string(r->m, step->target), step->target);
        }
    r->signals_ready = true;
}

bool json_read_signal(JsonRead *r, const char *where, const char *name, uint32_t *string)
{
    if (!r->signals_ready)
        collect_signals(r);
    if (json_read_map_get(&r->signals, name, string))
        return true;
    const char **names = arena_alloc(r->a, sizeof(char *) * (r->signals.mask + 2));
    size_t count = 0;
    for (uint32_t i = 0; r->signals.slots && i <= r->signals.mask; i++)
        if (r->signals.slots[i].text)
            names[count++] = r->signals.slots[i].text;
    if (count == 0)
        return json_read_problem(r, where, "unknown signal `%s`: no step of the program awaits a "
                             "signal", name);
    return json_read_unknown_name(r, where, "signal", name, names, count);
}

/* ---- the workflow and its input ---- */

bool json_read_workflow(JsonRead *r, const char *name, json_t *root)
{
    const OrbcModule *m = r->m;
    json_t *given = json_object_get(root, "workflow");
    if (!name && given) {
        if (!json_is_string(given))
            return json_read_problem(r, "workflow", "expected a string");
        name = json_string_value(given);
    }
    if (!name) {
        if (m->workflow_count == 1) {
            r->workflow = 0;
            return true;
        }
        TextBuffer names = {0};
        for (uint32_t w = 0; w < m->workflow_count && w < 10; w++)
            text_printf(&names, "%s`%s`", w ? ", " : "", json_read_string(m, m->workflows[w].name));
        if (m->workflow_count > 10)
            text_append_str(&names, ", …");
        snprintf(r->err, r->errlen, "the program has %" PRIu32 " workflows; choose one with "
                 "--workflow NAME (%s)", m->workflow_count, names.data ? names.data : "");
        text_free(&names);
        return false;
    }
    const char **names = arena_alloc(r->a, sizeof(char *) * (m->workflow_count + 1));
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        names[w] = json_read_string(m, m->workflows[w].name);
        if (strcmp(names[w], name) == 0) {
            r->workflow = w;
            return true;
        }
    }
    const char *close = suggest_name(name, strlen(name), names, m->workflow_count);
    if (close)
        snprintf(r->err, r->errlen, "unknown workflow `%s` (did you mean `%s`?)", name, close);
    else
        snprintf(r->err, r->errlen, "unknown workflow `%s`", name);
    return false;
}

Value json_read_input(JsonRead *r, json_t *root)
{
    json_t *input = json_object_get(root, "input");
    if (input)
        return json_read_value(r->a, input);
    Value v = {.kind = ORBC_KIND_RECORD, .rec = value_record_new(r->a, 0)};
    value_record_seal(r->a, v.rec);
    return v;
}
