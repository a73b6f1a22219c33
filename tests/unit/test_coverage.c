/* The coverage of Orbit tests (testing/coverage.c, docs/testing.md "Coverage"): Orbit
 * source compiled in memory, scenarios run by the reference runtime with `--format json`
 * into memory (run_scenario, as orbit-run runs them), the histories fed to a Coverage,
 * and every item's hits asserted exactly; the text, JSON and lcov of examples/checkout.orbit
 * over three scenarios compared with tests/unit/coverage/.
 *
 * Usage: test_coverage SOURCE_ROOT
 *        test_coverage SOURCE_ROOT --write DIR [--source-root ROOT]
 * The second writes checkout.txt, checkout.json and checkout.lcov into DIR (lcov's SF:
 * names under ROOT): tests/unit/coverage/ is written so (`--write tests/unit/coverage`,
 * read the diff), and tests/cli/test_coverage_formats.py checks the lcov and JSON. */
#define _GNU_SOURCE   /* open_memstream */
#include <check.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lower.h"
#include "run_scenario.h"
#include "workspace.h"

/* One Coverage as the list the writers and counts take. */
#define CV(c) (const Coverage *const[]){ (c) }, 1

static const char *source_root;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)size;
    return text;
}

static char *read_source_file(const char *relative, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", source_root, relative);
    return read_file(path, len);
}

/* Checks and lowers a program (the text is taken) and loads it. */
static void compile(const char *path, char *source, size_t source_len, OrbcModule *m)
{
    Compiler c;
    compiler_init(&c);
    Workspace w;
    workspace_init(&w, &c, false);
    workspace_add_text(&w, path, source, source_len);
    workspace_check(&w);
    Program *p = w.checked[0];
    workspace_free(&w);
    ck_assert_uint_eq(c.diags.errors, 0);
    uint8_t *bytes = NULL;
    size_t len = 0;
    char why[256] = "";
    ck_assert_msg(lower_program(&c, p, &bytes, &len, why, sizeof why), "lowering: %s", why);
    compiler_free(&c);
    OrbcError err;
    ck_assert_msg(orbc_load(bytes, len, m, &err), "load: %s", err.text);
    free(bytes);
}

static void compile_text(const char *source, OrbcModule *m)
{
    compile("t.orbit", strdup(source), strlen(source), m);
}

static uint32_t workflow_index(const OrbcModule *m, const char *name)
{
    for (uint32_t w = 0; w < m->workflow_count; w++)
        if (strcmp(m->strings[m->workflows[w].name].text, name) == 0)
            return w;
    ck_abort_msg("no workflow %s", name);
    return 0;
}

/* Runs the scenario (its "workflow" says which) as `orbit-run --format json` does:
 * the history (malloc'd) and the workflow's index. */
static char *history_of(const OrbcModule *m, const char *scenario, uint32_t *workflow)
{
    json_t *sc = json_loads(scenario, 0, NULL);
    ck_assert_msg(sc != NULL, "bad scenario %s", scenario);
    *workflow = workflow_index(m, json_string_value(json_object_get(sc, "workflow")));
    json_decref(sc);
    char *history = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&history, &len);
    RunRequest request = {.scenario_name = "s.json", .scenario = scenario,
                          .scenario_len = strlen(scenario), .format = HISTORY_JSON};
    char err[1024] = "";
    int status = run_scenario(m, &request, out, err, sizeof err);
    fclose(out);
    ck_assert_msg(status != 2, "scenario refused: %s", err);
    return history;
}

/* Runs the scenario and adds its history to `c`. */
static void add_run(Coverage *c, const OrbcModule *m, const char *scenario)
{
    uint32_t workflow;
    char *history = history_of(m, scenario, &workflow);
    coverage_add_run(c, workflow, history, strlen(history));
    free(history);
}

/* The hits of one item, read from the JSON report: `detail` is the attempt number or the
 * non-retryable code, or NULL. Fails when there is no such item. */
