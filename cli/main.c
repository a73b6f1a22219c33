/* orbitc: the command line. Parses the arguments into CliOptions (cli.h), refuses what a
 * command would ignore, and runs the command, each in a file of its own (NAME_command.c;
 * what they share: run.c). Exit status: 0 no errors, 1 errors found, 2 the command
 * itself could not run (docs/cli.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fix_command.h"
#include "memory.h"
#include "orbc.h"
#include "suggest.h"
#include "version.h"

enum { DEFAULT_MAX_DIAGNOSTICS = 200 };

/* The options, each with the commands it applies to: any other command refuses it. */
typedef enum OptionId {
    OPT_FORMAT, OPT_COLOR, OPT_DENY_WARNINGS, OPT_WARN, OPT_ALLOW, OPT_MAX_DIAGNOSTICS,
    OPT_OUTPUT, OPT_STDIN_FILENAME, OPT_CHECK, OPT_DIFF, OPT_MAX_ROUNDS, OPT_WORKFLOW, OPT_HELP,
    OPT_VERSION, OPT_QUIET, OPT_EXIT_ZERO, OPT_STATISTICS, OPT_OUTPUT_FILE, OPT_SELECT,
    OPT_IGNORE, OPT_BASELINE, OPT_WRITE_BASELINE, OPT_ADD_SUPPRESSIONS, OPT_EXCLUDE,
    OPT_NO_IGNORE, OPT_UNSAFE_FIXES, OPT_SHOW_FIXES, OPT_WATCH, OPT_JOBS, OPT_NO_CACHE, OPT_FILTER,
    OPT_COVERAGE, OPT_COVERAGE_FORMAT, OPT_COVERAGE_OUTPUT, OPT_COVERAGE_THRESHOLD,
    OPT_FAIL_ON,
    OPT_EXPLORE, OPT_BUDGET, OPT_TIME, OPT_SEED,
    OPT_MUTATE, OPT_FAIL_UNDER,
    OPT_COUNT
} OptionId;

enum {
    FOR_CHECK = 1, FOR_BUILD = 2, FOR_DIS = 4, FOR_EXPLAIN = 8, FOR_FMT = 16, FOR_FIX = 32,
    FOR_GRAPH = 64, FOR_TEST = 256, FOR_COMPAT = 512, FOR_ALL = 127 | FOR_TEST | FOR_COMPAT,
    FOR_LSP = 128,  /* only in the help: lsp reads its own options (lsp_command.c) */
    FOR_SOURCES = FOR_CHECK | FOR_BUILD | FOR_FIX | FOR_GRAPH   /* the commands of programs */
};

typedef struct OptionSpec {
    const char *name;       /* the long form */
    const char *alias;      /* a short form or another spelling, or NULL */
    const char *value;      /* what its value is ("a number"), or NULL: a flag */
    unsigned commands;      /* FOR_* */
    bool repeats;           /* each value counts (--warn, --allow); else one value only */
    bool value_optional;    /* the value may be left out; it is given as `--NAME=VALUE` */
} OptionSpec;

