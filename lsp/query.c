/* The occurrences of a program's names, found by walking its syntax trees beside the
 * checked program: a workflow, worker or type declaration is matched to its entry in the
 * Program by position (both are in source order), names in expressions by the
 * checker's annotations (Expr.ref, Expr.type), names in types by the named types. */
#include "query.h"

#include <stddef.h>
#include <string.h>

#include "policy.h"
#include "types.h"

typedef struct Walk {
    Analysis *a;
    const Program *p;
    OccurrenceVisitor visit;
    void *user;
    bool stopped;
    Context context;
} Walk;

static void emit(Walk *w, Span span, Symbol symbol, bool declaration, const Expr *e)
{
    if (w->stopped || symbol.kind == SYM_NONE)
        return;
    Occurrence o = { span, symbol, declaration, e, w->context };
    if (!w->visit(w->user, &o))
        w->stopped = true;
}

static Symbol symbol(SymbolKind kind, uint32_t workflow, uint32_t index)
{
    return (Symbol){ kind, workflow, index, NULL, NULL, NULL };
}

/* ---- Finding declarations by position ------------------------------------------- */

/* The index of the entry whose span starts at `start` in an array of `count` entries
 * sorted by span start, `size` bytes apart, the span `offset` bytes into each. */
static uint32_t find_by_start(const void *array, uint32_t count, size_t size, size_t offset,
                              uint32_t start)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const Span *span = (const Span *)((const char *)array + mid * size + offset);
        if (span->start == start)
            return mid;
        if (span->start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NO_INDEX;
}

#define FIND(array, count, type, start) \
    find_by_start(array, count, sizeof(type), offsetof(type, span), start)

const Member *lsp_query_declaration_member(Analysis *a, Span span)
{
    uint32_t file = source_file_at(&a->c.sources, span.start);
    const SourceAst *ast = file < a->c.ast_count ? a->c.asts[file] : NULL;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
        if (m->span.start == span.start)
            return m;
    return NULL;
}

const Step *lsp_query_step(Analysis *a, uint32_t workflow, uint32_t step)
{
    const Program *p = a->program;
    if (workflow >= p->workflow_count || step >= p->workflows[workflow].step_count)
        return NULL;
    return &p->workflows[workflow].steps[step];
}

const Expr *lsp_query_await(Analysis *a, const Name *signal, uint32_t *workflow,
                            uint32_t *step)
{
    const Program *p = a->program;
    for (uint32_t i = 0; i < p->workflow_count; i++)
        for (uint32_t k = 0; k < p->workflows[i].step_count; k++) {
            const Step *s = &p->workflows[i].steps[k];
            if (s->kind != STEP_AWAIT || s->target_name != signal)
                continue;
            const Member *decl = lsp_query_declaration_member(a, p->workflows[i].span);
            const Block *body = decl ? member_body(decl) : NULL;
            for (const Member *m = block_first(body), *end = block_end(body); m != end; m++) {
                if (m->span.start != s->span.start)
                    continue;
                for (const Member *x = block_first(member_body(m)),
                                  *xend = block_end(member_body(m)); x != xend; x++)
                    if (x->keyword == KW_AWAIT && x->kind != MEMBER_ERROR && member_value(x)) {
                        *workflow = i;
                        *step = k;
                        return member_value(x);
                    }
            }
        }
    return NULL;
}

const Block *lsp_query_retry_block(const Block *body)
{
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->keyword == KW_RETRY && m->kind != MEMBER_ERROR) {
            const Expr *v = member_value(m);
            return member_body(m) ? member_body(m) : v && v->kind == EXPR_OBJECT ? v->block : NULL;
        }
    return NULL;
}

const Block *lsp_query_compensate_block(const Block *body)
{
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->keyword == KW_COMPENSATE && m->kind != MEMBER_ERROR)
            return member_body(m);
    return NULL;
}

bool lsp_query_setting_written(const Block *retry, RetrySetting setting)
{
    for (const Member *m = block_first(retry), *end = block_end(retry); m != end; m++)
        if (m->name && strcmp(m->name->text, RETRY_SETTING_NAMES[setting]) == 0)
            return true;
    return false;
}

static uint32_t name_hash(const Name *name)
{
    return name->hash;
}

