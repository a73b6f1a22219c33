/* Invariants judged on a run's history (invariants.h). */
#include "invariants.h"

#include <stdio.h>
#include <string.h>

#include "orbc_value.h"
#include "scenario_of_test.h"

static bool is(const TestEvent *e, const char *event)
{
    return strcmp(e->event, event) == 0;
}

static bool same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static bool broke(Arena *arena, InvariantBreak *out, const char *name, const char *says,
                  uint32_t event, const char *detail)
{
    *out = (InvariantBreak){ name, says, arena_strndup(arena, detail, strlen(detail)), NULL,
                             event };
    return true;
}

/* ---- a label's step --------------------------------------------------------------------- */

/* The step a history label names (`charge`, `fan[2]`, `pack[0]/pick`,
 * `charge.compensate`), walking child-workflow steps from workflow `wf`; NULL when it
 * names none. *compensation: the label is a compensate block's. */
static const OrbcStep *label_step(const OrbcModule *m, uint32_t wf, const char *label,
                                  bool *compensation)
{
    const char *p = label;
    for (;;) {
        size_t segment = strcspn(p, "/");
        size_t name = strcspn(p, "[./");
        const OrbcWorkflow *w = &m->workflows[wf];
        const OrbcStep *found = NULL;
        for (uint32_t i = 0; i < w->step_count; i++) {
            const OrbcString *s = &m->strings[w->steps[i].name];
            if (s->len == name && memcmp(s->text, p, name) == 0)
                found = &w->steps[i];
        }
        if (!found)
            return NULL;
        if (p[segment] != '/') {
            *compensation = strstr(p, ".compensate") != NULL;
            return found;
        }
        if (found->kind != ORBC_STEP_WORKFLOW || found->target >= m->workflow_count)
            return NULL;
        wf = found->target;
        p += segment + 1;
    }
}

/* ---- the built-in invariants, one function each --------------------------------------- */

static const char NEVER_BLOCKS[] = "an execution never blocks forever unless it awaits a "
                                   "signal that never comes";
static const char COMPENSATIONS_END[] = "every compensation that starts, ends";
static const char NO_ATTEMPT_AFTER_END[] = "no attempt starts after the workflow timed out "
                                           "or failed";
static const char ATTEMPTS_WITHIN_POLICY[] = "no step runs more attempts than its policy";
static const char SINGLE_FLIGHT[] = "an idempotent step never has two attempts in flight";

static bool never_blocks(Arena *arena, const TestHistory *h, InvariantBreak *out)
{
    if (!same(h->status, "blocked"))
        return false;
    for (uint32_t i = h->count; i-- > 0;) {
        const TestEvent *e = &h->events[i];
        if (!is(e, "WorkflowBlocked"))
            continue;
        for (uint32_t k = 0; e->step && k < i; k++)
            if (is(&h->events[k], "SignalWaitStarted") && same(h->events[k].step, e->step))
                return false;
        return broke(arena, out, "never_blocks", NEVER_BLOCKS, i,
                     e->step ? arena_printf(arena, "blocked at step %s, which awaits no "
                                                   "signal", e->step)
                             : "blocked with no step to wait for");
    }
    return broke(arena, out, "never_blocks", NEVER_BLOCKS, h->count, "blocked");
}

static bool compensations_end(Arena *arena, const TestHistory *h, InvariantBreak *out)
{
    for (uint32_t i = 0; i < h->count; i++) {
        if (!is(&h->events[i], "CompensationStarted"))
            continue;
        bool ended = false;
        for (uint32_t k = i + 1; k < h->count && !ended; k++)
            ended = (is(&h->events[k], "CompensationCompleted")
                     || is(&h->events[k], "CompensationFailed"))
                && same(h->events[k].step, h->events[i].step);
        if (!ended)
            return broke(arena, out, "compensations_end", COMPENSATIONS_END, i,
                         arena_printf(arena, "the compensation of step %s started and never "
                                             "ended", h->events[i].step));
    }
    return false;
}

/* A label of the workflow's own steps (not a child's, not a compensation's). */
static bool own_step(const char *label)
{
    return label && !strchr(label, '/') && !strstr(label, ".compensate");
}