static const OptionSpec option_specs[OPT_COUNT] = {
    [OPT_FORMAT] = { "--format", NULL, "human, json, github, gitlab, sarif or concise",
                     FOR_CHECK | FOR_BUILD | FOR_DIS | FOR_FIX | FOR_GRAPH | FOR_TEST | FOR_COMPAT },
    [OPT_COLOR] = { "--color", "--colour", "auto, always or never",
                    FOR_CHECK | FOR_BUILD | FOR_FMT | FOR_FIX | FOR_GRAPH | FOR_TEST | FOR_COMPAT },
    [OPT_DENY_WARNINGS] = { "--deny-warnings", NULL, NULL, FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_WARN] = { "--warn", NULL, "a warning code or prefix", FOR_CHECK | FOR_BUILD | FOR_FIX, true },
    [OPT_ALLOW] = { "--allow", NULL, "a warning code or prefix", FOR_CHECK | FOR_BUILD | FOR_FIX, true },
    [OPT_EXCLUDE] = { "--exclude", NULL, "a pattern", FOR_SOURCES | FOR_FMT, true },
    [OPT_NO_IGNORE] = { "--no-ignore", NULL, NULL, FOR_SOURCES | FOR_FMT },
    [OPT_UNSAFE_FIXES] = { "--unsafe-fixes", NULL, NULL, FOR_FIX },
    [OPT_SHOW_FIXES] = { "--show-fixes", NULL, NULL, FOR_FIX },
    [OPT_WATCH] = { "--watch", "-w", NULL, FOR_CHECK },
    [OPT_SELECT] = { "--select", NULL, "a warning code or prefix", FOR_CHECK | FOR_BUILD | FOR_FIX, true },
    [OPT_IGNORE] = { "--ignore", NULL, "a warning code or prefix", FOR_CHECK | FOR_BUILD | FOR_FIX, true },
    [OPT_MAX_DIAGNOSTICS] = { "--max-diagnostics", NULL, "a number", FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_OUTPUT] = { "--output", "-o", "a file name", FOR_BUILD },
    [OPT_STDIN_FILENAME] = { "--stdin-filename", NULL, "a path",
                             FOR_CHECK | FOR_BUILD | FOR_FIX | FOR_GRAPH | FOR_FMT },
    [OPT_CHECK] = { "--check", NULL, NULL, FOR_FMT },
    [OPT_DIFF] = { "--diff", NULL, NULL, FOR_FMT | FOR_FIX },
    [OPT_MAX_ROUNDS] = { "--max-rounds", NULL, "a number", FOR_FIX },
    [OPT_WORKFLOW] = { "--workflow", NULL, "a workflow's name", FOR_GRAPH | FOR_COMPAT, true },
    [OPT_FAIL_ON] = { "--fail-on", NULL, "error, warning or info", FOR_COMPAT },
    [OPT_JOBS] = { "--jobs", "-j", "a number", FOR_CHECK | FOR_TEST },
    [OPT_FILTER] = { "--filter", NULL, "a part of a test's name", FOR_TEST },
    [OPT_COVERAGE] = { "--coverage", NULL, NULL, FOR_TEST },
    [OPT_COVERAGE_FORMAT] = { "--coverage-format", NULL, "text, json or lcov", FOR_TEST },
    [OPT_COVERAGE_OUTPUT] = { "--coverage-output", NULL, "a file name", FOR_TEST },
    [OPT_COVERAGE_THRESHOLD] = { "--coverage-threshold", NULL, "a percentage", FOR_TEST },
    [OPT_EXPLORE] = { "--explore", NULL, NULL, FOR_TEST },
    [OPT_BUDGET] = { "--budget", NULL, "a number", FOR_TEST },
    [OPT_TIME] = { "--time", NULL, "a number of seconds", FOR_TEST },
    [OPT_SEED] = { "--seed", NULL, "a number", FOR_TEST },
    [OPT_MUTATE] = { "--mutate", NULL, NULL, FOR_TEST },
    [OPT_FAIL_UNDER] = { "--fail-under", NULL, "a percentage", FOR_TEST },
    [OPT_NO_CACHE] = { "--no-cache", NULL, NULL, FOR_CHECK },
    [OPT_HELP] = { "--help", "-h", NULL, FOR_ALL },
    [OPT_VERSION] = { "--version", "-V", NULL, FOR_ALL },
    [OPT_QUIET] = { "--quiet", "-q", NULL, FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_EXIT_ZERO] = { "--exit-zero", NULL, NULL, FOR_CHECK | FOR_FIX },
    [OPT_STATISTICS] = { "--statistics", NULL, NULL, FOR_CHECK },
    [OPT_OUTPUT_FILE] = { "--output-file", NULL, "a file name", FOR_CHECK },
    [OPT_BASELINE] = { "--baseline", NULL, "a file name", FOR_CHECK },
    [OPT_WRITE_BASELINE] = { "--write-baseline", NULL, "a file name", FOR_CHECK },
    [OPT_ADD_SUPPRESSIONS] = { "--add-suppressions", NULL, "warning codes", FOR_CHECK, false, true },
};

/* The help in pieces, each with the commands it concerns: `orbitc --help` prints them
 * all, in order; `orbitc COMMAND --help` (and `orbitc help COMMAND`) the command's usage
 * line and the pieces that name it (command_help). tools/cli_help.py reads the whole
 * text for the completions and the man-page test: an option belongs to the commands its
 * section's title names. */
typedef struct HelpPiece {
    unsigned commands;    /* FOR_*: the commands it concerns */
    const char *text;
} HelpPiece;


static const char help_title[] =
    "orbitc " ORBIT_VERSION " - compiler and linter for the Orbit workflow language\n"
    "\n";

