/* The last pass of the checker: the test declarations (`test "NAME" { … }`,
 * docs/testing.md), checked like code once every workflow is. Each block of a test holds
 * the members of its table below (unknown ones E0801 with a did-you-mean, one given twice
 * E0802), each member's value is a constant of the kind its table says (E0803), the
 * names a test uses are names of the program (E0804: workflow, task, step, child
 * workflow, awaited signal), an outcome has one kind (E0807), an expectation can hold
 * (E0808; W0012 for more attempts than the retry policy makes), `events` name history
 * events (E0809), error codes are spelt as codes (E0811), and a test's name is unique in
 * its program (E0810). Values go through the checker's own checks against contracts
 * (check_contract): a test's input against the workflow's input contract, a `succeed`
 * against the output contract of the task or child workflow it stands for (E05xx).
 *
 * Nothing that already failed is checked further: the steps of an unknown workflow, the
 * outcomes of an unknown task against a contract, a value that is not a constant against
 * its contract, so that one mistake is one report. */
#include "check_internal.h"

#include <stdio.h>
#include <string.h>

#include "memory.h"
#include "orbc_value.h"   /* orbc_duration_units, orbc_format_duration */
#include "test_members.h"

/* ---- The members of each block of a test: test_members.h, the one table ------------- */

enum { MEMBERS_MAX = TEST_MEMBERS_MAX };

static const char *const STATUS_WORDS[] = { "completed", "failed", "timed_out", "blocked" };
static const char *const STEP_STATUS_WORDS[] = { "completed", "failed", "skipped",
                                                 "not_reached" };
static const char *const COMPENSATION_WORDS[] = { "completed", "failed" };

static const char *const EVENT_NAMES[] = {
#define HISTORY_EVENT(name) #name,
#include "history_events.def"
};
enum { EVENT_COUNT = sizeof EVENT_NAMES / sizeof EVENT_NAMES[0] };

#define COUNT_OF(words) ((uint32_t)(sizeof words / sizeof words[0]))

/* ---- What the tests look up in the program ----------------------------------------- */

typedef struct Tests {
    NameMap *step_maps;        /* [workflow_count]: each workflow's steps by name, made
                                  when a test first names one of them (slots NULL before) */
    SuggestIndex **step_index; /* [workflow_count]: their did-you-mean, made on the first
                                  unknown one */
    NameMap tasks;             /* the tasks a test may script: declared workers, workers
                                  that steps use, built-in tasks (value unused) */
    SuggestIndex *task_index;
    NameMap signals;           /* the signals some step awaits */
    SuggestIndex *signal_index;
    const char **task_names;   /* the candidates of task_index, signal_index */
    uint32_t task_count;
    const char **signal_names;
    uint32_t signal_count;
    const char *http;          /* "orbit.http.request" */
} Tests;

/* What a block's values are about: the workflow whose steps `step NAME` names in it,
 * and the task or child workflow that a script stands for. */
typedef struct About {
    Workflow *workflow;        /* NULL: unknown or none (already reported): not checked */
    const Step *step;          /* the step scripted or expected, or NULL */
    bool known;                /* the task or child is known: its contract is checked */
    bool http;                 /* the task is orbit.http.request */
    bool child;                /* a child workflow (no HTTP answers) */
    const Type *output;        /* what `succeed` is checked against; NULL: anything */
    const char *output_what;   /* "the output of worker `x`" */
    const char *task;          /* its name, for messages; NULL when not a task */
} About;

static void check_block(Checker *ck, Tests *t, Block *b, TestBlock kind, const About *about,
                        Member **found);

/* The word a member starts with: `status` in `status: failed`, `task` in
 * `task "x" { … }`, `step` in `step charge { … }`. */
static const Name *member_word(Checker *ck, const Member *m)
{
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE)
        return m->key;
    if (m->keyword != KW_NONE)
        return ck->n_keywords[m->keyword];
    return m->name;
}

static int find_member(TestBlock kind, const char *word)
{
    uint32_t count;
    const TestMember *members = check_test_members(kind, &count, NULL);
    const TestMember *m = check_test_member(kind, word);
    return m ? (int)(m - members) : -1;
}

static const char *word_list(Checker *ck, const char *const *words, uint32_t count)
{
    const char *text = "";
    for (uint32_t i = 0; i < count; i++)
        text = arena_printf(ck->arena, "%s%s`%s`", text,
                            i == 0 ? "" : i + 1 == count ? " or " : ", ", words[i]);
    return text;
}

/* ---- Reports ------------------------------------------------------------------------ */

static COLD void unknown_member(Checker *ck, Member *m, const Name *word, TestBlock kind)
{
    uint32_t count;
    const char *what;
    const TestMember *members = check_test_members(kind, &count, &what);
    Diagnostic *d = diag_report(ck->diags, E0801, member_key_span(m),
                                "unknown member `%s` in %s", word->text, what);
    diag_set_label(ck->diags, d, "unknown member");
    const char *names[MEMBERS_MAX];
    for (uint32_t i = 0; i < count; i++)
        names[i] = members[i].name;
    const char *s = check_suggest(ck, word->text, names, count);
    if (s)
        check_add_suggestion(ck, d, member_key_span(m), s);
    else
        diag_add_help(ck->diags, d, "%s holds %s", what, word_list(ck, names, count));
}

static COLD void given_twice(Checker *ck, const Member *again, const Member *first,
                             const char *what)
{
    Span at = again->name ? span_join(member_key_span(again), member_name_span(again))
                          : member_key_span(again);
    Span was = first->name ? span_join(member_key_span(first), member_name_span(first))
                           : member_key_span(first);
    Diagnostic *d = diag_report(ck->diags, E0802, at, "%s is given twice", what);
    diag_set_label(ck->diags, d, "given again here");
    diag_add_label(ck->diags, d, was, "first given here");
}

static COLD void bad_value(Checker *ck, Span at, const char *label, const char *fmt,
                           const char *arg)
{
    Diagnostic *d = diag_report(ck->diags, E0803, at, fmt, arg);
    diag_set_label(ck->diags, d, "%s", label);
}

/* A value of a test is a constant: literals, lists and records of them, a negative
 * number. Returns the first part that is not, or NULL. A part that failed to parse
 * (EXPR_ERROR) was reported: it counts as a constant. */
static Expr *not_constant(Expr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case EXPR_ERROR: case EXPR_INT: case EXPR_NUMBER: case EXPR_STRING: case EXPR_DURATION:
    case EXPR_BOOL: case EXPR_NULL:
        return NULL;
    case EXPR_UNARY:
        if (e->op == OP_NEG && e->left &&
            (e->left->kind == EXPR_INT || e->left->kind == EXPR_NUMBER))
            return NULL;
        return e;
    case EXPR_LIST:
        for (uint32_t i = 0; i < e->count; i++) {
            Expr *bad = not_constant(e->elems[i]);
            if (bad)
                return bad;
        }
        return NULL;
    case EXPR_OBJECT:
        for (Member *m = block_first(e->block), *end = block_end(e->block); m != end; m++) {
            if (m->kind == MEMBER_CLAUSE)
                return e;   /* `{ step s { … } }`: a block, not a record of values */
            Expr *bad = not_constant(member_value(m));
            if (bad)
                return bad;
        }
        return NULL;
    default:
        return e;
    }
}

