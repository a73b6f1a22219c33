/* Diagnostic codes where users write them (docs/editors.md, "Diagnostic codes"): in the
 * `// orbit:allow(…)` comments of a source and as the lint levels of a program's
 * configuration (`lints { W0007: warn }` in orbit.program). For each code there:
 * a document link to its explanation, hover with the explanation (the text of
 * `orbitc explain`, diagnostics/explain/), and completion of the codes that may be
 * written there. The address of an explanation is also each published diagnostic's
 * `codeDescription.href` (publish.c): the explanations as files of the server's cache
 * (cache.c), or initializationOptions.explainUri with `{code}` replaced. */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "suppress.h"
#include "uri.h"

/* initializationOptions.explainUri: the place holder replaced by a code. */
static const char CODE_PLACEHOLDER[] = "{code}";

/* A code as written: bytes [start, end) of its file's text; `code` is -1 when the word
 * names no code. */
typedef struct CodeWord {
    uint32_t start, end;
    int code;
} CodeWord;

typedef struct CodeWords {
    CodeWord *items;
    uint32_t count, cap;
} CodeWords;

/* ---- Where codes are written ------------------------------------------------------- */

static bool is_code_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static void add_word(CodeWords *words, const char *text, uint32_t start, uint32_t end)
{
    if (words->count == words->cap) {
        words->cap = words->cap ? words->cap * 2 : 16;
        words->items = xrealloc(words->items, words->cap * sizeof *words->items);
    }
    words->items[words->count++] = (CodeWord){ start, end,
                                               diag_code_from_text(text + start, end - start) };
}

/* The words of text[start, end) (a directive's list). */
static void list_words(CodeWords *words, const char *text, uint32_t start, uint32_t end)
{
    for (uint32_t i = start; i < end;) {
        uint32_t word = i;
        while (i < end && is_code_char(text[i]))
            i++;
        if (i > word)
            add_word(words, text, word, i);
        else
            i++;
    }
}

static bool is_clause(const Member *m, const char *word)
{
    return m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE && m->key &&
           strcmp(m->key->text, word) == 0;
}

/* The `lints { … }` block of a configuration (`program NAME { lints { … } }`), or NULL. */
static const Block *lints_block(const SourceAst *ast)
{
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (!is_clause(m, "program"))
            continue;
        const Block *body = member_body(m);
        for (const Member *l = block_first(body), *last = block_end(body); l != last; l++)
            if (is_clause(l, "lints") && member_body(l))
                return member_body(l);
    }
    return NULL;
}

static bool is_configuration(Analysis *a, uint32_t file)
{
    return inputs_is_program_config(source_file(&a->c.sources, file)->path);
}

static const SourceAst *file_ast(Analysis *a, uint32_t file)
{
    return file < a->c.ast_count ? a->c.asts[file] : NULL;
}

