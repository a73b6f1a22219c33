/* Types and expressions (docs/language.md, "Types"): type syntax in contracts, the static
 * type of every expression with what each name refers to, and values checked against
 * contracts (missing, unknown and mistyped fields). Unknown names are reported once and
 * typed as the error type, which never produces a further error. */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

enum {
    /* Did-you-mean over names in scope looks at most at this many earlier steps (the
     * nearest ones), so that a program with many misspelt names stays linear; over the
     * fields of a record, at most at this many of those not given yet, among its first
     * MAX_FIELDS_SEARCHED fields. */
    MAX_STEP_CANDIDATES = 256,
    MAX_TYPE_CANDIDATES = 256,
    MAX_FIELD_CANDIDATES = 256,
    MAX_FIELDS_SEARCHED = 4096,
};

static const char *tt(Checker *ck, const Type *t)
{
    return type_text(ck->arena, t);
}

enum { MAX_SHOWN = 40 };   /* bytes of an expression quoted in a message, layout aside */

static bool layout_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || (unsigned char)c >= 0x80;
}

static bool ends_operand(char c)
{
    return name_byte(c) || c == '"' || c == '\'' || c == ')' || c == ']' || c == '}';
}

static bool starts_operand(char c)
{
    return name_byte(c) || c == '"' || c == '\'' || c == '(' || c == '[' || c == '{';
}

/* Copies the expression text[0, len) to `out` (when not NULL) as source_text quotes
 * it; returns how many bytes that makes, or -1 when it is not quoted. A line end that
 * separates two members of an object (`{ a: 1` / `b: 2 }`) becomes ", ", as the members
 * are written on one line (a list's members are always separated by commas). */
static long quoted_text(const char *text, uint32_t len, char *out)
{
    enum { MAX_OPEN = MAX_SHOWN + 1 };
    char open[MAX_OPEN];   /* the brackets open at text[i], innermost last */
    uint32_t open_count = 0;
    long n = 0;
    uint32_t shown = 0;
    bool in_string = false;
    char last = '\0';   /* the last byte copied that is not layout */
    for (uint32_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\0')
            return -1;
        if (!in_string && layout_byte(c)) {
            bool line_end = false;
            for (;; i++) {
                line_end |= text[i] == '\n' || text[i] == '\r';
                if (i + 1 >= len || !layout_byte(text[i + 1]))
                    break;
            }
            bool in_members = open_count > 0 && open[open_count - 1] == '{';
            if (line_end && in_members && ends_operand(last) && i + 1 < len &&
                starts_operand(text[i + 1])) {
                if (out)
                    out[n] = ',';
                n++;
            }
            if (out)
                out[n] = ' ';
            n++;
            continue;
        }
        if (!in_string && (c == '#' || (c == '/' && i + 1 < len &&
                                        (text[i + 1] == '/' || text[i + 1] == '*'))))
            return -1;
        if (in_string && c == '\\' && i + 1 < len) {   /* an escape: two bytes shown */
            if (out)
                out[n] = c;
            n++;
            shown++;
            c = text[++i];
        } else if (c == '"') {
            in_string = !in_string;
        } else if (!in_string && (c == '{' || c == '[' || c == '(') && open_count < MAX_OPEN) {
            open[open_count++] = c;
        } else if (!in_string && (c == '}' || c == ']' || c == ')') && open_count > 0) {
            open_count--;
        }
        if (in_string || c == '"' || (c != ',' && c != ';'))
            shown++;
        if (shown > MAX_SHOWN)
            return -1;
        if (out)
            out[n] = c;
        n++;
        last = c;
    }
    return n;
}

/* The source text of a short expression (for messages), on one line, or NULL. What is
 * quoted does not depend on the layout, which `orbitc fmt` changes (the property
 * "the same diagnostics" of tools/fmt_properties.h): each run of spaces and line ends
 * between tokens becomes one space, and the expression is short when it has at most
 * MAX_SHOWN bytes besides those and the separators `,` `;` (which fmt adds and
 * removes as it joins and breaks lines). A string literal is copied as it is; an
 * expression with a comment inside, or a NUL byte, is not quoted. */
static const char *source_text(Checker *ck, Span span)
{
    const SourceFile *f = source_file(&ck->c->sources, source_file_at(&ck->c->sources, span.start));
    if (span.end > f->origin + f->len || span.end <= span.start)
        return NULL;
    const char *text = f->text + (span.start - f->origin);
    long n = quoted_text(text, span.end - span.start, NULL);
    if (n < 0)
        return NULL;
    char *out = arena_alloc(ck->arena, (size_t)n + 1);
    quoted_text(text, span.end - span.start, out);
    out[n] = '\0';
    return out;
}

/* ---- Type syntax -------------------------------------------------------------------- */

/* The built-in type written as `name` (one of BUILTIN_TYPE_NAMES), or NULL. */
static const Type *builtin_type(Checker *ck, const Name *name)
{
    for (int i = 0; i < BUILTIN_TYPE_COUNT; i++)
        if (ck->n_builtin_types[i] == name)
            return ck->builtin_types[i];
    return NULL;
}

static COLD const Type *unknown_type(Checker *ck, Expr *e)
{
    Diagnostic *d = diag_report(ck->diags, E0204, e->span, "unknown type `%s`", e->name->text);
    diag_set_label(ck->diags, d, "not a type");
    Program *p = ck->program;
    uint32_t n = BUILTIN_TYPE_COUNT +
                 (p->type_count < MAX_TYPE_CANDIDATES ? p->type_count : MAX_TYPE_CANDIDATES);
    const char **cands = arena_alloc(ck->arena, n * sizeof *cands);
    for (uint32_t i = 0; i < BUILTIN_TYPE_COUNT; i++)
        cands[i] = BUILTIN_TYPE_NAMES[i];
    for (uint32_t i = BUILTIN_TYPE_COUNT; i < n; i++)
        cands[i] = p->types[i - BUILTIN_TYPE_COUNT].name->text;
    const char *s = check_suggest(ck, e->name->text, cands, n);
    if (s)
        check_add_name_suggestion(ck, d, e->span, s);
    return ck->types.error;
}

