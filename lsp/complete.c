/* Completion (docs/editors.md, "Completion"): only what is valid at the cursor. The
 * text before the cursor is scanned for the blocks it is in (`workflow checkout {`,
 * `step charge {`, `retry {`, …) and the member being written, because the text being
 * typed rarely parses; the checked program then says what the names mean:
 *
 *   at the start of a member    the members that place allows (compiler/check/placement.h),
 *                               each once; one action per step
 *   in a retry block            the settings not given yet; after `backoff:` the
 *                               strategies
 *   after `worker` / `using` /  the declared workers (quoted), built-in tasks,
 *   `workflow`                  workflows
 *   in `non_retryable: [ ]`     the runtime error codes (quoted)
 *   in an expression            `input`, the steps above, the `for` variable, the
 *                               functions; after `x.` the fields of x's type
 *   at the start of a `with`    the fields of the target's input contract not given yet
 *   in a contract               the types
 *   in a test (docs/testing.md) after `workflow` and `child` the workflows; after `step`
 *                               the steps of the tested workflow (in a script: those
 *                               that answer, task and workflow steps; in `child W`:
 *                               W's); after `task` the tasks (quoted); after `signal`
 *                               the signals some step awaits (quoted) */
#define _GNU_SOURCE   /* memmem */
#include "query.h"
#include "source.h"

#include <string.h>

#include "placement.h"
#include "policy.h"
#include "types.h"

enum { MAX_DEPTH = 64, MAX_TOKENS = 6, NAME_MAX = 128 };

/* LSP CompletionItemKind values. */
enum {
    ITEM_FUNCTION = 3, ITEM_FIELD = 5, ITEM_VARIABLE = 6, ITEM_CLASS = 7, ITEM_INTERFACE = 8,
    ITEM_MODULE = 9, ITEM_PROPERTY = 10, ITEM_VALUE = 12, ITEM_KEYWORD = 14,
    ITEM_STRUCT = 22, ITEM_CONSTANT = 21, ITEM_ENUM_MEMBER = 20,
};

typedef enum BlockKind {
    B_TOP, B_WORKFLOW, B_WORKER, B_TYPE, B_STEP, B_COMPENSATE, B_RETRY,
    B_SCHEMA,        /* a record type: `input { … }`, `type T { … }`, nested records */
    B_TYPE_LIST,     /* `[T]` in a schema */
    B_OBJECT,        /* an object literal in an expression (`with { … }`) */
    B_CODES,         /* `non_retryable: [ … ]` */
    B_LIST, B_PAREN, /* brackets in an expression */
    B_TEST,          /* test "NAME" { … }: its name is the workflow it names */
    B_TEST_CHILD,    /* child W { … } in a test: its name is W */
    B_TEST_EXPECT,   /* expect { … } in a test */
    B_OTHER,
} BlockKind;

typedef enum TokenKind { T_WORD, T_STRING, T_NUMBER, T_COLON, T_DOT, T_BLOCK, T_OTHER } TokenKind;

typedef struct Token {
    TokenKind kind;
    uint32_t start, end;
} Token;

typedef struct Frame {
    BlockKind kind;
    char name[NAME_MAX];       /* a workflow's or step's name */
    Token tokens[MAX_TOKENS];  /* the first tokens of the member being written */
    uint32_t token_count;
    Keyword last_keyword_seen;
    uint64_t seen;             /* keywords that started a member of this block */
    uint32_t settings;         /* retry settings given in this block */
    Keyword action;            /* the action of a step or compensate block */
} Frame;

typedef struct Scan {
    const char *text;
    uint32_t cursor;
    Frame frames[MAX_DEPTH];
    int depth;                 /* frames[depth - 1] is the innermost */
    uint32_t overflow;         /* blocks deeper than MAX_DEPTH, not tracked */
    uint32_t word_start;       /* the word being typed ends at the cursor */
    bool in_string;            /* the cursor is inside a string literal */
    uint32_t string_start;     /* its first byte after the quote */
    bool in_comment;
} Scan;

/* ---- Scanning the text before the cursor ------------------------------------------ */

