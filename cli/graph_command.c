/* `orbitc graph [--workflow NAME] [--format dot|mermaid|json] PATH...` (docs/cli.md,
 * "orbitc graph"): checks the program, then writes its step graph (compiler/check/
 * step_graph.h) as Graphviz DOT, a Mermaid flowchart or JSON (docs/graph.schema.json).
 * Identifiers are generated (`w0_s3`); names and strings appear only in labels, escaped
 * for each language. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "json_text.h"
#include "memory.h"
#include "no_index.h"
#include "policy.h"
#include "step_graph.h"
#include "suggest.h"
#include "textbuf.h"
#include "worst_path.h"

enum { LABEL_LINES = 6 };

/* ---- Labels -------------------------------------------------------------------------- */

/* The lines of a node's label, unescaped: its name, what it runs, its retries, its
 * timeouts, its worst case. */
typedef struct Label {
    const char *lines[LABEL_LINES];
    uint32_t count;
} Label;

static void label_add(Label *l, const char *line)
{
    if (line && l->count < LABEL_LINES)
        l->lines[l->count++] = line;
}

static const char *what_it_runs(Arena *a, const GraphNode *n)
{
    const char *fan = n->step->for_var && !n->compensation
        ? arena_printf(a, ", for each `%s` at once", n->step->for_var->text) : "";
    const char *when = n->step->when && !n->compensation ? ", when its condition holds" : "";
    char pause[32];
    if (!n->compensation && n->step->kind == STEP_SLEEP && !n->worst->own.unbounded)
        return arena_printf(a, "sleep %s%s", policy_duration_text(n->worst->own.ms, pause,
                                                                  sizeof pause), when);
    if (!n->target)
        return arena_printf(a, "%s%s%s", n->kind, fan, when);
    StepKind kind = n->compensation ? n->step->compensate->kind : n->step->kind;
    bool quoted = kind == STEP_TASK_WORKER || kind == STEP_AWAIT;   /* written as strings */
    return arena_printf(a, quoted ? "%s \"%s\"%s%s" : "%s %s%s%s", n->kind, n->target->text,
                        fan, when);
}

static const char *timeouts_text(Arena *a, const GraphNode *n)
{
    char t[32], q[32];
    if (n->timeout_ms && n->queue_timeout_ms)
        return arena_printf(a, "timeout %s, queue_timeout %s",
                            policy_duration_text(n->timeout_ms, t, sizeof t),
                            policy_duration_text(n->queue_timeout_ms, q, sizeof q));
    if (n->timeout_ms)
        return arena_printf(a, "timeout %s", policy_duration_text(n->timeout_ms, t, sizeof t));
    if (n->queue_timeout_ms)
        return arena_printf(a, "queue_timeout %s",
                            policy_duration_text(n->queue_timeout_ms, q, sizeof q));
    return NULL;
}

static Label node_label(Arena *a, const GraphNode *n)
{
    Label l = { { 0 }, 0 };
    label_add(&l, n->compensation ? arena_printf(a, "%s.compensate", n->step->name->text)
                                  : n->step->name->text);
    label_add(&l, what_it_runs(a, n));
    if (n->retry)
        label_add(&l, arena_printf(a, "%u attempts, %s: %s", n->retry->attempts,
                                   BACKOFF_NAMES[n->retry->backoff], n->delays));
    label_add(&l, timeouts_text(a, n));
    label_add(&l, arena_printf(a, "worst case %s", n->worst_text));
    return l;
}

/* "workflow checkout, timeout 1d", the worst case of its steps, and the workflow's own
 * (cut by its timeout, with the compensations of a failure). */
static Label cluster_title(Arena *a, const GraphCluster *cl)
{
    char t[32];
    const Workflow *wf = cl->workflow;
    Label l = { { 0 }, 0 };
    label_add(&l, wf->timeout_ms
              ? arena_printf(a, "workflow %s, timeout %s", wf->name->text,
                             policy_duration_text(wf->timeout_ms, t, sizeof t))
              : arena_printf(a, "workflow %s", wf->name->text));
    label_add(&l, arena_printf(a, "steps at worst: %s", cl->steps_text));
    label_add(&l, arena_printf(a, "with compensations: %s", cl->total_text));
    return l;
}

