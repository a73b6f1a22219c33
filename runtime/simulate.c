/* The Monte Carlo host (simulate.h). A job is one thread's share of the runs: its own
 * arena (reset after each run), the host's buffers, and its counts, added up at the end.
 * Every count is an integer and each run's duration is stored at its index, so the sums
 * do not depend on which thread made which run. */
#include "simulate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "memory.h"
#include "sim.h"

/* Runs a job takes at a time from the shared counter: enough that two threads seldom
 * write neighbouring slots of the durations and statuses (one cache line holds 64
 * statuses), few enough to share out the last runs evenly. */
enum { CHUNK = 256 };
enum { CACHE_LINE = 64 };

/* After this many deliveries of one attempt its worker is no longer lost (docs/runtime.md,
 * "Simulation"): a run always ends, even with a lost_rate close to 1. */
enum { MAX_LOST_DELIVERIES = 1000 };

enum { RUN_SCHEDULED = 1, RUN_GAVE_UP = 2, RUN_TIMED_OUT = 4 };

/* Aligned to a cache line, so that no two threads' jobs share one (their counts are
 * written at every run). */
typedef struct Job {
    _Alignas(CACHE_LINE) const OrbcModule *module;
    const Model *model;
    SimulateResult *out;
    atomic_uint_fast64_t *next_run;
    Arena arena;              /* one run's values, reset after it */
    Arena names;              /* step labels and error codes, kept */
    SimBuffers buffers;
    Signal *signals;          /* this run's arrivals */
    Rng rng;
    uint64_t run;
    uint32_t seq;             /* records of this run so far */
    char *label;              /* a label without its `for` indices */
    size_t label_cap;
    NameMap step_map;
    StepStats *steps;
    uint64_t *step_run;       /* the last run that touched each step, + 1 */
    uint8_t *step_flags;      /* what it did in that run */
    uint32_t step_count, step_cap;
    NameMap error_map;
    ErrorCount *errors;
    uint32_t error_count, error_cap;
    uint64_t outcomes[4];
} Job;

/* ---- the sampled world ---- */

static SimServe serve_sampled(void *ctx, const EngineCommand *queued)
{
    Job *job = ctx;
    uint32_t task = queued->task.task;
    const ModelWorker *w = &job->model->workers[task];
    bool builtin = job->module->tasks[task].kind == ORBC_TASK_BUILTIN;
    Outcome *o = arena_alloc(&job->arena, sizeof *o);
    double u = rng_unit(&job->rng);
    if (u < w->lost_rate && queued->delivery <= MAX_LOST_DELIVERIES) {
        o->kind = OUT_LOST;
    } else {
        /* not lost: u uniform on [0, 1 - lost_rate), the answers in their proportions */
        u = u < w->lost_rate ? u / w->lost_rate * (1 - w->lost_rate) : u - w->lost_rate;
        const Outcome *answer = &w->success;
        for (uint32_t i = 0; i < w->failure_count; i++) {
            if (u < w->failures[i].rate) {
                answer = &w->failures[i].answer;
                break;
            }
            u -= w->failures[i].rate;
        }
        *o = *answer;
    }
    o->after_ms = model_sample(&w->latency, &job->rng);
    SimServe serve = {.outcome = o, .worker_id = builtin ? "orbit-runtime" : "worker-1",
                      .no_worker = w->no_worker};
    if (!builtin)
        serve.pickup_ms = model_sample(&w->pickup, &job->rng);
    return serve;
}

/* Each signal arrives with its probability, at a sampled time (-1: never). */
static void sample_signals(Job *job)
{
    for (uint32_t i = 0; i < job->model->signal_count; i++) {
        const ModelSignal *s = &job->model->signals[i];
        job->signals[i] = s->signal;
        bool arrives = s->probability >= 1 || rng_unit(&job->rng) < s->probability;
        job->signals[i].at_ms = arrives ? model_sample(&s->after, &job->rng) : -1;
    }
}

