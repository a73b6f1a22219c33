/* The checked program model: what check_files() produces and lowering consumes.
 *
 * Everything here is resolved: names point at their declarations (by index), defaults of
 * retry policies and timeouts are filled in, and every expression of a step carries its
 * static type (Expr.type) and, for names and calls, what it refers to (Expr.ref /
 * Expr.ref_index, see ExprRef). Plain structs with arrays and counts, all in the
 * compiler's arena. Lowering may use a Program only when the check reported no errors. */
#ifndef ORBIT_PROGRAM_H
#define ORBIT_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "no_index.h"

/* ---- Types ---------------------------------------------------------------------- */

typedef enum TypeKind {
    TYPE_ERROR,      /* the type of something already reported; never causes an error */
    TYPE_ANY,        /* `any`: switches checking off */
    TYPE_NULL,       /* the type of the literal `null` */
    TYPE_STRING,
    TYPE_INT,        /* 64-bit; accepted where a number is expected */
    TYPE_NUMBER,     /* double */
    TYPE_BOOL,
    TYPE_DURATION,   /* milliseconds */
    TYPE_LIST,       /* [elem] */
    TYPE_RECORD,     /* closed record: fields in declaration order */
    TYPE_OPTIONAL,   /* elem? : may be null, or absent when it is a record field */
} TypeKind;

typedef struct Type Type;

typedef struct Field {
    const Name *name;
    const Type *type;    /* an optional field has a TYPE_OPTIONAL type */
    bool optional;       /* written `T?`: the field may be absent (or null) */
    Span span;           /* where the field is declared (empty for built-in records) */
} Field;

/* 40 bytes: the kind and the field count share a word (one is made per object literal). */
struct Type {
    TypeKind kind;
    uint32_t field_count;
    const Type *elem;    /* TYPE_LIST, TYPE_OPTIONAL */
    Field *fields;       /* TYPE_RECORD */
    const uint32_t *field_slots;  /* TYPE_RECORD of more than TYPE_SMALL_RECORD fields: the
                                     fields by name (types.c), so that type_field stays
                                     cheap on a record of thousands; else NULL */
    const Name *name;    /* TYPE_RECORD declared with `type NAME`: its name, else NULL */
};

/* ---- What a name in an expression refers to (Expr.ref, Expr.ref_index) ---------- */

typedef enum ExprRef {
    REF_NONE = 0,     /* not a name, or not resolved (an error was reported) */
    REF_INPUT,        /* `input`: the workflow input */
    REF_STEP,         /* an earlier step's result; ref_index = the step's index */
    REF_FOR_VAR,      /* the current step's `for` variable (the current element) */
    REF_SELF,         /* inside `compensate`: the enclosing step's result; ref_index =
                         its index */
    REF_FUNCTION,     /* EXPR_CALL and its callee EXPR_NAME: ref_index = Program.functions */
} ExprRef;

/* ---- Declarations ----------------------------------------------------------------- */

typedef struct NamedType {
    const Name *name;
    Span span;
    const Type *type;    /* TYPE_RECORD with .name set */
} NamedType;

/* `worker "payments.charge" { input … output … }`. An absent part is `any`. */
typedef struct Worker {
    const Name *name;
    Span span;
    const Type *input;
    const Type *output;
} Worker;

/* A built-in task of the standard library (`using orbit.http.request`). */
typedef struct Builtin {
    const Name *name;           /* "orbit.http.request" */
    Span span;
    const Type *input;
    const Type *output;
    int64_t default_timeout_ms; /* used when the step gives no timeout; 0 = none */
} Builtin;

typedef enum Retryable { RETRYABLE_NO, RETRYABLE_YES, RETRYABLE_DEPENDS } Retryable;

/* A runtime error code of the standard library (TIMEOUT, QUEUE_TIMEOUT, …). */
typedef struct ErrorCode {
    const Name *name;
    Retryable retryable;
} ErrorCode;

/* A built-in function of expressions (len, str, lower, upper, contains, …). */
typedef struct Function {
    const Name *name;
    const Type *input;         /* its input contract: the parameters' names and types */
    const Type **params;       /* input's field types, in order */
    uint32_t param_count;
    const Type *result;
} Function;