static const Type *bad_type(Checker *ck, Expr *e, const char *help)
{
    Diagnostic *d = diag_report(ck->diags, E0508, e->span, "expected a type");
    diag_set_label(ck->diags, d, "not a type");
    diag_add_help(ck->diags, d, "%s", help);
    return ck->types.error;
}

/* The type named by `e` (an EXPR_NAME): inline, since most fields of a contract have
 * one. */
static inline const Type *type_of_name(Checker *ck, Expr *e)
{
    uint32_t index;
    const Type *t = builtin_type(ck, e->name);
    if (t)
        return t;
    if (check_lookup(&ck->named_types, e->name, &index))
        return ck->program->types[index].type;
    return unknown_type(ck, e);
}

const Type *type_from_syntax(Checker *ck, Expr *e)
{
    switch (e->kind) {
    case EXPR_ERROR:
        return ck->types.error;
    case EXPR_NAME:
        return type_of_name(ck, e);
    case EXPR_LIST:
        if (e->count != 1)
            return bad_type(ck, e, "a list type names one element type, such as `[string]`");
        return type_list(&ck->types, type_from_syntax(ck, e->elems[0]));
    case EXPR_OBJECT:
        return check_record_from_block(ck, e->block);
    case EXPR_OPTIONAL:
        return type_optional(&ck->types, type_from_syntax(ck, e->left));
    default:
        return bad_type(ck, e, "types are `string`, `int`, `number`, `bool`, `duration`, "
                               "`any`, `[T]`, `{ field: T }`, `T?` or a `type` name");
    }
}

/* Fields seen so far while a record is read are found by name for E0201 (a small record
 * is searched field by field, which matters as every object literal has one). */
const Type *check_record_from_block(Checker *ck, Block *block)
{
    RecordBuilder rb;
    type_record_begin(&ck->types, &rb, block->count);
    for (Member *m = block_first(block), *end = block_end(block); m != end; m++) {
        if (m->kind == MEMBER_ERROR)
            continue;
        if (m->kind != MEMBER_ATTR || !member_value(m)) {
            Diagnostic *d = diag_report(ck->diags, E0508, m->span, "expected a field");
            diag_set_label(ck->diags, d, "not a field");
            diag_add_help(ck->diags, d, "a field is written `name: type`, such as "
                                        "`order_id: string`");
            continue;
        }
        const Name *name = check_member_name(ck, m);
        const Field *first = type_record_find(&rb, name);
        if (first) {
            Diagnostic *d = diag_report(ck->diags, E0201, member_name_span(m),
                                        "duplicate field `%s`", name->text);
            diag_set_label(ck->diags, d, "defined again here");
            diag_add_label(ck->diags, d, first->span, "first defined here");
            continue;
        }
        Field *f = type_record_add(&rb, name);
        f->span = member_name_span(m);
        Expr *v = member_value(m);
        f->type = v->kind == EXPR_NAME ? type_of_name(ck, v) : type_from_syntax(ck, v);
        f->optional = f->type->kind == TYPE_OPTIONAL || v->kind == EXPR_OPTIONAL;
    }
    return type_record_end(&ck->types, &rb);
}

/* ---- Names in expressions ----------------------------------------------------------- */

static void add_dep(Checker *ck, Scope *scope, uint32_t step)
{
    if (ck->dep_mark[step] == ck->dep_stamp)
        return;
    ck->dep_mark[step] = ck->dep_stamp;
    if (scope->deps)
        scope->deps[scope->dep_count++] = step;
}

static COLD void unknown_name(Checker *ck, Scope *scope, Expr *e)
{
    Diagnostic *d = diag_report(ck->diags, E0205, e->span, "unknown name `%s`", e->name->text);
    diag_set_label(ck->diags, d, "not found in this scope");
    if (scope->hidden_for_var == e->name) {
        diag_add_note(ck->diags, d, "`when` and the list of `for` are evaluated once, before "
                                    "the loop: they cannot use the `for` variable `%s`",
                      e->name->text);
        return;
    }
    uint32_t first_step = 0, last_step = scope->in_step ? scope->step_index
                                                         : scope->workflow->step_count;
    if (scope->self_visible)
        last_step++;
    if (last_step > MAX_STEP_CANDIDATES)
        first_step = last_step - MAX_STEP_CANDIDATES;
    const char **cands = arena_alloc(ck->arena, (last_step - first_step + 2) * sizeof *cands);
    uint32_t n = 0;
    if (scope->for_var)
        cands[n++] = scope->for_var->text;
    cands[n++] = "input";
    for (uint32_t i = last_step; i > first_step; i--)
        cands[n++] = scope->workflow->steps[i - 1].name->text;
    const char *s = check_suggest(ck, e->name->text, cands, n);
    if (s)
        check_add_name_suggestion(ck, d, e->span, s);
}

/* Gives `e` its type `t` (the error type for none) and returns it. */
static const Type *typed(Checker *ck, Expr *e, const Type *t)
{
    e->type = t ? t : ck->types.error;
    return e->type;
}

