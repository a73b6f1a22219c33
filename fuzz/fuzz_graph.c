/* libFuzzer target: arbitrary bytes as one source file, checked as `orbitc graph` checks
 * it; a program without errors is drawn as DOT, Mermaid and JSON into memory
 * (step_graph.h, graph_write.h). Any crash, hang, sanitizer report or leak is a bug, and
 * so is output that breaks the writer's promises (docs/cli.md, "orbitc graph"): each
 * output valid UTF-8, DOT and Mermaid with no character that is not seen but their line
 * ends (a label shows them as escapes); no `%` in the Mermaid text (a directive or a comment starts
 * with `%%`) and an even number of `"` on each of its lines (a label's own quotes are
 * entity codes); the JSON one a document that holds every workflow of the program.
 * What Graphviz and Mermaid make of the output is tests/cli/test_graph.py's business. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "graph_write.h"
#include "no_index.h"
#include "step_graph.h"
#include "utf8.h"
#include "fuzz_source.h"

static void fail(const char *format, const char *what)
{
    fprintf(stderr, "fuzz_graph: the %s output ", format);
    fprintf(stderr, "%s\n", what);
    abort();
}

/* Valid UTF-8; in DOT and Mermaid (`labels`), no character that is not seen. */
static void check_text(const char *format, const char *text, size_t len, bool labels)
{
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        if (cp < 0)
            fail(format, "is not UTF-8");
        if (labels && cp != '\n' && utf8_is_unseen(cp))
            fail(format, "holds a character that is not seen");
        i += n;
    }
}

static void check_mermaid(const char *text, size_t len)
{
    if (memchr(text, '%', len))
        fail("mermaid", "holds a `%`");
    uint32_t quotes = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '"')
            quotes++;
        else if (text[i] == '\n' && quotes % 2)
            fail("mermaid", "has a line with an odd number of `\"`");
    }
}

static void check_json(const char *text, size_t len, const Program *p)
{
    json_error_t error;
    json_t *doc = json_loadb(text, len, JSON_ALLOW_NUL, &error);   /* a string may hold NUL */
    if (!doc)
        fail("json", "does not parse");
    if (json_array_size(json_object_get(doc, "workflows")) != p->workflow_count)
        fail("json", "lacks a workflow");
    json_decref(doc);
}

static void draw(Compiler *c, const Program *p)
{
    StepGraph g;
    step_graph_build(&c->arena, p, NO_INDEX, &g);
    for (int format = 0; format < GRAPH_FORMAT_COUNT; format++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (!out)
            abort();
        graph_write(&c->arena, &g, (GraphFormat)format, out);
        fclose(out);
        check_text(GRAPH_FORMAT_NAMES[format], text, len, format != GRAPH_JSON);
        if (format == GRAPH_MERMAID)
            check_mermaid(text, len);
        if (format == GRAPH_JSON)
            check_json(text, len, p);
        free(text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void draw_if_clean(Compiler *c, const Program *program)
{
    if (c->diags.errors == 0 && program)   /* not check_only: the graph reads the steps */
        draw(c, program);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_check_source(data, size, false, draw_if_clean);
    return 0;
}
