/* Code actions (docs/editors.md, "Quick fixes"): every fix of a diagnostic under the
 * cursor is a quick fix, preferred when it is machine-applicable; "fix all" applies
 * every machine-applicable fix of the file at once (kind source.fixAll, which editors
 * can run on save). */
#include "server.h"

#include <stdlib.h>
#include <string.h>

static json_t *text_edit_json(Server *s, Analysis *a, const Edit *e)
{
    return json_pack("{s:o, s:o}", "range", lsp_range_json(s, a, e->file, e->start, e->end),
                     "newText", lsp_json_text0(e->text));
}

json_t *lsp_workspace_edit_json(Server *s, Analysis *a, const Edit *edits, uint32_t count)
{
    json_t *document_changes = json_array();
    json_t *changes = json_object();
    for (uint32_t i = 0; i < count;) {
        uint32_t file = edits[i].file;
        json_t *list = json_array();
        for (; i < count && edits[i].file == file; i++)
            json_array_append_new(list, text_edit_json(s, a, &edits[i]));
        AnalysisFile *f = &a->files[file];
        json_t *version = f->document != NO_INDEX ? json_integer(f->version) : json_null();
        json_array_append_new(document_changes,
                              json_pack("{s:{s:s, s:o}, s:o}", "textDocument", "uri", f->uri,
                                        "version", version, "edits", json_incref(list)));
        json_object_set_new(changes, f->uri, list);
    }
    if (s->client_document_changes) {
        json_decref(changes);
        return json_pack("{s:o}", "documentChanges", document_changes);
    }
    json_decref(document_changes);
    return json_pack("{s:o}", "changes", changes);
}

/* The edit of a fix, or false when it points outside the user's files. */
static bool fix_edit(Analysis *a, const DiagFix *fix, Edit *out)
{
    FileSpan at;
    if (!diag_locate(&a->c.sources, fix->span, &at) || !a->files[at.file].uri)
        return false;
    *out = (Edit){ at.file, at.start, at.end, fix->replacement };
    return true;
}

/* Whether the client asked for this kind (context.only lists kinds and their parents:
 * "source" takes "source.fixAll.orbitc"). */
static bool kind_wanted(const json_t *only, const char *kind)
{
    if (!json_is_array(only))
        return true;
    size_t i;
    json_t *v;
    json_array_foreach(only, i, v) {
        if (!json_is_string(v))
            continue;
        const char *prefix = json_string_value(v);
        size_t n = strlen(prefix);
        if (strncmp(kind, prefix, n) == 0 && (kind[n] == '\0' || kind[n] == '.'))
            return true;
    }
    return false;
}

static json_t *quick_fix(Server *s, Analysis *a, const Diagnostic *d, const DiagFix *fix)
{
    Edit edit;
    if (!fix_edit(a, fix, &edit))
        return NULL;
    json_t *action = json_pack("{s:o, s:s, s:[o]}", "title", lsp_json_text0(fix->message),
                               "kind", "quickfix", "diagnostics", lsp_diagnostic_json(s, a, d));
    if (fix->applicability == FIX_MACHINE_APPLICABLE)
        json_object_set_new(action, "isPreferred", json_true());
    json_object_set_new(action, "edit", lsp_workspace_edit_json(s, a, &edit, 1));
    return action;
}

static int compare_edits(const void *x, const void *y)
{
    const Edit *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

/* Every machine-applicable fix of the diagnostics of `file`, sorted; of fixes that
 * overlap, the first is kept (the next check offers the others again). */
static json_t *fix_all(Server *s, Analysis *a, uint32_t file)
{
    const DiagSink *sink = &a->c.diags;
    uint32_t count = 0, cap = 16;
    Edit *edits = xmalloc(cap * sizeof *edits);
    for (uint32_t i = 0; i < sink->count; i++) {
        FileSpan at;
        if (!diag_locate(&a->c.sources, sink->items[i]->span, &at) || at.file != file)
            continue;
        for (const DiagFix *f = sink->items[i]->fixes; f; f = f->next) {
            Edit e;
            if (f->applicability != FIX_MACHINE_APPLICABLE || !fix_edit(a, f, &e) ||
                e.file != file)
                continue;
            if (count == cap)
                edits = xrealloc(edits, (cap *= 2) * sizeof *edits);
            edits[count++] = e;
            break;                /* one fix per diagnostic */
        }
    }
    if (count > 0)
        qsort(edits, count, sizeof *edits, compare_edits);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++) {
        bool overlaps = kept > 0 && (edits[i].start < edits[kept - 1].end ||
                                     (edits[i].start == edits[kept - 1].start));
        if (!overlaps)
            edits[kept++] = edits[i];
    }
    json_t *action = NULL;
    if (kept > 0) {
        char title[96];
        snprintf(title, sizeof title, kept == 1 ? "Fix the %u auto-fixable problem in this file"
                                                : "Fix all %u auto-fixable problems in this file",
                 kept);
        action = json_pack("{s:s, s:s, s:o}", "title", title, "kind", "source.fixAll.orbitc",
                           "edit", lsp_workspace_edit_json(s, a, edits, kept));
    }
    free(edits);
    return action;
}

json_t *lsp_handle_code_action(Server *s, json_t *params)
{
    uint32_t file;
    Analysis *a = lsp_analysis_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a)
        return NULL;
    LspPosition from, to;
    if (!lsp_read_range(lsp_json_object_member(params, "range"), &from, &to))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "codeAction needs a range");
    LineIndex *lines = lsp_analysis_lines(a, file);
    uint32_t start = lsp_line_index_offset(lines, from, s->encoding);
    uint32_t end = lsp_line_index_offset(lines, to, s->encoding);
    json_t *only = lsp_json_object_member(lsp_json_object_member(params, "context"), "only");
    json_t *actions = json_array();
    const DiagSink *sink = &a->c.diags;
    for (uint32_t i = 0; i < sink->count && kind_wanted(only, "quickfix"); i++) {
        const Diagnostic *d = sink->items[i];
        FileSpan at;
        if (!diag_locate(&a->c.sources, d->span, &at) || at.file != file ||
            at.start > end || at.end < start)
            continue;
        for (const DiagFix *f = d->fixes; f; f = f->next) {
            json_t *action = quick_fix(s, a, d, f);
            if (action)
                json_array_append_new(actions, action);
        }
    }
    if (kind_wanted(only, "source.fixAll.orbitc")) {
        json_t *all = fix_all(s, a, file);
        if (all)
            json_array_append_new(actions, all);
    }
    return actions;
}