/* E0206: a step's own result used inside it (`own`), or a later step's. */
static COLD const Type *step_too_late(Checker *ck, Expr *e, const Step *step, bool own)
{
    if (own) {
        Diagnostic *d = diag_report(ck->diags, E0206, e->span,
                                    "step `%s` cannot use its own result", e->name->text);
        diag_set_label(ck->diags, d, "used inside its own step");
        diag_add_help(ck->diags, d, "a step can use `input` and the steps written above it");
        return ck->types.error;
    }
    Diagnostic *d = diag_report(ck->diags, E0206, e->span,
                                "step `%s` is used before it runs", e->name->text);
    diag_set_label(ck->diags, d, "used here");
    diag_add_label(ck->diags, d, step->name_span, "`%s` runs later", e->name->text);
    diag_add_help(ck->diags, d, "steps run in the order written: move `%s` above the "
                                "step that uses it", e->name->text);
    return ck->types.error;
}

static inline const Type *check_name(Checker *ck, Scope *scope, Expr *e)
{
    Workflow *wf = scope->workflow;
    uint32_t index;
    if (scope->for_var && e->name == scope->for_var) {
        e->ref = REF_FOR_VAR;
        return scope->for_type;
    }
    if (e->name == ck->n_input) {
        e->ref = REF_INPUT;
        return wf->input;
    }
    if (!check_lookup(scope->steps, e->name, &index)) {
        unknown_name(ck, scope, e);
        return ck->types.error;
    }
    Step *step = &wf->steps[index];
    if (scope->in_step && index >= scope->step_index) {
        if (index == scope->step_index && scope->self_visible) {
            e->ref = REF_SELF;
            e->ref_index = index;
            return step->ran_result ? step->ran_result : ck->types.error;
        }
        return step_too_late(ck, e, step, index == scope->step_index);
    }
    e->ref = REF_STEP;
    e->ref_index = index;
    add_dep(ck, scope, index);
    return step->result ? step->result : ck->types.error;
}

/* ---- Field access, index, call ---------------------------------------------------- */

static uint32_t field_index_slot(const FieldIndex *slots, uint32_t capacity, const Type *t)
{
    uint32_t at = (uint32_t)(((uintptr_t)t >> 3) * 2654435761u) & (capacity - 1);
    while (slots[at].type && slots[at].type != t)
        at = (at + 1) & (capacity - 1);
    return at;
}

/* The did-you-mean index of the fields of `record`, built the first time (Checker). */
static SuggestIndex *field_index(Checker *ck, const Type *record)
{
    if (2 * (ck->field_index_count + 1) > ck->field_index_capacity) {
        uint32_t capacity = ck->field_index_capacity ? 2 * ck->field_index_capacity : 16;
        FieldIndex *slots = arena_alloc(ck->arena, capacity * sizeof *slots);
        for (uint32_t i = 0; i < ck->field_index_capacity; i++)
            if (ck->field_indexes[i].type)
                slots[field_index_slot(slots, capacity, ck->field_indexes[i].type)] =
                    ck->field_indexes[i];
        ck->field_indexes = slots;
        ck->field_index_capacity = capacity;
    }
    FieldIndex *slot = &ck->field_indexes[field_index_slot(ck->field_indexes,
                                                           ck->field_index_capacity, record)];
    if (!slot->type) {
        const char **names = arena_alloc(ck->arena, (record->field_count + 1) * sizeof *names);
        for (uint32_t i = 0; i < record->field_count; i++)
            names[i] = record->fields[i].name->text;
        slot->type = record;
        slot->index = suggest_index_new(ck->arena, names, record->field_count);
        ck->field_index_count++;
    }
    return slot->index;
}

/* E0504, E0505: the field `e` of a value of type `left` (not unchecked) does not exist. */
static COLD const Type *field_error(Checker *ck, Expr *e, const Type *left)
{
    if (left->kind == TYPE_OPTIONAL) {
        Diagnostic *d = diag_report(ck->diags, E0505, expr_field_span(e),
                                    "cannot read field `%s` of a value that may be null",
                                    e->field->text);
        diag_add_label(ck->diags, d, e->left->span, "this is `%s`", tt(ck, left));
        if (e->left->kind == EXPR_NAME && e->left->ref == REF_STEP)
            diag_add_note(ck->diags, d, "step `%s` has a `when` condition, so its result is "
                          "null when it is skipped", e->left->name->text);
        const char *shown = source_text(ck, e->left->span);
        diag_add_help(ck->diags, d, "give a default first, such as `(%s ?? …).%s`",
                      shown ? shown : "value", e->field->text);
        return ck->types.error;
    }
    if (left->kind != TYPE_RECORD) {
        Diagnostic *d = diag_report(ck->diags, E0505, expr_field_span(e),
                                    "`%s` has no fields", tt(ck, left));
        diag_set_label(ck->diags, d, "no field `%s`", e->field->text);
        diag_add_label(ck->diags, d, e->left->span, "this is `%s`", tt(ck, left));
        return ck->types.error;
    }
    const char *shown = left->name ? NULL : source_text(ck, e->left->span);
    Diagnostic *d = shown
        ? diag_report(ck->diags, E0504, expr_field_span(e), "no field `%s` on `%s`",
                      e->field->text, shown)
        : diag_report(ck->diags, E0504, expr_field_span(e), "no field `%s` on type `%s`",
                      e->field->text, tt(ck, left));
    diag_set_label(ck->diags, d, "unknown field");
    const char *s = check_suggest_indexed(ck, e->field->text, field_index(ck, left));
    if (s)
        check_add_name_suggestion(ck, d, expr_field_span(e), s);
    else
        diag_add_note(ck->diags, d, "`%s` is `%s`", shown ? shown : tt(ck, left),
                      tt(ck, left));
    return ck->types.error;
}

