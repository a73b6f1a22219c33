/* Formatting (docs/editors.md, "Formatting"): textDocument/formatting and
 * textDocument/rangeFormatting with the formatter of `orbitc fmt` (format/format.h).
 *
 * The answer is small edits that turn the open document into its formatted text, not
 * one edit of the whole document, so that the editor keeps its cursor, marks and folds
 * where the text did not change. The formatter changes only the space between tokens
 * (white space and the separators `,` and `;`), so the two texts have the same other
 * bytes in the same order: walking both at once, every run of white space and
 * separators that differs is one change. Should the texts ever differ elsewhere, the
 * whole differing span is one change. Beyond MAX_EDITS changes, consecutive changes are
 * merged into one edit (with the text between them). Either way the edits give exactly
 * the formatted text, and the work is linear in the size of the document. */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "inputs.h"
#include "source.h"

/* The bytes the formatter may change: white space (as the lexer skips it) and the
 * separators. */
static bool is_layout(char c)
{
    return source_is_space(c) || c == ',' || c == ';';
}

/* Whether an edit may not start or end at `at` of `text`: between the bytes of a "\r\n"
 * (no LSP position is there) or inside a UTF-8 sequence. */
static bool inside_unit(const char *text, size_t len, size_t at)
{
    if (at == 0 || at >= len)
        return false;
    return (text[at - 1] == '\r' && text[at] == '\n') || ((unsigned char)text[at] & 0xC0) == 0x80;
}

enum {
    /* At most this many edits in an answer: editors apply each edit on its own (Neovim
     * 0.7 takes about 0.1 ms an edit on a 20 KB document, 0.5 ms on 1 MB), so beyond
     * it neighbouring edits are merged (docs/editors.md, "Formatting"). */
    MAX_EDITS = 1000,
};

/* One difference: the bytes [start, end) of the document become [new_start, new_end)
 * of the formatted text. */
typedef struct Change {
    uint32_t start, end;
    size_t new_start, new_end;
} Change;

typedef struct Changes {
    const char *text;          /* the document */
    uint32_t len;
    const char *formatted;
    Change *items;
    uint32_t count, cap;
} Changes;

/* Records that text[start, end) becomes formatted[new_start, new_end), less the bytes
 * both begin and end with; nothing when they are equal. */
static void add_change(Changes *list, uint32_t start, uint32_t end, size_t new_start,
                       size_t new_end)
{
    const char *text = list->text, *insert = list->formatted + new_start;
    size_t n = new_end - new_start, prefix = 0, suffix = 0;
    while (start + prefix < end && prefix < n && text[start + prefix] == insert[prefix])
        prefix++;
    while (prefix > 0 && (inside_unit(text, list->len, start + prefix) ||
                          inside_unit(insert, n, prefix)))
        prefix--;
    while (end - suffix > start + prefix && n - suffix > prefix &&
           text[end - suffix - 1] == insert[n - suffix - 1])
        suffix++;
    while (suffix > 0 && (inside_unit(text, list->len, end - suffix) ||
                          inside_unit(insert, n, n - suffix)))
        suffix--;
    if (end - start == prefix + suffix && n == prefix + suffix)
        return;
    if (list->count == list->cap) {
        list->cap = list->cap ? list->cap * 2 : 64;
        list->items = xrealloc(list->items, list->cap * sizeof *list->items);
    }
    list->items[list->count++] = (Change){ start + (uint32_t)prefix, end - (uint32_t)suffix,
                                           new_start + prefix, new_end - suffix };
}

/* The changes that turn text[start, end) into formatted[from, to): one for each run of
 * layout bytes that differs. False, with no change made, when the texts differ in
 * other bytes too. */
static bool add_layout_changes(Changes *list, uint32_t start, uint32_t end, size_t from,
                               size_t to)
{
    const char *text = list->text, *formatted = list->formatted;
    uint32_t i = start;
    size_t j = from;
    for (;;) {                 /* a check first: the changes are made in a second walk */
        while (i < end && is_layout(text[i]))
            i++;
        while (j < to && is_layout(formatted[j]))
            j++;
        if (i == end || j == to)
            break;
        if (text[i++] != formatted[j++])
            return false;
    }
    if (i != end || j != to)
        return false;
    for (i = start, j = from;;) {
        uint32_t run_start = i;
        size_t run_new = j;
        while (i < end && is_layout(text[i]))
            i++;
        while (j < to && is_layout(formatted[j]))
            j++;
        add_change(list, run_start, i, run_new, j);
        if (i == end)
            return true;
        i++;
        j++;
    }
}

