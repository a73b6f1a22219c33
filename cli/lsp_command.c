/* `orbitc lsp [--stdio] [--memory-only]`: the options of the language server, then the
 * server (lsp/lsp.h) on standard input and output. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lsp.h"

static const char LSP_USAGE[] =
    "Usage: orbitc lsp [--stdio] [--memory-only]\n"
    "\n"
    "A Language Server Protocol 3.17 server on standard input and output, for editors\n"
    "(docs/editors.md). --stdio is accepted for clients that pass it. --memory-only\n"
    "never reads a file: a program is the open documents alone.\n";

int lsp_command(int argc, char **argv)
{
    LspOptions options = { 0 };
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--stdio") == 0) {
            continue;
        } else if (strcmp(argv[i], "--memory-only") == 0) {
            options.memory_only = true;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(LSP_USAGE, stdout);
            return 0;
        } else {
            fprintf(stderr, "orbitc lsp: unknown option `%s`\n%s", argv[i], LSP_USAGE);
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);   /* a client that went away is seen as a failed write */
    LspReader reader;
    lsp_reader_init_fd(&reader, STDIN_FILENO);
    int out = STDOUT_FILENO;
    int status = lsp_serve(&reader, lsp_write_fd, &out, &options);
    lsp_reader_free(&reader);
    return status;
}
