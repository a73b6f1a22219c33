/* Shared state and helpers of the checker passes (check_*.c). Not used outside the
 * checker: the rest of the compiler sees checker.h and program.h only. */
#ifndef ORBIT_CHECK_INTERNAL_H
#define ORBIT_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "attributes.h"
#include "checker.h"
#include "compiler.h"
#include "placement.h"
#include "policy.h"
#include "program.h"
#include "suggest.h"
#include "types.h"


/* A function that only reports a problem (or handles a rare shape) is COLD
 * (attributes.h): on the checker's many small calls, the registers a common path saves
 * cost more than the work. */

/* A member seen as the clause it stands for: `retry: {…}` (an attribute written with a
 * colon) is viewed as the clause `retry {…}`. */
typedef struct Clause {
    Keyword keyword;
    Member *member;
    Expr *value;
    Block *body;         /* retry / compensate / with: the block */
} Clause;

/* What an expression may refer to (the names in scope: diagnostics/explain/E0205.md). */
typedef struct Scope {
    Workflow *workflow;
    NameMap *steps;            /* every step of the workflow -> index */
    uint32_t step_index;       /* the current step; names at or after it are "later" */
    bool in_step;              /* false in `return` */
    const Name *for_var;       /* visible `for` variable, or NULL */
    const Type *for_type;
    const Name *hidden_for_var;  /* the step's `for` variable where it is not visible */
    bool self_visible;         /* inside compensate: the step's own name */
    uint32_t *deps;            /* collected dependencies (step indices) */
    uint32_t dep_count;
} Scope;

enum { DOTTED_CACHE_PARTS = 4 };   /* see Checker.dotted_parts */

/* The did-you-mean index of one record type's fields (check_types.c, field_error). */
typedef struct FieldIndex {
    const Type *type;      /* NULL: a free slot */
    SuggestIndex *index;
} FieldIndex;

typedef struct Checker {
    Compiler *c;
    const CheckOptions *options;
    DiagSink *diags;
    Arena *arena;
    Interner *names;
    Program *program;
    Types types;
    /* The first file of the program whose parse stopped early (ast.h, `fatal`: E0009,
     * E0100, E0010, E0012), else 0: it may declare names nobody saw, so a did-you-mean
     * for a name of the program is only a guess (check_add_name_suggestion). */
    uint32_t partly_read;

    NameMap workflows, workers, builtins, named_types, functions, error_codes;
    NameMap keyword_names;     /* n_keywords -> keyword */
    uint64_t keyword_hashes[4];  /* bit (hash % 256) of each keyword name: a name whose
                                    bit is clear is no keyword (check_steps.c) */
    Member **workflow_decls;   /* parallel to program->workflows */
    Member **worker_decls;
    Member **type_decls;

    /* place_allows as bits: allowed[place] has 1 << kw for each keyword allowed there */
    uint32_t allowed[PLACE_COUNT];
    uint32_t member_keywords;  /* keyword_is_member as bits */
    uint64_t code_lengths;     /* bit min(len, 63) of each runtime error code's length */

    /* well-known names */
    const Name *n_input, *n_workflow, *n_builtin, *n_error, *n_function, *n_test, *n_retryable,
        *n_yes, *n_no, *n_depends, *n_fixed, *n_exponential;
    const Name *n_keywords[KW_COUNT];  /* each keyword as a name; [KW_NONE] is NULL */
    const Name *n_settings[RETRY_SETTING_COUNT];     /* RETRY_SETTING_NAMES as names */
    const Name *n_builtin_types[BUILTIN_TYPE_COUNT]; /* BUILTIN_TYPE_NAMES as names */
    const Type *builtin_types[BUILTIN_TYPE_COUNT];   /* and the types they name */

    /* From `steps` to the end: the state of the passes over the workflows, each thread's
     * own when a pass is spread over threads (check.c, check_each_workflow); all zero to
     * begin with, and freed by check_state_free. */

    /* The current workflow's tables, reused from workflow to workflow (malloc'd, except
     * the map's table): its steps by name, their declarations, and for dependencies the
     * stamp of the last scope that used each step (stamps only grow, so the marks are
     * never cleared) and the steps a scope used. */
    NameMap steps;
    Member **step_decls;
    Step *step_buffer;         /* check_only (checker.h): the steps of the current
                                  workflow, reused; step_capacity entries */
    uint32_t *dep_mark;
    uint32_t dep_stamp;
    uint32_t *dep_buffer;
    uint32_t step_capacity;    /* entries of step_decls, dep_mark, dep_buffer and
                                  step_buffer */

    /* collect_members' list of the clauses of one block, reused (malloc'd) */
    struct Clause *clauses;
    uint32_t clause_capacity;

    /* check_dotted_name's last name, by its parts (last first; dotted_count 0: none) */
    const Name *dotted_parts[DOTTED_CACHE_PARTS];
    uint32_t dotted_count;
    const Name *dotted;

    /* Did-you-mean indexes (base/suggest.h), each built in the arena when the first
     * unknown name of its list is reported, so that N unknown names cost N short
     * searches, not N * the list: the fields of each record type, by the type's address
     * (open addressing, a power of two of slots, at most half full), and the names of
     * the workflows. */
    FieldIndex *field_indexes;
    uint32_t field_index_count, field_index_capacity;
    SuggestIndex *workflow_index;
} Checker;

