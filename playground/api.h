/* The playground's API (api.c, docs/playground.md): each text argument is a pointer and
 * its length in bytes (UTF-8; a NUL is a byte like any other), and each function returns
 * a malloc'd NUL-terminated text, JSON (orbit_pg_check: JSON Lines, exactly `orbitc check
 * --format json`'s), which never holds a NUL byte, that the caller frees with
 * orbit_pg_free. */
#ifndef ORBIT_PLAYGROUND_API_H
#define ORBIT_PLAYGROUND_API_H

#include <stddef.h>

#include "attributes.h"   /* WASM_EXPORT: what the WebAssembly build exports */

WASM_EXPORT char *orbit_pg_check(const char *source, size_t source_len, const char *name, size_t name_len);
WASM_EXPORT char *orbit_pg_format(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_fix(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_build(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_dis(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_run(const char *source, size_t source_len, const char *scenario, size_t scenario_len);
WASM_EXPORT char *orbit_pg_tokens(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_scenario(const char *source, size_t source_len);
WASM_EXPORT char *orbit_pg_graph(const char *source, size_t source_len, const char *workflow, size_t workflow_len,
                                 const char *format, size_t format_len);
WASM_EXPORT void orbit_pg_free(char *text);

#endif