/* ---- DOT ------------------------------------------------------------------------------ */

/* `text` inside a DOT double-quoted string: `"` and `\` escaped (a backslash would start
 * an escape such as \N or \l), control characters as spaces. */
static void dot_escape(TextBuffer *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            text_printf(out, "\\%c", *p);
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            text_append(out, " ", 1);
        else
            text_append(out, p, 1);
    }
}

static void dot_label(TextBuffer *out, const Label *l)
{
    text_append_str(out, "\"");
    for (uint32_t i = 0; i < l->count; i++) {
        if (i)
            text_append_str(out, "\\n");
        dot_escape(out, l->lines[i]);
    }
    text_append_str(out, "\"");
}

static const char *dot_shape(const GraphNode *n)
{
    if (n->compensation)
        return "shape=box, style=\"rounded,dashed\"";
    switch (n->step->kind) {
    case STEP_WORKFLOW: return "shape=box3d";
    case STEP_AWAIT: return "shape=hexagon";
    case STEP_SLEEP: return "shape=ellipse";
    case STEP_COMPUTE: return "shape=parallelogram";
    default: return "shape=box, style=rounded";
    }
}

static void dot_cluster(Arena *a, TextBuffer *out, const StepGraph *g, const GraphCluster *cl)
{
    Label title = cluster_title(a, cl);
    text_printf(out, "  subgraph cluster_%s {\n    label=", cl->id);
    dot_label(out, &title);
    text_append_str(out, ";\n");
    if (cl->node_count == 0)
        text_printf(out, "    %s_empty [label=\"no steps\", shape=plaintext];\n", cl->id);
    for (uint32_t i = cl->first_node; i < cl->first_node + cl->node_count; i++) {
        const GraphNode *n = &g->nodes[i];
        Label l = node_label(a, n);
        text_printf(out, "    %s [%s%s, label=", n->id, dot_shape(n),
                    n->critical ? ", color=\"#c0392b\", penwidth=2" : "");
        dot_label(out, &l);
        text_append_str(out, "];\n");
    }
    text_append_str(out, "  }\n");
}

/* The node an edge to cluster `c` points at: its first, or its placeholder. */
static const char *cluster_anchor(Arena *a, const StepGraph *g, const GraphCluster *c)
{
    return c->node_count ? g->nodes[c->first_node].id : arena_printf(a, "%s_empty", c->id);
}

static void dot_edge(Arena *a, TextBuffer *out, const StepGraph *g, const GraphEdge *e)
{
    const GraphNode *from = &g->nodes[e->from];
    if (e->kind == EDGE_STARTS) {
        const GraphCluster *c = &g->clusters[e->to];
        text_printf(out, "  %s -> %s [style=bold, label=\"starts\"", from->id,
                    cluster_anchor(a, g, c));
        if (from->cluster != e->to)   /* a workflow that starts itself: no lhead */
            text_printf(out, ", lhead=cluster_%s", c->id);
        text_append_str(out, "];\n");
        return;
    }
    static const char *const STYLES[] = {
        [EDGE_DATA] = "color=gray40",
        [EDGE_CRITICAL] = "color=\"#c0392b\", penwidth=2.5",
        [EDGE_ORDER] = "style=invis",
        [EDGE_COMPENSATES] = "style=dashed, label=\"on failure\"",
    };
    text_printf(out, "  %s -> %s [%s];\n", from->id, g->nodes[e->to].id, STYLES[e->kind]);
}

