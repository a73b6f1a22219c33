/* What check, build and fix share (cli.h): the usage error, colour, the lint levels of
 * --warn and --allow, one run through the workspace's pipeline (workspace/workspace.h),
 * the printing of its diagnostics in the format asked for, and the exit status they
 * deserve. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "memory.h"
#include "workspace.h"

int cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "orbitc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry `orbitc --help` for usage.\n");
    return EXIT_USAGE;
}

/* FORCE_COLOR and CLICOLOR_FORCE count when set to anything but "", "0" or "false". */
static bool env_forces(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] && strcmp(value, "0") != 0 && strcmp(value, "false") != 0;
}

/* --color always|never decides; under auto, in this order: FORCE_COLOR or CLICOLOR_FORCE
 * turn colour on, NO_COLOR or TERM=dumb turn it off, else colour on a terminal. */
bool cli_want_color(ColorMode mode)
{
    return cli_want_color_on(mode, STDERR_FILENO);
}

bool cli_want_color_on(ColorMode mode, int fd)
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
    return isatty(fd);
}

unsigned cli_thread_count(const CliOptions *opt)
{
    if (opt->jobs > 0)
        return opt->jobs;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}

InputIgnore cli_input_ignore(const CliOptions *opt)
{
    return (InputIgnore){ opt->no_ignore, opt->excludes, opt->exclude_count };
}

/* The code named by `arg`, in any case ("w0007" is W0007), or -1. */
int cli_code_from_arg(const char *arg)
{
    return diag_code_from_text(arg, strlen(arg));
}

static bool matches(const LintSetting *s, int code)
{
    return diag_info((DiagCode)code)->severity == SEV_WARNING
        && diag_code_has_prefix((DiagCode)code, s->code, strlen(s->code));
}

/* The level --select and --ignore give `code`: that of the longest code or prefix that
 * matches it, --ignore's at the same length; else off when there is a --select, else
 * LINT_DEFAULT. */
static uint8_t selected_level(const CliOptions *opt, int code, bool any_select)
{
    const LintSetting *best = NULL;
    for (int i = 0; i < opt->lint_count; i++) {
        const LintSetting *s = &opt->lints[i];
        if (!s->selection || !matches(s, code))
            continue;
        if (!best || strlen(s->code) > strlen(best->code)
            || (strlen(s->code) == strlen(best->code) && s->level == LINT_ALLOW))
            best = s;
    }
    if (best)
        return (uint8_t)best->level;
    return any_select ? LINT_ALLOW : LINT_DEFAULT;
}

/* The levels of the command line, LINT_DEFAULT where it says nothing; they override a
 * program's configuration. --select and --ignore first (selected_level), then --warn
 * and --allow in command-line order, so the later of two wins. Each names a warning
 * code or a prefix of some (docs/cli.md, "Lint levels"). */
static int lint_overrides(const CliOptions *opt, uint8_t *levels)
{
    bool any_select = false;
    for (int i = 0; i < opt->lint_count; i++) {
        const LintSetting *s = &opt->lints[i];
        if (diag_warnings_with_prefix(s->code, strlen(s->code)) == 0)
            return cli_usage_error("`%s` is not a warning code, nor the start of one (see "
                                   "`orbitc explain`)", s->code);
        any_select |= s->selection && s->level == LINT_WARN;
    }
    for (int code = 0; code < DIAG_CODE_COUNT; code++)
        levels[code] = diag_info((DiagCode)code)->severity == SEV_WARNING
            ? selected_level(opt, code, any_select) : LINT_DEFAULT;
    for (int i = 0; i < opt->lint_count; i++) {
        for (int code = 0; code < DIAG_CODE_COUNT; code++)
            if (!opt->lints[i].selection && matches(&opt->lints[i], code))
                levels[code] = (uint8_t)opt->lints[i].level;
    }
    return EXIT_OK;
}

/* The paths the run could not read, for the CI formats' reports (RenderOptions). */
static RenderUnread *unread_paths;
static uint32_t unread_count;
/* Whether --output-file could not be written (the run exits 2). */
static bool output_failed;

void cli_print_diagnostics(const CliOptions *opt, Compiler *c)
{
    RenderOptions render = {
        .color = opt->format == FORMAT_HUMAN && cli_want_color(opt->color),
        .max_shown = opt->max_diagnostics,
        .summary = !opt->quiet,
        .warnings_denied = opt->deny_warnings,
        .unread = unread_paths,
        .unread_count = unread_count,
    };
    if (!cli_render(opt, c, &render))
        output_failed = true;
}

/* Refuses an output file that is one of the inputs (the same file on disk, however it is
 * spelt): the build would overwrite its own source. */
