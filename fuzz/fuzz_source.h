/* The input of the targets that take bytes as one source file (fuzz_check, fuzz_build,
 * fuzz_graph, fuzz_test): the file `fuzz.orbit`, a program of its own, through the one pipeline
 * (workspace_check). */
#ifndef ORBIT_FUZZ_SOURCE_H
#define ORBIT_FUZZ_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workspace.h"

/* Checks `data` as one source file (`check_only` as `orbitc check` checks; false keeps
 * the steps, as `build` and `graph` need), then calls `then` with the compiler and the
 * checked program (NULL when there is none). Nothing for an input over the size of a
 * source file. */
void fuzz_check_source(const uint8_t *data, size_t size, bool check_only,
                       void (*then)(Compiler *c, const Program *program));

/* The same, calling `then` with the whole workspace (its compiler is w->c, its program
 * w->checked[0]) and `context`: what the runner of `orbitc test` takes. */
void fuzz_check_workspace(const uint8_t *data, size_t size, bool check_only,
                          void (*then)(Workspace *w, void *context), void *context);

#endif
