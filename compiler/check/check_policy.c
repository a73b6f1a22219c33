/* Retry blocks, timeouts and queue timeouts (E0410): every row of the tables of
 * diagnostics/explain/E0410.md, with its message byte for byte, the defaults, and every
 * problem in a block reported, not only the first. Fills in the effective policy. */
#include "check_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int setting_index(const char *word)
{
    for (int i = 0; i < RETRY_SETTING_COUNT; i++)
        if (strcmp(RETRY_SETTING_NAMES[i], word) == 0)
            return i;
    return -1;
}

/* setting_index of a name: names are interned, so they compare by pointer. */
static int setting_of(const Checker *ck, const Name *name)
{
    for (int i = 0; i < RETRY_SETTING_COUNT; i++)
        if (ck->n_settings[i] == name)
            return i;
    return -1;
}

/* ---- Values ------------------------------------------------------------------------ */

/* An integer literal, also negative (`-1`), so that it gets the range message. */
static bool integer_literal(const Expr *e, int64_t *value)
{
    if (e->kind == EXPR_INT) {
        *value = e->integer;
        return true;
    }
    if (e->kind == EXPR_UNARY && e->op == OP_NEG && e->left && e->left->kind == EXPR_INT) {
        *value = -e->left->integer;
        return true;
    }
    return false;
}

/* `attempts: "5"`, `attempts: 3.0`: the whole number meant, without quotes or point. */
static void whole_number_fix(Checker *ck, Diagnostic *d, const Expr *v)
{
    long long n = 0;
    if (v->kind == EXPR_STRING) {
        char *end;
        errno = 0;
        n = strtoll(v->text, &end, 10);
        if (errno || end == v->text || *end || (size_t)(end - v->text) != v->len ||
            v->text[0] == '+' || v->text[0] == ' ')
            return;
    } else if (v->kind == EXPR_NUMBER) {
        if (v->number != v->number || v->number < -1e18 || v->number > 1e18 ||
            v->number != (double)(long long)v->number)
            return;
        n = (long long)v->number;
    } else {
        return;
    }
    if (n < 1 || n > MAX_ATTEMPTS)
        return;
    const char *text = arena_printf(ck->arena, "%lld", n);
    diag_add_fix(ck->diags, d, v->span, text, FIX_MACHINE_APPLICABLE,
                 v->kind == EXPR_STRING ? "write the number without quotes: `%s`"
                                        : "write it as a whole number: `%s`", text);
}

static void check_attempts(Checker *ck, Expr *v, RetryPolicy *policy)
{
    int64_t n;
    if (!integer_literal(v, &n)) {
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`attempts` must be an integer literal");
        diag_set_label(ck->diags, d, "not an integer literal");
        whole_number_fix(ck, d, v);
        if (v->kind != EXPR_INT && v->kind != EXPR_NUMBER && v->kind != EXPR_STRING)
            diag_add_note(ck->diags, d, "every retry setting must be a literal: it is fixed "
                                        "when the workflow is compiled");
        return;
    }
    if (n < 1 || n > MAX_ATTEMPTS) {
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`attempts` must be between 1 and 1000");
        diag_set_label(ck->diags, d, "out of range");
        if (n == 0)
            diag_add_help(ck->diags, d, "`attempts` counts the first attempt too: "
                                        "`attempts: 1` means no retries");
        return;
    }
    policy->attempts = (uint32_t)n;
}

static void check_backoff(Checker *ck, Expr *v, RetryPolicy *policy)
{
    const char *word = NULL;
    if (v->kind == EXPR_NAME) {
        if (v->name == ck->n_fixed) {
            policy->backoff = BACKOFF_FIXED;
            return;
        }
        if (v->name == ck->n_exponential) {
            policy->backoff = BACKOFF_EXPONENTIAL;
            return;
        }
        word = v->name->text;
    } else if (v->kind == EXPR_STRING) {
        word = v->text;
    }
    if (!word) {
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`backoff` must be `fixed` or `exponential`");
        diag_set_label(ck->diags, d, "not a backoff strategy");
        return;
    }
    Diagnostic *d = v->kind == EXPR_STRING
        ? diag_report(ck->diags, E0410, v->span, "unknown backoff strategy `\"%s\"`", word)
        : diag_report(ck->diags, E0410, v->span, "unknown backoff strategy `%s`", word);
    diag_set_label(ck->diags, d, "unknown strategy");
    const char *s = check_suggest(ck, word, BACKOFF_NAMES, 2);
    if (s && v->kind == EXPR_STRING && strcmp(s, word) == 0)
        diag_add_fix(ck->diags, d, v->span, s, FIX_MACHINE_APPLICABLE,
                     "write the strategy without quotes: `%s`", s);
    else if (s)
        check_add_suggestion(ck, d, v->span, s);
    else
        diag_add_help(ck->diags, d, "Orbit has `fixed` and `exponential` backoff");
}

