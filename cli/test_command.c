/* `orbitc test [PATH...] [--filter P] [--jobs N] [--format human|json|junit|tap|github]
 * [--coverage] [--coverage-format text|json|lcov] [--coverage-output FILE]
 * [--coverage-threshold N] [--explore [--budget N] [--time S] [--seed S]]` (docs/testing.md): loads and checks the programs through the
 * workspace (run.c), runs their tests (testing/runner.h), prints the report
 * (testing/report.h) on standard output, then the coverage (testing/coverage.h) there or
 * into its file. Exit status: 0 every test passed, 1 a test failed or the coverage is
 * under the threshold, 2 the tests could not run (a program does not check, a path
 * cannot be read, a test's world is refused, bad usage). With `--mutate [--fail-under
 * SCORE]`, once every test passed, the mutation report (testing/mutate.h) instead of the
 * tests' own, and 1 when a mutant survived (or the score is under SCORE). */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "coverage.h"
#include "explore.h"
#include "mutate.h"
#include "report.h"
#include "report_ci.h"
#include "runner.h"
#include "textbuf.h"

static void print_report(const CliOptions *opt, const TestRun *run)
{
    TextBuffer out = { 0 };
    if (opt->test_format == TEST_FORMAT_JSON)
        testing_report_json(run, &out);
    else if (opt->test_format == TEST_FORMAT_JUNIT)
        testing_report_junit(run, &out);
    else if (opt->test_format == TEST_FORMAT_TAP)
        testing_report_tap(run, &out);
    else if (opt->test_format == TEST_FORMAT_GITHUB)
        testing_report_github(run, &out);
    else
        testing_report_human(run, cli_want_color_on(opt->color, STDOUT_FILENO), &out);
    if (out.len)
        fwrite(out.data, 1, out.len, stdout);
    text_free(&out);
}

/* The coverage of the run, printed after a human report or written to its file; false
 * when the file could not be written. */
static bool write_coverage(const CliOptions *opt, const TestingRun *tests)
{
    const Coverage *const *list = (const Coverage *const *)tests->coverage;
    TextBuffer out = { 0 };
    if (opt->coverage_format == COVERAGE_JSON)
        coverage_write_json(list, tests->coverage_count, &out);
    else if (opt->coverage_format == COVERAGE_LCOV)
        coverage_write_lcov(list, tests->coverage_count, &out);
    else
        coverage_write_text(list, tests->coverage_count, &out);
    bool ok = true;
    if (opt->coverage_output) {
        ok = cli_write_file(opt->coverage_output, out.data ? out.data : "", out.len);
    } else {
        fputs("\n", stdout);
        fwrite(out.data, 1, out.len, stdout);
    }
    text_free(&out);
    return ok;
}

/* Whether the coverage is at --coverage-threshold; said on stderr when it is not. */
static bool threshold_met(const CliOptions *opt, const TestingRun *tests)
{
    const Coverage *const *list = (const Coverage *const *)tests->coverage;
    if (opt->coverage_threshold < 0
        || coverage_meets(list, tests->coverage_count, opt->coverage_threshold))
        return true;
    uint64_t covered, total;
    coverage_counts(list, tests->coverage_count, &covered, &total);
    fprintf(stderr, "orbitc: error: the tests cover %.1f %% of the items (%llu of %llu), "
                    "under --coverage-threshold %g\n",
            coverage_percent(list, tests->coverage_count), (unsigned long long)covered,
            (unsigned long long)total, opt->coverage_threshold);
    return false;
}

/* The status of a run: 2 when a test could not run, else 1 when one failed. */
static int run_status(const TestRun *run)
{
    if (run->errors)
        return EXIT_USAGE;
    return run->failed ? EXIT_ERRORS : EXIT_OK;
}

/* `--explore`: the worlds around each test (testing/explore.h); 1 when one broke an
 * invariant. */
static int explore_programs(const CliOptions *opt, CliRun *run)
{
    ExploreOptions options = { opt->filter, cli_thread_count(opt), opt->explore.budget,
                               opt->explore.seconds, opt->explore.seed };
    ExploreRun explored;
    char why[256] = "";
    int status = EXIT_USAGE;
    if (testing_explore(&run->w, &options, &explored, why, sizeof why)) {
        TextBuffer out = { 0 };
        if (opt->test_format == TEST_FORMAT_JSON)
            testing_explore_report_json(&explored, &out);
        else
            testing_explore_report_human(&explored, &out);
        fwrite(out.data, 1, out.len, stdout);
        text_free(&out);
        status = explored.errors ? EXIT_USAGE : explored.broken ? EXIT_ERRORS : EXIT_OK;
    } else {
        fprintf(stderr, "orbitc: %s\n", why[0] ? why : "cannot build the program");
    }
    testing_explore_free(&explored);
    return status;
}

