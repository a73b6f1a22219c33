/* Workflow bodies, steps and compensate blocks: which members a block may hold (E0303,
 * E0304, E0307), exactly one action per step (E0301, E0302), the action's target, and the
 * order in which each step's parts are checked against the scopes of
 * diagnostics/explain/E0205.md. */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PLACE_TEXT[PLACE_COUNT] = {
    "on a task step", "on a workflow step", "on a sleep step", "on an await step",
    "on a compute step", "in a compensate block", "in a workflow body", "on a step",
};

/* place_allows, from the checker's table of it. */
static bool allows(const Checker *ck, Keyword kw, Place place)
{
    return (ck->allowed[place] >> kw) & 1u;
}

static const char *placement_help(Keyword kw, Place place)
{
    bool policy = kw == KW_RETRY || kw == KW_TIMEOUT || kw == KW_QUEUE_TIMEOUT;
    if (place == PLACE_WORKFLOW_STEP && kw == KW_RETRY)
        return "a child workflow is durable on its own: put retries on the child's steps";
    if (place == PLACE_COMPUTE && policy)
        return "a compute step is evaluated by the runtime and cannot time out or be retried";
    if (place == PLACE_AWAIT && policy)
        return "await steps accept `timeout` only";
    if (place == PLACE_WORKFLOW_BODY && kw != KW_WORKFLOW && kw != KW_WORKER &&
        kw != KW_TYPE)
        return "write it inside a `step`";
    if (place == PLACE_COMPENSATE && is_action(kw))
        return "a compensate block runs a task: `worker` or `using`";
    return NULL;
}

static COLD void report_placement(Checker *ck, Clause *cl, Place place)
{
    Diagnostic *d = diag_report(ck->diags, E0307, member_key_span(cl->member),
                                "`%s` is not allowed %s", keyword_text(cl->keyword),
                                PLACE_TEXT[place]);
    diag_set_label(ck->diags, d, "not allowed here");
    const char *help = placement_help(cl->keyword, place);
    if (help)
        diag_add_help(ck->diags, d, "%s", help);
}

/* ---- Members seen as clauses --------------------------------------------------------- */

static Keyword keyword_of(const char *text)
{
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++)
        if (strcmp(keyword_text((Keyword)kw), text) == 0)
            return (Keyword)kw;
    return KW_NONE;
}

/* The keywords that the members of `body` start with, as bits (1 << keyword). */
static uint32_t keywords_given(const Block *body)
{
    _Static_assert(KW_COUNT <= 32, "a keyword is a bit of a uint32_t");
    uint32_t given = 0;
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        given |= 1u << m->keyword;
    return given;
}

/* Reports an unknown member; returns the suggested member name, or NULL. A suggestion
 * that its block already has (`timout 10s` beside `timeout 4m`) is not certain: applied,
 * it would make a duplicate. `given`: keywords_given of a block whose members may each
 * be given once (a step's, a compensate block's), else 0. */
static const char *unknown_member(Checker *ck, Member *m, Place place, uint32_t given)
{
    const char *word = check_member_name(ck, m)->text;
    const char *where = place == PLACE_COMPENSATE ? "compensate member"
                      : place == PLACE_WORKFLOW_BODY ? "workflow member" : "step member";
    /* Any step suggests from all that a step may hold: its action may be the typo. */
    Place from = place == PLACE_COMPENSATE || place == PLACE_WORKFLOW_BODY
               ? place : PLACE_UNKNOWN_STEP;
    const char *cands[PLACE_MEMBERS_MAX];
    uint32_t n = place_members(from, cands);
    Diagnostic *d = diag_report(ck->diags, E0303, member_key_span(m), "unknown %s `%s`",
                                where, word);
    diag_set_label(ck->diags, d, "unknown member");
    const char *s = check_suggest(ck, word, cands, n);
    Keyword suggested = s ? keyword_of(s) : KW_NONE;
    if (suggested != KW_NONE && (given & (1u << suggested)))
        diag_add_fix(ck->diags, d, member_key_span(m), s, FIX_MAYBE_INCORRECT,
                     "did you mean `%s`? (this block has one already)", s);
    else if (s)
        check_add_suggestion(ck, d, member_key_span(m), s);
    if (s)
        return s;
    const char *alias = check_peer_alias(word);
    for (uint32_t i = 0; i < RETRY_SETTING_COUNT && place != PLACE_WORKFLOW_BODY; i++)
        if (strcmp(word, RETRY_SETTING_NAMES[i]) == 0 ||
            (alias && strcmp(alias, RETRY_SETTING_NAMES[i]) == 0)) {
            diag_add_help(ck->diags, d, "`%s` is a retry setting: write it inside "
                                        "`retry { … }`", RETRY_SETTING_NAMES[i]);
            return NULL;
        }
    return NULL;
}

/* `worker: reports.export` (a YAML habit): a colon and no quotes. */
static bool unquoted_worker_after_colon(Checker *ck, const Member *m)
{
    const Expr *v = member_value(m);
    return m->keyword == KW_WORKER && m->kind == MEMBER_ATTR && !m->assign && v &&
           v->kind != EXPR_STRING && v->kind != EXPR_ERROR && check_dotted_name(ck, v);
}