static int64_t hits(const Coverage *c, const char *workflow, const char *item, const char *step,
                    const char *detail)
{
    TextBuffer out = {0};
    coverage_write_json(CV(c), &out);
    json_t *root = json_loads(out.data, 0, NULL);
    text_free(&out);
    ck_assert(root != NULL);
    size_t i, k;
    json_t *wf, *it;
    int64_t found = -1;
    json_array_foreach(json_object_get(root, "workflows"), i, wf) {
        if (strcmp(json_string_value(json_object_get(wf, "workflow")), workflow) != 0)
            continue;
        json_array_foreach(json_object_get(wf, "items"), k, it) {
            const char *s = json_string_value(json_object_get(it, "step"));
            char arg[64] = "";
            if (json_is_integer(json_object_get(it, "attempt")))
                snprintf(arg, sizeof arg, "%lld", json_integer_value(json_object_get(it, "attempt")));
            else if (json_is_string(json_object_get(it, "code")))
                snprintf(arg, sizeof arg, "%s", json_string_value(json_object_get(it, "code")));
            if (strcmp(json_string_value(json_object_get(it, "item")), item) == 0 &&
                (step ? s && strcmp(s, step) == 0 : !s) && strcmp(arg, detail ? detail : "") == 0) {
                ck_assert_msg(found < 0, "two items %s %s", item, step ? step : "");
                found = json_integer_value(json_object_get(it, "hits"));
            }
        }
    }
    json_decref(root);
    ck_assert_msg(found >= 0, "no item %s of step %s (%s) in %s", item, step ? step : "-",
                  detail ? detail : "-", workflow);
    return found;
}

static int64_t runs(const Coverage *c, const char *workflow)
{
    TextBuffer out = {0};
    coverage_write_json(CV(c), &out);
    json_t *root = json_loads(out.data, 0, NULL);
    text_free(&out);
    size_t i;
    json_t *wf;
    int64_t n = -1;
    json_array_foreach(json_object_get(root, "workflows"), i, wf)
        if (strcmp(json_string_value(json_object_get(wf, "workflow")), workflow) == 0)
            n = json_integer_value(json_object_get(wf, "runs"));
    json_decref(root);
    return n;
}

static void assert_counts(const Coverage *c, uint64_t covered, uint64_t total)
{
    uint64_t cv, t;
    coverage_counts(CV(c), &cv, &t);
    ck_assert_uint_eq(cv, covered);
    ck_assert_uint_eq(t, total);
}

/* A step of every kind of item. */
static const char *PROGRAM =
    "worker \"w.task\" {\n"
    "  input { n: int }\n"
    "  output { ok: bool }\n"
    "}\n"
    "\n"
    "worker \"w.undo\" {\n"
    "  input { n: int }\n"
    "}\n"
    "\n"
    "workflow main {\n"
    "  input { flag: bool, items: [int] }\n"
    "  timeout 1h\n"
    "\n"
    "  step guarded {\n"
    "    worker \"w.task\"\n"
    "    with { n: 1 }\n"
    "    when input.flag\n"
    "  }\n"
    "\n"
    "  step fan {\n"
    "    worker \"w.task\"\n"
    "    for item in input.items\n"
    "    with { n: item }\n"
    "  }\n"
    "\n"
    "  step charge {\n"
    "    worker \"w.task\"\n"
    "    with { n: 2 }\n"
    "    retry { attempts: 3, initial_delay: 1s, non_retryable: [\"DECLINED\", \"BLOCKED\"] }\n"
    "    timeout 10s\n"
    "    queue_timeout 1m\n"
    "    compensate {\n"
    "      worker \"w.undo\"\n"
    "      with { n: 4 }\n"
    "    }\n"
    "  }\n"
    "\n"
    "  step approval { await \"approved\"; timeout 30m }\n"
    "  step child { workflow sub; with { n: 3 }; timeout 5m }\n"
    "  step last { compute 1 }\n"
    "}\n"
    "\n"
    "workflow sub {\n"
    "  input { n: int }\n"
    "  timeout 10m\n"
    "  step pick { worker \"w.task\"; with { n: input.n } }\n"
    "}\n";

/* Everything succeeds: the signal is there at once, `when` holds, `for` has two items. */
#define INPUT(flag, items) "\"input\": { \"flag\": " flag ", \"items\": " items " }"
#define APPROVED "\"signals\": [{ \"name\": \"approved\", \"at_ms\": 0 }]"