/* E0803 for a value that is not a constant; true when it is one. */
static bool constant(Checker *ck, Expr *e, const Name *member)
{
    Expr *bad = not_constant(e);
    if (!bad)
        return true;
    Diagnostic *d = diag_report(ck->diags, E0803, bad->span,
                                "the value of `%s` must be a constant", member->text);
    diag_set_label(ck->diags, d, "computed when the workflow runs");
    diag_add_note(ck->diags, d, "a test's values are written out: literals, lists and "
                                "records of them; a test has no `input` or steps to "
                                "compute from");
    return false;
}

/* Types `e` (a constant) and checks it against `contract` (NULL: only typed). */
static void check_constant(Checker *ck, Expr *e, const Type *contract, Span where,
                           const What *what)
{
    Scope scope = { 0 };
    check_contract(ck, &scope, e, contract, where, what);
}

/* ---- Names of the program ----------------------------------------------------------- */

/* The tasks and awaited signals of the program, once, for the tests. */
static void collect_names(Checker *ck, Tests *t)
{
    Program *p = ck->program;
    uint32_t steps = 0;
    for (uint32_t i = 0; i < p->workflow_count; i++)
        steps += p->workflows[i].step_count;
    uint32_t tasks = p->worker_count + p->builtin_count + 2 * steps;
    namemap_init_text(&t->tasks, ck->arena, tasks);
    namemap_init_text(&t->signals, ck->arena, steps);
    t->task_names = arena_alloc(ck->arena, (tasks + 1) * sizeof *t->task_names);
    t->signal_names = arena_alloc(ck->arena, (steps + 1) * sizeof *t->signal_names);
#define ADD_TASK(name) \
    if (namemap_add(&t->tasks, ck->arena, (name)->text, (name)->hash, 0)) \
        t->task_names[t->task_count++] = (name)->text
    for (uint32_t i = 0; i < p->worker_count; i++)
        ADD_TASK(p->workers[i].name);
    for (uint32_t i = 0; i < p->builtin_count; i++)
        ADD_TASK(p->builtins[i].name);
    for (uint32_t i = 0; i < p->workflow_count; i++)
        for (uint32_t k = 0; k < p->workflows[i].step_count; k++) {
            const Step *s = &p->workflows[i].steps[k];
            if (s->kind == STEP_TASK_WORKER && s->target_name)
                ADD_TASK(s->target_name);
            if (s->compensate && s->compensate->kind == STEP_TASK_WORKER &&
                s->compensate->target_name)
                ADD_TASK(s->compensate->target_name);
            if (s->kind == STEP_AWAIT && s->target_name &&
                namemap_add(&t->signals, ck->arena, s->target_name->text,
                            s->target_name->hash, 0))
                t->signal_names[t->signal_count++] = s->target_name->text;
        }
#undef ADD_TASK
    t->http = "orbit.http.request";
}

/* A name in one of the maps of Tests, which are maps of text (namemap_init_text): a name
 * interned by another thread's checker (a step's target, check.c: check_each_workflow)
 * is the same text, not always the same Name. */
static bool find_text(const NameMap *map, const Name *name, uint32_t *value)
{
    return namemap_get(map, name->text, name->hash, value);
}

/* The step `name` of workflow `w` (Program.workflows), or NULL. */
static const Step *find_step(Checker *ck, Tests *t, uint32_t w, const Name *name)
{
    Workflow *wf = &ck->program->workflows[w];
    NameMap *map = &t->step_maps[w];
    if (!map->slots) {
        namemap_init_text(map, ck->arena, wf->step_count);
        for (uint32_t i = 0; i < wf->step_count; i++)
            namemap_add(map, ck->arena, wf->steps[i].name->text, wf->steps[i].name->hash, i);
    }
    uint32_t i;
    return find_text(map, name, &i) ? &wf->steps[i] : NULL;
}

static uint32_t workflow_index(Checker *ck, const Workflow *wf)
{
    return (uint32_t)(wf - ck->program->workflows);
}

/* E0804 for a name of the program that is not there, with a did-you-mean over `index`. */
static COLD void unknown_name(Checker *ck, Span at, const char *message, const char *label,
                              const Name *name, const SuggestIndex *index, bool quoted)
{
    Diagnostic *d = diag_report(ck->diags, E0804, at, "%s", message);
    diag_set_label(ck->diags, d, "%s", label);
    const char *s = index ? check_suggest_indexed(ck, name->text, index) : NULL;
    if (s)
        check_add_name_suggestion(ck, d, at, quoted ? arena_printf(ck->arena, "\"%s\"", s) : s);
}

static COLD void unknown_step(Checker *ck, Tests *t, const Member *m, const Workflow *wf)
{
    uint32_t w = workflow_index(ck, wf);
    if (!t->step_index[w]) {
        const char **names = arena_alloc(ck->arena, (wf->step_count + 1) * sizeof *names);
        for (uint32_t i = 0; i < wf->step_count; i++)
            names[i] = wf->steps[i].name->text;
        t->step_index[w] = suggest_index_new(ck->arena, names, wf->step_count);
    }
    unknown_name(ck, member_name_span(m),
                 arena_printf(ck->arena, "workflow `%s` has no step `%s`", wf->name->text,
                              m->name->text),
                 "no step with this name", m->name, t->step_index[w], false);
}

static COLD void unknown_workflow(Checker *ck, Span at, const Name *name)
{
    Program *p = ck->program;
    if (!ck->workflow_index) {
        const char **names = arena_alloc(ck->arena, (p->workflow_count + 1) * sizeof *names);
        for (uint32_t i = 0; i < p->workflow_count; i++)
            names[i] = p->workflows[i].name->text;
        ck->workflow_index = suggest_index_new(ck->arena, names, p->workflow_count);
    }
    unknown_name(ck, at, arena_printf(ck->arena, "unknown workflow `%s`", name->text),
                 "no workflow with this name", name, ck->workflow_index, false);
}

static Workflow *find_workflow(Checker *ck, const Name *name)
{
    uint32_t i;
    return check_lookup(&ck->workflows, name, &i) ? &ck->program->workflows[i] : NULL;
}

static const char *step_kind_text(StepKind kind)
{
    switch (kind) {
    case STEP_SLEEP: return "a sleep step";
    case STEP_AWAIT: return "an await step";
    case STEP_COMPUTE: return "a compute step";
    default: return "a task step";
    }
}