/* ... reported once, with one fix for both. */
static void unquoted_worker_error(Checker *ck, Member *m)
{
    Expr *v = member_value(m);
    const char *name = check_dotted_name(ck, v)->text;
    Diagnostic *d = diag_report(ck->diags, E0306, v->span,
                                "the worker name must be a string literal");
    diag_add_fix(ck->diags, d, span_make(m->colon_start, v->span.end),
                 arena_printf(ck->arena, " \"%s\"", name), FIX_MACHINE_APPLICABLE,
                 "remove the `:` and put the name in quotes: `worker \"%s\"`", name);
}

static COLD void colon_error(Checker *ck, Member *m)
{
    if (unquoted_worker_after_colon(ck, m)) {
        unquoted_worker_error(ck, m);
        return;
    }
    Keyword kw = m->keyword;
    bool policy = kw == KW_RETRY || kw == KW_TIMEOUT || kw == KW_QUEUE_TIMEOUT;
    Diagnostic *d = diag_report(ck->diags, policy ? E0410 : E0103, member_colon_span(m),
                                "unexpected `:` after `%s`", keyword_text(kw));
    diag_set_label(ck->diags, d, "not expected here");
    diag_add_fix(ck->diags, d, member_colon_span(m), "", FIX_MACHINE_APPLICABLE,
                 kw == KW_RETRY ? "`retry` is followed directly by `{`: remove the `:`"
                                : "remove the `:`");
}

/* The clause of an unknown word (view): reported when `report`; a misspelt action
 * (`wroker "x"`) still counts as the action, so that the step is not also reported as
 * having none. Out of line: a correct program has none. */
static COLD bool view_unknown(Checker *ck, Member *m, Place place, Clause *out, bool report,
                              const Block *block)
{
    const char *s = report ? unknown_member(ck, m, place, block ? keywords_given(block) : 0)
                           : NULL;
    Keyword kw = s ? keyword_of(s) : KW_NONE;
    if (m->kind != MEMBER_CLAUSE || !is_action(kw) || !member_value(m))
        return false;
    out->keyword = kw;
    return true;
}

/* `with { … }` written as a clause with a block: its value, an object literal. */
static COLD Expr *with_object(Checker *ck, Block *body)
{
    Expr *e = arena_alloc(ck->arena, sizeof *e);
    e->kind = EXPR_OBJECT;
    e->span = body->span;
    e->block = body;
    return e;
}

/* Views `m` as a clause. Returns false for members to skip: parse errors, and unknown
 * words (reported here when `report`; `block` is the block of `m` when its members may
 * each be given once, for unknown_member, else NULL). */
static bool view(Checker *ck, Member *m, Place place, Clause *out, bool report,
                 const Block *block)
{
    out->member = m;
    out->keyword = m->keyword;
    out->value = member_value(m);
    out->body = NULL;
    if (m->kind == MEMBER_ERROR)
        return false;
    if (!((ck->member_keywords >> m->keyword) & 1u))   /* keyword_is_member */
        return view_unknown(ck, m, place, out, report, block);
    /* `retry: 3` gets one diagnostic: the block it needs (check_retry, compensate). */
    bool has_block = out->value && out->value->kind == EXPR_OBJECT;
    if (m->kind == MEMBER_ATTR) {
        bool needs_block = m->keyword == KW_RETRY || m->keyword == KW_COMPENSATE;
        if (!m->assign && report && (has_block || !needs_block))
            colon_error(ck, m);
    } else {
        out->body = member_body(m);
    }
    if (!out->body && has_block)
        out->body = out->value->block;
    if (!out->value && out->body && m->keyword == KW_WITH)
        out->value = with_object(ck, out->body);
    return true;
}

/* ---- Collecting the members of a block --------------------------------------------- */

typedef struct Members {
    uint32_t present;         /* the keywords that have a slot, as bits (1 << keyword) */
    Clause slot[KW_COUNT];    /* the first of each keyword that is allowed here; only
                                 those in `present` are set (read them through given) */
    Clause action;            /* the first action (all NULL when none) */
    Place place;
    bool parse_error;         /* a member failed to parse (already reported): it may
                                 have been the action, so a missing one is not reported */
} Members;

/* The member given for keyword `kw`, as a clause, or NULL. */
static Clause *given(Members *ms, Keyword kw)
{
    return ms->present & (1u << kw) ? &ms->slot[kw] : NULL;
}

static COLD void duplicate_member(Checker *ck, Clause *first, Clause *again)
{
    Keyword kw = again->keyword;
    if (kw == KW_RETRY || kw == KW_TIMEOUT || kw == KW_QUEUE_TIMEOUT) {
        check_report_repeated(ck, first->member, again->member, keyword_text(kw));
        return;
    }
    Diagnostic *d = diag_report(ck->diags, E0304, member_key_span(again->member),
                                "`%s` is given twice", keyword_text(kw));
    diag_set_label(ck->diags, d, "given again here");
    diag_add_label(ck->diags, d, member_key_span(first->member), "first given here");
}

static COLD void second_action(Checker *ck, Clause *first, Clause *again, const char *what)
{
    Diagnostic *d = diag_report(ck->diags, E0302, member_key_span(again->member),
                                "%s has more than one action", what);
    diag_set_label(ck->diags, d, "second action");
    diag_add_label(ck->diags, d, member_key_span(first->member), "first action");
    diag_add_help(ck->diags, d, "split it into two steps");
}

/* A buffer for `n` clauses, reused from block to block (a block's list is needed only
 * while collect_members reads it). */
