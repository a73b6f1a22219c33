/* Messages for syntax errors. The parser says which token it found and which tokens it
 * would have accepted; this file turns that into words a person understands:
 * "expected `:` after field name `amount`, found `}`", "expected an expression, found
 * `}`", "expected `,`, `;`, a newline or `}` after this member, found identifier `b`". */
#include <string.h>

#include "lexer.h"

enum { SHOWN_TEXT_MAX = 32 };   /* longest token text quoted in a message, in bytes */

static bool is_keyword_token(int kind)
{
    return kind >= T_WORKFLOW && kind <= T_NULL;
}

static bool is_declaration_keyword(int kind)
{
    return kind == T_WORKFLOW || kind == T_WORKER || kind == T_TYPE;
}

/* The token's source text, cut at SHOWN_TEXT_MAX bytes (on a character boundary). */
static const char *token_text(Parser *p, Loc loc)
{
    const char *text = (const char *)p->lx->base + loc.start;
    uint32_t len = loc.end - loc.start;
    if (len <= SHOWN_TEXT_MAX)
        return arena_printf(&p->c->arena, "%.*s", (int)len, text);
    len = SHOWN_TEXT_MAX;
    while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80)
        len--;
    return arena_printf(&p->c->arena, "%.*s…", (int)len, text);
}

/* "`}`", "a newline", "end of file", "identifier `foo`", "integer `42`", ... */
static const char *describe(Parser *p, int kind, Loc loc)
{
    const char *what;
    switch (kind) {
    case END: return "end of file";
    case NEWLINE: return "a newline";
    case IDENT: what = "identifier"; break;
    case INT: what = "integer"; break;
    case NUMBER: what = "number"; break;
    case DURATION: what = "duration"; break;
    case STRING: what = "string"; break;
    default:
        if (is_keyword_token(kind))
            what = "keyword";
        else
            return arena_printf(&p->c->arena, "`%s`", token_text(p, loc));
    }
    return arena_printf(&p->c->arena, "%s `%s`", what, token_text(p, loc));
}

/* How an expected token is named in a list of alternatives. */
static const char *expected_name(int kind)
{
    switch (kind) {
    case END: return "end of file";
    case NEWLINE: return "a newline";
    case IDENT: return "a name";
    case STRING: return "a string";
    case COMMA: return "`,`";
    case SEMI: return "`;`";
    case COLON: return "`:`";
    case LBRACE: return "`{`";
    case RBRACE: return "`}`";
    case LBRACK: return "`[`";
    case RBRACK: return "`]`";
    case LPAREN: return "`(`";
    case RPAREN: return "`)`";
    case T_IN: return "`in`";
    default: return NULL;
    }
}

/* "A, B or C" from the expected tokens that have a name (operators are left out). */
static const char *alternatives(Parser *p, const bool *want)
{
    static const int order[] = {
        COLON, COMMA, SEMI, NEWLINE, LBRACE, RBRACE, LBRACK, RBRACK, LPAREN, RPAREN,
        T_IN, IDENT, STRING, END,
    };
    const char *names[16];
    int count = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (want[order[i]])
            names[count++] = expected_name(order[i]);
    if (count == 0)
        return "something else";
    const char *text = names[0];
    for (int i = 1; i < count; i++)
        text = arena_printf(&p->c->arena, "%s%s%s", text, i == count - 1 ? " or " : ", ",
                            names[i]);
    return text;
}

static Diagnostic *report(Parser *p, DiagCode code, Loc loc, const char *message)
{
    return diag_report(&p->c->diags, code, ast_span(p, loc), "%s", message);
}

static void unexpected_assign(Parser *p, const SyntaxError *e)
{
    Diagnostic *d = report(p, E0002, e->loc, "unexpected character `=`");
    Span span = ast_span(p, e->loc);
    if (e->want[COLON])
        diag_add_fix(&p->c->diags, d, span, ":", FIX_MACHINE_APPLICABLE, "use `:` to set a value");
    else if (e->want[EQ])
        diag_add_fix(&p->c->diags, d, span, "==", FIX_MAYBE_INCORRECT, "use `==` to compare");
}

static void not_a_declaration(Parser *p, int kind, Loc loc)
{
    const char *message = arena_printf(&p->c->arena,
                                       "expected `workflow`, `worker`, `type` or `test`, found %s",
                                       describe(p, kind, loc));
    report(p, E0104, loc, message);
}

/* The name a keyword expects after it, e.g. "a step name", or NULL. */
static const char *name_after(int keyword, const bool *want)
{
    if (!want[IDENT] || want[INT])
        return NULL;
    switch (keyword) {
    case T_STEP: return "a step name";
    case T_WORKFLOW: return "a workflow name";
    case T_TYPE: return "a type name";
    case T_FOR: return "a variable name";
    case DOT: return "a field name";
    default: return NULL;
    }
}

static bool at_member_start(int kind)
{
    return kind == LBRACE || kind == NEWLINE || kind == COMMA || kind == SEMI;
}

