/* Warnings about retry policies that do not do what they seem to: settings without
 * effect, error codes that can never match or never matter, retries that cannot fit in
 * the workflow timeout, and retried tasks without an idempotency key (off by default). */
#include "check_internal.h"

#include <string.h>

static bool same_ignoring_case(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    if (alen != blen)
        return false;
    for (uint32_t i = 0; i < alen; i++) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 'a' + 'A');
        if (y >= 'a' && y <= 'z')
            y = (char)(y - 'a' + 'A');
        if (x != y)
            return false;
    }
    return true;
}

/* W0003, W0005: a code (`code`, the interned text of `x`) against the runtime's codes. */
static void lint_runtime_code(Checker *ck, Expr *x, const Name *code)
{
    uint32_t i;
    if (check_lookup(&ck->error_codes, code, &i)) {
        const ErrorCode *ec = &ck->program->error_codes[i];
        if (ec->retryable != RETRYABLE_NO)
            return;
        Diagnostic *d = diag_report(ck->diags, W0005, x->span,
                                    "`%s` is never retried anyway", code->text);
        diag_set_label(ck->diags, d, "listing it has no effect");
        diag_add_note(ck->diags, d, "the runtime classifies `%s` as not retryable",
                      code->text);
        return;
    }
    if (!(ck->code_lengths >> (x->len < 63 ? x->len : 63) & 1))
        return;   /* no runtime code has its length */
    for (i = 0; i < ck->program->error_code_count; i++) {
        const Name *name = ck->program->error_codes[i].name;
        const char *runtime = name->text;
        if (!same_ignoring_case(x->text, x->len, runtime, name->len))
            continue;
        Diagnostic *d = diag_report(ck->diags, W0003, x->span,
                                    "`%s` differs from the runtime error code `%s` only in case",
                                    code->text, runtime);
        diag_set_label(ck->diags, d, "never matches");
        diag_add_note(ck->diags, d, "error codes are compared exactly, including case");
        diag_add_fix(ck->diags, d, x->span, arena_printf(ck->arena, "\"%s\"", runtime),
                     FIX_MACHINE_APPLICABLE, "did you mean `\"%s\"`?", runtime);
        return;
    }
}

enum {
    /* A list of error codes up to this long is searched directly, with no map: nearly
     * every step's `non_retryable` is short, and a map per step costs memory. */
    SMALL_CODE_LIST = 16,
};

/* Where `code` is among the first `n` codes of the list: through the map when the list
 * is long (`seen` has slots), else by looking at each. */
static bool find_code(const NameMap *seen, const Name *const *codes, uint32_t n,
                      const Name *code, uint32_t *at)
{
    if (seen->slots)
        return check_lookup(seen, code, at);
    for (uint32_t i = 0; i < n; i++)
        if (codes[i] == code) {
            *at = i;
            return true;
        }
    return false;
}

static void lint_codes(Checker *ck, Expr *list)
{
    uint32_t total = list->count;
    NameMap seen = { 0 };
    const Name *small_codes[SMALL_CODE_LIST];
    Expr *small_firsts[SMALL_CODE_LIST];
    const Name **codes = small_codes;
    Expr **firsts = small_firsts;
    if (total > SMALL_CODE_LIST) {
        namemap_init(&seen, ck->arena, total);
        firsts = arena_alloc(ck->arena, total * sizeof *firsts);
        codes = NULL;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < list->count; k++) {
        Expr *x = list->elems[k];
        if (x->kind != EXPR_STRING)
            continue;
        if (total == 1 && !(ck->code_lengths >> (x->len < 63 ? x->len : 63) & 1))
            continue;   /* alone, and no runtime code has its length: nothing to find */
        const Name *code = intern(ck->names, x->text, x->len);
        uint32_t first;
        if (find_code(&seen, codes, n, code, &first)) {
            Diagnostic *d = diag_report(ck->diags, W0004, x->span,
                                        "error code `%s` is listed twice", code->text);
            diag_set_label(ck->diags, d, "listed again here");
            diag_add_label(ck->diags, d, firsts[first]->span, "first listed here");
            continue;
        }
        if (seen.slots)
            names_put(&seen, ck->arena, code, n);
        else
            codes[n] = code;
        firsts[n++] = x;
        lint_runtime_code(ck, x, code);
    }
}

/* `attempts` left out, or written as the literal 1 (not an invalid value). */
static bool attempts_is_one(const Member *attempts)
{
    if (!attempts)
        return true;
    return member_value(attempts) && member_value(attempts)->kind == EXPR_INT &&
           member_value(attempts)->integer == 1;
}