/* The comment of `ast` that holds byte `offset` of its file (its end included), or NULL. */
static const Comment *comment_at(const SourceAst *ast, uint32_t origin, uint32_t offset)
{
    uint32_t lo = 0, hi = ast ? ast->comment_count : 0;
    while (lo < hi) {            /* the first comment that ends at or after offset */
        uint32_t mid = lo + (hi - lo) / 2;
        if (ast->comments[mid].span.end - origin < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (ast && lo < ast->comment_count && ast->comments[lo].span.start - origin <= offset)
        return &ast->comments[lo];
    return NULL;
}

/* A directive's list in a comment, as offsets of the file: false when it holds none. */
static bool comment_list(const Comment *cm, uint32_t origin, uint32_t *start, uint32_t *end)
{
    uint32_t at = cm->span.start - origin;
    if (!suppress_directive_list(cm->text, cm->span.end - cm->span.start, cm->block, start,
                                 end))
        return false;
    *start += at;
    *end += at;
    return true;
}

/* Every code word of a file, valid or not: the lists of its directives, or the names of
 * its configuration's lint levels. */
static void file_code_words(Analysis *a, uint32_t file, CodeWords *words)
{
    const SourceFile *f = source_file(&a->c.sources, file);
    const SourceAst *ast = file_ast(a, file);
    if (!ast)
        return;
    if (is_configuration(a, file)) {
        const Block *lints = lints_block(ast);
        for (const Member *m = block_first(lints), *end = block_end(lints); m != end; m++) {
            Span span = m->name ? member_name_span(m) : m->key ? member_key_span(m)
                                                              : span_make(0, 0);
            if (span.end > span.start)
                add_word(words, f->text, span.start - f->origin, span.end - f->origin);
        }
        return;
    }
    for (uint32_t i = 0; i < ast->comment_count; i++) {
        uint32_t start, end;
        if (comment_list(&ast->comments[i], f->origin, &start, &end))
            list_words(words, f->text, start, end);
    }
}

/* The registered code written at byte `offset`, or NULL. */
static const CodeWord *code_word_at(const CodeWords *words, uint32_t offset)
{
    for (uint32_t i = 0; i < words->count; i++)
        if (words->items[i].start <= offset && offset < words->items[i].end &&
            words->items[i].code >= 0)
            return &words->items[i];
    return NULL;
}

/* ---- The address of an explanation ---------------------------------------------- */

void lsp_codes_options(Server *s, const json_t *options)
{
    const char *uri = lsp_json_string_member(options, "explainUri");
    if (!uri)
        return;
    if (!strstr(uri, CODE_PLACEHOLDER)) {
        lsp_log_message(s, "initializationOptions.explainUri: `%s` has no {code}; ignored", uri);
        return;
    }
    s->explain_uri = strcpy(xmalloc(strlen(uri) + 1), uri);
}

/* Writes every explanation to the cache once (explain/CODE.md); explain_base is then
 * the URI of that directory, with a final slash. */
static void write_explanations(Server *s)
{
    s->explain_tried = true;
    char path[LSP_CACHE_PATH_MAX];
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        char name[32];
        snprintf(name, sizeof name, "explain/%s.md", diag_info((DiagCode)i)->code);
        const char *text = diag_explanation((DiagCode)i);
        if (!lsp_cache_path(s, name, path) ||
            !lsp_cache_write(s, path, text, (uint32_t)strlen(text)))
            return;
    }
    *strrchr(path, '/') = '\0';
    char *dir = lsp_uri_from_path(path);
    size_t len = strlen(dir);
    s->explain_base = xrealloc(dir, len + 2);
    memcpy(s->explain_base + len, "/", 2);
}

json_t *lsp_code_href(Server *s, DiagCode code)
{
    const char *name = diag_info(code)->code;
    if (s->explain_uri) {
        TextBuffer href = { 0 };
        const char *at = s->explain_uri, *hole;
        while ((hole = strstr(at, CODE_PLACEHOLDER))) {
            text_printf(&href, "%.*s%s", (int)(hole - at), at, name);
            at = hole + sizeof CODE_PLACEHOLDER - 1;
        }
        text_append_str(&href, at);
        json_t *json = diag_json_text(href.data, href.len);
        text_free(&href);
        return json;
    }
    if (!s->explain_tried)
        write_explanations(s);
    if (!s->explain_base)
        return NULL;
    char href[LSP_CACHE_PATH_MAX + 64];
    snprintf(href, sizeof href, "%s%s.md", s->explain_base, name);
    return diag_json_text0(href);
}

void lsp_codes_free(Server *s)
{
    free(s->explain_uri);
    free(s->explain_base);
}

/* ---- Requests ------------------------------------------------------------------- */

json_t *lsp_handle_document_link(Server *s, json_t *params)
{
    uint32_t file;
    Analysis *a = lsp_source_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a)
        return NULL;
    CodeWords words = { 0 };
    file_code_words(a, file, &words);
    json_t *links = json_array();
    LineIndex *lines = lsp_analysis_lines(a, file);
    for (uint32_t i = 0; i < words.count; i++) {
        const CodeWord *w = &words.items[i];
        json_t *href = w->code >= 0 ? lsp_code_href(s, (DiagCode)w->code) : NULL;
        if (!href)
            continue;
        const DiagInfo *info = diag_info((DiagCode)w->code);
        char tooltip[256];
        snprintf(tooltip, sizeof tooltip, "orbitc explain %s: %s", info->code, info->title);
        json_array_append_new(links, json_pack("{s:o, s:o, s:s}",
                                               "range", lsp_line_range_json(s, lines, w->start,
                                                                            w->end),
                                               "target", href, "tooltip", tooltip));
    }
    free(words.items);
    return links;
}

json_t *lsp_code_hover(Server *s, json_t *params)
{
    uint32_t file, offset;
    Analysis *a = lsp_source_at(s, params, &file, &offset);
    if (!a)
        return NULL;
    CodeWords words = { 0 };
    file_code_words(a, file, &words);
    const CodeWord *w = code_word_at(&words, offset);
    json_t *result = NULL;
    if (w) {
        const char *text = diag_explanation((DiagCode)w->code);
        result = json_pack("{s:o, s:o}", "contents", lsp_markup_json(s, text, strlen(text)),
                           "range", lsp_line_range_json(s, lsp_analysis_lines(a, file),
                                                        w->start, w->end));
    } else if (is_configuration(a, file)) {
        result = json_null();     /* nothing else in a configuration has a hover */
    }
    free(words.items);
    return result;
}

