/* lexbench: how fast the front end's first stage runs alone. Reads each file given, then
 * lexes it (tokens, interned names, decoded literals, the newline and bracket rules) and
 * prints tokens, bytes per token, seconds and MiB/s. With --parse it also parses (lexing
 * included, syntax tree built) and prints the same for that.
 *
 *   build/tools/lexbench [--parse] FILE...
 *
 * A measuring tool for docs/performance.md, run on demand like tools/bench.py: it shows
 * how much of `orbitc check` the lexer and the parser take before any checking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workspace.h"
#include "lexer.h"
#include "parse.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void report(const char *what, const char *path, uint32_t bytes, unsigned long tokens,
                   double seconds)
{
    printf("%-6s %s: %u bytes", what, path, bytes);
    if (tokens)
        printf(", %lu tokens, %.1f bytes/token", tokens, (double)bytes / (double)tokens);
    printf(", %.3f s, %.0f MiB/s\n", seconds, (double)bytes / 1048576.0 / seconds);
}

static int bench_file(const char *path, bool parse)
{
    Compiler c;
    compiler_init(&c);
    const char *error = NULL;
    if (!workspace_add_file(&c, path, &error)) {
        fprintf(stderr, "lexbench: cannot read `%s`: %s\n", path, error);
        compiler_free(&c);
        return 2;
    }
    uint32_t file = c.sources.count - 1;
    uint32_t bytes = source_file(&c.sources, file)->len;

    Lexer *lx = malloc(sizeof *lx);
    if (!lx) {
        compiler_free(&c);
        return 2;
    }
    double t0 = now();
    lexer_init(lx, &c, file);
    unsigned long tokens = 0;
    YYSTYPE value;
    Loc loc;
    while (lexer_next(lx, &value, &loc) != END)
        tokens++;
    double t1 = now();
    lexer_free(lx);
    free(lx);
    report("lex", path, bytes, tokens, t1 - t0);

    if (parse) {
        t0 = now();
        parse_source(&c, file);
        t1 = now();
        report("parse", path, bytes, 0, t1 - t0);
    }
    compiler_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    bool parse = false;
    int status = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parse") == 0) {
            parse = true;
            continue;
        }
        files++;
        int s = bench_file(argv[i], parse);
        if (s > status)
            status = s;
    }
    if (!files) {
        fprintf(stderr, "usage: lexbench [--parse] FILE...\n");
        return 2;
    }
    return status;
}