static const Type *check_field(Checker *ck, Scope *scope, Expr *e)
{
    Expr *x = e->left;   /* `input.a`, `step.a`: the name is checked here, directly */
    const Type *left = x && x->kind == EXPR_NAME ? typed(ck, x, check_name(ck, scope, x))
                                                 : check_expr(ck, scope, x);
    if (type_is_unchecked(left))
        return left;
    if (left->kind == TYPE_RECORD) {
        const Field *f = type_field(left, e->field);
        if (f)
            return f->type;
    }
    return field_error(ck, e, left);
}

static const Type *check_index(Checker *ck, Scope *scope, Expr *e)
{
    const Type *left = check_expr(ck, scope, e->left);
    const Type *index = check_expr(ck, scope, e->right);
    if (type_is_unchecked(left)) {
        return left;
    }
    if (left->kind != TYPE_LIST) {
        Diagnostic *d = diag_report(ck->diags, E0509, e->span, "cannot index `%s`",
                                    tt(ck, left));
        diag_set_label(ck->diags, d, "`%s` is not a list", tt(ck, left));
        diag_add_help(ck->diags, d, "only lists can be indexed, such as `items[0]`");
        return ck->types.error;
    }
    What what = what_fixed("a list index");
    check_expect_type(ck, e->right, ck->types.integer, &what);
    (void)index;
    return left->elem;
}

static const Type *check_call(Checker *ck, Scope *scope, Expr *e)
{
    for (uint32_t k = 0; k < e->count; k++)
        check_expr(ck, scope, e->elems[k]);
    Expr *callee = e->left;
    if (!callee || callee->kind != EXPR_NAME) {
        if (callee && callee->kind != EXPR_ERROR) {
            Diagnostic *d = diag_report(ck->diags, E0509, callee->span, "cannot call this");
            diag_add_help(ck->diags, d, "only the standard library's functions can be "
                                        "called, such as `len(x)`");
        }
        return ck->types.error;
    }
    uint32_t index;
    if (!check_lookup(&ck->functions, callee->name, &index)) {
        Diagnostic *d = diag_report(ck->diags, E0209, callee->span, "unknown function `%s`",
                                    callee->name->text);
        diag_set_label(ck->diags, d, "not a function");
        Program *p = ck->program;
        const char **cands = arena_alloc(ck->arena, (p->function_count + 1) * sizeof *cands);
        for (uint32_t i = 0; i < p->function_count; i++)
            cands[i] = p->functions[i].name->text;
        const char *s = check_suggest(ck, callee->name->text, cands, p->function_count);
        if (s)
            check_add_name_suggestion(ck, d, callee->span, s);
        return ck->types.error;
    }
    const Function *f = &ck->program->functions[index];
    callee->ref = e->ref = REF_FUNCTION;
    callee->ref_index = index;   /* the call's index lives on its callee */
    if (e->count != f->param_count) {
        Diagnostic *d = diag_report(ck->diags, E0507, e->span,
                                    "`%s` takes %u argument%s but %u %s given",
                                    f->name->text, f->param_count,
                                    f->param_count == 1 ? "" : "s", e->count,
                                    e->count == 1 ? "was" : "were");
        diag_set_label(ck->diags, d, "wrong number of arguments");
        return f->result;
    }
    for (uint32_t i = 0; i < e->count; i++) {
        What what = what_named(WHAT_ARGUMENT, f->name);
        what.number = i + 1;
        check_expect_type(ck, e->elems[i], f->params[i], &what);
    }
    return f->result;
}

/* ---- Literals ---------------------------------------------------------------------- */

static const Type *check_list(Checker *ck, Scope *scope, Expr *e)
{
    const Type *elem = NULL;
    bool mixed = false;
    for (uint32_t k = 0; k < e->count; k++) {
        Expr *x = e->elems[k];
        const Type *t = check_expr(ck, scope, x);
        if (!elem || type_is_unchecked(elem))
            elem = t;
        else if (type_accepts(elem, t))
            ;
        else if (type_accepts(t, elem))
            elem = t;
        else if (t->kind == TYPE_NULL)
            elem = type_optional(&ck->types, elem);
        else
            mixed = true;
    }
    if (!elem || mixed)
        return ck->types.any_list;
    return type_list(&ck->types, elem);
}

/* The braces of an object literal hold fields, `name: value`. The parser reads any member
 * there (blocks are generic), so the object's own rules are enforced here, before the
 * lowering meets the literal. A member that is a field without its `:` (`{ a 1 }`,
 * `{ retry { … } }`) is reported with the fix, then becomes the field it stands for, so
 * that the literal is checked as intended and the mistake is reported once. */
static void field_without_colon(Checker *ck, Member *m)
{
    const Name *name = check_member_name(ck, m);
    Span key = member_key_span(m);
    Diagnostic *d = diag_report(ck->diags, E0100, key,
                                "expected `:` after field name `%s`", name->text);
    diag_set_label(ck->diags, d, "missing `:`");
    Span value = member_value(m) ? member_value(m)->span : member_body(m)->span;
    const char *value_text = source_text(ck, value);
    diag_add_fix(ck->diags, d, span_make(key.end, key.end), ":", FIX_MACHINE_APPLICABLE,
                 "write `%s: %s`", name->text, value_text ? value_text : "…");
    if (!member_value(m)) {
        Expr *object = arena_alloc(ck->arena, sizeof *object);
        object->kind = EXPR_OBJECT;
        object->span = member_body(m)->span;
        object->block = member_body(m);
        member_set_value(m, object);   /* in place of the body */
    }
    m->kind = MEMBER_ATTR;
    m->name = name;
    m->name_start = key.start;
    m->name_end = key.end;
    m->colon_start = m->colon_end = key.end;
}