/* --mutate, once every test passed: the mutants run and reported; the status. */
static int mutate_programs(const CliOptions *opt, CliRun *run)
{
    TestingOptions options = { opt->filter, cli_thread_count(opt), false };
    MutationRun mutants;
    char why[256] = "";
    if (!testing_mutate(&run->w, &options, &mutants, why, sizeof why)) {
        fprintf(stderr, "orbitc: error: %s\n", why);
        testing_mutate_free(&mutants);
        return EXIT_USAGE;
    }
    TextBuffer out = { 0 };
    if (opt->test_format == TEST_FORMAT_JSON)
        testing_mutate_report_json(&mutants, &out);
    else
        testing_mutate_report_human(&mutants, cli_want_color_on(opt->color, STDOUT_FILENO),
                                    &out);
    fwrite(out.data, 1, out.len, stdout);
    text_free(&out);
    double score = testing_mutation_score(mutants.killed, mutants.survived);
    int status = EXIT_OK;
    if (opt->fail_under >= 0 && score < opt->fail_under) {
        fprintf(stderr, "orbitc: error: the tests kill %.1f %% of the mutants (%u of %u), "
                        "under --fail-under %g\n", score, mutants.killed,
                mutants.killed + mutants.survived, opt->fail_under);
        status = EXIT_ERRORS;
    } else if (opt->fail_under < 0 && mutants.survived) {
        status = EXIT_ERRORS;
    }
    testing_mutate_free(&mutants);
    return status;
}

/* The programs checked; their tests run when every one checks and every path was read. */
static int test_programs(const CliOptions *opt, CliRun *run)
{
    workspace_check(&run->w);
    if (run->c.diags.errors > 0) {
        CliOptions human = *opt;
        human.format = FORMAT_HUMAN;
        cli_print_diagnostics(&human, &run->c);
        return EXIT_USAGE;
    }
    if (run->w.failures > 0) {
        cli_report_unread(run, "no test ran");
        return EXIT_USAGE;
    }
    if (opt->explore.on)
        return explore_programs(opt, run);
    TestingOptions options = { opt->filter, cli_thread_count(opt), opt->coverage };
    TestingRun tests;
    char why[256] = "";
    int status;
    if (testing_run(&run->w, &options, &tests, why, sizeof why)) {
        status = run_status(&tests.run);
        if (opt->mutate && status == EXIT_OK) {
            testing_run_free(&tests);
            return mutate_programs(opt, run);
        }
        print_report(opt, &tests.run);
        if (opt->mutate)
            fprintf(stderr, "orbitc: error: --mutate needs every test to pass first: %u "
                            "failed, %u could not run\n", tests.run.failed, tests.run.errors);
        if (opt->coverage && status != EXIT_USAGE) {
            if (!write_coverage(opt, &tests))
                status = EXIT_USAGE;
            else if (!threshold_met(opt, &tests) && status == EXIT_OK)
                status = EXIT_ERRORS;
        }
    } else {
        CliOptions human = *opt;
        human.format = FORMAT_HUMAN;
        diag_finish(&run->c.diags);   /* lowering may have reported E0601 */
        cli_print_diagnostics(&human, &run->c);
        fprintf(stderr, "orbitc: %s\n", why[0] ? why : "cannot build the program");
        status = EXIT_USAGE;
    }
    testing_run_free(&tests);
    return status;
}

int cli_test(const CliOptions *given)
{
    static const char *const here[] = { "." };
    CliOptions options = *given;
    if (options.path_count == 0) {
        options.paths = (const char **)here;
        options.path_count = 1;
    }
    if (options.coverage && !options.coverage_output && options.test_format != TEST_FORMAT_HUMAN) {
        fprintf(stderr, "orbitc: error: `--coverage` with `--format %s` needs "
                        "`--coverage-output FILE`: standard output holds the report\n",
                options.format_text);
        return EXIT_USAGE;
    }
    if (options.explore.on && options.mutate) {
        fprintf(stderr, "orbitc: error: `--explore` and `--mutate` are two runs: give one\n");
        return EXIT_USAGE;
    }
    if (options.explore.on && (options.coverage || (options.test_format != TEST_FORMAT_HUMAN
                                                     && options.test_format != TEST_FORMAT_JSON))) {
        fprintf(stderr, "orbitc: error: `--explore` reports as human or json, without "
                        "`--coverage`\n");
        return EXIT_USAGE;
    }
    if (options.fail_under >= 0 && !options.mutate) {
        fprintf(stderr, "orbitc: error: `--fail-under` is the score of `--mutate`\n");
        return EXIT_USAGE;
    }
    if (options.mutate && (options.coverage || (options.test_format != TEST_FORMAT_HUMAN
                                                && options.test_format != TEST_FORMAT_JSON))) {
        fprintf(stderr, "orbitc: error: `--mutate` reports as human text or JSON, without "
                        "`--coverage`\n");
        return EXIT_USAGE;
    }
    int status;
    CliRun run;
    cli_run_init(&run);
    status = cli_load(&options, &run);
    if (status == EXIT_OK)
        status = test_programs(&options, &run);
    cli_run_free(&run);
    return status;
}
