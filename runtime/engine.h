/* The engine: runs one workflow of a loaded module in deterministic virtual time against
 * a scenario, writing every event to a history. Semantics: docs/runtime.md. */
#ifndef ORBIT_RUN_ENGINE_H
#define ORBIT_RUN_ENGINE_H

#include "history.h"
#include "orbc.h"
#include "scenario.h"

typedef enum RunStatus {
    RUN_COMPLETED,
    RUN_FAILED,
    RUN_TIMED_OUT,
    RUN_BLOCKED,     /* nothing more can happen in virtual time, and the workflow is not done */
} RunStatus;

typedef struct RunOptions {
    bool show_values;    /* add inputs, outputs and signal payloads to the history */
} RunOptions;

typedef struct RunResult {
    RunStatus status;
    Value output;            /* COMPLETED: the workflow's result */
    const char *error;       /* FAILED: the error code, message and failing step (or NULL) */
    const char *message;
    const char *step;
} RunResult;

/* Runs the scenario's workflow with `input` (already checked against its contract). */
RunResult engine_run(const OrbcModule *module, Scenario *scenario, Value input, History *history,
                     const RunOptions *options, Arena *arena);

#endif
