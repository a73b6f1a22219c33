/* The engine core: the execution semantics of docs/runtime.md as a deterministic state
 * machine that any host drives (docs/engine.md). One Engine runs one workflow execution
 * with all its children. The host hands it events one at a time, each with the host's
 * time; the engine answers with commands. It has no clock, does no I/O and keeps no
 * global state: the same events in the same order always give the same commands.
 *
 *     Engine *e = engine_new(module, workflow, input, &options, arena);
 *     engine_handle(e, &(EngineEvent){.kind = ENGINE_START});
 *     for each command of engine_commands(e, &n): carry it out
 *     … then the next event (a timer that fired, a pickup, an answer, …)
 *
 * Commands are valid until the next call of engine_handle. */
#ifndef ORBIT_ENGINE_H
#define ORBIT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orbc.h"
#include "value.h"

typedef struct Engine Engine;

typedef struct EngineOptions {
    bool show_values;    /* history events carry inputs, outputs and signal payloads */
    bool http_adapter;   /* the built-in task orbit.http.request may run */
    /* [workflow][step] (either level NULL: none): nonzero on a child-workflow step whose
     * children the host answers itself (a scripted child, docs/runtime.md): each start of
     * such a child is an ENGINE_START_CHILD command instead of an execution, and its
     * answer an ENGINE_CHILD_ANSWERED event. */
    const uint8_t *const *host_children;
} EngineOptions;

/* ---- events: what the host tells the engine ---- */

typedef enum EngineEventKind {
    ENGINE_START,          /* the execution starts (time 0): WorkflowStarted */
    ENGINE_TIMER_FIRED,    /* `timer`: a timer the engine started is due */
    ENGINE_PICKED_UP,      /* `attempt`, `delivery`, `worker_id`: a worker took the attempt */
    ENGINE_ANSWERED,       /* `attempt`, `delivery`, `answer`: its worker answered */
    ENGINE_WORKER_LOST,    /* `attempt`, `delivery`: its worker was lost (heartbeat) */
    ENGINE_SIGNAL,         /* `signal`, `signal_name`, `payload`: a signal arrived */
    ENGINE_NO_WORKER,      /* `attempt`: no worker will ever take it (explains a block) */
    ENGINE_IDLE,           /* nothing else can ever happen (virtual time only) */
    ENGINE_CHILD_ANSWERED, /* `child`, `answer` (OUTPUT or FAIL): a child the host answers ended */
} EngineEventKind;

typedef enum EngineAnswerKind {
    ENGINE_ANSWER_OUTPUT,          /* `output` */
    ENGINE_ANSWER_FAIL,            /* `code`, `message`, `retryable` */
    ENGINE_ANSWER_HTTP_RESPONSE,   /* `status`, `output` ({status, headers, body}) */
    ENGINE_ANSWER_NETWORK_ERROR,   /* `message` */
} EngineAnswerKind;

typedef struct EngineAnswer {
    uint8_t kind;            /* EngineAnswerKind */
    Value output;
    const char *code;        /* NULL is taken as "" */
    const char *message;     /* NULL is taken as "" */
    bool retryable;
    int64_t status;
} EngineAnswer;

typedef struct EngineEvent {
    uint8_t kind;            /* EngineEventKind */
    int64_t time_ms;         /* the host's time, from the start; never decreases */
    uint32_t timer;          /* TIMER_FIRED */
    uint32_t attempt;        /* PICKED_UP, ANSWERED, WORKER_LOST, NO_WORKER */
    uint32_t delivery;       /* of the attempt, as QUEUE_ATTEMPT gave it */
    const char *worker_id;   /* PICKED_UP */
    EngineAnswer answer;     /* ANSWERED */
    uint32_t signal;         /* SIGNAL: the module's string index of its name */
    const char *signal_name; /* SIGNAL: its text (NULL: the module's string) */
    Value payload;           /* SIGNAL */
    uint32_t child;          /* CHILD_ANSWERED: the child, as START_CHILD gave it */
} EngineEvent;

/* ---- commands: what the engine asks of the host ---- */

typedef enum EngineCommandKind {
    ENGINE_RECORD,          /* `record`: append an event to the history */
    ENGINE_START_TIMER,     /* `timer`, `at_ms`, `limit`: send TIMER_FIRED at `at_ms` */
    ENGINE_QUEUE_ATTEMPT,   /* `attempt`, `delivery`, `task`, `queue_timer`: offer it to a worker */
    ENGINE_CANCEL_ATTEMPT,  /* `attempt`: it is no longer wanted (tell its worker) */
    ENGINE_FINISHED,        /* `result`: the execution ended; no more events */
    ENGINE_START_CHILD,     /* `child`: a child the host answers started (host_children) */
} EngineCommandKind;

