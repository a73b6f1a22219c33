/* What the commands of orbitc share (cli/): the options main.c parses, one run of
 * check, build, fix or test through the workspace (run.c), and each command's entry. */
#ifndef ORBIT_CLI_H
#define ORBIT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "attributes.h"   /* WASM_EXPORT */
#include "baseline.h"
#include "format_command.h"
#include "graph_write.h"
#include "workspace.h"

/* The exit status of every command (docs/cli.md). */
enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };

typedef enum Format {
    FORMAT_HUMAN, FORMAT_JSON, FORMAT_GITHUB, FORMAT_GITLAB, FORMAT_SARIF, FORMAT_CONCISE
} Format;
/* test --format: the reports of testing/report.h. */
typedef enum TestFormat {
    TEST_FORMAT_HUMAN, TEST_FORMAT_JSON, TEST_FORMAT_JUNIT, TEST_FORMAT_TAP, TEST_FORMAT_GITHUB
} TestFormat;
/* compat --format: the reports of compat/compat.h. */
typedef enum CompatFormat {
    COMPAT_FORMAT_HUMAN, COMPAT_FORMAT_JSON, COMPAT_FORMAT_GITHUB, COMPAT_FORMAT_SARIF,
    COMPAT_FORMAT_JUNIT
} CompatFormat;
/* test --coverage-format */
typedef enum CoverageFormat { COVERAGE_TEXT, COVERAGE_JSON, COVERAGE_LCOV } CoverageFormat;
typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct LintSetting {
    const char *code;       /* a code or a prefix, as given */
    LintLevel level;        /* LINT_WARN (--warn, --select) or LINT_ALLOW */
    bool selection;         /* --select or --ignore, not --warn or --allow */
} LintSetting;

/* The command line, as main.c parsed it. */
typedef struct CliOptions {
    const char *command;
    Format format;
    const char *format_text;        /* --format as given (main.c reads it for the command) */
    GraphFormat graph_format;       /* graph --format */
    const char *workflow;           /* graph --workflow */
    const char **workflows;         /* compat --workflow, each as given */
    int workflow_count;
    CompatFormat compat_format;     /* compat --format */
    int fail_on;                    /* compat --fail-on: CompatLevel (0 info .. 2 error) */
    TestFormat test_format;         /* test --format */
    const char *filter;             /* test --filter */
    bool coverage;                  /* test --coverage (or any --coverage-* option) */
    CoverageFormat coverage_format; /* test --coverage-format */
    const char *coverage_output;    /* test --coverage-output */
    double coverage_threshold;      /* test --coverage-threshold; -1: none */
    struct {                        /* test --explore (and --budget, --time, --seed) */
        bool on;
        uint32_t budget;            /* 0: the default */
        double seconds;             /* 0: none */
        uint64_t seed;
    } explore;
    bool mutate;                    /* test --mutate */
    double fail_under;              /* test --fail-under; -1: none */
    ColorMode color;
    bool deny_warnings;
    bool help;                      /* --help: the help of the command (main.c) */
    bool quiet;                     /* --quiet: no summary, no report of fixes */
    bool exit_zero;                 /* --exit-zero: status 1 becomes 0 */
    bool statistics;                /* check --statistics: counts per code */
    const char *output_file;        /* check --output-file */
    bool no_ignore;                 /* --no-ignore: .gitignore files not read */
    const char **excludes;          /* --exclude PATTERN, in order */
    int exclude_count;
    bool unsafe_fixes;              /* fix --unsafe-fixes */
    bool show_fixes;                /* fix --show-fixes */
    bool watch;                     /* check --watch */
    uint32_t max_diagnostics;
    const char *output;             /* build -o */
    const char *stdin_filename;     /* --stdin-filename */
    FormatOptions fmt;              /* fmt --check, --diff; fix --diff */
    uint32_t max_rounds;            /* fix --max-rounds */
    uint32_t jobs;                  /* check --jobs; 0: the number of processors */
    bool no_cache;                  /* check --no-cache */
    const char **paths;
    int path_count;
    LintSetting *lints;             /* --warn, --allow, --select, --ignore in order */
    int lint_count;
    const char *baseline;           /* check --baseline */
    const char *write_baseline;     /* check --write-baseline */
    bool add_suppressions;          /* check --add-suppressions */
    const char *suppress_codes;     /* --add-suppressions=CODE,...: only these (NULL: all) */
} CliOptions;

/* --- run.c --- */

/* Prints "orbitc: error: " and `fmt` with `arg`, then where to find the usage; returns
 * EXIT_USAGE. */
int cli_usage_error(const char *fmt, const char *arg);

/* Whether human output gets colour under `mode` (the environment decides under auto). */
bool cli_want_color(ColorMode mode);
/* The same for output to descriptor `fd` (a diff on standard output). */
bool cli_want_color_on(ColorMode mode, int fd);

/* --jobs, or the processors this process may run on (check and test). */
unsigned cli_thread_count(const CliOptions *opt);

/* What a directory walk passes over: --no-ignore and --exclude (workspace/ignore.h). */
InputIgnore cli_input_ignore(const CliOptions *opt);

/* The diagnostic code named by `arg`, in any case ("w0007" is W0007), or -1. */
int cli_code_from_arg(const char *arg);

