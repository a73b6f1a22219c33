/* The front end's entry point: lexes and parses one source file into its syntax tree. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "utf8.h"

enum {
    /* How much of a file is looked at to tell text from binary, and the share of it (in
     * quarters) that must be binary bytes. */
    BINARY_SAMPLE = 8192,
    BINARY_QUARTERS = 1,
};


void parse_report_file_too_large(Compiler *c, uint32_t file, uint64_t size)
{
    diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                "source file is too large: %llu bytes (the limit is %u MiB)",
                (unsigned long long)size, (unsigned)(SOURCE_MAX_FILE_SIZE >> 20));
}

void parse_report_sources_too_large(Compiler *c, uint32_t file, uint64_t size)
{
    diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                "source files are too large together: this one (%llu bytes) would take them "
                "over %u MiB",
                (unsigned long long)size, (unsigned)(SOURCE_MAX_TOTAL_SIZE >> 20));
}

/* Whether a byte of text at p (of len bytes) is one that text never holds: a control
 * character other than a tab, line or page break, or invalid UTF-8. *n gets its length. */
static bool binary_char(const unsigned char *p, size_t len, uint32_t *n)
{
    int32_t cp;
    *n = utf8_decode(p, len, &cp);
    if (cp < 0)
        return true;
    bool space = cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r';
    return (cp < 0x20 && !space) || cp == 0x7F;
}

bool parse_text_is_binary(const char *text, size_t len, size_t *binary, size_t *first,
                          size_t *sample)
{
    const unsigned char *bytes = (const unsigned char *)text;
    *sample = len < BINARY_SAMPLE ? len : BINARY_SAMPLE;
    *binary = 0;
    *first = 0;
    for (size_t i = 0; i < *sample;) {
        unsigned char b = bytes[i];
        if ((b >= 0x20 && b < 0x7F) || b == '\n') {  /* printable ASCII and LF: most of any text */
            i++;
            continue;
        }
        uint32_t n;
        if (binary_char(bytes + i, len - i, &n) && (*binary)++ == 0)
            *first = i;
        i += n;
    }
    return *binary > 0 && *binary * 4 >= *sample * BINARY_QUARTERS;
}

static Diagnostic *report_not_source(Compiler *c, uint32_t file, uint32_t start, uint32_t end,
                                     const char *message)
{
    return diag_report(&c->diags, E0012, source_span(&c->sources, file, start, end), "%s",
                       message);
}

/* A file that is not Orbit source at all (a `.orbc` file, an image, UTF-16 text) gets one
 * E0012 instead of an error for every few bytes: it starts with the `ORBC` magic of a
 * bytecode file (docs/bytecode.md) or a UTF-16 byte order mark, or at least a quarter
 * of its first 8 KiB are NUL bytes, other control characters or invalid UTF-8. Returns
 * whether it was reported. */
static bool report_binary(Compiler *c, uint32_t file, const SourceFile *source)
{
    const unsigned char *text = (const unsigned char *)source->text;
    size_t len = source->len;
    if (len >= 5 && memcmp(text, "ORBC", 4) == 0 && text[4] < 0x20) {
        Diagnostic *d = report_not_source(c, file, 0, 4,
                                          "this is a bytecode file: use `orbitc dis`");
        diag_set_label(&c->diags, d, "the magic number of a `.orbc` file");
        diag_add_help(&c->diags, d, "`check` and `build` read Orbit source files (`.orbit`)");
        return true;
    }
    if (len >= 2 && ((text[0] == 0xFF && text[1] == 0xFE) || (text[0] == 0xFE && text[1] == 0xFF))) {
        Diagnostic *d = report_not_source(c, file, 0, 2, "this file is UTF-16, not UTF-8");
        diag_set_label(&c->diags, d, "a UTF-16 byte order mark");
        diag_add_help(&c->diags, d, "save it as UTF-8 (for example `iconv -f UTF-16 -t UTF-8`)");
        return true;
    }
    size_t binary, first, sample;
    if (!parse_text_is_binary(source->text, len, &binary, &first, &sample))
        return false;
    Diagnostic *d = report_not_source(c, file, (uint32_t)first, (uint32_t)first + 1,
                                      "this file is binary, not Orbit source");
    diag_set_label(&c->diags, d, "not text");
    diag_add_note(&c->diags, d, "%zu of its first %zu bytes are NUL bytes, other control "
                                "characters or invalid UTF-8", binary, sample);
    diag_add_help(&c->diags, d, "`check` and `build` read Orbit source files (`.orbit`), "
                                "which are UTF-8 text");
    return true;
}