/* ---- counting what the records say ---- */

static const EngineField *field(const EngineRecord *r, const char *key)
{
    for (uint32_t i = 0; i < r->field_count; i++)
        if (strcmp(r->fields[i].key, key) == 0)
            return &r->fields[i];
    return NULL;
}

/* "pack[2]/pick[0]" -> "pack/pick": one line per step of the program, not per element. */
static const char *plain_label(Job *job, const char *label)
{
    size_t len = strlen(label);
    if (len + 1 > job->label_cap) {
        job->label_cap = len + 64;
        job->label = xrealloc(job->label, job->label_cap);
    }
    size_t n = 0;
    int depth = 0;
    for (const char *c = label; *c; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']' && depth > 0)
            depth--;
        else if (depth == 0)
            job->label[n++] = *c;
    }
    job->label[n] = '\0';
    return job->label;
}

static uint32_t step_index(Job *job, const char *label)
{
    const char *name = plain_label(job, label);
    uint32_t index;
    if (json_read_map_get(&job->step_map, name, &index))
        return index;
    if (job->step_count == job->step_cap) {
        job->step_cap = job->step_cap ? job->step_cap * 2 : 16;
        job->steps = xrealloc(job->steps, job->step_cap * sizeof *job->steps);
        job->step_run = xrealloc(job->step_run, job->step_cap * sizeof *job->step_run);
        job->step_flags = xrealloc(job->step_flags, job->step_cap * sizeof *job->step_flags);
    }
    index = job->step_count++;
    name = arena_strndup(&job->names, name, strlen(name));
    job->steps[index] = (StepStats){.name = name, .first = job->run << 24 | job->seq};
    job->step_run[index] = 0;
    json_read_map_put(&job->step_map, &job->names, name, index);
    return index;
}

/* Marks what the step did in this run; each mark counts once per run. */
static StepStats *touch(Job *job, const EngineRecord *record, uint8_t flag)
{
    const EngineField *step = field(record, "step");
    if (!step || step->kind != ENGINE_FIELD_STR)
        return NULL;
    uint32_t i = step_index(job, step->text);
    if (job->step_run[i] != job->run + 1) {
        job->step_run[i] = job->run + 1;
        job->step_flags[i] = 0;
    }
    StepStats *s = &job->steps[i];
    if (!(job->step_flags[i] & flag)) {
        job->step_flags[i] |= flag;
        s->runs += flag == RUN_SCHEDULED;
        s->gave_up += flag == RUN_GAVE_UP;
        s->timed_out += flag == RUN_TIMED_OUT;
    }
    return s;
}

/* TIMEOUT, QUEUE_TIMEOUT or SIGNAL_TIMEOUT: a limit of the step passed. */
static bool is_timeout(const EngineRecord *record)
{
    const EngineField *error = field(record, "error");
    return error && error->kind == ENGINE_FIELD_ERROR &&
           (strcmp(error->text, "TIMEOUT") == 0 || strcmp(error->text, "QUEUE_TIMEOUT") == 0 ||
            strcmp(error->text, "SIGNAL_TIMEOUT") == 0);
}

static bool count_record(void *ctx, const EngineRecord *record)
{
    Job *job = ctx;
    const char *event = record->event;
    job->seq += job->seq < 0xFFFFFF;
    if (event[0] != 'S' && event[0] != 'R')
        return true;
    StepStats *s;
    if (strcmp(event, "StepScheduled") == 0) {
        if ((s = touch(job, record, RUN_SCHEDULED)))
            s->attempts++;
    } else if (strcmp(event, "RetryScheduled") == 0) {
        const EngineField *delay = field(record, "delay_ms");
        if ((s = touch(job, record, RUN_SCHEDULED)) && delay)
            s->backoff_ms += delay->number;
    } else if (strcmp(event, "StepAttemptFailed") == 0) {
        if (is_timeout(record))
            touch(job, record, RUN_TIMED_OUT);
    } else if (strcmp(event, "StepFailed") == 0) {
        touch(job, record, RUN_GAVE_UP);
        if (is_timeout(record))   /* an await's or a child workflow's timeout */
            touch(job, record, RUN_TIMED_OUT);
    }
    return true;
}