static Clause *clause_list(Checker *ck, uint32_t n)
{
    if (n > ck->clause_capacity) {
        uint32_t capacity = ck->clause_capacity ? ck->clause_capacity : 64;
        while (capacity < n)
            capacity *= 2;
        ck->clauses = xrealloc(ck->clauses, (size_t)capacity * sizeof *ck->clauses);
        ck->clause_capacity = capacity;
    }
    return ck->clauses;
}

/* collect_members of a block without a problem, in one pass and without the list of
 * clauses: every member a clause of a member keyword (no attribute, error or unknown
 * word), one action allowed at `fixed_place`, every other keyword once and allowed where
 * the action puts the step. Returns false, having reported nothing, for any other block:
 * collect_members then reads it again and reports what is wrong. */
static bool collect_correct_members(Checker *ck, Block *body, Place fixed_place,
                                    Members *out)
{
    uint32_t present = 0;
    Member *action = NULL;
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        Keyword kw = m->keyword;
        uint32_t bit = 1u << kw;
        if (m->kind != MEMBER_CLAUSE || !(ck->member_keywords & bit) ||
            (!member_value(m) && kw == KW_WITH))
            return false;
        Clause *cl = &out->slot[kw];
        if (is_action(kw)) {
            if (action || !allows(ck, kw, fixed_place))
                return false;
            action = m;
            cl = &out->action;
        } else if (present & bit) {
            return false;
        }
        present |= bit;
        cl->keyword = kw;
        cl->member = m;
        cl->value = member_value(m);
        cl->body = member_body(m) ? member_body(m)
                 : cl->value && cl->value->kind == EXPR_OBJECT ? cl->value->block : NULL;
    }
    Place place = fixed_place;
    if (action && fixed_place == PLACE_UNKNOWN_STEP)
        place = place_of_action(action->keyword);
    if (action)
        present &= ~(1u << action->keyword);
    if (present & ~ck->allowed[place])
        return false;
    if (!action)
        memset(&out->action, 0, sizeof out->action);
    out->present = present;
    out->place = place;
    out->parse_error = false;
    return true;
}

/* Reads a step or compensate block: finds the action (which decides the place), then
 * places every other member. `fixed_place` is PLACE_COMPENSATE or PLACE_UNKNOWN_STEP. */
static void collect_members(Checker *ck, Block *body, Place fixed_place, Members *out)
{
    if (collect_correct_members(ck, body, fixed_place, out))
        return;
    out->present = 0;
    memset(&out->action, 0, sizeof out->action);
    out->place = fixed_place;
    out->parse_error = false;
    uint32_t count = 0;
    Clause *list = clause_list(ck, body->count + 1);
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        if (m->kind == MEMBER_ERROR) {
            out->parse_error = true;
            continue;
        }
        Clause *cl = &list[count];
        if (!view(ck, m, fixed_place, cl, true, body))
            continue;
        count++;
        if (!is_action(cl->keyword) || !allows(ck, cl->keyword, fixed_place))
            continue;
        if (!out->action.member)
            out->action = *cl;
        else
            second_action(ck, &out->action, cl,
                          fixed_place == PLACE_COMPENSATE ? "this compensate block"
                                                          : "this step");
        cl->keyword = KW_NONE;   /* placed */
    }
    if (out->action.member && fixed_place == PLACE_UNKNOWN_STEP)
        out->place = place_of_action(out->action.keyword);
    for (uint32_t i = 0; i < count; i++) {
        Clause *cl = &list[i];
        Keyword kw = cl->keyword;
        if (kw == KW_NONE)
            continue;
        if (!allows(ck, kw, out->place)) {
            report_placement(ck, cl, out->place);
            continue;
        }
        if (out->present & (1u << kw)) {
            duplicate_member(ck, &out->slot[kw], cl);
            continue;
        }
        out->present |= 1u << kw;
        out->slot[kw] = *cl;
    }
}

/* ---- Action targets ------------------------------------------------------------------ */

static void bad_target(Checker *ck, Expr *v, const char *message, const char *replacement,
                       const char *help)
{
    Diagnostic *d = diag_report(ck->diags, E0306, v->span, "%s", message);
    if (replacement)
        diag_add_fix(ck->diags, d, v->span, replacement, FIX_MACHINE_APPLICABLE, "%s", help);
    else if (help)
        diag_add_help(ck->diags, d, "%s", help);
}

typedef struct Target {
    StepKind kind;
    const Name *name;
    uint32_t index;
    const Type *input;        /* contract of `with`; any when unknown */
    const Type *output;
    What what;                /* "worker `payments.charge`" for messages */
    bool known;               /* what is set: the contracts are checked */
} Target;

/* `worker reports.export` is checked as the quoted name it means; `worker:
 * reports.export` was already reported with its colon (view). */
static void target_worker(Checker *ck, const Member *m, Expr *v, Target *t)
{
    t->kind = STEP_TASK_WORKER;
    if (v->kind != EXPR_STRING) {
        const Name *dotted = check_dotted_name(ck, v);
        if (v->kind != EXPR_ERROR && !unquoted_worker_after_colon(ck, m))
            bad_target(ck, v, "the worker name must be a string literal",
                       dotted ? arena_printf(ck->arena, "\"%s\"", dotted->text) : NULL,
                       dotted ? "put the name in quotes" : "such as `worker \"payments.charge\"`");
        if (!dotted)
            return;
        t->name = dotted;
    } else {
        t->name = intern(ck->names, v->text, v->len);
    }
    t->what = what_named(WHAT_WORKER, t->name);
    t->known = true;
    if (check_lookup(&ck->workers, t->name, &t->index)) {
        t->input = ck->program->workers[t->index].input;
        t->output = ck->program->workers[t->index].output;
    }
}

