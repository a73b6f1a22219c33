/* orbitc: the command line. Parses arguments, loads and checks the sources through the
 * workspace's pipeline (workspace/workspace.h) and prints diagnostics. Exit status: 0 no errors, 1 errors found,
 * 2 the command itself could not run (docs/cli.md). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "dis_json.h"
#include "fix_command.h"
#include "format_command.h"
#include "lower.h"
#include "memory.h"
#include "orbc.h"
#include "replace_file.h"
#include "suggest.h"
#include "version.h"
#include "workspace.h"


enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };
enum { DEFAULT_MAX_DIAGNOSTICS = 200 };

typedef enum Format { FORMAT_HUMAN, FORMAT_JSON, FORMAT_GITHUB, FORMAT_GITLAB, FORMAT_SARIF } Format;
typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

/* The options, each with the commands it applies to: any other command refuses it. */
typedef enum OptionId {
    OPT_FORMAT, OPT_COLOR, OPT_DENY_WARNINGS, OPT_WARN, OPT_ALLOW, OPT_MAX_DIAGNOSTICS,
    OPT_OUTPUT, OPT_STDIN_FILENAME, OPT_CHECK, OPT_DIFF, OPT_MAX_ROUNDS, OPT_HELP, OPT_VERSION, OPT_COUNT
} OptionId;

enum {
    FOR_CHECK = 1, FOR_BUILD = 2, FOR_DIS = 4, FOR_EXPLAIN = 8, FOR_FMT = 16, FOR_FIX = 32,
    FOR_ALL = 63
};

typedef struct OptionSpec {
    const char *name;       /* the long form */
    const char *alias;      /* a short form or another spelling, or NULL */
    const char *value;      /* what its value is ("a number"), or NULL: a flag */
    unsigned commands;      /* FOR_* */
} OptionSpec;

static const OptionSpec option_specs[OPT_COUNT] = {
    [OPT_FORMAT] = { "--format", NULL, "human, json, github, gitlab or sarif",
                     FOR_CHECK | FOR_BUILD | FOR_DIS | FOR_FIX },
    [OPT_COLOR] = { "--color", "--colour", "auto, always or never",
                    FOR_CHECK | FOR_BUILD | FOR_FMT | FOR_FIX },
    [OPT_DENY_WARNINGS] = { "--deny-warnings", NULL, NULL, FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_WARN] = { "--warn", NULL, "a warning code", FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_ALLOW] = { "--allow", NULL, "a warning code", FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_MAX_DIAGNOSTICS] = { "--max-diagnostics", NULL, "a number", FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_OUTPUT] = { "--output", "-o", "a file name", FOR_BUILD },
    [OPT_STDIN_FILENAME] = { "--stdin-filename", NULL, "a path", FOR_CHECK | FOR_BUILD | FOR_FIX },
    [OPT_CHECK] = { "--check", NULL, NULL, FOR_FMT },
    [OPT_DIFF] = { "--diff", NULL, NULL, FOR_FMT | FOR_FIX },
    [OPT_MAX_ROUNDS] = { "--max-rounds", NULL, "a number", FOR_FIX },
    [OPT_HELP] = { "--help", "-h", NULL, FOR_ALL },
    [OPT_VERSION] = { "--version", "-V", NULL, FOR_ALL },
};

typedef struct LintSetting {
    const char *code;       /* as given */
    LintLevel level;
} LintSetting;

typedef struct Options {
    const char *command;
    const char *given[OPT_COUNT];   /* each option as spelt on the command line, or NULL */
    Format format;
    ColorMode color;
    bool deny_warnings;
    uint32_t max_diagnostics;
    const char *output;             /* build -o */
    const char *stdin_filename;     /* --stdin-filename */
    FormatOptions fmt;              /* fmt --check, --diff; fix --diff */
    uint32_t max_rounds;            /* fix --max-rounds */
    const char **paths;
    int path_count;
    LintSetting *lints;             /* --warn and --allow in command-line order */
    int lint_count;
} Options;

