/* What the names of a checked program mean: every place a declared thing is written
 * (its declaration and each use) as an Occurrence of a Symbol. Hover, definition,
 * references, rename, document highlights and completion are all questions about
 * occurrences, answered by one walk over the syntax trees of the program, which the
 * checker has annotated (program.h: Expr.type, Expr.ref). */
#ifndef ORBIT_LSP_QUERY_H
#define ORBIT_LSP_QUERY_H

#include "policy.h"
#include "server.h"

typedef enum SymbolKind {
    SYM_NONE,
    SYM_WORKFLOW,      /* index: Program.workflows */
    SYM_STEP,          /* workflow, index: its step */
    SYM_FOR_VAR,       /* workflow, index: the step whose `for` declares it */
    SYM_INPUT,         /* workflow: `input` in its expressions */
    SYM_WORKER,        /* index: Program.workers, or NO_INDEX (undeclared; name) */
    SYM_BUILTIN,       /* index: Program.builtins */
    SYM_TYPE,          /* index: Program.types */
    SYM_FIELD,         /* field (of the record `record`) */
    SYM_FUNCTION,      /* index: Program.functions */
    SYM_ERROR_CODE,    /* index: Program.error_codes */
    SYM_SETTING,       /* index: a RetrySetting (a key of a retry block) */
    SYM_KEYWORD,       /* index: a Keyword (`timeout`, `queue_timeout`, `retry`, …) */
    SYM_SIGNAL,        /* name: a signal a test sends (`signal "NAME" { … }`); declared by
                          the first step that awaits it */
} SymbolKind;

typedef struct Symbol {
    SymbolKind kind;
    uint32_t workflow;
    uint32_t index;
    const Field *field;
    const Type *record;
    const Name *name;
} Symbol;

/* Where an occurrence is: the workflow and step (or compensate block) around it. */
typedef struct Context {
    uint32_t workflow;           /* NO_INDEX outside workflows */
    uint32_t step;               /* NO_INDEX outside steps */
    bool in_compensate;
} Context;

typedef struct Occurrence {
    Span span;                   /* the name as written */
    Symbol symbol;
    bool declaration;
    const Expr *expr;            /* the expression it is, if any (its type) */
    Context context;
} Occurrence;

typedef bool (*OccurrenceVisitor)(void *context, const Occurrence *o);

/* Calls `visit` for every occurrence in file `file` of the analysis, in source order
 * (an enclosing one before those inside it); stops when it returns false. */
void lsp_query_walk_file(Analysis *a, uint32_t file, OccurrenceVisitor visit, void *context);

/* The innermost occurrence whose span holds `offset` (its end included). */
bool lsp_query_at(Analysis *a, uint32_t file, uint32_t offset, Occurrence *out);

/* The occurrence at a request's textDocument and position, if there is one. *a is the
 * analysis, or NULL after lsp_request_error (then the request fails). */
bool lsp_query_request(Server *s, const json_t *params, Analysis **a, uint32_t *file,
                       Occurrence *out);

/* Whether two symbols are the same declared thing. */
bool lsp_symbol_same(const Symbol *x, const Symbol *y);

/* Where the symbol is declared (the name), or false when it has no place in a file
 * (a built-in type, an undeclared worker). */
bool lsp_symbol_declaration(Analysis *a, const Symbol *symbol, Span *out);

/* The comment after a standard library declaration, on its line ("// length of a
 * string or list"): *text, *len without the `//` and the blanks after it. */
bool lsp_stdlib_comment(Analysis *a, const Symbol *symbol, const char **text, uint32_t *len);

/* The text of the symbol's name as written (for symbols that have one). */
const char *lsp_symbol_name(Analysis *a, const Symbol *symbol);

/* The declaration of a workflow, worker or type: the top-level member at `span`. */
const Member *lsp_query_declaration_member(Analysis *a, Span span);

/* A step of a workflow by its index, NULL when out of range. */
const Step *lsp_query_step(Analysis *a, uint32_t workflow, uint32_t step);

/* The `await` value of the first step of the program that awaits `signal` (its
 * workflow and step in *workflow, *step), or NULL when no step does. */
const Expr *lsp_query_await(Analysis *a, const Name *signal, uint32_t *workflow,
                            uint32_t *step);

/* The retry block written among a step's (or compensate block's) members, `retry { … }`
 * (or `retry: { … }`, reported but read as the clause), or NULL. */
const Block *lsp_query_retry_block(const Block *body);

/* The block of a step's `compensate { … }`, or NULL. */
const Block *lsp_query_compensate_block(const Block *body);

/* Whether a retry block writes `setting` . */
bool lsp_query_setting_written(const Block *retry, RetrySetting setting);

/* The named type called `name`, or NO_INDEX. */
uint32_t lsp_query_type_named(Analysis *a, const Name *name);

#endif
