/* The step graph (step_graph.h) written as Graphviz DOT, a Mermaid flowchart or JSON
 * (docs/graph.schema.json), exactly as `orbitc graph --format dot|mermaid|json` prints
 * it: the one writer of the command line (cli/graph_command.c) and of the playground
 * (playground/api.c, orbit_pg_graph). */
#ifndef ORBIT_GRAPH_WRITE_H
#define ORBIT_GRAPH_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "program.h"
#include "step_graph.h"

typedef enum GraphFormat { GRAPH_DOT, GRAPH_MERMAID, GRAPH_JSON, GRAPH_FORMAT_COUNT } GraphFormat;

/* "dot", "mermaid", "json": --format's values, in GraphFormat's order. */
extern const char *const GRAPH_FORMAT_NAMES[GRAPH_FORMAT_COUNT];

/* The format named `text`; false when it names none. */
bool graph_format_parse(const char *text, GraphFormat *format);

/* The index of the workflow named `name` in `p`; NO_INDEX when it has none, with
 * *suggestion the name to suggest instead (suggest.h) or NULL. */
uint32_t graph_find_workflow(const Program *p, const char *name, const char **suggestion);

/* Writes `g` to `out` in `format`, its labels in the arena `a`. */
void graph_write(Arena *a, const StepGraph *g, GraphFormat format, FILE *out);

#endif