static bool is_word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c >= 0x80;
}

static Frame *top(Scan *s)
{
    return &s->frames[s->depth - 1];
}

static bool token_is(const Scan *s, const Token *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == T_WORD && t->end - t->start == n && memcmp(s->text + t->start, word, n) == 0;
}

static Keyword keyword_of_token(const Scan *s, const Token *t)
{
    if (t->kind != T_WORD)
        return KW_NONE;
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++)
        if (token_is(s, t, keyword_text((Keyword)kw)))
            return (Keyword)kw;
    return KW_NONE;
}

static void copy_name(const Scan *s, const Token *t, char *out)
{
    uint32_t n = t->end - t->start;
    if (n >= NAME_MAX)
        n = NAME_MAX - 1;
    memcpy(out, s->text + t->start, n);
    out[n] = '\0';
}

/* A token of the member being written; the first one starts the member. */
static void add_token(Scan *s, TokenKind kind, uint32_t start, uint32_t end)
{
    Frame *f = top(s);
    if (f->token_count == 0 && kind == T_WORD) {
        Token t = { kind, start, end };
        Keyword kw = keyword_of_token(s, &t);
        f->seen |= 1ull << kw;
        if ((f->kind == B_STEP || f->kind == B_COMPENSATE) && is_action(kw) && !f->action)
            f->action = kw;
        for (uint32_t i = 0; i < RETRY_SETTING_COUNT && f->kind == B_RETRY; i++)
            if (token_is(s, &t, RETRY_SETTING_NAMES[i]))
                f->settings |= 1u << i;
    }
    if (f->kind == B_TEST && f->token_count == 1 && kind == T_WORD &&
        token_is(s, &f->tokens[0], "workflow")) {   /* `workflow checkout` in a test */
        Token t = { kind, start, end };
        copy_name(s, &t, f->name);
    }
    if (f->token_count < MAX_TOKENS)
        f->tokens[f->token_count] = (Token){ kind, start, end };
    f->token_count++;
}

static void end_member(Scan *s)
{
    top(s)->token_count = 0;
}

/* What a block opened by `{` is, from the member it belongs to. */
static BlockKind classify_brace(Scan *s, char name[NAME_MAX])
{
    Frame *f = top(s);
    const Token *t = f->tokens;
    uint32_t n = f->token_count < MAX_TOKENS ? f->token_count : MAX_TOKENS;
    Keyword first = n > 0 ? keyword_of_token(s, &t[0]) : KW_NONE;
    bool attribute = n >= 2 && t[n - 1].kind == T_COLON;
    switch (f->kind) {
    case B_TOP:
        if (n >= 2 && t[1].kind == T_WORD && first == KW_WORKFLOW) {
            copy_name(s, &t[1], name);
            return B_WORKFLOW;
        }
        if (n >= 1 && token_is(s, &t[0], "test"))
            return B_TEST;
        return first == KW_WORKER ? B_WORKER : first == KW_TYPE ? B_TYPE : B_OTHER;
    case B_TEST:
        if (n >= 2 && t[1].kind == T_WORD && token_is(s, &t[0], "child")) {
            copy_name(s, &t[1], name);
            return B_TEST_CHILD;
        }
        return n == 1 && token_is(s, &t[0], "expect") ? B_TEST_EXPECT : B_OTHER;
    case B_WORKFLOW:
        if (first == KW_INPUT || first == KW_OUTPUT)
            return B_SCHEMA;
        if (n >= 2 && t[0].kind == T_WORD && t[1].kind == T_WORD) {
            copy_name(s, &t[1], name);
            return B_STEP;
        }
        return B_OTHER;
    case B_STEP:
    case B_COMPENSATE:
        if (first == KW_RETRY)
            return B_RETRY;
        if (first == KW_COMPENSATE && f->kind == B_STEP)
            return B_COMPENSATE;
        return n > 0 ? B_OBJECT : B_OTHER;
    case B_WORKER:
        return first == KW_INPUT || first == KW_OUTPUT ? B_SCHEMA : B_OTHER;
    case B_TYPE:
    case B_SCHEMA:
    case B_TYPE_LIST:
        return attribute || f->kind == B_TYPE_LIST ? B_SCHEMA : B_OTHER;
    case B_OBJECT:
    case B_LIST:
    case B_PAREN:
        return B_OBJECT;
    default:
        return B_OTHER;
    }
}