static const char *message_for(Parser *p, const SyntaxError *e, const char *found)
{
    const bool *w = e->want;
    Lexer *lx = p->lx;
    int before = lx->stream.prev2;
    Arena *a = &p->c->arena;

    const char *name = name_after(before, w);
    if (name)
        return arena_printf(a, "expected %s after `%s`, found %s", name,
                            token_text(p, lx->stream.prev2_loc), found);
    if (before == T_WORKER && w[STRING] && !w[INT])
        return arena_printf(a, "expected the worker's name in quotes after `worker`, found %s",
                            found);
    if (w[T_STEP])
        return arena_printf(a, "expected a member name, found %s", found);
    if (w[T_IN] && lx->stream.prev2_before == T_FOR)
        return arena_printf(a, "expected `in` after the variable name, found %s", found);
    if (w[COLON] && before == IDENT && at_member_start(lx->stream.prev2_before))
        return arena_printf(a, "expected `:` after field name `%s`, found %s",
                            token_text(p, lx->stream.prev2_loc), found);
    if ((before == T_RETRY || before == T_COMPENSATE) && w[LBRACE])
        return arena_printf(a, "expected `{` after `%s`, found %s",
                            token_text(p, lx->stream.prev2_loc), found);
    if (w[LBRACE] && !w[INT] && !w[NEWLINE])
        return arena_printf(a, "expected `{`, found %s", found);
    if (w[RBRACE] && w[NEWLINE] && !w[IDENT])
        return arena_printf(a, "expected `,`, `;`, a newline or `}` after this member, found %s",
                            found);
    if (w[INT]) {
        if (is_keyword_token(before))
            return arena_printf(a, "expected an expression after `%s`, found %s",
                                token_text(p, lx->stream.prev2_loc), found);
        return arena_printf(a, "expected an expression, found %s", found);
    }
    if (w[COMMA] && w[RBRACK])
        return arena_printf(a, "expected `,` or `]`, found %s", found);
    if (w[COMMA] && w[RPAREN])
        return arena_printf(a, "expected `,` or `)`, found %s", found);
    if (w[RPAREN])
        return arena_printf(a, "expected `)`, found %s", found);
    if (w[RBRACK])
        return arena_printf(a, "expected `]`, found %s", found);
    return arena_printf(a, "expected %s, found %s", alternatives(p, w), found);
}

void report_missing_colon(Parser *p, Loc name_loc, int found, Loc found_loc)
{
    Lexer *lx = p->lx;
    if (lx->fatal || lexer_token_is_quiet(lx, found, found_loc) || !lexer_count_error(lx))
        return;
    report(p, E0100, found_loc,
           arena_printf(&p->c->arena, "expected `:` after field name `%s`, found %s",
                        token_text(p, name_loc), describe(p, found, found_loc)));
}

/* `workflow: nightly` and the line ends (no `{` on the next line either): a YAML file,
 * or YAML habits. One E0103 that shows the Orbit form, then nothing more from this file:
 * the rest is YAML too. Returns whether it was reported. */
static bool yaml_workflow(Parser *p, const SyntaxError *e)
{
    Lexer *lx = p->lx;
    if ((e->found != NEWLINE && e->found != END) || !e->want[LBRACE] ||
        lx->stream.decl_kind != T_WORKFLOW || lx->stream.prev2 != IDENT ||
        lx->stream.prev2_before != COLON)
        return false;
    const unsigned char *next = lx->base + e->loc.end;
    while (next < lx->lim && (*next == ' ' || *next == '\t' || *next == '\r' || *next == '\n'))
        next++;
    if (next < lx->lim && *next == '{')
        return false;
    const char *name = token_text(p, lx->stream.prev2_loc);
    Loc whole = { lx->stream.decl_loc.start, lx->stream.prev2_loc.end };
    Diagnostic *d = report(p, E0103, whole,
                           arena_printf(&p->c->arena, "expected `workflow %s { … }`, found "
                                        "`workflow: %s`", name, name));
    diag_set_label(&p->c->diags, d, "this is how YAML writes it");
    diag_add_note(&p->c->diags, d, "Orbit is not YAML: a workflow is `workflow NAME { … }`, "
                                   "with its steps inside the braces");
    diag_add_help(&p->c->diags, d, "for example:\nworkflow %s {\n  step export { worker "
                                   "\"reports.export\" }\n}", name);
    lexer_stop(lx);
    return true;
}

/* Reports one syntax error, unless it is on a token the lexer invented or already
 * reported (a stray character, a malformed literal): that would be a second message
 * for the same mistake. */
void report_syntax_error(Parser *p, const SyntaxError *e)
{
    Lexer *lx = p->lx;
    if (lx->fatal || lexer_token_is_quiet(lx, e->found, e->loc) || !lexer_count_error(lx))
        return;
    if (e->found == ASSIGN) {
        unexpected_assign(p, e);
        return;
    }
    if (lexer_at_top_level(lx)) {
        if (yaml_workflow(p, e))
            return;
        if (!is_declaration_keyword(lx->stream.decl_kind)) {
            not_a_declaration(p, lx->stream.decl_kind, lx->stream.decl_loc);
            return;
        }
        if (e->want[END]) {
            not_a_declaration(p, e->found, e->loc);
            return;
        }
    }
    const char *found = describe(p, e->found, e->loc);
    Diagnostic *d = report(p, E0100, e->loc, message_for(p, e, found));
    if (e->found == NEWLINE && e->want[LBRACE] && !e->want[INT])
        diag_add_help(&p->c->diags, d, "put the `{` on the same line");
}