void lint_retry(Checker *ck, const RetryPolicy *policy, const RetrySyntax *syntax)
{
    Member *codes = syntax->setting[SET_NON_RETRYABLE];
    if (codes && member_value(codes) && member_value(codes)->kind == EXPR_LIST) {
        if (policy->attempts == 1 && member_value(codes)->count > 0 &&
            attempts_is_one(syntax->setting[SET_ATTEMPTS])) {
            Diagnostic *d = diag_report(ck->diags, W0001, member_key_span(codes),
                                        "`non_retryable` has no effect with `attempts: 1`");
            diag_set_label(ck->diags, d, "no effect");
            diag_add_note(ck->diags, d, "with one attempt the step is never retried%s",
                          syntax->setting[SET_ATTEMPTS] ? "" : " (`attempts` defaults to 1)");
        }
        lint_codes(ck, member_value(codes));
    }
    Member *max = syntax->setting[SET_MAX_DELAY];
    if (max && member_value(max) && member_value(max)->kind == EXPR_DURATION &&
        policy->backoff == BACKOFF_FIXED &&
        (!syntax->setting[SET_BACKOFF] ||
         (member_value(syntax->setting[SET_BACKOFF]) &&
          member_value(syntax->setting[SET_BACKOFF])->kind == EXPR_NAME))) {
        Diagnostic *d = diag_report(ck->diags, W0002, member_key_span(max),
                                    "`max_delay` has no effect with `fixed` backoff");
        diag_set_label(ck->diags, d, "no effect");
        diag_add_note(ck->diags, d, "with `fixed` backoff every delay is `initial_delay`%s",
                      syntax->setting[SET_BACKOFF] ? "" : " (`backoff` defaults to `fixed`)");
        diag_add_help(ck->diags, d, "use `backoff: exponential`, or remove `max_delay`");
    }
}

void lint_idempotency(Checker *ck, const RetryPolicy *policy, bool has_key, Span where,
                      bool is_compensate)
{
    if (policy->attempts <= 1 || has_key || !diag_enabled(ck->diags, W0007))
        return;
    Diagnostic *d = diag_report(ck->diags, W0007, where, "%s is retried without an "
                                "`idempotency_key`",
                                is_compensate ? "this compensate task" : "this task");
    diag_set_label(ck->diags, d, "up to %u attempts", policy->attempts);
    diag_add_note(ck->diags, d, "an attempt that timed out may still have taken effect; "
                                "a retry then runs the task again");
    diag_add_help(ck->diags, d, "add an `idempotency_key` that the worker uses to "
                                "recognise repeated requests");
}

/* ---- Retry budget ----------------------------------------------------------------- */

/* "1s + 2s + 4s + …": the first five delays, for the message (built only when the lint
 * fires). */
static const char *delay_list(Checker *ck, const RetryPolicy *policy)
{
    const char *list = "";
    for (uint32_t n = 2; n <= policy->attempts && n <= 7; n++) {
        int64_t d = policy_retry_delay(policy, n);
        if (n <= 6)
            list = arena_printf(ck->arena, "%s%s%s", list, n == 2 ? "" : " + ",
                                check_duration_text(ck, d));
        else
            list = arena_printf(ck->arena, "%s + …", list);
    }
    return list;
}

/* Whether the retries surely fit in `limit`: every delay is at most `max_delay`
 * (exponential) or `initial_delay` (fixed), so the worst case is at most attempts ×
 * (timeout + that delay). False when that bound does not fit (or overflows): then
 * policy_retry_budget decides. */
static bool surely_fits(const RetryPolicy *policy, int64_t timeout_ms, int64_t limit)
{
    int64_t delay = policy->backoff == BACKOFF_EXPONENTIAL ? policy->max_delay_ms
                                                           : policy->initial_delay_ms;
    int64_t per_attempt, bound;
    return delay >= 0 && timeout_ms >= 0 &&
           !__builtin_add_overflow(timeout_ms, delay, &per_attempt) &&
           !__builtin_mul_overflow(per_attempt, (int64_t)policy->attempts, &bound) &&
           bound <= limit;
}

bool lint_retry_budget(Checker *ck, const Workflow *wf, const Step *step,
                       const RetryPolicy *policy, int64_t timeout_ms, Span where)
{
    if (wf->timeout_ms <= 0 || policy->attempts <= 1 ||
        surely_fits(policy, timeout_ms, wf->timeout_ms) || !diag_enabled(ck->diags, W0006))
        return false;
    RetryBudget budget = policy_retry_budget(policy, timeout_ms, wf->timeout_ms);
    int64_t total = budget.total_ms, delays = budget.delays_ms;
    uint32_t first_late = budget.first_late;   /* the first attempt that would start too late */
    if (total <= wf->timeout_ms)
        return false;
    const char *list = delay_list(ck, policy);
    Diagnostic *d = diag_report(ck->diags, W0006, where,
                                "the retries of step `%s` do not fit in the workflow timeout",
                                step->name->text);
    diag_set_label(ck->diags, d, "worst case %s, workflow timeout %s",
                   check_duration_text(ck, total),
                   check_duration_text(ck, wf->timeout_ms));
    if (timeout_ms)
        diag_add_note(ck->diags, d, "worst case: %u attempts × %s timeout + %s of backoff "
                      "delays (%s) = %s", policy->attempts,
                      check_duration_text(ck, timeout_ms), check_duration_text(ck, delays),
                      list, check_duration_text(ck, total));
    else
        diag_add_note(ck->diags, d, "the backoff delays alone add up to %s (%s)",
                      check_duration_text(ck, delays), list);
    if (first_late)
        diag_add_note(ck->diags, d, "attempt %u and later can never run: the workflow "
                      "timeout of %s has passed by then", first_late,
                      check_duration_text(ck, wf->timeout_ms));
    diag_add_help(ck->diags, d, "lower `attempts` or the delays, or raise the workflow "
                                "`timeout`");
    return true;
}