static const HelpPiece help_pieces[] = {
    { FOR_CHECK, "  orbitc check [OPTIONS] [PATH...]         check programs, print every diagnostic (no PATH: `.`)\n" },
    { FOR_BUILD, "  orbitc build [OPTIONS] PATH... -o FILE   check, then write bytecode to FILE\n" },
    { FOR_DIS, "  orbitc dis [--format json] FILE          print a bytecode file as text, or as JSON\n" },
    { FOR_EXPLAIN, "  orbitc explain [CODE]                    explain a diagnostic code (all codes: no CODE)\n" },
    { FOR_LSP, "  orbitc lsp                               a language server for editors (stdio)\n" },
    { FOR_FMT, "  orbitc fmt [--check|--diff] [PATH...]    format files in place (no PATH: `.`; `-`: stdin)\n" },
    { FOR_FIX, "  orbitc fix [--diff] [PATH...]            apply every machine-applicable fix (no PATH: `.`)\n" },
    { FOR_GRAPH, "  orbitc graph [OPTIONS] PATH...           draw the steps of workflows and their worst case\n" },
    { FOR_TEST, "  orbitc test [OPTIONS] [PATH...]          run the tests of programs (no PATH: `.`)\n" },
    { FOR_COMPAT, "  orbitc compat [OPTIONS] OLD NEW          what changing OLD into NEW breaks: running\n"
                  "                                           executions, workers, callers\n" },
    { FOR_SOURCES,
    "\n"
    "A PATH is an .orbit file, a directory (every *.orbit file below it, in sorted order)\n"
    "or `-` (standard input). All files together, with the standard library, form one\n"
    "program; a directory holding an orbit.program file is the root of a program of its\n"
    "own, checked apart (build then takes `-o DIR/`; docs/cli.md).\n" },
    { FOR_CHECK | FOR_BUILD | FOR_FIX,
    "\n"
    "Options of check, build and fix:\n"
    "  --format human|json|github|gitlab|sarif|concise\n"
    "                          diagnostics for people (stderr), as JSON lines (stdout),\n"
    "                          for CI systems (stdout; docs/ci.md) or one line each\n"
    "                          (stdout: path:line:col: severity[CODE]: message)\n"
    "  --color auto|always|never\n"
    "                          colour in human output; auto: FORCE_COLOR or CLICOLOR_FORCE\n"
    "                          turn it on, else NO_COLOR or TERM=dumb off, else a terminal\n"
    "  --deny-warnings         exit with status 1 when there are warnings\n"
    "  --warn CODE             enable a warning that is off by default (e.g. W0007; a\n"
    "                          prefix, W00, names every code it starts)\n"
    "  --allow CODE            silence a warning (of --warn and --allow, the later wins)\n"
    "  --select CODE           check only the warnings these codes or prefixes name\n"
    "  --ignore CODE           not the warnings these name (the longer prefix wins; at the\n"
    "                          same length --ignore; --warn and --allow apply after them)\n"
    "  --max-diagnostics N     print at most N diagnostics (default 200, 0 = all)\n"
    "  --stdin-filename PATH   the name of `-` in diagnostics; if PATH is one of the\n"
    "                          program's files, standard input replaces it\n"
    "  -q, --quiet             print the diagnostics only: no summary, no report of fixes\n" },
    { FOR_SOURCES | FOR_FMT,
    "\n"
    "Options of check, build, fix, graph and fmt:\n"
    "  --exclude PATTERN       pass over the files and directories PATTERN names when\n"
    "                          walking a directory (a .gitignore line; docs/cli.md)\n"
    "  --no-ignore             read no .gitignore file (they are respected by default)\n" },
    { FOR_CHECK | FOR_FIX,
    "\n"
    "Options of check and fix:\n"
    "  --exit-zero             exit with status 0 even when errors remain (2 stays 2)\n" },
    { FOR_CHECK,
    "\n"
    "Options of check:\n"
    "  -w, --watch             check again whenever a file changes (until Ctrl-C)\n"
    "  --statistics            print how many diagnostics of each code, not the diagnostics\n"
    "  --output-file OUTPUT    write the diagnostics to OUTPUT (replaced atomically), not to\n"
    "                          standard output or standard error\n"
    "  --baseline FILE.json    report only the warnings that the baseline does not hold;\n"
    "                          list its entries that no longer occur (docs/cli.md)\n"
    "  --write-baseline FILE.json\n"
    "                          record the warnings found (an existing baseline only\n"
    "                          shrinks: new warnings are reported, never added)\n"
    "  --add-suppressions      insert `// orbit:allow(CODE)` for each warning; with\n"
    "                          `=CODE,CODE`, for those codes only (errors never)\n"
    "  -j, --jobs N            check N programs at a time, on N threads (default: the\n"
    "                          number of processors; no more than there is work for,\n"
    "                          at most 256); the output is the same for any N\n"
    "  --no-cache              neither read nor write the cache of diagnostics\n"
    "                          ($ORBITC_CACHE_DIR, else $XDG_CACHE_HOME/orbitc)\n" },
    { FOR_BUILD,
    "\n"
    "Options of build:\n"
    "  -o, --output FILE       the bytecode file to write (through a symbolic link to its\n"
    "                          target; a device or FIFO is written to)\n" },
    { FOR_DIS,
    "\n"
    "Options of dis:\n"
    "  --format human|json     the disassembly for people, or the decoded file as one JSON\n"
    "                          document (docs/bytecode.md)\n" },
    { FOR_FIX,
    "\n"
    "Options of fix (docs/cli.md):\n"
    "  --diff                  print the changes the fixes would make; change nothing\n"
    "  --max-rounds N          fix and check again at most N times (default 10)\n"
    "  --unsafe-fixes          apply the maybe-incorrect fixes too (guesses: review them)\n"
    "  --show-fixes            print each fix applied, with its place and its message\n" },
    { FOR_LSP,
    "\n"
    "Options of lsp (docs/editors.md):\n"
    "  --stdio                 talk on standard input and output (the only way; accepted)\n"
    "  --memory-only           never read a file: a program is the open documents alone\n"
    "  --clientProcessId N     exit when process N (the editor) ends\n" },
    { FOR_GRAPH,
    "\n"
    "Options of graph (docs/cli.md):\n"
    "  --format dot|mermaid|json\n"
    "                          Graphviz DOT (default), a Mermaid flowchart, or JSON\n"
    "                          (docs/graph.schema.json)\n"
    "  --workflow NAME         that workflow and the ones it starts (default: every one)\n"
    "  --color auto|always|never\n"
    "                          colour in the errors of a program that does not check\n"
    "  --stdin-filename PATH   the name of `-`, as for check\n" },
    { FOR_TEST,
    "\n"
    "Options of test (docs/testing.md):\n"
    "  --filter PATTERN        run only the tests whose name holds PATTERN\n"
    "  -j, --jobs N            run N tests at a time, on N threads (default: the number\n"
    "                          of processors); the report is the same for any N but for\n"
    "                          the real times of --format json\n"
    "  --format human|json|junit|tap|github\n"
    "                          a line per test for people (default), one JSON document,\n"
    "                          JUnit XML, TAP, or GitHub annotations (stdout)\n"
    "  --color auto|always|never\n"
    "                          colour in the human report and in the errors of a program\n"
    "                          that does not check\n"
    "  --coverage              count the items of the workflows the tests reach (steps,\n"
    "                          when, for, attempts, timeouts, compensations) and print\n"
    "                          them after the human report\n"
    "  --coverage-format text|json|lcov\n"
    "                          a table per workflow (default), one JSON document, or an\n"
    "                          lcov tracefile for genhtml (implies --coverage)\n"
    "  --coverage-output FILE  write the coverage to FILE instead (needed with a --format\n"
    "                          other than human; implies --coverage)\n"
    "  --coverage-threshold N  exit with status 1 when less than N % of the items are\n"
    "                          covered (0 to 100; implies --coverage)\n"
    "  --explore               search the worlds around each test (outcomes, timings,\n"
    "                          signals) for one that breaks an invariant, and print it\n"
    "                          shrunk as a test (--format human or json)\n"
    "  --budget N              --explore: the worlds tried per test (default 10000)\n"
    "  --time SECONDS          --explore: at most this long per test\n"
    "  --seed S                --explore: the seed of the random worlds (default 1); the\n"
    "                          same seed and budget give the same report for any --jobs\n"
    "  --mutate                once the tests pass, run them against mutants of the\n"
    "                          policies (attempts, backoff, delays, timeouts, codes,\n"
    "                          compensate, when), in memory, and list each mutant no\n"
    "                          test notices, with a mutation score per workflow\n"
    "                          (--format human or json)\n"
    "  --fail-under SCORE      with --mutate: exit with status 1 only when less than\n"
    "                          SCORE % of the mutants are killed (0 to 100; without it,\n"
    "                          any surviving mutant gives status 1)\n"
    "\n"
    "Exit status of test: 0 every test passed (and the coverage is at the threshold;\n"
    "with --mutate, no mutant survived or the score is at --fail-under), 1 a test\n"
    "failed, the coverage is under the threshold or a mutant survived, 2 the tests\n"
    "could not run. With --explore: 0 no world broke an invariant, 1 one did, 2 the\n"
    "tests could not run.\n" },
    { FOR_COMPAT,
    "\n"
    "Options of compat (docs/compat.md):\n"
    "  OLD, NEW                an .orbc file, a source path (file or directory), or\n"
    "                          git:REV[:PATH], a revision of the current directory's git\n"
    "                          repository, read without checking it out (PATH: the other\n"
    "                          side's path from the repository's root)\n"
    "  --format human|json|github|sarif|junit\n"
    "                          one block per change for people (default), one JSON\n"
    "                          document (docs/compat.schema.json), GitHub annotations,\n"
    "                          SARIF 2.1.0 or JUnit XML (stdout)\n"
    "  --fail-on error|warning|info\n"
    "                          the level of change that makes the exit status 1 (default\n"
    "                          error; a change that stops a running execution is an error)\n"
    "  --workflow NAME         only that workflow's changes and places (repeatable)\n"
    "  --color auto|always|never\n"
    "                          colour in the human report\n"
    "\n"
    "Exit status of compat: 0 compatible, 1 breaking (a change at --fail-on's level),\n"
    "2 a side could not be loaded (unreadable, does not check, git failed, bad usage).\n" },
    { FOR_FMT,
    "\n"
    "Options of fmt (docs/style.md):\n"
    "  --check                 list the files that are not formatted; change nothing\n"
    "  --diff                  print the changes formatting would make; change nothing\n"
    "  --stdin-filename PATH   the name of `-` in errors and in the diff\n"
    "  --color auto|always|never\n"
    "                          colour in the errors of files that do not parse, and in\n"
    "                          the diff of --diff (fix --diff too)\n" },
    { FOR_ALL | FOR_LSP,
    "\n"
    "Options:\n"
    "  -h, --help              print this help (after a command: that command's help)\n"
    "  -V, --version           print the version\n"
    "\n"
    "Exit status: 0 no errors, 1 errors found, 2 the command could not run.\n" },
};
enum { HELP_PIECE_COUNT = sizeof help_pieces / sizeof help_pieces[0] };

