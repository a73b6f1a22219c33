/* `orbitc check [OPTIONS] [PATH...]` (docs/cli.md): loads the sources through the
 * workspace (run.c), checks the programs on --jobs threads with the cache
 * (workspace_check_jobs) and prints every diagnostic (output.c). No PATH: `.`. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_cache.h"
#include "cli.h"

/* Says once, after the diagnostics, that the cache was not used, or that entries of it
 * were ignored. */
static void report_cache(const CheckCache *cache)
{
    if (cache->refused)
        fprintf(stderr, "orbitc: warning: %s; the cache was not used (it must be yours and "
                        "writable by you alone: `chmod go-w` it, or remove it)\n",
                cache->refused);
    if (cache->corrupt > 0)
        fprintf(stderr, "orbitc: warning: %u %s of the cache could not be read and %s "
                        "ignored (the first: %s); the programs were checked again\n",
                cache->corrupt, cache->corrupt == 1 ? "entry" : "entries",
                cache->corrupt == 1 ? "was" : "were", cache->first_corrupt);
}

/* Checks the programs: on --jobs threads with the cache (`cache` NULL: without it), or,
 * when the baseline or the suppressions will read the syntax trees of the run's compiler,
 * on this thread (workspace_check), which keeps them. */
static void check_programs(const CliOptions *opt, CliRun *run, CheckCache *cache)
{
    if (run->w.threads_parse)
        workspace_check_jobs(&run->w, cli_thread_count(opt), cache);
    else
        workspace_check(&run->w);
}

/* Says once, after the diagnostics, that entries of the cache were ignored; closes it
 * (writing its file index). */
static void close_cache(CheckCache *cache)
{
    if (!cache)
        return;
    report_cache(cache);
    cache_close(cache);
}

/* One check: each program on its own, with its own lint levels; the diagnostics of all
 * of them together, in source order. With the cache, `use_index` lets its file index
 * leave unchanged files unread; a file that changed before its text was needed (the run
 * saw it unchanged) makes the run start again without the index. `observer` (--watch)
 * is told what the run looks at on disk. */
static int check_with(const CliOptions *opt, bool use_index, const InputObserver *observer)
{
    CliRun run;
    cli_run_init(&run);
    run.w.inputs.observer = run.w.roots.observer = observer;
    run.w.check.check_only = true;   /* only the diagnostics are read */
    run.w.threads_parse = !opt->add_suppressions && !opt->baseline && !opt->write_baseline;
    run.w.read_threads = cli_thread_count(opt);
    /* `opened`: the cache, opened; `cache`: the same, when it may be used (a directory
     * not to be trusted is said after the diagnostics) */
    CheckCache store, *opened = NULL, *cache = NULL;
    const char *ignored = NULL;
    char *dir = run.w.threads_parse && !opt->no_cache ? cache_default_dir(&ignored) : NULL;
    if (ignored && use_index)
        fprintf(stderr, "orbitc: warning: ORBITC_CACHE_DIR is not an absolute path (`%s`): "
                        "ignored\n", ignored);
    if (dir) {
        opened = &store;
        if (cache_open(&store, dir)) {
            cache = &store;
            run.w.cache = use_index ? cache : NULL;
        }
        free(dir);
    }
    int status = cli_load(opt, &run);
    if (status == EXIT_OK)
        check_programs(opt, &run, cache);
    if (status == EXIT_OK && run.w.stale) {
        cache_close(opened);
        cli_run_free(&run);
        return check_with(opt, false, observer);
    }
    if (status == EXIT_OK && opt->add_suppressions) {
        status = cli_add_suppressions(opt, &run);
    } else if (status == EXIT_OK) {
        CliBaseline baseline;
        status = cli_baseline_apply(opt, &run, &baseline);
        if (status == EXIT_OK) {
            cli_print_diagnostics(opt, &run.c);
            status = cli_diagnostics_status(opt, &run.c);
            if (cli_baseline_finish(opt, &baseline, run.w.failures == 0) != EXIT_OK)
                status = EXIT_USAGE;
        }
        cli_baseline_free(&baseline);
        close_cache(opened);
        opened = NULL;
        if (run.w.failures > 0) {
            cli_report_unread(&run, "the program was checked without them");
            status = EXIT_USAGE;
        }
    }
    close_cache(opened);
    cli_run_free(&run);
    return status;
}

static int check_once(const CliOptions *opt, const InputObserver *observer)
{
    return check_with(opt, true, observer);
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
    if (opt->add_suppressions && cli_add_suppressions_usage(opt) != EXIT_OK)
        return EXIT_USAGE;
    return opt->watch ? cli_watch(opt, check_once) : check_once(opt, NULL);
}
