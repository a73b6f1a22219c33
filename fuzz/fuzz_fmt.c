/* libFuzzer target: arbitrary bytes as one source file through the formatter. On every
 * input that parses, the formatter's guarantees must hold (tools/fmt_properties.h):
 * idempotent, the same tokens, tree and comments, the layout's rules. A broken guarantee
 * aborts with its reason; a crash, hang, sanitizer report or leak is a bug as usual.
 *
 * Byte mutations seldom keep a program parseable while moving its layout, so a custom
 * mutator does, three times in four, what fuzz/mutate_fmt.py does: it puts a
 * comment, blank lines or spaces where space already is, or joins two lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_properties.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024];
    if (fmt_check_properties((const char *)data, size, why, sizeof why) == FMT_BROKEN) {
        fprintf(stderr, "fuzz_fmt: a guarantee of the formatter fails: %s\n", why);
        abort();
    }
    return 0;
}

/* ---- The mutator ------------------------------------------------------------------ */

static const char *const PIECES[] = {
    " // c\n", "//\n", "// \t\n", " /* c */ ", "/**/", "/* a\n   b */", "/*\n\n\n*/",
    "/*\n *\n */", "/* a\r\nb */", "\n", "\n\n", "\n\n\n", " ", "\t", "\r\n", "  \n", ";", ",",
    /* a lone CR ends a line too (base/source.h) */
    "\r", "\r\r", " // c\r", "/* a\rb */",
};

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 16;
}

/* A place where space already is: the first space, tab or line end at or after `from`. */
static size_t space_at_or_after(const uint8_t *data, size_t size, size_t from)
{
    for (size_t i = from; i < size; i++)
        if (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')
            return i;
    return size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    unsigned state = seed;
    unsigned choice = next_random(&state) % 4;
    size_t at = size ? space_at_or_after(data, size, next_random(&state) % size) : 0;
    if (choice == 0 || at == size)
        return LLVMFuzzerMutate(data, size, max_size);
    if (choice == 3) {                         /* join two lines */
        size_t nl = at;
        while (nl < size && data[nl] != '\n' && data[nl] != '\r')
            nl++;
        if (nl == size)
            return LLVMFuzzerMutate(data, size, max_size);
        data[nl] = ' ';
        return size;
    }
    const char *piece = PIECES[next_random(&state) % (sizeof PIECES / sizeof *PIECES)];
    size_t n = strlen(piece);
    if (size + n > max_size)
        return LLVMFuzzerMutate(data, size, max_size);
    memmove(data + at + n, data + at, size - at);
    memcpy(data + at, piece, n);
    return size + n;
}
