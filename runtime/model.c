/* Simulation models (model.h): parsed with jansson, each part checked against the module
 * through the checks scenarios use (json_read.h). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contract.h"
#include "json_read.h"

/* The z-score of the 99th percentile of the standard normal distribution. */
static const double Z99 = 2.3263478740408408;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- distributions ---- */

static const char *const dist_keys[] = {"min", "max", "p50", "p99"};

static bool positive_number(JsonRead *r, const char *where, json_t *value, double *out)
{
    if (!json_is_number(value) || json_number_value(value) <= 0 ||
        json_number_value(value) > (double)JREAD_MAX_MS)
        return json_read_problem(r, where, "expected a number of milliseconds greater than 0");
    *out = json_number_value(value);
    return true;
}

static bool parse_range(JsonRead *r, const char *where, json_t *object, Dist *d)
{
    json_t *min = json_object_get(object, "min"), *max = json_object_get(object, "max");
    if (!min || !max)
        return json_read_problem(r, where, "a uniform time needs both `min` and `max`");
    d->kind = DIST_UNIFORM;
    if (!json_read_ms(r, json_read_where_key(r, where, "min"), min, &d->min) ||
        !json_read_ms(r, json_read_where_key(r, where, "max"), max, &d->max))
        return false;
    if (d->min > d->max)
        return json_read_problem(r, where, "`min` (%lld) is greater than `max` (%lld)",
                             (long long)d->min, (long long)d->max);
    return true;
}

static bool parse_lognormal(JsonRead *r, const char *where, json_t *object, Dist *d)
{
    json_t *p50 = json_object_get(object, "p50"), *p99 = json_object_get(object, "p99");
    if (!p50 || !p99)
        return json_read_problem(r, where, "a log-normal time needs both `p50` and `p99`");
    double median, high;
    if (!positive_number(r, json_read_where_key(r, where, "p50"), p50, &median) ||
        !positive_number(r, json_read_where_key(r, where, "p99"), p99, &high))
        return false;
    if (median > high)
        return json_read_problem(r, where, "`p50` (%g) is greater than `p99` (%g)", median, high);
    d->kind = DIST_LOGNORMAL;
    d->mu = log(median);
    d->sigma = (log(high) - d->mu) / Z99;
    return true;
}

/* A fixed number of ms, {"min", "max"} or {"p50", "p99"}. */
static bool parse_dist(JsonRead *r, const char *where, json_t *value, Dist *d)
{
    memset(d, 0, sizeof *d);
    if (!json_is_object(value)) {
        if (!json_is_integer(value))
            return json_read_problem(r, where, "expected a number of milliseconds, {\"min\", \"max\"} "
                                 "or {\"p50\", \"p99\"}");
        d->kind = DIST_FIXED;
        return json_read_ms(r, where, value, &d->fixed);
    }
    if (!json_read_check_keys(r, where, value, dist_keys, COUNT(dist_keys)))
        return false;
    bool range = json_object_get(value, "min") || json_object_get(value, "max");
    bool quantiles = json_object_get(value, "p50") || json_object_get(value, "p99");
    if (range && quantiles)
        return json_read_problem(r, where, "`min`/`max` (uniform) and `p50`/`p99` (log-normal) "
                             "cannot be combined");
    if (!range && !quantiles)
        return json_read_problem(r, where, "expected {\"min\", \"max\"} or {\"p50\", \"p99\"}");
    return range ? parse_range(r, where, value, d) : parse_lognormal(r, where, value, d);
}

int64_t model_sample(const Dist *d, Rng *rng)
{
    switch (d->kind) {
    case DIST_FIXED:
        return d->fixed;
    case DIST_UNIFORM: {
        uint64_t span = (uint64_t)(d->max - d->min) + 1;
        return d->min + (int64_t)(rng_next(rng) % span);
    }
    default: {
        double ms = exp(d->mu + d->sigma * rng_normal(rng));
        return ms >= (double)JREAD_MAX_MS ? JREAD_MAX_MS : (int64_t)llround(ms);
    }
    }
}

/* ---- workers ---- */

