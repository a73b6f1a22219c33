/* The step graph of a checked program (step_graph.h): clusters, nodes and edges, in
 * program order, so that the same program always gives the same graph. */
#include "step_graph.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "no_index.h"
#include "policy.h"
#include "textbuf.h"
#include "worst_path.h"

/* The keyword of each kind's action. */
static const Keyword ACTIONS[] = {
    [STEP_TASK_WORKER] = KW_WORKER, [STEP_TASK_BUILTIN] = KW_USING,
    [STEP_WORKFLOW] = KW_WORKFLOW, [STEP_SLEEP] = KW_SLEEP, [STEP_AWAIT] = KW_AWAIT,
    [STEP_COMPUTE] = KW_COMPUTE,
};

/* ---- Which workflows ------------------------------------------------------------------ */

/* in[w] = true for `root` and every workflow it starts, directly or not (all when root is
 * NO_INDEX). A worklist: each workflow is visited once. */
static void mark_workflows(const Program *p, uint32_t root, bool *in)
{
    if (root == NO_INDEX) {
        for (uint32_t w = 0; w < p->workflow_count; w++)
            in[w] = true;
        return;
    }
    uint32_t *todo = xmalloc(p->workflow_count * sizeof *todo);
    uint32_t count = 0;
    in[root] = true;
    todo[count++] = root;
    while (count > 0) {
        const Workflow *wf = &p->workflows[todo[--count]];
        for (uint32_t i = 0; i < wf->step_count; i++) {
            uint32_t c = wf->steps[i].kind == STEP_WORKFLOW ? wf->steps[i].target_index
                                                            : NO_INDEX;
            if (c != NO_INDEX && !in[c]) {
                in[c] = true;
                todo[count++] = c;
            }
        }
    }
    free(todo);
}

/* ---- Nodes ------------------------------------------------------------------------------ */

/* worst_text in the arena. */
static const char *worst_string(Arena *arena, const Worst *w, const Name *from)
{
    TextBuffer text = { 0 };
    worst_text(w, from, &text);
    const char *copy = arena_strndup(arena, text.data, text.len);
    text_free(&text);
    return copy;
}

static void step_node(Arena *arena, const Workflow *wf, const GraphCluster *cl, uint32_t i,
                      GraphNode *n)
{
    const Step *s = &wf->steps[i];
    const StepWorst *sw = &wf->worst.steps[i];
    *n = (GraphNode){
        .step = s,
        .worst = sw,
        .critical = worst_step_counts(sw),
        .id = arena_printf(arena, "%s_s%u", cl->id, i),
        .kind = keyword_text(ACTIONS[s->kind]),
        .target = s->target_name,
        .retry = s->retry.attempts > 1 ? &s->retry : NULL,
        .timeout_ms = s->kind == STEP_SLEEP || s->kind == STEP_COMPUTE ? 0 : s->timeout_ms,
        .queue_timeout_ms = s->queue_timeout_ms,
        .worst_text = worst_string(arena, &sw->own, wf->name),
    };
    if (s->kind == STEP_SLEEP || s->kind == STEP_COMPUTE)
        n->target = NULL;
}

static void compensation_node(Arena *arena, const Workflow *wf, const GraphCluster *cl,
                              uint32_t i, GraphNode *n)
{
    const Step *s = &wf->steps[i];
    const Compensation *c = s->compensate;
    *n = (GraphNode){
        .step = s,
        .worst = &wf->worst.steps[i],
        .compensation = true,
        .id = arena_printf(arena, "%s_c%u", cl->id, i),
        .kind = keyword_text(ACTIONS[c->kind]),
        .target = c->target_name,
        .retry = c->retry.attempts > 1 ? &c->retry : NULL,
        .timeout_ms = c->timeout_ms,
        .queue_timeout_ms = c->queue_timeout_ms,
        .worst_text = worst_string(arena, &wf->worst.steps[i].compensation, wf->name),
    };
}

static void set_delays(Arena *arena, GraphNode *n)
{
    if (!n->retry)
        return;
    TextBuffer list = { 0 };
    policy_write_delays(&list, n->retry);
    n->delays = arena_printf(arena, "%s", list.data);
    text_free(&list);
}

/* ---- Edges ------------------------------------------------------------------------------ */

static void add_edge(StepGraph *g, uint32_t from, uint32_t to, GraphEdgeKind kind)
{
    g->edges[g->edge_count++] = (GraphEdge){ from, to, kind };
}

/* The edges of one workflow; step_node_of[i] is the node of its step i, comp_node_of[i]
 * that of its compensate block (NO_INDEX: none). */
