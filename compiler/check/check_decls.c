/* Pass 1 of the checker: the top-level declarations of every file. Registers workflows,
 * workers and named types (duplicates point at both), reads the standard library's own
 * declarations (built-in tasks, runtime error codes, functions; only in file 0), then
 * resolves named types and the contracts of workers, built-in tasks and functions. */
#include "check_internal.h"

#include <string.h>

static const char *const DECLARATION_WORDS[] = { "workflow", "worker", "type" };

/* Reports `again` as a duplicate of `first`. */
static void report_duplicate(Checker *ck, const char *what, const char *shown, Span again,
                             Span first)
{
    Diagnostic *d = diag_report(ck->diags, E0201, again, "duplicate %s `%s`", what, shown);
    diag_set_label(ck->diags, d, "defined again here");
    diag_add_label(ck->diags, d, first, "first defined here");
}

static bool is_builtin_type_name(const Checker *ck, const Name *name)
{
    for (size_t i = 0; i < BUILTIN_TYPE_COUNT; i++)
        if (ck->n_builtin_types[i] == name)
            return true;
    return false;
}

/* ---- Registration ----------------------------------------------------------------- */

static void add_workflow(Checker *ck, Member *m)
{
    Program *p = ck->program;
    uint32_t first = 0;
    if (!check_register(ck, &ck->workflows, m->name, p->workflow_count, &first))
        report_duplicate(ck, "workflow", m->name->text, member_name_span(m),
                         p->workflows[first].name_span);
    p->workflows[p->workflow_count] = (Workflow){
        .name = m->name, .span = m->span, .name_span = member_name_span(m),
    };
    ck->workflow_decls[p->workflow_count++] = m;
}

static void add_worker(Checker *ck, Member *m)
{
    Program *p = ck->program;
    uint32_t first = 0;
    if (!check_register(ck, &ck->workers, m->name, p->worker_count, &first)) {
        report_duplicate(ck, "worker", m->name->text, member_name_span(m),
                         member_name_span(ck->worker_decls[first]));
        return;
    }
    p->workers[p->worker_count] = (Worker){
        .name = m->name, .span = m->span, .input = ck->types.any, .output = ck->types.any,
    };
    ck->worker_decls[p->worker_count++] = m;
}

static void add_type(Checker *ck, Member *m)
{
    Program *p = ck->program;
    if (is_builtin_type_name(ck, m->name)) {
        Diagnostic *d = diag_report(ck->diags, E0207, member_name_span(m),
                                    "`%s` is a built-in type and cannot be redefined",
                                    m->name->text);
        diag_set_label(ck->diags, d, "reserved name");
        return;
    }
    uint32_t first = 0;
    if (!check_register(ck, &ck->named_types, m->name, p->type_count, &first)) {
        report_duplicate(ck, "type", m->name->text, member_name_span(m), p->types[first].span);
        return;
    }
    Type *t = arena_alloc(ck->arena, sizeof *t);
    t->kind = TYPE_RECORD;
    t->name = m->name;
    p->types[p->type_count] = (NamedType){
        .name = m->name, .span = member_name_span(m), .type = t,
    };
    ck->type_decls[p->type_count++] = m;
}

/* ---- The standard library's declarations (file 0 only) ---------------------------- */

static Member *find_clause(Block *body, Keyword kw)
{
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->kind == MEMBER_CLAUSE && m->keyword == kw)
            return m;
    return NULL;
}

static Member *find_attr(Block *body, const Name *name)
{
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->kind == MEMBER_ATTR && m->name == name)
            return m;
    return NULL;
}

static const Type *contract_of(Checker *ck, Block *body, Keyword kw)
{
    Member *m = find_clause(body, kw);
    if (!m || !member_value(m))
        return ck->types.any;
    return type_from_syntax(ck, member_value(m));
}

static void add_builtin(Checker *ck, Member *m)
{
    Program *p = ck->program;
    names_put(&ck->builtins, ck->arena, m->name, p->builtin_count);
    Builtin *b = &p->builtins[p->builtin_count++];
    *b = (Builtin){ .name = m->name, .span = m->span };
    b->input = contract_of(ck, member_body(m), KW_INPUT);
    b->output = contract_of(ck, member_body(m), KW_OUTPUT);
    Member *timeout = find_clause(member_body(m), KW_TIMEOUT);
    if (timeout && member_value(timeout) && member_value(timeout)->kind == EXPR_DURATION)
        b->default_timeout_ms = member_value(timeout)->integer;
}