static void write_dot(Arena *a, TextBuffer *out, const StepGraph *g)
{
    text_append_str(out, "digraph orbit {\n"
                         "  compound=true;\n"
                         "  rankdir=TB;\n"
                         "  graph [fontname=\"Helvetica\"];\n"
                         "  node [fontname=\"Helvetica\", fontsize=11];\n"
                         "  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (uint32_t i = 0; i < g->cluster_count; i++)
        dot_cluster(a, out, g, &g->clusters[i]);
    for (uint32_t i = 0; i < g->edge_count; i++)
        dot_edge(a, out, g, &g->edges[i]);
    text_append_str(out, "}\n");
}

/* ---- Mermaid ----------------------------------------------------------------------------- */

/* `text` inside a Mermaid double-quoted label: what Mermaid would read as markup (quotes,
 * entities, HTML, Markdown's backtick) as entity codes, control characters as spaces. */
static void mermaid_escape(TextBuffer *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '"': text_append_str(out, "#quot;"); break;
        case '#': text_append_str(out, "#35;"); break;
        case '&': text_append_str(out, "#amp;"); break;
        case '<': text_append_str(out, "#lt;"); break;
        case '>': text_append_str(out, "#gt;"); break;
        case '`': text_append_str(out, "#96;"); break;
        default:
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                text_append(out, " ", 1);
            else
                text_append(out, p, 1);
        }
    }
}

static void mermaid_label(TextBuffer *out, const Label *l)
{
    text_append_str(out, "\"");
    for (uint32_t i = 0; i < l->count; i++) {
        if (i)
            text_append_str(out, "<br>");
        mermaid_escape(out, l->lines[i]);
    }
    text_append_str(out, "\"");
}

/* The brackets of a node's shape: opening, closing. */
static void mermaid_shape(const GraphNode *n, const char **open, const char **close)
{
    static const char *const SHAPES[][2] = {
        [STEP_TASK_WORKER] = { "(", ")" }, [STEP_TASK_BUILTIN] = { "(", ")" },
        [STEP_WORKFLOW] = { "[[", "]]" }, [STEP_SLEEP] = { "([", "])" },
        [STEP_AWAIT] = { "{{", "}}" }, [STEP_COMPUTE] = { "[/", "/]" },
    };
    StepKind kind = n->compensation ? STEP_TASK_WORKER : n->step->kind;
    *open = SHAPES[kind][0];
    *close = SHAPES[kind][1];
}

static void mermaid_cluster(Arena *a, TextBuffer *out, const StepGraph *g,
                            const GraphCluster *cl)
{
    text_printf(out, "  subgraph %s [", cl->id);
    Label title = cluster_title(a, cl);
    mermaid_label(out, &title);
    text_append_str(out, "]\n");
    if (cl->node_count == 0)
        text_printf(out, "    %s_empty[\"no steps\"]\n", cl->id);
    for (uint32_t i = cl->first_node; i < cl->first_node + cl->node_count; i++) {
        const GraphNode *n = &g->nodes[i];
        const char *open, *close;
        mermaid_shape(n, &open, &close);
        Label l = node_label(a, n);
        text_printf(out, "    %s%s", n->id, open);
        mermaid_label(out, &l);
        text_printf(out, "%s\n", close);
    }
    text_append_str(out, "  end\n");
}

/* Writes the edges; critical[k] = 1 for the k-th link written that is critical. */
static void mermaid_edges(const StepGraph *g, TextBuffer *out, TextBuffer *critical)
{
    uint32_t link = 0;
    for (uint32_t i = 0; i < g->edge_count; i++) {
        const GraphEdge *e = &g->edges[i];
        const char *from = g->nodes[e->from].id;
        switch (e->kind) {
        case EDGE_DATA:
            text_printf(out, "  %s --> %s\n", from, g->nodes[e->to].id);
            break;
        case EDGE_CRITICAL:
            text_printf(out, "  %s ==> %s\n", from, g->nodes[e->to].id);
            text_printf(critical, "%s%u", critical->len ? "," : "", link);
            break;
        case EDGE_ORDER:
            text_printf(out, "  %s ~~~ %s\n", from, g->nodes[e->to].id);
            break;
        case EDGE_COMPENSATES:
            text_printf(out, "  %s -. on failure .-> %s\n", from, g->nodes[e->to].id);
            break;
        case EDGE_STARTS:
            text_printf(out, "  %s -- starts --> %s\n", from, g->clusters[e->to].id);
            break;
        }
        link++;
    }
}