static void workflow_edges(StepGraph *g, const Workflow *wf, const uint32_t *step_node_of,
                           const uint32_t *comp_node_of, const uint32_t *cluster_of)
{
    uint32_t last_critical = NO_INDEX;
    for (uint32_t i = 0; i < wf->step_count; i++) {
        const Step *s = &wf->steps[i];
        uint32_t node = step_node_of[i];
        for (uint32_t d = 0; d < s->dep_count; d++)
            add_edge(g, step_node_of[s->deps[d]], node, EDGE_DATA);
        if (g->nodes[node].critical) {
            if (last_critical != NO_INDEX)
                add_edge(g, last_critical, node, EDGE_CRITICAL);
            last_critical = node;
        }
        bool critical_next = i + 1 < wf->step_count && g->nodes[node].critical &&
                             g->nodes[step_node_of[i + 1]].critical;
        if (i + 1 < wf->step_count && !critical_next)
            add_edge(g, node, step_node_of[i + 1], EDGE_ORDER);
        if (s->kind == STEP_WORKFLOW && s->target_index != NO_INDEX)
            add_edge(g, node, cluster_of[s->target_index], EDGE_STARTS);
        if (comp_node_of[i] == NO_INDEX)
            continue;
        add_edge(g, node, comp_node_of[i], EDGE_COMPENSATES);
        const Compensation *c = s->compensate;
        for (uint32_t d = 0; d < c->dep_count; d++)
            if (c->deps[d] != i)
                add_edge(g, step_node_of[c->deps[d]], comp_node_of[i], EDGE_DATA);
    }
}

/* Room for the edges of workflow `wf`: each kind at most once per step, besides the
 * dependencies. */
static uint32_t edge_room(const Workflow *wf)
{
    uint32_t room = 0;
    for (uint32_t i = 0; i < wf->step_count; i++) {
        const Step *s = &wf->steps[i];
        room += s->dep_count + 3 + (s->compensate ? 1 + s->compensate->dep_count : 0);
    }
    return room;
}

/* ---- The graph -------------------------------------------------------------------------- */

static void build_cluster(Arena *arena, StepGraph *g, const Workflow *wf, uint32_t index)
{
    GraphCluster *cl = &g->clusters[g->cluster_count];
    *cl = (GraphCluster){
        .workflow = wf,
        .index = index,
        .id = arena_printf(arena, "w%u", g->cluster_count),
        .first_node = g->node_count,
        .steps_text = worst_string(arena, &wf->worst.running, wf->name),
        .total_text = worst_string(arena, &wf->worst.total, wf->name),
    };
    for (uint32_t i = 0; i < wf->step_count; i++) {
        GraphNode *n = &g->nodes[g->node_count++];
        step_node(arena, wf, cl, i, n);
        n->cluster = g->cluster_count;
        set_delays(arena, n);
        if (!wf->steps[i].compensate)
            continue;
        n = &g->nodes[g->node_count++];
        compensation_node(arena, wf, cl, i, n);
        n->cluster = g->cluster_count;
        set_delays(arena, n);
    }
    cl->node_count = g->node_count - cl->first_node;
    g->cluster_count++;
}

void step_graph_build(Arena *arena, const Program *p, uint32_t root, StepGraph *out)
{
    uint32_t n = p->workflow_count;
    bool *in = xcalloc(n ? n : 1, sizeof *in);
    uint32_t *cluster_of = xmalloc((n ? n : 1) * sizeof *cluster_of);
    mark_workflows(p, root, in);
    uint32_t clusters = 0, nodes = 0, edges = 0, most_steps = 1;
    for (uint32_t w = 0; w < n; w++) {
        cluster_of[w] = in[w] ? clusters++ : NO_INDEX;
        if (!in[w])
            continue;
        const Workflow *wf = &p->workflows[w];
        for (uint32_t i = 0; i < wf->step_count; i++)
            nodes += 1 + (wf->steps[i].compensate != NULL);
        edges += edge_room(wf);
        most_steps = wf->step_count > most_steps ? wf->step_count : most_steps;
    }
    StepGraph *g = out;
    *g = (StepGraph){ 0 };
    g->clusters = arena_alloc(arena, (clusters ? clusters : 1) * sizeof *g->clusters);
    g->nodes = arena_alloc(arena, (nodes ? nodes : 1) * sizeof *g->nodes);
    g->edges = arena_alloc(arena, (edges ? edges : 1) * sizeof *g->edges);
    uint32_t *step_node_of = xmalloc(most_steps * sizeof *step_node_of);
    uint32_t *comp_node_of = xmalloc(most_steps * sizeof *comp_node_of);
    for (uint32_t w = 0; w < n; w++) {
        if (!in[w])
            continue;
        const Workflow *wf = &p->workflows[w];
        build_cluster(arena, g, wf, w);
        const GraphCluster *cl = &g->clusters[g->cluster_count - 1];
        for (uint32_t i = 0, node = cl->first_node; i < wf->step_count; i++) {
            step_node_of[i] = node++;
            comp_node_of[i] = wf->steps[i].compensate ? node++ : NO_INDEX;
        }
        workflow_edges(g, wf, step_node_of, comp_node_of, cluster_of);
    }
    free(step_node_of);
    free(comp_node_of);
    free(cluster_of);
    free(in);
}
