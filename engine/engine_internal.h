/* Internal structures of the engine core, shared by engine.c (executions, steps,
 * compensations, events), task.c (the attempts of task steps) and outbox.c (the commands
 * and history records an event produces). */
#ifndef ORBIT_ENGINE_INTERNAL_H
#define ORBIT_ENGINE_INTERNAL_H

#include "engine.h"
#include "vm.h"

enum { MAX_CHILD_DEPTH = 64, MAX_EXECUTIONS = 100000 };

typedef struct Exec Exec;
typedef struct Unit Unit;

/* What a timer the engine started is for; its target is in the comment. */
typedef enum TimerKind {
    EV_ATTEMPT_TIMEOUT, EV_QUEUE_TIMEOUT,                                  /* Attempt */
    EV_RETRY, EV_SLEEP, EV_AWAIT_TIMEOUT, EV_CHILD_TIMEOUT,                /* Unit */
    EV_DEADLINE,                                                            /* Exec */
} TimerKind;

typedef enum UnitState {
    U_NEW, U_ACTIVE, U_RETRY_WAIT, U_DONE, U_FAILED, U_CANCELLED,
} UnitState;

typedef enum AttemptState {
    A_QUEUED, A_DISPATCHED, A_TIMED_OUT, A_DONE, A_CANCELLED,
} AttemptState;

typedef enum ExecState { X_RUNNING, X_ABORTING, X_COMPENSATING, X_DONE } ExecState;
typedef enum ExecEnd { END_COMPLETED, END_FAILED, END_TIMED_OUT, END_CANCELLED } ExecEnd;

/* One attempt of a task; a redelivery keeps the attempt and raises `delivery`. */
typedef struct Attempt {
    Unit *unit;
    uint32_t id;              /* the host's name for it: 1, 2, … */
    uint32_t number;
    uint8_t state;            /* AttemptState */
    uint32_t delivery;        /* events and timers of older deliveries are stale */
} Attempt;

/* A timer the host runs for the engine (its id is its position + 1). */
typedef struct EngineTimer {
    uint8_t kind;             /* TimerKind */
    uint32_t gen;             /* compared with the target's generation when it fires */
    void *target;
} EngineTimer;

/* What runs for one step, one element of a `for` step, or one compensate block. */
struct Unit {
    Exec *exec;
    const OrbcStep *step;
    uint32_t step_index;
    int64_t element;          /* -1 without `for` */
    uint8_t state;            /* UnitState */
    bool compensation;
    const char *label;        /* `step=` of its events: "charge", "pack[1]", "a/b" */
    const char *owner_label;  /* compensation: the compensated step's label */
    uint32_t gen;             /* raised whenever pending unit timers become stale */
    Value item;
    Value result;
    /* tasks */
    uint32_t task;
    const OrbcPolicy *policy;
    int64_t timeout_ms, queue_timeout_ms;
    Value input;
    const char *key;          /* idempotency key or NULL */
    bool no_worker;           /* the host said no worker will take it (ENGINE_NO_WORKER) */
    uint32_t attempt;
    Attempt *current;
    /* child workflows */
    Exec *child;
    uint32_t host_child;      /* the id of the child the host answers (0: none) */
};

/* One execution of a workflow: the top one, or a child. */
struct Exec {
    Engine *engine;
    Exec *parent;
    Unit *parent_unit;
    uint32_t depth;
    uint32_t wf_index;
    const OrbcWorkflow *wf;
    const char *prefix;       /* "" or "pack[0]/" */
    Value input;
    Value *results;           /* per step */
    uint32_t pc;              /* the next step to start */
    /* the step that is running */
    const OrbcStep *active;
    uint32_t active_index;
    Unit **units;
    uint32_t unit_count, pending, done_count;
    /* ending */
    uint8_t state;            /* ExecState */
    uint8_t end;              /* ExecEnd */
    const char *err_code, *err_message, *err_step;
    Value output;
    uint32_t inflight;        /* dispatched attempts of its steps */
    uint32_t *completed;      /* completed steps with a compensate block, in order */
    uint32_t completed_count, completed_cap;
    uint32_t compensate_next;
    Unit *compensating;
    bool in_ready;
};

typedef struct SignalBox {
    Value *payloads;
    size_t count, head, cap;
    Unit **waiters;
    size_t wcount, whead, wcap;
} SignalBox;

struct Engine {
    const OrbcModule *module;
    Arena *arena;
    Vm *vm;
    EngineOptions options;
    int64_t now;              /* the time of the event being handled */
    uint32_t workflow;        /* the top execution's workflow and input */
    Value input;
    bool finished;
    Exec **ready;
    size_t ready_head, ready_count, ready_cap;
    Exec **execs;
    size_t exec_count, exec_cap;
    Exec *top;
    SignalBox **boxes;        /* by signal name string index */
    EngineTimer *timers;      /* every timer started, by id - 1 */
    size_t timer_count, timer_cap;
    Attempt **attempts;       /* every attempt, by id - 1 */
    size_t attempt_count, attempt_cap;
    Unit **host_children;     /* the unit of every child the host answers, by id - 1 */
    size_t host_child_count, host_child_cap;
    /* the outbox: the commands of the event being handled */
    EngineCommand *commands;
    uint32_t *first_field;    /* per command: its record's first field in `fields` */
    size_t command_count, command_cap;
    EngineField *fields;
    size_t field_count, field_cap;
};

/* engine.c */
void *engine_grow(void *items, size_t *cap, size_t size);
void engine_ready_push(Engine *e, Exec *x);
const char *engine_string(const Engine *e, uint32_t index);
bool engine_eval_code(Unit *u, uint32_t code, const char *what, Value *out, const char **err);
/* "`what`: FILE:LINE:COL: must give a T, found K" for a result of the wrong type. */
const char *engine_wrong_result(Engine *e, uint32_t code, const char *what, const char *expected,
                         Value found);
void engine_unit_completed(Unit *u, Value result, uint32_t attempt);
void engine_unit_failed(Unit *u, const char *code, const char *message);
void engine_unit_cancelled(Unit *u, uint32_t attempt);
bool engine_exec_aborting(const Exec *x);

/* task.c */
void task_start(Unit *u);
void task_timer(Engine *e, const EngineTimer *t);
bool task_event(Engine *e, const EngineEvent *event);
void task_retry(Unit *u);
bool task_cancel(Unit *u, bool keep_dispatched);
const char *task_waiting(const Unit *u);

/* outbox.c: history records (one command each, its fields in order) */
void outbox_event(Engine *e, const char *event);
void outbox_str(Engine *e, const char *key, const char *value);
void outbox_int(Engine *e, const char *key, int64_t value);
void outbox_value(Engine *e, const char *key, Value value);
/* A value recorded only under `show_values` (EngineField.shown). */
void outbox_shown_value(Engine *e, const char *key, Value value);
void outbox_error(Engine *e, const char *code, const char *message);
void outbox_note(Engine *e, const char *message);
/* the other commands */
uint32_t outbox_timer(Engine *e, int64_t delay, bool limit, uint8_t kind, void *target, uint32_t gen);
size_t outbox_queue(Engine *e, const Attempt *a);   /* its index in the outbox */
void outbox_cancel(Engine *e, const Attempt *a);
void outbox_finished(Engine *e, const EngineResult *result);
void outbox_start_child(Engine *e, const Unit *u, uint32_t workflow, Value input);
void outbox_clear(Engine *e);
void outbox_seal(Engine *e);
void outbox_free(Engine *e);

#endif