/* What a script of the task or child workflow `kind`/`index`/`name` stands for. */
static void about_task(Checker *ck, Tests *t, About *a, StepKind kind, uint32_t index,
                       const Name *name)
{
    Program *p = ck->program;
    a->known = true;
    a->task = name ? name->text : NULL;
    a->http = name && strcmp(name->text, t->http) == 0;   /* by text: a step's target may
                                                             be another thread's Name */
    switch (kind) {
    case STEP_TASK_WORKER:   /* no name: a target the checker could not resolve */
        a->output = index != NO_INDEX ? p->workers[index].output : NULL;
        a->output_what = name ? arena_printf(ck->arena, "the output of worker `%s`", name->text)
                              : "the output of the worker";
        break;
    case STEP_TASK_BUILTIN:
        a->output = index != NO_INDEX ? p->builtins[index].output : NULL;
        a->output_what = name ? arena_printf(ck->arena, "the output of `%s`", name->text)
                              : "the output of the built-in task";
        break;
    case STEP_WORKFLOW:
        a->child = true;
        a->task = NULL;
        a->output = index != NO_INDEX ? p->workflows[index].output : NULL;
        a->output_what = name ? arena_printf(ck->arena, "the output of workflow `%s`",
                                             name->text)
                              : "the output of the child workflow";
        break;
    default:
        a->known = false;
        break;
    }
}

/* ---- The values of members ----------------------------------------------------------- */

/* One of `words` (`status: failed`); E0803 with a did-you-mean otherwise. */
static void check_word(Checker *ck, Expr *v, const Name *member, const char *const *words,
                       uint32_t count)
{
    const char *text = v->kind == EXPR_NAME ? v->name->text
                     : v->kind == EXPR_STRING ? v->text : NULL;
    if (v->kind == EXPR_NAME)
        for (uint32_t i = 0; i < count; i++)
            if (strcmp(text, words[i]) == 0)
                return;
    Diagnostic *d = diag_report(ck->diags, E0803, v->span, "`%s` is one of %s", member->text,
                                word_list(ck, words, count));
    diag_set_label(ck->diags, d, "not one of them");
    const char *s = text ? check_suggest(ck, text, words, count) : NULL;
    if (s)
        check_add_suggestion(ck, d, v->span, s);
}

/* An error code, `fail`'s or an expected one. Workers raise any code they like (a worker
 * declares no codes), so a code is checked for its spelling only: not empty, and with no
 * space or control character, which would run into the message in a history line
 * (`error=CODE message`). */
static void check_code(Checker *ck, Expr *v, const Name *member)
{
    if (v->kind != EXPR_STRING) {
        Diagnostic *d = diag_report(ck->diags, E0803, v->span,
                                    "`%s` is an error code, a string", member->text);
        diag_set_label(ck->diags, d, "not a string");
        if (v->kind == EXPR_NAME)
            diag_add_fix(ck->diags, d, v->span, arena_printf(ck->arena, "\"%s\"", v->name->text),
                         FIX_MACHINE_APPLICABLE, "put the code in quotes: `\"%s\"`",
                         v->name->text);
        return;
    }
    const char *why = NULL;
    if (v->len == 0)
        why = "it is empty";
    for (uint32_t i = 0; i < v->len && !why; i++) {
        unsigned char c = (unsigned char)v->text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            why = "it holds a space";
        else if (c < 0x20 || c == 0x7f)
            why = "it holds a control character";
    }
    if (!why)
        return;
    Diagnostic *d = diag_report(ck->diags, E0811, v->span, "this is not an error code: %s", why);
    diag_set_label(ck->diags, d, "not an error code");
    diag_add_note(ck->diags, d, "a history line writes `error=CODE message`: a code runs to "
                                "the first space");
    diag_add_help(ck->diags, d, "write codes such as \"CARD_DECLINED\"");
}

static int event_index(const char *text, size_t len)
{
    for (int i = 0; i < EVENT_COUNT; i++)
        if (strlen(EVENT_NAMES[i]) == len && memcmp(EVENT_NAMES[i], text, len) == 0)
            return i;
    return -1;
}

/* The span of bytes [from, to) of the string literal `s`, when its text is the source's
 * as written (no escape before `to`); else the literal's span. */
static Span in_string(Checker *ck, const Expr *s, uint32_t from, uint32_t to)
{
    const SourceFile *f = source_file(&ck->c->sources,
                                      source_file_at(&ck->c->sources, s->span.start));
    uint32_t at = s->span.start + 1;   /* after the quote */
    if (at + to > f->origin + f->len || f->text[s->span.start - f->origin] != '"' ||
        memcmp(f->text + (at - f->origin), s->text, to) != 0)
        return s->span;
    return span_make(at + from, at + to);
}

/* Whether `time` ("120ms", "1d1h20ms") is an event time an entry can match: its
 * milliseconds as the history writes them ("90000ms"), or its duration as Orbit writes
 * it, in its largest exact units ("1m30s", liborbc's orbc_format_duration; "90s" never
 * matches). `shown`: the duration as Orbit writes it, when `time` reads as one, else "". */
static bool event_time_matches(const char *time, char shown[ORBC_DURATION_TEXT_SIZE])
{
    shown[0] = '\0';
    int64_t ms = 0;
    const char *p = time;
    while (*p >= '0' && *p <= '9') {
        int64_t number = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (number > (INT64_MAX - (*p - '0')) / 10)
                return false;   /* over INT64_MAX, the last millisecond a clock has */
            number = number * 10 + (*p - '0');
        }
        const OrbcDurationUnit *unit = NULL;
        size_t len = 0;
        for (uint32_t u = 0; u < ORBC_DURATION_UNIT_COUNT; u++) {
            size_t l = strlen(orbc_duration_units[u].name);
            if (strncmp(p, orbc_duration_units[u].name, l) == 0 && l > len) {
                unit = &orbc_duration_units[u];
                len = l;
            }
        }
        if (!unit || number > (INT64_MAX - ms) / unit->ms)
            return false;
        ms += number * unit->ms;
        p += len;
    }
    if (p == time || *p)
        return false;
    orbc_format_duration(shown, ms);
    char in_ms[32];
    snprintf(in_ms, sizeof in_ms, "%lldms", (long long)ms);
    return strcmp(shown, time) == 0 || strcmp(in_ms, time) == 0;
}

/* `events: ["StepScheduled step=charge", "+ 120ms StepFailed step=charge"]`: each entry
 * names a history event, after an optional time. */
