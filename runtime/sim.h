/* The virtual-time host of the engine core, the heart of orbit-run: a virtual clock and
 * the scenario's scripted workers, built-in tasks and signals drive one execution of the
 * core (docs/engine.md, "The virtual-time host"), whose history records are written as
 * they come. */
#ifndef ORBIT_RUN_SIM_H
#define ORBIT_RUN_SIM_H

#include "engine.h"
#include "history.h"
#include "orbc.h"
#include "scenario.h"

typedef struct RunOptions {
    bool show_values;    /* add inputs, outputs and signal payloads to the history */
} RunOptions;

/* Runs the scenario's workflow with `input` (already checked against its contract). */
EngineResult sim_run(const OrbcModule *module, Scenario *scenario, Value input, History *history,
                     const RunOptions *options, Arena *arena);

#endif