static void known_builtin(Checker *ck, const Name *name, Target *t)
{
    const Builtin *b = &ck->program->builtins[t->index];
    t->name = name;
    t->input = b->input;
    t->output = b->output;
    t->what = what_named(WHAT_BUILTIN, name);
    t->known = true;
}

static void target_builtin(Checker *ck, Expr *v, Target *t)
{
    t->kind = STEP_TASK_BUILTIN;
    const Name *name = v->kind == EXPR_STRING ? intern(ck->names, v->text, v->len)
                                              : check_dotted_name(ck, v);
    if (v->kind == EXPR_ERROR)
        return;
    if (!name) {
        bad_target(ck, v, "`using` takes the name of a built-in task", NULL,
                   "such as `using orbit.http.request`");
        return;
    }
    if (v->kind == EXPR_STRING) {
        bad_target(ck, v, "the built-in task name is written without quotes", name->text,
                   "remove the quotes");
    }
    if (check_lookup(&ck->builtins, name, &t->index)) {
        known_builtin(ck, name, t);
        return;
    }
    if (v->kind == EXPR_STRING)
        return;
    Diagnostic *d = diag_report(ck->diags, E0203, v->span, "unknown built-in task `%s`",
                                name->text);
    diag_set_label(ck->diags, d, "not a built-in task");
    /* `using http.request`: the built-in tasks live under `orbit.`; checked as meant. */
    const Name *full = intern_cstr(ck->names, arena_printf(ck->arena, "orbit.%s", name->text));
    if (check_lookup(&ck->builtins, full, &t->index)) {
        check_add_suggestion(ck, d, v->span, full->text);
        known_builtin(ck, full, t);
        return;
    }
    Program *p = ck->program;
    const char **cands = arena_alloc(ck->arena, (p->builtin_count + 1) * sizeof *cands);
    for (uint32_t i = 0; i < p->builtin_count; i++)
        cands[i] = p->builtins[i].name->text;
    const char *s = check_suggest(ck, name->text, cands, p->builtin_count);
    if (s)
        check_add_suggestion(ck, d, v->span, s);
    else
        diag_add_help(ck->diags, d, "to run an external worker, write `worker \"%s\"`",
                      name->text);
}

static void target_workflow(Checker *ck, Expr *v, Target *t)
{
    t->kind = STEP_WORKFLOW;
    if (v->kind != EXPR_NAME) {
        if (v->kind == EXPR_STRING)
            bad_target(ck, v, "the workflow name is written without quotes",
                       v->text, "remove the quotes");
        else if (v->kind != EXPR_ERROR)
            bad_target(ck, v, "`workflow` takes the name of a workflow", NULL,
                       "such as `workflow pack_items`");
        return;
    }
    if (check_lookup(&ck->workflows, v->name, &t->index)) {
        const Workflow *wf = &ck->program->workflows[t->index];
        t->name = v->name;
        t->input = wf->input;
        t->output = wf->result;
        t->what = what_named(WHAT_WORKFLOW, v->name);
        t->known = true;
        return;
    }
    Diagnostic *d = diag_report(ck->diags, E0202, v->span, "unknown workflow `%s`",
                                v->name->text);
    diag_set_label(ck->diags, d, "no workflow with this name");
    Program *p = ck->program;
    if (!ck->workflow_index) {   /* built once: a program may name many unknown workflows */
        const char **cands = arena_alloc(ck->arena, (p->workflow_count + 1) * sizeof *cands);
        for (uint32_t i = 0; i < p->workflow_count; i++)
            cands[i] = p->workflows[i].name->text;
        ck->workflow_index = suggest_index_new(ck->arena, cands, p->workflow_count);
    }
    const char *s = check_suggest_indexed(ck, v->name->text, ck->workflow_index);
    if (s)
        check_add_name_suggestion(ck, d, v->span, s);
}

static void target_signal(Checker *ck, Expr *v, Target *t)
{
    t->kind = STEP_AWAIT;
    if (v->kind == EXPR_STRING) {
        t->name = intern(ck->names, v->text, v->len);
        return;
    }
    if (v->kind == EXPR_NAME)
        bad_target(ck, v, "the signal name must be a string literal",
                   arena_printf(ck->arena, "\"%s\"", v->name->text), "put the name in quotes");
    else if (v->kind != EXPR_ERROR)
        bad_target(ck, v, "the signal name must be a string literal", NULL,
                   "such as `await \"manager_approved\"`");
}

/* No target: unknown, its contracts `any`. */
static void target_none(Checker *ck, Target *t)
{
    memset(t, 0, sizeof *t);
    t->index = NO_INDEX;
    t->input = ck->types.any;
    t->output = ck->types.any;
}