static void check_event(Checker *ck, Expr *e)
{
    if (e->kind == EXPR_ERROR)
        return;
    if (e->kind != EXPR_STRING) {
        bad_value(ck, e->span, "not a string",
                  "an entry of `events` is a string such as \"StepFailed step=charge\"%s", "");
        return;
    }
    const char *s = e->text;
    uint32_t n = e->len, i = 0;
    if (n > 0 && s[0] == '+') {
        i = n > 1 && s[1] == ' ' ? 2 : 1;
        uint32_t time = i;
        while (i < n && s[i] != ' ')
            i++;
        const char *written = arena_strndup(ck->arena, s + time, i - time);
        char shown[ORBC_DURATION_TEXT_SIZE] = "";
        if (time != 2 || i == time || i == n || !event_time_matches(written, shown)) {
            Diagnostic *d = diag_report(ck->diags, E0809, in_string(ck, e, 0, i),
                                        "an entry of `events` starts with `+ `, a time and a "
                                        "space, such as `+ 500ms StepFailed`");
            diag_set_label(ck->diags, d, "not a time this entry can match");
            if (shown[0] && strcmp(shown, written) != 0)
                diag_add_note(ck->diags, d, "a time is written in milliseconds or as Orbit "
                                            "writes durations, in its largest exact units: "
                                            "`%s`", shown);
            return;
        }
        i++;   /* the space after the time */
    }
    uint32_t start = i;
    while (i < n && s[i] != ' ')
        i++;
    if (event_index(s + start, i - start) >= 0)
        return;
    const char *word = arena_strndup(ck->arena, s + start, i - start);
    Span at = start < i ? in_string(ck, e, start, i) : e->span;
    Diagnostic *d = start == i
        ? diag_report(ck->diags, E0809, at, "this entry of `events` names no history event")
        : diag_report(ck->diags, E0809, at, "unknown history event `%s`", word);
    diag_set_label(ck->diags, d, "not a history event");
    const char *sug = start < i ? check_suggest(ck, word, EVENT_NAMES, EVENT_COUNT) : NULL;
    if (sug && (at.start != e->span.start || at.end != e->span.end))
        check_add_suggestion(ck, d, at, sug);
    else if (sug)
        diag_add_help(ck->diags, d, "did you mean `%s`?", sug);
    else
        diag_add_note(ck->diags, d, "the events are those of `orbit-run`'s history "
                                    "(docs/runtime.md, \"History events\")");
}

static void check_events(Checker *ck, Expr *v, const Name *member)
{
    if (v->kind != EXPR_LIST) {
        bad_value(ck, v->span, "not a list",
                  "`%s` is a list of history events, such as [\"StepFailed step=charge\"]",
                  member->text);
        return;
    }
    for (uint32_t i = 0; i < v->count; i++)
        check_event(ck, v->elems[i]);
}

static void check_outcomes(Checker *ck, Tests *t, Expr *v, const Name *member,
                           const About *about)
{
    if (v->kind != EXPR_LIST) {
        bad_value(ck, v->span, "not a list",
                  "`%s` is a list of outcomes, such as [{ fail: { code: \"X\" } }, "
                  "{ succeed: {} }]", member->text);
        return;
    }
    for (uint32_t i = 0; i < v->count; i++) {
        Expr *o = v->elems[i];
        if (o->kind == EXPR_ERROR)
            continue;
        if (o->kind != EXPR_OBJECT) {
            bad_value(ck, o->span, "not a record",
                      "an outcome is a record such as `{ fail: { code: \"X\" } }`%s", "");
            continue;
        }
        Member *found[MEMBERS_MAX] = { 0 };
        check_block(ck, t, o->block, TB_OUTCOME, about, found);
    }
}

/* ---- Invariants ------------------------------------------------------------------------- */

/* The fields of the final state an invariant reads (testing/invariants.c evaluates them):
 * `execution.FIELD` (the tested workflow's execution: `workflow` is a keyword) and
 * `STEP.FIELD` for a step of the tested workflow. */
static const char *const WORKFLOW_FIELDS[] = { "status", "error", "output" };
static const char *const STEP_FIELDS[] = { "status", "attempts", "error", "compensated",
                                           "compensation" };

static COLD void not_condition(Checker *ck, Expr *e, const char *message, const char *label)
{
    Diagnostic *d = diag_report(ck->diags, E0813, e->span, "%s", message);
    diag_set_label(ck->diags, d, "%s", label);
    diag_add_note(ck->diags, d, "an invariant holds a condition over the final state: "
                                "`execution.status`, `execution.error`, `execution.output` and "
                                "each step's `status`, `attempts`, `error`, `compensated` "
                                "and `compensation`, with literals and operators");
}

/* E0812 for an unknown `name` (or field) at `at`, with a did-you-mean over `names`. */
static COLD void unknown_in_invariant(Checker *ck, Span at, const char *message,
                                      const char *word, const char *const *names,
                                      uint32_t count)
{
    Diagnostic *d = diag_report(ck->diags, E0812, at, "%s", message);
    diag_set_label(ck->diags, d, "not in the final state");
    const char *s = check_suggest(ck, word, names, count);
    if (s)
        check_add_name_suggestion(ck, d, at, s);
}

static bool known_field(const char *field, const char *const *fields, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(fields[i], field) == 0)
            return true;
    return false;
}

/* `NAME.FIELD`: true when it is a field of the final state; `*is_bool` when its value
 * is a bool (`compensated`) or may be one (within `execution.output`). */
static bool check_state_field(Checker *ck, Tests *t, Expr *e, Workflow *wf, bool *is_bool)
{
    const Name *name = e->left->name;
    const char *field = e->field->text;
    if (strcmp(name->text, "execution") == 0) {
        if (known_field(field, WORKFLOW_FIELDS, COUNT_OF(WORKFLOW_FIELDS))) {
            *is_bool = strcmp(field, "output") == 0;
            return true;
        }
        unknown_in_invariant(ck, expr_field_span(e),
                             arena_printf(ck->arena, "the execution has no field `%s` in an "
                                                     "invariant", field),
                             field, WORKFLOW_FIELDS, COUNT_OF(WORKFLOW_FIELDS));
        return false;
    }
    if (!wf)
        return false;
    if (!find_step(ck, t, workflow_index(ck, wf), name)) {
        const char **names = arena_alloc(ck->arena, (wf->step_count + 2) * sizeof *names);
        names[0] = "execution";
        for (uint32_t i = 0; i < wf->step_count; i++)
            names[i + 1] = wf->steps[i].name->text;
        unknown_in_invariant(ck, e->left->span,
                             arena_printf(ck->arena, "`%s` is neither `execution` nor a step "
                                                     "of workflow `%s`", name->text,
                                          wf->name->text),
                             name->text, names, wf->step_count + 1);
        return false;
    }
    if (known_field(field, STEP_FIELDS, COUNT_OF(STEP_FIELDS))) {
        *is_bool = strcmp(field, "compensated") == 0;
        return true;
    }
    unknown_in_invariant(ck, expr_field_span(e),
                         arena_printf(ck->arena, "a step has no field `%s` in an invariant",
                                      field),
                         field, STEP_FIELDS, COUNT_OF(STEP_FIELDS));
    return false;
}