static const char *const worker_keys[] = {
    "latency_ms", "pickup_ms", "failures", "lost_rate", "no_worker", "output",
};
static const char *const failure_keys[] = {"rate", "code", "message", "retryable"};
static const char *const http_failure_keys[] = {"rate", "status", "network_error"};

static bool parse_rate(JsonRead *r, const char *where, json_t *value, double *out)
{
    if (!json_is_number(value) || json_number_value(value) < 0 || json_number_value(value) > 1)
        return json_read_problem(r, where, "expected a probability from 0 to 1");
    *out = json_number_value(value);
    return true;
}

/* {"status": 200, "headers": {}, "body": null}, the output of an HTTP response. */
static Value http_output(Arena *a, int64_t status)
{
    Record *rec = value_record_new(a, 3);
    rec->names[0] = value_str_new(a, "status", 6);
    rec->values[0] = value_int(status);
    rec->names[1] = value_str_new(a, "headers", 7);
    rec->values[1].kind = ORBC_KIND_RECORD;
    rec->values[1].rec = value_record_new(a, 0);
    value_record_seal(a, rec->values[1].rec);
    rec->names[2] = value_str_new(a, "body", 4);
    rec->values[2] = value_null();
    value_record_seal(a, rec);
    return (Value){.kind = ORBC_KIND_RECORD, .rec = rec};
}

static bool parse_http_failure(JsonRead *r, const char *where, json_t *entry, Outcome *o)
{
    if (!json_read_check_keys(r, where, entry, http_failure_keys, COUNT(http_failure_keys)))
        return false;
    json_t *status = json_object_get(entry, "status");
    json_t *network = json_object_get(entry, "network_error");
    if (!status == !network)
        return json_read_problem(r, where, "an `orbit.http.request` failure has either `status` "
                             "(an HTTP status from 400 to 599) or `network_error`");
    if (network) {
        o->kind = OUT_NETWORK_ERROR;
        return json_read_text(r, json_read_where_key(r, where, "network_error"), network, &o->message);
    }
    if (!json_is_integer(status) || json_integer_value(status) < 400 ||
        json_integer_value(status) > 599)
        return json_read_problem(r, json_read_where_key(r, where, "status"),
                             "expected an HTTP status that fails, from 400 to 599");
    o->kind = OUT_HTTP_RESPONSE;
    o->status = json_integer_value(status);
    o->output = http_output(r->a, o->status);
    return true;
}

static bool parse_worker_failure(JsonRead *r, const char *where, json_t *entry, Outcome *o)
{
    if (!json_read_check_keys(r, where, entry, failure_keys, COUNT(failure_keys)))
        return false;
    json_t *code = json_object_get(entry, "code");
    if (!code)
        return json_read_problem(r, where, "missing `code`");
    if (!json_read_text(r, json_read_where_key(r, where, "code"), code, &o->code))
        return false;
    if (!*o->code)
        return json_read_problem(r, json_read_where_key(r, where, "code"), "the error code is empty");
    o->kind = OUT_FAIL;
    o->message = "";
    o->retryable = true;
    json_t *message = json_object_get(entry, "message");
    if (message && !json_read_text(r, json_read_where_key(r, where, "message"), message, &o->message))
        return false;
    json_t *retryable = json_object_get(entry, "retryable");
    return !retryable ||
           json_read_bool(r, json_read_where_key(r, where, "retryable"), retryable, &o->retryable);
}

static bool parse_failures(JsonRead *r, const char *where, json_t *list, bool builtin,
                           ModelWorker *w)
{
    if (!json_is_array(list))
        return json_read_problem(r, where, "expected a list of failures");
    w->failure_count = (uint32_t)json_array_size(list);
    w->failures = arena_alloc(r->a, sizeof(ModelFailure) * (w->failure_count + 1));
    for (uint32_t i = 0; i < w->failure_count; i++) {
        const char *at = json_read_where_index(r, where, i);
        json_t *entry = json_array_get(list, i);
        ModelFailure *f = &w->failures[i];
        if (!json_read_object(r, at, entry))
            return false;
        json_t *rate = json_object_get(entry, "rate");
        if (!rate)
            return json_read_problem(r, at, "missing `rate`");
        if (!parse_rate(r, json_read_where_key(r, at, "rate"), rate, &f->rate))
            return false;
        if (!(builtin ? parse_http_failure(r, at, entry, &f->answer)
                      : parse_worker_failure(r, at, entry, &f->answer)))
            return false;
    }
    return true;
}