static void add_error_code(Checker *ck, Member *m)
{
    Program *p = ck->program;
    names_put(&ck->error_codes, ck->arena, m->name, p->error_code_count);
    ErrorCode *e = &p->error_codes[p->error_code_count++];
    *e = (ErrorCode){ .name = m->name, .retryable = RETRYABLE_NO };
    ck->code_lengths |= (uint64_t)1 << (m->name->len < 63 ? m->name->len : 63);
    Member *r = find_attr(member_body(m), ck->n_retryable);
    if (r && member_value(r) && member_value(r)->kind == EXPR_NAME) {
        if (member_value(r)->name == ck->n_yes)
            e->retryable = RETRYABLE_YES;
        else if (member_value(r)->name == ck->n_depends)
            e->retryable = RETRYABLE_DEPENDS;
    }
}

static void add_function(Checker *ck, Member *m)
{
    Program *p = ck->program;
    names_put(&ck->functions, ck->arena, m->name, p->function_count);
    Function *f = &p->functions[p->function_count++];
    *f = (Function){ .name = m->name };
    const Type *params = contract_of(ck, member_body(m), KW_INPUT);
    f->input = params;
    if (params->kind == TYPE_RECORD) {
        f->param_count = params->field_count;
        f->params = arena_alloc(ck->arena, (params->field_count + 1) * sizeof *f->params);
        for (uint32_t i = 0; i < params->field_count; i++)
            f->params[i] = params->fields[i].type;
    }
    f->result = contract_of(ck, member_body(m), KW_OUTPUT);
}

/* ---- Top-level members ------------------------------------------------------------ */

static void add_stdlib_declaration(Checker *ck, Member *m)
{
    if (!m->name || !member_body(m))
        return;
    if (m->key == ck->n_builtin)
        add_builtin(ck, m);
    else if (m->key == ck->n_error)
        add_error_code(ck, m);
    else if (m->key == ck->n_function)
        add_function(ck, m);
}

static void add_declaration(Checker *ck, Member *m, Keyword kw)
{
    if (!m->name || !member_body(m))
        return;     /* malformed: the parser reported it */
    if (kw == KW_WORKFLOW)
        add_workflow(ck, m);
    else if (kw == KW_WORKER)
        add_worker(ck, m);
    else if (kw == KW_TYPE)
        add_type(ck, m);
}

/* `test "NAME" { … }` (docs/testing.md): kept for the pass over tests and `orbitc test`;
 * the bytecode leaves it out. */
static void add_test(Checker *ck, Member *m)
{
    if (!m->name || !member_body(m))
        return;     /* malformed: the parser reported it */
    Program *p = ck->program;
    p->tests[p->test_count++] = m;
}

/* `workfow checkout { … }`: reported once; when the word is close to a declaration
 * keyword the declaration is still registered, so that its uses do not cascade. */
static void unknown_declaration(Checker *ck, Member *m)
{
    Diagnostic *d = diag_report(ck->diags, E0208, member_key_span(m), "unknown declaration `%s`",
                                m->key->text);
    diag_set_label(ck->diags, d, "expected `workflow`, `worker`, `type` or `test`");
    const char *s = check_suggest(ck, m->key->text, DECLARATION_WORDS, 3);
    if (!s)
        return;
    check_add_suggestion(ck, d, member_key_span(m), s);
    Keyword kw = strcmp(s, "workflow") == 0 ? KW_WORKFLOW
               : strcmp(s, "worker") == 0 ? KW_WORKER : KW_TYPE;
    add_declaration(ck, m, kw);
}

static void collect(Checker *ck, SourceAst *ast)
{
    bool stdlib = ast->file == 0;
    for (Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (m->kind != MEMBER_CLAUSE)
            continue;
        if (m->keyword == KW_NONE && m->key) {
            if (stdlib)
                add_stdlib_declaration(ck, m);
            else if (m->key == ck->n_test)
                add_test(ck, m);
            else
                unknown_declaration(ck, m);
        } else {
            add_declaration(ck, m, m->keyword);
        }
    }
}

/* Room for every declaration of each kind. An unknown word (KW_NONE) may become any of
 * them: a misspelt keyword is registered as the declaration it resembles, and the
 * standard library's `builtin`, `error` and `function` are words too. */
