/* libFuzzer target: arbitrary bytes as one source file through the formatter. On every
 * input that parses, the formatter's guarantees must hold (tools/fmt_properties.h):
 * idempotent, the same tokens, tree and comments, the layout's rules. A broken guarantee
 * aborts with its reason; a crash, hang, sanitizer report or leak is a bug as usual. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt_properties.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024];
    if (fmt_check_properties((const char *)data, size, why, sizeof why) == FMT_BROKEN) {
        fprintf(stderr, "fuzz_fmt: a guarantee of the formatter fails: %s\n", why);
        abort();
    }
    return 0;
}
