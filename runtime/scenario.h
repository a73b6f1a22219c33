/* Scenarios: a JSON file that scripts the world a workflow runs in (docs/runtime.md):
 * the workflow input, how each worker or built-in task answers each attempt, how long
 * until a worker picks a task up, whether the HTTP adapter is enabled, and the signals
 * that arrive. Parsed with jansson and checked against the module: a scenario that names
 * a worker, step or signal the program does not have is an error. */
#ifndef ORBIT_RUN_SCENARIO_H
#define ORBIT_RUN_SCENARIO_H

#include "orbc.h"
#include "value.h"

typedef enum OutcomeKind {
    OUT_SUCCEED,         /* {"succeed": OUTPUT} */
    OUT_FAIL,            /* {"fail": {"code", "message", "retryable"}} */
    OUT_NEVER,           /* {"never_answers": true} */
    OUT_LOST,            /* {"lost_after_ms": N}: the worker is lost, the task redelivered */
    OUT_HTTP_RESPONSE,   /* {"status": N, "body": …, "headers": …} (orbit.http.request) */
    OUT_NETWORK_ERROR,   /* {"network_error": "…"} (orbit.http.request) */
} OutcomeKind;

typedef struct Outcome {
    uint8_t kind;           /* OutcomeKind */
    int64_t after_ms;       /* from dispatch to the answer (LOST: to the loss) */
    int64_t pickup_ms;      /* -1: the script's pickup delay */
    Value output;           /* SUCCEED; HTTP_RESPONSE: {status, headers, body} */
    const char *code;       /* FAIL */
    const char *message;    /* FAIL; NETWORK_ERROR: the error text */
    bool retryable;         /* FAIL */
    int64_t status;         /* HTTP_RESPONSE */
    uint32_t times;         /* "times": how many deliveries it answers in a row (1 or more) */
} Outcome;

/* The script of a worker, a built-in task, a step or a compensate block; or of a
 * child-workflow step, whose outcomes (succeed, fail, never_answers; after_ms from the
 * start, times) replace its children. */
typedef struct Script {
    Outcome *outcomes;
    uint32_t count;
    uint32_t next;          /* the next outcome to hand out */
    uint32_t used;          /* how many times outcomes[next] was handed out already */
    bool has_outcomes;      /* "attempts" was given */
    const char *worker_id;  /* NULL: not given */
    int64_t pickup_ms;      /* -1: not given */
    int8_t no_worker;       /* -1: not given, else 0 or 1 */
    struct Script *compensate;   /* a step's "compensate" entry, or NULL */
} Script;

typedef struct Signal {
    const char *name;
    uint32_t name_string;   /* the module's string index of the name */
    int64_t at_ms;
    Value payload;
} Signal;

typedef struct Scenario {
    uint32_t workflow;          /* index of the workflow to run */
    Value input;                /* {} when not given */
    bool http_adapter;          /* default true */
    Script **task_scripts;      /* [task_count], NULL where not given */
    Script ***step_scripts;     /* [workflow_count] -> [step_count] or NULL */
    uint8_t **host_children;    /* [workflow_count] -> [step_count] or NULL: 1 on a
                                 * child-workflow step with a script, whose children the
                                 * script replaces (EngineOptions.host_children) */
    Signal *signals;            /* in file order */
    uint32_t signal_count;
    uint32_t max_events;        /* "max_events": the run stops after this many history
                                 * events (0: not given, no limit) */
} Scenario;

/* Parses and checks a scenario. `workflow` is the --workflow argument or NULL (then the
 * scenario's "workflow", else the module's only workflow). On failure returns false with
 * a message ("scenario.json:3:14: …" or "scenario.json: workers: unknown worker …"). */
bool scenario_load(const char *path, const char *bytes, size_t len, const OrbcModule *module,
                   const char *workflow, Arena *arena, Scenario *out, char *err, size_t errlen);

/* Parses a JSON document (an --input file) into a value. */
bool scenario_load_value(const char *path, const char *bytes, size_t len, Arena *arena, Value *out,
                     char *err, size_t errlen);

/* The next scripted outcome (an outcome with "times": N is handed out N times in a row),
 * or NULL when the list is used up. */
const Outcome *script_next(Script *script);

#endif
