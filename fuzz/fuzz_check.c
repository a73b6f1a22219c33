/* libFuzzer target: arbitrary bytes as one source file through the whole check pipeline
 * (lex, parse, check), then both renderers into a memory stream. Any crash, hang,
 * sanitizer report or leak is a bug; the diagnostics themselves are not inspected. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_source.h"

static void render_all(const Compiler *c)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    if (!out)
        abort();
    RenderOptions human = { .color = true, .max_shown = 200, .summary = true };
    RenderOptions plain = { .color = false, .max_shown = 0, .summary = true };
    render_human(out, &c->diags, &c->sources, &human);
    render_human(out, &c->diags, &c->sources, &plain);
    render_json(out, &c->diags, &c->sources, &plain);
    fclose(out);
    free(buffer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render_checked(Compiler *c, const Program *program)
{
    (void)program;
    render_all(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_check_source(data, size, true, render_checked);   /* as `orbitc check` runs it */
    return 0;
}