static void build_index(Analysis *a)
{
    if (a->indexed == a->program)
        return;
    if (a->indexed)
        arena_free(&a->index_arena);
    a->indexed = a->program;
    memset(&a->types_by_name, 0, sizeof a->types_by_name);
    memset(&a->error_codes_by_name, 0, sizeof a->error_codes_by_name);
    memset(&a->workflows_by_name, 0, sizeof a->workflows_by_name);
    memset(&a->workers_by_name, 0, sizeof a->workers_by_name);
    memset(&a->builtins_by_name, 0, sizeof a->builtins_by_name);
    arena_init(&a->index_arena);
    const Program *p = a->program;
    a->steps_by_name = arena_alloc(&a->index_arena,
                                   (p->workflow_count + 1) * sizeof *a->steps_by_name);
    for (uint32_t i = 0; i < p->workflow_count; i++)
        namemap_add(&a->workflows_by_name, &a->index_arena, p->workflows[i].name->text,
                    name_hash(p->workflows[i].name), i);
    for (uint32_t i = 0; i < p->worker_count; i++)
        namemap_add(&a->workers_by_name, &a->index_arena, p->workers[i].name->text,
                    name_hash(p->workers[i].name), i);
    for (uint32_t i = 0; i < p->builtin_count; i++)
        namemap_add(&a->builtins_by_name, &a->index_arena, p->builtins[i].name->text,
                    name_hash(p->builtins[i].name), i);
    for (uint32_t i = 0; i < p->type_count; i++)
        namemap_add(&a->types_by_name, &a->index_arena, p->types[i].name->text,
                    name_hash(p->types[i].name), i);
    for (uint32_t i = 0; i < p->error_code_count; i++)
        namemap_add(&a->error_codes_by_name, &a->index_arena, p->error_codes[i].name->text,
                    name_hash(p->error_codes[i].name), i);
}

uint32_t lsp_query_type_named(Analysis *a, const Name *name)
{
    build_index(a);
    uint32_t i;
    return namemap_get(&a->types_by_name, name->text, name_hash(name), &i)
               ? i : NO_INDEX;
}

/* The runtime error code written as this string literal, or NO_INDEX. */
static uint32_t error_code_of(Analysis *a, const Expr *e)
{
    build_index(a);
    const Name *name = intern_lookup(&a->c.names, e->text, e->len);
    uint32_t i;
    return name && namemap_get(&a->error_codes_by_name, name->text, name_hash(name), &i)
               ? i : NO_INDEX;
}

/* ---- Types ---------------------------------------------------------------------- */

/* An occurrence of a field of `record`. */
static void emit_field(Walk *w, Span span, const Field *f, const Type *record,
                       bool declaration, const Expr *e)
{
    Symbol s = symbol(SYM_FIELD, NO_INDEX, 0);
    s.field = f;
    s.record = record;
    emit(w, span, s, declaration, e);
}

static void walk_type(Walk *w, const Expr *e, const Type *t);

/* The fields declared in a record type's block (`{ amount: number, … }`), beside the
 * record the checker made of it (NULL when unknown). */
static void walk_record(Walk *w, const Block *block, const Type *record)
{
    for (const Member *m = block_first(block), *end = block_end(block);
         m != end && !w->stopped; m++) {
        if (m->kind != MEMBER_ATTR || !m->name)
            continue;
        const Field *f = record ? type_field(record, m->name) : NULL;
        if (f)
            emit_field(w, member_name_span(m), f, record, true, NULL);
        walk_type(w, member_value(m), f ? f->type : NULL);
    }
}

/* A type as written (`{ amount: number }`, `[Money]`, `string?`), beside the type the
 * checker made of it (NULL when unknown): named types and declared fields. */
static void walk_type(Walk *w, const Expr *e, const Type *t)
{
    if (!e || w->stopped)
        return;
    switch (e->kind) {
    case EXPR_NAME: {
        uint32_t i = lsp_query_type_named(w->a, e->name);
        if (i != NO_INDEX)
            emit(w, e->span, symbol(SYM_TYPE, NO_INDEX, i), false, NULL);
        break;
    }
    case EXPR_LIST:
        if (e->count == 1)
            walk_type(w, e->elems[0], t && t->kind == TYPE_LIST ? t->elem : NULL);
        break;
    case EXPR_OPTIONAL:
        walk_type(w, e->left, t ? type_strip_optional(t) : NULL);
        break;
    case EXPR_OBJECT:
        walk_record(w, e->block, t && t->kind == TYPE_RECORD ? t : NULL);
        break;
    default:
        break;
    }
}

