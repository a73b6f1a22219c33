/* Scenario loading: jansson parses the file (with line:column errors), then every part
 * is checked against the module and turned into the structs of scenario.h. Names are
 * looked up through hash maps, so a large scenario or module costs linear time. */
#include "scenario.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "namemap.h"
#include "suggest.h"

static const int64_t MAX_MS = 1000000000000000LL;  /* about 31 700 years: time sums stay in range */

/* ---- maps of names to indices (text maps: keys compare by their bytes) ---- */

/* Adds a NUL-terminated name (the first of equal names wins). */
static void map_put(NameMap *map, Arena *a, const char *key, uint32_t value)
{
    namemap_add(map, a, key, orbc_hash(key, strlen(key)), value);
}

static bool map_get(const NameMap *map, const char *key, uint32_t *value)
{
    return namemap_get(map, key, orbc_hash(key, strlen(key)), value);
}

/* ---- the parser ---- */

typedef struct Parser {
    const OrbcModule *m;
    Arena *a;
    const char *path;
    char *err;
    size_t errlen;
    Scenario *out;
    NameMap tasks;          /* task name -> task index */
    NameMap signals;        /* awaited signal name -> string index */
    NameMap qualified;      /* "workflow.step" -> step index (workflow in qualified_wf) */
    uint32_t *qualified_wf;
    uint32_t *qualified_step;
    bool qualified_ready;
} Parser;

__attribute__((format(printf, 3, 4)))
static bool problem(Parser *p, const char *where, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s: %s%s", p->path, where ? where : "",
                     where ? ": " : "");
    if (n < 0 || (size_t)n >= p->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool unknown_name(Parser *p, const char *where, const char *what, const char *name,
                         const char *const *candidates, size_t count)
{
    const char *close = suggest_name(name, strlen(name), candidates, count);
    if (close)
        return problem(p, where, "unknown %s `%s` (did you mean `%s`?)", what, name, close);
    return problem(p, where, "unknown %s `%s`", what, name);
}

static const char *mstring(const OrbcModule *m, uint32_t index)
{
    return index < m->string_count ? m->strings[index].text : "";
}

static const char *where_key(Parser *p, const char *where, const char *key)
{
    return where ? arena_printf(p->a, "%s.%s", where, key) : key;
}

static const char *where_name(Parser *p, const char *where, const char *name)
{
    return arena_printf(p->a, "%s[\"%s\"]", where, name);
}

static const char *where_index(Parser *p, const char *where, size_t i)
{
    return arena_printf(p->a, "%s[%zu]", where, i);
}

/* Every key of `object` must be one of `keys`. */
static bool check_keys(Parser *p, const char *where, json_t *object, const char *const *keys,
                       size_t count)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        bool known = false;
        for (size_t i = 0; i < count && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known)
            return unknown_name(p, where, "key", key, keys, count);
    }
    return true;
}

static bool need_object(Parser *p, const char *where, json_t *value)
{
    return json_is_object(value) || problem(p, where, "expected an object");
}

static bool get_ms(Parser *p, const char *where, json_t *value, int64_t *out)
{
    if (!json_is_integer(value) || json_integer_value(value) < 0 ||
        json_integer_value(value) > MAX_MS)
        return problem(p, where, "expected a number of milliseconds (an integer from 0 to %lld)",
                       (long long)MAX_MS);
    *out = json_integer_value(value);
    return true;
}

static bool get_bool(Parser *p, const char *where, json_t *value, bool *out)
{
    if (!json_is_boolean(value))
        return problem(p, where, "expected true or false");
    *out = json_is_true(value);
    return true;
}

static bool get_string(Parser *p, const char *where, json_t *value, const char **out)
{
    if (!json_is_string(value))
        return problem(p, where, "expected a string");
    *out = arena_strndup(p->a, json_string_value(value), json_string_length(value));
    return true;
}

/* ---- JSON values ---- */

