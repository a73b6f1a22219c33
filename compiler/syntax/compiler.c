/* A Compiler's life (compiler.h): set up with the standard library as file 0, sources
 * added from memory, parsed. Reading files and grouping them into programs is the
 * workspace's (workspace/); checking them is the checker's (check/checker.h). */
#include "compiler.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "parse.h"

extern const char orbit_stdlib_source[];
extern const unsigned orbit_stdlib_source_len;

void compiler_init(Compiler *c)
{
    memset(c, 0, sizeof *c);
    arena_init(&c->arena);
    interner_init(&c->names, &c->arena);
    compiler_intern_keywords(c);
    source_map_init(&c->sources);
    diag_sink_init(&c->diags, &c->arena);
    source_map_add(&c->sources, "<stdlib>/orbit.orbit", (char *)orbit_stdlib_source,
                   orbit_stdlib_source_len, true);
}

void compiler_init_view(Compiler *c, const Compiler *from, InternShare share,
                        void *share_context)
{
    memset(c, 0, sizeof *c);
    arena_init(&c->arena);
    interner_init(&c->names, &c->arena);
    if (share)
        interner_share(&c->names, share, share_context);
    compiler_intern_keywords(c);
    source_map_borrow(&c->sources, &from->sources);
    diag_sink_init(&c->diags, &c->arena);
    c->ast_count = c->sources.count;
    c->asts = xcalloc(c->ast_count + 1, sizeof *c->asts);
    compiler_keep(c);
}

void compiler_keep(Compiler *c)
{
    c->kept = arena_mark(&c->arena);
    c->kept_diags = c->diags.count;
    interner_keep(&c->names);
}

void compiler_rewind(Compiler *c, const uint32_t *files, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        c->asts[files[i]] = NULL;
    c->diags.count = c->kept_diags;
    interner_rewind(&c->names);
    arena_rewind(&c->arena, c->kept);
}

void compiler_parse_only(Compiler *c, const uint32_t *files, uint32_t count)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < count; i++)
        bytes += c->sources.files[files[i]].len;
    interner_reserve_for_source(&c->names, bytes);
    uint32_t total = c->sources.count;
    c->asts = xrealloc(c->asts, (total + 1) * sizeof *c->asts);
    for (uint32_t i = c->ast_count; i < total; i++)
        c->asts[i] = NULL;
    c->ast_count = total;
    for (uint32_t i = 0; i < count; i++)
        if (!c->asts[files[i]])
            c->asts[files[i]] = parse_source(c, files[i]);
}

void compiler_intern_keywords(Compiler *c)
{
    for (int kw = 0; kw < KW_COUNT; kw++)
        c->keyword_names[kw] = intern_cstr(&c->names, keyword_text((Keyword)kw));
}

void compiler_free(Compiler *c)
{
    free(c->asts);
    diag_sink_free(&c->diags);
    source_map_free(&c->sources);
    interner_free(&c->names);
    arena_free(&c->arena);
}

uint32_t compiler_add_source(Compiler *c, const char *path, char *text, uint32_t len)
{
    return source_map_add(&c->sources, path, text, len, false);
}

uint32_t compiler_add_too_large(Compiler *c, const char *path, uint64_t size, bool stream)
{
    char *empty = xmalloc(1);
    empty[0] = '\0';
    uint32_t file = compiler_add_source(c, path, empty, 0);
    if (stream)
        diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                    "source file is too large: more than the limit of %u MiB",
                    (unsigned)(SOURCE_MAX_FILE_SIZE >> 20));
    else if (size > SOURCE_MAX_FILE_SIZE)
        parse_report_file_too_large(c, file, size);
    else
        parse_report_sources_too_large(c, file, size);
    return file;
}

bool compiler_fits(const Compiler *c, uint64_t size)
{
    return size <= SOURCE_MAX_FILE_SIZE && size < source_room(&c->sources);
}

void compiler_parse(Compiler *c)
{
    uint32_t count = c->sources.count;
    uint64_t bytes = 0;
    for (uint32_t i = c->ast_count; i < count; i++)
        bytes += c->sources.files[i].len;
    interner_reserve_for_source(&c->names, bytes);
    c->asts = xrealloc(c->asts, count * sizeof *c->asts);
    for (uint32_t i = c->ast_count; i < count; i++)
        c->asts[i] = parse_source(c, i);
    c->ast_count = count;
}