/* Resolves the action of a step or compensate block. */
static void resolve_target(Checker *ck, Clause *action, Target *t)
{
    target_none(ck, t);
    Expr *v = action->value;
    switch (action->keyword) {
    case KW_WORKER: t->kind = STEP_TASK_WORKER; break;
    case KW_USING: t->kind = STEP_TASK_BUILTIN; break;
    case KW_WORKFLOW: t->kind = STEP_WORKFLOW; break;
    case KW_SLEEP: t->kind = STEP_SLEEP; t->output = ck->types.null; return;
    case KW_AWAIT: t->kind = STEP_AWAIT; break;
    default: t->kind = STEP_COMPUTE; return;
    }
    if (!v)
        return;
    if (action->keyword == KW_WORKER)
        target_worker(ck, action->member, v, t);
    else if (action->keyword == KW_USING)
        target_builtin(ck, v, t);
    else if (action->keyword == KW_WORKFLOW)
        target_workflow(ck, v, t);
    else
        target_signal(ck, v, t);
}

/* check_expect_type for a place described by fixed text, such as "`when`". */
static void expect_at(Checker *ck, Expr *e, const Type *expected, const char *place)
{
    What what = what_fixed(place);
    check_expect_type(ck, e, expected, &what);
}

/* ---- Dependencies ----------------------------------------------------------------- */

enum { SMALL_DEPS = 16 };   /* dependency lists up to this long are sorted by insertion */

static int compare_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void begin_deps(Checker *ck, Scope *scope)
{
    ck->dep_stamp++;
    scope->deps = ck->dep_buffer;
    scope->dep_count = 0;
}

static uint32_t *end_deps(Checker *ck, Scope *scope, uint32_t *count)
{
    *count = scope->dep_count;
    if (!scope->dep_count)
        return NULL;
    uint32_t n = scope->dep_count;
    uint32_t *deps = arena_alloc_raw(ck->arena, n * sizeof *deps);
    if (n > SMALL_DEPS) {
        memcpy(deps, scope->deps, n * sizeof *deps);
        qsort(deps, n, sizeof *deps, compare_index);
        return deps;
    }
    for (uint32_t i = 0; i < n; i++) {    /* a step uses a few: insertion sort */
        uint32_t d = scope->deps[i], j = i;
        for (; j > 0 && deps[j - 1] > d; j--)
            deps[j] = deps[j - 1];
        deps[j] = d;
    }
    return deps;
}

/* ---- Policies of a step or compensate block --------------------------------------- */

typedef struct Policies {
    RetryPolicy retry;
    RetrySyntax syntax;   /* set when a retry block is given */
    int64_t timeout_ms;
    int64_t queue_timeout_ms;
} Policies;

static void check_policies(Checker *ck, Members *ms, Policies *out)
{
    out->timeout_ms = out->queue_timeout_ms = 0;
    uint32_t reported = ck->diags->count;
    if (given(ms, KW_RETRY))   /* check_retry starts from the default policy */
        check_retry(ck, given(ms, KW_RETRY), &out->retry, &out->syntax);
    else
        policy_default_retry(&out->retry);
    /* A block with errors gets no lints: they would follow from the errors. */
    bool retry_clean = ck->diags->count == reported;
    if (given(ms, KW_TIMEOUT))
        out->timeout_ms = check_duration_setting(ck, given(ms, KW_TIMEOUT), "timeout");
    if (given(ms, KW_QUEUE_TIMEOUT))
        out->queue_timeout_ms = check_duration_setting(ck, given(ms, KW_QUEUE_TIMEOUT),
                                                       "queue_timeout");
    if (out->retry.given && retry_clean)
        lint_retry(ck, &out->retry, &out->syntax);
}

static int64_t effective_timeout(Checker *ck, const Target *t, int64_t given)
{
    if (given || t->kind != STEP_TASK_BUILTIN || t->index == NO_INDEX)
        return given;
    return ck->program->builtins[t->index].default_timeout_ms;
}

/* `with` (NULL when not given) against the target's input. */
static void check_with(Checker *ck, Scope *scope, Clause *with, const Target *t, Span where)
{
    Expr *value = with ? with->value : NULL;
    if (!t->known) {   /* unknown or undeclared target: `with` is unchecked */
        if (value)
            check_expr(ck, scope, value);
        return;
    }
    What owner = what_of(WHAT_INPUT_OF, &t->what);
    check_contract(ck, scope, value, t->input, where, &owner);
}

/* ---- Compensate blocks --------------------------------------------------------------- */

