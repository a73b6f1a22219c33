/* What the server shows a person (hover): written once in Markdown, and sent as
 * Markdown to a client that prefers it, or as plain text to one that does not
 * (docs/editors.md, "Hover"). The Markdown the server writes uses a small subset —
 * `# headings`, `**strong**`, `` `code` ``, `- ` list items, a line ending in two spaces
 * (a line break), fenced code blocks — and the plain text is that Markdown with its
 * marks taken out: list items indented by two spaces instead of bulleted, fences
 * dropped (the code inside kept as it is). */
#include "server.h"

#include <string.h>

#include "textbuf.h"

/* One line outside a code block, without its marks. */
static void plain_line(TextBuffer *out, const char *line, size_t len)
{
    size_t hashes = 0;
    while (hashes < len && line[hashes] == '#')
        hashes++;
    if (hashes > 0 && hashes < len && line[hashes] == ' ') {   /* a heading */
        line += hashes + 1;
        len -= hashes + 1;
    }
    if (len >= 2 && line[0] == '-' && line[1] == ' ') {
        text_append_str(out, "  ");
        line += 2;
        len -= 2;
    }
    while (len >= 2 && line[len - 1] == ' ' && line[len - 2] == ' ')
        len -= 2;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '`')
            continue;
        if (line[i] == '*' && i + 1 < len && line[i + 1] == '*') {
            i++;
            continue;
        }
        text_append(out, line + i, 1);
    }
}

static bool is_fence(const char *line, size_t len)
{
    return len >= 3 && memcmp(line, "```", 3) == 0;
}

void lsp_markdown_to_plain(TextBuffer *out, const char *markdown, size_t len)
{
    bool in_code = false;
    const char *end = markdown + len;
    for (const char *line = markdown; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t line_len = (size_t)((nl ? nl : end) - line);
        if (is_fence(line, line_len))
            in_code = !in_code;
        else if (in_code)
            text_append(out, line, line_len);
        else
            plain_line(out, line, line_len);
        if (nl && !is_fence(line, line_len))
            text_append_str(out, "\n");
        line += line_len + (nl != NULL);
    }
}

json_t *lsp_markup_json(Server *s, const char *markdown, size_t len)
{
    if (s->client_markdown)
        return json_pack("{s:s, s:o}", "kind", "markdown",
                         "value", diag_json_text(markdown, len));
    TextBuffer plain = { 0 };
    lsp_markdown_to_plain(&plain, markdown, len);
    json_t *value = diag_json_text(plain.data ? plain.data : "", plain.len);
    text_free(&plain);
    return json_pack("{s:s, s:o}", "kind", "plaintext", "value", value);
}