static void not_a_field(Checker *ck, Member *m)
{
    const char *word = m->keyword != KW_NONE ? keyword_text(m->keyword) : m->key->text;
    Diagnostic *d = diag_report(ck->diags, E0100, member_key_span(m),
                                "expected a field `name: value`, found `%s`", word);
    diag_set_label(ck->diags, d, "not a field");
    diag_add_help(ck->diags, d, "the braces of an object literal hold only fields, such "
                                "as `{ order_id: input.order_id }`");
}

/* A member of an object literal that is not `name: value` (a clause): reported, and
 * made the field it stands for when it is one without its `:`. */
static void read_object_member(Checker *ck, Member *m)
{
    if (!m->name && (member_value(m) || member_body(m)))
        field_without_colon(ck, m);
    else
        not_a_field(ck, m);
}

static void read_object_fields(Checker *ck, Block *b)
{
    for (Member *m = block_first(b), *end = block_end(b); m != end; m++)
        if (m->kind == MEMBER_CLAUSE)
            read_object_member(ck, m);
}

static const Type *check_object(Checker *ck, Scope *scope, Expr *e)
{
    Block *b = e->block;
    read_object_fields(ck, b);
    RecordBuilder rb;
    type_record_begin(&ck->types, &rb, b->count);
    for (Member *m = block_first(b), *end = block_end(b); m != end; m++) {
        if (m->kind != MEMBER_ATTR || !member_value(m))
            continue;
        const Name *name = check_member_name(ck, m);
        const Type *t = check_expr(ck, scope, member_value(m));
        const Field *first = type_record_find(&rb, name);
        if (first) {
            Diagnostic *d = diag_report(ck->diags, E0201, member_name_span(m),
                                        "duplicate field `%s`", name->text);
            diag_set_label(ck->diags, d, "given again here");
            diag_add_label(ck->diags, d, first->span, "first given here");
            continue;
        }
        Field *f = type_record_add(&rb, name);
        f->span = member_name_span(m);
        f->type = t;
    }
    return type_record_end(&ck->types, &rb);
}

/* ---- Operators ---------------------------------------------------------------------- */

static COLD const Type *bad_operands(Checker *ck, Expr *e, const Type *l, const Type *r)
{
    Diagnostic *d;
    if (r)
        d = diag_report(ck->diags, E0506, e->span, "cannot apply `%s` to `%s` and `%s`",
                        ast_op_text(e->op), tt(ck, l), tt(ck, r));
    else
        d = diag_report(ck->diags, E0506, e->span, "cannot apply `%s` to `%s`",
                        ast_op_text(e->op), tt(ck, l));
    if (e->op == OP_ADD && r && (l->kind == TYPE_STRING || r->kind == TYPE_STRING))
        diag_add_help(ck->diags, d, "`+` joins two strings: convert the other side with "
                                    "`str(…)`");
    else if (l->kind == TYPE_OPTIONAL || (r && r->kind == TYPE_OPTIONAL))
        diag_add_help(ck->diags, d, "the value may be null: give a default with `??`");
    return ck->types.error;
}

static const Type *arithmetic(Checker *ck, Expr *e, const Type *l, const Type *r)
{
    Types *t = &ck->types;
    if (l->kind == TYPE_INT && r->kind == TYPE_INT)
        return t->integer;
    if (type_is_numeric(l) && type_is_numeric(r))
        return t->number;
    bool add_sub = e->op == OP_ADD || e->op == OP_SUB;
    if (add_sub && l->kind == TYPE_DURATION && r->kind == TYPE_DURATION)
        return t->duration;
    if (e->op == OP_ADD && l->kind == TYPE_STRING && r->kind == TYPE_STRING)
        return t->string;
    if (e->op == OP_MUL && l->kind == TYPE_DURATION && r->kind == TYPE_INT)
        return t->duration;
    if (e->op == OP_MUL && l->kind == TYPE_INT && r->kind == TYPE_DURATION)
        return t->duration;
    if (e->op == OP_DIV && l->kind == TYPE_DURATION && r->kind == TYPE_INT)
        return t->duration;
    return bad_operands(ck, e, l, r);
}

static bool comparable(const Type *l, const Type *r)
{
    if (type_is_numeric(l) && type_is_numeric(r))
        return true;
    return l->kind == r->kind &&
           (l->kind == TYPE_STRING || l->kind == TYPE_DURATION);
}

static const Type *coalesce(Checker *ck, Expr *e, const Type *l, const Type *r)
{
    if (l->kind == TYPE_NULL)
        return r;
    const Type *base = type_strip_optional(l);
    const Type *def = type_strip_optional(r);
    const Type *result;
    if (type_accepts(base, def))
        result = base;
    else if (type_accepts(def, base))
        result = def;
    else {
        Diagnostic *d = diag_report(ck->diags, E0506, e->right->span,
                                    "the default of `??` must be `%s`, found `%s`",
                                    tt(ck, base), tt(ck, r));
        diag_add_label(ck->diags, d, e->left->span, "this is `%s`", tt(ck, l));
        return ck->types.error;
    }
    return r->kind == TYPE_OPTIONAL ? type_optional(&ck->types, result) : result;
}

static const Type *check_binary(Checker *ck, Scope *scope, Expr *e)
{
    const Type *l = check_expr(ck, scope, e->left);
    const Type *r = check_expr(ck, scope, e->right);
    Types *t = &ck->types;
    if (l->kind == TYPE_ERROR || r->kind == TYPE_ERROR)
        return e->op >= OP_EQ && e->op <= OP_GE ? t->boolean : t->error;
    switch (e->op) {
    case OP_COALESCE:
        if (type_is_unchecked(l) || type_is_unchecked(r))
            return type_is_unchecked(l) ? type_strip_optional(r) : type_strip_optional(l);
        return coalesce(ck, e, l, r);
    case OP_OR:
    case OP_AND:
        if ((type_is_unchecked(l) || l->kind == TYPE_BOOL) &&
            (type_is_unchecked(r) || r->kind == TYPE_BOOL))
            return t->boolean;
        return bad_operands(ck, e, l, r);
    case OP_EQ:
    case OP_NE:
        return t->boolean;
    case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        if (type_is_unchecked(l) || type_is_unchecked(r) || comparable(l, r))
            return t->boolean;
        bad_operands(ck, e, l, r);
        return t->boolean;
    default:
        break;
    }
    if (type_is_unchecked(l) || type_is_unchecked(r))
        return t->any;
    return arithmetic(ck, e, l, r);
}

