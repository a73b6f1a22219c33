/* `orbitc lsp [--stdio] [--memory-only] [--clientProcessId N]`: the options of the
 * language server, then the server (lsp/lsp.h) on standard input and output. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lsp.h"

static const char LSP_USAGE[] =
    "Usage: orbitc lsp [--stdio] [--memory-only] [--clientProcessId N]\n"
    "\n"
    "A Language Server Protocol 3.17 server on standard input and output, for editors\n"
    "(docs/editors.md). --stdio is accepted for clients that pass it. --memory-only\n"
    "never reads a file: a program is the open documents alone. --clientProcessId N\n"
    "(or --clientProcessId=N): the server exits when process N ends, as it does when\n"
    "the process named by initialize's processId ends.\n";

static const char CLIENT_PROCESS_ID[] = "--clientProcessId";

/* A process id: decimal digits, 1 to INT_MAX. */
static bool parse_process_id(const char *text, long *out)
{
    long n = 0;
    if (!*text)
        return false;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        n = n * 10 + (*p - '0');
        if (n > INT_MAX)
            return false;
    }
    *out = n;
    return n > 0;
}

/* --clientProcessId N or --clientProcessId=N at argv[*i] (moves *i past N). 1 when it
 * is not this option, 0 when it is and is valid, 2 when it is not valid (reported). */
static int client_process_id_option(int argc, char **argv, int *i, long *pid)
{
    size_t len = sizeof CLIENT_PROCESS_ID - 1;
    const char *arg = argv[*i], *value;
    if (strcmp(arg, CLIENT_PROCESS_ID) == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "orbitc lsp: %s needs a process id\n%s", CLIENT_PROCESS_ID,
                    LSP_USAGE);
            return 2;
        }
        value = argv[++*i];
    } else if (strncmp(arg, CLIENT_PROCESS_ID, len) == 0 && arg[len] == '=') {
        value = arg + len + 1;
    } else {
        return 1;
    }
    if (!parse_process_id(value, pid)) {
        fprintf(stderr, "orbitc lsp: %s: `%s` is not a process id (a number from 1 to %d)\n",
                CLIENT_PROCESS_ID, value, INT_MAX);
        return 2;
    }
    return 0;
}

int cli_lsp(int argc, char **argv)
{
    LspOptions options = { 0 };
    for (int i = 0; i < argc; i++) {
        int pid_option = client_process_id_option(argc, argv, &i, &options.client_process_id);
        if (pid_option == 0) {
            continue;
        } else if (pid_option == 2) {
            return 2;
        } else if (strcmp(argv[i], "--stdio") == 0) {
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
