/* Diagnostics as LSP diagnostics (docs/editors.md, "Diagnostics"), and their
 * publication: after each check, every file of the program whose diagnostics changed,
 * or whose document has a new version, gets textDocument/publishDiagnostics; a file that
 * left the program or became clean gets an empty list. */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "hash.h"
#include "textbuf.h"

/* Warnings about something that has no effect (a setting, a listed code, an unused
 * suppression): shown faded (DiagnosticTag.Unnecessary). */
static bool is_unnecessary(DiagCode code)
{
    return code == W0001 || code == W0002 || code == W0004 || code == W0005 ||
           code == W0009;
}

static json_t *position_json(LspPosition p)
{
    return json_pack("{s:I, s:I}", "line", (json_int_t)p.line, "character",
                     (json_int_t)p.character);
}

json_t *lsp_range_json(Server *s, Analysis *a, uint32_t file, uint32_t start, uint32_t end)
{
    return lsp_line_range_json(s, lsp_analysis_lines(a, file), start, end);
}

json_t *lsp_line_range_json(Server *s, LineIndex *lines, uint32_t start, uint32_t end)
{
    return json_pack("{s:o, s:o}",
                     "start", position_json(lsp_line_index_position(lines, start, s->encoding)),
                     "end", position_json(lsp_line_index_position(lines, end, s->encoding)));
}

json_t *lsp_location_json(Server *s, Analysis *a, Span span)
{
    FileSpan at;
    if (!diag_locate(&a->c.sources, span, &at) || !a->files[at.file].uri)
        return NULL;
    return json_pack("{s:s, s:o}", "uri", a->files[at.file].uri,
                     "range", lsp_range_json(s, a, at.file, at.start, at.end));
}

/* The message with the notes, help lines and the fixes' messages below it, in the order
 * of the human format. (The primary label, the text under the carets, is left out: it
 * names the range the editor already underlines.) */
static json_t *folded_message(const Diagnostic *d)
{
    size_t len = strlen(d->message);
    for (const DiagText *t = d->notes; t; t = t->next)
        len += strlen(t->text) + 7;
    for (const DiagText *t = d->helps; t; t = t->next)
        len += strlen(t->text) + 7;
    for (const DiagFix *f = d->fixes; f; f = f->next)
        len += strlen(f->message) + 7;
    char *text = xmalloc(len + 1), *out = text;
    out += sprintf(out, "%s", d->message);
    for (const DiagText *t = d->notes; t; t = t->next)
        out += sprintf(out, "\nnote: %s", t->text);
    for (const DiagText *t = d->helps; t; t = t->next)
        out += sprintf(out, "\nhelp: %s", t->text);
    for (const DiagFix *f = d->fixes; f; f = f->next)
        out += sprintf(out, "\nhelp: %s", f->message);
    json_t *message = diag_json_text(text, (size_t)(out - text));
    free(text);
    return message;
}

json_t *lsp_diagnostic_json(Server *s, Analysis *a, const Diagnostic *d)
{
    FileSpan at;
    diag_locate(&a->c.sources, d->span, &at);
    json_t *json = json_pack("{s:o, s:i, s:s, s:s, s:o}",
                             "range", lsp_range_json(s, a, at.file, at.start, at.end),
                             "severity", d->severity == SEV_ERROR ? 1 : 2,
                             "code", diag_info(d->code)->code,
                             "source", "orbitc",
                             "message", folded_message(d));
    json_t *href = lsp_code_href(s, d->code);
    if (href)
        json_object_set_new(json, "codeDescription", json_pack("{s:o}", "href", href));
    if (is_unnecessary(d->code))
        json_object_set_new(json, "tags", json_pack("[i]", 1));
    json_t *related = json_array();
    for (const DiagLabel *l = d->labels; l; l = l->next) {
        json_t *where = lsp_location_json(s, a, l->span);
        if (where)
            json_array_append_new(related, json_pack("{s:o, s:o}", "location", where,
                                                      "message", diag_json_text0(l->message)));
    }
    if (json_array_size(related) > 0)
        json_object_set_new(json, "relatedInformation", related);
    else
        json_decref(related);
    return json;
}

/* Diagnostic k of the analysis as published: a warning its folder's baseline holds is
 * shown as a hint (docs/editors.md, "Baseline"). */
