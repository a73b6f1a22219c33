/* The step graph (step_graph.h) written as Graphviz DOT, a Mermaid flowchart or JSON
 * (docs/graph.schema.json): the one writer of `orbitc graph` (cli/graph_command.c) and
 * of the playground's orbit_pg_graph (playground/api.c). Identifiers are generated
 * (`w0_s3`); names and strings appear only in labels, and each label shows exactly its
 * text (docs/cli.md, "orbitc graph"): a string as the Orbit literal that writes it
 * (string_literal), each line escaped for the language (dot_escape, mermaid_escape). */
#include "graph_write.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_text.h"
#include "memory.h"
#include "no_index.h"
#include "policy.h"
#include "suggest.h"
#include "textbuf.h"
#include "utf8.h"
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

/* A string as its label shows it: the Orbit literal that writes it (the escapes of
 * lexer_strings.c), so that no character of it is hidden or read as more than text:
 * `"` and `\` escaped, a line end or tab as `\n`, `\r`, `\t`, and each character that
 * is not seen (utf8_is_unseen: controls, bidirectional controls, separators…) as
 * `\u{202E}`. A string may hold NUL (`\u{0}`): `len` bytes, not up to a NUL. */
static const char *string_literal(Arena *a, const char *text, uint32_t len)
{
    TextBuffer out = { 0 };
    text_append_str(&out, "\"");
    for (uint32_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        switch (cp) {
        case '"': text_append_str(&out, "\\\""); break;
        case '\\': text_append_str(&out, "\\\\"); break;
        case '\n': text_append_str(&out, "\\n"); break;
        case '\r': text_append_str(&out, "\\r"); break;
        case '\t': text_append_str(&out, "\\t"); break;
        default:
            if (cp < 0)   /* not UTF-8: the checker refuses such a string */
                text_append_str(&out, "\xEF\xBF\xBD");   /* U+FFFD */
            else if (utf8_is_unseen(cp))
                text_printf(&out, "\\u{%X}", (unsigned)cp);
            else
                text_append(&out, text + i, n);
        }
        i += n;
    }
    text_append_str(&out, "\"");
    const char *literal = arena_strndup(a, out.data, out.len);
    text_free(&out);
    return literal;
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
    return arena_printf(a, "%s %s%s%s", n->kind,
                        quoted ? string_literal(a, n->target->text, n->target->len)
                               : n->target->text, fan, when);
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
 * an escape such as \N or \l), `&` as `&amp;` (Graphviz reads entities such as `&lt;`
 * in every label), control characters (which a label never holds: string_literal) as
 * spaces. */
static void dot_escape(TextBuffer *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            text_printf(out, "\\%c", *p);
        else if (*p == '&')
            text_append_str(out, "&amp;");
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

/* Whether an ASCII character is written as it is in a Mermaid label: letters, digits,
 * the space and punctuation that Mermaid reads as text inside a quoted label. */
static bool mermaid_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr(" !'()*+,-./=?@[\\]^_{|}~", c));
}

/* Whether Mermaid's renderer would read the characters `c`, `next` as more than text
 * after it has decoded a label's entity codes (as it does before drawing it): `$$`
 * starts KaTeX, `:f` may be an icon (`fa:fa-car`), `\n` a line break, and `ﬂ°`, `¶ß` its
 * own markers of an entity code (which become `&`, `;`). */
static bool mermaid_pair(int32_t c, int32_t next)
{
    return (c == '$' && next == '$') || (c == ':' && next == 'f') ||
           (c == '\\' && next == 'n') || (c == 0xFB02 && next == 0xB0) ||
           (c == 0xB6 && next == 0xDF);
}

/* `text` inside a Mermaid double-quoted label, which Mermaid reads as more than text in
 * many ways: `%%` starts a directive (`%%{init: …}%%`, applied wherever it stands) or,
 * after a line or paragraph separator, a comment; `#…;` is an entity code; `&`, `<`,
 * `>` are HTML; a backtick Markdown; `style …:…#…;` loses its last `;`; and what
 * mermaid_pair lists. So every character but the plain ones (mermaid_plain; a colon
 * before a space, as in "steps at worst: 1m"; a character beyond ASCII that is seen) is
 * written as its entity code `#NNN;`, Mermaid's way to put any character in a label,
 * and an empty `<span></span>` separates the characters of a pair (it shows nothing
 * and adds no text). A label holds no character that is not seen (string_literal
 * escaped them; a name cannot hold one): were one here, it would go as an entity code
 * too, never raw. */
