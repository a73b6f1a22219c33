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

/* Checks the programs: on --jobs threads with the cache (true: `cache` is open, to be
 * reported and closed after the diagnostics), or, when the baseline or the suppressions
 * will read the syntax trees of the run's compiler, on this thread (workspace_check),
 * which keeps them. */
static bool check_programs(const CliOptions *opt, CliRun *run, CheckCache *cache)
{
    if (!run->w.threads_parse) {
        workspace_check(&run->w);
        return false;
    }
    char *dir = opt->no_cache ? NULL : check_cache_default_dir();
    if (dir)
        check_cache_open(cache, dir, &run->w);
    bool open = dir != NULL;
    workspace_check_jobs(&run->w, thread_count(opt), open ? cache : NULL);
    free(dir);
    return open;
}

/* Says once, after the diagnostics, that entries of the cache were ignored; closes it. */
static void close_cache(CheckCache *cache, bool open)
{
    if (!open)
        return;
    report_cache(cache);
    check_cache_close(cache);
}

/* One check: each program on its own, with its own lint levels; the diagnostics of all
 * of them together, in source order. */
static int check_once(const CliOptions *opt)
{
    CliRun run;
    cli_run_init(&run);
    run.c.check_only = true;   /* only the diagnostics are read */
    run.w.threads_parse = !opt->add_suppressions && !opt->baseline && !opt->write_baseline;
    run.w.read_threads = thread_count(opt);
    int status = cli_load(opt, &run);
    CheckCache cache;
    bool cached = false;
    if (status == EXIT_OK && opt->add_suppressions) {
        cached = check_programs(opt, &run, &cache);
        status = cli_add_suppressions(opt, &run);
        close_cache(&cache, cached);
    } else if (status == EXIT_OK) {
        cached = check_programs(opt, &run, &cache);
        CliBaseline baseline;
        status = cli_baseline_apply(opt, &run, &baseline);
        if (status == EXIT_OK) {
            cli_print_diagnostics(opt, &run.c);
            status = cli_diagnostics_status(opt, &run.c);
            if (cli_baseline_finish(opt, &baseline, run.w.failures == 0) != EXIT_OK)
                status = EXIT_USAGE;
        }
        cli_baseline_free(&baseline);
        close_cache(&cache, cached);
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