static void check_compensate(Checker *ck, Workflow *wf, Step *step, Scope *outer, Clause *cl)
{
    if (!cl->body) {
        Diagnostic *d = diag_report(ck->diags, E0306, cl->member->span,
                                    "`compensate` takes a block");
        diag_add_help(ck->diags, d, "such as `compensate { worker \"payments.refund\" }`");
        return;
    }
    Members ms;
    collect_members(ck, cl->body, PLACE_COMPENSATE, &ms);
    Compensation *c = arena_alloc(ck->arena, sizeof *c);
    step->compensate = c;
    c->span = cl->member->span;
    c->target_index = NO_INDEX;
    Target t;
    target_none(ck, &t);
    if (!ms.action.member && !ms.parse_error) {
        Diagnostic *d = diag_report(ck->diags, E0301, member_key_span(cl->member),
                                    "compensate block has no task");
        diag_set_label(ck->diags, d, "no `worker` or `using` in this block");
        diag_add_help(ck->diags, d, "name the task that undoes the step, such as "
                                    "`worker \"payments.refund\"`");
    } else if (ms.action.member) {
        resolve_target(ck, &ms.action, &t);
    }
    c->kind = t.kind == STEP_TASK_BUILTIN ? STEP_TASK_BUILTIN : STEP_TASK_WORKER;
    c->target_name = t.name;
    c->target_index = t.index;

    Scope scope = *outer;
    scope.for_var = NULL;
    scope.self_visible = true;
    begin_deps(ck, &scope);
    Clause *with = given(&ms, KW_WITH);
    check_with(ck, &scope, with, &t, member_key_span(cl->member));
    c->with = with ? with->value : NULL;
    if (given(&ms, KW_IDEMPOTENCY_KEY)) {
        c->idempotency_key = given(&ms, KW_IDEMPOTENCY_KEY)->value;
        check_expr(ck, &scope, c->idempotency_key);
        expect_at(ck, c->idempotency_key, ck->types.string, "`idempotency_key`");
    }
    c->deps = end_deps(ck, &scope, &c->dep_count);

    Policies pol;
    check_policies(ck, &ms, &pol);
    c->retry = pol.retry;
    c->timeout_ms = effective_timeout(ck, &t, pol.timeout_ms);
    c->queue_timeout_ms = pol.queue_timeout_ms;
    if (c->retry.attempts > 1)
        lint_idempotency(ck, &c->retry, c->idempotency_key != NULL,
                         member_key_span(cl->member), true);
    (void)wf;
}

/* ---- Steps ----------------------------------------------------------------------------- */

static const Type *step_result(Checker *ck, Step *s, const Target *t)
{
    const Type *r = t->output;
    if (s->kind == STEP_COMPUTE)
        r = s->compute && s->compute->type ? s->compute->type : ck->types.error;
    else if (s->kind == STEP_AWAIT)
        r = ck->types.any;
    if (s->for_var)
        r = type_list(&ck->types, r);
    s->ran_result = r;
    if (s->when)
        r = type_optional(&ck->types, r);
    return r;
}

static void check_for(Checker *ck, Scope *scope, Step *s, Clause *cl)
{
    Member *m = cl->member;
    if (!m->name || !cl->value)
        return;
    s->for_var = m->name;
    s->for_var_span = member_name_span(m);
    s->for_iterable = cl->value;
    const Type *t = check_expr(ck, scope, cl->value);
    if (type_is_unchecked(t)) {
        scope->for_type = t;
    } else if (t->kind == TYPE_LIST) {
        scope->for_type = t->elem;
    } else {
        Diagnostic *d = diag_report(ck->diags, E0501, cl->value->span,
                                    "expected a list for `for`, found `%s`",
                                    type_text(ck->arena, t));
        diag_set_label(ck->diags, d, "this is `%s`", type_text(ck->arena, t));
        if (t->kind == TYPE_OPTIONAL && t->elem->kind == TYPE_LIST)
            diag_add_help(ck->diags, d, "the value may be null: give a default with `?? []`");
        scope->for_type = ck->types.error;
    }
}

static void check_step_exprs(Checker *ck, Scope *scope, Step *s, Members *ms, Target *t)
{
    /* `when` and the iterable do not see the `for` variable. */
    Clause *for_clause = given(ms, KW_FOR), *when = given(ms, KW_WHEN);
    scope->hidden_for_var = for_clause ? for_clause->member->name : NULL;
    if (when && when->value) {
        s->when = when->value;
        check_expr(ck, scope, s->when);
        expect_at(ck, s->when, ck->types.boolean, "`when`");
    }
    if (for_clause)
        check_for(ck, scope, s, for_clause);
    scope->hidden_for_var = NULL;
    if (s->for_var)
        scope->for_var = s->for_var;
    Expr *action = ms->action.value;
    if (s->kind == STEP_SLEEP && action) {
        Scope no_for = *scope;
        no_for.for_var = NULL;
        s->sleep = action;
        check_expr(ck, &no_for, action);
        expect_at(ck, action, ck->types.duration, "`sleep`");
        scope->dep_count = no_for.dep_count;
    } else if (s->kind == STEP_COMPUTE && action) {
        s->compute = action;
        check_expr(ck, scope, action);
    }
    bool takes_with = s->kind == STEP_TASK_WORKER || s->kind == STEP_TASK_BUILTIN ||
                      s->kind == STEP_WORKFLOW;
    Clause *with = given(ms, KW_WITH), *key = given(ms, KW_IDEMPOTENCY_KEY);
    if (takes_with || with)
        check_with(ck, scope, with, t, s->name_span);
    s->with = with ? with->value : NULL;
    if (key && key->value) {
        s->idempotency_key = key->value;
        check_expr(ck, scope, s->idempotency_key);
        expect_at(ck, s->idempotency_key, ck->types.string, "`idempotency_key`");
    }
}

