/* `orbitc test --mutate` (mutate.h). */
#include "mutate.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_text.h"
#include "lower.h"
#include "memory.h"
#include "orbc.h"
#include "orbc_value.h"
#include "run_scenario.h"
#include "runner.h"
#include "scenario_of_test.h"
#include "testing_internal.h"
#include "worst_path.h"

enum { MUTATE_MAX_THREADS = 256 };

/* The mutations (docs/testing.md, "Mutation testing"), with their names in JSON. */
typedef enum MutKind {
    MUT_ATTEMPTS_UP, MUT_ATTEMPTS_DOWN, MUT_BACKOFF,
    MUT_INITIAL_DOUBLE, MUT_INITIAL_HALVE, MUT_MAX_DOUBLE, MUT_MAX_HALVE,
    MUT_NON_RETRYABLE_DROP,
    MUT_TIMEOUT_DOUBLE, MUT_TIMEOUT_HALVE, MUT_TIMEOUT_REMOVE,
    MUT_QUEUE_DOUBLE, MUT_QUEUE_HALVE, MUT_QUEUE_REMOVE,
    MUT_COMPENSATE_REMOVE, MUT_WHEN_NEGATE,
} MutKind;

static const char *const MUT_NAMES[] = {
    [MUT_ATTEMPTS_UP] = "attempts_up", [MUT_ATTEMPTS_DOWN] = "attempts_down",
    [MUT_BACKOFF] = "backoff",
    [MUT_INITIAL_DOUBLE] = "initial_delay_double", [MUT_INITIAL_HALVE] = "initial_delay_halve",
    [MUT_MAX_DOUBLE] = "max_delay_double", [MUT_MAX_HALVE] = "max_delay_halve",
    [MUT_NON_RETRYABLE_DROP] = "non_retryable_drop",
    [MUT_TIMEOUT_DOUBLE] = "timeout_double", [MUT_TIMEOUT_HALVE] = "timeout_halve",
    [MUT_TIMEOUT_REMOVE] = "timeout_remove",
    [MUT_QUEUE_DOUBLE] = "queue_timeout_double", [MUT_QUEUE_HALVE] = "queue_timeout_halve",
    [MUT_QUEUE_REMOVE] = "queue_timeout_remove",
    [MUT_COMPENSATE_REMOVE] = "compensate_remove", [MUT_WHEN_NEGATE] = "when_negate",
};

/* One test of a program, read once: its scenario and the history the program gave. */
typedef struct MutTest {
    TestCase tc;
    const char *name;
    char *scenario;           /* malloc'd */
    char *history;            /* the program's JSON history (malloc'd) */
    size_t history_len;
} MutTest;

/* A program with tests: its bytecode as liborbc writes a loaded module again. */
typedef struct Subject {
    const Program *program;
    uint8_t *bytes;           /* malloc'd */
    size_t len;
    OrbcModule module;        /* loaded from bytes: read to plan the mutants */
    MutTest *tests;
    uint32_t test_count;
} Subject;

/* One mutant to make and run. */
typedef struct Plan {
    Subject *subject;
    uint32_t workflow;        /* index in the program and the module */
    uint32_t step;            /* ORBC_NONE: the workflow itself */
    bool compensate;          /* the member is in the step's compensate block */
    MutKind kind;
    uint32_t code;            /* MUT_NON_RETRYABLE_DROP: the code's place in the list */
    bool max_written;         /* MUT_INITIAL_*: `max_delay` is written (else its default
                                 follows the initial delay, as the checker makes it) */
    Mutant *out;
} Plan;

typedef struct Pool {
    Plan *plans;
    uint32_t count;
    _Atomic uint32_t next;
    _Atomic bool failed;      /* a mutant the verifier refused: a bug here */
    char why[256];
    pthread_mutex_t lock;
} Pool;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *duration(Arena *arena, int64_t ms)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(text, ms);
    return arena_strndup(arena, text, strlen(text));
}

/* ---- making a mutant ---------------------------------------------------------------- */

static OrbcPolicy *policy_of(OrbcStep *s, bool compensate)
{
    return compensate ? &s->compensate.policy : &s->policy;
}

/* The effective timeout of a step whose `timeout` is removed: its built-in task's
 * default, as the checker gives it to a step that writes none. */
static int64_t default_timeout(const OrbcModule *m, const OrbcStep *s, bool compensate)
{
    uint32_t task = compensate ? s->compensate.task : s->target;
    bool builtin = compensate ? m->tasks[task].kind == ORBC_TASK_BUILTIN
                              : s->kind == ORBC_STEP_BUILTIN;
    return builtin ? m->tasks[task].default_timeout_ms : 0;
}

/* Code blocks no step or workflow uses any more are removed and the indices of the
 * others renumbered: the loader refuses a block that is never used. */
static void drop_unused_codes(OrbcModule *m)
{
    uint32_t *map = xcalloc(m->code_count + 1, sizeof *map);
    for (uint32_t i = 0; i < m->code_count; i++)
        map[i] = ORBC_NONE;
#define REFS(F)                                                                          \
    for (uint32_t w = 0; w < m->workflow_count; w++) {                                   \
        OrbcWorkflow *wf = &m->workflows[w];                                             \
        F(wf->return_code);                                                              \
        for (uint32_t k = 0; k < wf->step_count; k++) {                                  \
            OrbcStep *s = &wf->steps[k];                                                 \
            F(s->for_code); F(s->when_code); F(s->with_code); F(s->key_code);            \
            F(s->value_code);                                                            \
            if (s->has_compensate) {                                                     \
                F(s->compensate.with_code); F(s->compensate.key_code);                   \
            }                                                                            \
        }                                                                                \
    }
#define MARK(ref) if ((ref) != ORBC_NONE) map[(ref)] = 0;
#define RENUMBER(ref) if ((ref) != ORBC_NONE) (ref) = map[(ref)];
    REFS(MARK)
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->code_count; i++) {
        if (map[i] == ORBC_NONE)
            continue;
        m->codes[kept] = m->codes[i];
        map[i] = kept++;
    }
    m->code_count = kept;
    REFS(RENUMBER)
#undef REFS
#undef MARK
#undef RENUMBER
    free(map);
}

/* The code of `c` with every `return` preceded by `not`: the negated condition. Jump
 * targets and positions follow their instructions. The new arrays are malloc'd into
 * *code and *pos (the caller frees them). */
