/* One run, as orbit-run makes it: a scenario (JSON text) loaded against a module, the
 * workflow input checked against its contract, the engine in virtual time, and the
 * history with its closing line. orbit-run (main.c) runs it on the files it was given;
 * the playground (playground/api.c) on texts in memory. */
#ifndef ORBIT_RUN_SCENARIO_RUN_H
#define ORBIT_RUN_SCENARIO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "history.h"
#include "orbc.h"

typedef struct RunRequest {
    const char *scenario_name;   /* in messages ("scenario.json:3:14: …") */
    const char *scenario;        /* the scenario's JSON; NULL: none (`{}`) */
    size_t scenario_len;
    const char *workflow;        /* --workflow, or NULL */
    const char *input_name;      /* --input: its name and JSON; NULL: the scenario's */
    const char *input;
    size_t input_len;
    HistoryFormat format;
    bool show_values;
} RunRequest;

/* Runs the workflow and writes its history to `out`. Returns orbit-run's exit status:
 * 0 the workflow completed, 1 it failed, timed out or is blocked forever, or the run was
 * stopped at the scenario's max_events (`err` says so then; else it is empty), 2 the
 * scenario or the input is malformed (nothing is written then, and `err` says why,
 * without the program's name). */
int run_scenario(const OrbcModule *module, const RunRequest *request, FILE *out, char *err,
                 size_t errlen);

#endif
