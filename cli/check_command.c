/* `orbitc check [OPTIONS] [PATH...]` (docs/cli.md): loads the sources through the
 * workspace (run.c), checks the programs on --jobs threads with the cache
 * (workspace_check_jobs) and prints every diagnostic (output.c). No PATH: `.`. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_cache.h"
#include "cli.h"

/* --jobs, or the processors this process may run on. */
static unsigned thread_count(const CliOptions *opt)
{
    if (opt->jobs > 0)
        return opt->jobs;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}

/* Says once, after the diagnostics, that entries of the cache were ignored. */
static void report_cache(const CheckCache *cache)
{
    if (cache->corrupt > 0)
        fprintf(stderr, "orbitc: warning: %u %s of the cache could not be read and %s "
                        "ignored (the first: %s); the programs were checked again\n",
                cache->corrupt, cache->corrupt == 1 ? "entry" : "entries",
                cache->corrupt == 1 ? "was" : "were", cache->first_corrupt);
}

/* check: each program on its own, with its own lint levels; the diagnostics of all of
 * them together, in source order. */
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
    CliRun run;
    cli_run_init(&run);
    run.c.check_only = true;   /* only the diagnostics are read */
    run.w.threads_parse = true;
    int status = cli_load(opt, &run);
    if (status == EXIT_OK) {
        CheckCache cache;
        char *dir = opt->no_cache ? NULL : check_cache_default_dir();
        if (dir)
            check_cache_open(&cache, dir, &run.w);
        workspace_check_jobs(&run.w, thread_count(opt), dir ? &cache : NULL);
        cli_print_diagnostics(opt, &run.c);
        status = cli_diagnostics_status(opt, &run.c);
        if (dir) {
            report_cache(&cache);
            check_cache_close(&cache);
        }
        free(dir);
        if (run.w.failures > 0) {
            cli_report_unread(&run, "the program was checked without them");
            status = EXIT_USAGE;
        }
    }
    cli_run_free(&run);
    return status;
}