/* A description of a place for messages ("field `amount`", "the input of worker
 * `payments.charge`"). Almost every check passes, so the text is formatted only when a
 * diagnostic needs it (what_text); building one costs nothing and allocates nothing. A
 * What may point at an enclosing one (`inner`) that lives on the caller's stack. */
typedef enum WhatKind {
    WHAT_FIXED,          /* text */
    WHAT_WORKER,         /* worker `name` */
    WHAT_BUILTIN,        /* `name` (a built-in task) */
    WHAT_WORKFLOW,       /* workflow `name` */
    WHAT_RECORD,         /* `name` (a named record type) */
    WHAT_FIELD,          /* field `name` */
    WHAT_ARGUMENT,       /* argument NUMBER of `name` */
    WHAT_OUTPUT_OF,      /* the output of workflow `name` */
    WHAT_INPUT_OF,       /* the input of INNER */
    WHAT_ELEMENT_OF,     /* an element of INNER */
} WhatKind;

typedef struct What {
    WhatKind kind;
    uint32_t number;
    const char *text;            /* WHAT_FIXED: the text; otherwise the name */
    const struct What *inner;
} What;

static inline What what_fixed(const char *text)
{
    return (What){ WHAT_FIXED, 0, text, NULL };
}

static inline What what_named(WhatKind kind, const Name *name)
{
    return (What){ kind, 0, name->text, NULL };
}

static inline What what_of(WhatKind kind, const What *inner)
{
    return (What){ kind, 0, NULL, inner };
}

/* names_get (compiler/syntax/intern.h) for the checker's maps, which are all of interned
 * names: namemap_get_interned compares the keys' pointers only. */
static inline bool check_lookup(const NameMap *map, const Name *name, uint32_t *value)
{
    return name && namemap_get_interned(map, name->text, name->hash, value);
}

/* Adds `name` -> `value` to `map` and returns true, or, when the name is there already,
 * leaves the map as it is, sets *first to its value and returns false: one probe for a
 * new name. */
static inline bool check_register(Checker *ck, NameMap *map, const Name *name, uint32_t value,
                                  uint32_t *first)
{
    if (namemap_add(map, ck->arena, name->text, name->hash, value))
        return true;
    check_lookup(map, name, first);
    return false;
}

/* The description as text (allocated in the arena). */
const char *check_what_text(Checker *ck, const What *what);

/* check.c */
const Name *check_intern_name(Checker *ck, const char *text);
/* The attribute's name (`attempts` in `attempts: 3`), also for keywords used as names.
 * Inline: the checker asks it of every field. */
static inline const Name *check_member_name(Checker *ck, const Member *m)
{
    if (m->kind == MEMBER_CLAUSE && m->key)
        return m->key;
    if (m->name)
        return m->name;
    if (m->keyword != KW_NONE)
        return ck->n_keywords[m->keyword];   /* interned once by init_names */
    return check_intern_name(ck, "");
}
/* Did-you-mean over `count` candidate strings: reports nothing, returns the suggestion or
 * NULL. A peer system's name (check_peer_alias: `retries` for `retry`) gives the name it
 * stands for when that is a candidate; otherwise base/suggest.h's suggest_name decides. */
const char *check_suggest(Checker *ck, const char *word, const char *const *candidates,
                    uint32_t count);