/* An invariant's condition, or a part of it (`top`: the whole, which must be a bool). */
static void check_condition(Checker *ck, Tests *t, Expr *e, Workflow *wf, bool top)
{
    bool is_bool = false;
    switch (e->kind) {
    case EXPR_ERROR:
        return;
    case EXPR_BOOL:
        return;
    case EXPR_INT: case EXPR_NUMBER: case EXPR_STRING: case EXPR_DURATION: case EXPR_NULL:
        if (top)
            not_condition(ck, e, "an invariant's condition is a bool", "not a bool");
        return;
    case EXPR_LIST: case EXPR_OBJECT: {
        Expr *bad = not_constant(e);
        if (bad)
            not_condition(ck, bad, "a list or record in an invariant is written out",
                          "computed");
        else if (top)
            not_condition(ck, e, "an invariant's condition is a bool", "not a bool");
        return;
    }
    case EXPR_NAME:
        if (strcmp(e->name->text, "execution") != 0 && wf
            && !find_step(ck, t, workflow_index(ck, wf), e->name)) {
            const char **names = arena_alloc(ck->arena, (wf->step_count + 2) * sizeof *names);
            names[0] = "execution";
            for (uint32_t i = 0; i < wf->step_count; i++)
                names[i + 1] = wf->steps[i].name->text;
            unknown_in_invariant(ck, e->span,
                                 arena_printf(ck->arena, "`%s` is neither `execution` nor a "
                                                         "step of workflow `%s`",
                                              e->name->text, wf->name->text),
                                 e->name->text, names, wf->step_count + 1);
            return;
        }
        not_condition(ck, e, arena_printf(ck->arena, "an invariant reads a field of `%s`, "
                                                     "such as `%s.status`",
                                          e->name->text, e->name->text),
                      "a whole state");
        return;
    case EXPR_FIELD:
        if (e->left->kind == EXPR_NAME) {
            if (check_state_field(ck, t, e, wf, &is_bool) && top && !is_bool)
                not_condition(ck, e, "an invariant's condition is a bool: compare the field",
                              "not a bool");
            return;
        }
        /* within `execution.output`: a record's field, whatever it holds */
        check_condition(ck, t, e->left, wf, false);
        return;
    case EXPR_UNARY:
        if (top && e->op == OP_NEG)
            not_condition(ck, e, "an invariant's condition is a bool", "a number");
        check_condition(ck, t, e->left, wf, false);
        return;
    case EXPR_BINARY: {
        bool arithmetic = e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL
            || e->op == OP_DIV || e->op == OP_MOD;
        if (top && arithmetic)
            not_condition(ck, e, "an invariant's condition is a bool", "a number");
        bool logical = e->op == OP_AND || e->op == OP_OR;
        check_condition(ck, t, e->left, wf, logical);
        check_condition(ck, t, e->right, wf, logical);
        return;
    }
    default:
        not_condition(ck, e, "an invariant reads the final state with fields, literals and "
                             "operators only", "not evaluated in an invariant");
        return;
    }
}

/* `invariant "NAME" { holds: CONDITION }`: E0813 without `holds`. */
static void check_invariant(Checker *ck, Tests *t, Member *m, Block *body, const About *about)
{
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_INVARIANT, about, found);
    if (found[find_member(TB_INVARIANT, "holds")] || body->count != 0)
        return;
    Diagnostic *d = diag_report(ck->diags, E0813, member_name_span(m),
                                "invariant \"%s\" says nothing", m->name->text);
    diag_set_label(ck->diags, d, "no `holds`");
    diag_add_help(ck->diags, d, "write its condition: `holds: execution.status != \"blocked\"`");
}

/* The value `v` of member `m` (of table entry `spec`) in a block about `about`. */
static void check_value(Checker *ck, Tests *t, Member *m, Expr *v, const TestMember *spec,
                        const About *about)
{
    const Name *member = member_word(ck, m);
    if (v->kind == EXPR_ERROR)
        return;
    switch (spec->value) {
    case TV_WORKFLOW:
        if (v->kind != EXPR_NAME)
            bad_value(ck, v->span, "not a workflow's name",
                      "`%s` takes a workflow's name, such as `workflow checkout`",
                      member->text);
        return;   /* resolved by check_test */
    case TV_INPUT: {
        if (v->kind != EXPR_OBJECT) {
            bad_value(ck, v->span, "not a record",
                      "`%s` is a record, such as `input { order_id: \"A1\" }`", member->text);
            return;
        }
        if (!constant(ck, v, member))
            return;
        if (!about->workflow) {
            check_constant(ck, v, NULL, v->span, NULL);
            return;
        }
        What wf = what_named(WHAT_WORKFLOW, about->workflow->name);
        What what = what_of(WHAT_INPUT_OF, &wf);
        check_constant(ck, v, about->workflow->input, member_key_span(m), &what);
        return;
    }
    case TV_VALUE:
        if (constant(ck, v, member))
            check_constant(ck, v, NULL, v->span, NULL);
        return;
    case TV_RECORD:
        if (v->kind != EXPR_OBJECT)
            bad_value(ck, v->span, "not a record", "`%s` is a record `{ … }`", member->text);
        else if (constant(ck, v, member))
            check_constant(ck, v, NULL, v->span, NULL);
        return;
    case TV_OUTPUT: {
        if (!constant(ck, v, member))
            return;
        if (!about->workflow || !about->workflow->output) {
            check_constant(ck, v, NULL, v->span, NULL);
            return;
        }
        What wf = what_named(WHAT_OUTPUT_OF, about->workflow->name);
        check_constant(ck, v, about->workflow->output, member_key_span(m), &wf);
        return;
    }
    case TV_SUCCEED: {
        if (!constant(ck, v, member))
            return;
        What what = what_fixed(about->output_what ? about->output_what : "");
        check_constant(ck, v, about->known ? about->output : NULL, member_key_span(m), &what);
        return;
    }
    case TV_DURATION:
        if (v->kind != EXPR_DURATION) {
            Diagnostic *d = diag_report(ck->diags, E0803, v->span,
                                        "`%s` is a duration, such as `2s`", member->text);
            diag_set_label(ck->diags, d, "not a duration");
            if (v->kind == EXPR_INT && v->integer >= 0)
                diag_add_fix(ck->diags, d, v->span,
                             arena_printf(ck->arena, "%lldms", (long long)v->integer),
                             FIX_MAYBE_INCORRECT, "durations need a unit: `%lldms` or `%llds`?",
                             (long long)v->integer, (long long)v->integer);
        }
        return;
    case TV_BOOL:
        if (v->kind != EXPR_BOOL)
            bad_value(ck, v->span, "not `true` or `false`", "`%s` is `true` or `false`",
                      member->text);
        return;
    case TV_TRUE:
        if (v->kind != EXPR_BOOL || !v->boolean)
            bad_value(ck, v->span, "not `true`", "`%s` is written `%s: true`", member->text);
        return;
    case TV_POSITIVE:
        if (v->kind != EXPR_INT || v->integer < 1)
            bad_value(ck, v->span, "not a positive integer", "`%s` is an integer from 1",
                      member->text);
        return;
    case TV_COUNT:
        if (v->kind != EXPR_INT || v->integer < 0)
            bad_value(ck, v->span, "not a count", "`%s` is an integer from 0", member->text);
        return;
    case TV_STRING:
        if (v->kind != EXPR_STRING)
            bad_value(ck, v->span, "not a string", "`%s` is a string", member->text);
        return;
    case TV_CODE:
        check_code(ck, v, member);
        return;
    case TV_OUTCOMES:
        check_outcomes(ck, t, v, member, about);
        return;
    case TV_HTTP_STATUS:
        if (v->kind != EXPR_INT || v->integer < 100 || v->integer > 599)
            bad_value(ck, v->span, "not an HTTP status",
                      "`%s` is an HTTP status, an integer from 100 to 599", member->text);
        return;
    case TV_STATUS:
        check_word(ck, v, member, STATUS_WORDS, COUNT_OF(STATUS_WORDS));
        return;
    case TV_STEP_STATUS:
        check_word(ck, v, member, STEP_STATUS_WORDS, COUNT_OF(STEP_STATUS_WORDS));
        return;
    case TV_COMPENSATION:
        check_word(ck, v, member, COMPENSATION_WORDS, COUNT_OF(COMPENSATION_WORDS));
        return;
    case TV_EVENTS:
        check_events(ck, v, member);
        return;
    case TV_CONDITION:
        check_condition(ck, t, v, about->workflow, true);
        return;
    case TV_BLOCK:
        return;
    }
}