/* One parse of the file: its tree, how many brackets it left open at its end, how many
 * closers it found with nothing open, and how many of its reports are about brackets.
 * Budgets above zero let the lexer close and drop that many by indentation (lexer.h). */
typedef struct Pass {
    SourceAst *ast;
    uint32_t unclosed;
    uint32_t stray_closers;
    uint32_t bracket_reports;
} Pass;

/* The lexer's comments, moved to the tree's arena. */
static void keep_comments(Compiler *c, SourceAst *ast, const Lexer *lx)
{
    size_t size = (size_t)lx->scan.comment_count * sizeof *lx->scan.comments;
    ast->comment_count = lx->scan.comment_count;
    ast->comments = size ? arena_alloc(&c->arena, size) : NULL;
    if (size)
        memcpy(ast->comments, lx->scan.comments, size);
}

static Pass parse_pass(Compiler *c, uint32_t file, uint32_t close_budget, uint32_t drop_budget)
{
    Pass pass = { arena_alloc(&c->arena, sizeof *pass.ast), 0, 0, 0 };
    pass.ast->file = file;
    const SourceFile *source = source_file(&c->sources, file);
    Lexer *lx = xmalloc(sizeof *lx);
    lexer_init(lx, c, file);
    lexer_read_indentation(lx, close_budget, drop_budget);
    uint32_t first_report = c->diags.count;
    Parser parser = { .c = c, .arena = &c->arena, .file = file, .origin = source->origin,
                      .lx = lx, .bad_literal_count = &lx->scan.bad_literal_count,
                      .keyword_names = lx->keyword_names, .ast = pass.ast };
    parser_parse(&parser);
    if (lx->fatal)
        pass.ast->fatal = true;
    if (lx->too_deep)
        diag_drop_since(&c->diags, first_report, diag_is_lexical);
    keep_comments(c, pass.ast, lx);
    if (!lx->fatal) {
        pass.unclosed = lx->brackets.unclosed_at_end;
        pass.stray_closers = lx->brackets.stray_closer_total;
    }
    pass.bracket_reports = lx->brackets.bracket_reports;
    ast_finish(&parser);
    lexer_free(lx);
    free(lx);
    return pass;
}

SourceAst *parse_source(Compiler *c, uint32_t file)
{
    const SourceFile *source = source_file(&c->sources, file);
    if (source->len > SOURCE_MAX_FILE_SIZE ||
        (!source->is_stdlib && report_binary(c, file, source))) {   /* ours is text */
        if (source->len > SOURCE_MAX_FILE_SIZE)
            parse_report_file_too_large(c, file, source->len);
        SourceAst *ast = arena_alloc(&c->arena, sizeof *ast);
        ast->file = file;
        ast->fatal = true;
        return ast;
    }
    /* Brackets that do not balance: the end of the file is rarely where a `}` is missing,
     * nor where an extra one was typed. A second pass closes the open ones where the
     * indentation says their blocks end and drops closers that the indentation says
     * close nothing. Its reports about brackets replace the first pass's; it is kept
     * unless its other reports outnumber the first pass's. */
    uint32_t first = c->diags.count;
    Pass one = parse_pass(c, file, 0, 0);
    if (one.unclosed == 0 && one.stray_closers == 0)
        return one.ast;
    uint32_t middle = c->diags.count;
    Pass two = parse_pass(c, file, one.unclosed, one.stray_closers);
    uint32_t others_one = middle - first - one.bracket_reports;
    uint32_t others_two = c->diags.count - middle - two.bracket_reports;
    if (others_two <= others_one) {
        diag_drop_range(&c->diags, first, middle);
        return two.ast;
    }
    diag_drop_range(&c->diags, middle, c->diags.count);
    return one.ast;
}