static void push(Scan *s, BlockKind kind, const char *name)
{
    if (s->depth == MAX_DEPTH) {
        s->overflow++;
        return;
    }
    Frame *f = &s->frames[s->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    if (name)
        memcpy(f->name, name, NAME_MAX);
}

static void pop(Scan *s)
{
    if (s->overflow > 0) {
        s->overflow--;
        return;
    }
    if (s->depth > 1)
        s->depth--;
    add_token(s, T_BLOCK, 0, 0);
}

static void open_bracket(Scan *s, char c)
{
    char name[NAME_MAX] = "";
    BlockKind kind;
    if (c == '{') {
        kind = classify_brace(s, name);
    } else if (c == '[') {
        Frame *f = top(s);
        bool codes = f->kind == B_RETRY && f->token_count >= 2 &&
                     token_is(s, &f->tokens[0], RETRY_SETTING_NAMES[SET_NON_RETRYABLE]);
        kind = codes ? B_CODES : f->kind == B_SCHEMA || f->kind == B_TYPE ||
                                 f->kind == B_TYPE_LIST ? B_TYPE_LIST : B_LIST;
    } else {
        kind = B_PAREN;
    }
    add_token(s, T_OTHER, 0, 0);
    push(s, kind, name);
}

/* Whether a newline ends the member: not after `:`, `,`, an operator or an opening
 * bracket, and not inside ( ) or [ ]. */
static bool newline_ends_member(Scan *s)
{
    Frame *f = top(s);
    if (f->kind == B_LIST || f->kind == B_PAREN || f->kind == B_CODES || f->kind == B_TYPE_LIST)
        return false;
    if (f->token_count == 0)
        return false;
    uint32_t last = (f->token_count < MAX_TOKENS ? f->token_count : MAX_TOKENS) - 1;
    return f->tokens[last].kind != T_COLON && f->tokens[last].kind != T_OTHER;
}

static uint32_t skip_string(Scan *s, uint32_t i)
{
    uint32_t start = i + 1;
    for (i = start; i < s->cursor; i++) {
        if (s->text[i] == '\\')
            i++;
        else if (s->text[i] == '"')
            return i + 1;
        else if (source_is_eol(s->text[i]))   /* base/source.h */
            break;
    }
    if (i >= s->cursor) {
        s->in_string = true;
        s->string_start = start;
    }
    return i;
}

static void scan(Scan *s)
{
    const char *text = s->text;
    uint32_t i = 0, n = s->cursor;
    push(s, B_TOP, NULL);
    s->word_start = n;
    while (i < n && !s->in_string && !s->in_comment) {
        unsigned char c = (unsigned char)text[i];
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && !source_is_eol(text[i]))
                i++;
            if (i >= n)
                s->in_comment = true;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            const char *end = memmem(text + i + 2, n - i - 2, "*/", 2);
            if (!end)
                s->in_comment = true;
            i = end ? (uint32_t)(end - text) + 2 : n;
        } else if (c == '"') {
            uint32_t start = i;
            i = skip_string(s, i);
            if (!s->in_string)
                add_token(s, T_STRING, start, i);
        } else if (source_is_eol((char)c)) {   /* base/source.h */
            if (newline_ends_member(s))
                end_member(s);
            i += source_eol_len(text + i, text + n);
        } else if (c == ' ' || c == '\t') {
            i++;
        } else if (is_word_byte(c)) {
            uint32_t start = i;
            while (i < n && is_word_byte((unsigned char)text[i]))
                i++;
            if (i >= n) {
                s->word_start = start;       /* the word being typed */
                break;
            }
            add_token(s, c >= '0' && c <= '9' ? T_NUMBER : T_WORD, start, i);
        } else if (c == '{' || c == '[' || c == '(') {
            open_bracket(s, (char)c);
            i++;
        } else if (c == '}' || c == ']' || c == ')') {
            pop(s);
            i++;
        } else if (c == ',' || c == ';') {
            Frame *f = top(s);
            if (f->kind != B_PAREN)
                end_member(s);
            i++;
        } else {
            add_token(s, c == ':' ? T_COLON : c == '.' ? T_DOT : T_OTHER, i, i + 1);
            i++;
        }
    }
}