static int refuse_output_that_is_input(const char *output, const InputList *inputs)
{
    const Input *input = output ? inputs_same_file(inputs, output) : NULL;
    if (!input)
        return EXIT_OK;
    fprintf(stderr, "orbitc: error: the output `%s` is the input `%s`: refusing to overwrite it\n",
            output, input->path);
    return EXIT_USAGE;
}

void cli_print_problem(void *context, const char *path, const char *message)
{
    fprintf(stderr, "orbitc: error: %s\n", message);
    unread_paths = xrealloc(unread_paths, (unread_count + 1) * sizeof *unread_paths);
    unread_paths[unread_count++] = (RenderUnread){ xstrdup(path), xstrdup(message) };
}

/* Collects and reads the sources, groups them into programs by their roots, reads the
 * programs' configurations and parses everything (workspace_prepare); nothing is
 * checked yet. Returns EXIT_USAGE when an option is wrong or the output is an input;
 * else EXIT_OK, with w.failures the paths that could not be read (each reported). */
int cli_load(const CliOptions *opt, CliRun *run)
{
    Workspace *w = &run->w;
    int status = lint_overrides(opt, w->overrides);
    if (status != EXIT_OK)
        return status;
    w->inputs.ignore = cli_input_ignore(opt);
    workspace_collect(w, opt->paths, opt->path_count, opt->stdin_filename);
    if ((status = refuse_output_that_is_input(opt->output, &w->inputs)) != EXIT_OK
        || (status = refuse_output_that_is_input(opt->output_file, &w->inputs)) != EXIT_OK)
        return status;
    workspace_read_inputs(w);
    workspace_prepare(w);
    return EXIT_OK;
}

void cli_run_init(CliRun *run)
{
    compiler_init(&run->c);
    workspace_init(&run->w, &run->c, true);
    run->w.report = cli_print_problem;
}

void cli_run_free(CliRun *run)
{
    /* what a run printed: a next one (check --watch) starts anew */
    for (uint32_t i = 0; i < unread_count; i++) {
        free((char *)unread_paths[i].path);
        free((char *)unread_paths[i].message);
    }
    free(unread_paths);
    unread_paths = NULL;
    unread_count = 0;
    output_failed = false;
    workspace_free(&run->w);
    compiler_free(&run->c);
}

/* The exit status the diagnostics deserve: 1 for errors (and warnings under
 * --deny-warnings) unless --exit-zero; 2 when --output-file could not be written. */
int cli_diagnostics_status(const CliOptions *opt, const Compiler *c)
{
    if (output_failed)
        return EXIT_USAGE;
    bool failed = c->diags.errors > 0 || (opt->deny_warnings && c->diags.warnings > 0);
    return failed && !opt->exit_zero ? EXIT_ERRORS : EXIT_OK;
}

/* After the diagnostics of the files that were read: the paths that could not be, once
 * more, so that they are not lost above a long report. */
void cli_report_unread(const CliRun *run, const char *consequence)
{
    if (run->c.sources.count > 1)
        fprintf(stderr, "orbitc: error: %u %s could not be read; %s\n", run->w.failures,
                run->w.failures == 1 ? "path" : "paths", consequence);
}

/* Whether `path` has a `..` component. */
static bool climbs(const char *path)
{
    for (const char *p = path; *p; p += strcspn(p, "/"), p += *p == '/') {
        if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
            return true;
    }
    return false;
}

/* `path` relative to the current directory when the directory holding it is the current
 * one or below it (symbolic links resolved), else NULL. */
static char *below_current_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    size_t dir_len = slash == path ? 1 : (size_t)(slash - path);
    char *dir = xmalloc(dir_len + 1);
    memcpy(dir, path, dir_len);
    dir[dir_len] = '\0';
    char real_dir[PATH_MAX], cwd[PATH_MAX];
    bool resolved = realpath(dir, real_dir) && getcwd(cwd, sizeof cwd);
    free(dir);
    if (!resolved)
        return NULL;
    size_t cwd_len = strcmp(cwd, "/") == 0 ? 0 : strlen(cwd);
    const char *rest = real_dir + cwd_len;
    if (strncmp(real_dir, cwd, cwd_len) != 0 || (rest[0] != '/' && rest[0] != '\0'))
        return NULL;
    rest += rest[0] == '/';
    size_t len = strlen(rest) + strlen(slash) + 1;
    char *name = xmalloc(len);
    snprintf(name, len, "%s%s", rest, rest[0] ? slash : slash + 1);
    return name;
}

char *cli_diff_name(const char *path)
{
    const char *p = path;
    while (p[0] == '.' && p[1] == '/') {
        for (p += 2; *p == '/'; p++) {
        }
    }
    if (p[0] != '/' && p[0] != '\0' && !climbs(p))
        return xstrdup(p);
    char *name = below_current_directory(path);
    return name ? name : xstrdup(path);
}
