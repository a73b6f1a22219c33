/* Navigation (docs/editors.md, "Navigation"): go to definition, find references,
 * document highlights, rename of steps, types and workflows, document symbols
 * (workflows with their steps, workers, types with their fields) and workspace symbols.
 * All of them are questions about occurrences (query.h). */
#include "query.h"

#include <ctype.h>
#include <string.h>

#include "types.h"
#include "utf8.h"

/* LSP SymbolKind values. */
enum {
    LSP_CLASS = 5, LSP_METHOD = 6, LSP_FIELD = 8, LSP_INTERFACE = 11, LSP_STRUCT = 23,
};

/* ---- Definition, references, highlights ----------------------------------------- */

json_t *lsp_handle_definition(Server *s, json_t *params)
{
    Analysis *a;
    uint32_t file;
    Occurrence o;
    Span where;
    if (!lsp_query_request(s, params, &a, &file, &o))
        return a ? json_null() : NULL;
    if (!lsp_symbol_declaration(a, &o.symbol, &where))
        return json_null();
    json_t *location = lsp_location_json(s, a, where);
    return location ? location : json_null();
}

typedef struct Collect {
    Server *s;
    Analysis *a;
    Symbol symbol;
    bool declarations;          /* include declarations */
    json_t *out;
    uint32_t file;              /* the file walked (highlights) */
    bool highlights;
} Collect;

static bool collect(void *user, const Occurrence *o)
{
    Collect *c = user;
    if (!lsp_symbol_same(&o->symbol, &c->symbol) || (o->declaration && !c->declarations))
        return true;
    if (c->highlights) {
        FileSpan at;
        diag_locate(&c->a->c.sources, o->span, &at);
        json_t *range = lsp_range_json(c->s, c->a, c->file, at.start, at.end);
        json_array_append_new(c->out, json_pack("{s:o, s:i}", "range", range,
                                                "kind", o->declaration ? 3 : 2));
    } else {
        json_t *location = lsp_location_json(c->s, c->a, o->span);
        if (location)
            json_array_append_new(c->out, location);
    }
    return true;
}

/* Every occurrence of the symbol in every file of the program; the declaration of a
 * standard library symbol (file 0, not walked) is added from lsp_symbol_declaration. */
static void collect_program(Collect *c)
{
    Analysis *a = c->a;
    Span decl;
    if (c->declarations && lsp_symbol_declaration(a, &c->symbol, &decl) &&
        source_file_at(&a->c.sources, decl.start) == 0) {
        json_t *location = lsp_location_json(c->s, a, decl);
        if (location)
            json_array_append_new(c->out, location);
    }
    for (uint32_t f = 1; f < a->c.sources.count; f++)
        if (lsp_analysis_same_program(a, f, c->file))
            lsp_query_walk_file(a, f, collect, c);
}

json_t *lsp_handle_references(Server *s, json_t *params)
{
    Analysis *a;
    uint32_t file;
    Occurrence o;
    if (!lsp_query_request(s, params, &a, &file, &o))
        return a ? json_null() : NULL;
    if (o.symbol.kind == SYM_SETTING || o.symbol.kind == SYM_KEYWORD)
        return json_null();
    json_t *context = lsp_json_object_member(params, "context");
    bool declarations = json_is_true(lsp_json_object_member(context, "includeDeclaration"));
    Collect c = { s, a, o.symbol, declarations, json_array(), file, false };
    collect_program(&c);
    return c.out;
}

json_t *lsp_handle_document_highlight(Server *s, json_t *params)
{
    Analysis *a;
    uint32_t file;
    Occurrence o;
    if (!lsp_query_request(s, params, &a, &file, &o))
        return a ? json_null() : NULL;
    Collect c = { s, a, o.symbol, true, json_array(), file, true };
    lsp_query_walk_file(a, file, collect, &c);
    return c.out;
}

/* ---- Rename ------------------------------------------------------------------------ */

static bool renamable(SymbolKind kind)
{
    return kind == SYM_STEP || kind == SYM_TYPE || kind == SYM_WORKFLOW;
}

/* The occurrence to rename at the position: a step, type or workflow, written in a
 * user's file (not a string or the standard library). */