static void negate_code(OrbcCode *c, uint8_t **code, OrbcPos **pos)
{
    uint32_t returns = 0;
    for (uint32_t at = 0; at < c->len; at += orbc_instr_size(c->code + at, c->len - at))
        returns += c->code[at] == ORBC_OP_RETURN;
    uint32_t len = c->len + returns;
    uint32_t *map = xcalloc(c->len + 1, sizeof *map);
    uint8_t *out = xmalloc(len);
    uint32_t n = 0;
    for (uint32_t at = 0; at < c->len;) {
        uint32_t size = orbc_instr_size(c->code + at, c->len - at);
        map[at] = n;
        if (c->code[at] == ORBC_OP_RETURN)
            out[n++] = ORBC_OP_NOT;
        memcpy(out + n, c->code + at, size);
        n += size;
        at += size;
    }
    map[c->len] = n;
    for (uint32_t at = 0; at < len;) {
        uint32_t size = orbc_instr_size(out + at, len - at);
        const OrbcOpInfo *info = orbc_op_info(out[at]);
        if (!size || !info)
            break;   /* never in a verified block */
        if (info->operands == ORBC_OPERANDS_TARGET) {
            uint32_t target = map[orbc_u32(out + at + 1)];
            for (int b = 0; b < 4; b++)
                out[at + 1 + b] = (uint8_t)(target >> (8 * b));
        }
        at += size;
    }
    OrbcPos *p = xmalloc((c->pos_count + 1) * sizeof *p);
    for (uint32_t i = 0; i < c->pos_count; i++) {
        p[i] = c->pos[i];
        p[i].offset = map[c->pos[i].offset];
    }
    free(map);
    c->code = out;
    c->len = len;
    c->pos = p;
    *code = out;
    *pos = p;
}

static int64_t halve(int64_t ms)
{
    return ms / 2;
}

/* Applies the plan to `m`, a module of its own (loaded for it). The arrays made for
 * it go into *code and *pos (freed by the caller after serializing). */
static void apply(OrbcModule *m, const Plan *p, uint8_t **code, OrbcPos **pos)
{
    OrbcWorkflow *wf = &m->workflows[p->workflow];
    if (p->step == ORBC_NONE) {
        if (p->kind == MUT_TIMEOUT_DOUBLE)
            wf->timeout_ms *= 2;
        else if (p->kind == MUT_TIMEOUT_HALVE)
            wf->timeout_ms = halve(wf->timeout_ms);
        else
            wf->timeout_ms = 0;
        return;
    }
    OrbcStep *s = &wf->steps[p->step];
    OrbcPolicy *pol = policy_of(s, p->compensate);
    int64_t *timeout = p->compensate ? &s->compensate.timeout_ms : &s->timeout_ms;
    int64_t *queue = p->compensate ? &s->compensate.queue_timeout_ms : &s->queue_timeout_ms;
    switch (p->kind) {
    case MUT_ATTEMPTS_UP: pol->attempts++; break;
    case MUT_ATTEMPTS_DOWN: pol->attempts--; break;
    case MUT_BACKOFF: pol->backoff = pol->backoff == ORBC_BACKOFF_FIXED
                                   ? ORBC_BACKOFF_EXPONENTIAL : ORBC_BACKOFF_FIXED; break;
    case MUT_INITIAL_DOUBLE:
    case MUT_INITIAL_HALVE:
        pol->initial_delay_ms = p->kind == MUT_INITIAL_DOUBLE ? 2 * pol->initial_delay_ms
                                                              : halve(pol->initial_delay_ms);
        if (!p->max_written)
            pol->max_delay_ms = pol->initial_delay_ms > ORBC_DEFAULT_MAX_DELAY_MS
                ? pol->initial_delay_ms : ORBC_DEFAULT_MAX_DELAY_MS;
        break;
    case MUT_MAX_DOUBLE: pol->max_delay_ms *= 2; break;
    case MUT_MAX_HALVE: pol->max_delay_ms = halve(pol->max_delay_ms); break;
    case MUT_NON_RETRYABLE_DROP:
        memmove(&pol->non_retryable[p->code], &pol->non_retryable[p->code + 1],
                (pol->non_retryable_count - p->code - 1) * sizeof *pol->non_retryable);
        pol->non_retryable_count--;
        break;
    case MUT_TIMEOUT_DOUBLE: *timeout *= 2; break;
    case MUT_TIMEOUT_HALVE: *timeout = halve(*timeout); break;
    case MUT_TIMEOUT_REMOVE: *timeout = default_timeout(m, s, p->compensate); break;
    case MUT_QUEUE_DOUBLE: *queue *= 2; break;
    case MUT_QUEUE_HALVE: *queue = halve(*queue); break;
    case MUT_QUEUE_REMOVE: *queue = 0; break;
    case MUT_COMPENSATE_REMOVE:
        s->has_compensate = false;
        drop_unused_codes(m);
        break;
    case MUT_WHEN_NEGATE:
        negate_code(&m->codes[s->when_code], code, pos);
        break;
    }
}

/* The mutant of `p` loaded, through liborbc's verifier, into *out; *same when its
 * bytecode is the program's. False with `why` when the verifier refuses it. */
static bool make_mutant(const Plan *p, OrbcModule *out, bool *same, char *why,
                        size_t why_size)
{
    const Subject *s = p->subject;
    OrbcModule m;
    OrbcError err;
    if (!orbc_load(s->bytes, s->len, &m, &err)) {
        snprintf(why, why_size, "the program's bytecode does not load again: %.150s", err.text);
        return false;
    }
    uint8_t *code = NULL;
    OrbcPos *pos = NULL;
    apply(&m, p, &code, &pos);
    uint8_t *bytes = NULL;
    size_t len = 0;
    bool ok = orbc_serialize(&m, &bytes, &len, &err);
    /* The module's arrays were the loader's, but for the negated code: */
    free(code);
    free(pos);
    orbc_module_free(&m);
    if (ok) {
        *same = len == s->len && (len == 0 || memcmp(bytes, s->bytes, len) == 0);
        ok = orbc_load(bytes, len, out, &err);
    }
    free(bytes);
    if (!ok)
        snprintf(why, why_size, "the mutant `%s` (%s) is refused by liborbc: %.150s",
                 p->out->change, p->out->member, err.text);
    return ok;
}

