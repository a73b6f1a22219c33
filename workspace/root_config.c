/* The configuration of a program: its orbit.program, parsed by the front end like any
 * Orbit source, then read here (programs.h shows the form). Each mistake is an E0701 at
 * its place in the file, with a did-you-mean where one is close; the settings that are
 * right still apply. */
#include "roots.h"

#include <string.h>

#include "memory.h"
#include "suggest.h"

static const char *const levels[] = { "allow", "warn", "deny" };
static const LintLevel level_values[] = { LINT_ALLOW, LINT_WARN, LINT_DENY };
enum { LEVEL_COUNT = 3 };

static const char *const program_settings[] = { "lints", "files" };

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

/* `W0007: warn` or `W00: allow` in `lints { … }`, into `table`. */
static void read_lint(Compiler *c, LintTable *table, const Member *m)
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
    size_t key_len = m->name->len;
    if (code < 0 && key_len < UINT8_MAX && diag_warnings_with_prefix(m->name->text, key_len) > 0)
        code = DIAG_CODE_COUNT;   /* a prefix: every warning code it starts, below */
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
    for (int w = 0; w < DIAG_CODE_COUNT; w++) {
        if (diag_info((DiagCode)w)->severity != SEV_WARNING
            || !diag_code_has_prefix((DiagCode)w, m->name->text, key_len))
            continue;
        if (table->set_by[w] == key_len) {   /* the same key, or the same code */
            Diagnostic *d = report(c, name_span, "set again here", "`%s` is given a level twice",
                                   code < DIAG_CODE_COUNT ? diag_info((DiagCode)code)->code
                                                          : m->name->text);
            diag_add_label(&c->diags, d, table->span[w], "first set here");
            return;
        }
    }
    for (int w = 0; w < DIAG_CODE_COUNT; w++) {
        if (diag_info((DiagCode)w)->severity != SEV_WARNING
            || !diag_code_has_prefix((DiagCode)w, m->name->text, key_len)
            || table->set_by[w] > key_len)
            continue;
        table->level[w] = (uint8_t)level_values[level];
        table->set_by[w] = (uint8_t)key_len;
        table->span[w] = span_join(name_span, value->span);
    }
}

/* The block of a `lints { … }` member into `table`. */
static void read_lints(Compiler *c, LintTable *table, const Member *lints)
{
    const Block *list = member_body(lints);
    for (const Member *l = block_first(list), *last = block_end(list); l != last; l++)
        read_lint(c, table, l);
}

static bool is_lints_block(const Member *m)
{
    return is_clause(m, "lints") && member_body(m) && !m->name && !member_value(m);
}

static bool m_name_is_pattern(const Member *files)
{
    return files->name && files->name->len > 0 && member_body(files) && !member_value(files);
}

/* `files "PATTERN" { lints { … } }`: levels for the files that match (file_levels.c). */
static void read_files(Compiler *c, Root *root, const Member *files)
{
    if (!m_name_is_pattern(files)) {
        report(c, member_key_span(files), "expected `files \"PATTERN\" { lints { … } }`",
               "`%s` takes a pattern in quotes and a block: `files \"legacy/**\" { lints { "
               "W0006: allow } }`", "files");
        return;
    }
    root->file_levels = xrealloc(root->file_levels,
                                 (root->file_level_count + 1) * sizeof *root->file_levels);
    FileLevels *block = &root->file_levels[root->file_level_count++];
    memset(block, 0, sizeof *block);
    block->pattern = files->name->text;
    const Member *lints = NULL;
    const Block *body = member_body(files);
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        if (is_lints_block(m) && !lints) {
            lints = m;
            read_lints(c, &block->lints, m);
        } else if (is_lints_block(m)) {
            report_twice(c, m, lints);
        } else {
            const Name *word = member_word(m);
            Diagnostic *d = report(c, member_key_span(m), "unknown setting",
                                   "unknown setting `%s` in `files`",
                                   word ? word->text : keyword_text(m->keyword));
            diag_add_help(&c->diags, d, "a `files` block holds `lints { … }`");
        }
    }
}

static void read_program(Compiler *c, Root *root, const Member *program)
{
    const Member *lints = NULL;
    const Block *body = member_body(program);
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        const Name *word = member_word(m);
        if (is_lints_block(m)) {
            if (lints) {
                report_twice(c, m, lints);
                continue;
            }
            lints = m;
            read_lints(c, &root->lints, m);
            continue;
        }
        if (is_clause(m, "files")) {
            read_files(c, root, m);
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
            suggest(c, d, span, word->text, word->len, program_settings, 2);
        else
            diag_add_help(&c->diags, d, "a program's configuration holds `lints { … }` and "
                                        "`files \"PATTERN\" { … }`");
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
