/* Scenario loading: jansson parses the file (with line:column errors), then every part
 * is checked against the module (json_read.h, the checks shared with simulation models)
 * and turned into the structs of scenario.h. Names are looked up through hash maps, so a
 * large scenario or module costs linear time. */
#include "scenario.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_read.h"
#include "namemap.h"

typedef struct Parser {
    JsonRead r;
    Scenario *out;
    NameMap qualified;      /* "workflow.step" -> step index (workflow in qualified_wf) */
    uint32_t *qualified_wf;
    uint32_t *qualified_step;
    bool qualified_ready;
} Parser;

bool scenario_load_value(const char *path, const char *bytes, size_t len, Arena *arena, Value *out,
                     char *err, size_t errlen)
{
    json_t *root = json_read_parse(path, bytes, len, err, errlen);
    if (!root)
        return false;
    *out = json_read_value(arena, root);
    json_decref(root);
    return true;
}

/* ---- outcomes ---- */

static const char *const outcome_keys[] = {
    "after_ms", "pickup_ms", "times", "succeed", "fail", "never_answers", "lost_after_ms",
    "status", "body", "headers", "network_error",
};
static const char *const kind_keys[] = {
    "succeed", "fail", "never_answers", "lost_after_ms", "status", "network_error",
};
/* A child-workflow step's outcome: the child answers `after_ms` after its start. */
static const char *const child_outcome_keys[] = {
    "after_ms", "times", "succeed", "fail", "never_answers",
};
static const char *const fail_keys[] = {"code", "message", "retryable"};

static bool parse_fail(Parser *p, const char *where, json_t *fail, Outcome *o)
{
    if (!json_read_object(&p->r, where, fail) ||
        !json_read_check_keys(&p->r, where, fail, fail_keys, sizeof fail_keys / sizeof fail_keys[0]))
        return false;
    json_t *code = json_object_get(fail, "code");
    if (!code)
        return json_read_problem(&p->r, where, "missing `code`");
    if (!json_read_text(&p->r, json_read_where_key(&p->r, where, "code"), code, &o->code))
        return false;
    if (!*o->code)
        return json_read_problem(&p->r, json_read_where_key(&p->r, where, "code"), "the error code is empty");
    o->message = "";
    o->retryable = true;
    json_t *message = json_object_get(fail, "message");
    if (message && !json_read_text(&p->r, json_read_where_key(&p->r, where, "message"), message, &o->message))
        return false;
    json_t *retryable = json_object_get(fail, "retryable");
    return !retryable || json_read_bool(&p->r, json_read_where_key(&p->r, where, "retryable"), retryable, &o->retryable);
}

static Value http_response(Parser *p, int64_t status, json_t *headers, json_t *body)
{
    Record *r = value_record_new(p->r.a, 3);
    r->names[0] = value_str_new(p->r.a, "status", 6);
    r->values[0] = value_int(status);
    r->names[1] = value_str_new(p->r.a, "headers", 7);
    if (headers) {
        r->values[1] = json_read_value(p->r.a, headers);
    } else {
        r->values[1].kind = ORBC_KIND_RECORD;
        r->values[1].rec = value_record_new(p->r.a, 0);
        value_record_seal(p->r.a, r->values[1].rec);
    }
    r->names[2] = value_str_new(p->r.a, "body", 4);
    r->values[2] = body ? json_read_value(p->r.a, body) : value_null();
    value_record_seal(p->r.a, r);
    Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
    return v;
}

static bool parse_http(Parser *p, const char *where, json_t *entry, bool builtin, Outcome *o)
{
    if (!builtin)
        return json_read_problem(&p->r, where, "`status` and `network_error` script the built-in "
                       "`orbit.http.request`; a worker answers with `succeed` or `fail`");
    json_t *status = json_object_get(entry, "status");
    if (!status) {
        o->kind = OUT_NETWORK_ERROR;
        return json_read_text(&p->r, json_read_where_key(&p->r, where, "network_error"),
                          json_object_get(entry, "network_error"), &o->message);
    }
    o->kind = OUT_HTTP_RESPONSE;
    if (!json_is_integer(status) || json_integer_value(status) < 100 ||
        json_integer_value(status) > 599)
        return json_read_problem(&p->r, json_read_where_key(&p->r, where, "status"), "expected an HTTP status from 100 to 599");
    o->status = json_integer_value(status);
    json_t *headers = json_object_get(entry, "headers");
    if (headers && !json_is_object(headers))
        return json_read_problem(&p->r, json_read_where_key(&p->r, where, "headers"), "expected an object");
    o->output = http_response(p, o->status, headers, json_object_get(entry, "body"));
    return true;
}