/* ---- running the tests against a mutant ---------------------------------------------- */

/* Whether `t` passes against `module`: a history the same byte for byte as the
 * program's passes as it did (the judge reads nothing else); else it is judged. */
static bool test_passes(Arena *arena, const OrbcModule *module, const MutTest *t)
{
    char err[1024];
    int status;
    size_t json_len = 0;
    char *json = testing_run_history(module, t->name, t->scenario, HISTORY_JSON, &status,
                                     &json_len, err, sizeof err);
    if (status == 2) {
        free(json);
        return false;   /* the runtime refuses the world: the test noticed */
    }
    if (json_len == t->history_len && (json_len == 0 || memcmp(json, t->history, json_len) == 0)) {
        free(json);
        return true;
    }
    size_t text_len = 0;
    int text_status;
    char *text = testing_run_history(module, t->name, t->scenario, HISTORY_TEXT,
                                     &text_status, &text_len, err, sizeof err);
    ArenaMark mark = arena_mark(arena);
    TestHistory h;
    bool passed = false;
    if (testing_history_read(arena, json, json_len, text, text_len, &h)) {
        TestResult r = { .name = t->name };
        uint32_t *positions = NULL;
        TestCase tc = t->tc;
        tc.module = module;   /* the built-in invariants read the mutant's policies */
        testing_judge(arena, &tc, &h, &r, &positions);
        passed = r.status == TEST_PASSED;
        testing_history_free(&h);
    }
    arena_rewind(arena, mark);
    free(json);
    free(text);
    return passed;
}

static void run_plan(Pool *pool, Plan *p, Arena *arena)
{
    OrbcModule module;
    bool same = false;
    char why[256];
    if (!make_mutant(p, &module, &same, why, sizeof why)) {
        pthread_mutex_lock(&pool->lock);
        if (!atomic_load(&pool->failed))
            snprintf(pool->why, sizeof pool->why, "%s", why);
        atomic_store(&pool->failed, true);
        pthread_mutex_unlock(&pool->lock);
        return;
    }
    Mutant *m = p->out;
    if (same) {
        m->status = MUTANT_EQUIVALENT;
        m->reason = "its bytecode is the program's";
        orbc_module_free(&module);
        return;
    }
    m->status = MUTANT_SURVIVED;
    const Subject *s = p->subject;
    for (uint32_t i = 0; i < s->test_count; i++) {
        if (!test_passes(arena, &module, &s->tests[i])) {
            m->status = MUTANT_KILLED;
            m->killed_by = s->tests[i].name;
            m->hint = NULL;
            break;
        }
    }
    orbc_module_free(&module);
}

typedef struct Thread {
    Pool *pool;
    Arena arena;
} Thread;

static void *thread_main(void *arg)
{
    Thread *t = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&t->pool->next, 1);
        if (i >= t->pool->count || atomic_load(&t->pool->failed))
            return NULL;
        run_plan(t->pool, &t->pool->plans[i], &t->arena);
    }
}

/* ---- planning: the mutants of a program, placed in its source --------------------- */

typedef struct Planner {
    MutationRun *run;
    Subject *subject;
    const SourceMap *map;
    Plan *plans;
    uint32_t plan_count, plan_capacity;
    Mutant *mutants;
    uint32_t mutant_count, mutant_capacity;
    uint32_t score;           /* the workflow being planned: its index in run->workflows */
} Planner;

/* Where the member at `pos` is: its file, line and column, as diagnostics show them. */
static void place_mutant(const Planner *pl, Mutant *m, uint32_t pos)
{
    m->file = source_file(pl->map, source_file_at(pl->map, pos))->path;
    testing_place(pl->map, pos, &m->line, &m->column);
}

/* A new mutant (its plan made later by add_plan), placed at `pos`. */
static Mutant *add_mutant(Planner *pl, const char *workflow, const char *member,
                          MutKind kind, uint32_t pos, const char *change)
{
    if (pl->mutant_count == pl->mutant_capacity) {
        pl->mutant_capacity = pl->mutant_capacity ? 2 * pl->mutant_capacity : 64;
        pl->mutants = xrealloc(pl->mutants, pl->mutant_capacity * sizeof *pl->mutants);
    }
    Mutant *m = &pl->mutants[pl->mutant_count++];
    *m = (Mutant){ .workflow = workflow, .member = member, .mutation = MUT_NAMES[kind],
                   .change = change, .score = pl->score };
    place_mutant(pl, m, pos);
    return m;
}

/* The plan of the last mutant added: it is run unless `equivalent` says why not. */
static void add_plan(Planner *pl, Plan plan, const char *equivalent, const char *hint)
{
    Mutant *m = &pl->mutants[pl->mutant_count - 1];
    m->hint = hint;
    if (equivalent) {
        m->status = MUTANT_EQUIVALENT;
        m->reason = equivalent;
        m->hint = NULL;
        return;
    }
    if (pl->plan_count == pl->plan_capacity) {
        pl->plan_capacity = pl->plan_capacity ? 2 * pl->plan_capacity : 64;
        pl->plans = xrealloc(pl->plans, pl->plan_capacity * sizeof *pl->plans);
    }
    plan.subject = pl->subject;
    plan.out = (Mutant *)(uintptr_t)(pl->mutant_count - 1);   /* an index until the end */
    pl->plans[pl->plan_count++] = plan;
}

/* The member of block `b` written `name:` (a retry setting), or NULL. */
static const Member *attr(const Block *b, const char *name)
{
    for (const Member *m = block_first(b), *end = block_end(b); m != end; m++)
        if (m->kind == MEMBER_ATTR && m->name && strcmp(m->name->text, name) == 0)
            return m;
    return NULL;
}

/* The clause `kw` of block `b`, or NULL. */
static const Member *clause(const Block *b, Keyword kw)
{
    for (const Member *m = block_first(b), *end = block_end(b); m != end; m++)
        if (m->kind == MEMBER_CLAUSE && m->keyword == kw)
            return m;
    return NULL;
}