/* ---- Policies ------------------------------------------------------------------ */

typedef enum Backoff { BACKOFF_FIXED, BACKOFF_EXPONENTIAL } Backoff;

/* The effective retry policy, defaults resolved. A step without `retry` has attempts 1.
 * The delay before attempt n (n >= 2) is initial_delay_ms (fixed) or
 * min(initial_delay_ms * 2^(n-2), max_delay_ms) (exponential). */
typedef struct RetryPolicy {
    uint32_t attempts;           /* 1..1000 */
    Backoff backoff;
    int64_t initial_delay_ms;    /* default 1000 */
    int64_t max_delay_ms;        /* default max(60000, initial_delay_ms) */
    String *non_retryable;       /* error codes, compared exactly; in source order */
    uint32_t non_retryable_count;
    bool given;                  /* a `retry` block was written */
    Span span;                   /* the `retry` block, if given */
} RetryPolicy;

/* ---- Steps and workflows ---------------------------------------------------------- */

typedef enum StepKind {
    STEP_TASK_WORKER,    /* worker "name": target_name = the worker's name,
                            target_index = Program.workers or NO_INDEX (undeclared
                            worker: contracts are `any`) */
    STEP_TASK_BUILTIN,   /* using orbit.http.request: target_index = Program.builtins */
    STEP_WORKFLOW,       /* workflow NAME: target_index = Program.workflows */
    STEP_SLEEP,          /* sleep EXPR: Step.sleep */
    STEP_AWAIT,          /* await "signal": target_name = the signal name */
    STEP_COMPUTE,        /* compute EXPR: Step.compute */
} StepKind;

/* A compensate block: a task (worker or built-in) that undoes its step. Inside its
 * expressions the enclosing step's name refers to the step's result (REF_SELF). */
typedef struct Compensation {
    Span span;
    StepKind kind;               /* STEP_TASK_WORKER or STEP_TASK_BUILTIN */
    uint32_t target_index;
    const Name *target_name;
    Expr *with;                  /* EXPR_OBJECT or any expression; NULL if absent */
    Expr *idempotency_key;       /* string; NULL if absent */
    RetryPolicy retry;
    int64_t timeout_ms;          /* effective; 0 = no limit */
    int64_t queue_timeout_ms;    /* 0 = no limit */
    uint32_t *deps;              /* earlier steps its expressions use, ascending */
    uint32_t dep_count;
} Compensation;

typedef struct Step {
    const Name *name;
    Span span;                   /* the whole `step NAME { … }` */
    Span name_span;
    uint32_t index;              /* position in its workflow */
    StepKind kind;
    uint32_t target_index;       /* see StepKind; NO_INDEX when not applicable */
    uint32_t dep_count;          /* of deps, below */
    const Name *target_name;     /* worker, built-in task, child workflow or signal name */

    /* Expressions, each annotated with types and refs; NULL when absent. `when` is
     * evaluated once, before any `for` iteration, and does not see the `for`
     * variable; `with`, `idempotency_key` and `compute` are evaluated per element. */
    Expr *with;
    Expr *when;
    const Name *for_var;         /* NULL when the step has no `for` */
    Span for_var_span;
    Expr *for_iterable;          /* a list */
    Expr *idempotency_key;
    Expr *sleep;                 /* duration */
    Expr *compute;

    RetryPolicy retry;           /* effective (attempts 1 for steps that cannot retry) */
    int64_t timeout_ms;          /* effective per attempt (await: the signal wait); 0 = none;
                                    30000 for orbit.http.request without timeout */
    int64_t queue_timeout_ms;    /* 0 = none */
    Compensation *compensate;    /* NULL when absent */

    uint32_t *deps;              /* earlier steps this step's expressions use, ascending */

    const Type *result;          /* the step's value for later steps: the task's output,
                                    child's result, compute value, signal payload (any);
                                    [T] for a `for` step; T? when the step has `when` */
    const Type *ran_result;      /* the result once the step has run: `result` without
                                    the `?` that `when` adds. Its compensate block sees
                                    this, since it runs only for a step that completed */
} Step;