/* The help of the commands in `commands` (FOR_*): every piece that concerns one of them;
 * the usage lines under "Usage:". */
static void print_help(FILE *out, unsigned commands)
{
    fputs(help_title, out);
    fputs("Usage:\n", out);
    for (int i = 0; i < HELP_PIECE_COUNT; i++) {
        if (help_pieces[i].commands & commands)
            fputs(help_pieces[i].text, out);
    }
}

/* "unknown option `--fromat`" followed by the did-you-mean, when there is one. */
static int unknown_word_error(const char *what, const char *word, size_t len,
                              const char *const *candidates, size_t count)
{
    const char *suggestion = suggest_name(word, len, candidates, count);
    fprintf(stderr, "orbitc: error: unknown %s `%.*s`\n", what, (int)len, word);
    if (suggestion)
        fprintf(stderr, "  help: did you mean `%s`?\n", suggestion);
    fprintf(stderr, "Try `orbitc --help` for usage.\n");
    return EXIT_USAGE;
}

static int command_help(const CliOptions *opt);

static int command_version(const CliOptions *opt)
{
    printf("orbitc %s (bytecode %d.%d)\n", ORBIT_VERSION, ORBC_MAJOR, ORBC_MINOR);
    return EXIT_OK;
}

/* --- arguments --- */

