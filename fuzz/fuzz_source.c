#include "fuzz_source.h"

#include <stdlib.h>
#include <string.h>

void fuzz_check_workspace(const uint8_t *data, size_t size, bool check_only,
                          void (*then)(Workspace *w, void *context), void *context)
{
    if (size > SOURCE_MAX_FILE_SIZE)
        return;
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';

    Compiler c;
    compiler_init(&c);
    Workspace w;
    workspace_init(&w, &c, false);
    w.check.check_only = check_only;
    workspace_add_text(&w, "fuzz.orbit", text, size);
    workspace_check(&w);
    then(&w, context);
    workspace_free(&w);
    compiler_free(&c);
}

/* fuzz_check_source's `then`, called with the workspace's compiler and program. */
static void then_program(Workspace *w, void *context)
{
    void (**then)(Compiler *, const Program *) = context;
    (*then)(w->c, w->checked[0]);
}

void fuzz_check_source(const uint8_t *data, size_t size, bool check_only,
                       void (*then)(Compiler *c, const Program *program))
{
    fuzz_check_workspace(data, size, check_only, then_program, &then);
}
