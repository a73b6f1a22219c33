/* pg_api: the playground's API (playground/api.h) built natively, one call from the
 * command line, for tests/playground/test_wasm.py, which compares it with orbitc, orbit-run and
 * the WebAssembly build of the same API:
 *
 *   pg_api FUNCTION SOURCE.orbit [NAME | SCENARIO.json]
 *   pg_api graph SOURCE.orbit FORMAT [WORKFLOW]
 *
 * prints what orbit_pg_FUNCTION returns for the file's text (check: under NAME; run:
 * with the scenario's text; graph: in FORMAT, from WORKFLOW or of all). Every byte of
 * the files is passed, a NUL too, with its length. Exit status 0, or 2 on bad usage, an
 * unreadable file or an argument the API refuses (a name with a NUL). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* The bytes of the file at `path` (NUL-terminated for convenience) and their count. */
static char *read_all(const char *path, size_t *size)
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
    *size = len;
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
    size_t len = 0, extra_len = 0;
    char *source = read_all(argv[2], &len);
    char *extra = argc == 4 && strcmp(function, "run") == 0 ? read_all(argv[3], &extra_len) : NULL;
    if (!source || (argc == 4 && strcmp(function, "run") == 0 && !extra)) {
        fprintf(stderr, "pg_api: cannot read the files\n");
        return 2;
    }
    const char *name = argc == 4 ? argv[3] : "";
    const char *workflow = argc == 5 ? argv[4] : "", *format = argc >= 4 ? argv[3] : "";
    char *result = NULL;
    bool known = true;
    if (strcmp(function, "check") == 0)
        result = orbit_pg_check(source, len, name, strlen(name));
    else if (strcmp(function, "format") == 0)
        result = orbit_pg_format(source, len);
    else if (strcmp(function, "fix") == 0)
        result = orbit_pg_fix(source, len);
    else if (strcmp(function, "build") == 0)
        result = orbit_pg_build(source, len);
    else if (strcmp(function, "dis") == 0)
        result = orbit_pg_dis(source, len);
    else if (strcmp(function, "run") == 0)
        result = extra ? orbit_pg_run(source, len, extra, extra_len) : orbit_pg_run(source, len, "{}", 2);
    else if (strcmp(function, "tokens") == 0)
        result = orbit_pg_tokens(source, len);
    else if (strcmp(function, "scenario") == 0)
        result = orbit_pg_scenario(source, len);
    else if (graph)
        result = orbit_pg_graph(source, len, workflow, strlen(workflow), format, strlen(format));
    else
        known = false;
    if (!result) {
        if (known)
            fprintf(stderr, "pg_api: orbit_pg_%s refused its arguments\n", function);
        else
            fprintf(stderr, "pg_api: unknown function `%s`\n", function);
        free(source);
        free(extra);
        return 2;
    }
    fputs(result, stdout);
    orbit_pg_free(result);
    free(source);
    free(extra);
    return 0;
}