/* The delays a policy waits, before attempts 2..attempts, as text ("500ms, 1s, 2s"). */
static const char *delays_text(Arena *arena, const OrbcPolicy *p)
{
    if (p->attempts < 2)
        return "one attempt: none";
    TextBuffer t = { 0 };
    for (uint32_t a = 2; a <= p->attempts && a <= 12; a++) {
        char d[ORBC_DURATION_TEXT_SIZE];
        orbc_format_duration(d, orbc_retry_delay(p->backoff, p->initial_delay_ms,
                                                 p->max_delay_ms, a));
        text_printf(&t, "%s%s", a > 2 ? ", " : "", d);
    }
    if (p->attempts > 12)
        text_append_str(&t, ", …");
    const char *s = arena_strndup(arena, t.data ? t.data : "", t.len);
    text_free(&t);
    return s;
}

/* The first attempt (>= 2) before which policies `a` and `b` wait differently, or 0. */
static uint32_t first_delay_difference(const OrbcPolicy *a, const OrbcPolicy *b)
{
    uint32_t n = a->attempts < b->attempts ? a->attempts : b->attempts;
    for (uint32_t k = 2; k <= n; k++)
        if (orbc_retry_delay(a->backoff, a->initial_delay_ms, a->max_delay_ms, k)
            != orbc_retry_delay(b->backoff, b->initial_delay_ms, b->max_delay_ms, k))
            return k;
    return 0;
}

/* The test that tells policy `a` from `b`, which first wait differently before attempt
 * k: the k - 1 attempts before it failed, and every retry's delay up to it expected in
 * order (a subsequence of one entry could match an earlier retry of the same delay). */
static const char *delay_hint(Arena *arena, const char *member, const char *events_step,
                              const OrbcPolicy *a, const OrbcPolicy *b, uint32_t k)
{
    TextBuffer t = { 0 };
    text_printf(&t, "reach attempt %u of %s (fail the %u before it with a retryable code) "
                    "and expect `events: [", k, member, k - 1);
    for (uint32_t n = 2; n <= k; n++)
        text_printf(&t, "%s\"RetryScheduled step=%s delay_ms=%" PRId64 "\"", n > 2 ? ", " : "",
                    events_step, orbc_retry_delay(a->backoff, a->initial_delay_ms,
                                                  a->max_delay_ms, n));
    text_printf(&t, "]`: the mutant waits %" PRId64 " ms before attempt %u",
                orbc_retry_delay(b->backoff, b->initial_delay_ms, b->max_delay_ms, k), k);
    const char *hint = arena_strndup(arena, t.data, t.len);
    text_free(&t);
    return hint;
}

typedef struct Where {
    const char *workflow;     /* its name */
    const char *step;         /* the step's name */
    const char *member;       /* "step charge" or "step charge: compensate" */
    const char *who;          /* in hints: "step charge", "the compensation of step charge" */
    const char *events_step;  /* the `step=` of its attempts' events: "charge",
                                 "charge.compensate" */
    bool compensate;
    uint32_t workflow_index, step_index;
} Where;

/* The mutants of a delay setting (`initial_delay`, `max_delay`) of a written policy. */
static void plan_delay(Planner *pl, const Where *at, const OrbcPolicy *pol, const Member *m,
                       bool initial, bool max_written)
{
    Arena *a = &pl->run->arena;
    const char *name = initial ? "initial_delay" : "max_delay";
    int64_t ms = initial ? pol->initial_delay_ms : pol->max_delay_ms;
    for (int twice = 1; twice >= 0; twice--) {
        int64_t to = twice ? 2 * ms : halve(ms);
        if (to == ms || (twice && ms > INT64_MAX / 4))
            continue;   /* 0 doubled or halved is 0: not a mutant */
        OrbcPolicy mutated = *pol;
        if (initial) {
            mutated.initial_delay_ms = to;
            if (!max_written)
                mutated.max_delay_ms = to > ORBC_DEFAULT_MAX_DELAY_MS ? to
                                                                        : ORBC_DEFAULT_MAX_DELAY_MS;
        } else {
            mutated.max_delay_ms = to;
        }
        if (mutated.max_delay_ms < mutated.initial_delay_ms)
            continue;   /* `max_delay` under `initial_delay`: not a valid program */
        MutKind kind = initial ? (twice ? MUT_INITIAL_DOUBLE : MUT_INITIAL_HALVE)
                               : (twice ? MUT_MAX_DOUBLE : MUT_MAX_HALVE);
        add_mutant(pl, at->workflow, at->member, kind, m->span.start,
                   arena_printf(a, "%s %s → %s", name, duration(a, ms), duration(a, to)));
        uint32_t k = first_delay_difference(pol, &mutated);
        const char *same = k ? NULL
            : arena_printf(a, "the same delays before each attempt (%s)", delays_text(a, pol));
        const char *hint = k ? delay_hint(a, at->who, at->events_step, pol, &mutated, k)
                             : NULL;
        add_plan(pl, (Plan){ .workflow = at->workflow_index, .step = at->step_index,
                             .compensate = at->compensate, .kind = kind,
                             .max_written = max_written }, same, hint);
    }
}