static bool check_delay(Checker *ck, Expr *v, const char *setting, int64_t *out)
{
    if (v->kind == EXPR_DURATION) {
        *out = v->integer;
        return true;
    }
    Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                "`%s` must be a duration literal such as `5s`", setting);
    diag_set_label(ck->diags, d, "not a duration literal");
    if (v->kind == EXPR_INT && v->integer >= 0)
        diag_add_fix(ck->diags, d, v->span, arena_printf(ck->arena, "%lldms",
                                                         (long long)v->integer),
                     FIX_MAYBE_INCORRECT, "durations need a unit: `%lldms` or `%llds`?",
                     (long long)v->integer, (long long)v->integer);
    return false;
}

static void error_code_not_string(Checker *ck, Expr *x)
{
    Diagnostic *d = diag_report(ck->diags, E0410, x->span, "error codes must be string literals");
    diag_set_label(ck->diags, d, "not a string literal");
    if (x->kind == EXPR_NAME)
        diag_add_fix(ck->diags, d, x->span, arena_printf(ck->arena, "\"%s\"", x->name->text),
                     FIX_MACHINE_APPLICABLE, "put the code in quotes: `\"%s\"`", x->name->text);
}

static void check_non_retryable(Checker *ck, Expr *v, RetryPolicy *policy)
{
    if (v->kind != EXPR_LIST) {
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`non_retryable` must be a list of string literals");
        diag_set_label(ck->diags, d, "not a list");
        if (v->kind == EXPR_STRING)
            diag_add_fix(ck->diags, d, v->span,
                         arena_printf(ck->arena, "[\"%s\"]", v->text),
                         FIX_MACHINE_APPLICABLE, "put the code in a list: `[\"%s\"]`",
                         v->text);
        return;
    }
    policy->non_retryable = arena_alloc(ck->arena, (v->count + 1) * sizeof(String));
    for (uint32_t k = 0; k < v->count; k++) {
        Expr *x = v->elems[k];
        if (x->kind == EXPR_STRING)
            policy->non_retryable[policy->non_retryable_count++] = expr_string(x);
        else if (x->kind != EXPR_ERROR)
            error_code_not_string(ck, x);
    }
}

/* ---- The retry block ---------------------------------------------------------------- */

/* The settings that the members of a retry block name, as bits (1 << index). */
static uint32_t settings_given(Checker *ck, const Block *body)
{
    _Static_assert(RETRY_SETTING_COUNT <= 32, "a setting is a bit of a uint32_t");
    uint32_t given = 0;
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        bool named = m->kind == MEMBER_ATTR || (m->kind != MEMBER_ERROR && m->keyword == KW_NONE);
        int i = named ? setting_of(ck, check_member_name(ck, m)) : -1;
        if (i >= 0)
            given |= 1u << i;
    }
    return given;
}

/* A suggestion that the block already sets (`atempts: 4` beside `attempts: 3`) is not
 * certain: applied, it would set it twice. `block`: the retry block of `m`. */
