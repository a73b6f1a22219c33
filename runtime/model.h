/* Simulation models: a JSON file that describes how the world a workflow runs in
 * *behaves*, where a scenario scripts what it does (docs/runtime.md, "Simulation
 * model"): per worker or built-in task, the distributions of its pickup delay and answer
 * latency, the rates of its failures and of a lost worker; per signal, the probability
 * that it arrives and when; the workflow input. `orbit-run simulate` samples it run after
 * run (simulate.c). Parsed with jansson and checked against the module with the checks
 * that scenarios use (json_read.h): every bad field is an error with its JSON path. */
#ifndef ORBIT_RUN_MODEL_H
#define ORBIT_RUN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "orbc.h"
#include "rng.h"
#include "scenario.h"
#include "value.h"

typedef enum DistKind {
    DIST_FIXED,        /* 120 */
    DIST_UNIFORM,      /* {"min": 50, "max": 200}: every whole ms equally likely */
    DIST_LOGNORMAL,    /* {"p50": 100, "p99": 900} */
} DistKind;

/* A distribution of milliseconds. */
typedef struct Dist {
    uint8_t kind;      /* DistKind */
    int64_t fixed;     /* FIXED */
    int64_t min, max;  /* UNIFORM */
    double mu, sigma;  /* LOGNORMAL: of the logarithm of the time */
} Dist;

typedef struct ModelFailure {
    double rate;       /* the probability per attempt */
    Outcome answer;    /* OUT_FAIL; for orbit.http.request OUT_HTTP_RESPONSE or OUT_NETWORK_ERROR */
} ModelFailure;

/* How one worker or built-in task behaves. */
typedef struct ModelWorker {
    Dist latency;              /* from dispatch to the answer (or to the loss of the worker) */
    Dist pickup;               /* from queuing to dispatch (0 for built-in tasks) */
    ModelFailure *failures;
    uint32_t failure_count;
    double lost_rate;          /* the worker is lost and the attempt redelivered */
    bool no_worker;            /* no worker ever picks the task up */
    Outcome success;           /* the answer of an attempt that neither fails nor is lost */
} ModelWorker;

typedef struct ModelSignal {
    Signal signal;             /* its name, string and payload (at_ms is sampled) */
    double probability;        /* that it arrives at all */
    Dist after;                /* when, from the start */
} ModelSignal;

typedef struct Model {
    uint32_t workflow;
    Value input;               /* checked against the workflow's input contract */
    bool http_adapter;
    ModelWorker *workers;      /* [task_count]: every task, those the model does not name
                                * answer as orbit-run's default outcome (10 ms, success) */
    ModelSignal *signals;
    uint32_t signal_count;
} Model;

/* Parses and checks a model against the module. `workflow` is the --workflow argument or
 * NULL. On failure returns false with a message: "model.json:3:14: …" for bad JSON,
 * "model.json: workers["pay"].failures[0].rate: …" for a bad field. */
bool model_load(const char *path, const char *bytes, size_t len, const OrbcModule *module,
                const char *workflow, Arena *arena, Model *out, char *err, size_t errlen);

/* One sample of `d` (whole milliseconds, at least 0). */
int64_t model_sample(const Dist *d, Rng *rng);

#endif