typedef struct CommandSpec {
    const char *name;
    unsigned bit;            /* FOR_*: which options it takes */
    int (*run)(const CliOptions *opt);
} CommandSpec;

static const CommandSpec command_specs[] = {
    { "check", FOR_CHECK, cli_check },
    { "build", FOR_BUILD, cli_build },
    { "dis", FOR_DIS, cli_dis },
    { "explain", FOR_EXPLAIN, cli_explain },
    { "fmt", FOR_FMT, cli_fmt },
    { "fix", FOR_FIX, cli_fix },
    { "graph", FOR_GRAPH, cli_graph },
    { "test", FOR_TEST, cli_test },
    { "compat", FOR_COMPAT, cli_compat },
    { "help", FOR_ALL, command_help },
    { "version", FOR_ALL, command_version },
};
enum { COMMAND_COUNT = sizeof command_specs / sizeof command_specs[0] };

static int parse_choice(const char *option, const char *value, const char *const *choices,
                        int count, int *out)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(value, choices[i]) == 0) {
            *out = i;
            return EXIT_OK;
        }
    }
    fprintf(stderr, "orbitc: error: invalid value `%s` for %s (expected", value, option);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "%s `%s`", i == 0 ? "" : i == count - 1 ? " or" : ",", choices[i]);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}

/* A whole number from `min` to 10^9, in decimal. */
static int parse_count(const char *option, const char *value, unsigned long min, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(value, &end, 10);
    if (*value == '\0' || *end != '\0' || errno || n < min || n > 1000000000ul || value[0] == '-') {
        fprintf(stderr, "orbitc: error: invalid number `%s` for %s\n"
                        "Try `orbitc --help` for usage.\n", value, option);
        return EXIT_USAGE;
    }
    *out = (uint32_t)n;
    return EXIT_OK;
}

/* A percentage from 0 to 100, in decimal (`90`, `87.5`). */
static int parse_percentage(const char *option, const char *value, double *out)
{
    char *end;
    errno = 0;
    double n = strtod(value, &end);
    const char *dot = strchr(value, '.');
    bool decimal = strspn(value, "0123456789.") == strlen(value) && (!dot || !strchr(dot + 1, '.'))
                   && value[0] != '.';
    if (*value == '\0' || !decimal || *end != '\0' || errno || !(n >= 0.0 && n <= 100.0)) {
        fprintf(stderr, "orbitc: error: invalid percentage `%s` for %s (a number from 0 to "
                        "100)\nTry `orbitc --help` for usage.\n", value, option);
        return EXIT_USAGE;
    }
    *out = n;
    return EXIT_OK;
}

/* The option `arg` spells ("--format", "--format=json", "-o"), or OPT_COUNT. */
static OptionId find_option(const char *arg)
{
    size_t len = strcspn(arg, "=");
    for (int id = 0; id < OPT_COUNT; id++) {
        const OptionSpec *spec = &option_specs[id];
        bool named = strlen(spec->name) == len && strncmp(arg, spec->name, len) == 0;
        bool aliased = spec->alias && strlen(spec->alias) == len && strncmp(arg, spec->alias, len) == 0;
        if (named || aliased)
            return (OptionId)id;
    }
    return OPT_COUNT;
}