/* The rates of one worker are the probabilities of exclusive answers: they sum to 1 at
 * most, the rest being the probability of success. */
static bool check_rates(JsonRead *r, const char *where, const ModelWorker *w)
{
    double sum = w->lost_rate;
    for (uint32_t i = 0; i < w->failure_count; i++)
        sum += w->failures[i].rate;
    if (w->lost_rate >= 1)
        return json_read_problem(r, json_read_where_key(r, where, "lost_rate"), "a worker lost at every "
                             "delivery never answers: use `\"no_worker\": true`");
    if (sum > 1 + 1e-9)
        return json_read_problem(r, where, "the rates of `failures` and `lost_rate` sum to %g, more "
                             "than 1 (each attempt has one answer)", sum);
    return true;
}

static bool parse_success(JsonRead *r, const char *where, json_t *output, uint32_t task,
                          ModelWorker *w)
{
    const OrbcModule *m = r->m;
    if (json_read_is_builtin(r, task)) {
        if (output)
            return json_read_problem(r, where, "`output` is for a worker; `orbit.http.request` "
                                 "answers {\"status\": 200, \"headers\": {}, \"body\": null}");
        w->success = (Outcome){.kind = OUT_HTTP_RESPONSE, .status = 200,
                               .output = http_output(r->a, 200)};
        return true;
    }
    w->success = (Outcome){.kind = OUT_SUCCEED, .pickup_ms = -1};
    uint32_t type = m->tasks[task].output_type;
    if (!output) {
        w->success.output = contract_default(m, r->a, type);
        return true;
    }
    char why[512];
    if (!contract_conform(m, r->a, type, json_read_value(r->a, output), &w->success.output, why,
                          sizeof why))
        return json_read_problem(r, where, "does not match the output contract of `%s`: %s",
                             json_read_string(m, m->tasks[task].name), why);
    return true;
}

static bool parse_worker(JsonRead *r, const char *where, json_t *entry, uint32_t task,
                         ModelWorker *w)
{
    bool builtin = json_read_is_builtin(r, task);
    if (!json_read_object(r, where, entry) ||
        !json_read_check_keys(r, where, entry, worker_keys, COUNT(worker_keys)))
        return false;
    if (builtin && (json_object_get(entry, "pickup_ms") || json_object_get(entry, "no_worker")))
        return json_read_problem(r, where, "`%s` is a built-in task, run by the runtime itself at "
                             "once: it has no `pickup_ms` or `no_worker` (to make it fail use "
                             "`\"http_adapter\": false` or `failures`)",
                             json_read_string(r->m, r->m->tasks[task].name));
    json_t *latency = json_object_get(entry, "latency_ms");
    json_t *pickup = json_object_get(entry, "pickup_ms");
    json_t *failures = json_object_get(entry, "failures");
    json_t *lost = json_object_get(entry, "lost_rate");
    json_t *no_worker = json_object_get(entry, "no_worker");
    if ((latency && !parse_dist(r, json_read_where_key(r, where, "latency_ms"), latency, &w->latency)) ||
        (pickup && !parse_dist(r, json_read_where_key(r, where, "pickup_ms"), pickup, &w->pickup)) ||
        (failures && !parse_failures(r, json_read_where_key(r, where, "failures"), failures, builtin,
                                     w)) ||
        (lost && !parse_rate(r, json_read_where_key(r, where, "lost_rate"), lost, &w->lost_rate)) ||
        (no_worker && !json_read_bool(r, json_read_where_key(r, where, "no_worker"), no_worker,
                                  &w->no_worker)))
        return false;
    return check_rates(r, where, w) &&
           parse_success(r, json_read_where_key(r, where, "output"), json_object_get(entry, "output"),
                         task, w);
}

enum { DEFAULT_LATENCY_MS = 10 };   /* orbit-run's default outcome (docs/runtime.md) */