/* Where codes may be typed at `offset`: the span of the word there (perhaps empty), and
 * whether the place is a configuration's lints (else a directive's list). */
typedef struct CodeSite {
    uint32_t word_start, word_end;
    bool in_configuration;
} CodeSite;

static void word_around(const char *text, uint32_t len, uint32_t offset, CodeSite *site)
{
    site->word_start = site->word_end = offset;
    while (site->word_start > 0 && is_code_char(text[site->word_start - 1]))
        site->word_start--;
    while (site->word_end < len && is_code_char(text[site->word_end]))
        site->word_end++;
}

/* In `lints { … }`, where a member's name goes: after `{`, `,`, `;` or a line end. */
static bool lints_name_at(const SourceFile *f, const Block *lints, uint32_t offset,
                          CodeSite *site)
{
    if (!lints || offset <= lints->span.start - f->origin ||
        offset >= lints->span.end - f->origin)
        return false;
    word_around(f->text, f->len, offset, site);
    uint32_t before = site->word_start;
    while (before > 0 && (f->text[before - 1] == ' ' || f->text[before - 1] == '\t'))
        before--;
    char c = before > 0 ? f->text[before - 1] : '\n';
    site->in_configuration = true;
    return c == '{' || c == ',' || c == ';' || c == '\n' || c == '\r';
}

static bool code_site_at(Analysis *a, uint32_t file, uint32_t offset, CodeSite *site)
{
    const SourceFile *f = source_file(&a->c.sources, file);
    const SourceAst *ast = file_ast(a, file);
    if (is_configuration(a, file))
        return lints_name_at(f, lints_block(ast), offset, site);
    const Comment *cm = comment_at(ast, f->origin, offset);
    uint32_t start, end;
    if (!cm || !comment_list(cm, f->origin, &start, &end) || offset < start || offset > end)
        return false;
    word_around(f->text, end, offset, site);
    site->in_configuration = false;
    return true;
}

/* Whether a code may be offered: a warning; in a directive, not W0008 or W0009 (they are
 * about directives themselves); not one written already elsewhere in the same list. */
static bool may_offer(DiagCode code, const CodeSite *site, const CodeWords *listed)
{
    if (diag_info(code)->severity != SEV_WARNING)
        return false;
    if (!site->in_configuration && (code == W0008 || code == W0009))
        return false;
    for (uint32_t i = 0; i < listed->count; i++)
        if (listed->items[i].code == (int)code && listed->items[i].start != site->word_start)
            return false;
    return true;
}

/* The codes of the list (or lints block) that holds the site. */
static void listed_codes(Analysis *a, uint32_t file, const CodeSite *site, CodeWords *out)
{
    CodeWords all = { 0 };
    file_code_words(a, file, &all);
    const SourceFile *f = source_file(&a->c.sources, file);
    const Comment *cm = site->in_configuration ? NULL
                      : comment_at(file_ast(a, file), f->origin, site->word_start);
    uint32_t start = 0, end = f->len;
    if (cm)
        comment_list(cm, f->origin, &start, &end);
    for (uint32_t i = 0; i < all.count; i++)
        if (all.items[i].start >= start && all.items[i].end <= end)
            add_word(out, f->text, all.items[i].start, all.items[i].end);
    free(all.items);
}

json_t *lsp_code_completion(Server *s, json_t *params)
{
    uint32_t file, offset;
    Analysis *a = lsp_source_at(s, params, &file, &offset);
    if (!a)
        return NULL;
    CodeSite site;
    if (!code_site_at(a, file, offset, &site))
        return is_configuration(a, file)
            ? json_pack("{s:b, s:[]}", "isIncomplete", 0, "items") : NULL;
    CodeWords listed = { 0 };
    listed_codes(a, file, &site, &listed);
    json_t *items = json_array();
    LineIndex *lines = lsp_analysis_lines(a, file);
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        if (!may_offer((DiagCode)i, &site, &listed))
            continue;
        const DiagInfo *info = diag_info((DiagCode)i);
        json_t *edit = json_pack("{s:o, s:s}", "range",
                                 lsp_line_range_json(s, lines, site.word_start, site.word_end),
                                 "newText", info->code);
        json_array_append_new(items, json_pack("{s:s, s:i, s:s, s:o}", "label", info->code,
                                               "kind", 21 /* Constant */, "detail", info->title,
                                               "textEdit", edit));
    }
    free(listed.items);
    return json_pack("{s:b, s:o}", "isIncomplete", 0, "items", items);
}