static const Type *check_unary(Checker *ck, Scope *scope, Expr *e)
{
    const Type *l = check_expr(ck, scope, e->left);
    if (type_is_unchecked(l))
        return l;
    if (e->op == OP_NOT && l->kind == TYPE_BOOL)
        return l;
    if (e->op == OP_NEG && (type_is_numeric(l) || l->kind == TYPE_DURATION))
        return l;
    return bad_operands(ck, e, l, NULL);
}

/* E0508: `T?` is type syntax. */
static COLD const Type *optional_in_expression(Checker *ck, Scope *scope, Expr *e)
{
    check_expr(ck, scope, e->left);
    Diagnostic *d = diag_report(ck->diags, E0508, e->span,
                                "`?` marks an optional type and is not an operator");
    diag_add_help(ck->diags, d, "to give a default for a null value, use `??`");
    return ck->types.error;
}

static const Type *infer(Checker *ck, Scope *scope, Expr *e)
{
    Types *t = &ck->types;
    switch (e->kind) {
    case EXPR_ERROR: return t->error;
    case EXPR_INT: return t->integer;
    case EXPR_NUMBER: return t->number;
    case EXPR_STRING: return t->string;
    case EXPR_DURATION: return t->duration;
    case EXPR_BOOL: return t->boolean;
    case EXPR_NULL: return t->null;
    case EXPR_NAME: return check_name(ck, scope, e);
    case EXPR_LIST: return check_list(ck, scope, e);
    case EXPR_OBJECT: return check_object(ck, scope, e);
    case EXPR_UNARY: return check_unary(ck, scope, e);
    case EXPR_BINARY: return check_binary(ck, scope, e);
    case EXPR_FIELD: return check_field(ck, scope, e);
    case EXPR_INDEX: return check_index(ck, scope, e);
    case EXPR_CALL: return check_call(ck, scope, e);
    case EXPR_OPTIONAL: return optional_in_expression(ck, scope, e);
    }
    return t->error;
}

/* check_expr of the other expressions, and of the three most common kinds each out of
 * line on its own: each saves only the registers its own case needs, and check_expr,
 * which types a literal at once, saves none. */
static NOINLINE const Type *check_compound(Checker *ck, Scope *scope, Expr *e)
{
    return typed(ck, e, infer(ck, scope, e));
}

static NOINLINE const Type *check_field_expr(Checker *ck, Scope *scope, Expr *e)
{
    return typed(ck, e, check_field(ck, scope, e));
}

static NOINLINE const Type *check_name_expr(Checker *ck, Scope *scope, Expr *e)
{
    return typed(ck, e, check_name(ck, scope, e));
}

static NOINLINE const Type *check_binary_expr(Checker *ck, Scope *scope, Expr *e)
{
    return typed(ck, e, check_binary(ck, scope, e));
}

const Type *check_expr(Checker *ck, Scope *scope, Expr *e)
{
    if (!e)
        return ck->types.error;
    const Types *t = &ck->types;
    switch (e->kind) {
    case EXPR_INT: return e->type = t->integer;
    case EXPR_NUMBER: return e->type = t->number;
    case EXPR_STRING: return e->type = t->string;
    case EXPR_DURATION: return e->type = t->duration;
    case EXPR_BOOL: return e->type = t->boolean;
    case EXPR_NULL: return e->type = t->null;
    case EXPR_FIELD: return check_field_expr(ck, scope, e);
    case EXPR_NAME: return check_name_expr(ck, scope, e);
    case EXPR_BINARY: return check_binary_expr(ck, scope, e);
    default: return check_compound(ck, scope, e);
    }
}

/* ---- Values against expected types and contracts ------------------------------------ */
/* Which fields of a record an object literal gives: for each field, the member that gave
 * it first (NULL while not given). A small record's list is on the stack. */
typedef struct Given {
    const Member **of;
    uint32_t count;      /* fields given */
    const Member *small[TYPE_SMALL_RECORD];
} Given;

static void given_begin(Given *g, uint32_t field_count)
{
    g->count = 0;
    if (field_count <= TYPE_SMALL_RECORD) {
        g->of = g->small;
        memset(g->small, 0, field_count * sizeof *g->small);
    } else {
        g->of = xcalloc(field_count, sizeof *g->of);
    }
}

static void given_end(Given *g)
{
    if (g->of != g->small)
        free(g->of);
}

static void report_duplicate(Checker *ck, const Member *m, const Name *name,
                             const Member *first)
{
    Diagnostic *d = diag_report(ck->diags, E0201, member_name_span(m),
                                "duplicate field `%s`", name->text);
    diag_set_label(ck->diags, d, "given again here");
    diag_add_label(ck->diags, d, member_name_span(first), "first given here");
}

/* The duplicate fields of an object literal checked against a record (E0201), without
 * building the literal's own record type: earlier members are searched by name, through
 * a map when the literal is large. With `skip` (the record), only names that are not
 * fields of it are looked at: check_fields reports the others as it meets them. */
