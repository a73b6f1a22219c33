/* Signature help (docs/editors.md, "Signature help"): inside the parentheses of a call of
 * a standard library function (`len(…)`, `contains(…)`: stdlib/orbit.orbit declares
 * them, the checker knows them as the program's functions), its signature — the name,
 * each parameter with its type (the function's input contract), the result, the comment
 * of its declaration — and the parameter the cursor is in. The call is found in the syntax tree of the last check:
 * the parser keeps a call whose `)` is not typed yet (the lexer closes the bracket),
 * so help comes while typing. */
#include "query.h"

#include <string.h>

#include "no_index.h"
#include "textbuf.h"
#include "types.h"

typedef struct CallSearch {
    const char *text;         /* the file's text */
    uint32_t origin;
    uint32_t offset;          /* the cursor, as a position (origin added) */
    const Expr *call;         /* the innermost call whose parentheses hold the cursor */
} CallSearch;

static void search_block(CallSearch *cs, const Block *block);

/* Whether the cursor is between a call's parentheses: after `(`, and before `)` when
 * it is written (at the end of a call the lexer closed). */
static bool inside_parentheses(const CallSearch *cs, const Expr *call)
{
    if (!call->left || cs->offset <= call->left->span.end)
        return false;
    bool closed = call->span.end > call->span.start &&
                  cs->text[call->span.end - 1 - cs->origin] == ')';
    return closed ? cs->offset < call->span.end : cs->offset <= call->span.end;
}

static void search_expr(CallSearch *cs, const Expr *e)
{
    if (!e || cs->offset <= e->span.start || cs->offset > e->span.end)
        return;
    if (e->kind == EXPR_CALL && inside_parentheses(cs, e))
        cs->call = e;                 /* the calls inside it come later: innermost wins */
    if (e->kind == EXPR_OBJECT)
        search_block(cs, e->block);
    for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
        search_expr(cs, expr_child(e, i));
}

static void search_block(CallSearch *cs, const Block *block)
{
    for (const Member *m = block_first(block), *end = block_end(block); m != end; m++) {
        if (cs->offset < m->span.start || cs->offset > m->span.end)
            continue;
        search_block(cs, member_body(m));
        search_expr(cs, member_value(m));
    }
}

/* The argument the cursor is in: the commas between `(` and the cursor that follow an
 * argument (a comma is what ends one). */
static uint32_t active_argument(const CallSearch *cs, const Expr *call)
{
    uint32_t active = 0;
    for (uint32_t i = 0; i < call->count; i++) {
        const Expr *arg = call->elems[i];
        if (!arg || arg->span.end > cs->offset)
            break;
        uint32_t at = arg->span.end - cs->origin, end = cs->offset - cs->origin;
        while (at < end && (cs->text[at] == ' ' || cs->text[at] == '\t' ||
                            cs->text[at] == '\n' || cs->text[at] == '\r'))
            at++;
        if (at < end && cs->text[at] == ',')
            active = i + 1;
    }
    return active;
}

static const Function *function_named(const Program *p, const Name *name)
{
    for (uint32_t i = 0; p && name && i < p->function_count; i++)
        if (p->functions[i].name == name ||
            strcmp(p->functions[i].name->text, name->text) == 0)
            return &p->functions[i];
    return NULL;
}

/* `len(value: any) -> int`, with a label per parameter (a string of the signature's
 * label, so no offsets in one encoding or another) and the declaration's comment as
 * its documentation. */
static json_t *signature_json(Analysis *a, const Function *f, Arena *arena)
{
    TextBuffer label = { 0 };
    json_t *params = json_array();
    text_printf(&label, "%s(", f->name->text);
    for (uint32_t i = 0; i < f->param_count; i++) {
        const Type *input = f->input;
        const char *name = input && input->kind == TYPE_RECORD && i < input->field_count
            ? input->fields[i].name->text : "_";
        char *param = arena_printf(arena, "%s: %s", name, type_text(arena, f->params[i]));
        text_printf(&label, "%s%s", i ? ", " : "", param);
        json_array_append_new(params, json_pack("{s:o}", "label", diag_json_text0(param)));
    }
    text_printf(&label, ") -> %s", f->result ? type_text(arena, f->result) : "?");
    json_t *signature = json_pack("{s:o, s:o}", "label", diag_json_text(label.data, label.len),
                                  "parameters", params);
    text_free(&label);
    Symbol symbol = { .kind = SYM_FUNCTION, .workflow = NO_INDEX,
                      .index = (uint32_t)(f - a->program->functions) };
    const char *comment;
    uint32_t len;
    if (lsp_stdlib_comment(a, &symbol, &comment, &len))
        json_object_set_new(signature, "documentation", diag_json_text(comment, len));
    return signature;
}

json_t *lsp_handle_signature_help(Server *s, json_t *params)
{
    uint32_t file, offset;
    Analysis *a = lsp_analysis_at(s, params, &file, &offset);
    if (!a)
        return NULL;
    const SourceFile *f = source_file(&a->c.sources, file);
    const SourceAst *ast = file < a->c.ast_count ? a->c.asts[file] : NULL;
    CallSearch cs = { f->text, f->origin, f->origin + offset, NULL };
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
        if (m->span.start < cs.offset && cs.offset <= m->span.end)
            search_block(&cs, member_body(m));
    const Function *fn = cs.call && cs.call->left->kind == EXPR_NAME
        ? function_named(a->program, cs.call->left->name) : NULL;
    if (!fn)
        return json_null();
    Arena arena;
    arena_init(&arena);
    uint32_t active = active_argument(&cs, cs.call);
    json_t *result = json_pack("{s:[o], s:i, s:I}", "signatures", signature_json(a, fn, &arena),
                               "activeSignature", 0, "activeParameter", (json_int_t)active);
    arena_free(&arena);
    return result;
}