static COLD void unknown_setting(Checker *ck, Member *m, const char *word, const Block *block)
{
    Diagnostic *d = diag_report(ck->diags, E0410, member_key_span(m), "unknown retry setting `%s`",
                                word);
    diag_set_label(ck->diags, d, "unknown setting");
    const char *s = check_suggest(ck, word, RETRY_SETTING_NAMES, RETRY_SETTING_COUNT);
    size_t len = strlen(word);
    bool in_ms = s && len > 2 && strcmp(word + len - 2, "Ms") == 0 && member_value(m) &&
                 member_value(m)->kind == EXPR_INT && member_value(m)->integer >= 0;
    bool set_already = s && (settings_given(ck, block) & (1u << setting_index(s)));
    Applicability certainty = set_already ? FIX_MAYBE_INCORRECT : FIX_MACHINE_APPLICABLE;
    const char *why = set_already ? " (this block has one already)" : "";
    if (in_ms)      /* initialDelayMs: 500 -> initial_delay: 500ms */
        diag_add_fix(ck->diags, d, span_join(member_key_span(m), member_value(m)->span),
                     arena_printf(ck->arena, "%s: %lldms", s, (long long)member_value(m)->integer),
                     certainty, "did you mean `%s: %lldms`?%s", s,
                     (long long)member_value(m)->integer, why);
    else if (set_already)
        diag_add_fix(ck->diags, d, member_key_span(m), s, certainty, "did you mean `%s`?%s", s, why);
    else if (s)
        check_add_suggestion(ck, d, member_key_span(m), s);
    else if (strcmp(word, "timeout") == 0 || strcmp(word, "queue_timeout") == 0 ||
             strcmp(word, "timeoutMs") == 0)
        diag_add_help(ck->diags, d, "`%s` is a step setting: write it next to `retry`, not "
                                    "inside it", strcmp(word, "queue_timeout") == 0
                                    ? "queue_timeout" : "timeout");
    else
        diag_add_note(ck->diags, d, "the retry settings are `attempts`, `backoff`, "
                                    "`initial_delay`, `max_delay` and `non_retryable`");
}

/* Which setting a member of the retry block sets, or -1 after reporting it. */
static int member_setting(Checker *ck, Member *m, const Block *block)
{
    if (m->kind == MEMBER_ATTR) {
        const Name *name = check_member_name(ck, m);
        int i = setting_of(ck, name);
        if (i < 0)
            unknown_setting(ck, m, name->text, block);
        return i;
    }
    /* A clause is named by its keyword (`step notify { … }` is the setting `step`). */
    const char *word = m->keyword != KW_NONE ? keyword_text(m->keyword)
                                             : check_member_name(ck, m)->text;
    int i = m->keyword == KW_NONE ? setting_of(ck, check_member_name(ck, m)) : -1;
    if (i < 0) {
        unknown_setting(ck, m, word, block);
        return -1;
    }
    Span key = member_key_span(m);
    Diagnostic *d = diag_report(ck->diags, E0410, key,
                                "expected `:` after retry setting `%s`", word);
    diag_set_label(ck->diags, d, "missing `:`");
    diag_add_fix(ck->diags, d, span_make(key.end, key.end),
                 ":", FIX_MACHINE_APPLICABLE, "write `%s: …`", word);
    return i;
}

static void check_setting(Checker *ck, int i, Expr *v, RetryPolicy *policy, bool *delay_ok)
{
    if (v->kind == EXPR_ERROR)
        return;
    switch (i) {
    case SET_ATTEMPTS: check_attempts(ck, v, policy); break;
    case SET_BACKOFF: check_backoff(ck, v, policy); break;
    case SET_INITIAL_DELAY:
        delay_ok[0] = check_delay(ck, v, "initial_delay", &policy->initial_delay_ms);
        break;
    case SET_MAX_DELAY:
        delay_ok[1] = check_delay(ck, v, "max_delay", &policy->max_delay_ms);
        break;
    case SET_NON_RETRYABLE: check_non_retryable(ck, v, policy); break;
    }
}

static void check_max_delay(Checker *ck, RetryPolicy *policy, const RetrySyntax *syntax,
                            const bool *delay_ok)
{
    Member *max = syntax->setting[SET_MAX_DELAY];
    Member *initial = syntax->setting[SET_INITIAL_DELAY];
    if (!max) {
        if (policy->initial_delay_ms > DEFAULT_MAX_DELAY_MS)
            policy->max_delay_ms = policy->initial_delay_ms;
        return;
    }
    if (!member_value(max) || !delay_ok[1] || (initial && (!member_value(initial) || !delay_ok[0])))
        return;
    if (policy->max_delay_ms >= policy->initial_delay_ms)
        return;
    Diagnostic *d = diag_report(ck->diags, E0410, member_value(max)->span,
                                "`max_delay` must be at least `initial_delay`");
    diag_set_label(ck->diags, d, "`max_delay` is %s",
                   check_duration_text(ck, policy->max_delay_ms));
    if (initial)
        diag_add_label(ck->diags, d, member_value(initial)->span, "`initial_delay` is %s",
                       check_duration_text(ck, policy->initial_delay_ms));
    else
        diag_add_note(ck->diags, d, "`initial_delay` is not set, so it is 1s (the default)");
    policy->max_delay_ms = policy->initial_delay_ms;
}

