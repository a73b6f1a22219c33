/* The runner of `orbitc test` (runner.h). */
#include "runner.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lower.h"
#include "memory.h"
#include "orbc.h"
#include "run_scenario.h"
#include "scenario_of_test.h"
#include "worst_path.h"
#include "testing_internal.h"

enum { TESTING_MAX_THREADS = 256 };

/* One test to run: what it needs, and where its result goes. */
typedef struct Job {
    TestCase tc;
    const OrbcModule *module;
    uint32_t program;         /* the index of its program's root: its coverage */
    const char *const *timeout_unreachable;  /* per workflow of the program: why its
                                                timeout can never fire, or NULL */
    uint32_t workflow;        /* the index of tc.workflow in the program and the module */
    TestResult *result;
    uint32_t *positions;      /* of the failures, for their lines and columns */
    uint32_t problem_pos;     /* TEST_ERROR: where the problem lies, or UINT32_MAX */
} Job;

typedef struct Pool {
    Job *jobs;
    uint32_t count;
    _Atomic uint32_t next;
} Pool;

typedef struct Thread {
    Pool *pool;
    Arena *arena;
    Coverage **coverage;      /* --coverage: this thread's, per program root; else NULL */
} Thread;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The history of one run of `scenario` in `format`, malloc'd (*len bytes); *status is
 * run_scenario's. */
static char *run_history(const OrbcModule *module, const char *name, const char *scenario,
                         HistoryFormat format, int *status, size_t *len, char *err,
                         size_t errlen)
{
    RunRequest request = { .scenario_name = name, .scenario = scenario,
                           .scenario_len = strlen(scenario), .format = format };
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        out_of_memory();
    *status = run_scenario(module, &request, out, err, errlen);
    if (fclose(out) != 0)
        out_of_memory();
    return text;
}

/* How the workflow ended, in words: "completed", "failed CARD_DECLINED". */
static const char *outcome_of(Arena *arena, const TestHistory *h)
{
    if (strcmp(h->status, "failed") == 0 && h->error)
        return arena_printf(arena, "failed %s", h->error);
    return h->status;
}

/* The run's history, counted in this thread's coverage of the job's program. */
static void count_coverage(Thread *w, const Job *job, const char *json, size_t len)
{
    Coverage **c = &w->coverage[job->program];
    if (!*c) {
        *c = coverage_new(job->module, NULL);
        for (uint32_t i = 0; i < job->module->workflow_count; i++)
            if (job->timeout_unreachable[i])
                coverage_timeout_unreachable(*c, i, job->timeout_unreachable[i]);
    }
    coverage_add_run(*c, job->workflow, json, len);
}

static void run_job(Job *job, Thread *w)
{
    Arena *arena = w->arena;
    TestResult *r = job->result;
    if (!job->tc.workflow)
        return;   /* no workflow to run: said already */
    double start = now_seconds();
    TestingProblem problem = { "", UINT32_MAX };
    char *scenario = testing_scenario_of_test(job->tc.test, &problem);
    if (!scenario) {
        r->status = TEST_ERROR;
        r->message = arena_strndup(arena, problem.message, strlen(problem.message));
        job->problem_pos = problem.pos;
        r->seconds = now_seconds() - start;
        return;
    }
    /* Each run of a scenario gives the same history: once as JSON lines, which are read
       back, once as the `orbit logs` lines that expectations match and reports show. */
    char err[1024];
    const char *name = arena_printf(arena, "test \"%s\"", r->name);
    size_t json_len = 0, text_len = 0;
    int status, text_status;
    char *json = run_history(job->module, name, scenario, HISTORY_JSON, &status, &json_len,
                             err, sizeof err);
    char *text = status == 2 ? NULL
        : run_history(job->module, name, scenario, HISTORY_TEXT, &text_status, &text_len,
                      err, sizeof err);
    free(scenario);
    TestHistory h;
    if (status == 2) {
        r->status = TEST_ERROR;
        r->message = arena_printf(arena, "the runtime refused the test's world: %s", err);
    } else if (!testing_history_read(arena, json, json_len, text, text_len, &h)) {
        r->status = TEST_ERROR;
        r->message = "the runtime's history could not be read back";
    } else {
        r->history = h.text;
        r->outcome = outcome_of(arena, &h);
        r->virtual_ms = h.count ? h.events[h.count - 1].time_ms : 0;
        testing_judge(arena, &job->tc, &h, r, &job->positions);
        testing_history_free(&h);
        if (w->coverage)
            count_coverage(w, job, json, json_len);
    }
    free(json);
    free(text);
    r->seconds = now_seconds() - start;
}

static void *thread_main(void *arg)
{
    Thread *w = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&w->pool->next, 1);
        if (i >= w->pool->count)
            return NULL;
        run_job(&w->pool->jobs[i], w);
    }
}

