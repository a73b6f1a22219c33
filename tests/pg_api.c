/* pg_api: the playground's API (playground/api.h) built natively, one call from the
 * command line, for tests/test_wasm.py, which compares it with orbitc, orbit-run and
 * the WebAssembly build of the same API:
 *
 *   pg_api FUNCTION SOURCE.orbit [NAME | SCENARIO.json]
 *   pg_api graph SOURCE.orbit FORMAT [WORKFLOW]
 *
 * prints what orbit_pg_FUNCTION returns for the file's text (check: under NAME; run:
 * with the scenario's text; graph: in FORMAT, from WORKFLOW or of all). Exit status 0,
 * or 2 on bad usage or an unreadable file. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *text = malloc(cap + 1);
    while (text && (n = fread(text + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            char *bigger = realloc(text, cap + 1);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    fclose(f);
    if (text)
        text[len] = '\0';
    return text;
}

int main(int argc, char **argv)
{
    bool graph = argc >= 2 && strcmp(argv[1], "graph") == 0;
    if (argc < 3 || argc > (graph ? 5 : 4)) {
        fprintf(stderr, "usage: pg_api FUNCTION SOURCE.orbit [NAME | SCENARIO.json]\n"
                        "       pg_api graph SOURCE.orbit FORMAT [WORKFLOW]\n");
        return 2;
    }
    const char *function = argv[1];
    char *source = read_all(argv[2]);
    char *extra = argc == 4 && strcmp(function, "run") == 0 ? read_all(argv[3]) : NULL;
    if (!source || (argc == 4 && strcmp(function, "run") == 0 && !extra)) {
        fprintf(stderr, "pg_api: cannot read the files\n");
        return 2;
    }
    char *result = NULL;
    if (strcmp(function, "check") == 0)
        result = orbit_pg_check(source, argc == 4 ? argv[3] : NULL);
    else if (strcmp(function, "format") == 0)
        result = orbit_pg_format(source);
    else if (strcmp(function, "fix") == 0)
        result = orbit_pg_fix(source);
    else if (strcmp(function, "build") == 0)
        result = orbit_pg_build(source);
    else if (strcmp(function, "dis") == 0)
        result = orbit_pg_dis(source);
    else if (strcmp(function, "run") == 0)
        result = orbit_pg_run(source, extra ? extra : "{}");
    else if (strcmp(function, "tokens") == 0)
        result = orbit_pg_tokens(source);
    else if (strcmp(function, "scenario") == 0)
        result = orbit_pg_scenario(source);
    else if (graph)
        result = orbit_pg_graph(source, argc == 5 ? argv[4] : "", argc >= 4 ? argv[3] : "");
    if (!result) {
        fprintf(stderr, "pg_api: unknown function `%s`\n", function);
        return 2;
    }
    fputs(result, stdout);
    orbit_pg_free(result);
    free(source);
    free(extra);
    return 0;
}