static void check_step(Checker *ck, Workflow *wf, NameMap *steps, Member *decl, uint32_t index)
{
    Step *s = &wf->steps[index];
    Members ms;
    collect_members(ck, member_body(decl), PLACE_UNKNOWN_STEP, &ms);
    Target t;
    if (ms.action.member) {
        resolve_target(ck, &ms.action, &t);
    } else {
        target_none(ck, &t);
        if (!ms.parse_error) {
            Diagnostic *d = diag_report(ck->diags, E0301, member_name_span(decl),
                                        "step `%s` has no action", s->name->text);
            diag_set_label(ck->diags, d, "this step does nothing");
            diag_add_help(ck->diags, d, "give it one of `worker`, `using`, `workflow`, "
                                        "`sleep`, `await` or `compute`");
        }
        t.kind = STEP_COMPUTE;
        t.output = ck->types.error;
    }
    s->kind = t.kind;
    s->target_name = t.name;
    s->target_index = t.index;

    Scope scope = { 0 };
    scope.workflow = wf;
    scope.steps = steps;
    scope.step_index = index;
    scope.in_step = true;
    begin_deps(ck, &scope);
    check_step_exprs(ck, &scope, s, &ms, &t);
    s->deps = end_deps(ck, &scope, &s->dep_count);
    s->result = ms.action.member ? step_result(ck, s, &t) : ck->types.error;

    Policies pol;
    check_policies(ck, &ms, &pol);
    s->retry = pol.retry;
    s->timeout_ms = effective_timeout(ck, &t, pol.timeout_ms);
    s->queue_timeout_ms = pol.queue_timeout_ms;
    /* Both lints are about retries: a task tried once needs neither. */
    if ((s->kind == STEP_TASK_WORKER || s->kind == STEP_TASK_BUILTIN) && s->retry.attempts > 1) {
        lint_idempotency(ck, &s->retry, s->idempotency_key != NULL, member_name_span(decl),
                         false);
        if (lint_retry_budget(ck, wf, s, &s->retry, s->timeout_ms, member_name_span(decl)))
            wf->worst.retries_reported = true;
    }
    if (given(&ms, KW_COMPENSATE))
        check_compensate(ck, wf, s, &scope, given(&ms, KW_COMPENSATE));
}

/* ---- Workflows ------------------------------------------------------------------------ */

/* The signature: input and output contracts, the workflow timeout, and the result type
 * that workflow steps see. Checked for every workflow before any body. */
void check_workflow_signature(Checker *ck, uint32_t index)
{
    Workflow *wf = &ck->program->workflows[index];
    Member *decl = ck->workflow_decls[index];
    Clause seen[KW_TIMEOUT + 1];   /* [KW_INPUT], [KW_OUTPUT], [KW_TIMEOUT] */
    _Static_assert(KW_INPUT < KW_TIMEOUT && KW_OUTPUT < KW_TIMEOUT, "seen has room");
    memset(seen, 0, sizeof seen);
    wf->input = ck->types.empty_record;
    bool has_return = false;
    for (Member *m = block_first(member_body(decl)), *end = block_end(member_body(decl)); m != end; m++) {
        Clause cl;
        if (!view(ck, m, PLACE_WORKFLOW_BODY, &cl, false, NULL))
            continue;
        Keyword kw = cl.keyword;
        if (kw == KW_RETURN)
            has_return = true;
        if (kw != KW_INPUT && kw != KW_OUTPUT && kw != KW_TIMEOUT)
            continue;
        if (seen[kw].member) {
            duplicate_member(ck, &seen[kw], &cl);
            continue;
        }
        seen[kw] = cl;
        if (kw == KW_TIMEOUT) {
            wf->timeout_ms = check_duration_setting(ck, &cl, "timeout");
            wf->timeout_span = member_key_span(cl.member);
            continue;
        }
        const Type *t = cl.value ? type_from_syntax(ck, cl.value) : ck->types.error;
        if (kw == KW_INPUT)
            wf->input = t;
        else
            wf->output = t;
    }
    wf->result = wf->output ? wf->output : has_return ? ck->types.any : ck->types.null;
    if (wf->output && !has_return) {
        Diagnostic *d = diag_report(ck->diags, E0305, member_key_span(seen[KW_OUTPUT].member),
                                    "workflow `%s` has an `output` contract but no `return`",
                                    wf->name->text);
        diag_set_label(ck->diags, d, "declared here");
        diag_add_help(ck->diags, d, "add `return { … }` at the end of the workflow");
    }
}

static bool is_keyword_name(const Checker *ck, const Name *name)
{
    uint32_t kw, h = name->hash & 255;
    if (!(ck->keyword_hashes[h >> 6] >> (h & 63) & 1))
        return false;   /* asked of every step's name: most are not looked up */
    return check_lookup(&ck->keyword_names, name, &kw);
}

/* `input`, `workflow` and every other keyword: a step's name is used in expressions,
 * where a keyword would not read as the step. */
static bool reserved_step_name(Checker *ck, Member *m)
{
    if (!m->name || !is_keyword_name(ck, m->name))
        return false;
    Diagnostic *d = diag_report(ck->diags, E0207, member_name_span(m),
                                "`%s` cannot be used as a step name", m->name->text);
    diag_set_label(ck->diags, d, "reserved name");
    if (m->name == ck->n_input)
        diag_add_note(ck->diags, d, "`input` always means the workflow's input");
    else
        diag_add_note(ck->diags, d, "`%s` is a keyword of Orbit", m->name->text);
    diag_add_help(ck->diags, d, "choose another name, such as `%s_step`", m->name->text);
    return true;
}

/* `step NAME { … }`, also misspelt (`stp charge { … }`, reported as an unknown member
 * with a suggestion): the step is still checked, so that its uses do not cascade. */
static bool is_step_decl(Checker *ck, const Member *m)
{
    static const char *const STEP[] = { "step" };
    if (m->kind != MEMBER_CLAUSE || !m->name || !member_body(m))
        return false;
    if (m->keyword == KW_STEP)
        return true;
    return m->keyword == KW_NONE && m->key && check_suggest(ck, m->key->text, STEP, 1);
}