void testing_place(const SourceMap *map, uint32_t pos, uint32_t *line, uint32_t *column)
{
    uint32_t file = source_file_at(map, pos);
    const SourceFile *f = source_file(map, file);
    uint32_t offset = pos - f->origin;
    uint32_t l = source_line_of(map, file, offset);
    uint32_t start = source_line_start(map, file, l);
    uint32_t chars = 0;
    for (uint32_t i = start; i < offset; i++)
        chars += ((unsigned char)f->text[i] & 0xC0) != 0x80;
    *line = l + 1;
    *column = chars + 1;
}

const Workflow *testing_workflow_of(Arena *arena, const Program *p, const Member *test,
                                   const char **why)
{
    const Block *b = member_body(test);
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        const Expr *name = member_value(m);
        if (m->kind != MEMBER_CLAUSE || m->keyword != KW_WORKFLOW || !name
            || name->kind != EXPR_NAME)
            continue;
        for (uint32_t w = 0; w < p->workflow_count; w++) {
            if (p->workflows[w].name == name->name)
                return &p->workflows[w];
        }
        *why = arena_printf(arena, "the program has no workflow `%s`", name->name->text);
        return NULL;
    }
    if (p->workflow_count == 1)
        return &p->workflows[0];
    *why = p->workflow_count ? "the program has several workflows: say which the test runs, "
                               "`workflow NAME`"
                             : "the program has no workflow to run";
    return NULL;
}

/* Per workflow of `p`, why its timeout can never fire, or NULL: its steps' worst case
 * (worst_path.c, the arithmetic of W0010) is bounded and not over the timeout. A limit
 * fires after what it limits at the same millisecond (docs/runtime.md, "Ties"), so a
 * worst case equal to the timeout does not reach it either. */
static const char *const *unreachable_timeouts(Arena *arena, const Program *p)
{
    const char **why = arena_alloc(arena, (p->workflow_count + 1) * sizeof *why);
    TextBuffer text = { 0 };
    for (uint32_t i = 0; i < p->workflow_count; i++) {
        const Workflow *wf = &p->workflows[i];
        const Worst *running = &wf->worst.running;
        if (wf->timeout_ms <= 0 || running->unbounded != UNBOUNDED_NONE
            || running->ms > wf->timeout_ms)
            continue;
        text.len = 0;
        text_append_str(&text, "its steps take at most ");
        worst_text(running, wf->name, &text);
        why[i] = arena_strndup(arena, text.data, text.len);
    }
    text_free(&text);
    return why;
}

/* The tests of program `root` that the filter keeps, as jobs over `module`. */
static void add_jobs(TestingRun *out, uint32_t program, const Root *root, const Program *p,
                     const OrbcModule *module, const TestingOptions *options,
                     const SourceMap *map, Job **jobs, uint32_t *count, uint32_t *capacity)
{
    const char *const *unreachable = options->coverage ? unreachable_timeouts(&out->arena, p)
                                                       : NULL;
    for (uint32_t i = 0; i < p->test_count; i++) {
        const Member *test = p->tests[i];
        if (options->filter && !strstr(test->name->text, options->filter))
            continue;
        if (*count == *capacity) {
            *capacity = *capacity ? 2 * *capacity : 16;
            *jobs = xrealloc(*jobs, *capacity * sizeof **jobs);
        }
        Job *job = &(*jobs)[(*count)++];
        memset(job, 0, sizeof *job);
        job->problem_pos = UINT32_MAX;
        job->module = module;
        job->program = program;
        job->timeout_unreachable = unreachable;
        job->tc = (TestCase){ test, p, NULL, module, 0 };
        TestResult *r = arena_alloc(&out->arena, sizeof *r);
        job->result = r;
        r->name = test->name->text;
        r->program = root->dir ? root->dir : "";
        r->file = source_file(map, source_file_at(map, test->span.start))->path;
        testing_place(map, test->span.start, &r->line, &r->column);
        const char *why = NULL;
        job->tc.workflow = testing_workflow_of(&out->arena, p, test, &why);
        job->workflow = job->tc.workflow ? (uint32_t)(job->tc.workflow - p->workflows) : 0;
        job->tc.workflow_index = job->workflow;
        r->workflow = job->tc.workflow ? job->tc.workflow->name->text : "";
        if (!job->tc.workflow) {
            r->status = TEST_ERROR;
            r->message = why;
        }
    }
}

bool testing_load_module(Workspace *w, uint32_t root, OrbcModule *out, char *why,
                         size_t why_size)
{
    uint8_t *bytes;
    size_t len;
    if (!lower_program(w->c, w->checked[root], &bytes, &len, why, why_size))
        return false;
    OrbcError err;
    bool loaded = orbc_load(bytes, len, out, &err);
    free(bytes);
    if (!loaded)
        snprintf(why, why_size, "the program's bytecode does not load: %s", err.text);
    return loaded;
}

/* Each program with tests to run, lowered and loaded once. */
static bool load_programs(Workspace *w, const TestingOptions *options, TestingRun *out,
                          OrbcModule *modules, Job **jobs, uint32_t *count, char *why,
                          size_t why_size)
{
    uint32_t capacity = 0;
    for (uint32_t i = 0; i < w->roots.count; i++) {
        const Program *p = w->checked[i];
        if (!p || p->test_count == 0)
            continue;
        if (!testing_load_module(w, i, &modules[i], why, why_size))
            return false;
        add_jobs(out, i, &w->roots.items[i], p, &modules[i], options, &w->c->sources, jobs,
                 count, &capacity);
    }
    return true;
}