static const char usage_text[] =
    "orbitc " ORBIT_VERSION " - compiler and linter for the Orbit workflow language\n"
    "\n"
    "Usage:\n"
    "  orbitc check [OPTIONS] PATH...           check programs, print every diagnostic\n"
    "  orbitc build [OPTIONS] PATH... -o FILE   check, then write bytecode to FILE\n"
    "  orbitc dis [--format json] FILE          print a bytecode file as text, or as JSON\n"
    "  orbitc explain [CODE]                    explain a diagnostic code (all codes: no CODE)\n"
    "  orbitc lsp                               a language server for editors (stdio)\n"
    "  orbitc fmt [--check|--diff] [PATH...]    format files in place (no PATH: `.`; `-`: stdin)\n"
    "  orbitc fix [--diff] [PATH...]            apply every machine-applicable fix (no PATH: `.`)\n"
    "\n"
    "A PATH is an .orbit file, a directory (every *.orbit file below it, in sorted order)\n"
    "or `-` (standard input). All files together, with the standard library, form one\n"
    "program; a directory holding an orbit.program file is the root of a program of its\n"
    "own, checked apart (build then takes `-o DIR/`; docs/cli.md).\n"
    "\n"
    "Options of check, build and fix:\n"
    "  --format human|json|github|gitlab|sarif\n"
    "                          diagnostics for people (stderr), as JSON lines (stdout) or\n"
    "                          for CI systems (stdout; docs/ci.md)\n"
    "  --color auto|always|never\n"
    "                          colour in human output; auto: FORCE_COLOR or CLICOLOR_FORCE\n"
    "                          turn it on, else NO_COLOR or TERM=dumb off, else a terminal\n"
    "  --deny-warnings         exit with status 1 when there are warnings\n"
    "  --warn CODE             enable a warning that is off by default (e.g. W0007)\n"
    "  --allow CODE            silence a warning (of --warn and --allow, the later wins)\n"
    "  --max-diagnostics N     print at most N diagnostics (default 200, 0 = all)\n"
    "  --stdin-filename PATH   the name of `-` in diagnostics; if PATH is one of the\n"
    "                          program's files, standard input replaces it\n"
    "\n"
    "Options of build:\n"
    "  -o, --output FILE       the bytecode file to write (through a symbolic link to its\n"
    "                          target; a device or FIFO is written to)\n"
    "\n"
    "Options of dis:\n"
    "  --format human|json     the disassembly for people, or the decoded file as one JSON\n"
    "                          document (docs/bytecode.md)\n"
    "\n"
    "Options of fix (docs/cli.md):\n"
    "  --diff                  print the changes the fixes would make; change nothing\n"
    "  --max-rounds N          fix and check again at most N times (default 10)\n"
    "\n"
    "Options of fmt (docs/style.md):\n"
    "  --check                 list the files that are not formatted; change nothing\n"
    "  --diff                  print the changes formatting would make; change nothing\n"
    "  --color auto|always|never\n"
    "                          colour in the errors of files that do not parse\n"
    "\n"
    "Options:\n"
    "  -h, --help              print this help\n"
    "  -V, --version           print the version\n"
    "\n"
    "Exit status: 0 no errors, 1 errors found, 2 the command could not run.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "orbitc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry `orbitc --help` for usage.\n");
    return EXIT_USAGE;
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

/* --- running --- */

/* FORCE_COLOR and CLICOLOR_FORCE count when set to anything but "", "0" or "false". */
static bool env_forces(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] && strcmp(value, "0") != 0 && strcmp(value, "false") != 0;
}

/* --color always|never decides; under auto, in this order: FORCE_COLOR or CLICOLOR_FORCE
 * turn colour on, NO_COLOR or TERM=dumb turn it off, else colour on a terminal. */
static bool want_color(ColorMode mode)
{
    if (mode != COLOR_AUTO)
        return mode == COLOR_ALWAYS;
    if (env_forces("FORCE_COLOR") || env_forces("CLICOLOR_FORCE"))
        return true;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && no_color[0])
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDERR_FILENO);
}