static bool no_attempt_after_end(Arena *arena, const TestHistory *h, InvariantBreak *out)
{
    const char *why = NULL;
    for (uint32_t i = 0; i < h->count; i++) {
        const TestEvent *e = &h->events[i];
        if (why && (is(e, "StepScheduled") || is(e, "StepDispatched")) && own_step(e->step))
            return broke(arena, out, "no_attempt_after_end", NO_ATTEMPT_AFTER_END, i,
                         arena_printf(arena, "%s of step %s attempt %lld after %s", e->event,
                                      e->step, (long long)e->attempt, why));
        if (why)
            continue;
        if (is(e, "WorkflowTimeoutReached") && !e->step)
            why = arena_printf(arena, "the workflow timeout (+ %lldms)", (long long)e->time_ms);
        else if (is(e, "StepFailed") && own_step(e->step))
            why = arena_printf(arena, "step %s failed (+ %lldms)", e->step, (long long)e->time_ms);
    }
    return false;
}

static bool attempts_within_policy(Arena *arena, const InvariantRun *run, const TestHistory *h,
                                   InvariantBreak *out)
{
    for (uint32_t i = 0; i < h->count; i++) {
        const TestEvent *e = &h->events[i];
        if (!is(e, "StepScheduled") || !e->step)
            continue;
        bool compensation = false;
        const OrbcStep *s = label_step(run->module, run->workflow, e->step, &compensation);
        if (!s)
            continue;
        uint32_t most = compensation ? s->compensate.policy.attempts : s->policy.attempts;
        if (e->attempt > (int64_t)most)
            return broke(arena, out, "attempts_within_policy", ATTEMPTS_WITHIN_POLICY, i,
                         arena_printf(arena, "step %s: attempt %lld of at most %u", e->step,
                                      (long long)e->attempt, most));
    }
    return false;
}

static bool idempotent_single_flight(Arena *arena, const InvariantRun *run,
                                     const TestHistory *h, InvariantBreak *out)
{
    /* The attempts in flight: dispatched, not yet answered, failed, lost or cancelled. */
    uint32_t *flying = arena_alloc(arena, (h->count + 1) * sizeof *flying);
    uint32_t count = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        const TestEvent *e = &h->events[i];
        if (!e->step)
            continue;
        if (is(e, "StepDispatched")) {
            bool compensation = false;
            const OrbcStep *s = label_step(run->module, run->workflow, e->step, &compensation);
            uint32_t key = !s ? ORBC_NONE : compensation ? s->compensate.key_code : s->key_code;
            if (key == ORBC_NONE)
                continue;
            for (uint32_t k = 0; k < count; k++) {
                const TestEvent *other = &h->events[flying[k]];
                if (same(other->step, e->step) && other->attempt != e->attempt)
                    return broke(arena, out, "idempotent_single_flight", SINGLE_FLIGHT, i,
                                 arena_printf(arena, "step %s: attempt %lld dispatched while "
                                                     "attempt %lld is in flight", e->step,
                                              (long long)e->attempt, (long long)other->attempt));
            }
            flying[count++] = i;
        } else if (is(e, "StepAttemptFailed") || is(e, "StepCompleted")
                   || is(e, "StepCancelled") || is(e, "StepRedelivered")) {
            for (uint32_t k = 0; k < count;) {
                const TestEvent *other = &h->events[flying[k]];
                if (same(other->step, e->step) && (!e->attempt || other->attempt == e->attempt))
                    flying[k] = flying[--count];
                else
                    k++;
            }
        }
    }
    return false;
}

/* ---- the user's invariants ----------------------------------------------------------- */

typedef struct Eval {
    Arena *arena;
    const TestHistory *h;
    StepIndex steps;
    const char *error;     /* why the condition could not be evaluated */
} Eval;

static json_t *text_or_null(const char *text)
{
    return text ? json_string(text) : json_null();
}