static int unknown_option(const char *arg)
{
    const char *names[OPT_COUNT];
    for (int id = 0; id < OPT_COUNT; id++)
        names[id] = option_specs[id].name;
    return unknown_word_error("option", arg, strcspn(arg, "="), names, OPT_COUNT);
}

/* Stores the value of option `id` (already split off the argument). */
static int set_option(CliOptions *opt, OptionId id, const char *value)
{
    static const char *const colors[] = { "auto", "always", "never" };
    int choice;
    switch (id) {
    case OPT_FORMAT:   /* its values depend on the command: read_format */
        opt->format_text = value;
        break;
    case OPT_COLOR:
        if (parse_choice("--color", value, colors, 3, &choice))
            return EXIT_USAGE;
        opt->color = (ColorMode)choice;
        break;
    case OPT_DENY_WARNINGS:
        opt->deny_warnings = true;
        break;
    case OPT_WARN:
    case OPT_ALLOW:
    case OPT_SELECT:
    case OPT_IGNORE:
        opt->lints[opt->lint_count++] = (LintSetting){
            value, id == OPT_WARN || id == OPT_SELECT ? LINT_WARN : LINT_ALLOW,
            id == OPT_SELECT || id == OPT_IGNORE };
        break;
    case OPT_MAX_DIAGNOSTICS:
        return parse_count("--max-diagnostics", value, 0, &opt->max_diagnostics);
    case OPT_MAX_ROUNDS:
        return parse_count("--max-rounds", value, 1, &opt->max_rounds);
    case OPT_JOBS:
        return parse_count("--jobs", value, 1, &opt->jobs);
    case OPT_FILTER:
        opt->filter = value;
        break;
    case OPT_COVERAGE:
        opt->coverage = true;
        break;
    case OPT_COVERAGE_FORMAT: {
        static const char *const formats[] = { "text", "json", "lcov" };
        if (parse_choice("--coverage-format", value, formats, 3, &choice))
            return EXIT_USAGE;
        opt->coverage_format = (CoverageFormat)choice;
        opt->coverage = true;
        break;
    }
    case OPT_COVERAGE_OUTPUT:
        opt->coverage_output = value;
        opt->coverage = true;
        break;
    case OPT_COVERAGE_THRESHOLD:
        opt->coverage = true;
        return parse_percentage("--coverage-threshold", value, &opt->coverage_threshold);
    case OPT_MUTATE:
        opt->mutate = true;
        break;
    case OPT_FAIL_UNDER:
        return parse_percentage("--fail-under", value, &opt->fail_under);
    case OPT_NO_CACHE:
        opt->no_cache = true;
        break;
    case OPT_EXPLORE:
        opt->explore.on = true;
        break;
    case OPT_BUDGET:
        opt->explore.on = true;
        return parse_count("--budget", value, 1, &opt->explore.budget);
    case OPT_TIME: {
        char *end;
        errno = 0;
        double seconds = strtod(value, &end);
        if (*value == '\0' || *end != '\0' || errno || !(seconds > 0 && seconds <= 1e9))
            return cli_usage_error("invalid number of seconds `%s` for --time", value);
        opt->explore.on = true;
        opt->explore.seconds = seconds;
        break;
    }
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long seed = strtoull(value, &end, 10);
        if (*value == '\0' || *end != '\0' || errno || value[0] == '-')
            return cli_usage_error("invalid seed `%s` for --seed (a whole number)", value);
        opt->explore.on = true;
        opt->explore.seed = seed;
        break;
    }
    case OPT_OUTPUT:
        opt->output = value;
        break;
    case OPT_WORKFLOW:
        opt->workflow = value;
        opt->workflows[opt->workflow_count++] = value;
        break;
    case OPT_FAIL_ON: {
        static const char *const levels[] = { "info", "warning", "error" };
        return parse_choice("--fail-on", value, levels, 3, &opt->fail_on);
    }
    case OPT_STDIN_FILENAME:
        opt->stdin_filename = value;
        break;
    case OPT_CHECK:
        opt->fmt.check = true;
        break;
    case OPT_DIFF:
        opt->fmt.diff = true;
        break;
    case OPT_HELP:
        opt->help = true;
        break;
    case OPT_VERSION:
        opt->command = "version";
        break;
    case OPT_QUIET:
        opt->quiet = true;
        break;
    case OPT_EXCLUDE:
        opt->excludes[opt->exclude_count++] = value;
        break;
    case OPT_NO_IGNORE:
        opt->no_ignore = true;
        break;
    case OPT_UNSAFE_FIXES:
        opt->unsafe_fixes = true;
        break;
    case OPT_SHOW_FIXES:
        opt->show_fixes = true;
        break;
    case OPT_WATCH:
        opt->watch = true;
        break;
    case OPT_EXIT_ZERO:
        opt->exit_zero = true;
        break;
    case OPT_STATISTICS:
        opt->statistics = true;
        break;
    case OPT_OUTPUT_FILE:
        opt->output_file = value;
        break;
    case OPT_BASELINE:
        opt->baseline = value;
        break;
    case OPT_WRITE_BASELINE:
        opt->write_baseline = value;
        break;
    case OPT_ADD_SUPPRESSIONS:
        opt->add_suppressions = true;
        opt->suppress_codes = value;
        break;
    case OPT_COUNT:
        break;
    }
    return EXIT_OK;
}