/* ---- Blocks with names --------------------------------------------------------------- */

/* `task "NAME" { SCRIPT }` */
static void check_task_script(Checker *ck, Tests *t, Member *m, Block *body)
{
    About a = { 0 };
    uint32_t i;
    if (check_lookup(&ck->workers, m->name, &i))
        about_task(ck, t, &a, STEP_TASK_WORKER, i, m->name);
    else if (check_lookup(&ck->builtins, m->name, &i))
        about_task(ck, t, &a, STEP_TASK_BUILTIN, i, m->name);
    else if (find_text(&t->tasks, m->name, &i))   /* a worker steps use, undeclared */
        about_task(ck, t, &a, STEP_TASK_WORKER, NO_INDEX, m->name);
    else {
        if (!t->task_index)
            t->task_index = suggest_index_new(ck->arena, t->task_names, t->task_count);
        unknown_name(ck, member_name_span(m),
                     arena_printf(ck->arena, "unknown task `%s`", m->name->text),
                     "no worker or built-in task with this name", m->name, t->task_index,
                     true);
    }
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_SCRIPT, &a, found);
}

/* `step NAME { SCRIPT }` of the tested workflow, or of a child (`in`). */
static void check_step_script(Checker *ck, Tests *t, Member *m, Block *body, Workflow *in)
{
    About a = { 0 };
    a.workflow = in;
    const Step *s = in ? find_step(ck, t, workflow_index(ck, in), m->name) : NULL;
    if (in && !s)
        unknown_step(ck, t, m, in);
    if (s && (s->kind == STEP_SLEEP || s->kind == STEP_AWAIT || s->kind == STEP_COMPUTE)) {
        Diagnostic *d = diag_report(ck->diags, E0806, member_name_span(m),
                                    "step `%s` cannot be scripted: it is %s", m->name->text,
                                    step_kind_text(s->kind));
        diag_set_label(ck->diags, d, "not a task or workflow step");
        diag_add_label(ck->diags, d, s->name_span, "declared here");
        diag_add_note(ck->diags, d, "a script says how a worker, a built-in task or a child "
                                    "workflow answers; %s has nobody to answer",
                      step_kind_text(s->kind));
        if (s->kind == STEP_AWAIT)
            diag_add_help(ck->diags, d, "send its signal with `signal \"%s\" { at: 1s }`",
                          s->target_name ? s->target_name->text : "NAME");
        s = NULL;
    }
    if (s) {
        a.step = s;
        about_task(ck, t, &a, s->kind, s->target_index, s->target_name);
    }
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_STEP_SCRIPT, &a, found);
}

/* `compensate { SCRIPT }` of a scripted step. */
static void check_compensate_script(Checker *ck, Tests *t, Member *m, Block *body,
                                    const About *step)
{
    About a = { 0 };
    if (step->step && !step->step->compensate) {
        Diagnostic *d = diag_report(ck->diags, E0806, member_key_span(m),
                                    "step `%s` has no compensate block to script",
                                    step->step->name->text);
        diag_set_label(ck->diags, d, "nothing to script");
        diag_add_label(ck->diags, d, step->step->name_span, "declared here");
    } else if (step->step) {
        const Compensation *c = step->step->compensate;
        about_task(ck, t, &a, c->kind, c->target_index, c->target_name);
    }
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_SCRIPT, &a, found);
}

/* `child WORKFLOW { step NAME { SCRIPT } … }` */
static void check_child(Checker *ck, Tests *t, Member *m, Block *body)
{
    Workflow *wf = find_workflow(ck, m->name);
    if (!wf)
        unknown_workflow(ck, member_name_span(m), m->name);
    About a = { 0 };
    a.workflow = wf;
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_CHILD, &a, found);
}

/* `signal "NAME" { at: DURATION, payload: VALUE }` */
static void check_signal(Checker *ck, Tests *t, Member *m, Block *body)
{
    uint32_t i;
    if (!find_text(&t->signals, m->name, &i)) {
        if (!t->signal_index)
            t->signal_index = suggest_index_new(ck->arena, t->signal_names, t->signal_count);
        unknown_name(ck, member_name_span(m),
                     arena_printf(ck->arena, "no step awaits the signal `%s`", m->name->text),
                     "no `await` of this signal", m->name, t->signal_index, true);
    }
    About a = { 0 };
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_SIGNAL, &a, found);
}

/* `step NAME { … }` in `expect` */
static void check_expected_step(Checker *ck, Tests *t, Member *m, Block *body, Workflow *wf)
{
    About a = { 0 };
    a.workflow = wf;
    a.step = wf ? find_step(ck, t, workflow_index(ck, wf), m->name) : NULL;
    if (wf && !a.step)
        unknown_step(ck, t, m, wf);
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, body, TB_EXPECT_STEP, &a, found);
}

/* ---- What a block holds as a whole -------------------------------------------------- */

/* `found[i]`: the first member of table entry i in the block, or NULL. */
static Member *found_member(TestBlock kind, Member **found, const char *name)
{
    int i = find_member(kind, name);
    return i >= 0 ? found[i] : NULL;
}

static const char *member_value_word(const Member *m)
{
    const Expr *v = m ? member_value(m) : NULL;
    return v && v->kind == EXPR_NAME ? v->name->text : NULL;
}

/* `error` expects a failure: the status (given, or `completed` when it is not) must be
 * `failed`. */
static void check_error_with_status(Checker *ck, Member *error, Member *status,
                                    const char *what, bool status_defaults,
                                    const char *const *words, uint32_t count)
{
    if (!error)
        return;
    const char *word = member_value_word(status);
    bool known = false;
    for (uint32_t i = 0; word && i < count; i++)
        known |= strcmp(word, words[i]) == 0;
    if (status && (!known || strcmp(word, "failed") == 0))
        return;   /* failed, or a status already reported (E0803) */
    if (!status && !status_defaults)
        return;
    Diagnostic *d = diag_report(ck->diags, E0808, member_key_span(error),
                                "`error` can never hold: %s expects `%s`", what,
                                word ? word : "completed");
    diag_set_label(ck->diags, d, "an error needs `status: failed`");
    if (status)
        diag_add_label(ck->diags, d, member_value(status)->span, "expected here");
    else
        diag_add_note(ck->diags, d, "without `status`, a test expects `completed`");
    diag_add_note(ck->diags, d, "only a failure has an error code: a run that ends `%s` "
                                "has none", word ? word : "completed");
    if (!status)
        diag_add_help(ck->diags, d, "expect the failure: add `status: failed`");
}

