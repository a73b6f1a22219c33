/* The virtual-time host of the engine core, the heart of orbit-run: a virtual clock and
 * a world of workers, built-in tasks and signals drive one execution of the core
 * (docs/engine.md, "The virtual-time host"). The world is the scenario's scripts, whose
 * history records are written as they come (sim_run), or the sampled workers of a
 * simulation model (simulate.c), which counts the records instead (sim_drive). */
#ifndef ORBIT_RUN_SIM_H
#define ORBIT_RUN_SIM_H

#include "engine.h"
#include "history.h"
#include "orbc.h"
#include "scenario.h"

typedef struct RunOptions {
    bool show_values;    /* add inputs, outputs and signal payloads to the history */
} RunOptions;

#include "timers.h"

/* How one queued attempt (or redelivery) is served. */
typedef struct SimServe {
    const Outcome *outcome;   /* NULL: the default outcome; must live until it is answered */
    const char *worker_id;
    int64_t pickup_ms;        /* from queuing to dispatch */
    bool no_worker;           /* no worker ever takes it */
} SimServe;

/* The world an execution runs in. */
typedef struct SimWorld {
    void *ctx;
    SimServe (*serve)(void *ctx, const EngineCommand *queued);   /* a QUEUE_ATTEMPT */
    /* The child-workflow steps whose children the world answers ([workflow][step], or
     * NULL: none), and the outcome of each start of one (an ENGINE_START_CHILD): NULL
     * for the default outcome; it must live until it is answered. */
    const uint8_t *const *host_children;
    const Outcome *(*serve_child)(void *ctx, const EngineChild *child);
    /* A history record; false: the world wants no more (the record is dropped and the
     * run stops where it is, unfinished: a scenario's max_events). */
    bool (*record)(void *ctx, const EngineRecord *record);
    const Signal *signals;    /* each arrives at its at_ms (a negative at_ms: never) */
    uint32_t signal_count;
    bool http_adapter;
    bool show_values;
} SimWorld;

/* What the host knows of one delivery of an attempt. */
typedef struct SimAttempt {
    const Outcome *outcome;
    const char *worker_id;
    uint32_t task;
} SimAttempt;

/* The host's growable buffers, kept from run to run by a caller that makes many. */
typedef struct SimBuffers {
    TimerQueue timers;
    SimAttempt *attempts;     /* by the engine's attempt id - 1 */
    size_t attempt_cap;
    uint32_t *unserved;       /* attempts queued where no worker runs, to tell the engine */
    size_t unserved_count, unserved_cap;
    SimAttempt *children;     /* the children the world answers, by the engine's child id - 1
                               * (`task`: the child workflow) */
    size_t child_cap;
} SimBuffers;

/* How a scenario's scripts serve a queued attempt (the step's script, else its task's;
 * the next scripted outcome, or NULL for the default one), and a child the scenario
 * answers: the scripted world of sim_run, for a world of its own that starts from a
 * scenario (`orbitc test --explore`, testing/explore.c). */
SimServe sim_serve_scenario(const OrbcModule *module, Scenario *scenario,
                            const EngineCommand *queued);
const Outcome *sim_serve_scenario_child(Scenario *scenario, const EngineChild *child);

/* Runs `workflow` with `input` (already checked against its contract) in `world` until
 * it finishes or the world refuses a record; *end_ms (if not NULL) is the virtual time of its last event. */
EngineResult sim_drive(const OrbcModule *module, uint32_t workflow, Value input,
                       const SimWorld *world, SimBuffers *buffers, Arena *arena, int64_t *end_ms);
void sim_buffers_free(SimBuffers *buffers);

/* Runs the scenario's workflow with `input` (already checked against its contract).
 * *stopped (if not NULL) tells whether the run was stopped at the scenario's max_events
 * before the workflow finished (the result is then not the workflow's). */
EngineResult sim_run(const OrbcModule *module, Scenario *scenario, Value input, History *history,
                     const RunOptions *options, Arena *arena, bool *stopped);

#endif