static Value to_value(Arena *a, json_t *json)
{
    switch (json_typeof(json)) {
    case JSON_TRUE: return value_bool(true);
    case JSON_FALSE: return value_bool(false);
    case JSON_INTEGER: return value_int(json_integer_value(json));
    case JSON_REAL: return value_number(json_real_value(json));
    case JSON_STRING: return value_string(a, json_string_value(json), json_string_length(json));
    case JSON_ARRAY: {
        List *l = list_new(a, (uint32_t)json_array_size(json));
        for (size_t i = 0; i < json_array_size(json); i++)
            l->items[i] = to_value(a, json_array_get(json, i));
        list_seal(a, l);
        Value v = {.kind = ORBC_KIND_LIST, .list = l};
        return v;
    }
    case JSON_OBJECT: {
        Record *r = record_new(a, (uint32_t)json_object_size(json));
        const char *key;
        json_t *item;
        uint32_t i = 0;
        json_object_foreach(json, key, item) {
            r->names[i] = str_new(a, key, strlen(key));
            r->values[i++] = to_value(a, item);
        }
        record_seal(a, r);
        Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
        return v;
    }
    default: return value_null();
    }
}

static json_t *parse_json(const char *path, const char *bytes, size_t len, char *err,
                          size_t errlen)
{
    json_error_t error;
    json_t *root = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &error);
    if (!root)
        snprintf(err, errlen, "%s:%d:%d: %s", path, error.line < 0 ? 1 : error.line,
                 error.column < 0 ? 1 : error.column, error.text);
    return root;
}

bool scenario_load_value(const char *path, const char *bytes, size_t len, Arena *arena, Value *out,
                     char *err, size_t errlen)
{
    json_t *root = parse_json(path, bytes, len, err, errlen);
    if (!root)
        return false;
    *out = to_value(arena, root);
    json_decref(root);
    return true;
}

/* ---- outcomes ---- */

static const char *const outcome_keys[] = {
    "after_ms", "pickup_ms", "succeed", "fail", "never_answers", "lost_after_ms",
    "status", "body", "headers", "network_error",
};
static const char *const kind_keys[] = {
    "succeed", "fail", "never_answers", "lost_after_ms", "status", "network_error",
};
static const char *const fail_keys[] = {"code", "message", "retryable"};

static bool parse_fail(Parser *p, const char *where, json_t *fail, Outcome *o)
{
    if (!need_object(p, where, fail) ||
        !check_keys(p, where, fail, fail_keys, sizeof fail_keys / sizeof fail_keys[0]))
        return false;
    json_t *code = json_object_get(fail, "code");
    if (!code)
        return problem(p, where, "missing `code`");
    if (!get_string(p, where_key(p, where, "code"), code, &o->code))
        return false;
    if (!*o->code)
        return problem(p, where_key(p, where, "code"), "the error code is empty");
    o->message = "";
    o->retryable = true;
    json_t *message = json_object_get(fail, "message");
    if (message && !get_string(p, where_key(p, where, "message"), message, &o->message))
        return false;
    json_t *retryable = json_object_get(fail, "retryable");
    return !retryable || get_bool(p, where_key(p, where, "retryable"), retryable, &o->retryable);
}

static Value http_response(Parser *p, int64_t status, json_t *headers, json_t *body)
{
    Record *r = record_new(p->a, 3);
    r->names[0] = str_new(p->a, "status", 6);
    r->values[0] = value_int(status);
    r->names[1] = str_new(p->a, "headers", 7);
    if (headers) {
        r->values[1] = to_value(p->a, headers);
    } else {
        r->values[1].kind = ORBC_KIND_RECORD;
        r->values[1].rec = record_new(p->a, 0);
        record_seal(p->a, r->values[1].rec);
    }
    r->names[2] = str_new(p->a, "body", 4);
    r->values[2] = body ? to_value(p->a, body) : value_null();
    record_seal(p->a, r);
    Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
    return v;
}

static bool parse_http(Parser *p, const char *where, json_t *entry, bool builtin, Outcome *o)
{
    if (!builtin)
        return problem(p, where, "`status` and `network_error` script the built-in "
                       "`orbit.http.request`; a worker answers with `succeed` or `fail`");
    json_t *status = json_object_get(entry, "status");
    if (!status) {
        o->kind = OUT_NETWORK_ERROR;
        return get_string(p, where_key(p, where, "network_error"),
                          json_object_get(entry, "network_error"), &o->message);
    }
    o->kind = OUT_HTTP_RESPONSE;
    if (!json_is_integer(status) || json_integer_value(status) < 100 ||
        json_integer_value(status) > 599)
        return problem(p, where_key(p, where, "status"), "expected an HTTP status from 100 to 599");
    o->status = json_integer_value(status);
    json_t *headers = json_object_get(entry, "headers");
    if (headers && !json_is_object(headers))
        return problem(p, where_key(p, where, "headers"), "expected an object");
    o->output = http_response(p, o->status, headers, json_object_get(entry, "body"));
    return true;
}

