/* Inline suppressions (suppress.h). For each source file that has `orbit:` comments:
 *
 *   1. read each directive (W0008 for what is wrong in it);
 *   2. find the member it applies to: a comment with code before it on its line applies
 *      to the first member that starts on that line (the outermost); a comment alone on
 *      its line applies to the member that starts right after it (only blanks and other
 *      comments in between);
 *   3. drop every warning whose primary range starts inside the member and whose code is
 *      listed. Members nest, so the members of all suppressions form a tree: sorted by
 *      start, each has a parent, and the suppressions that hold a position are a chain
 *      found by one binary search and a walk up the tree;
 *   4. report each listed code that silenced nothing (W0009), when that warning is on.
 *
 * Everything is O((comments + members + diagnostics) log) per run. */
#define _GNU_SOURCE   /* strncasecmp, whatever the C standard of the build */
#include "suppress.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>   /* strncasecmp */

#include "memory.h"
#include "suggest.h"

enum { NO_PARENT = UINT32_MAX };

static const char directive_prefix[] = "orbit:";
static const char allow_word[] = "allow";

typedef struct Allowed {
    DiagCode code;
    Span span;               /* the code as written */
    bool used;
} Allowed;

typedef struct Suppression {
    Span directive;          /* from `orbit:` to the closing `)` */
    Span list;               /* between the parentheses */
    Span removal;            /* what removing the whole comment deletes */
    Span scope;              /* the member it applies to (when `applies`) */
    Span member_head;        /* the member's first words, for a label */
    bool applies;
    bool had_problem;        /* something in it was reported (W0008) */
    uint32_t first, count;   /* its codes: allowed[first, first + count) */
    uint32_t parent;         /* the innermost suppression whose scope holds this one's */
} Suppression;

typedef struct Suppressions {
    Compiler *c;
    Suppression *items;
    uint32_t count, cap;
    Allowed *allowed;
    uint32_t allowed_count, allowed_cap;
    uint32_t listed[DIAG_CODE_COUNT];   /* per code: 1 + its last index in allowed */
} Suppressions;

/* A member of a file: its whole span and its first words. */
typedef struct MemberSpan {
    Span span;
    Span head;
} MemberSpan;

typedef struct MemberList {
    MemberSpan *items;
    uint32_t count, cap;
} MemberList;

/* White space within a line: not a line end (base/source.h). */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

static bool is_code_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

/* --- the members of a file, sorted by start (outermost first on a tie) --- */

static void collect_expr(MemberList *list, const Expr *e);

static void collect_block(MemberList *list, const Block *block)
{
    for (const Member *m = block_first(block), *end = block_end(block); m != end; m++) {
        if (list->count == list->cap) {
            list->cap = list->cap ? list->cap * 2 : 64;
            list->items = xrealloc(list->items, list->cap * sizeof *list->items);
        }
        uint32_t head_end = m->name_end > m->key_end ? m->name_end : m->key_end;
        if (head_end < m->span.start || head_end > m->span.end)
            head_end = m->key_end;
        list->items[list->count++] = (MemberSpan){ m->span, span_make(m->span.start, head_end) };
        collect_block(list, member_body(m));
        collect_expr(list, member_value(m));
    }
}

static void collect_expr(MemberList *list, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == EXPR_OBJECT) {
        collect_block(list, e->block);
        return;
    }
    for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
        collect_expr(list, expr_child(e, i));
}

static int compare_spans(Span a, Span b)
{
    if (a.start != b.start)
        return a.start < b.start ? -1 : 1;
    if (a.end != b.end)
        return a.end > b.end ? -1 : 1;   /* the outer one first */
    return 0;
}

static int compare_members(const void *pa, const void *pb)
{
    return compare_spans(((const MemberSpan *)pa)->span, ((const MemberSpan *)pb)->span);
}