/* ---- Expressions ---------------------------------------------------------------- */

static void walk_expr(Walk *w, const Expr *e);

static void walk_fields_of_object(Walk *w, const Expr *e)
{
    const Type *record = e->type ? type_strip_optional(e->type) : NULL;
    if (record && record->kind != TYPE_RECORD)
        record = NULL;
    for (const Member *m = block_first(e->block), *end = block_end(e->block); m != end; m++) {
        if (m->kind != MEMBER_ATTR)
            continue;
        const Field *f = record && m->name ? type_field(record, m->name) : NULL;
        if (f)
            emit_field(w, member_name_span(m), f, record, false, member_value(m));
        walk_expr(w, member_value(m));
    }
}

static void walk_name(Walk *w, const Expr *e)
{
    uint32_t wf = w->context.workflow;
    switch ((ExprRef)e->ref) {
    case REF_INPUT:
        emit(w, e->span, symbol(SYM_INPUT, wf, 0), false, e);
        break;
    case REF_STEP:
    case REF_SELF:
        emit(w, e->span, symbol(SYM_STEP, wf, e->ref_index), false, e);
        break;
    case REF_FOR_VAR:
        emit(w, e->span, symbol(SYM_FOR_VAR, wf, w->context.step), false, e);
        break;
    case REF_FUNCTION:
        emit(w, e->span, symbol(SYM_FUNCTION, NO_INDEX, e->ref_index), false, e);
        break;
    default:
        break;
    }
}

static void walk_expr(Walk *w, const Expr *e)
{
    if (!e || w->stopped)
        return;
    switch (e->kind) {
    case EXPR_NAME:
        walk_name(w, e);
        break;
    case EXPR_FIELD: {
        walk_expr(w, e->left);
        const Type *record = e->left && e->left->type ? type_strip_optional(e->left->type)
                                                      : NULL;
        const Field *f = record && record->kind == TYPE_RECORD ? type_field(record, e->field)
                                                               : NULL;
        if (f)
            emit_field(w, expr_field_span(e), f, record, false, e);
        break;
    }
    case EXPR_OBJECT:
        walk_fields_of_object(w, e);
        break;
    default:
        for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
            walk_expr(w, expr_child(e, i));
        break;
    }
}

/* ---- Steps ---------------------------------------------------------------------- */

/* The block of `retry { … }` / `compensate { … }`, also written with a colon. */
static const Block *member_block(const Member *m)
{
    if (member_body(m))
        return member_body(m);
    return member_value(m) && member_value(m)->kind == EXPR_OBJECT ? member_value(m)->block : NULL;
}

static void walk_retry(Walk *w, const Block *body)
{
    for (const Member *m = block_first(body), *end = block_end(body);
         m != end && !w->stopped; m++) {
        if (m->kind == MEMBER_ERROR || !m->name)
            continue;
        for (uint32_t i = 0; i < RETRY_SETTING_COUNT; i++)
            if (strcmp(m->name->text, RETRY_SETTING_NAMES[i]) == 0)
                emit(w, member_key_span(m), symbol(SYM_SETTING, NO_INDEX, i), false, NULL);
        const Expr *v = member_value(m);
        if (strcmp(m->name->text, RETRY_SETTING_NAMES[SET_NON_RETRYABLE]) != 0 || !v ||
            v->kind != EXPR_LIST)
            continue;
        for (uint32_t k = 0; k < v->count; k++) {
            const Expr *x = v->elems[k];
            uint32_t code = x->kind == EXPR_STRING ? error_code_of(w->a, x) : NO_INDEX;
            if (code != NO_INDEX)
                emit(w, x->span, symbol(SYM_ERROR_CODE, NO_INDEX, code), false, x);
        }
    }
}

/* The target of a step's (or compensate block's) action. */
static Symbol action_target(StepKind kind, uint32_t index, const Name *name)
{
    Symbol s = symbol(SYM_NONE, NO_INDEX, index);
    if (kind == STEP_TASK_WORKER) {
        s.kind = SYM_WORKER;
        s.name = name;
    } else if (kind == STEP_TASK_BUILTIN && index != NO_INDEX) {
        s.kind = SYM_BUILTIN;
    } else if (kind == STEP_WORKFLOW && index != NO_INDEX) {
        s.kind = SYM_WORKFLOW;
    }
    if (s.index == NO_INDEX)
        s.index = NO_INDEX;
    return s;
}

