/* `orbitc lsp`: a Language Server Protocol 3.17 server over standard input and output
 * (docs/editors.md). The layer above the compiler: it sees base/, diagnostics/ and
 * compiler/ headers, and nothing below includes it. */
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

/* `orbitc lsp [--stdio] [--memory-only]`: argv holds the arguments after `lsp`. */
int lsp_main(int argc, char **argv);

#endif