/* The mutants of a written `retry` block (`retry_member`) over the effective policy. */
static void plan_policy(Planner *pl, const Where *at, const OrbcPolicy *pol,
                        const Member *retry_member)
{
    Arena *a = &pl->run->arena;
    const Block *b = member_body(retry_member);
    const Member *m;
    Plan base = { .workflow = at->workflow_index, .step = at->step_index,
                  .compensate = at->compensate };
    if ((m = attr(b, "attempts"))) {
        const char *what = at->who;
        if (pol->attempts < ORBC_MAX_ATTEMPTS) {
            add_mutant(pl, at->workflow, at->member, MUT_ATTEMPTS_UP, m->span.start,
                       arena_printf(a, "attempts %u → %u", pol->attempts, pol->attempts + 1));
            base.kind = MUT_ATTEMPTS_UP;
            add_plan(pl, base, NULL, at->compensate
                ? arena_printf(a, "make every attempt of %s fail with a retryable code and "
                                  "expect `CompensationFailed step=%s` in `events` at its "
                                  "time, after attempt %u", what, at->step, pol->attempts)
                : arena_printf(a, "make every attempt of %s fail with a retryable code and "
                                  "expect `step %s { status: failed, attempts: %u }`", what,
                               at->step, pol->attempts));
        }
        if (pol->attempts > 1) {
            add_mutant(pl, at->workflow, at->member, MUT_ATTEMPTS_DOWN, m->span.start,
                       arena_printf(a, "attempts %u → %u", pol->attempts, pol->attempts - 1));
            base.kind = MUT_ATTEMPTS_DOWN;
            add_plan(pl, base, NULL, at->compensate
                ? arena_printf(a, "make the first %u attempts of %s fail with a retryable "
                                  "code and the last succeed, and expect "
                                  "`compensation: completed`", pol->attempts - 1, what)
                : arena_printf(a, "make the first %u attempts of %s fail with a retryable "
                                  "code and the last succeed, and expect `step %s { status: "
                                  "completed, attempts: %u }`", pol->attempts - 1, what,
                               at->step, pol->attempts));
        }
    }
    if ((m = attr(b, "backoff"))) {
        OrbcPolicy mutated = *pol;
        mutated.backoff = pol->backoff == ORBC_BACKOFF_FIXED ? ORBC_BACKOFF_EXPONENTIAL
                                                             : ORBC_BACKOFF_FIXED;
        bool exp = pol->backoff == ORBC_BACKOFF_EXPONENTIAL;
        add_mutant(pl, at->workflow, at->member, MUT_BACKOFF, m->span.start,
                   exp ? "backoff exponential → fixed" : "backoff fixed → exponential");
        uint32_t k = first_delay_difference(pol, &mutated);
        base.kind = MUT_BACKOFF;
        add_plan(pl, base,
                 k ? NULL : arena_printf(a, "the same delays before each attempt (%s)",
                                         delays_text(a, pol)),
                 k ? delay_hint(a, at->who, at->events_step, pol, &mutated, k) : NULL);
    }
    bool max_written = attr(b, "max_delay") != NULL;
    if ((m = attr(b, "initial_delay")))
        plan_delay(pl, at, pol, m, true, max_written);
    if ((m = attr(b, "max_delay")))
        plan_delay(pl, at, pol, m, false, true);
    if ((m = attr(b, "non_retryable"))) {
        const Expr *list = member_value(m);
        for (uint32_t i = 0; i < pol->non_retryable_count; i++) {
            const OrbcString *code = &pl->subject->module.strings[pol->non_retryable[i]];
            uint32_t pos = list && list->kind == EXPR_LIST && i < list->count
                ? list->elems[i]->span.start : m->span.start;
            add_mutant(pl, at->workflow, at->member, MUT_NON_RETRYABLE_DROP, pos,
                       arena_printf(a, "non_retryable \"%s\" dropped", code->text));
            bool twice = false;
            for (uint32_t j = 0; j < pol->non_retryable_count; j++)
                twice |= j != i && pol->non_retryable[j] == pol->non_retryable[i];
            base.kind = MUT_NON_RETRYABLE_DROP;
            base.code = i;
            add_plan(pl, base,
                     twice ? "the list names the code again" : NULL,
                     arena_printf(a, "fail an attempt of %s with `{ code: \"%s\", retryable: "
                                     "true }` (a worker that says it may be retried) and "
                                     "expect %s", at->who,
                                  code->text, at->compensate
                                      ? "`compensation: failed` without a retry"
                                      : arena_printf(a, "`step %s { attempts: 1, error: \"%s\" }`",
                                                     at->step, code->text)));
            base.code = 0;
        }
    }
}

/* The mutants of a written `timeout` or `queue_timeout` clause `m` of a step (or its
 * compensation), whose effective value is `ms`. */
static void plan_step_timeout(Planner *pl, const Where *at, const OrbcStep *s, const Member *m,
                              bool queue, int64_t ms)
{
    Arena *a = &pl->run->arena;
    const OrbcModule *module = &pl->subject->module;
    const char *word = queue ? "queue_timeout" : "timeout";
    Plan base = { .workflow = at->workflow_index, .step = at->step_index,
                  .compensate = at->compensate };
    int64_t removed = queue ? 0 : default_timeout(module, s, at->compensate);
    const char *sig = s->kind == ORBC_STEP_AWAIT && s->target != ORBC_NONE
        ? module->strings[s->target].text : "";
    const char *child = s->kind == ORBC_STEP_WORKFLOW
        ? module->strings[module->workflows[s->target].name].text : "";
    const char *who = at->who;
    for (int k = 0; k < 3; k++) {
        MutKind kind = queue ? (k == 0 ? MUT_QUEUE_DOUBLE : k == 1 ? MUT_QUEUE_HALVE
                                                                   : MUT_QUEUE_REMOVE)
                             : (k == 0 ? MUT_TIMEOUT_DOUBLE : k == 1 ? MUT_TIMEOUT_HALVE
                                                                     : MUT_TIMEOUT_REMOVE);
        int64_t to = k == 0 ? 2 * ms : k == 1 ? halve(ms) : removed;
        if (k == 0 && ms > INT64_MAX / 4)
            continue;
        if (k == 1 && to == 0)
            continue;   /* 1ms halved is none: the removal, below */
        const char *change = k == 2 ? arena_printf(a, "%s %s removed", word, duration(a, ms))
            : arena_printf(a, "%s %s → %s", word, duration(a, ms), duration(a, to));
        add_mutant(pl, at->workflow, at->member, kind, m->span.start, change);
        const char *same = to == ms
            ? arena_printf(a, "`%s %s` is the built-in task's default: the same bytecode",
                           word, duration(a, ms)) : NULL;
        /* A time between the program's limit and the mutant's. */
        int64_t lo = k == 1 ? to : ms, hi = k == 1 ? ms : (to ? to : 2 * ms);
        const char *between = duration(a, lo + (hi - lo) / 2);
        const char *hint;
        if (queue) {
            hint = k == 1
                ? arena_printf(a, "let %s be picked up after %s (`pickup: %s`, between the "
                                  "mutant's %s and the program's %s) and expect it to run",
                               who, between, between, duration(a, to), duration(a, ms))
                : arena_printf(a, "let %s wait in the queue %s (`pickup: %s`%s) and expect "
                                  "`QUEUE_TIMEOUT` at %s", who, between, between,
                               k == 2 ? ", or `no_worker: true`" : "", duration(a, ms));
        } else if (s->kind == ORBC_STEP_AWAIT && !at->compensate) {
            hint = k == 1
                ? arena_printf(a, "send \"%s\" %s after the await starts (between the "
                                  "mutant's %s and the program's %s) and expect `step %s { "
                                  "status: completed }`", sig, between, duration(a, to),
                               duration(a, ms), at->step)
                : arena_printf(a, "send \"%s\" %s after the await starts, or never, and "
                                  "expect `SIGNAL_TIMEOUT` at %s after it", sig,
                               between, duration(a, ms));
        } else if (s->kind == ORBC_STEP_WORKFLOW && !at->compensate) {
            hint = k == 1
                ? arena_printf(a, "let the child `%s` take %s (between the mutant's %s and "
                                  "the program's %s) and expect `step %s { status: completed "
                                  "}`", child, between, duration(a, to), duration(a, ms),
                               at->step)
                : arena_printf(a, "let the child `%s` take %s or never end and expect `step "
                                  "%s { error: \"TIMEOUT\" }` at %s", child, between,
                               at->step, duration(a, ms));
        } else {
            hint = k == 1
                ? arena_printf(a, "let an attempt of %s answer `after: %s` (between the "
                                  "mutant's %s and the program's %s) and expect it to "
                                  "succeed", who, between, duration(a, to), duration(a, ms))
                : arena_printf(a, "let an attempt of %s answer `after: %s`%s and expect it "
                                  "to fail with `TIMEOUT` at %s", who, between,
                               k == 2 ? " (or `never_answers: true`)" : "", duration(a, ms));
        }
        base.kind = kind;
        add_plan(pl, base, same, hint);
    }
}

