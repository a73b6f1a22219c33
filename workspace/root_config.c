/* The configuration of a program: its orbit.program, parsed by the front end like any
 * Orbit source, then read here (programs.h shows the form). Each mistake is an E0701 at
 * its place in the file, with a did-you-mean where one is close; the settings that are
 * right still apply. */
#include "roots.h"

#include <string.h>

#include "suggest.h"

static const char *const levels[] = { "allow", "warn", "deny" };
static const LintLevel level_values[] = { LINT_ALLOW, LINT_WARN, LINT_DENY };
enum { LEVEL_COUNT = 3 };

static const char *const program_settings[] = { "lints" };

static Diagnostic *report(Compiler *c, Span span, const char *label, const char *fmt, const char *arg)
{
    Diagnostic *d = diag_report(&c->diags, E0701, span, fmt, arg);
    diag_set_label(&c->diags, d, "%s", label);
    return d;
}

/* A member that may be given once, given again (`again`; `first` is the first one). */
static void report_twice(Compiler *c, const Member *again, const Member *first)
{
    Diagnostic *d = report(c, member_key_span(again), "given again here", "`%s` is given twice",
                           first->key->text);
    diag_add_label(&c->diags, d, member_key_span(first), "first given here");
}

/* A did-you-mean fix for `word` among `candidates`, when one is close. */
static void suggest(Compiler *c, Diagnostic *d, Span span, const char *word, size_t len,
                    const char *const *candidates, size_t count)
{
    const char *guess = suggest_name(word, len, candidates, count);
    if (guess)
        diag_add_fix(&c->diags, d, span, guess, FIX_MACHINE_APPLICABLE, "did you mean `%s`?", guess);
}

/* The word a member starts with: its unknown keyword, or its name. */
static const Name *member_word(const Member *m)
{
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE)
        return m->key;
    if (m->kind == MEMBER_ATTR)
        return m->name;
    return NULL;
}

static bool is_clause(const Member *m, const char *word)
{
    return m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE && m->key
        && strcmp(m->key->text, word) == 0;
}

/* `W0007: warn` in `lints { … }`. */
static void read_lint(Compiler *c, Root *root, const Member *m)
{
    if (m->kind == MEMBER_ERROR)
        return;
    if (m->kind != MEMBER_ATTR || !m->name) {
        Diagnostic *d = report(c, member_key_span(m), "expected `CODE: LEVEL`",
                               "a lint level is written `%s`", "W0007: warn");
        diag_add_help(&c->diags, d, "the levels are `allow`, `warn` and `deny`");
        return;
    }
    Span name_span = member_name_span(m);
    int code = diag_code_from_text(m->name->text, m->name->len);
    if (code >= 0 && diag_info((DiagCode)code)->severity == SEV_ERROR) {
        Diagnostic *d = report(c, name_span, "an error", "`%s` is an error, and errors are "
                               "always errors", diag_info((DiagCode)code)->code);
        diag_add_note(&c->diags, d, "lint levels apply to warnings (`W` codes)");
        return;
    }
    if (code < 0) {
        const char *warning_codes[DIAG_CODE_COUNT];
        size_t warning_count = diag_warning_codes(warning_codes);
        Diagnostic *d = report(c, name_span, "no such warning", "unknown warning code `%s`",
                               m->name->text);
        suggest(c, d, name_span, m->name->text, m->name->len, warning_codes, warning_count);
        return;
    }
    const Expr *value = member_value(m);
    int level = -1;
    for (int i = 0; value && value->kind == EXPR_NAME && i < LEVEL_COUNT; i++)
        if (strcmp(value->name->text, levels[i]) == 0)
            level = i;
    if (level < 0) {
        if (value && value->kind == EXPR_ERROR)
            return;
        Span span = value ? value->span : member_colon_span(m);
        Diagnostic *d = report(c, span, "not a lint level",
                               "a lint level is `allow`, `warn` or `deny`, not %s",
                               value && value->kind == EXPR_NAME
                                   ? arena_printf(&c->arena, "`%s`", value->name->text)
                                   : "this value");
        if (value && value->kind == EXPR_NAME)
            suggest(c, d, span, value->name->text, value->name->len, levels, LEVEL_COUNT);
        return;
    }
    if (root->level[code] != LINT_DEFAULT) {
        Diagnostic *d = report(c, name_span, "set again here", "`%s` is given a level twice",
                               diag_info((DiagCode)code)->code);
        diag_add_label(&c->diags, d, root->level_span[code], "first set here");
        return;
    }
    root->level[code] = (uint8_t)level_values[level];
    root->level_span[code] = span_join(name_span, value->span);
}

static void read_program(Compiler *c, Root *root, const Member *program)
{
    const Member *lints = NULL;
    const Block *body = member_body(program);
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        const Name *word = member_word(m);
        if (is_clause(m, "lints") && member_body(m) && !m->name && !member_value(m)) {
            if (lints) {
                report_twice(c, m, lints);
                continue;
            }
            lints = m;
            const Block *list = member_body(m);
            for (const Member *l = block_first(list), *last = block_end(list); l != last; l++)
                read_lint(c, root, l);
            continue;
        }
        if (word && strcmp(word->text, "lints") == 0) {
            report(c, member_key_span(m), "expected `lints { … }`",
                   "`%s` holds a block of levels: `lints { W0007: warn }`", "lints");
            continue;
        }
        Span span = member_key_span(m);
        Diagnostic *d = report(c, span, "unknown setting", "unknown setting `%s` in `program`",
                               word ? word->text : keyword_text(m->keyword));
        if (word)
            suggest(c, d, span, word->text, word->len, program_settings, 1);
        else
            diag_add_help(&c->diags, d, "a program's configuration holds `lints { … }`");
    }
}

void root_config_read(Compiler *c, Root *root)
{
    const SourceAst *ast = root->config_file < c->ast_count ? c->asts[root->config_file] : NULL;
    const Member *program = NULL;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        if (is_clause(m, "program") && m->name && member_body(m)) {
            if (program) {
                report_twice(c, m, program);
                continue;
            }
            program = m;
            root->name = m->name->text;
            read_program(c, root, m);
            continue;
        }
        Diagnostic *d = report(c, member_key_span(m), "not a setting",
                               "`%s` holds `program NAME { … }` only", PROGRAM_MARKER);
        diag_add_help(&c->diags, d, "the program's source goes in `.orbit` files beside it");
    }
}