/* An outcome: exactly one kind; HTTP answers only from orbit.http.request. */
static void check_outcome(Checker *ck, Block *b, Member **found, const About *about)
{
    Member *kind = NULL;
    uint32_t count;
    const TestMember *members = check_test_members(TB_OUTCOME, &count, NULL);
    for (uint32_t i = 0; i < count; i++) {
        Member *m = found[i];
        if (!m || !members[i].kind)
            continue;
        if (!kind) {
            kind = m;
            continue;
        }
        Member *first = kind, *again = m;
        if (first->span.start > again->span.start) {
            first = m;
            again = kind;
        }
        Diagnostic *d = diag_report(ck->diags, E0807, member_key_span(again),
                                    "an outcome has one kind: `%s` and `%s` are two",
                                    member_word(ck, first)->text, member_word(ck, again)->text);
        diag_set_label(ck->diags, d, "second kind");
        diag_add_label(ck->diags, d, member_key_span(first), "first kind");
        diag_add_help(ck->diags, d, "write each outcome as a record of its own: "
                                    "`[{ fail: … }, { succeed: … }]`");
        return;
    }
    if (!kind) {
        Diagnostic *d = diag_report(ck->diags, E0807, b->span,
                                    "this outcome does not say what happens");
        diag_set_label(ck->diags, d, "no kind");
        diag_add_help(ck->diags, d, "give it one of `succeed`, `fail`, `never_answers`, "
                                    "`lost_after`, `status` or `network_error`");
        return;
    }
    const char *word = member_word(ck, kind)->text;
    bool http_kind = strcmp(word, "status") == 0 || strcmp(word, "network_error") == 0;
    if (http_kind && about->known && !about->http) {
        Diagnostic *d = diag_report(ck->diags, E0807, member_key_span(kind),
                                    "`%s` is an answer of `orbit.http.request` only", word);
        diag_set_label(ck->diags, d, "not an answer of %s",
                       about->child ? "a child workflow" : "this task");
        if (about->task)
            diag_add_note(ck->diags, d, "`%s` answers with `succeed` or `fail`", about->task);
        else
            diag_add_note(ck->diags, d, "a child workflow answers with `succeed` or `fail`");
        return;
    }
    Member *status = found_member(TB_OUTCOME, found, "status");
    const char *parts[] = { "body", "headers" };
    for (uint32_t i = 0; i < 2 && !status; i++) {
        Member *m = found_member(TB_OUTCOME, found, parts[i]);
        if (!m)
            continue;
        Diagnostic *d = diag_report(ck->diags, E0807, member_key_span(m),
                                    "`%s` is part of an HTTP response: it needs `status`",
                                    parts[i]);
        diag_set_label(ck->diags, d, "without `status`");
        diag_add_help(ck->diags, d, "an HTTP response is `{ status: 200, body: … }`");
    }
}

/* `fail: { code: "X", … }` needs its code. */
static void check_fail(Checker *ck, Block *b, Member **found, Member *owner)
{
    if (found_member(TB_FAIL, found, "code"))
        return;
    Diagnostic *d = diag_report(ck->diags, E0803, owner ? member_key_span(owner) : b->span,
                                "`fail` needs a `code`");
    diag_set_label(ck->diags, d, "no `code`");
    diag_add_help(ck->diags, d, "such as `fail: { code: \"CARD_DECLINED\" }`");
}

/* W0012: `attempts: N` in an expected step, above what the step's retry policy makes. A
 * `for` step schedules attempts for every element: its count is not bounded so. */
static void check_expected_attempts(Checker *ck, Member **found, const About *about)
{
    Member *m = found_member(TB_EXPECT_STEP, found, "attempts");
    const Expr *v = m ? member_value(m) : NULL;
    const Step *s = about->step;
    if (!v || v->kind != EXPR_INT || !s || s->for_var || v->integer <= (int64_t)s->retry.attempts)
        return;
    Diagnostic *d = diag_report(ck->diags, W0012, v->span,
                                "`attempts: %lld` can never hold: step `%s` makes at most %u "
                                "attempt%s", (long long)v->integer, s->name->text,
                                s->retry.attempts, s->retry.attempts == 1 ? "" : "s");
    diag_set_label(ck->diags, d, "more than its retry policy allows");
    if (s->retry.given)
        diag_add_label(ck->diags, d, s->retry.span, "`attempts: %u` here", s->retry.attempts);
    else if (s->kind == STEP_TASK_WORKER || s->kind == STEP_TASK_BUILTIN)
        diag_add_label(ck->diags, d, s->name_span, "no `retry`: one attempt");
    else
        diag_add_label(ck->diags, d, s->name_span, "%s is never retried",
                       s->kind == STEP_WORKFLOW ? "a workflow step" : step_kind_text(s->kind));
}

/* ---- A block ------------------------------------------------------------------------- */

/* The block of member `m` (a clause's body, or a record written as its value), or NULL. */
static Block *block_of(const Member *m)
{
    if (member_body(m))
        return member_body(m);
    Expr *v = member_value(m);
    return v && v->kind == EXPR_OBJECT ? v->block : NULL;
}

static void check_member_block(Checker *ck, Tests *t, Member *m, Block *body,
                               const TestMember *spec, TestBlock kind, const About *about)
{
    if (kind == TB_TEST && spec->block == TB_SCRIPT)
        check_task_script(ck, t, m, body);
    else if (kind == TB_TEST && spec->block == TB_STEP_SCRIPT)
        check_step_script(ck, t, m, body, about->workflow);
    else if (kind == TB_CHILD)
        check_step_script(ck, t, m, body, about->workflow);
    else if (kind == TB_TEST && spec->block == TB_CHILD)
        check_child(ck, t, m, body);
    else if (kind == TB_TEST && spec->block == TB_SIGNAL)
        check_signal(ck, t, m, body);
    else if (kind == TB_EXPECT)
        check_expected_step(ck, t, m, body, about->workflow);
    else if (kind == TB_STEP_SCRIPT)
        check_compensate_script(ck, t, m, body, about);
    else if (kind == TB_TEST && spec->block == TB_INVARIANT)
        check_invariant(ck, t, m, body, about);
    else {   /* expect, fail */
        Member *found[MEMBERS_MAX] = { 0 };
        check_block(ck, t, body, spec->block, about, found);
        if (spec->block == TB_FAIL)
            check_fail(ck, body, found, m);
    }
}

/* The members of block `b` of kind `kind`: each known (E0801), given once (E0802; a
 * member with a name once per name), its value of its kind; found[i] is set to the first
 * member of table entry i. */