static void report_duplicate_fields(Checker *ck, Block *b, const Type *skip)
{
    NameMap seen = { 0 };
    Member **by_index = NULL;
    if (b->count > TYPE_SMALL_RECORD) {
        namemap_init(&seen, ck->arena, b->count);
        by_index = arena_alloc_raw(ck->arena, b->count * sizeof *by_index);
    }
    uint32_t n = 0;
    for (Member *m = block_first(b), *end = block_end(b); m != end; m++) {
        if (m->kind != MEMBER_ATTR || !member_value(m))
            continue;
        const Name *name = check_member_name(ck, m);
        if (skip && type_field(skip, name))
            continue;
        const Member *first = NULL;
        if (by_index) {
            uint32_t at;
            if (check_lookup(&seen, name, &at))
                first = by_index[at];
        } else {
            for (const Member *x = b->members; x != m && !first; x++)
                if (x->kind == MEMBER_ATTR && member_value(x) && check_member_name(ck, x) == name)
                    first = x;
        }
        if (first) {
            report_duplicate(ck, m, name, first);
            continue;
        }
        if (by_index) {
            by_index[n] = m;
            names_put(&seen, ck->arena, name, n);
        }
        n++;
    }
}

static void check_fields(Checker *ck, Scope *scope, Expr *e, const Type *record,
                         const What *owner);

/* check_expr for a value that check_expect_type may then check against `expected`. An
 * object literal where a record is expected takes that record as its type (its fields are
 * checked against the record's by check_expect_type), so that no record type of its own
 * is built: one per `with` was most of the checker's memory. */
static const Type *check_expr_expecting(Checker *ck, Scope *scope, Expr *e,
                                        const Type *expected)
{
    const Type *want = expected;
    if (want && want->kind == TYPE_OPTIONAL)
        want = want->elem;
    if (!e || e->kind != EXPR_OBJECT || !want || want->kind != TYPE_RECORD)
        return check_expr(ck, scope, e);
    read_object_fields(ck, e->block);
    for (Member *m = block_first(e->block), *end = block_end(e->block); m != end; m++) {
        if (m->kind != MEMBER_ATTR || !member_value(m))
            continue;
        const Field *f = type_field(want, check_member_name(ck, m));
        check_expr_expecting(ck, scope, member_value(m), f ? f->type : NULL);
    }
    report_duplicate_fields(ck, e->block, NULL);
    e->type = want;
    return want;
}

/* check_against of an object literal where the record `want` is expected. */
static void check_object_against(Checker *ck, Scope *scope, Expr *e, const Type *want,
                                 const What *what)
{
    What record = want->name ? what_named(WHAT_RECORD, want->name) : *what;
    check_fields(ck, scope, e, want, &record);
}

/* check_expr_expecting(e, expected), then check_expect_type(e, expected, what), in one
 * walk: an object literal where a record is expected has its fields looked up once. The
 * reports are those of the two calls; only their order differs where their places do
 * (the diagnostics are sorted by place). */
static void check_against_object(Checker *ck, Scope *scope, Expr *e, const Type *expected,
                                 const What *what)
{
    const Type *want = expected;
    if (want && want->kind == TYPE_OPTIONAL)
        want = want->elem;
    if (!want || want->kind != TYPE_RECORD) {
        if (check_expr(ck, scope, e) != expected)
            check_expect_type(ck, e, expected, what);
        return;
    }
    check_object_against(ck, scope, e, want, what);
}

/* Inline: called for every field of every `with`, and nearly always for a value that is
 * not an object literal (check_against_object above). */
static inline void check_against(Checker *ck, Scope *scope, Expr *e, const Type *expected,
                                 const What *what)
{
    if (e && e->kind == EXPR_OBJECT) {
        check_against_object(ck, scope, e, expected, what);
        return;
    }
    if (check_expr(ck, scope, e) != expected)   /* else accepted: the common case */
        check_expect_type(ck, e, expected, what);
}

static COLD void mismatch(Checker *ck, Expr *e, const Type *expected, const What *what)
{
    const Type *found = e->type;
    Diagnostic *d = diag_report(ck->diags, E0501, e->span, "expected `%s` for %s, found `%s`",
                                tt(ck, expected), check_what_text(ck, what), tt(ck, found));
    diag_set_label(ck->diags, d, "this is `%s`", tt(ck, found));
    if (found->kind == TYPE_OPTIONAL && type_accepts(expected, found->elem))
        diag_add_help(ck->diags, d, "the value may be null: give a default with `??`");
    else if (e->kind == EXPR_INT && expected->kind == TYPE_DURATION)
        diag_add_fix(ck->diags, d, e->span,
                     arena_printf(ck->arena, "%lldms", (long long)e->integer),
                     FIX_MAYBE_INCORRECT, "durations need a unit, such as `%lldms` or `%llds`",
                     (long long)e->integer, (long long)e->integer);
    else if (found->kind == TYPE_STRING && expected->kind != TYPE_STRING &&
             e->kind != EXPR_STRING)
        ;
    else if (expected->kind == TYPE_STRING && !type_is_unchecked(found) &&
             found->kind != TYPE_RECORD && found->kind != TYPE_LIST)
        diag_add_help(ck->diags, d, "convert it with `str(…)`");
}

void check_expect_type_slow(Checker *ck, Expr *e, const Type *expected, const What *what)
{
    if (!e || !e->type || type_is_unchecked(expected) || type_is_unchecked(e->type))
        return;
    const Type *want = expected;
    if (want->kind == TYPE_OPTIONAL && e->type->kind != TYPE_NULL)
        want = want->elem;
    if (e->kind == EXPR_OBJECT && want->kind == TYPE_RECORD) {
        What record = want->name ? what_named(WHAT_RECORD, want->name) : *what;
        check_fields(ck, NULL, e, want, &record);
        return;
    }
    if (e->kind == EXPR_LIST && want->kind == TYPE_LIST) {
        What elem_what = what_of(WHAT_ELEMENT_OF, what);
        for (uint32_t k = 0; k < e->count; k++)
            check_expect_type(ck, e->elems[k], want->elem, &elem_what);
        return;
    }
    if (!type_accepts(expected, e->type))
        mismatch(ck, e, expected, what);
}