START_TEST(items_from_the_module)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    /* main: workflow timeout 1; guarded 1+2; fan 1+3; charge 1 + attempts 2,3 + gave up
     * + 2 codes + timeout + queue timeout + compensation 2 = 10; approval 1+1; child 1+1;
     * last 1. sub: workflow timeout 1, pick 1. */
    assert_counts(c, 0, 1 + 3 + 4 + 10 + 2 + 2 + 1 + 2);
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "3"), 0);
    ck_assert_int_eq(hits(c, "main", "non_retryable", "charge", "BLOCKED"), 0);
    ck_assert_int_eq(hits(c, "main", "await_timeout", "approval", NULL), 0);
    ck_assert_int_eq(hits(c, "main", "timeout", "child", NULL), 0);
    ck_assert_int_eq(hits(c, "sub", "workflow_timeout", NULL, NULL), 0);
    ck_assert(!coverage_meets(CV(c), 0.1));
    ck_assert(coverage_meets(CV(c), 0.0));
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(a_program_without_items_is_covered)
{
    OrbcModule m;
    memset(&m, 0, sizeof m);
    Coverage *c = coverage_new(&m, NULL);
    assert_counts(c, 0, 0);
    ck_assert(coverage_percent(CV(c)) == 100.0);
    ck_assert(coverage_meets(CV(c), 100.0));
    coverage_free(c);
}
END_TEST

START_TEST(when_true_and_false)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1, 2]") ", " APPROVED "}");
    ck_assert_int_eq(hits(c, "main", "when_true", "guarded", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "when_false", "guarded", NULL), 0);
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("false", "[1, 2]") ", " APPROVED "}");
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("false", "[1, 2]") ", " APPROVED "}");
    ck_assert_int_eq(hits(c, "main", "when_true", "guarded", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "when_false", "guarded", NULL), 2);
    /* A skipped step is reached. */
    ck_assert_int_eq(hits(c, "main", "step", "guarded", NULL), 3);
    ck_assert_int_eq(runs(c, "main"), 3);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(for_over_0_1_and_many_items)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[]") ", " APPROVED "}");
    ck_assert_int_eq(hits(c, "main", "for_empty", "fan", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "for_one", "fan", NULL), 0);
    ck_assert_int_eq(hits(c, "main", "for_many", "fan", NULL), 0);
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[7]") ", " APPROVED "}");
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1, 2, 3]") ", " APPROVED "}");
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1, 2]") ", " APPROVED "}");
    ck_assert_int_eq(hits(c, "main", "for_empty", "fan", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "for_one", "fan", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "for_many", "fan", NULL), 2);
    /* One instance per run however many units. */
    ck_assert_int_eq(hits(c, "main", "step", "fan", NULL), 4);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(attempts_gave_up_and_non_retryable_codes)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    /* Attempt 2 fails with a listed code: no third attempt, no "gave up". */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") ", " APPROVED ", \"steps\": "
                   "{\"charge\": {\"attempts\": [{\"fail\": {\"code\": \"X\"}},"
                   " {\"fail\": {\"code\": \"BLOCKED\"}}]}}}");
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "2"), 1);
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "3"), 0);
    ck_assert_int_eq(hits(c, "main", "gave_up", "charge", NULL), 0);
    ck_assert_int_eq(hits(c, "main", "non_retryable", "charge", "BLOCKED"), 1);
    ck_assert_int_eq(hits(c, "main", "non_retryable", "charge", "DECLINED"), 0);
    /* Every attempt used, the last with a listed code: gave up (docs/runtime.md). */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") ", " APPROVED ", \"steps\": "
                   "{\"charge\": {\"attempts\": [{\"fail\": {\"code\": \"X\"}},"
                   " {\"fail\": {\"code\": \"X\"}}, {\"fail\": {\"code\": \"DECLINED\"}}]}}}");
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "2"), 2);
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "3"), 1);
    ck_assert_int_eq(hits(c, "main", "gave_up", "charge", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "non_retryable", "charge", "DECLINED"), 1);
    /* A failed step fails the workflow: nothing after it is reached; the steps before
     * it that have no compensate block are not compensated. */
    ck_assert_int_eq(hits(c, "main", "step", "approval", NULL), 0);
    ck_assert_int_eq(hits(c, "main", "compensation_ran", "charge", NULL), 0);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(timeouts)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    /* The step timeout, then no worker within the queue timeout. */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") ", " APPROVED ", \"steps\": "
                   "{\"charge\": {\"attempts\": [{\"never_answers\": true},"
                   " {\"pickup_ms\": 120000, \"succeed\": {\"ok\": true}}]}}}");
    ck_assert_int_eq(hits(c, "main", "timeout", "charge", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "queue_timeout", "charge", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "2"), 1);
    /* No signal: the await times out. */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") "}");
    ck_assert_int_eq(hits(c, "main", "await_timeout", "approval", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "workflow_timeout", NULL, NULL), 0);
    /* The child never finishes: the workflow step's timeout (5m) fires before the
     * child's own (10m). */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") ", " APPROVED ", \"steps\": "
                   "{\"sub.pick\": {\"attempts\": [{\"never_answers\": true}]}}}");
    ck_assert_int_eq(hits(c, "main", "timeout", "child", NULL), 1);
    ck_assert_int_eq(hits(c, "sub", "workflow_timeout", NULL, NULL), 0);
    /* Both failures after charge completed compensated it. */
    ck_assert_int_eq(hits(c, "main", "compensation_ran", "charge", NULL), 2);
    /* The child alone, its own timeout. */
    add_run(c, &m, "{\"workflow\": \"sub\", \"input\": {\"n\": 1}, \"steps\": "
                   "{\"pick\": {\"attempts\": [{\"never_answers\": true}]}}}");
    ck_assert_int_eq(hits(c, "sub", "workflow_timeout", NULL, NULL), 1);
    ck_assert_int_eq(runs(c, "sub"), 2);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