static void write_mermaid(Arena *a, TextBuffer *out, const StepGraph *g)
{
    text_append_str(out, "flowchart TB\n");
    for (uint32_t i = 0; i < g->cluster_count; i++)
        mermaid_cluster(a, out, g, &g->clusters[i]);
    TextBuffer critical = { 0 };
    mermaid_edges(g, out, &critical);
    text_append_str(out, "  classDef critical stroke:#c0392b,stroke-width:2px\n"
                         "  classDef compensation stroke-dasharray:5 5\n");
    TextBuffer names = { 0 };
    for (uint32_t i = 0; i < g->node_count; i++)
        if (g->nodes[i].critical)
            text_printf(&names, "%s%s", names.len ? "," : "", g->nodes[i].id);
    if (names.len)
        text_printf(out, "  class %s critical\n", names.data);
    text_free(&names);
    for (uint32_t i = 0; i < g->node_count; i++)
        if (g->nodes[i].compensation)
            text_printf(&names, "%s%s", names.len ? "," : "", g->nodes[i].id);
    if (names.len)
        text_printf(out, "  class %s compensation\n", names.data);
    if (critical.len)
        text_printf(out, "  linkStyle %s stroke:#c0392b,stroke-width:3px\n", critical.data);
    text_free(&names);
    text_free(&critical);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *ms_or_null(int64_t ms)
{
    return ms ? json_integer(ms) : json_null();
}

/* {"ms": N, "unbounded": null} or {"ms": null, "unbounded": "REASON"}. */
static json_t *worst_json(const Worst *w, const Name *from)
{
    char reason[WORST_TEXT_SIZE];
    if (!w->unbounded)
        return json_pack("{s:I, s:n}", "ms", (json_int_t)w->ms, "unbounded");
    return json_pack("{s:n, s:s}", "ms", "unbounded",
                     worst_reason_text(w, from, reason, sizeof reason));
}

static json_t *retry_json(const RetryPolicy *r)
{
    RetryPolicy one;
    if (!r) {
        policy_default_retry(&one);
        r = &one;
    }
    json_t *delays = json_array(), *codes = json_array();
    for (uint32_t n = 2; n <= r->attempts; n++)
        json_array_append_new(delays, json_integer(policy_retry_delay(r, n)));
    for (uint32_t i = 0; i < r->non_retryable_count; i++)
        json_array_append_new(codes, diag_json_text(r->non_retryable[i].text,
                                                    r->non_retryable[i].len));
    return json_pack("{s:I, s:s, s:o, s:o}", "attempts", (json_int_t)r->attempts,
                     "backoff", BACKOFF_NAMES[r->backoff], "delays_ms", delays,
                     "non_retryable", codes);
}

static json_t *node_json(const GraphNode *n, const Workflow *wf)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(n->id));
    json_object_set_new(o, "name", diag_json_text0(n->step->name->text));
    json_object_set_new(o, "compensation", json_boolean(n->compensation));
    json_object_set_new(o, "kind", json_string(n->kind));
    json_object_set_new(o, "target", n->target ? diag_json_text(n->target->text, n->target->len)
                                               : json_null());
    bool own = !n->compensation;
    json_object_set_new(o, "for", own && n->step->for_var
                        ? diag_json_text0(n->step->for_var->text) : json_null());
    json_object_set_new(o, "when", json_boolean(own && n->step->when));
    json_object_set_new(o, "retry", retry_json(n->retry));
    json_object_set_new(o, "timeout_ms", ms_or_null(n->timeout_ms));
    json_object_set_new(o, "queue_timeout_ms", ms_or_null(n->queue_timeout_ms));
    json_object_set_new(o, "worst_case", worst_json(n->compensation ? &n->worst->compensation
                                                                    : &n->worst->own, wf->name));
    json_object_set_new(o, "critical", json_boolean(n->critical));
    return o;
}

static json_t *cluster_json(const StepGraph *g, const GraphCluster *cl)
{
    const Workflow *wf = cl->workflow;
    json_t *nodes = json_array(), *path = json_array();
    for (uint32_t i = cl->first_node; i < cl->first_node + cl->node_count; i++) {
        json_array_append_new(nodes, node_json(&g->nodes[i], wf));
        if (g->nodes[i].critical)
            json_array_append_new(path, json_string(g->nodes[i].id));
    }
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "id", cl->id,
                     "name", diag_json_text0(wf->name->text), "timeout_ms", ms_or_null(wf->timeout_ms),
                     "steps_worst_case", worst_json(&wf->worst.running, wf->name),
                     "worst_case", worst_json(&wf->worst.total, wf->name),
                     "critical_path", path, "nodes", nodes);
}