static void count_error(Job *job, const char *code)
{
    uint32_t index;
    if (!json_read_map_get(&job->error_map, code, &index)) {
        if (job->error_count == job->error_cap) {
            job->error_cap = job->error_cap ? job->error_cap * 2 : 8;
            job->errors = xrealloc(job->errors, job->error_cap * sizeof *job->errors);
        }
        index = job->error_count++;
        code = arena_strndup(&job->names, code, strlen(code));
        job->errors[index] = (ErrorCount){.code = code};
        json_read_map_put(&job->error_map, &job->names, code, index);
    }
    job->errors[index].runs++;
}

/* ---- the runs ---- */

static void one_run(Job *job, const SimWorld *world, uint64_t run)
{
    const Model *model = job->model;
    job->run = run;
    job->seq = 0;
    rng_seed(&job->rng, job->out->seed, run);
    sample_signals(job);
    int64_t end = 0;
    EngineResult r = sim_drive(job->module, model->workflow, model->input, world, &job->buffers,
                               &job->arena, &end);
    job->out->durations[run] = end;
    job->out->status[run] = (uint8_t)r.status;
    job->outcomes[r.status]++;
    if (r.status == ENGINE_FAILED)
        count_error(job, r.error ? r.error : "");
    arena_reset(&job->arena);
}

static void *run_job(void *arg)
{
    Job *job = arg;
    SimWorld world = {.ctx = job, .serve = serve_sampled, .record = count_record,
                      .signals = job->signals, .signal_count = job->model->signal_count,
                      .http_adapter = job->model->http_adapter};
    uint64_t runs = job->out->runs;
    for (;;) {
        uint64_t start = atomic_fetch_add(job->next_run, CHUNK);
        if (start >= runs)
            break;
        uint64_t end = start + CHUNK < runs ? start + CHUNK : runs;
        for (uint64_t run = start; run < end; run++)
            one_run(job, &world, run);
    }
    return NULL;
}

static void job_init(Job *job, const OrbcModule *module, const Model *model, SimulateResult *out,
                     atomic_uint_fast64_t *next_run)
{
    *job = (Job){.module = module, .model = model, .out = out, .next_run = next_run};
    arena_init(&job->arena);
    arena_init(&job->names);
    namemap_init_text(&job->step_map, &job->names, 16);
    namemap_init_text(&job->error_map, &job->names, 8);
    job->signals = xcalloc(model->signal_count + 1, sizeof *job->signals);
}

static void job_free(Job *job)
{
    arena_free(&job->arena);
    arena_free(&job->names);
    sim_buffers_free(&job->buffers);
    free(job->signals);
    free(job->label);
    free(job->steps);
    free(job->step_run);
    free(job->step_flags);
    free(job->errors);
}

/* ---- adding the jobs up ---- */