/* ---- Items --------------------------------------------------------------------------- */

typedef struct Completion {
    Server *srv;
    Analysis *a;
    uint32_t file;
    Scan *scan;
    json_t *items;
    Arena arena;
} Completion;

static json_t *item(Completion *c, const char *label, int kind, const char *detail)
{
    json_t *it = json_pack("{s:o, s:i}", "label", diag_json_text0(label), "kind", kind);
    if (detail)
        json_object_set_new(it, "detail", diag_json_text0(detail));
    json_array_append_new(c->items, it);
    return it;
}

/* An item that replaces bytes [start, cursor) with `text` (quoted names, dotted names). */
static void item_replacing(Completion *c, const char *label, int kind, const char *detail,
                           uint32_t start, const char *text)
{
    json_t *it = item(c, label, kind, detail);
    json_object_set_new(it, "textEdit", json_pack("{s:o, s:o}", "range",
                        lsp_range_json(c->srv, c->a, c->file, start, c->scan->cursor),
                        "newText", diag_json_text0(text)));
    json_object_set_new(it, "filterText", diag_json_text(c->scan->text + start,
                                                        c->scan->cursor - start));
}

static void keyword_items(Completion *c, const Keyword *keywords, uint32_t count, uint64_t seen)
{
    for (uint32_t i = 0; i < count; i++)
        if (!(seen & (1ull << keywords[i])))
            item(c, keyword_text(keywords[i]), ITEM_KEYWORD, NULL);
}

/* The members a step (or compensate block) may still take: allowed in its place, not
 * given yet, and no second action. */
static void member_items(Completion *c, const Frame *f)
{
    Place place = f->kind == B_COMPENSATE ? PLACE_COMPENSATE
                : f->action ? place_of_action(f->action) : PLACE_UNKNOWN_STEP;
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++) {
        if (!keyword_is_member((Keyword)kw) || !place_allows((Keyword)kw, place) ||
            (f->seen & (1ull << kw)) || (is_action((Keyword)kw) && f->action))
            continue;
        if (kw == KW_INPUT || kw == KW_OUTPUT || kw == KW_STEP || kw == KW_RETURN)
            continue;            /* workflow body members */
        item(c, keyword_text((Keyword)kw), ITEM_KEYWORD,
             is_action((Keyword)kw) ? "step action" : NULL);
    }
}

static void setting_items(Completion *c, const Frame *f)
{
    char def[96], detail[160];
    for (uint32_t i = 0; i < RETRY_SETTING_COUNT; i++) {
        if (f->settings & (1u << i))
            continue;
        snprintf(detail, sizeof detail, "%s, default %s", RETRY_SETTING_TYPES[i],
                 policy_setting_default((RetrySetting)i, def, sizeof def));
        json_t *it = item(c, RETRY_SETTING_NAMES[i], ITEM_PROPERTY, detail);
        json_object_set_new(it, "documentation", json_string(RETRY_SETTING_MEANINGS[i]));
        char insert[64];
        snprintf(insert, sizeof insert, "%s: ", RETRY_SETTING_NAMES[i]);
        json_object_set_new(it, "insertText", json_string(insert));
    }
}

/* Quoted names: inside a string the name alone replaces what was typed of it. */
static void quoted_items(Completion *c, const char *name, int kind, const char *detail)
{
    Scan *s = c->scan;
    char quoted[NAME_MAX + 3];
    if (s->in_string) {
        item_replacing(c, name, kind, detail, s->string_start, name);
    } else {
        snprintf(quoted, sizeof quoted, "\"%s\"", name);
        item_replacing(c, quoted, kind, detail, s->word_start, quoted);
    }
}