static bool parse_outcome(Parser *p, const char *where, json_t *entry, bool builtin, Outcome *o)
{
    if (!json_read_object(&p->r, where, entry) ||
        !json_read_check_keys(&p->r, where, entry, outcome_keys, sizeof outcome_keys / sizeof outcome_keys[0]))
        return false;
    const char *kind = NULL;
    for (size_t i = 0; i < sizeof kind_keys / sizeof kind_keys[0]; i++) {
        if (!json_object_get(entry, kind_keys[i]))
            continue;
        if (kind)
            return json_read_problem(&p->r, where, "`%s` and `%s` cannot be combined", kind, kind_keys[i]);
        kind = kind_keys[i];
    }
    if (!kind)
        return json_read_problem(&p->r, where, "expected one of `succeed`, `fail`, `never_answers`, "
                       "`lost_after_ms`, `status`, `network_error`");
    o->pickup_ms = -1;
    o->times = 1;
    json_t *times = json_object_get(entry, "times");
    if (times && (!json_is_integer(times) || json_integer_value(times) < 1 ||
                  json_integer_value(times) > UINT32_MAX))
        return json_read_problem(&p->r, json_read_where_key(&p->r, where, "times"),
                                 "expected how many times the outcome is handed out (an integer "
                                 "from 1 to %" PRIu32 ")", UINT32_MAX);
    if (times)
        o->times = (uint32_t)json_integer_value(times);
    json_t *pickup = json_object_get(entry, "pickup_ms");
    if (pickup && !json_read_ms(&p->r, json_read_where_key(&p->r, where, "pickup_ms"), pickup, &o->pickup_ms))
        return false;
    json_t *after = json_object_get(entry, "after_ms");
    if (after && !json_read_ms(&p->r, json_read_where_key(&p->r, where, "after_ms"), after, &o->after_ms))
        return false;
    if ((json_object_get(entry, "body") || json_object_get(entry, "headers")) &&
        strcmp(kind, "status") != 0)
        return json_read_problem(&p->r, where, "`body` and `headers` belong to a `status` response");
    if (strcmp(kind, "succeed") == 0) {
        o->kind = OUT_SUCCEED;
        o->output = json_read_value(p->r.a, json_object_get(entry, "succeed"));
        return true;
    }
    if (strcmp(kind, "fail") == 0) {
        o->kind = OUT_FAIL;
        return parse_fail(p, json_read_where_key(&p->r, where, "fail"), json_object_get(entry, "fail"), o);
    }
    if (strcmp(kind, "never_answers") == 0 || strcmp(kind, "lost_after_ms") == 0) {
        if (after)
            return json_read_problem(&p->r, where, "`after_ms` has no meaning with `%s`", kind);
        if (kind[0] == 'n') {
            o->kind = OUT_NEVER;
            json_t *flag = json_object_get(entry, kind);
            if (!json_is_true(flag))
                return json_read_problem(&p->r, json_read_where_key(&p->r, where, kind), "expected true");
            return true;
        }
        o->kind = OUT_LOST;
        return json_read_ms(&p->r, json_read_where_key(&p->r, where, kind), json_object_get(entry, kind), &o->after_ms);
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

/* `child`: the outcomes of a child-workflow step, which have fewer keys. */
static bool parse_outcomes(Parser *p, const char *where, json_t *list, bool builtin, bool child,
                           Script *s)
{
    if (!json_is_array(list))
        return json_read_problem(&p->r, where, "expected a list of outcomes");
    s->has_outcomes = true;
    s->count = (uint32_t)json_array_size(list);
    s->outcomes = arena_alloc(p->r.a, sizeof(Outcome) * (s->count + 1));
    for (uint32_t i = 0; i < s->count; i++) {
        const char *at = json_read_where_index(&p->r, where, i);
        json_t *entry = json_array_get(list, i);
        if (child && json_is_object(entry) &&
            !json_read_check_keys(&p->r, at, entry, child_outcome_keys,
                                  sizeof child_outcome_keys / sizeof child_outcome_keys[0]))
            return false;
        if (!parse_outcome(p, at, entry, builtin, &s->outcomes[i]))
            return false;
    }
    return true;
}

/* A worker, task, step or compensate entry. `compensate` is the compensate block's task
 * (ORBC_NONE when the entry may not have one). */
static Script *parse_script(Parser *p, const char *where, json_t *entry, uint32_t task,
                            uint32_t compensate_task)
{
    bool builtin = task < p->r.m->task_count && p->r.m->tasks[task].kind == ORBC_TASK_BUILTIN;
    size_t key_count = sizeof script_keys / sizeof script_keys[0];
    if (compensate_task == ORBC_NONE)
        key_count--;
    if (!json_read_object(&p->r, where, entry) || !json_read_check_keys(&p->r, where, entry, script_keys, key_count))
        return NULL;
    Script *s = arena_alloc(p->r.a, sizeof *s);
    s->pickup_ms = -1;
    s->no_worker = -1;
    json_t *id = json_object_get(entry, "worker_id");
    json_t *no_worker = json_object_get(entry, "no_worker");
    if (builtin && (id || no_worker)) {
        json_read_problem(&p->r, where, "`%s` is a built-in task, run by the runtime itself (worker_id "
                "orbit-runtime); to make it fail use `\"http_adapter\": false`",
                json_read_string(p->r.m, p->r.m->tasks[task].name));
        return NULL;
    }
    if (id) {
        if (!json_read_text(&p->r, json_read_where_key(&p->r, where, "worker_id"), id, &s->worker_id))
            return NULL;
        if (!valid_worker_id(s->worker_id)) {
            json_read_problem(&p->r, json_read_where_key(&p->r, where, "worker_id"), "a worker id must be non-empty, "
                    "without spaces or control characters");
            return NULL;
        }
    }
    json_t *pickup = json_object_get(entry, "pickup_ms");
    if (pickup && !json_read_ms(&p->r, json_read_where_key(&p->r, where, "pickup_ms"), pickup, &s->pickup_ms))
        return NULL;
    bool flag = false;
    if (no_worker) {
        if (!json_read_bool(&p->r, json_read_where_key(&p->r, where, "no_worker"), no_worker, &flag))
            return NULL;
        s->no_worker = flag;
    }
    json_t *attempts = json_object_get(entry, "attempts");
    if (attempts &&
        !parse_outcomes(p, json_read_where_key(&p->r, where, "attempts"), attempts, builtin, false, s))
        return NULL;
    json_t *comp = json_object_get(entry, "compensate");
    if (comp) {
        s->compensate = parse_script(p, json_read_where_key(&p->r, where, "compensate"), comp,
                                     compensate_task, ORBC_NONE);
        if (!s->compensate)
            return NULL;
    }
    return s;
}

/* A child-workflow step's entry: only `attempts`, each start of the child takes the next. */
static Script *parse_child_script(Parser *p, const char *where, json_t *entry)
{
    static const char *const keys[] = {"attempts"};
    if (!json_read_object(&p->r, where, entry) || !json_read_check_keys(&p->r, where, entry, keys, 1))
        return NULL;
    Script *s = arena_alloc(p->r.a, sizeof *s);
    s->pickup_ms = -1;
    s->no_worker = -1;
    json_t *attempts = json_object_get(entry, "attempts");
    if (attempts &&
        !parse_outcomes(p, json_read_where_key(&p->r, where, "attempts"), attempts, false, true, s))
        return NULL;
    return s;
}

const Outcome *script_next(Script *script)
{
    if (!script || script->next >= script->count)
        return NULL;
    const Outcome *o = &script->outcomes[script->next];
    if (++script->used >= o->times) {
        script->next++;
        script->used = 0;
    }
    return o;
}

/* ---- workers ---- */

static bool parse_workers(Parser *p, json_t *workers)
{
    if (!json_read_object(&p->r, "workers", workers))
        return false;
    const char *name;
    json_t *entry;
    json_object_foreach(workers, name, entry) {
        const char *where = json_read_where_name(&p->r, "workers", name);
        uint32_t task;
        if (!json_read_task(&p->r, "workers", name, &task))
            return false;
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
    for (uint32_t w = 0; w < p->r.m->workflow_count; w++)
        total += p->r.m->workflows[w].step_count;
    namemap_init_text(&p->qualified, p->r.a, total);
    p->qualified_wf = arena_alloc(p->r.a, sizeof(uint32_t) * (total + 1));
    p->qualified_step = arena_alloc(p->r.a, sizeof(uint32_t) * (total + 1));
    uint32_t at = 0;
    for (uint32_t w = 0; w < p->r.m->workflow_count; w++) {
        const OrbcWorkflow *wf = &p->r.m->workflows[w];
        for (uint32_t s = 0; s < wf->step_count; s++) {
            p->qualified_wf[at] = w;
            p->qualified_step[at] = s;
            json_read_map_put(&p->qualified, p->r.a, arena_printf(p->r.a, "%s.%s", json_read_string(p->r.m, wf->name),
                                                json_read_string(p->r.m, wf->steps[s].name)), at);
            at++;
        }
    }
    p->qualified_ready = true;
}

static const char **step_candidates(Parser *p, size_t *count)
{
    const OrbcWorkflow *run = &p->r.m->workflows[p->r.workflow];
    size_t total = run->step_count;
    for (uint32_t w = 0; w < p->r.m->workflow_count; w++)
        total += p->r.m->workflows[w].step_count;
    const char **names = arena_alloc(p->r.a, sizeof(char *) * (total + 1));
    size_t at = 0;
    for (uint32_t s = 0; s < run->step_count; s++)
        names[at++] = json_read_string(p->r.m, run->steps[s].name);
    for (uint32_t w = 0; w < p->r.m->workflow_count; w++)
        for (uint32_t s = 0; s < p->r.m->workflows[w].step_count; s++)
            names[at++] = arena_printf(p->r.a, "%s.%s", json_read_string(p->r.m, p->r.m->workflows[w].name),
                                       json_read_string(p->r.m, p->r.m->workflows[w].steps[s].name));
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
        const char *full = arena_printf(p->r.a, "%s.%s",
                                        json_read_string(p->r.m, p->r.m->workflows[p->r.workflow].name), key);
        if (!json_read_map_get(&p->qualified, full, &at))
            return false;
    } else if (!json_read_map_get(&p->qualified, key, &at)) {
        return false;
    }
    *wf = p->qualified_wf[at];
    *step = p->qualified_step[at];
    return true;
}

static bool parse_steps(Parser *p, json_t *steps)
{
    if (!json_read_object(&p->r, "steps", steps))
        return false;
    const char *key;
    json_t *entry;
    json_object_foreach(steps, key, entry) {
        uint32_t w, s;
        if (!find_step(p, key, &w, &s)) {
            size_t count;
            const char **names = step_candidates(p, &count);
            return json_read_unknown_name(&p->r, "steps", "step", key, names, count);
        }
        const OrbcStep *step = &p->r.m->workflows[w].steps[s];
        const char *where = json_read_where_name(&p->r, "steps", key);
        if (step->kind != ORBC_STEP_WORKER && step->kind != ORBC_STEP_BUILTIN &&
            step->kind != ORBC_STEP_WORKFLOW)
            return json_read_problem(&p->r, where, "`%s` is a %s step; only task and child-workflow "
                                     "steps have scripted outcomes", key, step_kind_name(step->kind));
        uint32_t step_count = p->r.m->workflows[w].step_count;
        if (!p->out->step_scripts[w])
            p->out->step_scripts[w] = arena_alloc(p->r.a, sizeof(Script *) * (step_count + 1));
        if (step->kind == ORBC_STEP_WORKFLOW) {
            Script *script = parse_child_script(p, where, entry);
            if (!script)
                return false;
            p->out->step_scripts[w][s] = script;
            if (!p->out->host_children[w])
                p->out->host_children[w] = arena_alloc(p->r.a, step_count + 1);
            p->out->host_children[w][s] = 1;
            continue;
        }
        uint32_t comp = step->has_compensate ? step->compensate.task : ORBC_NONE;
        if (!step->has_compensate && json_is_object(entry) && json_object_get(entry, "compensate"))
            return json_read_problem(&p->r, where, "step `%s` has no compensate block", key);
        Script *script = parse_script(p, where, entry, step->target, comp);
        if (!script)
            return false;
        p->out->step_scripts[w][s] = script;
    }
    return true;
}

/* ---- signals ---- */

static const char *const signal_keys[] = {"name", "at_ms", "payload"};

static bool parse_signals(Parser *p, json_t *list)
{
    if (!json_is_array(list))
        return json_read_problem(&p->r, "signals", "expected a list of signals");
    Scenario *out = p->out;
    out->signal_count = (uint32_t)json_array_size(list);
    out->signals = arena_alloc(p->r.a, sizeof(Signal) * (out->signal_count + 1));
    for (uint32_t i = 0; i < out->signal_count; i++) {
        const char *where = json_read_where_index(&p->r, "signals", i);
        json_t *entry = json_array_get(list, i);
        Signal *sig = &out->signals[i];
        if (!json_read_object(&p->r, where, entry) ||
            !json_read_check_keys(&p->r, where, entry, signal_keys, sizeof signal_keys / sizeof signal_keys[0]))
            return false;
        json_t *name = json_object_get(entry, "name");
        json_t *at = json_object_get(entry, "at_ms");
        if (!name || !at)
            return json_read_problem(&p->r, where, "a signal needs `name` and `at_ms`");
        if (!json_read_text(&p->r, json_read_where_key(&p->r, where, "name"), name, &sig->name) ||
            !json_read_ms(&p->r, json_read_where_key(&p->r, where, "at_ms"), at, &sig->at_ms))
            return false;
        if (!json_read_signal(&p->r, json_read_where_key(&p->r, where, "name"), sig->name,
                          &sig->name_string))
            return false;
        json_t *payload = json_object_get(entry, "payload");
        sig->payload = payload ? json_read_value(p->r.a, payload) : value_null();
    }
    return true;
}

/* ---- the whole file ---- */

static const char *const top_keys[] = {
    "workflow", "input", "http_adapter", "workers", "steps", "signals", "max_events",
};

/* "max_events": an integer from 1 (a history has at least WorkflowStarted) up to what
 * the history's `seq` counts. */
static bool parse_max_events(Parser *p, json_t *value)
{
    if (!json_is_integer(value) || json_integer_value(value) < 1 ||
        json_integer_value(value) > UINT32_MAX)
        return json_read_problem(&p->r, "max_events", "expected a number of events (an integer from 1 "
                             "to %" PRIu32 ")", UINT32_MAX);
    p->out->max_events = (uint32_t)json_integer_value(value);
    return true;
}

static bool parse_root(Parser *p, json_t *root, const char *workflow)
{
    if (!json_is_object(root))
        return json_read_problem(&p->r, NULL, "expected a JSON object");
    if (!json_read_check_keys(&p->r, NULL, root, top_keys, sizeof top_keys / sizeof top_keys[0]))
        return false;
    if (!json_read_workflow(&p->r, workflow, root))
        return false;
    Scenario *out = p->out;
    out->workflow = p->r.workflow;
    out->http_adapter = true;
    json_t *adapter = json_object_get(root, "http_adapter");
    if (adapter && !json_read_bool(&p->r, "http_adapter", adapter, &out->http_adapter))
        return false;
    out->input = json_read_input(&p->r, root);
    json_t *max_events = json_object_get(root, "max_events");
    if (max_events && !parse_max_events(p, max_events))
        return false;
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
    Parser p = {.out = out};
    json_read_init(&p.r, module, arena, path, err, errlen);
    out->task_scripts = arena_alloc(arena, sizeof(Script *) * (module->task_count + 1));
    out->step_scripts = arena_alloc(arena, sizeof(Script **) * (module->workflow_count + 1));
    out->host_children = arena_alloc(arena, sizeof(uint8_t *) * (module->workflow_count + 1));
    json_t *root = json_read_parse(path, bytes, len, err, errlen);
    if (!root)
        return false;
    bool ok = parse_root(&p, root, workflow);
    json_decref(root);
    return ok;
}
