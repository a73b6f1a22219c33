/* `orbitc graph [--workflow NAME] [--format dot|mermaid|json] PATH...` (docs/cli.md,
 * "orbitc graph"): checks the program, then writes its step graph (compiler/check/
 * step_graph.h) as Graphviz DOT, a Mermaid flowchart or JSON (docs/graph.schema.json),
 * through compiler/check/graph_write.h, the writer the playground shares. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "graph_write.h"
#include "no_index.h"
#include "step_graph.h"

/* ---- The command -------------------------------------------------------------------------- */

static int write_graph(const CliOptions *opt, Compiler *c, const Program *p)
{
    uint32_t root = NO_INDEX;
    if (opt->workflow) {
        const char *suggestion;
        root = graph_find_workflow(p, opt->workflow, &suggestion);
        if (root == NO_INDEX) {
            fprintf(stderr, "orbitc: error: the program has no workflow `%s`\n", opt->workflow);
            if (suggestion)
                fprintf(stderr, "  help: did you mean `%s`?\n", suggestion);
            return EXIT_USAGE;
        }
    }
    StepGraph g;
    step_graph_build(&c->arena, p, root, &g);
    graph_write(&c->arena, &g, opt->graph_format, stdout);
    return EXIT_OK;
}

int cli_graph(const CliOptions *opt)
{
    CliRun run;
    cli_run_init(&run);
    int status = opt->workflow_count > 1
        ? cli_usage_error("%s draws one workflow: give --workflow once", "`orbitc graph`")
        : cli_load(opt, &run);
    if (status == EXIT_OK && run.w.roots.count > 1)
        status = cli_usage_error("%s draws one program: the paths hold several (program "
                                 "roots); give the paths of one", "`orbitc graph`");
    if (status == EXIT_OK) {
        workspace_check(&run.w);
        Program *p = run.w.roots.count ? run.w.checked[0] : NULL;
        if (run.c.diags.errors > 0 || !p) {
            CliOptions human = *opt;
            human.format = FORMAT_HUMAN;
            cli_print_diagnostics(&human, &run.c);
            status = run.c.diags.errors > 0 ? EXIT_ERRORS : EXIT_USAGE;
        } else if (run.w.failures > 0) {
            cli_report_unread(&run, "no graph was drawn");
            status = EXIT_USAGE;
        } else {
            status = write_graph(opt, &run.c, p);
        }
    }
    cli_run_free(&run);
    return status;
}