static void worker_items(Completion *c)
{
    const Program *p = c->a->program;
    for (uint32_t i = 0; i < p->worker_count; i++)
        quoted_items(c, p->workers[i].name->text, ITEM_INTERFACE, "worker");
}

static void error_code_items(Completion *c)
{
    const Program *p = c->a->program;
    static const char *const CLASS[] = { "never retried", "retryable", "retryable or not" };
    for (uint32_t i = 0; i < p->error_code_count; i++)
        quoted_items(c, p->error_codes[i].name->text, ITEM_CONSTANT,
                     CLASS[p->error_codes[i].retryable]);
}

/* Built-in task names are dotted: the whole name typed so far is replaced. */
static void builtin_items(Completion *c, const Token *after_using)
{
    const Program *p = c->a->program;
    uint32_t start = after_using ? after_using->start : c->scan->word_start;
    for (uint32_t i = 0; i < p->builtin_count; i++)
        item_replacing(c, p->builtins[i].name->text, ITEM_MODULE, "built-in task", start,
                       p->builtins[i].name->text);
}

static void workflow_items(Completion *c)
{
    const Program *p = c->a->program;
    for (uint32_t i = 0; i < p->workflow_count; i++)
        item(c, p->workflows[i].name->text, ITEM_CLASS, "workflow");
}

static void type_items(Completion *c)
{
    for (uint32_t i = 0; i < BUILTIN_TYPE_COUNT; i++)
        item(c, BUILTIN_TYPE_NAMES[i], ITEM_STRUCT, "built-in type");
    const Program *p = c->a->program;
    for (uint32_t i = 0; i < p->type_count; i++)
        item(c, p->types[i].name->text, ITEM_STRUCT, "type");
}

static void field_items(Completion *c, const Type *t, uint64_t skip_first)
{
    t = t ? type_strip_optional(t) : NULL;
    if (!t || t->kind != TYPE_RECORD)
        return;
    for (uint32_t i = 0; i < t->field_count; i++)
        if (!(i < 64 && (skip_first & (1ull << i))))
            item(c, t->fields[i].name->text, ITEM_FIELD, type_text(&c->arena, t->fields[i].type));
}

/* ---- Names in expressions ---------------------------------------------------------- */

/* The workflow and step the cursor is in, by the names of the enclosing blocks. */
static const Workflow *current_workflow(Completion *c, const Step **step)
{
    const Scan *s = c->scan;
    const Program *p = c->a->program;
    const Workflow *wf = NULL;
    *step = NULL;
    for (int d = 0; d < s->depth; d++) {
        const Frame *f = &s->frames[d];
        if (f->kind == B_WORKFLOW) {
            wf = NULL;
            for (uint32_t i = 0; i < p->workflow_count && !wf; i++)
                if (strcmp(p->workflows[i].name->text, f->name) == 0)
                    wf = &p->workflows[i];
        } else if (f->kind == B_STEP && wf) {
            for (uint32_t i = 0; i < wf->step_count && !*step; i++)
                if (wf->steps[i].name && strcmp(wf->steps[i].name->text, f->name) == 0)
                    *step = &wf->steps[i];
        }
    }
    return wf;
}

static bool in_compensate(const Scan *s)
{
    for (int d = 0; d < s->depth; d++)
        if (s->frames[d].kind == B_COMPENSATE)
            return true;
    return false;
}