/* The workflow timeout of the top workflow, and a child's own timeout that fails its
 * workflow step with TIMEOUT: not the step's timeout. */
START_TEST(workflow_timeouts)
{
    OrbcModule m;
    compile_text(
        "workflow top {\n"
        "  input { nest: bool }\n"
        "  timeout 1h\n"
        "  step child { workflow sub; when input.nest; timeout 30m }\n"
        "  step wait { sleep 2h }\n"
        "}\n"
        "workflow sub {\n"
        "  timeout 10m\n"
        "  step nap { sleep 1h }\n"
        "}\n", &m);
    Coverage *c = coverage_new(&m, NULL);
    add_run(c, &m, "{\"workflow\": \"top\", \"input\": {\"nest\": true}}");
    ck_assert_int_eq(hits(c, "sub", "workflow_timeout", NULL, NULL), 1);
    ck_assert_int_eq(hits(c, "top", "timeout", "child", NULL), 0);
    ck_assert_int_eq(hits(c, "top", "workflow_timeout", NULL, NULL), 0);
    ck_assert_int_eq(hits(c, "top", "step", "wait", NULL), 0);
    add_run(c, &m, "{\"workflow\": \"top\", \"input\": {\"nest\": false}}");
    ck_assert_int_eq(hits(c, "top", "workflow_timeout", NULL, NULL), 1);
    ck_assert_int_eq(hits(c, "top", "step", "wait", NULL), 1);
    ck_assert_int_eq(runs(c, "top"), 2);
    ck_assert_int_eq(runs(c, "sub"), 1);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(compensation_ran_and_failed)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    /* The await times out after charge completed: charge is compensated, and its
     * compensation fails (not retried: one attempt). */
    add_run(c, &m, "{\"workflow\": \"main\", " INPUT("true", "[1]") ", \"steps\": "
                   "{\"charge\": {\"compensate\": {\"attempts\": "
                   "[{\"fail\": {\"code\": \"UNDO\", \"retryable\": false}}]}}}}");
    ck_assert_int_eq(hits(c, "main", "compensation_ran", "charge", NULL), 1);
    ck_assert_int_eq(hits(c, "main", "compensation_failed", "charge", NULL), 1);
    /* The compensate block's attempts are not the step's. */
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "2"), 0);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