/* The action keyword that names a target of this kind. */
static Keyword action_keyword(SymbolKind kind)
{
    return kind == SYM_WORKER ? KW_WORKER : kind == SYM_BUILTIN ? KW_USING
         : kind == SYM_WORKFLOW ? KW_WORKFLOW : KW_NONE;
}

static void walk_step_members(Walk *w, const Block *body, const Step *step,
                              const Compensation *comp)
{
    for (const Member *m = block_first(body), *end = block_end(body);
         m != end && !w->stopped; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        switch (m->keyword) {
        case KW_WORKER:
        case KW_USING:
        case KW_WORKFLOW: {
            Symbol target = comp ? action_target(comp->kind, comp->target_index,
                                                 comp->target_name)
                          : step ? action_target(step->kind, step->target_index,
                                                 step->target_name)
                                 : symbol(SYM_NONE, NO_INDEX, 0);
            if (member_value(m) && action_keyword(target.kind) == m->keyword)
                emit(w, member_value(m)->span, target, false, NULL);
            break;
        }
        case KW_FOR:
            if (m->name)
                emit(w, member_name_span(m), symbol(SYM_FOR_VAR, w->context.workflow,
                                                    w->context.step), true, NULL);
            walk_expr(w, member_value(m));
            break;
        case KW_RETRY:
            emit(w, member_key_span(m), symbol(SYM_KEYWORD, NO_INDEX, KW_RETRY), false, NULL);
            walk_retry(w, member_block(m));
            break;
        case KW_TIMEOUT:
        case KW_QUEUE_TIMEOUT:
            emit(w, member_key_span(m), symbol(SYM_KEYWORD, NO_INDEX, m->keyword), false,
                 NULL);
            break;
        case KW_COMPENSATE: {
            bool was = w->context.in_compensate;
            w->context.in_compensate = true;
            walk_step_members(w, member_block(m), step, step ? step->compensate : NULL);
            w->context.in_compensate = was;
            break;
        }
        default:
            walk_expr(w, member_value(m));
            break;
        }
    }
}

static void walk_workflow(Walk *w, const Member *decl)
{
    const Program *p = w->p;
    uint32_t index = FIND(p->workflows, p->workflow_count, Workflow, decl->span.start);
    if (index == NO_INDEX || !member_body(decl))
        return;
    const Workflow *wf = &p->workflows[index];
    w->context = (Context){ index, NO_INDEX, false };
    emit(w, member_name_span(decl), symbol(SYM_WORKFLOW, NO_INDEX, index), true, NULL);
    const Block *body = member_body(decl);
    for (const Member *m = block_first(body), *end = block_end(body);
         m != end && !w->stopped; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        uint32_t s = member_body(m) && m->name
            ? FIND(wf->steps, wf->step_count, Step, m->span.start) : NO_INDEX;
        if (s != NO_INDEX) {
            w->context.step = s;
            emit(w, member_name_span(m), symbol(SYM_STEP, index, s), true, NULL);
            walk_step_members(w, member_body(m), &wf->steps[s], NULL);
            w->context.step = NO_INDEX;
        } else if (m->keyword == KW_INPUT || m->keyword == KW_OUTPUT) {
            walk_type(w, member_value(m), m->keyword == KW_INPUT ? wf->input : wf->output);
        } else if (m->keyword == KW_TIMEOUT) {
            emit(w, member_key_span(m), symbol(SYM_KEYWORD, NO_INDEX, KW_TIMEOUT), false,
                 NULL);
        } else if (m->keyword == KW_RETURN) {
            walk_expr(w, member_value(m));
        }
    }
    w->context = (Context){ NO_INDEX, NO_INDEX, false };
}

static void walk_worker(Walk *w, const Member *decl)
{
    const Program *p = w->p;
    uint32_t index = FIND(p->workers, p->worker_count, Worker, decl->span.start);
    if (index == NO_INDEX)
        return;
    Symbol s = symbol(SYM_WORKER, NO_INDEX, index);
    s.name = p->workers[index].name;
    emit(w, member_name_span(decl), s, true, NULL);
    const Block *body = member_body(decl);
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->kind == MEMBER_CLAUSE && (m->keyword == KW_INPUT || m->keyword == KW_OUTPUT))
            walk_type(w, member_value(m), m->keyword == KW_INPUT ? p->workers[index].input
                                                                 : p->workers[index].output);
}

