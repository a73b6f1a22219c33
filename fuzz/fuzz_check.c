/* libFuzzer target: arbitrary bytes as one source file through the whole check pipeline
 * (lex, parse, check), then both renderers into a memory stream. Any crash, hang,
 * sanitizer report or leak is a bug; the diagnostics themselves are not inspected. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workspace.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > SOURCE_MAX_FILE_SIZE)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';

    Compiler c;
    compiler_init(&c);
    c.check_only = true;   /* as `orbitc check` runs it */
    Workspace w;
    workspace_init(&w, &c, false);
    workspace_add_text(&w, "fuzz.orbit", text, size);
    workspace_check(&w);
    render_all(&c);
    workspace_free(&w);
    compiler_free(&c);
    return 0;
}