/* Events of a child count for the child's workflow, each execution of it an instance. */
START_TEST(child_events_count_for_the_child)
{
    OrbcModule m;
    compile_text(
        "worker \"w.task\" { input { n: int } }\n"
        "workflow top {\n"
        "  input { items: [int] }\n"
        "  step pack { workflow sub; for item in input.items; with { n: item } }\n"
        "}\n"
        "workflow sub {\n"
        "  input { n: int }\n"
        "  step pick {\n"
        "    worker \"w.task\"\n"
        "    with { n: input.n }\n"
        "    retry { attempts: 2, initial_delay: 1s }\n"
        "  }\n"
        "}\n", &m);
    Coverage *c = coverage_new(&m, NULL);
    add_run(c, &m, "{\"workflow\": \"top\", \"input\": {\"items\": [1, 2, 3]}, \"steps\": "
                   "{\"sub.pick\": {\"attempts\": [{\"fail\": {\"code\": \"X\"}}]}}}");
    ck_assert_int_eq(runs(c, "top"), 1);
    ck_assert_int_eq(runs(c, "sub"), 3);
    ck_assert_int_eq(hits(c, "top", "step", "pack", NULL), 1);
    ck_assert_int_eq(hits(c, "top", "for_many", "pack", NULL), 1);
    ck_assert_int_eq(hits(c, "sub", "step", "pick", NULL), 3);
    /* The first attempt of the first child fails: its retry is the only attempt 2. */
    ck_assert_int_eq(hits(c, "sub", "attempt", "pick", "2"), 1);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

START_TEST(merged_coverages_add_up)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *one = coverage_new(&m, NULL), *a = coverage_new(&m, NULL), *b = coverage_new(&m, NULL);
    const char *first = "{\"workflow\": \"main\", " INPUT("false", "[]") ", " APPROVED "}";
    const char *second = "{\"workflow\": \"main\", " INPUT("true", "[1, 2]") "}";
    add_run(one, &m, first);
    add_run(one, &m, second);
    add_run(a, &m, first);
    add_run(b, &m, second);
    coverage_merge(a, b);
    TextBuffer x = {0}, y = {0};
    coverage_write_json(CV(one), &x);
    coverage_write_json(CV(a), &y);
    ck_assert_str_eq(x.data, y.data);
    ck_assert_int_eq(hits(a, "main", "step", "guarded", NULL), 2);
    text_free(&x);
    text_free(&y);
    coverage_free(one);
    coverage_free(a);
    coverage_free(b);
    orbc_module_free(&m);
}
END_TEST

/* One Coverage per thread over one module, merged, as the runner does (under
 * ThreadSanitizer: tests/cli/test_tsan.py): the sum of the serial counts. */
enum { THREADS = 4, ROUNDS = 20, HISTORIES = 3 };

typedef struct ThreadJob {
    const OrbcModule *m;
    char *const *histories;
    const uint32_t *workflows;
    Coverage *c;
} ThreadJob;

static void *thread_adds(void *arg)
{
    ThreadJob *job = arg;
    job->c = coverage_new(job->m, NULL);
    for (int r = 0; r < ROUNDS; r++)
        for (int h = 0; h < HISTORIES; h++)
            coverage_add_run(job->c, job->workflows[h], job->histories[h],
                             strlen(job->histories[h]));
    return NULL;
}

START_TEST(coverages_of_threads_merged)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    const char *scenarios[HISTORIES] = {
        "{\"workflow\": \"main\", " INPUT("true", "[1, 2]") ", " APPROVED "}",
        "{\"workflow\": \"main\", " INPUT("false", "[]") "}",
        "{\"workflow\": \"sub\", \"input\": {\"n\": 1}}",
    };
    char *histories[HISTORIES];
    uint32_t workflows[HISTORIES];
    for (int h = 0; h < HISTORIES; h++)
        histories[h] = history_of(&m, scenarios[h], &workflows[h]);
    pthread_t threads[THREADS];
    ThreadJob jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (ThreadJob){.m = &m, .histories = histories, .workflows = workflows};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, thread_adds, &jobs[t]), 0);
    }
    Coverage *serial = coverage_new(&m, NULL);
    for (int r = 0; r < THREADS * ROUNDS; r++)
        for (int h = 0; h < HISTORIES; h++)
            coverage_add_run(serial, workflows[h], histories[h], strlen(histories[h]));
    for (int t = 0; t < THREADS; t++)
        ck_assert_int_eq(pthread_join(threads[t], NULL), 0);
    for (int t = 1; t < THREADS; t++)
        coverage_merge(jobs[0].c, jobs[t].c);
    TextBuffer x = {0}, y = {0};
    coverage_write_json(CV(serial), &x);
    coverage_write_json(CV(jobs[0].c), &y);
    ck_assert_str_eq(x.data, y.data);
    ck_assert_int_eq(runs(serial, "main"), 2 * THREADS * ROUNDS);
    text_free(&x);
    text_free(&y);
    for (int t = 0; t < THREADS; t++)
        coverage_free(jobs[t].c);
    coverage_free(serial);
    for (int h = 0; h < HISTORIES; h++)
        free(histories[h]);
    orbc_module_free(&m);
}
END_TEST

