/* The call hierarchy (docs/editors.md, "Call hierarchy"): workflows and the child
 * workflows their steps start (`step pack { workflow pack_items … }`), across the files
 * of a program. A call is an occurrence of a workflow's name that is not its declaration
 * (query.h): its context says which workflow makes it. An item is found again from its
 * `uri` and the start of its `selectionRange` (the workflow's name), checked against
 * the name kept in its `data`; an item that no longer names that workflow has no calls. */
#include "query.h"

#include <string.h>

#include "no_index.h"

enum { SYMBOL_KIND_FUNCTION = 12 };

static json_t *workflow_item(Server *s, Analysis *a, uint32_t index)
{
    const Workflow *wf = &a->program->workflows[index];
    FileSpan whole, name;
    diag_locate(&a->c.sources, wf->span, &whole);
    diag_locate(&a->c.sources, wf->name_span, &name);
    char detail[64];
    snprintf(detail, sizeof detail, "workflow, %u step%s", wf->step_count,
             wf->step_count == 1 ? "" : "s");
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:{s:s}}",
                     "name", wf->name->text, "kind", SYMBOL_KIND_FUNCTION, "detail", detail,
                     "uri", a->files[whole.file].uri,
                     "range", lsp_range_json(s, a, whole.file, whole.start, whole.end),
                     "selectionRange", lsp_range_json(s, a, name.file, name.start, name.end),
                     "data", "workflow", wf->name->text);
}

/* The workflow an occurrence names: a workflow's name, or a step that starts one. */
static uint32_t workflow_of(Analysis *a, const Occurrence *o)
{
    if (o->symbol.kind == SYM_WORKFLOW)
        return o->symbol.index;
    const Step *step = o->symbol.kind == SYM_STEP
        ? lsp_query_step(a, o->symbol.workflow, o->symbol.index) : NULL;
    if (step && step->kind == STEP_WORKFLOW)
        return step->target_index;
    return NO_INDEX;
}

json_t *lsp_handle_prepare_call_hierarchy(Server *s, json_t *params)
{
    Analysis *a;
    uint32_t file;
    Occurrence o;
    if (!lsp_query_request(s, params, &a, &file, &o))
        return a ? json_null() : NULL;
    uint32_t index = workflow_of(a, &o);
    if (index == NO_INDEX || index >= a->program->workflow_count)
        return json_null();
    return json_pack("[o]", workflow_item(s, a, index));
}

/* The workflow of a request's `item`, or NO_INDEX; *file gets the file it is in. */
static uint32_t item_workflow(Server *s, const json_t *params, Analysis **a, uint32_t *file)
{
    json_t *item = lsp_json_object_member(params, "item");
    json_t *start = lsp_json_object_member(lsp_json_object_member(item, "selectionRange"),
                                           "start");
    const char *name = lsp_json_string_member(lsp_json_object_member(item, "data"), "workflow");
    const char *uri = lsp_json_string_member(item, "uri");
    if (!start || !uri) {
        *a = NULL;
        lsp_request_error(s, RPC_INVALID_PARAMS, "an item with a uri and a selectionRange "
                                                 "is needed");
        return NO_INDEX;
    }
    json_t *at = json_pack("{s:{s:s}, s:O}", "textDocument", "uri", uri, "position", start);
    Occurrence o;
    bool found = lsp_query_request(s, at, a, file, &o);
    json_decref(at);
    uint32_t index = found ? workflow_of(*a, &o) : NO_INDEX;
    if (index == NO_INDEX || index >= (*a)->program->workflow_count ||
        (name && strcmp((*a)->program->workflows[index].name->text, name) != 0))
        return NO_INDEX;
    return index;
}

/* The calls of a program, grouped by the workflow at one end: for incoming calls, by
 * the caller (the occurrence's context); for outgoing ones, by the callee. */
typedef struct Calls {
    Server *s;
    Analysis *a;
    uint32_t workflow;        /* the item's workflow */
    bool incoming;
    uint32_t file;            /* the file walked */
    json_t *groups;           /* [workflow index as text] -> { from|to, fromRanges } */
    json_t *order;            /* the groups in the order found */
} Calls;

static bool collect_call(void *user, const Occurrence *o)
{
    Calls *c = user;
    if (o->symbol.kind != SYM_WORKFLOW || o->declaration || o->context.workflow == NO_INDEX)
        return true;
    uint32_t caller = o->context.workflow, callee = o->symbol.index;
    if ((c->incoming ? callee : caller) != c->workflow ||
        callee >= c->a->program->workflow_count || caller >= c->a->program->workflow_count)
        return true;              /* a name that is no workflow (reported) starts nothing */
    uint32_t other = c->incoming ? caller : callee;
    char key[16];
    snprintf(key, sizeof key, "%u", other);
    json_t *group = json_object_get(c->groups, key);
    if (!group) {
        group = json_pack("{s:o, s:[]}", c->incoming ? "from" : "to",
                          workflow_item(c->s, c->a, other), "fromRanges");
        json_object_set_new(c->groups, key, group);
        json_array_append(c->order, group);
    }
    FileSpan at;
    diag_locate(&c->a->c.sources, o->span, &at);
    json_array_append_new(json_object_get(group, "fromRanges"),
                          lsp_range_json(c->s, c->a, at.file, at.start, at.end));
    return true;
}

static json_t *calls(Server *s, json_t *params, bool incoming)
{
    Analysis *a;
    uint32_t file;
    uint32_t index = item_workflow(s, params, &a, &file);
    if (index == NO_INDEX)
        return a ? json_array() : NULL;
    Calls c = { s, a, index, incoming, file, json_object(), json_array() };
    if (incoming) {
        for (uint32_t f = 1; f < a->c.sources.count; f++)
            if (lsp_analysis_same_program(a, f, file))
                lsp_query_walk_file(a, f, collect_call, &c);
    } else {
        FileSpan at;
        diag_locate(&a->c.sources, a->program->workflows[index].span, &at);
        lsp_query_walk_file(a, at.file, collect_call, &c);
    }
    json_decref(c.groups);
    return c.order;
}

json_t *lsp_handle_incoming_calls(Server *s, json_t *params)
{
    return calls(s, params, true);
}

json_t *lsp_handle_outgoing_calls(Server *s, json_t *params)
{
    return calls(s, params, false);
}