static int by_first(const void *a, const void *b)
{
    const StepStats *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

static int by_count(const void *a, const void *b)
{
    const ErrorCount *x = a, *y = b;
    if (x->runs != y->runs)
        return x->runs < y->runs ? 1 : -1;
    return strcmp(x->code, y->code);
}

static void merge_steps(SimulateResult *out, NameMap *map, uint32_t *cap, const Job *job)
{
    for (uint32_t i = 0; i < job->step_count; i++) {
        const StepStats *s = &job->steps[i];
        uint32_t at;
        if (!json_read_map_get(map, s->name, &at)) {
            if (out->step_count == *cap) {
                *cap = *cap ? *cap * 2 : 16;
                out->steps = xrealloc(out->steps, *cap * sizeof *out->steps);
            }
            at = out->step_count++;
            out->steps[at] = (StepStats){
                .name = arena_strndup(&out->arena, s->name, strlen(s->name)),
                .first = s->first};
            json_read_map_put(map, &out->arena, out->steps[at].name, at);
        }
        StepStats *t = &out->steps[at];
        t->first = s->first < t->first ? s->first : t->first;
        t->runs += s->runs;
        t->attempts += s->attempts;
        t->gave_up += s->gave_up;
        t->timed_out += s->timed_out;
        t->backoff_ms += s->backoff_ms;
    }
}

static void merge_errors(SimulateResult *out, NameMap *map, uint32_t *cap, const Job *job)
{
    for (uint32_t i = 0; i < job->error_count; i++) {
        const ErrorCount *e = &job->errors[i];
        uint32_t at;
        if (!json_read_map_get(map, e->code, &at)) {
            if (out->error_count == *cap) {
                *cap = *cap ? *cap * 2 : 8;
                out->errors = xrealloc(out->errors, *cap * sizeof *out->errors);
            }
            at = out->error_count++;
            out->errors[at] = (ErrorCount){
                .code = arena_strndup(&out->arena, e->code, strlen(e->code))};
            json_read_map_put(map, &out->arena, out->errors[at].code, at);
        }
        out->errors[at].runs += e->runs;
    }
}

static void merge(SimulateResult *out, const Job *jobs, unsigned count)
{
    NameMap steps, errors;
    namemap_init_text(&steps, &out->arena, 16);
    namemap_init_text(&errors, &out->arena, 8);
    uint32_t step_cap = 0, error_cap = 0;
    for (unsigned j = 0; j < count; j++) {
        for (int k = 0; k < 4; k++)
            out->outcomes[k] += jobs[j].outcomes[k];
        merge_steps(out, &steps, &step_cap, &jobs[j]);
        merge_errors(out, &errors, &error_cap, &jobs[j]);
    }
    if (out->step_count)
        qsort(out->steps, out->step_count, sizeof *out->steps, by_first);
    if (out->error_count)
        qsort(out->errors, out->error_count, sizeof *out->errors, by_count);
}

void simulate(const OrbcModule *module, const Model *model, uint64_t runs, uint64_t seed,
              unsigned jobs, SimulateResult *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    const OrbcWorkflow *wf = &module->workflows[model->workflow];
    out->workflow = json_read_string(module, wf->name);
    out->timeout_ms = wf->timeout_ms;
    out->runs = runs;
    out->seed = seed;
    out->durations = xcalloc(runs + 1, sizeof *out->durations);
    out->status = xcalloc(runs + 1, sizeof *out->status);
    if (jobs < 1)
        jobs = 1;
    if (jobs > runs / CHUNK + 1)
        jobs = (unsigned)(runs / CHUNK + 1);
    atomic_uint_fast64_t next_run = 0;
    Job *job = NULL;
    if (posix_memalign((void **)&job, CACHE_LINE, jobs * sizeof *job) != 0)
        out_of_memory();
    pthread_t *threads = xcalloc(jobs, sizeof *threads);
    for (unsigned j = 0; j < jobs; j++)
        job_init(&job[j], module, model, out, &next_run);
    unsigned started = 1;
    for (unsigned j = 1; j < jobs; j++)
        if (pthread_create(&threads[j], NULL, run_job, &job[j]) == 0)
            started = j + 1;
        else
            break;
    run_job(&job[0]);
    for (unsigned j = 1; j < started; j++)
        pthread_join(threads[j], NULL);
    merge(out, job, jobs);
    for (unsigned j = 0; j < jobs; j++)
        job_free(&job[j]);
    free(job);
    free(threads);
}

void simulate_result_free(SimulateResult *r)
{
    free(r->durations);
    free(r->status);
    free(r->steps);
    free(r->errors);
    arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}