static void walk_type_declaration(Walk *w, const Member *decl)
{
    uint32_t index = decl->name ? lsp_query_type_named(w->a, decl->name) : NO_INDEX;
    if (index == NO_INDEX || w->p->types[index].span.start != member_name_span(decl).start)
        return;
    emit(w, member_name_span(decl), symbol(SYM_TYPE, NO_INDEX, index), true, NULL);
    walk_record(w, member_body(decl), w->p->types[index].type);
}

/* ---- Tests (docs/testing.md) ------------------------------------------------------ */

/* The index of `name` in a map of build_index, or NO_INDEX. */
static uint32_t named(Analysis *a, const NameMap *map, const Name *name)
{
    build_index(a);
    uint32_t i;
    return name && namemap_get(map, name->text, name_hash(name), &i) ? i : NO_INDEX;
}

/* The step `name` of workflow `workflow`, or NO_INDEX. */
static uint32_t step_named(Analysis *a, uint32_t workflow, const Name *name)
{
    build_index(a);
    if (workflow >= a->program->workflow_count || !name)
        return NO_INDEX;
    const Workflow *wf = &a->program->workflows[workflow];
    NameMap *map = &a->steps_by_name[workflow];
    if (!map->slots) {
        namemap_init(map, &a->index_arena, wf->step_count);
        for (uint32_t i = 0; i < wf->step_count; i++)
            namemap_add(map, &a->index_arena, wf->steps[i].name->text,
                        name_hash(wf->steps[i].name), i);
    }
    uint32_t i;
    return namemap_get(map, name->text, name_hash(name), &i) ? i : NO_INDEX;
}

/* The word a member of a test starts with (`task`, `step`, `expect`, `workflow`). */
static const char *test_word(const Member *m)
{
    if (m->kind == MEMBER_ERROR)
        return "";
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE)
        return m->key ? m->key->text : "";
    return m->keyword != KW_NONE ? keyword_text(m->keyword) : m->name ? m->name->text : "";
}

static void emit_test_step(Walk *w, const Member *m, uint32_t workflow)
{
    uint32_t s = step_named(w->a, workflow, m->name);
    if (s != NO_INDEX)
        emit(w, member_name_span(m), symbol(SYM_STEP, workflow, s), false, NULL);
}

/* `step NAME { … }` members of a test's block (`child W { … }`, `expect { … }`). */
static void walk_test_steps(Walk *w, const Block *body, uint32_t workflow)
{
    for (const Member *m = block_first(body), *end = block_end(body);
         m != end && !w->stopped; m++)
        if (strcmp(test_word(m), "step") == 0)
            emit_test_step(w, m, workflow);
}

/* The names a test uses are occurrences of what they name: its workflow, the tasks it
 * scripts (workers or built-in tasks), the steps of the tested workflow (in scripts and
 * in `expect`), child workflows and their steps, and the signals it sends. */
