/* The step graph of a checked program, for `orbitc graph` (docs/cli.md, "orbitc graph"):
 * each workflow a cluster, each step a node (its kind, target, retry policy, timeouts and
 * worst case), each compensate block a node of its own, and as edges the data
 * dependencies, the compensations, the child workflows a step starts, and the critical
 * path of the worst case (worst_path.h). Built here, written as DOT, Mermaid or JSON by
 * the command line. Everything is in the arena given to step_graph_build. */
#ifndef ORBIT_STEP_GRAPH_H
#define ORBIT_STEP_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "program.h"

typedef enum GraphEdgeKind {
    EDGE_DATA,          /* `to` reads the result of `from` */
    EDGE_CRITICAL,      /* `to` runs after `from`, both on the critical path */
    EDGE_ORDER,         /* `to` runs right after `from` (the other steps: layout only) */
    EDGE_COMPENSATES,   /* `to` is the compensate block of step `from` */
    EDGE_STARTS,        /* step `from` starts workflow `to` (a GraphCluster index) */
} GraphEdgeKind;

typedef struct GraphNode {
    uint32_t cluster;           /* its workflow: StepGraph.clusters */
    const Step *step;           /* its step; a compensation node: the step it undoes */
    const StepWorst *worst;
    bool compensation;
    bool critical;              /* the step adds to its workflow's worst case */
    const char *id;             /* "w0_s3", "w0_c3": safe in DOT and Mermaid */
    const char *kind;           /* the keyword of its action: worker, using, workflow,
                                   sleep, await or compute */
    const Name *target;         /* the worker, built-in task, child workflow or signal;
                                   NULL for sleep and compute */
    const RetryPolicy *retry;   /* NULL: one attempt */
    int64_t timeout_ms;         /* 0: none */
    int64_t queue_timeout_ms;   /* 0: none */
    const char *delays;         /* "500ms, 1s, 2s, 4s" (policy_write_delays; retry only) */
    const char *worst_text;     /* "10m57s500ms" or "unbounded: REASON" */
} GraphNode;

typedef struct GraphEdge {
    uint32_t from, to;          /* nodes; EDGE_STARTS: `to` is a cluster */
    GraphEdgeKind kind;
} GraphEdge;

typedef struct GraphCluster {
    const Workflow *workflow;
    uint32_t index;             /* in Program.workflows */
    const char *id;             /* "w0" */
    uint32_t first_node, node_count;
    const char *steps_text;     /* the steps' worst case, worst_text */
    const char *total_text;     /* the workflow's own worst case */
} GraphCluster;

typedef struct StepGraph {
    GraphCluster *clusters;
    uint32_t cluster_count;
    GraphNode *nodes;
    uint32_t node_count;
    GraphEdge *edges;
    uint32_t edge_count;
} StepGraph;

/* The graph of workflow `root` and every workflow it starts, directly or not, in
 * program order; every workflow when `root` is NO_INDEX. `p` must be checked without
 * errors and with its steps kept (checker.h: check_only false). */
void step_graph_build(Arena *arena, const Program *p, uint32_t root, StepGraph *out);

#endif