static bool parse_workers(JsonRead *r, json_t *workers, Model *out)
{
    const OrbcModule *m = r->m;
    out->workers = arena_alloc(r->a, sizeof(ModelWorker) * (m->task_count + 1));
    for (uint32_t t = 0; t < m->task_count; t++) {
        out->workers[t].latency = (Dist){.kind = DIST_FIXED, .fixed = DEFAULT_LATENCY_MS};
        if (!parse_success(r, "workers", NULL, t, &out->workers[t]))
            return false;
    }
    if (!workers)
        return true;
    if (!json_read_object(r, "workers", workers))
        return false;
    const char *name;
    json_t *entry;
    json_object_foreach(workers, name, entry) {
        uint32_t task;
        if (!json_read_task(r, "workers", name, &task) ||
            !parse_worker(r, json_read_where_name(r, "workers", name), entry, task, &out->workers[task]))
            return false;
    }
    return true;
}

/* ---- signals ---- */

static const char *const signal_keys[] = {"probability", "after_ms", "payload"};

static bool parse_signals(JsonRead *r, json_t *signals, Model *out)
{
    if (!json_read_object(r, "signals", signals))
        return false;
    out->signal_count = (uint32_t)json_object_size(signals);
    out->signals = arena_alloc(r->a, sizeof(ModelSignal) * (out->signal_count + 1));
    const char *name;
    json_t *entry;
    uint32_t i = 0;
    json_object_foreach(signals, name, entry) {
        const char *where = json_read_where_name(r, "signals", name);
        ModelSignal *s = &out->signals[i++];
        if (!json_read_signal(r, "signals", name, &s->signal.name_string) ||
            !json_read_object(r, where, entry) ||
            !json_read_check_keys(r, where, entry, signal_keys, COUNT(signal_keys)))
            return false;
        s->signal.name = arena_strndup(r->a, name, strlen(name));
        s->probability = 1;
        json_t *probability = json_object_get(entry, "probability");
        json_t *after = json_object_get(entry, "after_ms");
        if (!after)
            return json_read_problem(r, where, "missing `after_ms` (when the signal arrives)");
        if ((probability &&
             !parse_rate(r, json_read_where_key(r, where, "probability"), probability,
                         &s->probability)) ||
            !parse_dist(r, json_read_where_key(r, where, "after_ms"), after, &s->after))
            return false;
        json_t *payload = json_object_get(entry, "payload");
        s->signal.payload = payload ? json_read_value(r->a, payload) : value_null();
    }
    return true;
}

/* ---- the whole file ---- */

static const char *const top_keys[] = {"workflow", "input", "http_adapter", "workers", "signals"};

static bool parse_root(JsonRead *r, json_t *root, const char *workflow, Model *out)
{
    if (!json_is_object(root))
        return json_read_problem(r, NULL, "expected a JSON object");
    if (!json_read_check_keys(r, NULL, root, top_keys, COUNT(top_keys)) ||
        !json_read_workflow(r, workflow, root))
        return false;
    out->workflow = r->workflow;
    out->http_adapter = true;
    json_t *adapter = json_object_get(root, "http_adapter");
    if (adapter && !json_read_bool(r, "http_adapter", adapter, &out->http_adapter))
        return false;
    const OrbcWorkflow *wf = &r->m->workflows[out->workflow];
    char why[512];
    if (!contract_conform(r->m, r->a, wf->input_type, json_read_input(r, root), &out->input, why,
                          sizeof why))
        return json_read_problem(r, "input", "does not match the input contract of workflow `%s`: %s",
                             json_read_string(r->m, wf->name), why);
    if (!parse_workers(r, json_object_get(root, "workers"), out))
        return false;
    json_t *signals = json_object_get(root, "signals");
    return !signals || parse_signals(r, signals, out);
}

bool model_load(const char *path, const char *bytes, size_t len, const OrbcModule *module,
                const char *workflow, Arena *arena, Model *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (module->workflow_count == 0) {
        snprintf(err, errlen, "the program has no workflow");
        return false;
    }
    JsonRead r;
    json_read_init(&r, module, arena, path, err, errlen);
    json_t *root = json_read_parse(path, bytes, len, err, errlen);
    if (!root)
        return false;
    bool ok = parse_root(&r, root, workflow, out);
    json_decref(root);
    return ok;
}
