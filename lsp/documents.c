/* Open documents: their text as the editor has it, kept in sync by didOpen, didChange
 * (whole text, or ranges: TextDocumentSyncKind.Incremental) and didClose. */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "uri.h"

Document *lsp_document_find(Server *s, const char *uri)
{
    json_t *index = uri ? json_object_get(s->document_by_uri, uri) : NULL;
    return index ? &s->documents[json_integer_value(index)] : NULL;
}

/* The document of a URI, made (closed, empty) when it is new. */
static Document *document_make(Server *s, const char *uri)
{
    Document *d = lsp_document_find(s, uri);
    if (d)
        return d;
    if (s->document_count == s->document_cap) {
        s->document_cap = s->document_cap ? s->document_cap * 2 : 16;
        s->documents = xrealloc(s->documents, s->document_cap * sizeof *s->documents);
    }
    json_object_set_new_nocheck(s->document_by_uri, uri, json_integer(s->document_count));
    d = &s->documents[s->document_count++];
    memset(d, 0, sizeof *d);
    d->uri = json_object_iter_key(json_object_iter_at(s->document_by_uri, uri));
    d->path = lsp_uri_to_path(uri);
    d->project = NO_INDEX;
    return d;
}

const char *lsp_params_uri(Server *s, const json_t *params)
{
    return lsp_json_string_member(lsp_json_object_member(params, "textDocument"), "uri");
}

static void set_text(Document *d, const char *text, size_t len)
{
    if (len + 1 > d->cap) {
        d->cap = (uint32_t)len + 1;
        d->text = xrealloc(d->text, d->cap);
    }
    memcpy(d->text, text, len);
    d->text[len] = '\0';
    d->len = (uint32_t)len;
}

/* Replaces text[start, end) with `insert`. */
static void splice(Document *d, uint32_t start, uint32_t end, const char *insert, size_t n)
{
    size_t len = (size_t)d->len - (end - start) + n;
    if (len + 1 > d->cap) {
        size_t cap = (size_t)d->cap * 2 > len + 1 ? (size_t)d->cap * 2 : len + 1;
        d->text = xrealloc(d->text, cap);
        d->cap = (uint32_t)cap;
    }
    memmove(d->text + start + n, d->text + end, d->len - end + 1);
    memcpy(d->text + start, insert, n);
    d->len = (uint32_t)len;
}

static bool read_position(const json_t *json, LspPosition *out)
{
    int64_t line, character;
    if (!lsp_json_integer_member(json, "line", &line) ||
        !lsp_json_integer_member(json, "character", &character) || line < 0 || character < 0)
        return false;
    out->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    out->character = character > UINT32_MAX ? UINT32_MAX : (uint32_t)character;
    return true;
}

bool lsp_read_range(const json_t *json, LspPosition *start, LspPosition *end)
{
    return read_position(lsp_json_object_member(json, "start"), start) &&
           read_position(lsp_json_object_member(json, "end"), end);
}

/* One TextDocumentContentChangeEvent: a range and its new text, or the whole text. */
static bool apply_change(Server *s, Document *d, const json_t *change)
{
    json_t *text = lsp_json_object_member(change, "text");
    if (!json_is_string(text))
        return false;
    const char *insert = json_string_value(text);
    size_t n = json_string_length(text);
    json_t *range = lsp_json_object_member(change, "range");
    if (!range) {
        if (n > LSP_MAX_BODY)
            return false;
        set_text(d, insert, n);
        return true;
    }
    LspPosition from, to;
    if (!lsp_read_range(range, &from, &to))
        return false;
    LineIndex lines;
    lsp_line_index_build(&lines, d->text, d->len);
    uint32_t start = lsp_line_index_offset(&lines, from, s->encoding);
    uint32_t end = lsp_line_index_offset(&lines, to, s->encoding);
    lsp_line_index_free(&lines);
    if (end < start || (size_t)d->len - (end - start) + n > LSP_MAX_BODY)
        return false;
    splice(d, start, end, insert, n);
    return true;
}

json_t *lsp_handle_did_open(Server *s, json_t *params)
{
    json_t *item = lsp_json_object_member(params, "textDocument");
    const char *uri = lsp_json_string_member(item, "uri");
    json_t *text = lsp_json_object_member(item, "text");
    int64_t version = 0;
    if (!uri || !json_is_string(text))
        return lsp_request_error(s, RPC_INVALID_PARAMS,
                                 "didOpen needs textDocument.uri and .text");
    if (json_string_length(text) > LSP_MAX_BODY)
        return lsp_request_error(s, RPC_INVALID_PARAMS, "the document is too large");
    lsp_json_integer_member(item, "version", &version);
    Document *d = document_make(s, uri);
    if (d->open)
        lsp_log_message(s, "didOpen of a document that is open already: %s", uri);
    set_text(d, json_string_value(text), json_string_length(text));
    d->version = version;
    d->open = true;
    if (lsp_is_stdlib_copy(s, d->path))
        return NULL;             /* shown read-only, never checked as a program */
    d->project = lsp_project_for(s, d->uri, d->path);
    lsp_project_mark_dirty(s, d->project);
    return NULL;
}

json_t *lsp_handle_did_change(Server *s, json_t *params)
{
    Document *d = lsp_document_find(s, lsp_params_uri(s, params));
    json_t *changes = lsp_json_object_member(params, "contentChanges");
    if (!d || !d->open)
        return lsp_request_error(s, RPC_INVALID_PARAMS,
                                 "didChange of a document that is not open");
    if (!json_is_array(changes))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "didChange needs contentChanges");
    int64_t version;
    json_t *item = lsp_json_object_member(params, "textDocument");
    if (lsp_json_integer_member(item, "version", &version))
        d->version = version;
    lsp_project_mark_dirty(s, d->project);
    size_t i;
    json_t *change;
    json_array_foreach(changes, i, change)
        if (!apply_change(s, d, change))
            return lsp_request_error(s, RPC_INVALID_PARAMS, "change %zu of %s cannot be applied: "
                                     "the document may now differ from the editor's", i, d->uri);
    return NULL;
}

json_t *lsp_handle_did_close(Server *s, json_t *params)
{
    Document *d = lsp_document_find(s, lsp_params_uri(s, params));
    if (!d || !d->open)
        return lsp_request_error(s, RPC_INVALID_PARAMS, "didClose of a document that is not open");
    d->open = false;
    lsp_semantic_forget(d);
    free(d->text);
    d->text = NULL;
    d->len = d->cap = 0;
    uint32_t project = d->project;
    d->project = NO_INDEX;
    lsp_project_release(s, project);
    return NULL;
}

json_t *lsp_handle_did_save(Server *s, json_t *params)
{
    Document *d = lsp_document_find(s, lsp_params_uri(s, params));
    if (d && d->open && d->project != NO_INDEX) {
        s->projects[d->project].rescan = true;
        lsp_project_mark_dirty(s, d->project);
    }
    return NULL;
}

void lsp_documents_free(Server *s)
{
    for (uint32_t i = 0; i < s->document_count; i++) {
        free(s->documents[i].path);
        free(s->documents[i].text);
        lsp_semantic_forget(&s->documents[i]);
    }
    free(s->documents);
    json_decref(s->document_by_uri);
}