/* The type of a dotted name before the cursor (`input.total`), or NULL. */
static const Type *chain_type(Completion *c, uint32_t end)
{
    const char *text = c->scan->text;
    uint32_t start = end;
    while (start > 0 && (is_word_byte((unsigned char)text[start - 1]) || text[start - 1] == '.'))
        start--;
    const Step *step;
    const Workflow *wf = current_workflow(c, &step);
    if (!wf)
        return NULL;
    const Type *t = NULL;
    for (uint32_t i = start; i < end;) {
        uint32_t j = i;
        while (j < end && text[j] != '.')
            j++;
        const Name *name = intern_lookup(&c->a->c.names, text + i, j - i);
        if (!name)
            return NULL;
        if (i == start) {
            if (strcmp(name->text, "input") == 0)
                t = wf->input;
            else if (step && step->for_var == name && step->for_iterable &&
                     step->for_iterable->type && step->for_iterable->type->kind == TYPE_LIST)
                t = step->for_iterable->type->elem;
            for (uint32_t k = 0; k < wf->step_count && !t; k++)
                if (wf->steps[k].name == name)
                    t = step == &wf->steps[k] && in_compensate(c->scan) ? wf->steps[k].ran_result
                                                                      : wf->steps[k].result;
        } else {
            const Type *record = t ? type_strip_optional(t) : NULL;
            const Field *f = record && record->kind == TYPE_RECORD ? type_field(record, name)
                                                                   : NULL;
            t = f ? f->type : NULL;
        }
        if (!t)
            return NULL;
        i = j + 1;
    }
    return t;
}

static void expression_items(Completion *c)
{
    Scan *s = c->scan;
    if (s->word_start > 0 && s->text[s->word_start - 1] == '.') {
        field_items(c, chain_type(c, s->word_start - 1), 0);
        return;
    }
    const Step *step;
    const Workflow *wf = current_workflow(c, &step);
    const Program *p = c->a->program;
    if (wf) {
        item(c, "input", ITEM_VARIABLE, type_text(&c->arena, wf->input));
        uint32_t position = c->a->c.sources.files[c->file].origin + s->cursor;
        for (uint32_t i = 0; i < wf->step_count; i++) {
            const Step *st = &wf->steps[i];
            bool earlier = st->span.end <= position;
            bool self = st == step && in_compensate(s);
            if (st->name && (earlier || self))
                item(c, st->name->text, ITEM_VARIABLE, type_text(&c->arena, st->result));
        }
        if (step && step->for_var && !in_compensate(s))
            item(c, step->for_var->text, ITEM_VARIABLE, "`for` variable");
    }
    for (uint32_t i = 0; i < p->function_count; i++)
        item(c, p->functions[i].name->text, ITEM_FUNCTION, "function");
    item(c, "true", ITEM_KEYWORD, NULL);
    item(c, "false", ITEM_KEYWORD, NULL);
    item(c, "null", ITEM_KEYWORD, NULL);
}

/* At the start of a member of `with { … }`: the target's input fields not given yet. */
static void with_field_items(Completion *c)
{
    const Step *step;
    current_workflow(c, &step);
    if (!step)
        return;
    const Program *p = c->a->program;
    const Type *input = NULL;
    StepKind kind = step->kind;
    uint32_t target = step->target_index;
    if (in_compensate(c->scan) && step->compensate) {
        kind = step->compensate->kind;
        target = step->compensate->target_index;
    }
    if (target == NO_INDEX)
        return;
    if (kind == STEP_TASK_WORKER)
        input = p->workers[target].input;
    else if (kind == STEP_TASK_BUILTIN)
        input = p->builtins[target].input;
    else if (kind == STEP_WORKFLOW)
        input = p->workflows[target].input;
    field_items(c, input, 0);
}

/* ---- Names in tests ----------------------------------------------------------------- */

/* The workflow a test runs: the one its `workflow NAME` names (the test's frame keeps
 * it), else the program's only one. */
static const Workflow *tested_workflow(Completion *c)
{
    const Scan *s = c->scan;
    const Program *p = c->a->program;
    const char *name = NULL;
    for (int d = 0; d < s->depth; d++)
        if (s->frames[d].kind == B_TEST)
            name = s->frames[d].name;
    if (name && *name) {
        for (uint32_t i = 0; i < p->workflow_count; i++)
            if (strcmp(p->workflows[i].name->text, name) == 0)
                return &p->workflows[i];
        return NULL;
    }
    return p->workflow_count == 1 ? &p->workflows[0] : NULL;
}

static const Workflow *workflow_named(Completion *c, const char *name)
{
    const Program *p = c->a->program;
    for (uint32_t i = 0; i < p->workflow_count; i++)
        if (strcmp(p->workflows[i].name->text, name) == 0)
            return &p->workflows[i];
    return NULL;
}