typedef enum EngineFieldKind {
    ENGINE_FIELD_STR,       /* key=text */
    ENGINE_FIELD_INT,       /* key=number */
    ENGINE_FIELD_VALUE,     /* key=JSON of value */
    ENGINE_FIELD_ERROR,     /* error=text (the code) and message, always last */
    ENGINE_FIELD_NOTE,      /* a free-text explanation (`message`) */
} EngineFieldKind;

typedef struct EngineField {
    uint8_t kind;           /* EngineFieldKind */
    const char *key;
    const char *text;       /* STR; ERROR: the code; NOTE: the text */
    const char *message;    /* ERROR */
    int64_t number;         /* INT */
    Value value;            /* VALUE */
    bool shown;             /* there only because of `show_values` (a host that keeps both
                               forms of a record writes its plain line without it) */
} EngineField;

/* One history event (docs/runtime.md, "History events"). */
typedef struct EngineRecord {
    int64_t time_ms;
    const char *event;      /* "StepScheduled", … */
    const EngineField *fields;
    uint32_t field_count;
} EngineRecord;

/* What a QUEUE_ATTEMPT offers: enough for a host to route it to a worker. */
typedef struct EngineTask {
    uint32_t task;          /* the module's task index */
    uint32_t workflow;      /* the workflow and step it belongs to */
    uint32_t step;
    bool compensation;      /* the step's compensate block */
    uint32_t number;        /* the attempt's number (1, 2, …) */
    const char *label;      /* the history's `step=` */
    Value input;
    const char *idempotency_key;   /* or NULL */
} EngineTask;

/* What a START_CHILD starts: a child workflow that the host answers instead of the core
 * running it (EngineOptions.host_children). */
typedef struct EngineChild {
    uint32_t id;            /* the host's name for it in CHILD_ANSWERED: 1, 2, … */
    uint32_t workflow;      /* the module's index of the child workflow */
    uint32_t parent_workflow, parent_step;   /* the workflow step that starts it */
    const char *label;      /* the step's `step=` ("pack", "pack[1]", "ship/pack[0]") */
    Value input;            /* checked against the child's input contract */
} EngineChild;

typedef enum EngineStatus {
    ENGINE_COMPLETED,
    ENGINE_FAILED,
    ENGINE_TIMED_OUT,
    ENGINE_BLOCKED,         /* nothing more can happen, and the workflow is not done */
} EngineStatus;

/* The status as a history and a host name it: COMPLETED, FAILED, TIMED_OUT or BLOCKED. */
const char *engine_status_name(EngineStatus status);

typedef struct EngineResult {
    EngineStatus status;
    Value output;           /* COMPLETED: the workflow's result */
    const char *error;      /* FAILED: the error code, message and failing step (or NULL) */
    const char *message;
    const char *step;
} EngineResult;

typedef struct EngineCommand {
    uint8_t kind;           /* EngineCommandKind; the fields of the other kinds overlap */
    union {
        EngineRecord record;                /* RECORD */
        struct {                            /* START_TIMER */
            uint32_t timer;
            bool limit;     /* a timeout or deadline: due after everything else at its ms */
            int64_t at_ms;
        };
        struct {                            /* QUEUE_ATTEMPT; CANCEL_ATTEMPT: `attempt` */
            uint32_t attempt;
            uint32_t delivery;  /* 1, then 2, … for each redelivery */
            uint32_t queue_timer;   /* the timer of its queue timeout, started next (0: none) */
            EngineTask task;
        };
        EngineResult result;                /* FINISHED */
        EngineChild child;                  /* START_CHILD */
    };
} EngineCommand;

/* A new execution of workflow `workflow` with `input` (already checked against its
 * contract), or NULL when the module has no such workflow. Values and messages live in
 * `arena`, which must outlive the engine. */
Engine *engine_new(const OrbcModule *module, uint32_t workflow, Value input,
                   const EngineOptions *options, Arena *arena);
void engine_free(Engine *e);

/* Handles one event. Returns false when the event changed nothing because it is stale
 * (an old delivery, an attempt already over, a timer no longer needed). */
bool engine_handle(Engine *e, const EngineEvent *event);

/* The commands of the last event, in the order the host must carry them out. */
const EngineCommand *engine_commands(const Engine *e, size_t *count);

/* The time `delay` ms after `now` (a negative delay is 0): the clock saturates at
 * INT64_MAX (docs/runtime.md, "The end of the clock"). Hosts use it for their own delays. */
int64_t engine_time_after(int64_t now, int64_t delay);

#endif