static void check_block(Checker *ck, Tests *t, Block *b, TestBlock kind, const About *about,
                        Member **found)
{
    NameMap named[MEMBERS_MAX];   /* a named member's names, made when one is met */
    memset(named, 0, sizeof named);
    for (Member *m = block_first(b), *end = block_end(b); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        const Name *word = member_word(ck, m);
        if (!word)
            continue;
        int i = find_member(kind, word->text);
        if (i < 0) {
            unknown_member(ck, m, word, kind);
            continue;
        }
        uint32_t count;
        const TestMember *spec = &check_test_members(kind, &count, NULL)[i];
        if (spec->named != TN_NONE) {
            Expr *named_only = member_value(m);
            if (!m->name && named_only &&
                (named_only->kind == EXPR_STRING || named_only->kind == EXPR_NAME)) {
                bad_value(ck, span_join(member_key_span(m), named_only->span), "no block",
                          "`%s` holds a block `{ … }`", word->text);
                continue;
            }
            if (!m->name) {
                bad_value(ck, member_key_span(m), "no name",
                          spec->named == TN_STRING
                              ? "`%s` needs a name in quotes, such as `task \"payments.charge\" { … }`"
                              : "`%s` needs a name, such as `step charge { … }`",
                          word->text);
                continue;
            }
            if (!named[i].slots)
                namemap_init(&named[i], ck->arena, b->count);
            uint32_t first = 0;
            if (!spec->repeats &&
                !check_register(ck, &named[i], m->name, (uint32_t)(m - b->members), &first)) {
                const char *what = spec->named == TN_STRING
                    ? arena_printf(ck->arena, "`%s \"%s\"`", word->text, m->name->text)
                    : arena_printf(ck->arena, "`%s %s`", word->text, m->name->text);
                given_twice(ck, m, &b->members[first], what);
                continue;
            }
            if (!found[i])
                found[i] = m;
        } else if (found[i]) {
            given_twice(ck, m, found[i], arena_printf(ck->arena, "`%s`", word->text));
            continue;
        } else {
            found[i] = m;
        }
        if (spec->value == TV_BLOCK) {
            Block *body = block_of(m);
            if (!body)
                bad_value(ck, member_value(m) ? member_value(m)->span : member_key_span(m),
                          "no block", "`%s` holds a block `{ … }`", word->text);
            else
                check_member_block(ck, t, m, body, spec, kind, about);
            continue;
        }
        Expr *v = member_value(m);
        if (!v) {
            bad_value(ck, member_key_span(m), "no value", "`%s` needs a value", word->text);
            continue;
        }
        check_value(ck, t, m, v, spec, about);
    }
    if (kind == TB_OUTCOME)
        check_outcome(ck, b, found, about);
    else if (kind == TB_EXPECT)
        check_error_with_status(ck, found_member(kind, found, "error"),
                                found_member(kind, found, "status"), "the test", true,
                                STATUS_WORDS, COUNT_OF(STATUS_WORDS));
    else if (kind == TB_EXPECT_STEP) {
        check_error_with_status(ck, found_member(kind, found, "error"),
                                found_member(kind, found, "status"),
                                "the expected step", false, STEP_STATUS_WORDS,
                                COUNT_OF(STEP_STATUS_WORDS));
        check_expected_attempts(ck, found, about);
    }
}

/* ---- A test --------------------------------------------------------------------------- */

/* The workflow the test runs: `workflow NAME` (also misspelt), else the program's only
 * one. NULL after reporting, or when the name did not parse. */
static Workflow *tested_workflow(Checker *ck, const Member *test)
{
    Program *p = ck->program;
    for (Member *m = block_first(member_body(test)), *end = block_end(member_body(test));
         m != end; m++) {
        static const char *const WORKFLOW[] = { "workflow" };
        const Name *word = m->kind == MEMBER_ERROR ? NULL : member_word(ck, m);
        if (!word || (word != ck->n_workflow && !check_suggest(ck, word->text, WORKFLOW, 1)))
            continue;   /* `workflw checkout` (E0801) names the workflow too: no E0805 */
        Expr *v = member_value(m);
        if (!v || v->kind != EXPR_NAME)
            return NULL;   /* reported by check_value */
        Workflow *wf = find_workflow(ck, v->name);
        if (!wf)
            unknown_workflow(ck, v->span, v->name);
        return wf;
    }
    if (p->workflow_count == 1)
        return &p->workflows[0];
    Diagnostic *d = diag_report(ck->diags, E0805, member_name_span(test),
                                p->workflow_count == 0
                                    ? "this test has no workflow to run"
                                    : "this test does not say which workflow it runs");
    if (p->workflow_count == 0) {
        diag_set_label(ck->diags, d, "the program declares no workflow");
        return NULL;
    }
    diag_set_label(ck->diags, d, "the program has %u workflows", p->workflow_count);
    diag_add_help(ck->diags, d, "name it in the test: `workflow %s`", p->workflows[0].name->text);
    return NULL;
}

static void check_test(Checker *ck, Tests *t, const Member *test)
{
    About a = { 0 };
    a.workflow = tested_workflow(ck, test);
    Member *found[MEMBERS_MAX] = { 0 };
    check_block(ck, t, member_body(test), TB_TEST, &a, found);
    if (a.workflow && !found[find_member(TB_TEST, "input")]) {
        /* No `input`: the runtime runs the workflow on `{}`, which must keep its contract. */
        What wf = what_named(WHAT_WORKFLOW, a.workflow->name);
        What what = what_of(WHAT_INPUT_OF, &wf);
        check_contract(ck, &(Scope){ 0 }, NULL, a.workflow->input, member_name_span(test), &what);
    }
}

/* Two tests of one name (E0810). */
static void check_test_names(Checker *ck)
{
    Program *p = ck->program;
    NameMap seen;
    namemap_init(&seen, ck->arena, p->test_count);
    for (uint32_t i = 0; i < p->test_count; i++) {
        const Member *m = p->tests[i];
        uint32_t first = 0;
        if (check_register(ck, &seen, m->name, i, &first))
            continue;
        Diagnostic *d = diag_report(ck->diags, E0810, member_name_span(m),
                                    "two tests are named \"%s\"", m->name->text);
        diag_set_label(ck->diags, d, "named again here");
        diag_add_label(ck->diags, d, member_name_span(p->tests[first]), "first named here");
        diag_add_note(ck->diags, d, "`orbitc test` reports each test by its name: a name "
                                    "is unique in its program");
    }
}

void check_tests(Checker *ck)
{
    Program *p = ck->program;
    if (!p->test_count)
        return;
    Tests t = { 0 };
    t.step_maps = arena_alloc(ck->arena, (p->workflow_count + 1) * sizeof *t.step_maps);
    t.step_index = arena_alloc(ck->arena, (p->workflow_count + 1) * sizeof *t.step_index);
    collect_names(ck, &t);
    check_test_names(ck);
    for (uint32_t i = 0; i < p->test_count; i++)
        check_test(ck, &t, p->tests[i]);
}
