/* Code actions (docs/editors.md, "Quick fixes"): every fix of a diagnostic under the
 * cursor is a quick fix, preferred when it is machine-applicable; a warning can be
 * suppressed there with an `// orbit:allow(CODE)` comment (docs/diagnostics.md, "Inline
 * suppressions"); "fix all" applies every machine-applicable fix of the file at once
 * (kind source.fixAll, which editors can run on save). */
#include "server.h"
#include "fix.h"
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *text_edit_json(Server *s, Analysis *a, const Edit *e)
{
    return json_pack("{s:o, s:o}", "range", lsp_range_json(s, a, e->file, e->start, e->end),
                     "newText", diag_json_text0(e->text));
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
    json_t *action = json_pack("{s:o, s:s, s:[o]}", "title", diag_json_text0(fix->message),
                               "kind", "quickfix", "diagnostics", lsp_diagnostic_json(s, a, d));
    if (fix->applicability == FIX_MACHINE_APPLICABLE)
        json_object_set_new(action, "isPreferred", json_true());
    json_object_set_new(action, "edit", lsp_workspace_edit_json(s, a, &edit, 1));
    return action;
}

/* ---- Suppressing a warning here ----------------------------------------------- */

/* Whether only blanks stand between the start of its line and `offset`. */
static bool starts_line(const SourceFile *f, uint32_t offset)
{
    while (offset > 0 && (f->text[offset - 1] == ' ' || f->text[offset - 1] == '\t'))
        offset--;
    return source_starts_line(f->text, f->len, offset);
}

static const Member *covering_member(const Member *members, uint32_t count,
                                     const SourceFile *f, uint32_t pos, const Member *best);

static const Member *covering_in_expr(const Expr *e, const SourceFile *f, uint32_t pos,
                                      const Member *best)
{
    if (!e || pos < e->span.start || pos > e->span.end)
        return best;
    if (e->kind == EXPR_OBJECT)
        return covering_member(e->block->members, e->block->count, f, pos, best);
    for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
        best = covering_in_expr(expr_child(e, i), f, pos, best);
    return best;
}

/* The innermost member around `pos` that starts its line: a suppression comment on the
 * line before it covers the warnings inside it. */
static const Member *covering_member(const Member *members, uint32_t count,
                                     const SourceFile *f, uint32_t pos, const Member *best)
{
    for (const Member *m = members; m != members + count; m++) {
        if (pos < m->span.start || pos >= m->span.end)
            continue;
        if (starts_line(f, m->span.start - f->origin))
            best = m;
        if (member_body(m))
            best = covering_member(member_body(m)->members, member_body(m)->count, f, pos, best);
        best = covering_in_expr(member_value(m), f, pos, best);
    }
    return best;
}

/* "Suppress W0002 here": `// orbit:allow(W0002)` on a line of its own before the member
 * the warning is in, indented as it is. */
static json_t *suppress_here(Server *s, Analysis *a, const Diagnostic *d)
{
    FileSpan at;
    if (d->severity != SEV_WARNING || d->code == W0008 || d->code == W0009 ||
        !diag_locate(&a->c.sources, d->span, &at) || at.file == 0)
        return NULL;
    const SourceFile *f = source_file(&a->c.sources, at.file);
    const SourceAst *ast = a->c.asts[at.file];
    const Member *m = ast ? covering_member(ast->decls, ast->count, f, d->span.start, NULL)
                          : NULL;
    if (!m)
        return NULL;
    /* Lines end as base/source.h says; the comment's line ends as the member's does. */
    uint32_t start = m->span.start - f->origin;
    uint32_t line = source_line_begin(f->text, f->len, start);
    const char *end = f->text + f->len, *eol = source_find_eol(f->text + start, end);
    int eol_len = eol < end ? (int)source_eol_len(eol, end) : 1;
    const char *code = diag_info(d->code)->code;
    char *comment = xmalloc(start - line + 64);
    snprintf(comment, start - line + 64, "%.*s// orbit:allow(%s)%.*s", (int)(start - line),
             f->text + line, code, eol_len, eol < end ? eol : "\n");
    Edit edit = { at.file, line, line, comment };
    char title[64];
    snprintf(title, sizeof title, "Suppress %s here", code);
    json_t *action = json_pack("{s:s, s:s, s:[o], s:o}", "title", title, "kind", "quickfix",
                               "diagnostics", lsp_diagnostic_json(s, a, d),
                               "edit", lsp_workspace_edit_json(s, a, &edit, 1));
    free(comment);
    return action;
}

/* Every fix `orbitc fix` would apply to `file` in its first round (fix_select: one
 * machine-applicable fix per diagnostic; of fixes that overlap, the first; the next
 * check offers the others again), as one action. */
static json_t *fix_all(Server *s, Analysis *a, uint32_t file)
{
    uint32_t count = 0;
    FixEdit *fixes = fix_select(&a->c.diags, &a->c.sources, &count);
    Edit *edits = xmalloc((count + 1) * sizeof *edits);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++)
        if (fixes[i].file == file)
            edits[kept++] = (Edit){ file, fixes[i].start, fixes[i].end, fixes[i].replacement };
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
    free(fixes);
    return action;
}

json_t *lsp_handle_code_action(Server *s, json_t *params)
{
    uint32_t file, start, end;
    Analysis *a = lsp_analysis_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a || !lsp_range_offsets(s, a, file, params, &start, &end))
        return NULL;
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
        json_t *suppress = suppress_here(s, a, d);
        if (suppress)
            json_array_append_new(actions, suppress);
    }
    if (kind_wanted(only, "source.fixAll.orbitc")) {
        json_t *all = fix_all(s, a, file);
        if (all)
            json_array_append_new(actions, all);
    }
    return actions;
}