static bool rename_target(Server *s, json_t *params, Analysis **a, Occurrence *o,
                          uint32_t *file)
{
    bool found = lsp_query_request(s, params, a, file, o);
    if (!*a)
        return false;
    if (!found || !renamable(o->symbol.kind)) {
        lsp_request_error(s, LSP_REQUEST_FAILED, "only steps, types and workflows can be renamed");
        return false;
    }
    return true;
}

json_t *lsp_handle_prepare_rename(Server *s, json_t *params)
{
    Analysis *a;
    Occurrence o;
    uint32_t file;
    if (!rename_target(s, params, &a, &o, &file))
        return s->error_code == LSP_REQUEST_FAILED ? json_null() : NULL;
    FileSpan at;
    diag_locate(&a->c.sources, o.span, &at);
    return json_pack("{s:o, s:s}", "range", lsp_range_json(s, a, file, at.start, at.end),
                     "placeholder", lsp_symbol_name(a, &o.symbol));
}

static bool is_identifier(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    if (len == 0)
        return false;
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode(p + i, len - i, &cp);
        bool ok = i == 0 ? cp == '_' || utf8_is_id_start(cp)
                         : cp == '_' || utf8_is_id_continue(cp);
        if (cp < 0 || !ok)
            return false;
        i += n;
    }
    return true;
}

static bool is_keyword(const char *text)
{
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++)
        if (strcmp(keyword_text((Keyword)kw), text) == 0)
            return true;
    return false;
}

/* Why `name` cannot be the new name of the symbol, or NULL. */
static const char *rename_clash(Analysis *a, const Symbol *sym, const char *name)
{
    const Program *p = a->program;
    if (!is_identifier(name))
        return "is not an identifier";
    if (is_keyword(name))
        return "is a keyword";
    if (sym->kind == SYM_WORKFLOW) {
        for (uint32_t i = 0; i < p->workflow_count; i++)
            if (strcmp(p->workflows[i].name->text, name) == 0)
                return "is the name of another workflow";
    } else if (sym->kind == SYM_TYPE) {
        for (uint32_t i = 0; i < BUILTIN_TYPE_COUNT; i++)
            if (strcmp(BUILTIN_TYPE_NAMES[i], name) == 0)
                return "is a built-in type";
        for (uint32_t i = 0; i < p->type_count; i++)
            if (strcmp(p->types[i].name->text, name) == 0)
                return "is the name of another type";
    } else {
        const Workflow *wf = &p->workflows[sym->workflow];
        for (uint32_t i = 0; i < wf->step_count; i++) {
            if (wf->steps[i].name && strcmp(wf->steps[i].name->text, name) == 0)
                return "is the name of another step of this workflow";
            if (wf->steps[i].for_var && strcmp(wf->steps[i].for_var->text, name) == 0)
                return "is a `for` variable of this workflow";
        }
        for (uint32_t i = 0; i < p->function_count; i++)
            if (strcmp(p->functions[i].name->text, name) == 0)
                return "is a built-in function";
    }
    return NULL;
}

typedef struct RenameEdits {
    Analysis *a;
    Symbol symbol;
    Span *spans;
    uint32_t count, cap;
} RenameEdits;

static bool collect_rename(void *user, const Occurrence *o)
{
    RenameEdits *r = user;
    if (!lsp_symbol_same(&o->symbol, &r->symbol))
        return true;
    if (r->count == r->cap)
        r->spans = xrealloc(r->spans, (r->cap = r->cap ? r->cap * 2 : 16) * sizeof *r->spans);
    r->spans[r->count++] = o->span;
    return true;
}