static const char *step_kind_detail(StepKind kind)
{
    switch (kind) {
    case STEP_TASK_WORKER: case STEP_TASK_BUILTIN: return "task step";
    case STEP_WORKFLOW: return "workflow step";
    case STEP_SLEEP: return "sleep step";
    case STEP_AWAIT: return "await step";
    default: return "compute step";
    }
}

/* The steps of `wf`; with `answering`, only those a script can answer (task and
 * workflow steps). */
static void test_step_items(Completion *c, const Workflow *wf, bool answering)
{
    for (uint32_t i = 0; wf && i < wf->step_count; i++) {
        const Step *st = &wf->steps[i];
        bool answers = st->kind == STEP_TASK_WORKER || st->kind == STEP_TASK_BUILTIN ||
                       st->kind == STEP_WORKFLOW;
        if (st->name && (answers || !answering))
            item(c, st->name->text, ITEM_VARIABLE, step_kind_detail(st->kind));
    }
}

/* The tasks a test may script: declared workers, workers steps use, built-in tasks;
 * each once (`seen`: the names offered, a name many steps use). */
static void test_task_items(Completion *c)
{
    const Program *p = c->a->program;
    NameMap seen;
    namemap_init(&seen, &c->arena, p->worker_count + 16);
    for (uint32_t i = 0; i < p->worker_count; i++) {
        const Name *name = p->workers[i].name;
        if (namemap_add(&seen, &c->arena, name->text, name->hash, i))
            quoted_items(c, name->text, ITEM_INTERFACE, "worker");
    }
    for (uint32_t i = 0; i < p->workflow_count; i++)
        for (uint32_t k = 0; k < p->workflows[i].step_count; k++) {
            const Step *st = &p->workflows[i].steps[k];
            const Name *name = st->target_name;
            if (st->kind == STEP_TASK_WORKER && name &&
                namemap_add(&seen, &c->arena, name->text, name->hash, 0))
                quoted_items(c, name->text, ITEM_INTERFACE, "worker (not declared)");
        }
    for (uint32_t i = 0; i < p->builtin_count; i++)
        quoted_items(c, p->builtins[i].name->text, ITEM_MODULE, "built-in task");
}

/* The signals some step awaits, each once. */
static void test_signal_items(Completion *c)
{
    const Program *p = c->a->program;
    NameMap seen;
    namemap_init(&seen, &c->arena, 16);
    for (uint32_t i = 0; i < p->workflow_count; i++)
        for (uint32_t k = 0; k < p->workflows[i].step_count; k++) {
            const Step *st = &p->workflows[i].steps[k];
            const Name *name = st->target_name;
            if (st->kind == STEP_AWAIT && name &&
                namemap_add(&seen, &c->arena, name->text, name->hash, 0))
                quoted_items(c, name->text, ITEM_VALUE,
                             arena_printf(&c->arena, "awaited by step `%s`", st->name->text));
        }
}

/* After the first word of a member of a test, its `child`, or its `expect`. */
static void test_items(Completion *c, const Frame *f, const Token *first, uint32_t n)
{
    Scan *s = c->scan;
    bool word = n == 1 && !s->in_string;
    if (f->kind == B_TEST && word && (token_is(s, first, "workflow") || token_is(s, first, "child")))
        workflow_items(c);
    else if (f->kind == B_TEST && word && token_is(s, first, "step"))
        test_step_items(c, tested_workflow(c), true);
    else if (f->kind == B_TEST && n == 1 && token_is(s, first, "task"))
        test_task_items(c);
    else if (f->kind == B_TEST && n == 1 && token_is(s, first, "signal"))
        test_signal_items(c);
    else if (f->kind == B_TEST_CHILD && word && token_is(s, first, "step"))
        test_step_items(c, workflow_named(c, f->name), true);
    else if (f->kind == B_TEST_EXPECT && word && token_is(s, first, "step"))
        test_step_items(c, tested_workflow(c), false);
}

/* ---- The context ------------------------------------------------------------------ */

