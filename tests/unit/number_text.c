/* Prints the text of numbers as liborbc's one formatter gives it (`str`, JSON, the dump):
 * one IEEE-754 binary64 per input line, as 16 hex digits of its bits, one text per output
 * line. tests/unit/test_number_text.py compares the output with the algorithm of
 * docs/bytecode.md section 4.1, written in Python. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_value.h"

int main(void)
{
    char line[64], text[ORBC_NUMBER_TEXT_SIZE];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t bits = strtoull(line, NULL, 16);
        double x;
        memcpy(&x, &bits, sizeof x);
        orbc_format_number(text, x);
        puts(text);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