/* The coverage of each program that has some, the threads' merged into the first
 * thread's, in the programs' order. */
static void gather_coverage(TestingRun *out, Thread *workers, unsigned threads,
                            uint32_t programs)
{
    out->coverage = xcalloc(programs + 1, sizeof *out->coverage);
    for (uint32_t p = 0; p < programs; p++) {
        Coverage *into = NULL;
        for (unsigned t = 0; t < threads; t++) {
            Coverage *c = workers[t].coverage[p];
            if (!c)
                continue;
            if (!into) {
                into = c;
            } else {
                coverage_merge(into, c);
                coverage_free(c);
            }
        }
        if (into)
            out->coverage[out->coverage_count++] = into;
    }
    for (unsigned t = 0; t < threads; t++)
        free(workers[t].coverage);
}

/* Runs the jobs on `threads` threads (this one among them); with `coverage`, counts what
 * they reach in each of the `programs`. */
static void run_jobs(TestingRun *out, Job *jobs, uint32_t count, unsigned threads,
                     bool coverage, uint32_t programs)
{
    Pool pool = { jobs, count, 0 };
    if (threads > TESTING_MAX_THREADS)
        threads = TESTING_MAX_THREADS;
    if (threads > count)
        threads = count ? count : 1;
    out->thread_count = threads;
    out->thread_arenas = xcalloc(threads, sizeof *out->thread_arenas);
    Thread *workers = xcalloc(threads, sizeof *workers);
    for (unsigned t = 0; t < threads; t++) {
        arena_init(&out->thread_arenas[t]);
        workers[t] = (Thread){ &pool, &out->thread_arenas[t],
                               coverage ? xcalloc(programs + 1, sizeof(Coverage *)) : NULL };
    }
    testing_threads_run(thread_main, workers, sizeof *workers, threads);
    if (coverage)
        gather_coverage(out, workers, threads, programs);
    free(workers);
}

bool testing_run(Workspace *w, const TestingOptions *options, TestingRun *out, char *why,
                 size_t why_size)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    double start = now_seconds();
    OrbcModule *modules = xcalloc(w->roots.count + 1, sizeof *modules);
    Job *jobs = NULL;
    uint32_t count = 0;
    bool ok = load_programs(w, options, out, modules, &jobs, &count, why, why_size);
    if (ok) {
        run_jobs(out, jobs, count, options->jobs ? options->jobs : 1, options->coverage,
                 w->roots.count);
        TestRun *run = &out->run;
        run->results = arena_alloc(&out->arena, (count + 1) * sizeof *run->results);
        run->count = count;
        for (uint32_t i = 0; i < count; i++) {
            TestResult *r = &run->results[i];
            *r = *jobs[i].result;
            if (jobs[i].problem_pos != UINT32_MAX) {
                uint32_t line, column;
                testing_place(&w->c->sources, jobs[i].problem_pos, &line, &column);
                r->message = arena_printf(&out->arena, "%s:%u:%u: %s", r->file, line, column,
                                          r->message);
            }
            for (uint32_t f = 0; f < r->failure_count; f++)
                testing_place(&w->c->sources, jobs[i].positions[f], &r->failures[f].line,
                      &r->failures[f].column);
            run->passed += r->status == TEST_PASSED;
            run->failed += r->status == TEST_FAILED;
            run->errors += r->status == TEST_ERROR;
        }
        run->seconds = now_seconds() - start;
    }
    out->modules = modules;   /* the coverage reads them: freed with the run */
    out->module_count = w->roots.count;
    free(jobs);
    return ok;
}

void testing_run_free(TestingRun *run)
{
    for (uint32_t i = 0; i < run->coverage_count; i++)
        coverage_free(run->coverage[i]);
    free(run->coverage);
    for (uint32_t i = 0; i < run->module_count; i++)
        orbc_module_free(&run->modules[i]);
    free(run->modules);
    for (unsigned t = 0; t < run->thread_count; t++)
        arena_free(&run->thread_arenas[t]);
    free(run->thread_arenas);
    arena_free(&run->arena);
    memset(run, 0, sizeof *run);
}

void testing_threads_run(void *(*work)(void *), void *items, size_t item_size, unsigned count)
{
    pthread_t *ids = xcalloc(count ? count : 1, sizeof *ids);
    unsigned started = 1;
    for (unsigned t = 1; t < count; t++) {
        if (pthread_create(&ids[t], NULL, work, (char *)items + t * item_size) != 0)
            break;
        started++;
    }
    work(items);
    for (unsigned t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    free(ids);
}

/* What mutate.c shares of the runner (testing_internal.h). */
char *testing_run_history(const OrbcModule *module, const char *name, const char *scenario,
                          HistoryFormat format, int *status, size_t *len, char *err,
                          size_t errlen)
{
    return run_history(module, name, scenario, format, status, len, err, errlen);
}