/* ---- Worst cases (worst_path.c, docs/diagnostics.md "Worst case of a workflow") ---- */

/* Why a worst case has no bound. */
typedef enum Unbounded {
    UNBOUNDED_NONE,              /* bounded */
    UNBOUNDED_TASK_TIMEOUT,      /* a task step without `timeout` */
    UNBOUNDED_AWAIT_TIMEOUT,     /* an await step without `timeout` */
    UNBOUNDED_SLEEP_COMPUTED,    /* a sleep whose duration is computed at run time */
    UNBOUNDED_RECURSION,         /* a workflow step, without `timeout`, that starts a
                                    workflow already running (recursion) */
    UNBOUNDED_COMPENSATE_TIMEOUT,/* a compensate block without `timeout` */
} Unbounded;

/* A worst-case duration: `ms` (saturating at INT64_MAX) when `unbounded` is
 * UNBOUNDED_NONE; otherwise the reason, at step `step` of workflow `workflow`. */
typedef struct Worst {
    int64_t ms;
    Unbounded unbounded;
    const Name *workflow;
    const Name *step;
} Worst;

/* One step as the worst-case analysis sees it. A `for` step runs its units in
 * parallel, so its worst case is one unit's. */
typedef struct StepWorst {
    const Name *name;
    StepKind kind;
    uint32_t attempts;           /* the facts of its arithmetic (worst_step_text), */
    int64_t timeout_ms;          /* from the Step, since Workflow.steps may be gone */
    int64_t queue_timeout_ms;
    int64_t delays_ms;           /* the backoff delays of every retry */
    uint32_t child;              /* a workflow step's workflow (Program.workflows), else
                                    NO_INDEX */
    bool fan_out;                /* a `for` step */
    Worst own;                   /* the step, every attempt at its worst */
    Worst compensation;          /* its compensate block; 0 ms when it has none */
} StepWorst;

/* A workflow's worst case: its steps run one after another (docs/runtime.md), then a
 * failure compensates every step with a compensate block, one at a time. */
typedef struct WorkflowWorst {
    StepWorst *steps;            /* one per step, in order (kept when Workflow.steps is
                                    not: checker.h, check_only) */
    uint32_t step_count;
    Worst running;               /* the steps: the sum of their `own` */
    Worst compensations;         /* the sum of the compensate blocks */
    Worst in_flight;             /* the longest attempt of a task step: how long an
                                    attempt dispatched before the workflow timeout may
                                    still run after it */
    Worst total;                 /* min(running, timeout + in_flight) (running without
                                    a workflow timeout) + compensations */
    uint8_t state;               /* worst_path.c: unseen, in progress, done */
    bool retries_reported;       /* W0006 was reported on one of its steps */
} WorkflowWorst;

typedef struct Workflow {
    const Name *name;
    Span span;
    Span name_span;
    const Type *input;           /* record; `{}` when absent */
    const Type *output;          /* NULL when no `output` contract */
    int64_t timeout_ms;          /* the workflow timeout; 0 = none */
    Span timeout_span;           /* the `timeout` keyword of the workflow timeout */
    WorkflowWorst worst;         /* worst_path.c, once every workflow is checked */
    Step *steps;                 /* in the order written */
    uint32_t step_count;
    Expr *ret;                   /* `return` expression, NULL when absent */
    const Type *result;          /* output contract, else the return type, else null */
} Workflow;

typedef struct Program {
    Workflow *workflows;    uint32_t workflow_count;   /* user files, in source order */
    Worker *workers;        uint32_t worker_count;
    Builtin *builtins;      uint32_t builtin_count;    /* from the standard library */
    ErrorCode *error_codes; uint32_t error_code_count; /* from the standard library */
    Function *functions;    uint32_t function_count;   /* from the standard library */
    NamedType *types;       uint32_t type_count;
    const Member **tests;   uint32_t test_count;       /* `test "NAME" { … }` declarations
                                                        * (docs/testing.md), in source order */
} Program;

#endif