/* The mutants of a workflow's written `timeout`. */
static void plan_workflow_timeout(Planner *pl, const Where *at, const Workflow *wf,
                                  int64_t ms)
{
    Arena *a = &pl->run->arena;
    const Worst *running = &wf->worst.running;
    const char *worst = NULL;
    if (running->unbounded == UNBOUNDED_NONE) {
        TextBuffer t = { 0 };
        worst_text(running, wf->name, &t);
        worst = arena_strndup(a, t.data, t.len);
        text_free(&t);
    }
    for (int k = 0; k < 3; k++) {
        MutKind kind = k == 0 ? MUT_TIMEOUT_DOUBLE : k == 1 ? MUT_TIMEOUT_HALVE
                                                            : MUT_TIMEOUT_REMOVE;
        int64_t to = k == 0 ? 2 * ms : k == 1 ? halve(ms) : 0;
        if ((k == 0 && ms > INT64_MAX / 4) || (k == 1 && to == 0))
            continue;
        add_mutant(pl, at->workflow, at->member, kind, wf->timeout_span.start,
                   k == 2 ? arena_printf(a, "timeout %s removed", duration(a, ms))
                          : arena_printf(a, "timeout %s → %s", duration(a, ms),
                                         duration(a, to)));
        /* The steps end first, under the program's limit and under the mutant's (a limit
           comes last at its millisecond: docs/runtime.md, "Ties"): neither ever fires. */
        int64_t limit = k == 1 ? to : ms;
        const char *same = worst && running->ms <= limit
            ? arena_printf(a, "its steps take at most %s: the timeout never fires", worst)
            : NULL;
        int64_t lo = k == 1 ? to : ms, hi = k == 1 ? ms : 2 * ms;
        const char *between = duration(a, lo + (hi - lo) / 2);
        const char *hint = k == 1
            ? arena_printf(a, "a world where %s takes %s (between the mutant's %s and the "
                              "program's %s), expecting it to complete", at->workflow,
                           between, duration(a, to), duration(a, ms))
            : arena_printf(a, "a world where %s's steps take %s%s, expecting `status: "
                              "timed_out` at %s", at->workflow, between,
                           k == 2 ? " or more" : "", duration(a, ms));
        add_plan(pl, (Plan){ .workflow = at->workflow_index, .step = ORBC_NONE,
                             .kind = kind }, same, hint);
    }
}

/* The members of a step block (or compensate block) `b` that its mutants change. */
static void plan_task_members(Planner *pl, const Where *at, const OrbcStep *s, const Block *b)
{
    const OrbcPolicy *pol = at->compensate ? &s->compensate.policy : &s->policy;
    const Member *m;
    if ((m = clause(b, KW_RETRY)))
        plan_policy(pl, at, pol, m);
    if ((m = clause(b, KW_TIMEOUT)))
        plan_step_timeout(pl, at, s, m, false,
                          at->compensate ? s->compensate.timeout_ms : s->timeout_ms);
    if ((m = clause(b, KW_QUEUE_TIMEOUT)))
        plan_step_timeout(pl, at, s, m, true,
                          at->compensate ? s->compensate.queue_timeout_ms : s->queue_timeout_ms);
}

static void plan_step(Planner *pl, Where at, const OrbcStep *s, const Member *decl)
{
    Arena *a = &pl->run->arena;
    const Block *b = member_body(decl);
    const Member *m;
    if ((m = clause(b, KW_WHEN)) && s->when_code != ORBC_NONE) {
        add_mutant(pl, at.workflow, at.member, MUT_WHEN_NEGATE, m->span.start,
                   "when negated");
        add_plan(pl, (Plan){ .workflow = at.workflow_index, .step = at.step_index,
                             .kind = MUT_WHEN_NEGATE }, NULL,
                 arena_printf(a, "expect `step %s { status: skipped }` in a test where its "
                                 "`when` is false, and its `status` in one where it is true",
                              at.step));
    }
    plan_task_members(pl, &at, s, b);
    if ((m = clause(b, KW_COMPENSATE)) && s->has_compensate) {
        add_mutant(pl, at.workflow, at.member, MUT_COMPENSATE_REMOVE, m->span.start,
                   "compensate removed");
        add_plan(pl, (Plan){ .workflow = at.workflow_index, .step = at.step_index,
                             .kind = MUT_COMPENSATE_REMOVE }, NULL,
                 arena_printf(a, "let %s complete and a later step fail, and expect `step "
                                 "%s { compensated: true }`", at.member, at.step));
        Where in = at;
        in.compensate = true;
        in.member = arena_printf(a, "%s: compensate", at.member);
        in.who = arena_printf(a, "the compensation of %s", at.member);
        in.events_step = arena_printf(a, "%s.compensate", at.step);
        plan_task_members(pl, &in, s, member_body(m));
    }
}

/* The declaration of workflow `wf` in the sources. */
static const Member *workflow_decl(const Compiler *c, const Workflow *wf)
{
    for (uint32_t f = 0; f < c->sources.count; f++) {
        const SourceAst *ast = c->asts[f];
        for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
            if (m->span.start == wf->span.start && m->keyword == KW_WORKFLOW)
                return m;
    }
    return NULL;
}

