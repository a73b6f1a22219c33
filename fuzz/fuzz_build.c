/* libFuzzer target: arbitrary bytes as one source file through check, and when the check
 * reports no error, through lowering, the bytecode loader (which fully verifies the file)
 * and the disassembler. Asserts the compiler's promise that every program that checks
 * clean either builds, loads and disassembles, or is refused by lowering with E0601
 * diagnostics only (a literal too large for the format): anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_source.h"
#include "lower.h"
#include "orbc.h"

static FILE *devnull;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_build: a program that checks clean %s: %s\n", what, detail);
    abort();
}

static void build_and_load(Compiler *c, const Program *program)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    uint32_t before = c->diags.count;
    char why[256];
    if (!lower_program(c, program, &bytes, &len, why, sizeof why)) {
        if (c->diags.count == before)
            fail("does not lower", why);
        for (uint32_t i = before; i < c->diags.count; i++)
            if (c->diags.items[i]->code != E0601)
                fail("does not lower", diag_info(c->diags.items[i]->code)->code);
        return;
    }
    OrbcModule module;
    OrbcError err;
    if (!orbc_load(bytes, len, &module, &err))
        fail("gives bytecode that does not load", err.text);
    orbc_disassemble(&module, devnull);
    orbc_module_free(&module);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void build_if_clean(Compiler *c, const Program *program)
{
    if (c->diags.errors == 0 && program)
        build_and_load(c, program);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    fuzz_check_source(data, size, false, build_if_clean);
    return 0;
}