static bool parse_outcome(Parser *p, const char *where, json_t *entry, bool builtin, Outcome *o)
{
    if (!need_object(p, where, entry) ||
        !check_keys(p, where, entry, outcome_keys, sizeof outcome_keys / sizeof outcome_keys[0]))
        return false;
    const char *kind = NULL;
    for (size_t i = 0; i < sizeof kind_keys / sizeof kind_keys[0]; i++) {
        if (!json_object_get(entry, kind_keys[i]))
            continue;
        if (kind)
            return problem(p, where, "`%s` and `%s` cannot be combined", kind, kind_keys[i]);
        kind = kind_keys[i];
    }
    if (!kind)
        return problem(p, where, "expected one of `succeed`, `fail`, `never_answers`, "
                       "`lost_after_ms`, `status`, `network_error`");
    o->pickup_ms = -1;
    json_t *pickup = json_object_get(entry, "pickup_ms");
    if (pickup && !get_ms(p, where_key(p, where, "pickup_ms"), pickup, &o->pickup_ms))
        return false;
    json_t *after = json_object_get(entry, "after_ms");
    if (after && !get_ms(p, where_key(p, where, "after_ms"), after, &o->after_ms))
        return false;
    if ((json_object_get(entry, "body") || json_object_get(entry, "headers")) &&
        strcmp(kind, "status") != 0)
        return problem(p, where, "`body` and `headers` belong to a `status` response");
    if (strcmp(kind, "succeed") == 0) {
        o->kind = OUT_SUCCEED;
        o->output = to_value(p->a, json_object_get(entry, "succeed"));
        return true;
    }
    if (strcmp(kind, "fail") == 0) {
        o->kind = OUT_FAIL;
        return parse_fail(p, where_key(p, where, "fail"), json_object_get(entry, "fail"), o);
    }
    if (strcmp(kind, "never_answers") == 0 || strcmp(kind, "lost_after_ms") == 0) {
        if (after)
            return problem(p, where, "`after_ms` has no meaning with `%s`", kind);
        if (kind[0] == 'n') {
            o->kind = OUT_NEVER;
            json_t *flag = json_object_get(entry, kind);
            if (!json_is_true(flag))
                return problem(p, where_key(p, where, kind), "expected true");
            return true;
        }
        o->kind = OUT_LOST;
        return get_ms(p, where_key(p, where, kind), json_object_get(entry, kind), &o->after_ms);
    }
    return parse_http(p, where, entry, builtin, o);
}

/* ---- scripts ---- */

static const char *const script_keys[] = {
    "worker_id", "pickup_ms", "no_worker", "attempts", "compensate",
};