/* An option of one value given again must say the same thing (`--format json --format
 * json`); two different values are refused rather than one silently dropped (docs/cli.md,
 * "Options"). */
static int refuse_second_value(const OptionSpec *spec, const char *first, const char *second)
{
    if (spec->repeats || !spec->value || (first == second)
        || (first && second && strcmp(first, second) == 0))
        return EXIT_OK;
    fprintf(stderr, "orbitc: error: %s%s%s is given twice, as `%s` and as `%s`: give it once\n"
                    "Try `orbitc --help` for usage.\n", spec->name, spec->alias ? "/" : "",
            spec->alias ? spec->alias : "", first ? first : "", second ? second : "");
    return EXIT_USAGE;
}

/* Reads the arguments into *opt; given[id] is option id as first spelt, or NULL. */
static int parse_args(int argc, char **argv, CliOptions *opt, const char **given)
{
    const char *values[OPT_COUNT] = { 0 };   /* each option's first value */
    bool only_paths = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_paths || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (!opt->command)
                opt->command = arg;
            else
                opt->paths[opt->path_count++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_paths = true;
            continue;
        }
        OptionId id = find_option(arg);
        if (id == OPT_COUNT)
            return unknown_option(arg);
        const OptionSpec *spec = &option_specs[id];
        const char *equals = strchr(arg, '=');
        const char *value = equals ? equals + 1 : NULL;
        if (!spec->value && equals)
            return cli_usage_error("%s takes no value", spec->name);
        if (spec->value && !value && !spec->value_optional) {
            if (i + 1 == argc) {
                fprintf(stderr, "orbitc: error: %s needs a value: %s\n", spec->name, spec->value);
                return EXIT_USAGE;
            }
            value = argv[++i];
        }
        if (set_option(opt, id, value) != EXIT_OK)
            return EXIT_USAGE;
        if (given[id] && refuse_second_value(spec, values[id], value) != EXIT_OK)
            return EXIT_USAGE;
        if (!given[id]) {
            given[id] = arg;
            values[id] = value;
        }
    }
    return EXIT_OK;
}

static const CommandSpec *find_command(const char *name)
{
    for (int i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(command_specs[i].name, name) == 0)
            return &command_specs[i];
    }
    return NULL;
}

/* `orbitc --help`, `orbitc COMMAND --help`, `orbitc help [COMMAND]`: the whole help, or
 * the command's own (an unknown command gets the whole help). */
static int command_help(const CliOptions *opt)
{
    const CommandSpec *command = NULL;
    if (opt->command && strcmp(opt->command, "help") != 0)
        command = find_command(opt->command);
    else if (opt->path_count > 0)
        command = find_command(opt->paths[0]);
    bool whole = !command || command->bit == FOR_ALL;
    print_help(stdout, whole ? FOR_ALL | FOR_LSP : command->bit);
    return EXIT_OK;
}

static int unknown_command(const char *name)
{
    struct stat st;
    if (stat(name, &st) == 0 || strstr(name, ".orbit")) {
        fprintf(stderr, "orbitc: error: unknown command `%s`\n"
                        "  help: to check it, run `orbitc check %s`\n", name, name);
        return EXIT_USAGE;
    }
    const char *names[COMMAND_COUNT];
    for (int i = 0; i < COMMAND_COUNT; i++)
        names[i] = command_specs[i].name;
    return unknown_word_error("command", name, strlen(name), names, COMMAND_COUNT);
}