/* The code named by `arg`, in any case ("w0007" is W0007), or -1. */
static int code_from_arg(const char *arg)
{
    return diag_code_from_text(arg, strlen(arg));
}

/* The levels --warn and --allow set, in command-line order, so the later of two wins;
 * LINT_DEFAULT where they say nothing. They override a program's configuration. */
static int lint_overrides(const Options *opt, uint8_t *levels)
{
    memset(levels, LINT_DEFAULT, DIAG_CODE_COUNT);
    for (int i = 0; i < opt->lint_count; i++) {
        int code = code_from_arg(opt->lints[i].code);
        if (code < 0 || diag_info((DiagCode)code)->severity != SEV_WARNING)
            return usage_error("`%s` is not a warning code (see `orbitc explain`)",
                               opt->lints[i].code);
        levels[code] = (uint8_t)opt->lints[i].level;
    }
    return EXIT_OK;
}

/* The paths the run could not read, for the CI formats' reports (RenderOptions). */
static RenderUnread *unread_paths;
static uint32_t unread_count;


static void print_diagnostics(const Options *opt, Compiler *c)
{
    RenderOptions render = {
        .color = opt->format == FORMAT_HUMAN && want_color(opt->color),
        .max_shown = opt->max_diagnostics,
        .summary = true,
        .warnings_denied = opt->deny_warnings,
        .unread = unread_paths,
        .unread_count = unread_count,
    };
    if (opt->format == FORMAT_JSON)
        render_json(stdout, &c->diags, &c->sources, &render);
    else if (opt->format == FORMAT_GITHUB)
        render_github(stdout, &c->diags, &c->sources, &render);
    else if (opt->format == FORMAT_GITLAB)
        render_gitlab(stdout, &c->diags, &c->sources, &render);
    else if (opt->format == FORMAT_SARIF)
        render_sarif(stdout, &c->diags, &c->sources, &render);
    else
        render_human(stderr, &c->diags, &c->sources, &render);
}

/* Refuses an output file that is one of the inputs (the same file on disk, however it is
 * spelt): the build would overwrite its own source. */
static int refuse_output_that_is_input(const Options *opt, const InputList *inputs)
{
    const Input *input = opt->output ? inputs_same_file(inputs, opt->output) : NULL;
    if (!input)
        return EXIT_OK;
    fprintf(stderr, "orbitc: error: the output `%s` is the input `%s`: refusing to overwrite it\n",
            opt->output, input->path);
    return EXIT_USAGE;
}

void cli_print_problem(void *context, const char *path, const char *message)
{
    fprintf(stderr, "orbitc: error: %s\n", message);
    unread_paths = xrealloc(unread_paths, (unread_count + 1) * sizeof *unread_paths);
    unread_paths[unread_count++] = (RenderUnread){ xstrdup(path), xstrdup(message) };
}

/* One run of check, build or fix: the compiler and the workspace of its sources. */
typedef struct Run {
    Compiler c;
    Workspace w;
} Run;

/* Collects and reads the sources, groups them into programs by their roots, reads the
 * programs' configurations and parses everything (workspace_prepare); nothing is
 * checked yet. Returns EXIT_USAGE when an option is wrong or the output is an input;
 * else EXIT_OK, with w.failures the paths that could not be read (each reported). */
static int load(const Options *opt, Run *run)
{
    Workspace *w = &run->w;
    int status = lint_overrides(opt, w->overrides);
    if (status != EXIT_OK)
        return status;
    workspace_collect(w, opt->paths, opt->path_count, opt->stdin_filename);
    if ((status = refuse_output_that_is_input(opt, &w->inputs)) != EXIT_OK)
        return status;
    workspace_read_inputs(w);
    workspace_prepare(w);
    return EXIT_OK;
}

static void run_init(Run *run)
{
    compiler_init(&run->c);
    workspace_init(&run->w, &run->c, true);
    run->w.report = cli_print_problem;
}

static void run_free(Run *run)
{
    workspace_free(&run->w);
    compiler_free(&run->c);
}