/* The changes that turn text[start, end) into formatted[from, to). */
static void add_changes(Changes *list, uint32_t start, uint32_t end, size_t from, size_t to)
{
    if (!add_layout_changes(list, start, end, from, to))
        add_change(list, start, end, from, to);
}

/* The changes as TextEdit[]: each group of consecutive changes (one change, unless
 * there are more than MAX_EDITS) is one edit. */
static json_t *edits_json(Server *s, const Changes *list)
{
    LineIndex lines;
    lsp_line_index_build(&lines, list->text, list->len);
    json_t *edits = json_array();
    uint32_t group = (list->count + MAX_EDITS - 1) / MAX_EDITS;
    for (uint32_t i = 0; i < list->count; i += group) {
        const Change *first = &list->items[i];
        const Change *last = &list->items[i + group < list->count ? i + group - 1
                                                                  : list->count - 1];
        json_t *range = lsp_line_range_json(s, &lines, first->start, last->end);
        json_t *text = diag_json_text(list->formatted + first->new_start,
                                     last->new_end - first->new_start);
        json_array_append_new(edits, json_pack("{s:o, s:o}", "range", range, "newText", text));
    }
    lsp_line_index_free(&lines);
    return edits;
}

/* The open document of a formatting request; NULL (after lsp_request_error) if there
 * is none. Requests are answered in the order they came, after every change sent
 * before them: the text is the one the editor had when it asked. */
static Document *document_to_format(Server *s, const json_t *params)
{
    const char *uri = lsp_params_uri(s, params);
    Document *d = lsp_document_find(s, uri);
    if (!uri)
        lsp_request_error(s, RPC_INVALID_PARAMS, "textDocument.uri is missing");
    else if (!d || !d->open)
        lsp_request_error(s, LSP_REQUEST_FAILED, "%s is not open", uri);
    return d && d->open ? d : NULL;
}

/* Whether the document is a program's configuration (orbit.program): not a source, so
 * never formatted, as `orbitc fmt` refuses it (workspace/inputs.h). */
static bool is_configuration(Server *s, const Document *d)
{
    if (!d->path || !inputs_is_program_config(d->path))
        return false;
    lsp_log_message(s, "%s is a program configuration: it is not formatted", d->uri);
    return true;
}

/* The edits, or null (said on stderr) when the document has syntax errors or is too
 * large to be a source (format.h). */
static json_t *answer(Server *s, const Document *d, bool formatted, Changes *changes)
{
    json_t *result = formatted ? edits_json(s, changes) : json_null();
    if (!formatted)
        lsp_log_message(s, "%s %s: it is not formatted", d->uri,
                        d->len > SOURCE_MAX_FILE_SIZE ? "is too large" : "has syntax errors");
    free(changes->items);
    return result;
}

/* FormattingOptions (tabSize, insertSpaces, trimTrailingWhitespace, …) are not read:
 * the layout is one for everybody (docs/style.md). */
json_t *lsp_handle_formatting(Server *s, json_t *params)
{
    Document *d = document_to_format(s, params);
    if (!d)
        return NULL;
    if (is_configuration(s, d))
        return json_null();
    FormatText out = { 0 };
    bool ok = format_text(d->path, d->text, d->len, &out);
    Changes changes = { .text = d->text, .len = d->len, .formatted = out.text };
    if (ok)
        add_changes(&changes, 0, d->len, 0, out.len);
    json_t *result = answer(s, d, ok, &changes);
    format_text_free(&out);
    return result;
}

/* Every top-level declaration the range touches is formatted whole (format_range). */
json_t *lsp_handle_range_formatting(Server *s, json_t *params)
{
    Document *d = document_to_format(s, params);
    if (!d)
        return NULL;
    if (is_configuration(s, d))
        return json_null();
    LspPosition from, to;
    if (!lsp_read_range(lsp_json_object_member(params, "range"), &from, &to))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "rangeFormatting needs a range");
    LineIndex lines;
    lsp_line_index_build(&lines, d->text, d->len);
    uint32_t start = lsp_line_index_offset(&lines, from, s->encoding);
    uint32_t end = lsp_line_index_offset(&lines, to, s->encoding);
    lsp_line_index_free(&lines);
    FormatEdit edit;
    bool ok = format_range(d->path, d->text, d->len, start < end ? start : end,
                           start < end ? end : start, &edit);
    Changes changes = { .text = d->text, .len = d->len, .formatted = edit.replacement.text };
    if (ok && edit.replacement.text)
        add_changes(&changes, edit.start, edit.end, 0, edit.replacement.len);
    json_t *result = answer(s, d, ok, &changes);
    format_text_free(&edit.replacement);
    return result;
}