/* Refuses an option the command would ignore (`check -o`, `dis --format`). */
static int refuse_ignored_options(const char *const *given, const CommandSpec *command)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        if (given[id] && !(option_specs[id].commands & command->bit)) {
            int len = (int)strcspn(given[id], "=");
            fprintf(stderr, "orbitc: error: `orbitc %s` takes no option `%.*s`\n",
                    command->name, len, given[id]);
            if (id == OPT_OUTPUT)
                fprintf(stderr, "  help: `orbitc build PATH... -o FILE` writes a bytecode file\n");
            fprintf(stderr, "Try `orbitc --help` for usage.\n");
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* What check and build need besides their options: paths, `-` at most once and with
 * --stdin-filename, build's output. */
static int check_paths(const CliOptions *opt, const CommandSpec *command)
{
    if (opt->path_count == 0 && command->bit != FOR_FIX && command->bit != FOR_CHECK
        && command->bit != FOR_TEST)
        return cli_usage_error("%s needs at least one file or directory", command->name);
    int stdin_count = 0;
    for (int i = 0; i < opt->path_count; i++)
        stdin_count += strcmp(opt->paths[i], "-") == 0;
    if (stdin_count > 1)
        return cli_usage_error("standard input (`%s`) is named more than once", "-");
    if (opt->stdin_filename && stdin_count == 0)
        return cli_usage_error("%s names standard input: add `-` to the paths", "--stdin-filename");
    if (command->bit == FOR_BUILD && !opt->output)
        return cli_usage_error("%s needs an output file: `orbitc build PATH... -o FILE.orbc`", "build");
    return EXIT_OK;
}

/* --format's value, for the command: graph draws (dot, mermaid, json), the others
 * print diagnostics or a disassembly (human, json, github, gitlab, sarif). */
static int read_format(CliOptions *opt, const CommandSpec *command)
{
    static const char *const formats[] = { "human", "json", "github", "gitlab", "sarif", "concise" };
    int choice;
    if (!opt->format_text)
        return EXIT_OK;
    if (command->bit == FOR_TEST) {
        static const char *const test_formats[] = { "human", "json", "junit", "tap", "github" };
        if (parse_choice("--format", opt->format_text, test_formats, 5, &choice))
            return EXIT_USAGE;
        opt->test_format = (TestFormat)choice;
        return EXIT_OK;
    }
    if (command->bit == FOR_COMPAT) {
        static const char *const compat_formats[] = { "human", "json", "github", "sarif", "junit" };
        if (parse_choice("--format", opt->format_text, compat_formats, 5, &choice))
            return EXIT_USAGE;
        opt->compat_format = (CompatFormat)choice;
        return EXIT_OK;
    }
    if (command->bit == FOR_GRAPH) {
        if (parse_choice("--format", opt->format_text, GRAPH_FORMAT_NAMES, GRAPH_FORMAT_COUNT, &choice))
            return EXIT_USAGE;
        opt->graph_format = (GraphFormat)choice;
        return EXIT_OK;
    }
    if (parse_choice("--format", opt->format_text, formats, 6, &choice))
        return EXIT_USAGE;
    opt->format = (Format)choice;
    return EXIT_OK;
}

static int run_command(CliOptions *opt, const char *const *given)
{
    if (opt->help)
        return command_help(opt);
    if (!opt->command) {
        print_help(stderr, FOR_ALL | FOR_LSP);
        return EXIT_USAGE;
    }
    const CommandSpec *command = find_command(opt->command);
    if (!command)
        return unknown_command(opt->command);
    int status = refuse_ignored_options(given, command);
    if (status == EXIT_OK)
        status = read_format(opt, command);
    bool takes_paths = command->bit == FOR_CHECK || command->bit == FOR_BUILD
        || command->bit == FOR_FIX || command->bit == FOR_GRAPH || command->bit == FOR_TEST;
    if (status == EXIT_OK && takes_paths)
        status = check_paths(opt, command);
    return status == EXIT_OK ? command->run(opt) : status;
}

/* Flushes and closes standard output, then standard error. Output that could not be
 * written (a full disk, /dev/full) fails the run with status 2: a caller must never take
 * lost output for a clean result. */
static int finish_output(int status)
{
    errno = 0;
    bool lost = ferror(stdout);
    if (fclose(stdout) != 0)
        lost = true;
    if (lost) {
        int err = errno;
        fprintf(stderr, "orbitc: error: cannot write standard output%s%s\n",
                err ? ": " : "", err ? strerror(err) : "");
        status = EXIT_USAGE;
    }
    lost = ferror(stderr);
    if (fclose(stderr) != 0 || lost)
        status = EXIT_USAGE;
    return status;
}

int cli_main(int argc, char **argv)
{
    /* stderr is unbuffered by default: diagnostics would go out a character at a time.
     * Fully buffered here; everything is flushed at the end (finish_output). */
    static char stderr_buffer[1 << 16];
    setvbuf(stderr, stderr_buffer, _IOFBF, sizeof stderr_buffer);

    /* `orbitc lsp` has its own options (lsp/lsp.h) */
    if (argc >= 2 && strcmp(argv[1], "lsp") == 0)
        return cli_lsp(argc - 2, argv + 2);

    CliOptions opt = { .max_diagnostics = DEFAULT_MAX_DIAGNOSTICS, .max_rounds = FIX_MAX_ROUNDS,
                       .coverage_threshold = -1, .fail_under = -1, .fail_on = 2,
                       .explore.seed = 1 };
    opt.paths = xcalloc((size_t)argc + 1, sizeof *opt.paths);
    opt.lints = xcalloc((size_t)argc + 1, sizeof *opt.lints);
    opt.excludes = xcalloc((size_t)argc + 1, sizeof *opt.excludes);
    opt.workflows = xcalloc((size_t)argc + 1, sizeof *opt.workflows);
    const char *given[OPT_COUNT] = { 0 };
    int status = parse_args(argc, argv, &opt, given);
    if (status == EXIT_OK)
        status = run_command(&opt, given);
    free(opt.paths);
    free(opt.lints);
    free(opt.excludes);
    free(opt.workflows);
    return finish_output(status);
}