/* Prints a path that cannot be used, as the workspace reports it (InputReport):
 * "orbitc: error: MESSAGE" on standard error; the CI formats list it too. */
void cli_print_problem(void *context, const char *path, const char *message);

/* One run of check, build or fix: the compiler and the workspace of its sources. */
typedef struct CliRun {
    Compiler c;
    Workspace w;
} CliRun;

void cli_run_init(CliRun *run);
void cli_run_free(CliRun *run);

/* Collects and reads the sources, groups them into programs by their roots, reads the
 * programs' configurations and parses everything (workspace_prepare); nothing is
 * checked yet. Returns EXIT_USAGE when an option is wrong or the output is an input;
 * else EXIT_OK, with w.failures the paths that could not be read (each reported). */
int cli_load(const CliOptions *opt, CliRun *run);

/* Prints the diagnostics of `c` in the format of the options. */
void cli_print_diagnostics(const CliOptions *opt, Compiler *c);

/* --- watch.c --- */

/* `check --watch`: runs `check` on the options, then again after each change to what it
 * read (told to `observer`, which it gives the workspace), until SIGINT or SIGTERM (then
 * status 0). Status 2 when the paths cannot be watched or the options cannot go with
 * watching. */
int cli_watch(const CliOptions *opt, int (*check)(const CliOptions *opt,
                                                  const InputObserver *observer));

/* --- output.c --- */

/* Prints the diagnostics of `c` as the options say (the format, or check --statistics;
 * into check --output-file, atomically, when given) and warns when a SARIF log nears
 * GitHub's limit of results. False when the output file could not be written (said on
 * standard error). */
/* Writes a report to `path` (--output-file, --coverage-output) atomically
 * (orbc_write_file: a temporary file renamed over it; a device or FIFO written to);
 * false with the error said. */
bool cli_write_file(const char *path, const char *text, size_t len);
bool cli_render(const CliOptions *opt, const Compiler *c, RenderOptions *render);

/* The exit status the diagnostics deserve (--deny-warnings, --exit-zero; 2 when the
 * output file could not be written). */
int cli_diagnostics_status(const CliOptions *opt, const Compiler *c);

/* After the diagnostics of the files that were read: the paths that could not be, once
 * more, with `consequence`. */
void cli_report_unread(const CliRun *run, const char *consequence);

/* The name of the file at `path` in the header of a diff (`--- NAME`, `+++ NAME`), so
 * that `patch -p0` and `git apply -p0` apply it from the current directory: relative to
 * it, without a leading `./`; a file outside it keeps `path` (docs/cli.md, "Diffs").
 * Free it with free. */
char *cli_diff_name(const char *path);

/* --- baseline_command.c: check --baseline and --write-baseline --- */

typedef struct CliBaseline {
    Baseline before;                /* the file compared with */
    bool have_before;
    Baseline after;                 /* the file to write */
    bool have_after;
    BaselineFile target;            /* --write-baseline's file as read, when it exists */
    bool have_target;
    uint8_t *marks;                 /* BaselineMark per diagnostic of the check */
    uint32_t known;                 /* warnings left out of the report */
    uint32_t new_count;             /* warnings reported that it does not hold */
} CliBaseline;

/* After workspace_check: reads the baseline, leaves the warnings it holds out of the
 * sink, and prepares the file to write. EXIT_USAGE when a file cannot be read. */
int cli_baseline_apply(const CliOptions *opt, CliRun *run, CliBaseline *b);

/* After the diagnostics are printed: how many were left out, the entries to prune, and
 * the file written (only when every path was read: `complete`). EXIT_USAGE when it is
 * not written. */
int cli_baseline_finish(const CliOptions *opt, CliBaseline *b, bool complete);
void cli_baseline_free(CliBaseline *b);

/* --- suppress_command.c: check --add-suppressions --- */

/* Before anything is read: refuses --add-suppressions with a list that names no code, or
 * a code that is not a warning a comment may suppress, or with a baseline (the usage
 * error printed, EXIT_USAGE); else EXIT_OK. */
int cli_add_suppressions_usage(const CliOptions *opt);

/* After workspace_check: inserts `// orbit:allow(CODE)` comments for the warnings of
 * the run and writes the files that changed; returns the exit status. */
int cli_add_suppressions(const CliOptions *opt, CliRun *run);

/* --- the commands, each in NAME_command.c; each returns the exit status --- */

int cli_check(const CliOptions *opt);
int cli_build(const CliOptions *opt);
int cli_dis(const CliOptions *opt);
int cli_explain(const CliOptions *opt);
int cli_fmt(const CliOptions *opt);
int cli_fix(const CliOptions *opt);
int cli_graph(const CliOptions *opt);
int cli_test(const CliOptions *opt);
int cli_compat(const CliOptions *opt);

/* orbitc's command line (main.c): the exit status. The one WebAssembly build exports it
 * (the npm package's fallback, hosts/wasm/orbit-api.js runOrbitc): once per instance of
 * the module, as a process runs main once. */
WASM_EXPORT int cli_main(int argc, char **argv);

/* `orbitc lsp`: argv holds the arguments after `lsp`, which it reads itself (lsp_command.c). */
int cli_lsp(int argc, char **argv);

#endif