static void walk_test(Walk *w, const Member *decl)
{
    Analysis *a = w->a;
    const Block *body = member_body(decl);
    uint32_t workflow = w->p->workflow_count == 1 ? 0 : NO_INDEX;
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (strcmp(test_word(m), "workflow") == 0 && member_value(m) &&
            member_value(m)->kind == EXPR_NAME)
            workflow = named(a, &a->workflows_by_name, member_value(m)->name);
    w->context = (Context){ workflow, NO_INDEX, false };
    for (const Member *m = block_first(body), *end = block_end(body);
         m != end && !w->stopped; m++) {
        const char *word = test_word(m);
        if (strcmp(word, "workflow") == 0 && member_value(m) &&
            member_value(m)->kind == EXPR_NAME) {
            uint32_t i = named(a, &a->workflows_by_name, member_value(m)->name);
            if (i != NO_INDEX)
                emit(w, member_value(m)->span, symbol(SYM_WORKFLOW, NO_INDEX, i), false, NULL);
        } else if (strcmp(word, "step") == 0) {
            emit_test_step(w, m, workflow);
        } else if (strcmp(word, "child") == 0 && m->name) {
            uint32_t i = named(a, &a->workflows_by_name, m->name);
            if (i == NO_INDEX)
                continue;
            emit(w, member_name_span(m), symbol(SYM_WORKFLOW, NO_INDEX, i), false, NULL);
            walk_test_steps(w, member_body(m), i);
        } else if (strcmp(word, "task") == 0 && m->name) {
            uint32_t i = named(a, &a->builtins_by_name, m->name);
            Symbol s = symbol(SYM_BUILTIN, NO_INDEX, i);
            if (i == NO_INDEX) {
                s = symbol(SYM_WORKER, NO_INDEX, named(a, &a->workers_by_name, m->name));
                s.name = m->name;
            }
            emit(w, member_name_span(m), s, false, NULL);
        } else if (strcmp(word, "signal") == 0 && m->name) {
            Symbol s = symbol(SYM_SIGNAL, NO_INDEX, NO_INDEX);
            s.name = m->name;
            emit(w, member_name_span(m), s, false, NULL);
        } else if (strcmp(word, "expect") == 0) {
            const Expr *v = member_value(m);
            walk_test_steps(w, member_body(m) ? member_body(m)
                               : v && v->kind == EXPR_OBJECT ? v->block : NULL, workflow);
        }
    }
    w->context = (Context){ NO_INDEX, NO_INDEX, false };
}

void lsp_query_walk_file(Analysis *a, uint32_t file, OccurrenceVisitor visit, void *user)
{
    if (!a->program || file >= a->c.ast_count || !a->c.asts[file] || file == 0)
        return;
    Walk w = { a, a->program, visit, user, false, { NO_INDEX, NO_INDEX, false } };
    const SourceAst *ast = a->c.asts[file];
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end && !w.stopped; m++) {
        if (m->kind != MEMBER_CLAUSE)
            continue;
        if (m->keyword == KW_WORKFLOW && m->name)
            walk_workflow(&w, m);
        else if (m->keyword == KW_WORKER)
            walk_worker(&w, m);
        else if (m->keyword == KW_TYPE)
            walk_type_declaration(&w, m);
        else if (m->keyword == KW_NONE && m->key && strcmp(m->key->text, "test") == 0 &&
                 m->name && member_body(m))
            walk_test(&w, m);
    }
}

/* ---- Questions ------------------------------------------------------------------ */

typedef struct AtOffset {
    uint32_t offset;
    bool found;
    Occurrence best;
} AtOffset;

static bool visit_at(void *user, const Occurrence *o)
{
    AtOffset *at = user;
    if (o->span.start > at->offset)
        return true;
    if (at->offset > o->span.end)
        return true;
    if (!at->found || o->span.end - o->span.start <= at->best.span.end - at->best.span.start) {
        at->best = *o;
        at->found = true;
    }
    return true;
}

bool lsp_query_at(Analysis *a, uint32_t file, uint32_t offset, Occurrence *out)
{
    AtOffset at = { a->c.sources.files[file].origin + offset, false, { .span = { 0, 0 } } };
    lsp_query_walk_file(a, file, visit_at, &at);
    if (at.found)
        *out = at.best;
    return at.found;
}

bool lsp_query_request(Server *s, const json_t *params, Analysis **a, uint32_t *file,
                       Occurrence *out)
{
    uint32_t offset;
    *a = lsp_analysis_at(s, params, file, &offset);
    return *a && lsp_query_at(*a, *file, offset, out);
}

bool lsp_symbol_same(const Symbol *x, const Symbol *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case SYM_STEP:
    case SYM_FOR_VAR:
        return x->workflow == y->workflow && x->index == y->index;
    case SYM_INPUT:
        return x->workflow == y->workflow;
    case SYM_WORKER:
        return x->index == NO_INDEX || y->index == NO_INDEX ? x->name == y->name
                                                            : x->index == y->index;
    case SYM_FIELD:
        return x->field == y->field;
    case SYM_SIGNAL:
        return x->name == y->name;
    default:
        return x->index == y->index;
    }
}

/* A declaration of the standard library (`builtin "…"`, `function len`, `error …`). */
static const Member *stdlib_member(Analysis *a, const char *word, const Name *name)
{
    const SourceAst *ast = a->c.ast_count > 0 ? a->c.asts[0] : NULL;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
        if (m->kind == MEMBER_CLAUSE && m->key && strcmp(m->key->text, word) == 0 &&
            m->name == name)
            return m;
    return NULL;
}