static void mermaid_escape(TextBuffer *out, const char *text)
{
    size_t len = strlen(text);
    int32_t cp, next;
    for (size_t i = 0, n; i < len; i += n) {
        n = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        if (i + n < len)
            utf8_decode((const unsigned char *)text + i + n, len - i - n, &next);
        else
            next = 0;
        bool plain = cp < 0x80 ? cp >= 0 && (mermaid_plain((unsigned char)cp) ||
                                             (cp == ':' && next == ' '))
                               : !utf8_is_unseen(cp);
        if (plain)
            text_append(out, text + i, n);
        else
            text_printf(out, "#%ld;", cp < 0 ? 0xFFFDL : (long)cp);
        if (mermaid_pair(cp, next))
            text_append_str(out, "<span></span>");
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
    if (!w->unbounded)
        return json_pack("{s:I, s:n}", "ms", (json_int_t)w->ms, "unbounded");
    TextBuffer reason = { 0 };
    worst_reason_text(w, from, &reason);
    json_t *o = json_pack("{s:n, s:o}", "ms", "unbounded",
                          diag_json_text(reason.data, reason.len));
    text_free(&reason);
    return o;
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

/* A label's lines as a JSON array: the text the DOT and Mermaid labels show, unescaped,
 * for a drawing of its own (the playground's Graph tab) to show the same lines. */
static json_t *label_json(Label l)
{
    json_t *lines = json_array();
    for (uint32_t i = 0; i < l.count; i++)
        json_array_append_new(lines, diag_json_text0(l.lines[i]));
    return lines;
}

static json_t *node_json(Arena *a, const GraphNode *n, const Workflow *wf)
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
    json_object_set_new(o, "label", label_json(node_label(a, n)));
    return o;
}

static json_t *cluster_json(Arena *a, const StepGraph *g, const GraphCluster *cl)
{
    const Workflow *wf = cl->workflow;
    json_t *nodes = json_array(), *path = json_array();
    for (uint32_t i = cl->first_node; i < cl->first_node + cl->node_count; i++) {
        json_array_append_new(nodes, node_json(a, &g->nodes[i], wf));
        if (g->nodes[i].critical)
            json_array_append_new(path, json_string(g->nodes[i].id));
    }
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", cl->id,
                     "name", diag_json_text0(wf->name->text), "timeout_ms", ms_or_null(wf->timeout_ms),
                     "steps_worst_case", worst_json(&wf->worst.running, wf->name),
                     "worst_case", worst_json(&wf->worst.total, wf->name),
                     "critical_path", path, "label", label_json(cluster_title(a, cl)),
                     "nodes", nodes);
}

static json_t *graph_json(Arena *a, const StepGraph *g)
{
    static const char *const KINDS[] = {
        [EDGE_DATA] = "data", [EDGE_CRITICAL] = NULL, [EDGE_ORDER] = NULL,
        [EDGE_COMPENSATES] = "compensates", [EDGE_STARTS] = "starts",
    };
    json_t *clusters = json_array(), *edges = json_array();
    for (uint32_t i = 0; i < g->cluster_count; i++)
        json_array_append_new(clusters, cluster_json(a, g, &g->clusters[i]));
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

const char *const GRAPH_FORMAT_NAMES[GRAPH_FORMAT_COUNT] = { "dot", "mermaid", "json" };

/* ---- Which workflow ---------------------------------------------------------------------- */

uint32_t graph_find_workflow(const Program *p, const char *name, const char **suggestion)
{
    *suggestion = NULL;
    for (uint32_t i = 0; i < p->workflow_count; i++)
        if (strcmp(p->workflows[i].name->text, name) == 0)
            return i;
    const char **names = xmalloc((p->workflow_count + 1) * sizeof *names);
    for (uint32_t i = 0; i < p->workflow_count; i++)
        names[i] = p->workflows[i].name->text;
    *suggestion = suggest_name(name, strlen(name), names, p->workflow_count);
    free(names);
    return NO_INDEX;
}

bool graph_format_parse(const char *text, GraphFormat *format)
{
    for (int i = 0; i < GRAPH_FORMAT_COUNT; i++) {
        if (strcmp(text, GRAPH_FORMAT_NAMES[i]) == 0) {
            *format = (GraphFormat)i;
            return true;
        }
    }
    return false;
}

/* ---- The writer --------------------------------------------------------------------------- */

void graph_write(Arena *a, const StepGraph *g, GraphFormat format, FILE *out)
{
    if (format == GRAPH_JSON) {
        diag_json_write(out, graph_json(a, g));
        return;
    }
    TextBuffer text = { 0 };
    if (format == GRAPH_MERMAID)
        write_mermaid(a, &text, g);
    else
        write_dot(a, &text, g);
    fwrite(text.data, 1, text.len, out);
    text_free(&text);
}
