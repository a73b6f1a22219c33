/* `orbit-run simulate`: the Monte Carlo host of the engine core. Each run samples the
 * world of a model (model.h) with its own generator, seeded by (seed, run index), drives
 * the engine through the virtual-time host (sim.c) and counts what its history records
 * say; the runs are shared out between threads that each reuse one arena, so the result
 * is the same for any number of threads (docs/runtime.md, "Simulation"). The module is
 * loaded once and only read. */
#ifndef ORBIT_RUN_SIMULATE_H
#define ORBIT_RUN_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "orbc.h"

enum { SIMULATE_MAX_RUNS = 10000000, SIMULATE_MAX_JOBS = 256 };

/* What happened to one step (its label without `for` indices: "pack/pick"). */
typedef struct StepStats {
    const char *name;
    uint64_t first;          /* the first run and record that named it: the table's order */
    uint64_t runs;           /* runs that scheduled an attempt of it */
    uint64_t attempts;       /* StepScheduled (redeliveries are not attempts) */
    uint64_t gave_up;        /* runs in which it failed permanently (StepFailed) */
    uint64_t timed_out;      /* runs in which one of its limits passed: an attempt failed with
                              * TIMEOUT or QUEUE_TIMEOUT, or the step with TIMEOUT or
                              * SIGNAL_TIMEOUT */
    int64_t backoff_ms;      /* the sum of RetryScheduled delays */
} StepStats;

typedef struct ErrorCount {
    const char *code;
    uint64_t runs;
} ErrorCount;

typedef struct SimulateResult {
    const char *workflow;
    int64_t timeout_ms;      /* the workflow timeout, 0: none */
    uint64_t runs, seed;
    uint64_t outcomes[4];    /* runs by EngineStatus: completed, failed, timed out, blocked */
    int64_t *durations;      /* [runs]: the time of each run's last event */
    uint8_t *status;         /* [runs]: each run's EngineStatus */
    StepStats *steps;        /* in the order they first ran */
    uint32_t step_count;
    ErrorCount *errors;      /* final errors of failed runs, the most frequent first */
    uint32_t error_count;
    Arena arena;             /* the names */
} SimulateResult;

/* Runs the model `runs` times on `jobs` threads. */
void simulate(const OrbcModule *module, const Model *model, uint64_t runs, uint64_t seed,
              unsigned jobs, SimulateResult *out);
void simulate_result_free(SimulateResult *r);

typedef enum SimulateFormat { SIMULATE_TEXT, SIMULATE_JSON, SIMULATE_SVG } SimulateFormat;

/* Writes the report (simulate_report.c). Returns false when writing failed. */
bool simulate_report(const SimulateResult *r, SimulateFormat format, FILE *out);

#endif