/* The exit status the diagnostics deserve. */
static int diagnostics_status(const Options *opt, const Compiler *c)
{
    if (c->diags.errors > 0)
        return EXIT_ERRORS;
    if (opt->deny_warnings && c->diags.warnings > 0)
        return EXIT_ERRORS;
    return EXIT_OK;
}

/* After the diagnostics of the files that were read: the paths that could not be, once
 * more, so that they are not lost above a long report. */
static void report_unread(const Run *run, const char *consequence)
{
    if (run->c.sources.count > 1)
        fprintf(stderr, "orbitc: error: %u %s could not be read; %s\n", run->w.failures,
                run->w.failures == 1 ? "path" : "paths", consequence);
}

/* check: each program on its own, with its own lint levels; the diagnostics of all of
 * them together, in source order. */
static int command_check(const Options *opt)
{
    Run run;
    run_init(&run);
    run.c.check_only = true;   /* only the diagnostics are read */
    int status = load(opt, &run);
    if (status == EXIT_OK) {
        workspace_check(&run.w);
        print_diagnostics(opt, &run.c);
        status = diagnostics_status(opt, &run.c);
        if (run.w.failures > 0) {
            report_unread(&run, "the program was checked without them");
            status = EXIT_USAGE;
        }
    }
    run_free(&run);
    return status;
}

/* The bytecode of each program of a build, and where it goes. */
typedef struct Output {
    char *path;
    OrbcOutput *file;    /* the bytes to write, in pieces */
} Output;

/* Whether -o names a directory: an existing one, or a path that ends with `/` (made). */
static bool output_is_directory(const char *output)
{
    struct stat st;
    if (stat(output, &st) == 0)
        return S_ISDIR(st.st_mode);
    size_t len = strlen(output);
    return len > 0 && output[len - 1] == '/' && mkdir(output, 0777) == 0;
}

/* Before anything is checked: several programs need `-o DIR` and a name each, and no two
 * may have the same name; files below no root cannot be built with them. */
static int refuse_outputs(const Options *opt, const ProgramSet *programs)
{
    if (!output_is_directory(opt->output)) {
        fprintf(stderr, "orbitc: error: %u programs need one output each: give a directory, "
                        "`-o DIR/`, and each is written to DIR/NAME.orbc\n", programs->count);
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < programs->count; i++) {
        const ProgramUnit *unit = &programs->items[i];
        if (!unit->root) {
            fprintf(stderr, "orbitc: error: some files are below no program root (no `%s` in "
                            "their directory or above): build them on their own\n",
                    PROGRAM_MARKER);
            return EXIT_USAGE;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(programs->items[j].name, unit->name) == 0) {
                fprintf(stderr, "orbitc: error: the programs `%s` and `%s` are both named `%s`: "
                                "their outputs would be one file\n",
                        programs->items[j].root, unit->root, unit->name);
                return EXIT_USAGE;
            }
        }
    }
    return EXIT_OK;
}

/* build of several programs (roots): each is checked on its own and, when it has no
 * error, lowered; only when every program built is anything written: DIR/NAME.orbc for
 * each, atomically. */
static int build_programs(const Options *opt, Run *run)
{
    Compiler *c = &run->c;
    ProgramSet *programs = &run->w.programs;
    int status = refuse_outputs(opt, programs);
    if (status != EXIT_OK)
        return status;
    Output *outputs = xcalloc(programs->count, sizeof *outputs);
    bool all_lowered = run->w.failures == 0;
    char why[256] = "";
    workspace_check(&run->w);
    for (uint32_t i = 0; i < programs->count; i++) {
        Program *program = run->w.checked[i];
        if (!program || workspace_program_failed(&run->w, i, opt->deny_warnings)
            || !lower_program_output(c, program, &outputs[i].file, why, sizeof why))
            all_lowered = false;
        size_t len = strlen(opt->output) + strlen(programs->items[i].name) + 8;
        outputs[i].path = xmalloc(len);
        snprintf(outputs[i].path, len, "%s%s%s.orbc", opt->output,
                 opt->output[strlen(opt->output) - 1] == '/' ? "" : "/", programs->items[i].name);
    }
    diag_finish(&c->diags);   /* lowering may have reported E0601 */
    print_diagnostics(opt, c);
    status = diagnostics_status(opt, c);
    if (run->w.failures > 0) {
        report_unread(run, "nothing was written");
        status = EXIT_USAGE;
    } else if (status == EXIT_OK && !all_lowered) {
        fprintf(stderr, "orbitc: %s\n", why[0] ? why : "cannot build");
        status = EXIT_ERRORS;
    }
    for (uint32_t i = 0; i < programs->count; i++) {
        OrbcError err;
        if (status == EXIT_OK && !orbc_output_write_file(outputs[i].file, outputs[i].path, &err)) {
            fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", outputs[i].path, err.text);
            status = EXIT_USAGE;
        }
        orbc_output_free(outputs[i].file);
        free(outputs[i].path);
    }
    free(outputs);
    return status;
}