static void plan_program(Planner *pl, const Compiler *c)
{
    Arena *a = &pl->run->arena;
    const Program *p = pl->subject->program;
    const OrbcModule *module = &pl->subject->module;
    for (uint32_t w = 0; w < p->workflow_count; w++) {
        const Workflow *wf = &p->workflows[w];
        const OrbcWorkflow *owf = &module->workflows[w];
        pl->score = pl->run->workflow_count++;
        MutationScore *score = &pl->run->workflows[pl->score];
        *score = (MutationScore){ .workflow = wf->name->text };
        score->file = source_file(pl->map, source_file_at(pl->map, wf->span.start))->path;
        testing_place(pl->map, wf->span.start, &score->line, &score->column);
        const Member *decl = workflow_decl(c, wf);
        if (!decl)
            continue;
        Where at = { .workflow = wf->name->text, .workflow_index = w,
                     .step_index = ORBC_NONE,
                     .member = arena_printf(a, "workflow %s", wf->name->text) };
        if (owf->timeout_ms > 0 && clause(member_body(decl), KW_TIMEOUT))
            plan_workflow_timeout(pl, &at, wf, owf->timeout_ms);
        for (uint32_t k = 0; k < wf->step_count && k < owf->step_count; k++) {
            const Step *step = &wf->steps[k];
            const Member *sdecl = NULL;
            const Block *body = member_body(decl);
            for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
                if (m->span.start == step->span.start)
                    sdecl = m;
            if (!sdecl)
                continue;
            Where sat = at;
            sat.step = step->name->text;
            sat.step_index = k;
            sat.member = arena_printf(a, "step %s", step->name->text);
            sat.who = sat.member;
            sat.events_step = step->name->text;
            plan_step(pl, sat, &owf->steps[k], sdecl);
        }
    }
}

/* ---- the run --------------------------------------------------------------------------- */

/* The program's bytecode as liborbc writes its loaded module again (the mutants are
 * written the same way, so that an unchanged mutant has the same bytes), with its tests
 * and the history each gives. */
static bool prepare_subject(Workspace *w, uint32_t root, const TestingOptions *options,
                            Arena *arena, Subject *s, char *why, size_t why_size)
{
    const Program *p = w->checked[root];
    s->program = p;
    uint8_t *bytes;
    size_t len;
    if (!lower_program(w->c, p, &bytes, &len, why, why_size))
        return false;
    OrbcError err;
    OrbcModule first;
    bool ok = orbc_load(bytes, len, &first, &err);
    free(bytes);
    if (ok) {
        ok = orbc_serialize(&first, &s->bytes, &s->len, &err);
        orbc_module_free(&first);
    }
    if (ok)
        ok = orbc_load(s->bytes, s->len, &s->module, &err);
    if (!ok) {
        snprintf(why, why_size, "the program's bytecode does not load: %s", err.text);
        return false;
    }
    s->tests = xcalloc(p->test_count + 1, sizeof *s->tests);
    for (uint32_t i = 0; i < p->test_count; i++) {
        const Member *test = p->tests[i];
        if (options->filter && !strstr(test->name->text, options->filter))
            continue;
        const char *no = NULL;
        const Workflow *wf = testing_workflow_of(arena, p, test, &no);
        TestingProblem problem = { "", UINT32_MAX };
        char *scenario = wf ? testing_scenario_of_test(test, &problem) : NULL;
        if (!scenario) {
            snprintf(why, why_size, "test \"%s\" cannot run: %s", test->name->text,
                     wf ? problem.message : no);
            return false;
        }
        MutTest *t = &s->tests[s->test_count++];
        t->tc = (TestCase){ .test = test, .program = p, .workflow = wf, .module = &s->module,
                            .workflow_index = (uint32_t)(wf - p->workflows) };
        t->name = arena_printf(arena, "test \"%s\"", test->name->text);
        t->scenario = scenario;
        char rerr[1024];
        int status;
        t->history = testing_run_history(&s->module, t->name, scenario, HISTORY_JSON, &status,
                                         &t->history_len, rerr, sizeof rerr);
        if (status == 2) {
            snprintf(why, why_size, "%s cannot run: %s", t->name, rerr);
            return false;
        }
        t->name = test->name->text;
    }
    return true;
}

static void free_subject(Subject *s)
{
    for (uint32_t i = 0; i < s->test_count; i++) {
        free(s->tests[i].scenario);
        free(s->tests[i].history);
    }
    free(s->tests);
    free(s->bytes);
    orbc_module_free(&s->module);
}

static void run_plans(Pool *pool, unsigned threads)
{
    if (threads > MUTATE_MAX_THREADS)
        threads = MUTATE_MAX_THREADS;
    if (threads > pool->count)
        threads = pool->count ? pool->count : 1;
    Thread *workers = xcalloc(threads, sizeof *workers);
    for (unsigned t = 0; t < threads; t++) {
        workers[t].pool = pool;
        arena_init(&workers[t].arena);
    }
    testing_threads_run(thread_main, workers, sizeof *workers, threads);
    for (unsigned t = 0; t < threads; t++)
        arena_free(&workers[t].arena);
    free(workers);
}