static void allocate(Checker *ck)
{
    uint32_t count[KW_COUNT] = { 0 };
    for (uint32_t i = 0; i < ck->c->ast_count; i++)
        if (ck->c->asts[i])
            for (Member *m = ast_first(ck->c->asts[i]), *end = ast_end(ck->c->asts[i]);
                 m != end; m++)
                count[m->keyword]++;
    Program *p = ck->program;
    Arena *a = ck->arena;
    uint32_t words = count[KW_NONE] + 1;
    uint32_t workflows = count[KW_WORKFLOW] + words, workers = count[KW_WORKER] + words;
    uint32_t types = count[KW_TYPE] + words;
    /* Not zeroed: each entry is written whole when its declaration is added. */
    p->workflows = arena_alloc_raw(a, workflows * sizeof *p->workflows);
    p->workers = arena_alloc_raw(a, workers * sizeof *p->workers);
    p->builtins = arena_alloc_raw(a, words * sizeof *p->builtins);
    p->error_codes = arena_alloc_raw(a, words * sizeof *p->error_codes);
    p->functions = arena_alloc_raw(a, words * sizeof *p->functions);
    p->types = arena_alloc_raw(a, types * sizeof *p->types);
    p->tests = arena_alloc_raw(a, words * sizeof *p->tests);
    ck->workflow_decls = arena_alloc_raw(a, workflows * sizeof *ck->workflow_decls);
    ck->worker_decls = arena_alloc_raw(a, workers * sizeof *ck->worker_decls);
    ck->type_decls = arena_alloc_raw(a, types * sizeof *ck->type_decls);
    /* Sized for what is declared, so that no table grows (the words, which may be
     * anything, are left to grow). */
    namemap_init(&ck->workflows, a, count[KW_WORKFLOW]);
    namemap_init(&ck->workers, a, count[KW_WORKER]);
    namemap_init(&ck->builtins, a, 16);
    namemap_init(&ck->named_types, a, count[KW_TYPE]);
    namemap_init(&ck->functions, a, 16);
    namemap_init(&ck->error_codes, a, 16);
}

/* ---- Resolution ------------------------------------------------------------------- */

static void resolve_named_types(Checker *ck)
{
    Program *p = ck->program;
    for (uint32_t i = 0; i < p->type_count; i++) {
        const Type *fields = check_record_from_block(ck, member_body(ck->type_decls[i]));
        Type *t = (Type *)p->types[i].type;
        t->fields = fields->fields;
        t->field_count = fields->field_count;
        t->field_slots = fields->field_slots;
    }
}

/* The members of `worker "x" { input … output … }`. */
static void resolve_worker(Checker *ck, uint32_t index)
{
    static const char *const MEMBERS[] = { "input", "output" };
    Worker *w = &ck->program->workers[index];
    Member *seen[2] = { NULL, NULL };
    Block *body = member_body(ck->worker_decls[index]);
    for (Member *m = block_first(body), *end = block_end(body); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        int slot = m->keyword == KW_INPUT ? 0 : m->keyword == KW_OUTPUT ? 1 : -1;
        if (slot < 0 || m->kind != MEMBER_CLAUSE) {
            const char *word = check_member_name(ck, m)->text;
            Diagnostic *d = diag_report(ck->diags, E0303, member_key_span(m),
                                        "unknown worker member `%s`", word);
            diag_set_label(ck->diags, d, "expected `input` or `output`");
            const char *s = check_suggest(ck, word, MEMBERS, 2);
            if (s)
                check_add_suggestion(ck, d, member_key_span(m), s);
            continue;
        }
        if (seen[slot]) {
            Diagnostic *d = diag_report(ck->diags, E0304, member_key_span(m),
                                        "`%s` is given twice", MEMBERS[slot]);
            diag_set_label(ck->diags, d, "given again here");
            diag_add_label(ck->diags, d, member_key_span(seen[slot]), "first given here");
            continue;
        }
        seen[slot] = m;
        const Type *t = member_value(m) ? type_from_syntax(ck, member_value(m)) : ck->types.any;
        if (slot == 0)
            w->input = t;
        else
            w->output = t;
    }
}

void check_declarations(Checker *ck)
{
    allocate(ck);
    for (uint32_t i = 0; i < ck->c->ast_count; i++)
        if (ck->c->asts[i])
            collect(ck, ck->c->asts[i]);
    resolve_named_types(ck);
    for (uint32_t i = 0; i < ck->program->worker_count; i++)
        resolve_worker(ck, i);
}