/* build: check, then lower and write atomically. Nothing is written when the program has
 * errors (or warnings under --deny-warnings), including the limits of the bytecode format
 * that lowering reports (E0601), or when an input could not be read, so an existing
 * output file stays intact. The diagnostics of both are printed together, in source
 * order. Several programs (roots): build_programs. */
static int command_build(const Options *opt)
{
    Run run;
    run_init(&run);
    int status = load(opt, &run);
    if (status != EXIT_OK || run.w.programs.count > 1) {
        if (status == EXIT_OK)
            status = build_programs(opt, &run);
        run_free(&run);
        return status;
    }
    Compiler *c = &run.c;
    workspace_check(&run.w);
    Program *program = run.w.programs.count ? run.w.checked[0] : NULL;
    OrbcOutput *file = NULL;
    bool lowered = false;
    char why[256] = "";
    if (run.w.failures == 0 && program && diagnostics_status(opt, c) == EXIT_OK) {
        lowered = lower_program_output(c, program, &file, why, sizeof why);
        diag_finish(&c->diags);   /* lowering may have reported E0601 */
    }
    print_diagnostics(opt, c);
    status = diagnostics_status(opt, c);
    if (run.w.failures > 0) {
        report_unread(&run, "nothing was written");
        status = EXIT_USAGE;
    } else if (status == EXIT_OK && !lowered) {
        /* a limit found while the file was assembled, without a source position */
        fprintf(stderr, "orbitc: %s\n", why[0] ? why : "cannot build");
        status = EXIT_ERRORS;
    }
    OrbcError err;
    if (status == EXIT_OK && !orbc_output_write_file(file, opt->output, &err)) {
        fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", opt->output, err.text);
        status = EXIT_USAGE;
    }
    orbc_output_free(file);
    run_free(&run);
    return status;
}

static int command_dis(const Options *opt)
{
    if (opt->path_count != 1)
        return usage_error("%s takes one bytecode file: `orbitc dis FILE.orbc`", "dis");
    if (opt->format != FORMAT_HUMAN && opt->format != FORMAT_JSON)
        return usage_error("%s prints text or JSON: `--format human` or `--format json`",
                           "`orbitc dis`");
    const char *path = opt->paths[0];
    const char *error = NULL;
    size_t len = 0;
    uint8_t *bytes = workspace_read_binary(path, ORBC_MAX_FILE_SIZE, &len, &error);
    if (!bytes) {
        fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", path, error);
        return EXIT_USAGE;
    }
    OrbcModule module;
    OrbcError err;
    if (!orbc_load(bytes, len, &module, &err)) {
        free(bytes);
        fprintf(stderr, "orbitc: error: `%s` is not a valid bytecode file: %s\n", path, err.text);
        return EXIT_ERRORS;
    }
    if (opt->format == FORMAT_JSON)
        dis_json_write(&module, bytes, len, stdout);
    else
        orbc_disassemble(&module, stdout);
    free(bytes);
    orbc_module_free(&module);
    return EXIT_OK;
}