json_t *lsp_handle_rename(Server *s, json_t *params)
{
    Analysis *a;
    Occurrence o;
    uint32_t file;
    const char *name = lsp_json_string_member(params, "newName");
    if (!name)
        return lsp_request_error(s, RPC_INVALID_PARAMS, "rename needs newName");
    if (!rename_target(s, params, &a, &o, &file))
        return NULL;
    const char *old = lsp_symbol_name(a, &o.symbol);
    if (strcmp(old, name) == 0)
        return lsp_workspace_edit_json(s, a, NULL, 0);
    const char *why = rename_clash(a, &o.symbol, name);
    if (why)
        return lsp_request_error(s, LSP_REQUEST_FAILED,
                                 "cannot rename `%s` to `%.100s`: `%.100s` %s", old, name, name,
                                 why);
    RenameEdits r = { a, o.symbol, NULL, 0, 0 };
    for (uint32_t f = 1; f < a->c.sources.count; f++)
        if (lsp_analysis_same_program(a, f, file))
            lsp_query_walk_file(a, f, collect_rename, &r);
    Edit *edits = xmalloc((r.count + 1) * sizeof *edits);
    for (uint32_t i = 0; i < r.count; i++) {
        FileSpan at;
        diag_locate(&a->c.sources, r.spans[i], &at);
        edits[i] = (Edit){ at.file, at.start, at.end, name };
    }
    json_t *edit = lsp_workspace_edit_json(s, a, edits, r.count);
    free(edits);
    free(r.spans);
    return edit;
}

/* ---- Symbols ------------------------------------------------------------------------ */

static json_t *document_symbol(Server *s, Analysis *a, const char *name, int kind,
                               const char *detail, Span range, Span selection)
{
    FileSpan r, sel;
    diag_locate(&a->c.sources, range, &r);
    diag_locate(&a->c.sources, selection, &sel);
    if (sel.start < r.start || sel.end > r.end)
        sel = r;
    json_t *symbol = json_pack("{s:o, s:i, s:o, s:o}", "name", diag_json_text0(name),
                               "kind", kind,
                               "range", lsp_range_json(s, a, r.file, r.start, r.end),
                               "selectionRange",
                               lsp_range_json(s, a, sel.file, sel.start, sel.end));
    if (detail)
        json_object_set_new(symbol, "detail", diag_json_text0(detail));
    return symbol;
}

static const char *const STEP_KINDS[] = {
    [STEP_TASK_WORKER] = "task", [STEP_TASK_BUILTIN] = "task (built-in)",
    [STEP_WORKFLOW] = "workflow", [STEP_SLEEP] = "sleep", [STEP_AWAIT] = "await",
    [STEP_COMPUTE] = "compute",
};

static json_t *workflow_symbol(Server *s, Analysis *a, const Workflow *wf)
{
    json_t *symbol = document_symbol(s, a, wf->name->text, LSP_CLASS, "workflow", wf->span,
                                     wf->name_span);
    json_t *children = json_array();
    for (uint32_t i = 0; i < wf->step_count; i++) {
        const Step *st = &wf->steps[i];
        if (st->name)
            json_array_append_new(children, document_symbol(s, a, st->name->text, LSP_METHOD,
                                                            STEP_KINDS[st->kind], st->span,
                                                            st->name_span));
    }
    json_object_set_new(symbol, "children", children);
    return symbol;
}

static json_t *type_symbol(Server *s, Analysis *a, const NamedType *t)
{
    const Member *decl = NULL;
    uint32_t file = source_file_at(&a->c.sources, t->span.start);
    for (const Member *m = ast_first(a->c.asts[file]), *end = ast_end(a->c.asts[file]);
         m != end; m++)
        if (m->keyword == KW_TYPE && member_name_span(m).start == t->span.start)
            decl = m;
    json_t *symbol = document_symbol(s, a, t->name->text, LSP_STRUCT, "type",
                                     decl ? decl->span : t->span, t->span);
    json_t *children = json_array();
    for (uint32_t i = 0; i < t->type->field_count; i++) {
        const Field *f = &t->type->fields[i];
        if (f->span.end > f->span.start)
            json_array_append_new(children, document_symbol(s, a, f->name->text, LSP_FIELD,
                                                            NULL, f->span, f->span));
    }
    json_object_set_new(symbol, "children", children);
    return symbol;
}

/* Whether a span is in file `file`. */
static bool in_file(Analysis *a, Span span, uint32_t file)
{
    return source_file_at(&a->c.sources, span.start) == file;
}

