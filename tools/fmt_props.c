/* fmt_props: checks the formatter's guarantees (fmt_properties.h) on files, for the test
 * suite (tests/test_fmt.py runs it over every golden source, example, the standard
 * library, generated programs and the fuzz corpora).
 *
 *   build/tools/fmt_props [--crlf] [--must-parse] FILE...
 *
 * --crlf checks each file with its line ends made CRLF as well; --must-parse counts a
 * file that does not parse as a failure. Prints one line per failure and a summary;
 * exits 1 when a guarantee fails. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_properties.h"
#include "memory.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, used = 0;
    char *text = xmalloc(cap);
    size_t got;
    while ((got = fread(text + used, 1, cap - used, f)) > 0) {
        used += got;
        if (used == cap)
            text = xrealloc(text, cap *= 2);
    }
    fclose(f);
    *len = used;
    return text;
}

/* The text with every LF that ends a line made CRLF. */
static char *to_crlf(const char *text, size_t len, size_t *out_len)
{
    char *out = xmalloc(2 * len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r'))
            out[n++] = '\r';
        out[n++] = text[i];
    }
    *out_len = n;
    return out;
}

int main(int argc, char **argv)
{
    bool crlf = false, must_parse = false;
    unsigned holds = 0, not_parsed = 0, broken = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--crlf") == 0) {
            crlf = true;
            continue;
        }
        if (strcmp(argv[i], "--must-parse") == 0) {
            must_parse = true;
            continue;
        }
        size_t len;
        char *text = read_file(argv[i], &len);
        if (!text) {
            fprintf(stderr, "fmt_props: cannot read %s\n", argv[i]);
            return 2;
        }
        for (int variant = 0; variant < 1 + crlf; variant++) {
            size_t n = len;
            char *input = variant ? to_crlf(text, len, &n) : text;
            char why[1024] = "";
            FmtVerdict verdict = fmt_check_properties(input, n, why, sizeof why);
            const char *name = variant ? " (CRLF)" : "";
            if (verdict == FMT_HOLDS) {
                holds++;
            } else if (verdict == FMT_NOT_PARSED) {
                not_parsed++;
                if (must_parse) {
                    printf("FAIL %s%s: does not parse\n", argv[i], name);
                    broken++;
                }
            } else {
                printf("FAIL %s%s: %s\n", argv[i], name, why);
                broken++;
            }
            if (variant)
                free(input);
        }
        free(text);
    }
    printf("%u formatted with every guarantee, %u not formatted (syntax errors), %u failed\n",
           holds, not_parsed, broken);
    return broken ? 1 : 0;
}