void check_retry(Checker *ck, Clause *clause, RetryPolicy *policy, RetrySyntax *syntax)
{
    policy_default_retry(policy);
    memset(syntax, 0, sizeof *syntax);
    policy->given = true;
    policy->span = clause->member->span;
    if (!clause->body) {
        Span at = clause->value ? clause->value->span : clause->member->span;
        if (clause->value && clause->value->kind == EXPR_ERROR)
            return;
        Diagnostic *d = diag_report(ck->diags, E0410, at,
                                    "`retry` takes a block of settings");
        diag_set_label(ck->diags, d, "expected `{`");
        diag_add_help(ck->diags, d, "write the settings in braces, such as "
                                    "`retry { attempts: 3 }`");
        return;
    }
    bool delay_ok[2] = { true, true };
    for (Member *m = block_first(clause->body), *end = block_end(clause->body); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        int i = member_setting(ck, m, clause->body);
        if (i < 0)
            continue;
        if (syntax->setting[i]) {
            Diagnostic *d = diag_report(ck->diags, E0410, member_key_span(m),
                                        "duplicate retry setting `%s`", RETRY_SETTING_NAMES[i]);
            diag_set_label(ck->diags, d, "set again here");
            diag_add_label(ck->diags, d, member_key_span(syntax->setting[i]), "first set here");
            continue;
        }
        syntax->setting[i] = m;
        if (member_value(m))
            check_setting(ck, i, member_value(m), policy, delay_ok);
    }
    check_max_delay(ck, policy, syntax, delay_ok);
}

/* ---- timeout, queue_timeout --------------------------------------------------------- */

int64_t check_duration_setting(Checker *ck, Clause *clause, const char *what)
{
    Expr *v = clause->value;
    if (v && v->kind == EXPR_ERROR)
        return 0;
    if (v && v->kind == EXPR_DURATION) {
        if (v->integer > 0)
            return v->integer;
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`%s` must be greater than zero", what);
        diag_set_label(ck->diags, d, "zero");
        diag_add_help(ck->diags, d, "for no limit, leave `%s` out", what);
        return 0;
    }
    if (v && v->kind == EXPR_UNARY && v->op == OP_NEG && v->left &&
        v->left->kind == EXPR_DURATION) {
        /* `timeout -5s`: the duration is there, its sign is the problem. */
        Diagnostic *d = diag_report(ck->diags, E0410, v->span,
                                    "`%s` must be greater than zero", what);
        diag_set_label(ck->diags, d, "negative");
        if (v->left->integer > 0) {
            const char *positive = check_duration_text(ck, v->left->integer);
            diag_add_fix(ck->diags, d, v->span, positive, FIX_MAYBE_INCORRECT,
                         "did you mean `%s`?", positive);
        }
        return 0;
    }
    Span at = v ? v->span : clause->member->span;
    Diagnostic *d = diag_report(ck->diags, E0410, at,
                                "`%s` must be a duration literal such as `5s`", what);
    diag_set_label(ck->diags, d, "not a duration literal");
    if (v && v->kind == EXPR_INT && v->integer > 0)
        diag_add_fix(ck->diags, d, v->span, arena_printf(ck->arena, "%llds",
                                                         (long long)v->integer),
                     FIX_MAYBE_INCORRECT, "durations need a unit: `%llds` or `%lldms`?",
                     (long long)v->integer, (long long)v->integer);
    return 0;
}

void check_report_repeated(Checker *ck, Member *first, Member *again, const char *what)
{
    Diagnostic *d = diag_report(ck->diags, E0410, member_key_span(again),
                                strcmp(what, "retry") == 0 ? "duplicate `%s` block"
                                                           : "duplicate `%s` setting",
                                what);
    diag_set_label(ck->diags, d, "given again here");
    diag_add_label(ck->diags, d, member_key_span(first), "first given here");
}