/* The declarations of a file, in source order. */
json_t *lsp_handle_document_symbol(Server *s, json_t *params)
{
    uint32_t file;
    Analysis *a = lsp_analysis_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a)
        return NULL;
    const Program *p = a->program;
    const SourceAst *ast = a->c.asts[file];
    json_t *out = json_array();
    uint32_t w = 0, k = 0;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (m->kind != MEMBER_CLAUSE)
            continue;
        while (w < p->workflow_count && p->workflows[w].span.start < m->span.start)
            w++;
        while (k < p->worker_count && p->workers[k].span.start < m->span.start)
            k++;
        if (m->keyword == KW_WORKFLOW && w < p->workflow_count &&
            p->workflows[w].span.start == m->span.start) {
            json_array_append_new(out, workflow_symbol(s, a, &p->workflows[w]));
        } else if (m->keyword == KW_WORKER && k < p->worker_count &&
                   p->workers[k].span.start == m->span.start) {
            json_array_append_new(out, document_symbol(s, a, p->workers[k].name->text,
                                                       LSP_INTERFACE, "worker", m->span,
                                                       member_name_span(m)));
        } else if (m->keyword == KW_TYPE && m->name) {
            uint32_t t = lsp_query_type_named(a, m->name);
            if (t != NO_INDEX && p->types[t].span.start == member_name_span(m).start &&
                in_file(a, p->types[t].span, file))
                json_array_append_new(out, type_symbol(s, a, &p->types[t]));
        }
    }
    return out;
}

/* A name matches a query when the query's characters appear in it in order, ignoring
 * case ("chk" matches "checkout"); an empty query matches everything. */
static bool fuzzy_match(const char *name, const char *query)
{
    for (; *query; query++) {
        while (*name && tolower((unsigned char)*name) != tolower((unsigned char)*query))
            name++;
        if (!*name)
            return false;
        name++;
    }
    return true;
}

static void add_workspace_symbol(Server *s, Analysis *a, json_t *out, const char *query,
                                 const char *name, int kind, Span span, const char *container)
{
    if (!fuzzy_match(name, query))
        return;
    json_t *location = lsp_location_json(s, a, span);
    if (!location)
        return;
    json_t *symbol = json_pack("{s:o, s:i, s:o}", "name", diag_json_text0(name), "kind", kind,
                               "location", location);
    if (container)
        json_object_set_new(symbol, "containerName", diag_json_text0(container));
    json_array_append_new(out, symbol);
}

/* The workflows, steps, workers and types of one program that match the query. */
static void program_symbols(Server *s, Analysis *a, const Program *p, json_t *out,
                            const char *query)
{
    for (uint32_t w = 0; w < p->workflow_count; w++) {
        const Workflow *wf = &p->workflows[w];
        add_workspace_symbol(s, a, out, query, wf->name->text, LSP_CLASS, wf->name_span, NULL);
        for (uint32_t k = 0; k < wf->step_count; k++)
            if (wf->steps[k].name)
                add_workspace_symbol(s, a, out, query, wf->steps[k].name->text, LSP_METHOD,
                                     wf->steps[k].name_span, wf->name->text);
    }
    for (uint32_t w = 0; w < p->worker_count; w++) {
        const Member *decl = lsp_query_declaration_member(a, p->workers[w].span);
        add_workspace_symbol(s, a, out, query, p->workers[w].name->text, LSP_INTERFACE,
                             decl ? member_name_span(decl) : p->workers[w].span, NULL);
    }
    for (uint32_t t = 0; t < p->type_count; t++)
        add_workspace_symbol(s, a, out, query, p->types[t].name->text, LSP_STRUCT,
                             p->types[t].span, NULL);
}

json_t *lsp_handle_workspace_symbol(Server *s, json_t *params)
{
    const char *query = lsp_json_string_member(params, "query");
    if (!query)
        query = "";
    json_t *out = json_array();
    for (uint32_t i = 0; i < s->project_count; i++) {
        if (!s->projects[i].live)
            continue;
        Analysis *a = lsp_project_analysis(s, i);
        for (uint32_t r = 0; r < a->root_count; r++)
            if (a->programs[r])
                program_symbols(s, a, a->programs[r], out, query);
    }
    return out;
}