static void complete_at(Completion *c)
{
    Scan *s = c->scan;
    if (s->in_comment)
        return;
    Frame *f = top(s);
    uint32_t n = f->token_count;
    const Token *t = f->tokens;
    Keyword first = n > 0 ? keyword_of_token(s, &t[0]) : KW_NONE;
    static const Keyword TOP[] = { KW_WORKFLOW, KW_WORKER, KW_TYPE };
    static const Keyword BODY[] = { KW_INPUT, KW_OUTPUT, KW_TIMEOUT, KW_STEP, KW_RETURN };
    static const Keyword WORKER_MEMBERS[] = { KW_INPUT, KW_OUTPUT };
    if (s->in_string && f->kind != B_CODES && first != KW_WORKER && f->kind != B_TEST)
        return;
    switch (f->kind) {
    case B_TEST:
    case B_TEST_CHILD:
    case B_TEST_EXPECT:
        if (n >= 1)
            test_items(c, f, &t[0], n);
        return;
    case B_TOP:
        if (n == 0)
            keyword_items(c, TOP, 3, 0);
        return;
    case B_WORKFLOW:
        if (n == 0)
            keyword_items(c, BODY, 5, f->seen & ~(1ull << KW_STEP));
        else if (first == KW_RETURN)
            expression_items(c);
        return;
    case B_WORKER:
        if (n == 0)
            keyword_items(c, WORKER_MEMBERS, 2, f->seen);
        return;
    case B_STEP:
    case B_COMPENSATE:
        if (n == 0)
            member_items(c, f);
        else if (n == 1 && first == KW_WORKER)
            worker_items(c);
        else if (first == KW_USING)
            builtin_items(c, n > 1 ? &t[1] : NULL);
        else if (n == 1 && first == KW_WORKFLOW && f->kind == B_STEP)
            workflow_items(c);
        else if (first == KW_WHEN || first == KW_IDEMPOTENCY_KEY || first == KW_SLEEP ||
                 first == KW_COMPUTE || (first == KW_FOR && n >= 3))
            expression_items(c);
        return;
    case B_RETRY:
        if (n == 0)
            setting_items(c, f);
        else if (n == 2 && t[1].kind == T_COLON &&
                 token_is(s, &t[0], RETRY_SETTING_NAMES[SET_BACKOFF]))
            for (uint32_t i = 0; i < 2; i++)
                item(c, BACKOFF_NAMES[i], ITEM_ENUM_MEMBER, "backoff");
        return;
    case B_CODES:
        error_code_items(c);
        return;
    case B_SCHEMA:
        if (n >= 2 && t[1].kind == T_COLON)
            type_items(c);
        return;
    case B_TYPE_LIST:
        type_items(c);
        return;
    case B_TYPE:
        if (n >= 2 && t[1].kind == T_COLON)
            type_items(c);
        return;
    case B_OBJECT:
        if (n == 0 && s->depth >= 2 && (s->frames[s->depth - 2].kind == B_STEP ||
                                        s->frames[s->depth - 2].kind == B_COMPENSATE))
            with_field_items(c);
        else if (n >= 2 && t[1].kind == T_COLON)
            expression_items(c);
        return;
    case B_LIST:
    case B_PAREN:
        expression_items(c);
        return;
    default:
        return;
    }
}

json_t *lsp_handle_completion(Server *s, json_t *params)
{
    json_t *codes = lsp_code_completion(s, params);
    if (codes)
        return codes;
    uint32_t file, offset;
    Analysis *a = lsp_analysis_at(s, params, &file, &offset);
    if (!a)
        return NULL;
    const SourceFile *src = source_file(&a->c.sources, file);
    Scan *text = xcalloc(1, sizeof *text);
    text->text = src->text;
    text->cursor = offset;
    scan(text);
    Completion c = { s, a, file, text, json_array(), { 0 } };
    arena_init(&c.arena);
    complete_at(&c);
    arena_free(&c.arena);
    free(text);
    return json_pack("{s:b, s:o}", "isIncomplete", 0, "items", c.items);
}