/* The `input` member of a workflow's declaration. */
static const Member *input_member(Analysis *a, const Workflow *wf)
{
    const Member *decl = lsp_query_declaration_member(a, wf->span);
    const Block *body = decl ? member_body(decl) : NULL;
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->kind == MEMBER_CLAUSE && m->keyword == KW_INPUT)
            return m;
    return NULL;
}

bool lsp_symbol_declaration(Analysis *a, const Symbol *sym, Span *out)
{
    const Program *p = a->program;
    const Member *m = NULL;
    switch (sym->kind) {
    case SYM_WORKFLOW:
        *out = p->workflows[sym->index].name_span;
        return true;
    case SYM_STEP:
    case SYM_FOR_VAR: {
        const Step *s = lsp_query_step(a, sym->workflow, sym->index);
        if (!s || (sym->kind == SYM_FOR_VAR && !s->for_var))
            return false;
        *out = sym->kind == SYM_STEP ? s->name_span : s->for_var_span;
        return true;
    }
    case SYM_INPUT:
        m = input_member(a, &p->workflows[sym->workflow]);
        if (m)
            *out = member_key_span(m);
        return m != NULL;
    case SYM_WORKER:
        m = sym->index != NO_INDEX ? lsp_query_declaration_member(a, p->workers[sym->index].span)
                                   : NULL;
        break;
    case SYM_BUILTIN:
        m = stdlib_member(a, "builtin", p->builtins[sym->index].name);
        break;
    case SYM_TYPE:
        *out = p->types[sym->index].span;
        return true;
    case SYM_FIELD:
        *out = sym->field->span;
        return sym->field->span.end > sym->field->span.start;
    case SYM_FUNCTION:
        m = stdlib_member(a, "function", p->functions[sym->index].name);
        break;
    case SYM_ERROR_CODE:
        m = stdlib_member(a, "error", p->error_codes[sym->index].name);
        break;
    case SYM_SIGNAL: {
        uint32_t workflow, step;
        const Expr *await = lsp_query_await(a, sym->name, &workflow, &step);
        if (await)
            *out = await->span;
        return await != NULL;
    }
    default:
        return false;
    }
    if (m)
        *out = member_name_span(m);
    return m != NULL;
}

bool lsp_stdlib_comment(Analysis *a, const Symbol *sym, const char **text, uint32_t *len)
{
    Span span;
    if (!lsp_symbol_declaration(a, sym, &span))
        return false;
    const SourceFile *f = source_file(&a->c.sources, 0);
    uint32_t at = span.start - f->origin;
    uint32_t end = (uint32_t)(source_find_eol(f->text + at, f->text + f->len) - f->text);
    for (uint32_t i = at; i + 1 < end; i++)
        if (f->text[i] == '/' && f->text[i + 1] == '/') {
            const char *c = f->text + i + 2;
            while (*c == ' ')
                c++;
            *text = c;
            *len = (uint32_t)(f->text + end - c);
            return true;
        }
    return false;
}

const char *lsp_symbol_name(Analysis *a, const Symbol *sym)
{
    const Program *p = a->program;
    switch (sym->kind) {
    case SYM_WORKFLOW: return p->workflows[sym->index].name->text;
    case SYM_STEP: return lsp_query_step(a, sym->workflow, sym->index)->name->text;
    case SYM_FOR_VAR: return lsp_query_step(a, sym->workflow, sym->index)->for_var->text;
    case SYM_INPUT: return "input";
    case SYM_WORKER: return sym->name ? sym->name->text : "";
    case SYM_BUILTIN: return p->builtins[sym->index].name->text;
    case SYM_TYPE: return p->types[sym->index].name->text;
    case SYM_FIELD: return sym->field->name->text;
    case SYM_FUNCTION: return p->functions[sym->index].name->text;
    case SYM_ERROR_CODE: return p->error_codes[sym->index].name->text;
    case SYM_SETTING: return RETRY_SETTING_NAMES[sym->index];
    case SYM_KEYWORD: return keyword_text((Keyword)sym->index);
    case SYM_SIGNAL: return sym->name ? sym->name->text : "";
    default: return "";
    }
}
