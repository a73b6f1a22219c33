/* The Language Server Protocol 3.17 server of `orbitc lsp` (docs/editors.md; its command
 * line is cli/lsp_command.c). The layer above the workspace and the formatter: nothing
 * below includes it. */
#ifndef ORBIT_LSP_H
#define ORBIT_LSP_H

#include <stdbool.h>

#include "transport.h"

typedef struct LspOptions {
    /* Never read or write a file: programs are the open documents alone. For the fuzz
     * target and the replay of its corpus, whose messages name arbitrary folders. */
    bool memory_only;
} LspOptions;

/* Serves one client until `exit` or the end of the stream. Returns the exit status: 0
 * after `shutdown` then `exit` (or the end of the stream after `shutdown`), else 1. */
int lsp_serve(LspReader *reader, LspWrite write, void *write_context,
              const LspOptions *options);

#endif