static bool valid_worker_id(const char *id)
{
    if (!*id)
        return false;
    for (const char *c = id; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            return false;
    return true;
}

static bool parse_outcomes(Parser *p, const char *where, json_t *list, bool builtin, Script *s)
{
    if (!json_is_array(list))
        return problem(p, where, "expected a list of outcomes");
    s->has_outcomes = true;
    s->count = (uint32_t)json_array_size(list);
    s->outcomes = arena_alloc(p->a, sizeof(Outcome) * (s->count + 1));
    for (uint32_t i = 0; i < s->count; i++)
        if (!parse_outcome(p, where_index(p, where, i), json_array_get(list, i), builtin,
                           &s->outcomes[i]))
            return false;
    return true;
}

/* A worker, task, step or compensate entry. `compensate` is the compensate block's task
 * (ORBC_NONE when the entry may not have one). */
static Script *parse_script(Parser *p, const char *where, json_t *entry, uint32_t task,
                            uint32_t compensate_task)
{
    bool builtin = task < p->m->task_count && p->m->tasks[task].kind == ORBC_TASK_BUILTIN;
    size_t key_count = sizeof script_keys / sizeof script_keys[0];
    if (compensate_task == ORBC_NONE)
        key_count--;
    if (!need_object(p, where, entry) || !check_keys(p, where, entry, script_keys, key_count))
        return NULL;
    Script *s = arena_alloc(p->a, sizeof *s);
    s->pickup_ms = -1;
    s->no_worker = -1;
    json_t *id = json_object_get(entry, "worker_id");
    json_t *no_worker = json_object_get(entry, "no_worker");
    if (builtin && (id || no_worker)) {
        problem(p, where, "`%s` is a built-in task, run by the runtime itself (worker_id "
                "orbit-runtime); to make it fail use `\"http_adapter\": false`",
                mstring(p->m, p->m->tasks[task].name));
        return NULL;
    }
    if (id) {
        if (!get_string(p, where_key(p, where, "worker_id"), id, &s->worker_id))
            return NULL;
        if (!valid_worker_id(s->worker_id)) {
            problem(p, where_key(p, where, "worker_id"), "a worker id must be non-empty, "
                    "without spaces or control characters");
            return NULL;
        }
    }
    json_t *pickup = json_object_get(entry, "pickup_ms");
    if (pickup && !get_ms(p, where_key(p, where, "pickup_ms"), pickup, &s->pickup_ms))
        return NULL;
    bool flag = false;
    if (no_worker) {
        if (!get_bool(p, where_key(p, where, "no_worker"), no_worker, &flag))
            return NULL;
        s->no_worker = flag;
    }
    json_t *attempts = json_object_get(entry, "attempts");
    if (attempts && !parse_outcomes(p, where_key(p, where, "attempts"), attempts, builtin, s))
        return NULL;
    json_t *comp = json_object_get(entry, "compensate");
    if (comp) {
        s->compensate = parse_script(p, where_key(p, where, "compensate"), comp,
                                     compensate_task, ORBC_NONE);
        if (!s->compensate)
            return NULL;
    }
    return s;
}

const Outcome *script_next(Script *script)
{
    if (!script || script->next >= script->count)
        return NULL;
    return &script->outcomes[script->next++];
}

/* ---- workers ---- */

static const char **task_names(Parser *p)
{
    const char **names = arena_alloc(p->a, sizeof(char *) * (p->m->task_count + 1));
    for (uint32_t i = 0; i < p->m->task_count; i++)
        names[i] = mstring(p->m, p->m->tasks[i].name);
    return names;
}

static bool parse_workers(Parser *p, json_t *workers)
{
    if (!need_object(p, "workers", workers))
        return false;
    const char *name;
    json_t *entry;
    json_object_foreach(workers, name, entry) {
        const char *where = where_name(p, "workers", name);
        uint32_t task;
        if (!map_get(&p->tasks, name, &task))
            return unknown_name(p, "workers", "worker or built-in task", name,
                                task_names(p), p->m->task_count);
        p->out->task_scripts[task] = parse_script(p, where, entry, task, ORBC_NONE);
        if (!p->out->task_scripts[task])
            return false;
    }
    return true;
}

/* ---- steps ---- */

static const char *step_kind_name(uint8_t kind)
{
    static const char *const names[] = {
        "task", "task", "workflow", "sleep", "await", "compute",
    };
    return kind <= ORBC_STEP_COMPUTE ? names[kind] : "?";
}

static void build_qualified(Parser *p)
{
    uint32_t total = 0;
    for (uint32_t w = 0; w < p->m->workflow_count; w++)
        total += p->m->workflows[w].step_count;
    namemap_init_text(&p->qualified, p->a, total);
    p->qualified_wf = arena_alloc(p->a, sizeof(uint32_t) * (total + 1));
    p->qualified_step = arena_alloc(p->a, sizeof(uint32_t) * (total + 1));
    uint32_t at = 0;
    for (uint32_t w = 0; w < p->m->workflow_count; w++) {
        const OrbcWorkflow *wf = &p->m->workflows[w];
        for (uint32_t s = 0; s < wf->step_count; s++) {
            p->qualified_wf[at] = w;
            p->qualified_step[at] = s;
            map_put(&p->qualified, p->a, arena_printf(p->a, "%s.%s", mstring(p->m, wf->name),
                                                mstring(p->m, wf->steps[s].name)), at);
            at++;
        }
    }
    p->qualified_ready = true;
}

static const char **step_candidates(Parser *p, size_t *count)
{
    const OrbcWorkflow *run = &p->m->workflows[p->out->workflow];
    size_t total = run->step_count;
    for (uint32_t w = 0; w < p->m->workflow_count; w++)
        total += p->m->workflows[w].step_count;
    const char **names = arena_alloc(p->a, sizeof(char *) * (total + 1));
    size_t at = 0;
    for (uint32_t s = 0; s < run->step_count; s++)
        names[at++] = mstring(p->m, run->steps[s].name);
    for (uint32_t w = 0; w < p->m->workflow_count; w++)
        for (uint32_t s = 0; s < p->m->workflows[w].step_count; s++)
            names[at++] = arena_printf(p->a, "%s.%s", mstring(p->m, p->m->workflows[w].name),
                                       mstring(p->m, p->m->workflows[w].steps[s].name));
    *count = at;
    return names;
}

/* Finds a step by "name" (in the workflow being run) or "workflow.name". */
static bool find_step(Parser *p, const char *key, uint32_t *wf, uint32_t *step)
{
    if (!p->qualified_ready)
        build_qualified(p);
    uint32_t at;
    if (!strchr(key, '.')) {
        const char *full = arena_printf(p->a, "%s.%s",
                                        mstring(p->m, p->m->workflows[p->out->workflow].name), key);
        if (!map_get(&p->qualified, full, &at))
            return false;
    } else if (!map_get(&p->qualified, key, &at)) {
        return false;
    }
    *wf = p->qualified_wf[at];
    *step = p->qualified_step[at];
    return true;
}

static bool parse_steps(Parser *p, json_t *steps)
{
    if (!need_object(p, "steps", steps))
        return false;
    const char *key;
    json_t *entry;
    json_object_foreach(steps, key, entry) {
        uint32_t w, s;
        if (!find_step(p, key, &w, &s)) {
            size_t count;
            const char **names = step_candidates(p, &count);
            return unknown_name(p, "steps", "step", key, names, count);
        }
        const OrbcStep *step = &p->m->workflows[w].steps[s];
        const char *where = where_name(p, "steps", key);
        if (step->kind != ORBC_STEP_WORKER && step->kind != ORBC_STEP_BUILTIN)
            return problem(p, where, "`%s` is a %s step; only task steps have scripted outcomes",
                           key, step_kind_name(step->kind));
        if (!p->out->step_scripts[w]) {
            p->out->step_scripts[w] =
                arena_alloc(p->a, sizeof(Script *) * (p->m->workflows[w].step_count + 1));
        }
        uint32_t comp = step->has_compensate ? step->compensate.task : ORBC_NONE;
        if (!step->has_compensate && json_is_object(entry) && json_object_get(entry, "compensate"))
            return problem(p, where, "step `%s` has no compensate block", key);
        Script *script = parse_script(p, where, entry, step->target, comp);
        if (!script)
            return false;
        p->out->step_scripts[w][s] = script;
    }
    return true;
}

/* ---- signals ---- */

static const char *const signal_keys[] = {"name", "at_ms", "payload"};

static void collect_signals(Parser *p)
{
    uint32_t total = 0;
    for (uint32_t w = 0; w < p->m->workflow_count; w++)
        total += p->m->workflows[w].step_count;
    namemap_init_text(&p->signals, p->a, total);
    for (uint32_t w = 0; w < p->m->workflow_count; w++)
        for (uint32_t s = 0; s < p->m->workflows[w].step_count; s++) {
            const OrbcStep *step = &p->m->workflows[w].steps[s];
            if (step->kind == ORBC_STEP_AWAIT)
                map_put(&p->signals, p->a, mstring(p->m, step->target), step->target);
        }
}

static bool unknown_signal(Parser *p, const char *where, const char *name)
{
    const char **names = arena_alloc(p->a, sizeof(char *) * (p->signals.mask + 2));
    size_t count = 0;
    for (uint32_t i = 0; p->signals.slots && i <= p->signals.mask; i++)
        if (p->signals.slots[i].text)
            names[count++] = p->signals.slots[i].text;
    if (count == 0)
        return problem(p, where, "unknown signal `%s`: no step of the program awaits a signal",
                       name);
    return unknown_name(p, where, "signal", name, names, count);
}

static bool parse_signals(Parser *p, json_t *list)
{
    if (!json_is_array(list))
        return problem(p, "signals", "expected a list of signals");
    collect_signals(p);
    Scenario *out = p->out;
    out->signal_count = (uint32_t)json_array_size(list);
    out->signals = arena_alloc(p->a, sizeof(Signal) * (out->signal_count + 1));
    for (uint32_t i = 0; i < out->signal_count; i++) {
        const char *where = where_index(p, "signals", i);
        json_t *entry = json_array_get(list, i);
        Signal *sig = &out->signals[i];
        if (!need_object(p, where, entry) ||
            !check_keys(p, where, entry, signal_keys, sizeof signal_keys / sizeof signal_keys[0]))
            return false;
        json_t *name = json_object_get(entry, "name");
        json_t *at = json_object_get(entry, "at_ms");
        if (!name || !at)
            return problem(p, where, "a signal needs `name` and `at_ms`");
        if (!get_string(p, where_key(p, where, "name"), name, &sig->name) ||
            !get_ms(p, where_key(p, where, "at_ms"), at, &sig->at_ms))
            return false;
        if (!map_get(&p->signals, sig->name, &sig->name_string))
            return unknown_signal(p, where_key(p, where, "name"), sig->name);
        json_t *payload = json_object_get(entry, "payload");
        sig->payload = payload ? to_value(p->a, payload) : value_null();
    }
    return true;
}

/* ---- the whole file ---- */

static const char *const top_keys[] = {
    "workflow", "input", "http_adapter", "workers", "steps", "signals",
};

static bool choose_workflow(Parser *p, const char *name, json_t *root)
{
    const OrbcModule *m = p->m;
    json_t *given = json_object_get(root, "workflow");
    if (!name && given) {
        if (!json_is_string(given))
            return problem(p, "workflow", "expected a string");
        name = json_string_value(given);
    }
    if (!name) {
        if (m->workflow_count == 1) {
            p->out->workflow = 0;
            return true;
        }
        TextBuffer names = {0};
        for (uint32_t w = 0; w < m->workflow_count && w < 10; w++)
            text_printf(&names, "%s`%s`", w ? ", " : "", mstring(m, m->workflows[w].name));
        if (m->workflow_count > 10)
            text_append_str(&names, ", …");
        snprintf(p->err, p->errlen, "the program has %" PRIu32 " workflows; choose one with "
                 "--workflow NAME (%s)", m->workflow_count, names.data ? names.data : "");
        text_free(&names);
        return false;
    }
    const char **names = arena_alloc(p->a, sizeof(char *) * (m->workflow_count + 1));
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        names[w] = mstring(m, m->workflows[w].name);
        if (strcmp(names[w], name) == 0) {
            p->out->workflow = w;
            return true;
        }
    }
    const char *close = suggest_name(name, strlen(name), names, m->workflow_count);
    if (close)
        snprintf(p->err, p->errlen, "unknown workflow `%s` (did you mean `%s`?)", name, close);
    else
        snprintf(p->err, p->errlen, "unknown workflow `%s`", name);
    return false;
}

