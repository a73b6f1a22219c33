/* The state of one compiler run, shared by every pass. driver_init and driver_free
 * (driver.h) set it up and tear it down. */
#ifndef ORBIT_COMPILER_H
#define ORBIT_COMPILER_H

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "intern.h"
#include "source.h"

typedef struct Compiler {
    Arena arena;          /* the tree, names, diagnostics: freed together */
    Interner names;
    SourceMap sources;    /* file 0 is the standard library */
    DiagSink diags;
    SourceAst **asts;     /* one per source file, same index as sources.files */
    uint32_t ast_count;
} Compiler;

#endif