/* What is not a history of the module is passed over. */
START_TEST(lines_that_are_not_events)
{
    OrbcModule m;
    compile_text(PROGRAM, &m);
    Coverage *c = coverage_new(&m, NULL);
    const char *history =
        "{\"time_ms\":0,\"seq\":1,\"event\":\"WorkflowStarted\",\"workflow\":\"main\"}\n"
        "not json\n"
        "{\"event\":\"StepScheduled\",\"step\":\"nope\",\"attempt\":2}\n"
        "{\"event\":\"StepScheduled\",\"step\":\"charge[x]\",\"attempt\":2}\n"
        "{\"event\":\"StepScheduled\",\"step\":\"charge/pick\",\"attempt\":2}\n"
        "{\"event\":\"StepScheduled\",\"step\":\"child[0]/nope\",\"attempt\":2}\n"
        "[1]\n"
        "{\"event\":\"StepScheduled\",\"step\":\"charge\",\"attempt\":2}\n"
        "{\"event\":\"StepScheduled\",\"step\":\"charge\",\"attempt\":4}\n"
        "{\"status\":\"STOPPED\"}";
    coverage_add_run(c, 0, history, strlen(history));
    assert_counts(c, 2, 25);
    ck_assert_int_eq(hits(c, "main", "attempt", "charge", "2"), 1);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

/* The table's columns are aligned in terminal cells: a name of wide characters. */
START_TEST(text_of_wide_names)
{
    OrbcModule m;
    compile_text("workflow w {\n"
                 "  step \xE6\xB3\xA8\xE6\x96\x87 { sleep 1s; when true }\n"   /* 注文 */
                 "}\n", &m);
    Coverage *c = coverage_new(&m, NULL);
    TextBuffer out = {0};
    coverage_write_text(CV(c), &out);
    ck_assert_str_eq(out.data,
        "workflow w (t.orbit:1), 0 runs\n"
        "    line  item                       hits  covered\n"
        "       2  step \xE6\xB3\xA8\xE6\x96\x87                     0  no\n"
        "       2  step \xE6\xB3\xA8\xE6\x96\x87: when true          0  no\n"
        "       2  step \xE6\xB3\xA8\xE6\x96\x87: when false         0  no\n"
        "  w: 0 of 3 items covered (0.0%)\n"
        "\n"
        "total: 0 of 3 items covered (0.0%)\n");
    text_free(&out);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

/* The three formats of a small program, exactly. */
START_TEST(text_json_and_lcov)
{
    OrbcModule m;
    compile_text(
        "worker \"w.task\" { input { n: int } }\n"
        "workflow top {\n"
        "  input { go: bool }\n"
        "  timeout 1h\n"
        "  step a {\n"
        "    worker \"w.task\"\n"
        "    with { n: 1 }\n"
        "    when input.go\n"
        "    retry { attempts: 2, initial_delay: 1s }\n"
        "  }\n"
        "  step b { sleep 1s }\n"
        "}\n", &m);
    Coverage *c = coverage_new(&m, "/src");
    add_run(c, &m, "{\"workflow\": \"top\", \"input\": {\"go\": true}, \"steps\": "
                   "{\"a\": {\"attempts\": [{\"fail\": {\"code\": \"X\"}}]}}}");
    add_run(c, &m, "{\"workflow\": \"top\", \"input\": {\"go\": false}}");
    TextBuffer out = {0};
    coverage_write_text(CV(c), &out);
    ck_assert_str_eq(out.data,
        "workflow top (t.orbit:2), 2 runs\n"
        "    line  item                    hits  covered\n"
        "       2  workflow timeout           0  no\n"
        "       5  step a                     2  yes\n"
        "       5  step a: when true          1  yes\n"
        "       5  step a: when false         1  yes\n"
        "       5  step a: attempt 2          1  yes\n"
        "       5  step a: gave up            0  no\n"
        "      11  step b                     2  yes\n"
        "  top: 5 of 7 items covered (71.4%)\n"
        "\n"
        "total: 5 of 7 items covered (71.4%)\n");
    out.len = 0;
    coverage_write_lcov(CV(c), &out);
    ck_assert_str_eq(out.data,
        "TN:\n"
        "SF:/src/t.orbit\n"
        "FN:2,top\n"
        "FNDA:2,top\n"
        "FNF:1\n"
        "FNH:1\n"
        "BRDA:2,0,0,0\n"
        "BRDA:5,0,0,1\n"
        "BRDA:5,0,1,1\n"
        "BRDA:5,1,0,1\n"
        "BRDA:5,1,1,0\n"
        "BRF:5\n"
        "BRH:3\n"
        "DA:5,2\n"
        "DA:11,2\n"
        "LF:2\n"
        "LH:2\n"
        "end_of_record\n");
    out.len = 0;
    coverage_write_json(CV(c), &out);
    json_t *root = json_loads(out.data, 0, NULL);
    ck_assert(root != NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "covered")), 5);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "total")), 7);
    ck_assert_double_eq_tol(json_real_value(json_object_get(root, "percent")), 100.0 * 5 / 7, 1e-9);
    json_t *items = json_object_get(json_array_get(json_object_get(root, "workflows"), 0), "items");
    ck_assert_uint_eq(json_array_size(items), 7);
    char *item = json_dumps(json_array_get(items, 4), JSON_COMPACT);
    ck_assert_str_eq(item, "{\"item\":\"attempt\",\"step\":\"a\",\"attempt\":2,\"code\":null,"
                           "\"line\":5,\"hits\":1,\"covered\":true,\"unreachable\":null}");
    free(item);
    json_decref(root);
    text_free(&out);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