/* Whether the workflows' steps live in one buffer reused from workflow to workflow
 * (checker.h, check_only): not when the program has tests, whose pass reads them. */
static bool reuse_steps(const Checker *ck)
{
    return ck->options->check_only && !ck->program->test_count;
}

/* Room for the tables of a workflow of `n` steps (check_internal.h). */
static void workflow_tables(Checker *ck, uint32_t n)
{
    namemap_reset(&ck->steps, ck->arena, n);
    if (n <= ck->step_capacity)
        return;
    uint32_t old = ck->step_capacity, capacity = n > 2 * old ? n : 2 * old;
    ck->step_decls = xrealloc(ck->step_decls, capacity * sizeof *ck->step_decls);
    ck->dep_buffer = xrealloc(ck->dep_buffer, capacity * sizeof *ck->dep_buffer);
    ck->dep_mark = xrealloc(ck->dep_mark, capacity * sizeof *ck->dep_mark);
    if (reuse_steps(ck)) {
        free(ck->step_buffer);   /* nothing in it is kept: no copy */
        ck->step_buffer = xmalloc(capacity * sizeof *ck->step_buffer);
    }
    memset(ck->dep_mark + old, 0, (capacity - old) * sizeof *ck->dep_mark);  /* no stamp */
    ck->step_capacity = capacity;
}

/* Registers the steps of a workflow (duplicates point at both) in ck->steps and
 * ck->step_decls. */
static void collect_steps(Checker *ck, Workflow *wf, Member *decl, uint32_t n)
{
    workflow_tables(ck, n);
    Member **decls = ck->step_decls;
    NameMap *steps = &ck->steps;
    /* Not zeroed (no memset of the whole array): each step is written whole below. */
    wf->steps = reuse_steps(ck) ? ck->step_buffer
                                  : arena_alloc_raw(ck->arena, n * sizeof *wf->steps);
    for (Member *m = block_first(member_body(decl)), *end = block_end(member_body(decl)); m != end; m++) {
        if (!is_step_decl(ck, m))
            continue;
        uint32_t i = wf->step_count++, first = 0;
        Step *s = &wf->steps[i];
        *s = (Step){
            .name = m->name,
            .span = m->span,
            .name_span = member_name_span(m),
            .index = i,
            .target_index = NO_INDEX,
        };
        policy_default_retry(&s->retry);
        decls[i] = m;
        if (reserved_step_name(ck, m))
            continue;
        if (check_register(ck, steps, m->name, i, &first))
            continue;
        Diagnostic *d = diag_report(ck->diags, E0201, member_name_span(m),
                                    "duplicate step `%s`", m->name->text);
        diag_set_label(ck->diags, d, "defined again here");
        diag_add_label(ck->diags, d, wf->steps[first].name_span, "first defined here");
    }
}

/* The members of a workflow body, gone over once: each is viewed (unknown and misplaced
 * members are reported), the steps are counted, and the `return` is found (a second one
 * is reported). Returns the `return`, or NULL. */
static Member *check_body_members(Checker *ck, Member *decl, uint32_t *step_count)
{
    Member *ret = NULL;
    uint32_t n = 0;
    for (Member *m = block_first(member_body(decl)), *end = block_end(member_body(decl)); m != end; m++) {
        if (is_step_decl(ck, m))
            n++;
        Clause cl;
        if (!view(ck, m, PLACE_WORKFLOW_BODY, &cl, true, NULL))
            continue;   /* a parse error, or an unknown word: not `return` */
        if (!allows(ck, cl.keyword, PLACE_WORKFLOW_BODY) && cl.keyword != KW_TIMEOUT)
            report_placement(ck, &cl, PLACE_WORKFLOW_BODY);
        if (m->keyword != KW_RETURN)
            continue;
        if (ret) {
            Diagnostic *d = diag_report(ck->diags, E0304, member_key_span(m),
                                        "`return` is given twice");
            diag_set_label(ck->diags, d, "given again here");
            diag_add_label(ck->diags, d, member_key_span(ret), "first given here");
            continue;
        }
        ret = m;
    }
    *step_count = n;
    return ret;
}

static void check_return(Checker *ck, Workflow *wf, Member *ret, NameMap *steps)
{
    if (!ret || !member_value(ret))
        return;
    Scope scope = { 0 };
    scope.workflow = wf;
    scope.steps = steps;
    scope.step_index = wf->step_count;
    begin_deps(ck, &scope);
    wf->ret = member_value(ret);
    What owner = what_named(WHAT_OUTPUT_OF, wf->name);
    check_contract(ck, &scope, wf->ret, wf->output, member_key_span(ret), &owner);
}

void check_workflow_body(Checker *ck, uint32_t index)
{
    Workflow *wf = &ck->program->workflows[index];
    Member *decl = ck->workflow_decls[index];
    uint32_t step_count;
    Member *ret = check_body_members(ck, decl, &step_count);
    collect_steps(ck, wf, decl, step_count);
    for (uint32_t i = 0; i < wf->step_count; i++)
        check_step(ck, wf, &ck->steps, ck->step_decls[i], i);
    check_return(ck, wf, ret, &ck->steps);
    worst_collect(ck, wf);
    if (reuse_steps(ck)) {   /* the next workflow reuses the buffer (checker.h) */
        wf->steps = NULL;
        wf->step_count = 0;
    }
}