bool testing_mutate(Workspace *w, const TestingOptions *options, MutationRun *out,
                    char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    uint32_t subjects_count = 0, workflows = 0;
    for (uint32_t i = 0; i < w->roots.count; i++)
        if (w->checked[i] && w->checked[i]->test_count) {
            subjects_count++;
            workflows += w->checked[i]->workflow_count;
        }
    Subject *subjects = xcalloc(subjects_count + 1, sizeof *subjects);
    out->workflows = arena_alloc(&out->arena, (workflows + 1) * sizeof *out->workflows);
    Planner pl = { .run = out, .map = &w->c->sources };
    bool ok = true;
    uint32_t n = 0;
    for (uint32_t i = 0; ok && i < w->roots.count; i++) {
        if (!w->checked[i] || !w->checked[i]->test_count)
            continue;
        Subject *s = &subjects[n++];
        ok = prepare_subject(w, i, options, &out->arena, s, why, why_size);
        out->tests += s->test_count;
        if (ok && s->test_count) {
            pl.subject = s;
            plan_program(&pl, w->c);
        }
    }
    if (ok) {
        for (uint32_t i = 0; i < pl.plan_count; i++)
            pl.plans[i].out = &pl.mutants[(uintptr_t)pl.plans[i].out];
        Pool pool = { .plans = pl.plans, .count = pl.plan_count };
        pthread_mutex_init(&pool.lock, NULL);
        unsigned threads = options->jobs ? options->jobs : 1;
        double start = now_seconds();
        run_plans(&pool, threads);
        out->seconds = now_seconds() - start;
        out->threads = threads < pl.plan_count ? threads : (pl.plan_count ? pl.plan_count : 1);
        pthread_mutex_destroy(&pool.lock);
        if (atomic_load(&pool.failed)) {
            snprintf(why, why_size, "%s", pool.why);
            ok = false;
        }
    }
    out->mutants = pl.mutants;
    out->count = pl.mutant_count;
    free(pl.plans);
    for (uint32_t i = 0; i < n; i++)
        free_subject(&subjects[i]);
    free(subjects);
    if (!ok)
        return false;
    /* The scores, the mutants counted for the workflow they are in. */
    for (uint32_t i = 0; i < out->count; i++) {
        const Mutant *m = &out->mutants[i];
        MutationScore *score = &out->workflows[m->score];
        if (m->status == MUTANT_KILLED) {
            out->killed++;
            score->killed++;
        } else if (m->status == MUTANT_SURVIVED) {
            out->survived++;
            score->survived++;
        } else {
            out->equivalent++;
            score->equivalent++;
        }
    }
    return true;
}

void testing_mutate_free(MutationRun *run)
{
    free(run->mutants);
    arena_free(&run->arena);
    memset(run, 0, sizeof *run);
}

double testing_mutation_score(uint32_t killed, uint32_t survived)
{
    uint32_t total = killed + survived;
    return total ? 100.0 * killed / total : 100.0;
}

/* ---- reports ----------------------------------------------------------------------- */

/* A percentage rounded down to a tenth, as the coverage shows them: 100.0 means all. */
static double tenth_down(double percent)
{
    return (double)(int64_t)(percent * 10.0 + 1e-9) / 10.0;
}

void testing_mutate_report_human(const MutationRun *run, bool color, TextBuffer *out)
{
    const char *red = color ? "\033[1;31m" : "", *reset = color ? "\033[0m" : "";
    for (uint32_t i = 0; i < run->count; i++) {
        const Mutant *m = &run->mutants[i];
        if (m->status != MUTANT_SURVIVED)
            continue;
        text_printf(out, "%sSURVIVED%s  %s:%u:%u: %s: %s\n", red, reset, m->file, m->line,
                    m->column, m->member, m->change);
        text_printf(out, "  every test passes against it; a test that would fail: %s\n",
                    m->hint);
    }
    if (run->survived)
        text_append_str(out, "\n");
    for (uint32_t i = 0; i < run->workflow_count; i++) {
        const MutationScore *s = &run->workflows[i];
        uint32_t total = s->killed + s->survived;
        text_printf(out, "%s (%s:%u:%u): ", s->workflow, s->file, s->line, s->column);
        if (total)
            text_printf(out, "%u of %u mutants killed (%.1f%%)", s->killed, total,
                        tenth_down(testing_mutation_score(s->killed, s->survived)));
        else
            text_append_str(out, "no mutant to run (100.0%)");
        if (s->equivalent)
            text_printf(out, ", %u equivalent not run", s->equivalent);
        text_append_str(out, "\n");
    }
    text_printf(out, "total: %u of %u mutants killed (%.1f%%) by %u test%s, %u equivalent "
                     "not run\n", run->killed, run->killed + run->survived,
                tenth_down(testing_mutation_score(run->killed, run->survived)), run->tests,
                run->tests == 1 ? "" : "s", run->equivalent);
}

static const char *const STATUS_NAMES[] = {
    [MUTANT_KILLED] = "killed", [MUTANT_SURVIVED] = "survived",
    [MUTANT_EQUIVALENT] = "equivalent",
};

static json_t *json_text(const char *text)
{
    return text ? diag_json_text0(text) : json_null();
}

/* A score as JSON: its percentage to a tenth, as the text says it. */
static json_t *json_score(uint32_t killed, uint32_t survived)
{
    return json_real(tenth_down(testing_mutation_score(killed, survived)));
}

void testing_mutate_report_json(const MutationRun *run, TextBuffer *out)
{
    json_t *mutants = json_array();
    for (uint32_t i = 0; i < run->count; i++) {
        const Mutant *m = &run->mutants[i];
        json_array_append_new(mutants, json_pack(
            "{s:o, s:o, s:I, s:I, s:o, s:s, s:o, s:s, s:o, s:o, s:o}",
            "workflow", json_text(m->workflow), "file", json_text(m->file),
            "line", (json_int_t)m->line, "column", (json_int_t)m->column,
            "member", json_text(m->member), "mutation", m->mutation,
            "change", json_text(m->change), "status", STATUS_NAMES[m->status],
            "killed_by", json_text(m->killed_by), "reason", json_text(m->reason),
            "hint", json_text(m->status == MUTANT_SURVIVED ? m->hint : NULL)));
    }
    json_t *workflows = json_array();
    for (uint32_t i = 0; i < run->workflow_count; i++) {
        const MutationScore *s = &run->workflows[i];
        json_array_append_new(workflows, json_pack(
            "{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
            "workflow", json_text(s->workflow), "file", json_text(s->file),
            "line", (json_int_t)s->line, "column", (json_int_t)s->column,
            "mutants", (json_int_t)(s->killed + s->survived), "killed", (json_int_t)s->killed,
            "survived", (json_int_t)s->survived, "equivalent", (json_int_t)s->equivalent,
            "score", json_score(s->killed, s->survived)));
    }
    json_t *doc = json_pack("{s:i, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:o, s:f}}",
                            "version", 1, "mutants", mutants, "workflows", workflows,
                            "summary", "tests", (json_int_t)run->tests,
                            "mutants", (json_int_t)(run->killed + run->survived),
                            "killed", (json_int_t)run->killed,
                            "survived", (json_int_t)run->survived,
                            "equivalent", (json_int_t)run->equivalent,
                            "score", json_score(run->killed, run->survived),
                            "seconds", run->seconds);
    testing_append_json(out, doc);
}