/* The first member that starts at or after `pos`, or list->count. */
static uint32_t first_member_from(const MemberList *list, uint32_t pos)
{
    uint32_t lo = 0, hi = list->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (list->items[mid].span.start < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* --- reading a directive --- */

typedef struct Reader {
    Suppressions *s;
    const char *text;        /* the file's text */
    uint32_t origin;
    uint32_t pos, end;       /* offsets in the file */
} Reader;

static Span reader_span(const Reader *r, uint32_t start, uint32_t end)
{
    return span_make(r->origin + start, r->origin + end);
}

static void skip_blanks(Reader *r)
{
    while (r->pos < r->end && is_blank(r->text[r->pos]))
        r->pos++;
}

static Diagnostic *report_malformed(Reader *r, uint32_t at, const char *expected)
{
    DiagSink *sink = &r->s->c->diags;
    uint32_t end = at < r->end ? at + 1 : at;
    Diagnostic *d = diag_report(sink, W0008, reader_span(r, at, end),
                                "malformed suppression: expected %s", expected);
    diag_set_label(sink, d, "expected %s", expected);
    diag_add_help(sink, d, "write `// orbit:allow(W0006)`, or several codes: "
                           "`// orbit:allow(W0006, W0002)`");
    return d;
}

/* Whether `code` is listed already in the comment being read. A malformed comment's codes
 * are dropped (allowed_count goes back), so an index in `listed` may be stale: it counts
 * only while it holds that code, in this comment. */
static bool listed_before(const Suppressions *s, const Suppression *sup, DiagCode code)
{
    uint32_t at = s->listed[code];
    return at > sup->first && at <= s->allowed_count && s->allowed[at - 1].code == code;
}

/* One code of the list at [start, r->pos), after a code that ends at `previous_end` (0
 * for the first): kept when it names a warning that may be suppressed and is not listed
 * already, else reported. */
static bool read_code(Reader *r, uint32_t start, uint32_t previous_end, Suppression *sup)
{
    Suppressions *s = r->s;
    DiagSink *sink = &s->c->diags;
    uint32_t len = r->pos - start;
    const char *word = r->text + start;
    Span span = reader_span(r, start, r->pos);
    int code = diag_code_from_text(word, len);
    if (code >= 0 && diag_info((DiagCode)code)->severity == SEV_ERROR) {
        Diagnostic *d = diag_report(sink, W0008, span, "`%s` is an error, and errors cannot "
                                                       "be suppressed", diag_info((DiagCode)code)->code);
        diag_set_label(sink, d, "an error");
        diag_add_note(sink, d, "only warnings (`W` codes) can be allowed; fix the error instead");
        return false;
    }
    if (code == W0008 || code == W0009) {
        Diagnostic *d = diag_report(sink, W0008, span, "`%s` cannot be suppressed",
                                    diag_info((DiagCode)code)->code);
        diag_set_label(sink, d, "reported about suppressions themselves");
        diag_add_note(sink, d, "W0008 and W0009 are reported after the suppressions are "
                               "applied, about the suppression comments themselves");
        diag_add_help(sink, d, "fix the suppression, or turn the warning off for the "
                               "program: `--allow %s`", diag_info((DiagCode)code)->code);
        return false;
    }
    if (code >= 0 && listed_before(s, sup, (DiagCode)code)) {
        const Allowed *before = &s->allowed[s->listed[code] - 1];
        Diagnostic *d = diag_report(sink, W0008, span, "`%s` is listed twice in this "
                                    "suppression", diag_info((DiagCode)code)->code);
        diag_set_label(sink, d, "listed again");
        diag_add_label(sink, d, before->span, "listed here first");
        diag_add_fix(sink, d, reader_span(r, previous_end, r->pos), "", FIX_MACHINE_APPLICABLE,
                     "remove the second `%s`", diag_info((DiagCode)code)->code);
        return false;
    }
    if (code < 0) {
        const char *warning_codes[DIAG_CODE_COUNT];
        size_t warning_count = diag_warning_codes(warning_codes);
        const char *guess = suggest_name(word, len, warning_codes, warning_count);
        Diagnostic *d = diag_report(sink, W0008, span, "unknown warning code `%.*s` in a "
                                                       "suppression", (int)len, word);
        diag_set_label(sink, d, "no such warning");
        if (guess)
            diag_add_fix(sink, d, span, guess, FIX_MACHINE_APPLICABLE, "did you mean `%s`?", guess);
        else
            diag_add_help(sink, d, "`orbitc explain` lists every code");
        return false;
    }
    if (s->allowed_count == s->allowed_cap) {
        s->allowed_cap = s->allowed_cap ? s->allowed_cap * 2 : 16;
        s->allowed = xrealloc(s->allowed, s->allowed_cap * sizeof *s->allowed);
    }
    s->allowed[s->allowed_count++] = (Allowed){ (DiagCode)code, span, false };
    s->listed[code] = s->allowed_count;
    sup->count++;
    return true;
}

/* The list after `orbit:allow(`, up to and including `)`. False when it is malformed
 * (reported). */
static bool read_list(Reader *r, Suppression *sup)
{
    for (uint32_t previous_end = 0;;) {
        skip_blanks(r);
        uint32_t start = r->pos;
        while (r->pos < r->end && is_code_char(r->text[r->pos]))
            r->pos++;
        if (r->pos == start) {
            report_malformed(r, start, "a warning code such as `W0006`");
            return false;
        }
        if (!read_code(r, start, previous_end, sup))
            sup->had_problem = true;
        previous_end = r->pos;
        skip_blanks(r);
        if (r->pos < r->end && r->text[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->end && r->text[r->pos] == ')') {
            r->pos++;
            return true;
        }
        report_malformed(r, r->pos, "`,` or `)`");
        return false;
    }
}

/* `// ORBIT:ALLOW(W0002)`: a directive in the wrong letter case silences nothing, as an
 * unknown one does, and is reported with the spelling as its fix (the codes may be in
 * any case; the directive is a keyword). Returns false. */
static bool report_letter_case(Reader *r, uint32_t directive_start)
{
    DiagSink *sink = &r->s->c->diags;
    Span span = reader_span(r, directive_start, r->pos);
    uint32_t len = r->pos - directive_start;
    Diagnostic *d = diag_report(sink, W0008, span, "the directive `%.*s` is written `orbit:allow`",
                                (int)len, r->text + directive_start);
    diag_set_label(sink, d, "in lower case");
    diag_add_note(sink, d, "a directive in another letter case silences nothing");
    diag_add_fix(sink, d, span, "orbit:allow", FIX_MACHINE_APPLICABLE, "write `orbit:allow`");
    return false;
}

bool suppress_directive_list(const char *text, uint32_t len, bool block, uint32_t *start,
                             uint32_t *end)
{
    uint32_t pos = text[0] == '#' ? 1 : 2;
    if (block && len >= 4 && memcmp(text + len - 2, "*/", 2) == 0)
        len -= 2;
    while (pos < len && is_blank(text[pos]))
        pos++;
    static const char directive[] = "orbit:allow(";
    size_t n = sizeof directive - 1;
    if (pos > len || len - pos < n || memcmp(text + pos, directive, n) != 0)
        return false;
    *start = pos + (uint32_t)n;
    const char *close = memchr(text + *start, ')', len - *start);
    *end = close ? (uint32_t)(close - text) : len;
    return true;
}

/* Reads the directive in comment `cm`, if it holds one, into *sup. Returns false when the
 * comment is not a directive or the directive is not usable (reported). */
static bool read_directive(Suppressions *s, const SourceFile *file, const Comment *cm,
                           Suppression *sup)
{
    uint32_t opener = cm->text[0] == '#' ? 1 : 2;   /* `#` (an error, E0002), or two characters */
    Reader r = { s, file->text, file->origin, cm->span.start - file->origin + opener,
                 cm->span.end - file->origin };
    if (cm->block && r.end - r.pos >= 2 && memcmp(r.text + r.end - 2, "*/", 2) == 0)
        r.end -= 2;
    skip_blanks(&r);
    size_t prefix = sizeof directive_prefix - 1;
    if (r.end - r.pos < prefix || strncasecmp(r.text + r.pos, directive_prefix, prefix) != 0)
        return false;
    uint32_t directive_start = r.pos;
    r.pos += (uint32_t)prefix;
    uint32_t word = r.pos;
    while (r.pos < r.end && is_word_char(r.text[r.pos]))
        r.pos++;
    uint32_t word_len = r.pos - word;
    bool allow_in_any_case = word_len == sizeof allow_word - 1 &&
                             strncasecmp(r.text + word, allow_word, word_len) == 0;
    if (allow_in_any_case && memcmp(r.text + directive_start, "orbit:allow", r.pos - directive_start))
        return report_letter_case(&r, directive_start);
    bool lower_prefix = memcmp(r.text + directive_start, directive_prefix, prefix) == 0;
    if (!lower_prefix)
        return false;   /* `// Orbit: a remark` is an ordinary comment */
    bool is_allow = allow_in_any_case;
    bool paren = r.pos < r.end && r.text[r.pos] == '(';
    if (word_len == 0 || (!is_allow && !paren))
        return false;   /* `// orbit: a remark` is an ordinary comment */
    memset(sup, 0, sizeof *sup);
    sup->first = s->allowed_count;
    if (!is_allow) {
        DiagSink *sink = &s->c->diags;
        Span span = reader_span(&r, word, r.pos);
        Diagnostic *d = diag_report(sink, W0008, span, "unknown directive `orbit:%.*s`",
                                    (int)word_len, r.text + word);
        diag_set_label(sink, d, "unknown");
        const char *const candidates[] = { allow_word };
        if (suggest_name(r.text + word, word_len, candidates, 1))
            diag_add_fix(sink, d, span, allow_word, FIX_MACHINE_APPLICABLE,
                         "did you mean `orbit:allow`?");
        else
            diag_add_help(sink, d, "the only directive is `orbit:allow(CODE, ...)`");
        return false;
    }
    if (!paren) {
        report_malformed(&r, r.pos, "`(`");
        return false;
    }
    r.pos++;
    uint32_t list_start = r.pos;
    if (!read_list(&r, sup)) {
        s->allowed_count = sup->first;
        return false;
    }
    sup->directive = reader_span(&r, directive_start, r.pos);
    sup->list = reader_span(&r, list_start, r.pos - 1);
    return true;
}

/* --- where a comment stands --- */

typedef struct Layout {
    bool *code_before;       /* per comment: code before it on its line */
    uint32_t *next_code;     /* per comment: the first byte after it that is neither blank
                                nor in a comment (file offsets) */
} Layout;

/* Blanks and separators: `,` and `;` are layout, which the formatter removes and writes
 * itself, so they tell nothing about where a comment stands (docs/style.md). */
static bool is_layout(char c)
{
    return source_is_space(c) || c == ',' || c == ';';
}

static uint32_t line_start_of(const Compiler *c, uint32_t file, uint32_t offset)
{
    return source_line_start(&c->sources, file, source_line_of(&c->sources, file, offset));
}

static Layout lay_out(const Compiler *c, const SourceAst *ast, const SourceFile *file)
{
    uint32_t n = ast->comment_count;
    Layout layout = { xcalloc(n, sizeof *layout.code_before), xcalloc(n, sizeof *layout.next_code) };
    const char *text = file->text;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t start = ast->comments[k].span.start - file->origin;
        uint32_t line = line_start_of(c, ast->file, start);
        uint32_t from = line;
        bool before = false;
        if (k > 0) {
            uint32_t prev_end = ast->comments[k - 1].span.end - file->origin;
            uint32_t prev_start = ast->comments[k - 1].span.start - file->origin;
            if (prev_end > line) {
                from = prev_end;
                before = prev_start >= line && layout.code_before[k - 1];
            }
        }
        for (uint32_t i = from; i < start && !before; i++)
            before = !is_layout(text[i]);
        layout.code_before[k] = before;
    }
    for (uint32_t k = n; k-- > 0;) {
        uint32_t pos = ast->comments[k].span.end - file->origin;
        while (pos < file->len && is_layout(text[pos]))
            pos++;
        bool next_comment = k + 1 < n && pos == ast->comments[k + 1].span.start - file->origin;
        layout.next_code[k] = next_comment ? layout.next_code[k + 1] : pos;
    }
    return layout;
}

static void layout_free(Layout *layout)
{
    free(layout->code_before);
    free(layout->next_code);
}

/* What removing comment `cm` deletes: the whole line when it stands alone on it, else
 * the comment and the blanks before it (or after it, at the start of a line). */
static Span removal_of(const SourceFile *file, const Comment *cm, bool code_before)
{
    const char *text = file->text;
    uint32_t start = cm->span.start - file->origin;
    uint32_t end = cm->span.end - file->origin;
    if (code_before) {
        while (start > 0 && is_blank(text[start - 1]))
            start--;
    } else {
        uint32_t after = end;
        while (after < file->len && is_blank(text[after]))
            after++;
        if (after >= file->len || source_is_eol(text[after])) {
            while (start > 0 && is_blank(text[start - 1]))
                start--;
            end = after < file->len ? after + source_eol_len(text + after, text + file->len)
                                    : after;
        } else {
            end = after;
        }
    }
    return span_make(file->origin + start, file->origin + end);
}

/* Sets the member the suppression in comment k applies to. */
static void find_scope(const Compiler *c, const SourceAst *ast, const SourceFile *file,
                       const MemberList *members, const Layout *layout, uint32_t k,
                       Suppression *sup)
{
    const Comment *cm = &ast->comments[k];
    uint32_t i;
    if (layout->code_before[k]) {
        uint32_t line = file->origin + line_start_of(c, ast->file, cm->span.start - file->origin);
        i = first_member_from(members, line);
        sup->applies = i < members->count && members->items[i].span.start < cm->span.start;
    } else {
        uint32_t next = file->origin + layout->next_code[k];
        i = first_member_from(members, next);
        sup->applies = i < members->count && members->items[i].span.start == next;
    }
    if (sup->applies) {
        sup->scope = members->items[i].span;
        sup->member_head = members->items[i].head;
    }
    sup->removal = removal_of(file, cm, layout->code_before[k]);
}

/* --- gathering every suppression of the program --- */

/* Whether text holds `orbit:`, in any letter case. */
static bool holds_prefix(const char *text, size_t len)
{
    size_t n = sizeof directive_prefix - 1;
    for (const char *colon = text; (colon = memchr(colon, ':', len - (size_t)(colon - text)));
         colon++)
        if ((size_t)(colon - text) >= n - 1 && strncasecmp(colon - (n - 1), directive_prefix, n) == 0)
            return true;
    return false;
}

/* Whether a comment of the file may hold a directive: only the comments are searched,
 * not the whole text (where `orbit.` is common, which made memmem slow). */
static bool has_directive(const SourceAst *ast)
{
    for (uint32_t k = 0; k < ast->comment_count; k++) {
        const Comment *cm = &ast->comments[k];
        if (holds_prefix(cm->text, cm->span.end - cm->span.start))
            return true;
    }
    return false;
}

static void gather_file(Suppressions *s, const SourceAst *ast)
{
    Compiler *c = s->c;
    const SourceFile *file = source_file(&c->sources, ast->file);
    if (file->is_stdlib || !has_directive(ast))
        return;
    MemberList members = { 0 };
    collect_block(&members, &(Block){ .members = ast->decls, .count = ast->count });
    if (members.count > 1)   /* qsort wants a non-null array, even of no elements */
        qsort(members.items, members.count, sizeof *members.items, compare_members);
    Layout layout = lay_out(c, ast, file);
    for (uint32_t k = 0; k < ast->comment_count; k++) {
        Suppression sup;
        if (!read_directive(s, file, &ast->comments[k], &sup))
            continue;
        find_scope(c, ast, file, &members, &layout, k, &sup);
        if (s->count == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 16;
            s->items = xrealloc(s->items, s->cap * sizeof *s->items);
        }
        s->items[s->count++] = sup;
    }
    layout_free(&layout);
    free(members.items);
}

/* --- silencing --- */

static int compare_scopes(const void *pa, const void *pb)
{
    const Suppression *a = pa, *b = pb;
    if (a->applies != b->applies)
        return a->applies ? -1 : 1;
    return compare_spans(a->scope, b->scope);
}

/* Sorts the suppressions that apply to something first, by scope, and links each to its
 * parent. Returns how many apply. */
static uint32_t build_tree(Suppressions *s)
{
    if (s->count > 1)
        qsort(s->items, s->count, sizeof *s->items, compare_scopes);
    uint32_t applying = 0;
    while (applying < s->count && s->items[applying].applies)
        applying++;
    uint32_t *stack = xmalloc((applying + 1) * sizeof *stack);
    uint32_t depth = 0;
    for (uint32_t i = 0; i < applying; i++) {
        Suppression *sup = &s->items[i];
        while (depth > 0 && s->items[stack[depth - 1]].scope.end <= sup->scope.start)
            depth--;
        sup->parent = depth > 0 ? stack[depth - 1] : NO_PARENT;
        stack[depth++] = i;
    }
    for (uint32_t i = applying; i < s->count; i++)
        s->items[i].parent = NO_PARENT;
    free(stack);
    return applying;
}

static bool contains(Span scope, uint32_t pos)
{
    return scope.start <= pos && pos < scope.end;
}

/* Whether a warning is silenced; marks every suppression that covers it as used. */
static bool silenced(Suppressions *s, uint32_t applying, const Diagnostic *d)
{
    uint32_t lo = 0, hi = applying;
    while (lo < hi) {   /* the last suppression whose scope starts at or before d */
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->items[mid].scope.start <= d->span.start)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool silent = false;
    for (uint32_t i = lo ? lo - 1 : NO_PARENT; i != NO_PARENT; i = s->items[i].parent) {
        const Suppression *sup = &s->items[i];
        if (!contains(sup->scope, d->span.start))
            continue;
        for (uint32_t a = sup->first; a < sup->first + sup->count; a++) {
            if (s->allowed[a].code == d->code) {
                s->allowed[a].used = true;
                silent = true;
            }
        }
    }
    return silent;
}

/* Whether report i of the sink is one the suppressions of this program may silence: the
 * checker's, [first, checked), and the warnings the lexer made while the files were read,
 * before the check (W0011, a bidirectional text control). Those of other programs lie in
 * other files, where no suppression of this one applies. */
static bool may_silence(const Diagnostic *d, uint32_t i, uint32_t first, uint32_t checked)
{
    bool ours = (i >= first && i < checked) || (i < first && d->code == W0011);
    return ours && diag_info(d->code)->severity == SEV_WARNING;
}

/* Drops the silenced warnings among the reports of the sink that may_silence names. A
 * warning made an error by `deny` is still a warning code, and may be silenced. */
static void silence(Suppressions *s, uint32_t applying, uint32_t first, uint32_t checked)
{
    DiagSink *sink = &s->c->diags;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < sink->count; i++) {
        Diagnostic *d = sink->items[i];
        if (may_silence(d, i, first, checked) && silenced(s, applying, d))
            continue;
        sink->items[kept++] = d;
    }
    sink->count = kept;
}

/* --- unused suppressions --- */

/* "`W0006`", "`W0006` and `W0002`", "`W0001`, `W0002` and `W0003`". */
static const char *code_list(Arena *arena, const char **codes, uint32_t count)
{
    const char *text = "";
    for (uint32_t i = 0; i < count; i++) {
        const char *sep = i == 0 ? "" : i + 1 == count ? " and " : ", ";
        text = arena_printf(arena, "%s%s`%s`", text, sep, codes[i]);
    }
    return text;
}

/* "W0006, W0002": the codes as written between the parentheses. */
static const char *plain_list(Arena *arena, const char **codes, uint32_t count)
{
    const char *text = "";
    for (uint32_t i = 0; i < count; i++)
        text = arena_printf(arena, "%s%s%s", text, i == 0 ? "" : ", ", codes[i]);
    return text;
}

static void report_unused(Suppressions *s, const Suppression *sup)
{
    DiagSink *sink = &s->c->diags;
    Arena *arena = &s->c->arena;
    const char **unused = arena_alloc(arena, (sup->count + 1) * sizeof *unused);
    const char **kept = arena_alloc(arena, (sup->count + 1) * sizeof *kept);
    uint32_t unused_count = 0, kept_count = 0;
    const Allowed *first_unused = NULL;
    for (uint32_t a = sup->first; a < sup->first + sup->count; a++) {
        const Allowed *allowed = &s->allowed[a];
        const char *code = diag_info(allowed->code)->code;
        /* a warning that is off in this run tells nothing about the suppression */
        if (allowed->used || !diag_enabled(sink, allowed->code)) {
            kept[kept_count++] = code;
        } else {
            if (!first_unused)
                first_unused = allowed;
            unused[unused_count++] = code;
        }
    }
    if (unused_count == 0)
        return;
    const char *list = code_list(arena, unused, unused_count);
    Diagnostic *d = diag_report(sink, W0009, first_unused->span, "unused suppression of %s", list);
    diag_set_label(sink, d, "silences nothing");
    for (uint32_t a = sup->first; a < sup->first + sup->count; a++)
        if (&s->allowed[a] != first_unused && !s->allowed[a].used
            && diag_enabled(sink, s->allowed[a].code))
            diag_add_label(sink, d, s->allowed[a].span, "silences nothing either");
    if (sup->applies)
        diag_add_label(sink, d, sup->member_head,
                       unused_count == 1 ? "no such warning is reported in this member"
                                         : "no such warnings are reported in this member");
    else
        diag_add_note(sink, d, "a suppression applies to the member that starts on the "
                               "line after it, or on its own line; no member starts there");
    if (sup->had_problem)
        return;
    if (kept_count == 0)
        diag_add_fix(sink, d, sup->removal, "", FIX_MACHINE_APPLICABLE,
                     "remove the unused suppression");
    else
        diag_add_fix(sink, d, sup->list, plain_list(arena, kept, kept_count), FIX_MACHINE_APPLICABLE,
                     "remove %s from the suppression", list);
}

void suppress_apply(Compiler *c, uint32_t first)
{
    Suppressions s = { .c = c };
    uint32_t checked = c->diags.count;
    for (uint32_t f = 0; f < c->ast_count; f++)
        if (c->asts[f])
            gather_file(&s, c->asts[f]);
    if (s.count > 0) {
        uint32_t applying = build_tree(&s);
        silence(&s, applying, first, checked);
        for (uint32_t i = 0; i < s.count; i++)
            report_unused(&s, &s.items[i]);
    }
    free(s.items);
    free(s.allowed);
}
