/* libFuzzer target: raw bytes -> the playground's API (playground/api.h), natively: the
 * input's first byte picks the function, the rest is split at its first `\x01` into the
 * source and the second text (check's name, run's scenario, graph's workflow; graph's
 * format is `json`). Every byte reaches the API with its length, NUL bytes included,
 * as the page passes them. What each function returns must be whole JSON text (check's:
 * one JSON object a line; a NUL of a text written \u0000), which also shows it holds no
 * NUL byte: the first NUL ends it.
 *
 * Built by meson with -Dfuzz=true (fuzz/build.sh); run with fuzz/run.sh. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

enum { FUNCTIONS = 9 };

/* The result must be JSON through its end (check: JSON Lines); abort otherwise. */
static void check_result(char *result, int function)
{
    if (!result) {
        fprintf(stderr, "fuzz_playground: function %d returned NULL\n", function);
        abort();
    }
    if (function == 0) {   /* check: JSON Lines */
        for (const char *line = result; *line;) {
            size_t len = strcspn(line, "\n");
            json_error_t error;
            json_t *value = json_loadb(line, len, JSON_ALLOW_NUL, &error);
            if (!value) {
                fprintf(stderr, "fuzz_playground: a line of check is not JSON: %s\n", error.text);
                abort();
            }
            json_decref(value);
            line += len + (line[len] == '\n');
        }
    } else {
        json_error_t error;
        json_t *value = json_loads(result, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
        if (!value) {
            fprintf(stderr, "fuzz_playground: function %d returned no JSON: %s\n", function, error.text);
            abort();
        }
        json_decref(value);
    }
    orbit_pg_free(result);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int function = data[0] % FUNCTIONS;
    const char *rest = (const char *)data + 1;
    size_t len = size - 1;
    const char *split = memchr(rest, '\x01', len);
    size_t source_len = split ? (size_t)(split - rest) : len;
    const char *second = split ? split + 1 : rest + len;
    size_t second_len = split ? len - source_len - 1 : 0;
    char *result = NULL;
    switch (function) {
    case 0:
        result = orbit_pg_check(rest, source_len, second, second_len);
        if (!result && memchr(second, '\0', second_len))
            return 0;   /* a name with a NUL is refused, as documented */
        break;
    case 1: result = orbit_pg_format(rest, source_len); break;
    case 2: result = orbit_pg_fix(rest, source_len); break;
    case 3: result = orbit_pg_build(rest, source_len); break;
    case 4: result = orbit_pg_dis(rest, source_len); break;
    case 5: result = orbit_pg_run(rest, source_len, second, second_len); break;
    case 6: result = orbit_pg_tokens(rest, source_len); break;
    case 7: result = orbit_pg_scenario(rest, source_len); break;
    default: result = orbit_pg_graph(rest, source_len, second, second_len, "json", 4); break;
    }
    check_result(result, function);
    return 0;
}