static json_t *publishable(Server *s, Analysis *a, uint32_t k)
{
    json_t *json = lsp_diagnostic_json(s, a, a->c.diags.items[k]);
    if (a->baselined && a->baselined[k] == BASELINE_KNOWN) {
        json_object_set_new(json, "severity", json_integer(4));
        TextBuffer message = { 0 };
        text_printf(&message, "%s\n(in the baseline `%s`)",
                    json_string_value(json_object_get(json, "message")), s->baseline);
        json_object_set_new(json, "message", diag_json_text(message.data, message.len));
        text_free(&message);
    }
    return json;
}

/* ---- What was published ------------------------------------------------------------- */

static Published *published_find(Project *p, const char *uri, bool make)
{
    json_t *index = json_object_get(p->published_by_uri, uri);
    if (index)
        return &p->published[json_integer_value(index)];
    if (!make)
        return NULL;
    if (p->published_count == p->published_cap) {
        p->published_cap = p->published_cap ? p->published_cap * 2 : 16;
        p->published = xrealloc(p->published, p->published_cap * sizeof *p->published);
    }
    json_object_set_new_nocheck(p->published_by_uri, uri, json_integer(p->published_count));
    const char *key = json_object_iter_key(json_object_iter_at(p->published_by_uri, uri));
    Published *e = &p->published[p->published_count++];
    *e = (Published){ key, 0, -1, true, 0 };
    return e;
}

static void send_diagnostics(Server *s, const char *uri, bool versioned, int64_t version,
                             json_t *list)
{
    json_t *params = json_pack("{s:s, s:o}", "uri", uri, "diagnostics", list);
    if (versioned)
        json_object_set_new(params, "version", json_integer(version));
    lsp_send_notification(s, "textDocument/publishDiagnostics", params);
}

/* Publishes one file's list if it differs from what the client has. Steals `list`. */
static void publish_file(Server *s, Project *p, AnalysisFile *f, json_t *list)
{
    bool open = f->document != NO_INDEX;
    bool empty = json_array_size(list) == 0;
    Published *e = published_find(p, f->uri, !empty || open);
    if (!e) {
        json_decref(list);
        return;
    }
    e->stamp = p->stamp;
    char *text = json_dumps(list, JSON_COMPACT);
    uint64_t hash = text ? hash_fnv1a(HASH_FNV1A_START, text, strlen(text)) : 0;
    free(text);
    if (hash == e->hash && empty == e->empty && (!open || f->version == e->version)) {
        json_decref(list);
        return;
    }
    e->hash = hash;
    e->empty = empty;
    e->version = open ? f->version : -1;
    send_diagnostics(s, f->uri, open, f->version, list);
}

void lsp_publish_diagnostics(Server *s, Project *p)
{
    Analysis *a = p->analysis;
    const DiagSink *sink = &a->c.diags;
    p->stamp++;
    uint32_t k = 0;      /* diagnostics are sorted by file */
    for (uint32_t file = 1; file < a->c.sources.count; file++) {
        json_t *list = json_array();
        for (; k < sink->count; k++) {
            FileSpan at;
            diag_locate(&a->c.sources, sink->items[k]->span, &at);
            if (at.file > file)
                break;
            if (at.file == file)
                json_array_append_new(list, publishable(s, a, k));
        }
        lsp_lens_diagnostics(s, &a->files[file], list);   /* the tests' failures */
        publish_file(s, p, &a->files[file], list);
    }
    for (uint32_t i = 0; i < p->published_count; i++) {
        Published *e = &p->published[i];
        if (e->stamp != p->stamp && !e->empty) {
            e->empty = true;
            e->hash = 0;
            send_diagnostics(s, e->uri, false, 0, json_array());
        }
    }
}

void lsp_publish_clear_all(Server *s, Project *p)
{
    for (uint32_t i = 0; i < p->published_count; i++) {
        Published *e = &p->published[i];
        if (!e->empty)
            send_diagnostics(s, e->uri, false, 0, json_array());
        e->empty = true;
    }
}

void lsp_published_free(Project *p)
{
    free(p->published);
    p->published = NULL;
    p->published_count = p->published_cap = 0;
    json_decref(p->published_by_uri);
    p->published_by_uri = NULL;
}
