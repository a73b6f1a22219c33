/* `orbitc check [OPTIONS] [PATH...]` (docs/cli.md): loads and checks the sources through
 * the workspace (run.c) and prints every diagnostic (output.c). No PATH: `.`. */
#include "cli.h"

/* One check: each program on its own, with its own lint levels; the diagnostics of all
 * of them together, in source order. */
static int check_once(const CliOptions *opt)
{
    CliRun run;
    cli_run_init(&run);
    run.c.check_only = true;   /* only the diagnostics are read */
    int status = cli_load(opt, &run);
    if (status == EXIT_OK && opt->add_suppressions) {
        workspace_check(&run.w);
        status = cli_add_suppressions(opt, &run);
    } else if (status == EXIT_OK) {
        workspace_check(&run.w);
        CliBaseline baseline;
        status = cli_baseline_apply(opt, &run, &baseline);
        if (status == EXIT_OK) {
            cli_print_diagnostics(opt, &run.c);
            status = cli_diagnostics_status(opt, &run.c);
            if (cli_baseline_finish(opt, &baseline, run.w.failures == 0) != EXIT_OK)
                status = EXIT_USAGE;
        }
        cli_baseline_free(&baseline);
        if (run.w.failures > 0) {
            cli_report_unread(&run, "the program was checked without them");
            status = EXIT_USAGE;
        }
    }
    cli_run_free(&run);
    return status;
}

/* check: once, or again at every change under --watch (watch.c). */
int cli_check(const CliOptions *given)
{
    static const char *const here[] = { "." };
    CliOptions options = *given;
    const CliOptions *opt = &options;
    if (options.path_count == 0) {
        options.paths = (const char **)here;
        options.path_count = 1;
    }
    if (opt->statistics && opt->format != FORMAT_HUMAN && opt->format != FORMAT_CONCISE)
        return cli_usage_error("--statistics prints a table: it takes no --format %s",
                               opt->format_text);
    return opt->watch ? cli_watch(opt, check_once) : check_once(opt);
}
