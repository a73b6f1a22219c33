/* The front end's entry point: lexes and parses one source file into its syntax tree. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"

/* A file that nests too deep is rejected with E0009 alone: the syntax errors reported
 * before it are most likely effects of the same runaway nesting (`{{{{…`). Lexical
 * errors stay. */
static void keep_only_lexical(Compiler *c, uint32_t first)
{
    DiagSink *sink = &c->diags;
    uint32_t kept = first;
    for (uint32_t i = first; i < sink->count; i++) {
        const char *code = diag_info(sink->items[i]->code)->code;
        if (strncmp(code, "E00", 3) == 0)
            sink->items[kept++] = sink->items[i];
    }
    sink->count = kept;
}

void report_file_too_large(Compiler *c, uint32_t file, uint64_t size)
{
    diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                "source file is too large: %llu bytes (the limit is %u MiB)",
                (unsigned long long)size, (unsigned)(SOURCE_MAX_FILE_SIZE >> 20));
}

void report_sources_too_large(Compiler *c, uint32_t file, uint64_t size)
{
    diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                "source files are too large together: this one (%llu bytes) would take them "
                "over %u MiB",
                (unsigned long long)size, (unsigned)(SOURCE_MAX_TOTAL_SIZE >> 20));
}

SourceAst *parse_source(Compiler *c, uint32_t file)
{
    SourceAst *ast = arena_alloc(&c->arena, sizeof *ast);
    ast->file = file;
    const SourceFile *source = source_file(&c->sources, file);
    if (source->len > SOURCE_MAX_FILE_SIZE) {
        report_file_too_large(c, file, source->len);
        ast->fatal = true;
        return ast;
    }
    Lexer *lx = xmalloc(sizeof *lx);
    lexer_init(lx, c, file);
    uint32_t first_report = c->diags.count;
    Parser parser = { .c = c, .file = file, .origin = source->origin, .lx = lx, .ast = ast,
                      .last = NULL };
    parser_parse(&parser);
    if (lx->fatal)
        ast->fatal = true;
    if (lx->too_deep)
        keep_only_lexical(c, first_report);
    free(parser.args);
    lexer_free(lx);
    free(lx);
    return ast;
}
