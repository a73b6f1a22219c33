/* fmt_props: checks the formatter's guarantees (fmt_properties.h) on files, for the test
 * suite (tests/cli/test_fmt.py runs it over every golden source, example, the standard
 * library, generated programs and the fuzz corpora).
 *
 *   build/tools/fmt_props [--crlf] [--cr] [--must-parse] FILE...
 *
 * --crlf checks each file with its line ends made CRLF as well, --cr with them made lone
 * CRs (old Mac files: base/source.h's rule of line ends); --must-parse counts a
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

/* The text with every line end (LF or CRLF) made a lone CR. */
static char *to_cr(const char *text, size_t len, size_t *out_len)
{
    char *out = xmalloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n' && i > 0 && text[i - 1] == '\r')
            continue;
        out[n++] = text[i] == '\n' ? '\r' : text[i];
    }
    *out_len = n;
    return out;
}

enum { PLAIN, CRLF, CR, VARIANTS };

int main(int argc, char **argv)
{
    bool variant_on[VARIANTS] = { true, false, false }, must_parse = false;
    unsigned holds = 0, not_parsed = 0, broken = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--crlf") == 0 || strcmp(argv[i], "--cr") == 0) {
            variant_on[argv[i][4] ? CRLF : CR] = true;
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
        for (int variant = PLAIN; variant < VARIANTS; variant++) {
            if (!variant_on[variant])
                continue;
            size_t n = len;
            char *input = variant == CRLF ? to_crlf(text, len, &n)
                        : variant == CR   ? to_cr(text, len, &n) : text;
            char why[1024] = "";
            FmtVerdict verdict = fmt_check_properties(input, n, why, sizeof why);
            const char *name = variant == CRLF ? " (CRLF)" : variant == CR ? " (CR)" : "";
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
            if (variant != PLAIN)
                free(input);
        }
        free(text);
    }
    printf("%u formatted with every guarantee, %u not formatted (syntax errors), %u failed\n",
           holds, not_parsed, broken);
    return broken ? 1 : 0;
}