/* ---- examples/checkout.orbit over three scenarios, against tests/unit/coverage/ ---- */

static const char *const CHECKOUT_SCENARIOS[] = {"declined", "express", "retried"};
static const char *const CHECKOUT_FORMATS[] = {"txt", "json", "lcov"};

/* A workflow timeout the runner marks unreachable: shown with its reason, in no total,
 * no branch of lcov; marking a workflow without a timeout changes nothing. */
START_TEST(an_unreachable_workflow_timeout_is_not_counted)
{
    OrbcModule m;
    compile_text(
        "workflow top {\n"
        "  timeout 1h\n"
        "  step b { sleep 1s }\n"
        "}\n"
        "workflow other { step c { sleep 1s } }\n", &m);
    Coverage *c = coverage_new(&m, NULL);
    coverage_timeout_unreachable(c, 0, "its steps take at most 1s");
    coverage_timeout_unreachable(c, 1, "nothing to mark");
    add_run(c, &m, "{\"workflow\": \"top\"}");
    uint64_t covered, total;
    coverage_counts(CV(c), &covered, &total);
    ck_assert_uint_eq(covered, 1);
    ck_assert_uint_eq(total, 2);   /* step b, step c */
    TextBuffer out = {0};
    coverage_write_text(CV(c), &out);
    ck_assert_msg(strstr(out.data, "       1  workflow timeout         0  unreachable: its steps "
                                   "take at most 1s\n") != NULL, "%s", out.data);
    ck_assert_msg(strstr(out.data, "  top: 1 of 1 items covered (100.0%)\n") != NULL, "%s", out.data);
    out.len = 0;
    coverage_write_lcov(CV(c), &out);
    ck_assert_msg(strstr(out.data, "BRDA") == NULL && strstr(out.data, "BRF:0\n") != NULL, "%s",
                  out.data);
    out.len = 0;
    coverage_write_json(CV(c), &out);
    ck_assert_msg(strstr(out.data, "\"unreachable\": \"its steps take at most 1s\"") != NULL, "%s",
                  out.data);
    text_free(&out);
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

static Coverage *checkout_coverage(OrbcModule *m, const char *root)
{
    size_t len;
    char *source = read_source_file("examples/checkout.orbit", &len);
    compile("examples/checkout.orbit", source, len, m);
    Coverage *c = coverage_new(m, root);
    for (size_t i = 0; i < sizeof CHECKOUT_SCENARIOS / sizeof *CHECKOUT_SCENARIOS; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/unit/coverage/checkout-%s.json", CHECKOUT_SCENARIOS[i]);
        char *scenario = read_source_file(path, NULL);
        add_run(c, m, scenario);
        free(scenario);
    }
    return c;
}

static void checkout_format(const Coverage *c, size_t format, TextBuffer *out)
{
    if (format == 0)
        coverage_write_text(CV(c), out);
    else if (format == 1)
        coverage_write_json(CV(c), out);
    else
        coverage_write_lcov(CV(c), out);
}

START_TEST(checkout_in_three_formats)
{
    OrbcModule m;
    Coverage *c = checkout_coverage(&m, NULL);
    for (size_t f = 0; f < 3; f++) {
        TextBuffer out = {0};
        checkout_format(c, f, &out);
        char path[256];
        snprintf(path, sizeof path, "tests/unit/coverage/checkout.%s", CHECKOUT_FORMATS[f]);
        char *expected = read_source_file(path, NULL);
        ck_assert_msg(strcmp(out.data, expected) == 0,
                      "%s differs (test_coverage SOURCE_ROOT --write DIR writes it):\n%s", path,
                      out.data);
        free(expected);
        text_free(&out);
    }
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

static const char *write_dir, *write_root;

/* --write: the three files, by a test of its own (Check's assertions need a runner). */
START_TEST(write_checkout)
{
    OrbcModule m;
    Coverage *c = checkout_coverage(&m, write_root);
    for (size_t f = 0; f < 3; f++) {
        TextBuffer out = {0};
        checkout_format(c, f, &out);
        char path[4096];
        snprintf(path, sizeof path, "%s/checkout.%s", write_dir, CHECKOUT_FORMATS[f]);
        FILE *file = fopen(path, "wb");
        ck_assert_msg(file && fwrite(out.data, 1, out.len, file) == out.len && fclose(file) == 0,
                      "cannot write %s", path);
        text_free(&out);
    }
    coverage_free(c);
    orbc_module_free(&m);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc >= 4 && strcmp(argv[2], "--write") == 0)) {
        fprintf(stderr, "usage: test_coverage SOURCE_ROOT [--write DIR [--source-root ROOT]]\n");
        return 2;
    }
    source_root = argv[1];
    Suite *s = suite_create("coverage");
    TCase *tc = tcase_create("coverage");
    if (argc >= 4) {
        write_dir = argv[3];
        write_root = argc == 6 && strcmp(argv[4], "--source-root") == 0 ? argv[5] : NULL;
        tcase_add_test(tc, write_checkout);
        suite_add_tcase(s, tc);
        SRunner *r = srunner_create(s);
        srunner_run_all(r, CK_SILENT);
        int failed = srunner_ntests_failed(r);
        srunner_free(r);
        return failed ? 1 : 0;
    }
    tcase_add_test(tc, items_from_the_module);
    tcase_add_test(tc, a_program_without_items_is_covered);
    tcase_add_test(tc, when_true_and_false);
    tcase_add_test(tc, for_over_0_1_and_many_items);
    tcase_add_test(tc, attempts_gave_up_and_non_retryable_codes);
    tcase_add_test(tc, timeouts);
    tcase_add_test(tc, workflow_timeouts);
    tcase_add_test(tc, compensation_ran_and_failed);
    tcase_add_test(tc, child_events_count_for_the_child);
    tcase_add_test(tc, merged_coverages_add_up);
    tcase_add_test(tc, coverages_of_threads_merged);
    tcase_add_test(tc, lines_that_are_not_events);
    tcase_add_test(tc, text_json_and_lcov);
    tcase_add_test(tc, text_of_wide_names);
    tcase_add_test(tc, an_unreachable_workflow_timeout_is_not_counted);
    tcase_add_test(tc, checkout_in_three_formats);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
