/* `orbitc build [OPTIONS] PATH... -o FILE` (docs/cli.md): check, then lower and write
 * atomically. Nothing is written when a program has errors (or warnings under
 * --deny-warnings), including the limits of the bytecode format that lowering reports
 * (E0601), or when an input could not be read, so an existing output file stays intact.
 * The diagnostics of both are printed together, in source order. One program goes to
 * FILE; several (roots) each to DIR/NAME.orbc, and only when every one of them built. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lower.h"
#include "memory.h"
#include "orbc.h"
#include "workspace.h"

/* The bytecode of each program of a build, and where it goes. */
typedef struct Output {
    char *path;
    OrbcOutput *file;    /* the bytes to write, in pieces */
} Output;

/* What lowering left for the end of a build. */
typedef struct Build {
    Output *outputs;
    uint32_t count;
    bool lowered;        /* every program lowered: the outputs may be written */
    char why[256];       /* why one could not be, when lowering said */
} Build;

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
static int refuse_outputs(const CliOptions *opt, const RootSet *roots)
{
    if (!output_is_directory(opt->output)) {
        fprintf(stderr, "orbitc: error: %u programs need one output each: give a directory, "
                        "`-o DIR/`, and each is written to DIR/NAME.orbc\n", roots->count);
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < roots->count; i++) {
        const Root *root = &roots->items[i];
        if (!root->dir) {
            fprintf(stderr, "orbitc: error: some files are below no program root (no `%s` in "
                            "their directory or above): build them on their own\n",
                    PROGRAM_MARKER);
            return EXIT_USAGE;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(roots->items[j].name, root->name) == 0) {
                fprintf(stderr, "orbitc: error: the programs `%s` and `%s` are both named `%s`: "
                                "their outputs would be one file\n",
                        roots->items[j].dir, root->dir, root->name);
                return EXIT_USAGE;
            }
        }
    }
    return EXIT_OK;
}

/* One program (or none, when nothing could be read): checked, and lowered when it has no
 * error and every input was read; its output is -o's file. */
static void lower_one(const CliOptions *opt, CliRun *run, Build *b)
{
    Compiler *c = &run->c;
    workspace_check(&run->w);
    Program *program = run->w.roots.count ? run->w.checked[0] : NULL;
    b->count = 1;
    b->outputs = xcalloc(1, sizeof *b->outputs);
    b->outputs[0].path = xstrdup(opt->output);
    if (run->w.failures == 0 && program && cli_diagnostics_status(opt, c) == EXIT_OK) {
        b->lowered = lower_program_output(c, program, &b->outputs[0].file, b->why, sizeof b->why);
        diag_finish(&c->diags);   /* lowering may have reported E0601 */
    }
}

/* Several programs (roots): each is checked on its own and, when it has no error,
 * lowered; its output is DIR/NAME.orbc. */
static int lower_programs(const CliOptions *opt, CliRun *run, Build *b)
{
    Compiler *c = &run->c;
    RootSet *roots = &run->w.roots;
    int status = refuse_outputs(opt, roots);
    if (status != EXIT_OK)
        return status;
    b->count = roots->count;
    b->outputs = xcalloc(roots->count, sizeof *b->outputs);
    b->lowered = run->w.failures == 0;
    workspace_check(&run->w);
    for (uint32_t i = 0; i < roots->count; i++) {
        Program *program = run->w.checked[i];
        if (!program || workspace_program_failed(&run->w, i, opt->deny_warnings)
            || !lower_program_output(c, program, &b->outputs[i].file, b->why, sizeof b->why))
            b->lowered = false;
        size_t len = strlen(opt->output) + strlen(roots->items[i].name) + 8;
        b->outputs[i].path = xmalloc(len);
        snprintf(b->outputs[i].path, len, "%s%s%s.orbc", opt->output,
                 opt->output[strlen(opt->output) - 1] == '/' ? "" : "/", roots->items[i].name);
    }
    diag_finish(&c->diags);   /* lowering may have reported E0601 */
    return EXIT_OK;
}

/* The one end of every build: the diagnostics, the paths that could not be read, a limit
 * found while a file was assembled (it has no source position), then the outputs, each
 * atomically, only when all is well. Returns the exit status. */
static int finish_build(const CliOptions *opt, CliRun *run, Build *b)
{
    cli_print_diagnostics(opt, &run->c);
    int status = cli_diagnostics_status(opt, &run->c);
    if (run->w.failures > 0) {
        cli_report_unread(run, "nothing was written");
        status = EXIT_USAGE;
    } else if (status == EXIT_OK && !b->lowered) {
        fprintf(stderr, "orbitc: %s\n", b->why[0] ? b->why : "cannot build");
        status = EXIT_ERRORS;
    }
    for (uint32_t i = 0; i < b->count && status == EXIT_OK; i++) {
        const Output *out = &b->outputs[i];
        OrbcError err;
        if (!orbc_output_write_file(out->file, out->path, &err)) {
            fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", out->path, err.text);
            status = EXIT_USAGE;
        }
    }
    return status;
}

static void build_free(Build *b)
{
    for (uint32_t i = 0; i < b->count; i++) {
        orbc_output_free(b->outputs[i].file);
        free(b->outputs[i].path);
    }
    free(b->outputs);
}

int cli_build(const CliOptions *opt)
{
    CliRun run;
    cli_run_init(&run);
    Build b = { 0 };
    int status = cli_load(opt, &run);
    if (status == EXIT_OK && run.w.roots.count > 1)
        status = lower_programs(opt, &run, &b);
    else if (status == EXIT_OK)
        lower_one(opt, &run, &b);
    if (status == EXIT_OK)
        status = finish_build(opt, &run, &b);
    build_free(&b);
    cli_run_free(&run);
    return status;
}