static json_t *graph_json(const StepGraph *g)
{
    static const char *const KINDS[] = {
        [EDGE_DATA] = "data", [EDGE_CRITICAL] = NULL, [EDGE_ORDER] = NULL,
        [EDGE_COMPENSATES] = "compensates", [EDGE_STARTS] = "starts",
    };
    json_t *clusters = json_array(), *edges = json_array();
    for (uint32_t i = 0; i < g->cluster_count; i++)
        json_array_append_new(clusters, cluster_json(g, &g->clusters[i]));
    for (uint32_t i = 0; i < g->edge_count; i++) {
        const GraphEdge *e = &g->edges[i];
        if (!KINDS[e->kind])
            continue;
        const char *to = e->kind == EDGE_STARTS ? g->clusters[e->to].id : g->nodes[e->to].id;
        json_array_append_new(edges, json_pack("{s:s, s:s, s:s}", "from", g->nodes[e->from].id,
                                               "to", to, "kind", KINDS[e->kind]));
    }
    return json_pack("{s:o, s:o}", "workflows", clusters, "edges", edges);
}

/* ---- The command -------------------------------------------------------------------------- */

static int unknown_workflow(const Program *p, const char *name)
{
    const char **names = xmalloc((p->workflow_count + 1) * sizeof *names);
    for (uint32_t i = 0; i < p->workflow_count; i++)
        names[i] = p->workflows[i].name->text;
    const char *suggestion = suggest_name(name, strlen(name), names, p->workflow_count);
    fprintf(stderr, "orbitc: error: the program has no workflow `%s`\n", name);
    if (suggestion)
        fprintf(stderr, "  help: did you mean `%s`?\n", suggestion);
    free(names);
    return EXIT_USAGE;
}

static int find_workflow(const Program *p, const char *name, uint32_t *index)
{
    *index = NO_INDEX;
    if (!name)
        return EXIT_OK;
    for (uint32_t i = 0; i < p->workflow_count; i++) {
        if (strcmp(p->workflows[i].name->text, name) == 0) {
            *index = i;
            return EXIT_OK;
        }
    }
    return unknown_workflow(p, name);
}

static int write_graph(const CliOptions *opt, Compiler *c, const Program *p)
{
    uint32_t root;
    if (find_workflow(p, opt->workflow, &root) != EXIT_OK)
        return EXIT_USAGE;
    StepGraph g;
    step_graph_build(&c->arena, p, root, &g);
    if (opt->graph_format == GRAPH_JSON) {
        diag_json_write(stdout, graph_json(&g));
        return EXIT_OK;
    }
    TextBuffer out = { 0 };
    if (opt->graph_format == GRAPH_MERMAID)
        write_mermaid(&c->arena, &out, &g);
    else
        write_dot(&c->arena, &out, &g);
    fwrite(out.data, 1, out.len, stdout);
    text_free(&out);
    return EXIT_OK;
}

int cli_graph(const CliOptions *opt)
{
    CliRun run;
    cli_run_init(&run);
    int status = cli_load(opt, &run);
    if (status == EXIT_OK && run.w.roots.count > 1)
        status = cli_usage_error("%s draws one program: the paths hold several (program "
                                 "roots); give the paths of one", "`orbitc graph`");
    if (status == EXIT_OK) {
        workspace_check(&run.w);
        Program *p = run.w.roots.count ? run.w.checked[0] : NULL;
        if (run.c.diags.errors > 0 || !p) {
            CliOptions human = *opt;
            human.format = FORMAT_HUMAN;
            cli_print_diagnostics(&human, &run.c);
            status = run.c.diags.errors > 0 ? EXIT_ERRORS : EXIT_USAGE;
        } else if (run.w.failures > 0) {
            cli_report_unread(&run, "no graph was drawn");
            status = EXIT_USAGE;
        } else {
            status = write_graph(opt, &run.c, p);
        }
    }
    cli_run_free(&run);
    return status;
}