static void print_code_list(void)
{
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        const DiagInfo *info = diag_info((DiagCode)i);
        printf("%s  %-7s  %s\n", info->code,
               info->severity == SEV_ERROR ? "error" : info->default_on ? "warning" : "lint",
               info->title);
    }
}

static int command_explain(const Options *opt)
{
    if (opt->path_count == 0) {
        print_code_list();
        return EXIT_OK;
    }
    if (opt->path_count > 1)
        return usage_error("`explain` takes one code, e.g. `orbitc explain %s`", "E0410");
    int found = code_from_arg(opt->paths[0]);
    if (found < 0)
        return usage_error("no diagnostic code `%s` (see `orbitc explain` for the list)",
                           opt->paths[0]);
    fputs(diag_explanation((DiagCode)found), stdout);
    return EXIT_OK;
}

static int command_fmt(const Options *opt)
{
    FormatOptions options = opt->fmt;
    options.color = want_color(opt->color);
    return format_command(opt->paths, opt->path_count, &options);
}

static void print_remaining(void *context, Compiler *c)
{
    print_diagnostics(context, c);
}

/* fix: check as `check` does, then apply the machine-applicable fixes (fix_command.c).
 * With no path, the current directory. When the fixed text of standard input or a diff
 * goes to standard output, the diagnostics must be the human ones, on standard error. */
static int command_fix(const Options *opt)
{
    static const char *const here[] = { "." };
    Options options = *opt;
    if (options.path_count == 0) {
        options.paths = (const char **)here;
        options.path_count = 1;
    }
    bool to_stdout = opt->fmt.diff;
    for (int i = 0; i < options.path_count; i++)
        to_stdout |= strcmp(options.paths[i], "-") == 0;
    if (to_stdout && opt->format != FORMAT_HUMAN)
        return usage_error("`fix` writes %s to standard output: use the human format for "
                           "the diagnostics", opt->fmt.diff ? "the diff" : "the fixed text");
    ReplaceWhy why;   /* a FIFO or `<(…)` is refused before it is read (replace_file.h) */
    for (int i = 0; i < options.path_count && !opt->fmt.diff; i++) {
        if (strcmp(options.paths[i], "-") != 0 && !replace_file_kind_allowed(options.paths[i], &why)) {
            fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", options.paths[i], why.text);
            return EXIT_USAGE;
        }
    }
    Run run;
    run_init(&run);
    int status = load(&options, &run);
    if (status == EXIT_OK && run.c.sources.count == 1) {
        status = EXIT_USAGE;   /* nothing could be read; each path was reported */
    } else if (status == EXIT_OK) {
        workspace_check(&run.w);
        const char *stdin_path = NULL;
        for (size_t i = 0; i < run.w.inputs.count; i++)
            if (run.w.inputs.items[i].from_stdin)
                stdin_path = run.w.inputs.items[i].path;
        FixCommand fix = { opt->max_rounds, opt->fmt.diff, opt->deny_warnings,
                           run.w.failures > 0, print_remaining, &options,
                           opt->max_diagnostics };
        status = fix_command(&run.w, stdin_path, &fix);
    }
    run_free(&run);
    return status;
}

static int command_help(const Options *opt)
{
    fputs(usage_text, stdout);
    return EXIT_OK;
}

static int command_version(const Options *opt)
{
    printf("orbitc %s (bytecode %d.%d)\n", ORBIT_VERSION, ORBC_MAJOR, ORBC_MINOR);
    return EXIT_OK;
}

/* --- arguments --- */

typedef struct CommandSpec {
    const char *name;
    unsigned bit;            /* FOR_*: which options it takes */
    int (*run)(const Options *opt);
} CommandSpec;