static bool parse_root(Parser *p, json_t *root, const char *workflow)
{
    if (!json_is_object(root))
        return problem(p, NULL, "expected a JSON object");
    if (!check_keys(p, NULL, root, top_keys, sizeof top_keys / sizeof top_keys[0]))
        return false;
    if (!choose_workflow(p, workflow, root))
        return false;
    Scenario *out = p->out;
    out->http_adapter = true;
    json_t *adapter = json_object_get(root, "http_adapter");
    if (adapter && !get_bool(p, "http_adapter", adapter, &out->http_adapter))
        return false;
    json_t *input = json_object_get(root, "input");
    if (input) {
        out->input = to_value(p->a, input);
    } else {
        out->input.kind = ORBC_KIND_RECORD;
        out->input.rec = record_new(p->a, 0);
        record_seal(p->a, out->input.rec);
    }
    json_t *workers = json_object_get(root, "workers");
    if (workers && !parse_workers(p, workers))
        return false;
    json_t *steps = json_object_get(root, "steps");
    if (steps && !parse_steps(p, steps))
        return false;
    json_t *signals = json_object_get(root, "signals");
    return !signals || parse_signals(p, signals);
}

bool scenario_load(const char *path, const char *bytes, size_t len, const OrbcModule *module,
                   const char *workflow, Arena *arena, Scenario *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (module->workflow_count == 0) {
        snprintf(err, errlen, "the program has no workflow");
        return false;
    }
    Parser p = {.m = module, .a = arena, .path = path, .err = err, .errlen = errlen, .out = out};
    out->task_scripts = arena_alloc(arena, sizeof(Script *) * (module->task_count + 1));
    out->step_scripts = arena_alloc(arena, sizeof(Script **) * (module->workflow_count + 1));
    namemap_init_text(&p.tasks, arena, module->task_count);
    for (uint32_t i = 0; i < module->task_count; i++)
        map_put(&p.tasks, arena, mstring(module, module->tasks[i].name), i);
    json_t *root = parse_json(path, bytes, len, err, errlen);
    if (!root)
        return false;
    bool ok = parse_root(&p, root, workflow);
    json_decref(root);
    return ok;
}