/* `execution.FIELD` or `STEP.FIELD` of the final state. */
static json_t *state_field(Eval *ev, const char *name, const char *field)
{
    const TestHistory *h = ev->h;
    if (strcmp(name, "execution") == 0) {
        if (strcmp(field, "status") == 0)
            return json_string(h->status);
        if (strcmp(field, "error") == 0)
            return text_or_null(h->error);
        if (strcmp(field, "output") == 0)
            return h->output ? json_incref(h->output) : json_null();
    } else {
        StepFacts f = testing_step_facts(ev->arena, h, &ev->steps, name);
        if (strcmp(field, "status") == 0)
            return json_string(f.status);
        if (strcmp(field, "attempts") == 0)
            return json_integer(f.attempts);
        if (strcmp(field, "error") == 0)
            return text_or_null(f.error);
        if (strcmp(field, "compensated") == 0)
            return json_boolean(f.compensated);
        if (strcmp(field, "compensation") == 0)
            return text_or_null(f.compensation);
    }
    ev->error = arena_printf(ev->arena, "no field `%s` of `%s`", field, name);
    return NULL;
}

static bool to_orbc(const json_t *v, OrbcValue *out)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER: *out = (OrbcValue){ .kind = ORBC_KIND_INT, .integer = json_integer_value(v) }; return true;
    case JSON_REAL: *out = (OrbcValue){ .kind = ORBC_KIND_NUMBER, .number = json_real_value(v) }; return true;
    case JSON_TRUE: *out = (OrbcValue){ .kind = ORBC_KIND_BOOL, .boolean = true }; return true;
    case JSON_FALSE: *out = (OrbcValue){ .kind = ORBC_KIND_BOOL, .boolean = false }; return true;
    case JSON_NULL: *out = (OrbcValue){ .kind = ORBC_KIND_NULL }; return true;
    case JSON_STRING:
        *out = (OrbcValue){ .kind = ORBC_KIND_STRING };
        out->string.text = json_string_value(v);
        out->string.len = json_string_length(v);
        return true;
    default: return false;
    }
}

static json_t *from_orbc(OrbcValue v)
{
    switch (v.kind) {
    case ORBC_KIND_INT:
    case ORBC_KIND_DURATION: return json_integer(v.integer);
    case ORBC_KIND_NUMBER: return json_real(v.number);
    case ORBC_KIND_BOOL: return json_boolean(v.boolean);
    case ORBC_KIND_STRING: return json_stringn(v.string.text, v.string.len);
    default: return json_null();
    }
}

static void *eval_alloc(void *context, size_t size)
{
    return arena_alloc(context, size);
}

static json_t *eval(Eval *ev, const Expr *e);

static json_t *eval_bool(Eval *ev, const Expr *e, bool *b)
{
    json_t *v = eval(ev, e);
    if (v && !json_is_boolean(v)) {
        ev->error = arena_printf(ev->arena, "`%s` needs a bool", ast_op_text(OP_AND));
        json_decref(v);
        return NULL;
    }
    if (v)
        *b = json_is_true(v);
    return v;
}

static json_t *eval_binary(Eval *ev, const Expr *e)
{
    if (e->op == OP_AND || e->op == OP_OR) {
        bool left = false, right = false;
        json_t *l = eval_bool(ev, e->left, &left);
        if (!l)
            return NULL;
        json_decref(l);
        if (left == (e->op == OP_OR))
            return json_boolean(left);
        json_t *r = eval_bool(ev, e->right, &right);
        json_decref(r);
        return r ? json_boolean(right) : NULL;
    }
    json_t *l = eval(ev, e->left);
    if (!l)
        return NULL;
    if (e->op == OP_COALESCE) {
        if (!json_is_null(l))
            return l;
        json_decref(l);
        return eval(ev, e->right);
    }
    json_t *r = eval(ev, e->right);
    if (!r) {
        json_decref(l);
        return NULL;
    }
    json_t *result = NULL;
    OrbcValue a, b, c;
    if (e->op == OP_EQ || e->op == OP_NE) {
        result = json_boolean(testing_values_equal(l, r) == (e->op == OP_EQ));
    } else if (to_orbc(l, &a) && to_orbc(r, &b)) {
        OrbcEval oe = { eval_alloc, ev->arena, "" };
        if (orbc_eval_binary(&oe, ast_op_instruction(e->op), a, b, &c) == ORBC_EVAL_OK)
            result = from_orbc(c);
        else
            ev->error = arena_strndup(ev->arena, oe.message, strlen(oe.message));
    } else {
        ev->error = arena_printf(ev->arena, "cannot apply `%s` to a list or record",
                                 ast_op_text(e->op));
    }
    json_decref(l);
    json_decref(r);
    return result;
}