/* The same over the candidates of `index` (suggest_index_new). */
const char *check_suggest_indexed(Checker *ck, const char *word, const SuggestIndex *index);
/* Adds "did you mean `X`?" as a machine-applicable fix replacing `span`. */
void check_add_suggestion(Checker *ck, Diagnostic *d, Span span, const char *replacement);
/* The same for a name the program declares (a workflow, type, function, field, step):
 * while part of the program was not read (Checker.partly_read) the fix is only
 * maybe-incorrect, with a note saying why, so that neither `orbitc fix` nor an editor
 * applies it unasked. */
void check_add_name_suggestion(Checker *ck, Diagnostic *d, Span span, const char *replacement);
/* The peer-system alias of a setting or member name (`retries` -> `retry`), or NULL. */
const char *check_peer_alias(const char *word);
/* A dotted name (`orbit.http.request`) written as names and fields, as a Name; NULL when
 * the expression is not of that shape. */
const Name *check_dotted_name(Checker *ck, const Expr *e);
/* "5s", "1m30s", "250ms": a duration for messages, in liborbc's form, but "0s" for no
 * time (where the runtime and the disassembler write "0ms"). */
const char *check_duration_text(Checker *ck, int64_t ms);

/* check_decls.c: top-level declarations, named types, contracts, the standard library */
void check_declarations(Checker *ck);

/* check_types.c: type syntax and expressions */
const Type *type_from_syntax(Checker *ck, Expr *e);
const Type *check_record_from_block(Checker *ck, Block *block);
const Type *check_expr(Checker *ck, Scope *scope, Expr *e);
/* Checks `e` (already typed by check_expr) against `expected`; `what` names the place
 * for messages ("field `amount` of `with`"). Object and list literals are checked
 * element by element. */
void check_expect_type_slow(Checker *ck, Expr *e, const Type *expected, const What *what);
/* Inline: most values checked are of the very type expected (the simple types and
 * lists and optionals of them are shared, types.h), or of its optional, or an int where a
 * number is expected; an object or list literal is checked element by element. */
static inline void check_expect_type(Checker *ck, Expr *e, const Type *expected,
                                     const What *what)
{
    if (e && e->kind != EXPR_OBJECT && e->kind != EXPR_LIST && e->type &&
        (e->type == expected ||
         (expected->kind == TYPE_OPTIONAL && expected->elem == e->type) ||
         (expected->kind == TYPE_NUMBER && e->type->kind == TYPE_INT)))
        return;
    check_expect_type_slow(ck, e, expected, what);
}
/* `with` / `return`: checks the expressions of `value` (which may be NULL) and, when
 * `contract` is not NULL, the value against it: missing, unknown and mistyped fields.
 * Without a value, `where` is the span for a missing-field error. */
void check_contract(Checker *ck, Scope *scope, Expr *value, const Type *contract, Span where,
                    const What *target);

/* check_steps.c: workflow bodies, steps, compensate blocks */
void check_workflow_signature(Checker *ck, uint32_t index);
void check_workflow_body(Checker *ck, uint32_t index);

/* check_policy.c: retry blocks, timeouts (E0410) */
typedef struct RetrySyntax {
    Member *setting[RETRY_SETTING_COUNT];   /* the member that set each, or NULL */
} RetrySyntax;
void check_retry(Checker *ck, Clause *clause, RetryPolicy *policy, RetrySyntax *syntax);
/* A `timeout` / `queue_timeout` value: its milliseconds, or 0 after reporting. */
int64_t check_duration_setting(Checker *ck, Clause *clause, const char *what);
/* E0410 for a repeated retry / timeout / queue_timeout. */
void check_report_repeated(Checker *ck, Member *first, Member *again, const char *what);

/* check_lints.c: warnings */
void lint_retry(Checker *ck, const RetryPolicy *policy, const RetrySyntax *syntax);
void lint_idempotency(Checker *ck, const RetryPolicy *policy, bool has_key, Span step_name,
                      bool is_compensate);
/* W0006; true when it was reported. */
bool lint_retry_budget(Checker *ck, const Workflow *wf, const Step *step,
                       const RetryPolicy *policy, int64_t timeout_ms, Span where);

/* check_tests.c: the test declarations (Program.tests, docs/testing.md), once every
 * workflow is checked */
void check_tests(Checker *ck);

/* worst_path.c: the worst case of each workflow (worst_path.h), and W0010 */
/* Keeps what the analysis needs of the steps of `wf`, once its body is checked. */
void worst_collect(Checker *ck, Workflow *wf);
/* Works out every workflow's worst case, once all are collected, and reports W0010. */
void worst_resolve(Checker *ck);

#endif
