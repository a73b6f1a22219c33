/* The state of one compiler run, shared by every pass, and its life: compiler_init and
 * compiler_free set it up and tear it down, sources are added from memory and parsed
 * here (compiler.c). Reading files and grouping them into programs is the workspace's
 * (workspace/workspace.h); checking is the checker's (check/checker.h). */
#ifndef ORBIT_COMPILER_H
#define ORBIT_COMPILER_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "intern.h"
#include "source.h"

typedef struct Compiler Compiler;


struct Compiler {
    Arena arena;          /* the tree, names, diagnostics: freed together */
    Interner names;
    const Name *keyword_names[KW_COUNT];   /* each keyword's spelling, interned once by
                                              compiler_init for every lexer of the run */
    SourceMap sources;    /* file 0 is the standard library */
    DiagSink diags;
    SourceAst **asts;     /* one per source file, same index as sources.files */
    uint32_t ast_count;
    ArenaMark kept;       /* compiler_keep: what compiler_rewind comes back to */
    uint32_t kept_diags;
};

/* Initialises `c` and adds the embedded standard library as file 0. */
void compiler_init(Compiler *c);
void compiler_free(Compiler *c);

/* Initialises `c` as a compiler of its own (arena, names, diagnostics, trees) over the
 * sources of `from`, shared read-only at the same indexes and positions
 * (source_map_borrow), none parsed yet: the compiler of one `--jobs` thread, whose
 * diagnostics are valid in `from`. `from` must outlive it and add no source meanwhile.
 * With `share` (interner_share), its names, the keywords first, come from there: the
 * compilers of threads that parse the files of one program. */
void compiler_init_view(Compiler *c, const Compiler *from, InternShare share,
                        void *share_context);

/* compiler_rewind forgets everything made since the last compiler_keep (or since
 * compiler_init_view): the trees of `files`, their names, the diagnostics, whatever the
 * checker allocated, reusing their memory for what comes next. A `--jobs` thread keeps
 * the standard library's tree and rewinds after each program, once that program's
 * diagnostics are copied out: its memory is that of one program, not of all of them. */
void compiler_keep(Compiler *c);
void compiler_rewind(Compiler *c, const uint32_t *files, uint32_t count);

/* Parses the sources `files` (indexes) that are not parsed yet; the others stay
 * unparsed (c->asts[i] NULL) and compiler_parse will not parse them. */
void compiler_parse_only(Compiler *c, const uint32_t *files, uint32_t count);

/* Interns the keywords' spellings into c->keyword_names (compiler_init does; a test
 * that sets up a compiler by hand calls it after interner_init). */
void compiler_intern_keywords(Compiler *c);

/* Adds a source buffer. `text` must be malloc'd with a NUL at text[len]; the compiler owns
 * it from now on. Returns the file index. The caller has checked compiler_fits. */
uint32_t compiler_add_source(Compiler *c, const char *path, char *text, uint32_t len);

/* Whether a source of `size` bytes may be added: within SOURCE_MAX_FILE_SIZE and the room
 * left beside the sources before it. */
bool compiler_fits(const Compiler *c, uint64_t size);

/* Adds `path` empty, with E0010 saying why its `size` bytes were not taken: a file over
 * the limit, a file with no room left beside the others, or (`stream`) a stream that
 * went on past the limit. Returns the file index. */
uint32_t compiler_add_too_large(Compiler *c, const char *path, uint64_t size, bool stream);

/* Parses every source not parsed yet (c->asts grows to c->sources.count). */
void compiler_parse(Compiler *c);

#endif