static const CommandSpec command_specs[] = {
    { "check", FOR_CHECK, command_check },
    { "build", FOR_BUILD, command_build },
    { "dis", FOR_DIS, command_dis },
    { "explain", FOR_EXPLAIN, command_explain },
    { "fmt", FOR_FMT, command_fmt },
    { "fix", FOR_FIX, command_fix },
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
static int set_option(Options *opt, OptionId id, const char *value)
{
    static const char *const formats[] = { "human", "json", "github", "gitlab", "sarif" };
    static const char *const colors[] = { "auto", "always", "never" };
    int choice;
    switch (id) {
    case OPT_FORMAT:
        if (parse_choice("--format", value, formats, 5, &choice))
            return EXIT_USAGE;
        opt->format = (Format)choice;
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
        opt->lints[opt->lint_count++] = (LintSetting){ value, id == OPT_WARN ? LINT_WARN : LINT_ALLOW };
        break;
    case OPT_MAX_DIAGNOSTICS:
        return parse_count("--max-diagnostics", value, 0, &opt->max_diagnostics);
    case OPT_MAX_ROUNDS:
        return parse_count("--max-rounds", value, 1, &opt->max_rounds);
    case OPT_OUTPUT:
        opt->output = value;
        break;
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
        opt->command = "help";
        break;
    case OPT_VERSION:
        opt->command = "version";
        break;
    case OPT_COUNT:
        break;
    }
    return EXIT_OK;
}

static int parse_args(int argc, char **argv, Options *opt)
{
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
            return usage_error("%s takes no value", spec->name);
        if (spec->value && !value) {
            if (i + 1 == argc) {
                fprintf(stderr, "orbitc: error: %s needs a value: %s\n", spec->name, spec->value);
                return EXIT_USAGE;
            }
            value = argv[++i];
        }
        if (!opt->given[id])
            opt->given[id] = arg;
        if (set_option(opt, id, value) != EXIT_OK)
            return EXIT_USAGE;
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
static int refuse_ignored_options(const Options *opt, const CommandSpec *command)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        if (opt->given[id] && !(option_specs[id].commands & command->bit)) {
            int len = (int)strcspn(opt->given[id], "=");
            fprintf(stderr, "orbitc: error: `orbitc %s` takes no option `%.*s`\n",
                    command->name, len, opt->given[id]);
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
static int check_paths(const Options *opt, const CommandSpec *command)
{
    if (opt->path_count == 0 && command->bit != FOR_FIX)
        return usage_error("%s needs at least one file or directory", command->name);
    int stdin_count = 0;
    for (int i = 0; i < opt->path_count; i++)
        stdin_count += strcmp(opt->paths[i], "-") == 0;
    if (stdin_count > 1)
        return usage_error("standard input (`%s`) is named more than once", "-");
    if (opt->stdin_filename && stdin_count == 0)
        return usage_error("%s names standard input: add `-` to the paths", "--stdin-filename");
    if (command->bit == FOR_BUILD && !opt->output)
        return usage_error("%s needs an output file: `orbitc build PATH... -o FILE.orbc`", "build");
    return EXIT_OK;
}

static int run_command(const Options *opt)
{
    if (!opt->command) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const CommandSpec *command = find_command(opt->command);
    if (!command)
        return unknown_command(opt->command);
    int status = refuse_ignored_options(opt, command);
    bool takes_paths = command->bit == FOR_CHECK || command->bit == FOR_BUILD
        || command->bit == FOR_FIX;
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

int main(int argc, char **argv)
{
    /* stderr is unbuffered by default: diagnostics would go out a character at a time.
     * Fully buffered here; everything is flushed at the end (finish_output). */
    static char stderr_buffer[1 << 16];
    setvbuf(stderr, stderr_buffer, _IOFBF, sizeof stderr_buffer);

    /* `orbitc lsp` has its own options (lsp/lsp.h) */
    if (argc >= 2 && strcmp(argv[1], "lsp") == 0)
        return lsp_command(argc - 2, argv + 2);

    Options opt = { .max_diagnostics = DEFAULT_MAX_DIAGNOSTICS, .max_rounds = FIX_MAX_ROUNDS };
    opt.paths = xcalloc((size_t)argc + 1, sizeof *opt.paths);
    opt.lints = xcalloc((size_t)argc + 1, sizeof *opt.lints);
    int status = parse_args(argc, argv, &opt);
    if (status == EXIT_OK)
        status = run_command(&opt);
    free(opt.paths);
    free(opt.lints);
    return finish_output(status);
}