static void report_missing(Checker *ck, Span where, const Type *record, const Given *given,
                           const What *owner_what)
{
    if (given->count == record->field_count)
        return;
    uint32_t missing = 0;
    TextBuffer list = { 0 };   /* appended to, not formatted again: linear in the fields */
    for (uint32_t i = 0; i < record->field_count; i++) {
        if (given->of[i] || record->fields[i].optional)
            continue;
        text_printf(&list, "%s`%s`", missing ? ", " : "", record->fields[i].name->text);
        missing++;
    }
    if (!missing)
        return;
    const char *owner = check_what_text(ck, owner_what);
    Diagnostic *d = diag_report(ck->diags, E0502, where, "missing field%s %s in %s",
                                missing == 1 ? "" : "s", list.data, owner);
    diag_set_label(ck->diags, d, "missing %s", list.data);
    diag_add_note(ck->diags, d, "%s is `%s`", owner, tt(ck, record));
    text_free(&list);
}

static COLD void unknown_field(Checker *ck, Member *m, const Type *record, Given *given,
                          const What *owner_what)
{
    const char *owner = check_what_text(ck, owner_what);
    const Name *name = check_member_name(ck, m);
    Diagnostic *d = diag_report(ck->diags, E0503, member_name_span(m), "unknown field `%s` in %s",
                                name->text, owner);
    diag_set_label(ck->diags, d, "unknown field");
    const char *cands[MAX_FIELD_CANDIDATES];
    uint32_t at[MAX_FIELD_CANDIDATES];   /* the field of each candidate */
    uint32_t n = 0;
    uint32_t searched = record->field_count < MAX_FIELDS_SEARCHED ? record->field_count
                                                                  : MAX_FIELDS_SEARCHED;
    for (uint32_t i = 0; i < searched && n < MAX_FIELD_CANDIDATES; i++)
        if (!given->of[i]) {
            at[n] = i;
            cands[n++] = record->fields[i].name->text;
        }
    const char *s = check_suggest(ck, name->text, cands, n);
    if (!s) {
        diag_add_note(ck->diags, d, "%s is `%s`", owner, tt(ck, record));
        return;
    }
    check_add_name_suggestion(ck, d, member_name_span(m), s);
    /* The misspelt field stands for the suggested one: it is not also "missing". */
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(cands[k], s) == 0 && !given->of[at[k]]) {
            given->of[at[k]] = m;
            given->count++;
        }
}

/* The fields of the object literal `e` against `record`: each known field's value
 * against the field's type (the first time the field is given), then the unknown
 * fields, then the missing ones. With a scope the values are checked here too
 * (check_against, which has read the literal's members as fields): a repeated field is
 * reported as it is met, and the literal takes the record as its type; without one they
 * were typed already. */
static void check_fields(Checker *ck, Scope *scope, Expr *e, const Type *record,
                         const What *owner)
{
    Given given;
    given_begin(&given, record->field_count);
    bool any_unknown = false;
    uint32_t next = 0;   /* the field after the last one found: literals are usually
                            written in the order of their contract */
    /* First the known fields, so that an unknown one is matched against what is left.
     * With a scope, the literal's members are read here (read_object_fields). */
    for (Member *m = block_first(e->block), *end = block_end(e->block); m != end; m++) {
        if (m->kind == MEMBER_CLAUSE && scope)
            read_object_member(ck, m);
        if (m->kind != MEMBER_ATTR || !member_value(m))
            continue;
        const Name *name = check_member_name(ck, m);
        const Field *f = next < record->field_count && record->fields[next].name == name
                       ? &record->fields[next] : type_field(record, name);
        if (!f) {
            any_unknown = true;
            if (scope)
                check_expr(ck, scope, member_value(m));
            continue;
        }
        next = (uint32_t)(f - record->fields) + 1;
        const Member **first = &given.of[next - 1];
        if (*first) {
            if (scope) {
                report_duplicate(ck, m, name, *first);
                check_expr_expecting(ck, scope, member_value(m), f->type);
            }
            continue;
        }
        *first = m;
        given.count++;
        What field = what_named(WHAT_FIELD, f->name);
        if (scope)
            check_against(ck, scope, member_value(m), f->type, &field);
        else
            check_expect_type(ck, member_value(m), f->type, &field);
    }
    if (scope) {
        if (any_unknown)
            report_duplicate_fields(ck, e->block, record);
        e->type = record;
    }
    for (Member *m = block_first(e->block), *end = block_end(e->block);
         m != end && any_unknown; m++)
        if (m->kind == MEMBER_ATTR && member_value(m) &&
            !type_field(record, check_member_name(ck, m)))
            unknown_field(ck, m, record, &given, owner);
    if (given.count != record->field_count)
        report_missing(ck, e->span, record, &given, owner);
    given_end(&given);
}

void check_contract(Checker *ck, Scope *scope, Expr *value, const Type *contract, Span where,
                    const What *target)
{
    if (!contract || type_is_unchecked(contract)) {
        if (value)
            check_expr_expecting(ck, scope, value, contract);
        return;
    }
    if (value) {
        check_against(ck, scope, value, contract, target);
        return;
    }
    if (contract->kind != TYPE_RECORD)
        return;
    Given given;
    given_begin(&given, contract->field_count);
    report_missing(ck, where, contract, &given, target);
    given_end(&given);
}