static json_t *eval(Eval *ev, const Expr *e)
{
    switch (e->kind) {
    case EXPR_FIELD: {
        if (e->left->kind == EXPR_NAME)
            return state_field(ev, e->left->name->text, e->field->text);
        json_t *v = eval(ev, e->left);
        if (!v)
            return NULL;
        json_t *field = json_is_object(v) ? json_object_get(v, e->field->text) : NULL;
        if (!json_is_object(v))
            ev->error = arena_printf(ev->arena, "`.%s` of a value that is not a record",
                                     e->field->text);
        json_t *result = json_is_object(v) ? (field ? json_incref(field) : json_null()) : NULL;
        json_decref(v);
        return result;
    }
    case EXPR_UNARY: {
        json_t *v = eval(ev, e->left);
        OrbcValue a, c;
        if (!v)
            return NULL;
        OrbcEval oe = { eval_alloc, ev->arena, "" };
        json_t *result = NULL;
        if (to_orbc(v, &a)
            && orbc_eval_unary(&oe, ast_op_instruction(e->op), a, &c) == ORBC_EVAL_OK)
            result = from_orbc(c);
        else
            ev->error = oe.message[0] ? arena_strndup(ev->arena, oe.message, strlen(oe.message))
                                      : "cannot apply an operator to a list or record";
        json_decref(v);
        return result;
    }
    case EXPR_BINARY:
        return eval_binary(ev, e);
    default: {
        TestingProblem problem;
        json_t *v = testing_value_json(e, &problem);
        if (!v)
            ev->error = "a part an invariant cannot evaluate";
        return v;
    }
    }
}

/* The condition of an `invariant` (its `holds`), or NULL. */
static const Expr *holds_of(const Member *m)
{
    const Block *b = testing_member_block(m);
    for (uint32_t i = 0; b && i < b->count; i++)
        if (b->members[i].kind == MEMBER_ATTR
            && strcmp(testing_member_word(&b->members[i]), "holds") == 0)
            return member_value(&b->members[i]);
    return NULL;
}

static bool user_invariants(Arena *arena, const InvariantRun *run, const TestHistory *h,
                            InvariantBreak *out)
{
    const Block *b = run->test ? member_body(run->test) : NULL;
    Eval ev = { .arena = arena, .h = h };
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        const Expr *holds = strcmp(testing_member_word(m), "invariant") == 0 && m->name
            ? holds_of(m) : NULL;
        if (!holds)
            continue;
        ev.error = NULL;
        json_t *v = eval(&ev, holds);
        bool ok = v && json_is_true(v);
        const char *detail = ev.error ? arena_printf(arena, "cannot be evaluated: %s", ev.error)
                           : v && !json_is_boolean(v) ? "its condition is not a bool"
                           : "its condition is false";
        json_decref(v);
        if (!ok) {
            *out = (InvariantBreak){ m->name->text, m->name->text, detail, m, h->count };
            return true;
        }
    }
    return false;
}

bool testing_invariants_check(Arena *arena, const InvariantRun *run, const TestHistory *h,
                              InvariantBreak *out)
{
    /* A run stopped at max_events has no end: what must hold at the end is not judged. */
    bool ended = !same(h->status, "stopped");
    if (run->builtins) {
        if (ended && !run->allow_block
            && (never_blocks(arena, h, out) || compensations_end(arena, h, out)))
            return true;
        if (no_attempt_after_end(arena, h, out) || attempts_within_policy(arena, run, h, out)
            || idempotent_single_flight(arena, run, h, out))
            return true;
    }
    return ended && user_invariants(arena, run, h, out);
}

bool testing_expects_blocked(const Member *test)
{
    const Block *b = member_body(test);
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Block *expect = strcmp(testing_member_word(&b->members[i]), "expect") == 0
            ? testing_member_block(&b->members[i]) : NULL;
        for (uint32_t k = 0; expect && k < expect->count; k++) {
            const Member *m = &expect->members[k];
            const Expr *v = member_value(m);
            if (m->kind == MEMBER_ATTR && strcmp(testing_member_word(m), "status") == 0 && v
                && v->kind == EXPR_NAME && strcmp(v->name->text, "blocked") == 0)
                return true;
        }
    }
    return false;
}
