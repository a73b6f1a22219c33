/* The Language Server Protocol 3.17 server of `orbitc lsp` (docs/editors.md; its command
 * line is cli/lsp_command.c). The layer above the workspace and the formatter: nothing
 * below includes it. */
#ifndef ORBIT_LSP_H
#define ORBIT_LSP_H

#include <stdbool.h>

#include "transport.h"

enum { LSP_CLIENT_CHECK_MS = 500 };

typedef struct LspOptions {
    /* Never read or write a file: programs are the open documents alone. For the fuzz
     * target and the replay of its corpus, whose messages name arbitrary folders. */
    bool memory_only;
    /* The process that started the server (`--clientProcessId`), or 0: when it is gone
     * the server exits, as when `initialize`'s processId is gone. */
    long client_process_id;
} LspOptions;

/* Serves one client until `exit`, the end of the stream, or the end of the client's
 * process (--clientProcessId, initialize's processId: checked every
 * LSP_CLIENT_CHECK_MS while waiting for input). Returns the exit status: 0 after
 * `shutdown` then `exit` (or the end of the stream or of the client after `shutdown`),
 * else 1. */
int lsp_serve(LspReader *reader, LspWrite write, void *write_context,
              const LspOptions *options);

#endif
