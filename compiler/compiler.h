/* The state of one compiler run, shared by every pass. driver_init and driver_free
 * (driver.h) set it up and tear it down. */
#ifndef ORBIT_COMPILER_H
#define ORBIT_COMPILER_H

#include <stdbool.h>

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
    bool check_only;      /* the checked Program is not read after the check (`orbitc
                             check`): the checker keeps a workflow's steps only while it
                             checks that workflow, so Workflow.steps is NULL and
                             step_count 0 afterwards. Lowering and the LSP read every step:
                             they leave it false (driver_init). */
} Compiler;

#endif
