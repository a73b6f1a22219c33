/* `orbitc fix` (fix_command.h): the rounds of fixing and checking again, in memory
 * (workspace/fix_rounds.h, which tells how a round chooses its fixes), then what they
 * made: the report, the fixes left out, the diagnostics that remain, and the files,
 * written only at the end and only those that changed. */
#include "fix_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fix.h"
#include "format.h"
#include "memory.h"
#include "orbc.h"
#include "replace_file.h"
#include "workspace.h"

/* "checkout.orbit:7:7": the place of a fix in the text that `c` read. */
static void print_place(const Compiler *c, const FixEdit *e)
{
    const SourceFile *file = source_file(&c->sources, e->file);
    uint32_t line = source_line_of(&c->sources, e->file, e->start);
    uint32_t column = 1;
    for (uint32_t at = source_line_start(&c->sources, e->file, line); at < e->start; at++)
        column += ((unsigned char)file->text[at] & 0xC0) != 0x80;   /* characters */
    fprintf(stderr, "%s:%u:%u", file->path, line + 1, column);
}

/* "orbitc: left checkout.orbit:7:7: the fix of E0410 would bring a new E0410", at the
 * fix's place in the text the last check read (the one its diagnostics are shown in). */
static void print_left(const Compiler *c, const FixEdit *e, DiagCode brought)
{
    fputs("orbitc: left ", stderr);
    print_place(c, e);
    fprintf(stderr, ": the fix of %s would bring a new %s\n", diag_info(e->code)->code,
            diag_info(brought)->code);
}

/* --show-fixes: "orbitc: fix checkout.orbit:7:7: E0410: did you mean `backoff`?", at its
 * place in the text of the round that applied it. */
static void print_applied(void *context, const Compiler *c, const FixEdit *e)
{
    (void)context;
    fputs("orbitc: fix ", stderr);
    print_place(c, e);
    fprintf(stderr, ": %s: %s\n", diag_info(e->code)->code, e->message ? e->message : "");
}

/* Reports the fixes that `last` still offers but were left out, at most `max_shown` of
 * them (0: all) and then how many more. */
static void report_left(FixRun *run, const Compiler *last, uint32_t max_shown)
{
    uint32_t offered, shown = 0, hidden = 0;
    FixEdit *edits = fix_select_any(&last->diags, &last->sources, run->unsafe, &offered);
    for (uint32_t i = 0; i < offered; i++) {
        const LeftFix *left = rounds_was_left(run, last, &edits[i]);
        if (!left)
            continue;
        if (max_shown == 0 || shown < max_shown) {
            print_left(last, &edits[i], left->brought);
            shown++;
        } else
            hidden++;
    }
    if (hidden)
        fprintf(stderr, "orbitc: ... and %u more %s left\n", hidden,
                hidden == 1 ? "fix" : "fixes");
    free(edits);
}


/* --- the end --- */

/* "fixed checkout.orbit: 3 fixes (E0410: 2, W0009: 1)" for each file whose fixed text
 * was written (written[i]; to standard output for standard input's), "would fix" for
 * each other file that changed. */
static void report_fixed(const FixRun *run, const bool *written)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < run->count; i++) {
        const FixFile *f = &run->files[i];
        if (f->fixed == 0 || !rounds_file_changed(f))
            continue;
        total += f->fixed;
        fprintf(stderr, "orbitc: %s %s: %u %s (", written[i] ? "fixed" : "would fix", f->path,
                f->fixed, f->fixed == 1 ? "fix" : "fixes");
        const char *sep = "";
        for (int code = 0; code < DIAG_CODE_COUNT; code++) {
            if (f->by_code[code]) {
                fprintf(stderr, "%s%s: %u", sep, diag_info((DiagCode)code)->code, f->by_code[code]);
                sep = ", ";
            }
        }
        fprintf(stderr, ")\n");
    }
    if (total == 0)
        fprintf(stderr, "orbitc: nothing to fix\n");
    if (run->gave_up)
        fprintf(stderr, "orbitc: stopped after %u %s of fixing and checking again; "
                        "run `orbitc fix` again for the rest\n", run->rounds,
                run->rounds == 1 ? "round" : "rounds");
}

/* How many changed files on disk replace_file refuses, each reported: one that changed
 * since it was read, is not a regular file, is read-only, is in a read-only directory,
 * or whose owner cannot be kept. Their identities as read go to as_read. */
static uint32_t refused_files(const FixRun *run, struct stat *as_read)
{
    uint32_t refused = 0;
    for (uint32_t i = 0; i < run->count; i++) {
        const FixFile *f = &run->files[i];
        ReplaceWhy why;
        if (f->from_stdin || !rounds_file_changed(f)
            || (replace_file_unchanged(f->path, f->original, f->original_len, &as_read[i], &why)
                && replace_file_allowed(f->path, &as_read[i], &why)))
            continue;
        fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", f->path, why.text);
        refused++;
    }
    return refused;
}

/* Writes the changed files, and standard input's text (to standard output), or the
 * diff of every change; written[i] says which file's fixed text reached its place. The
 * fixes were checked together, so the files are written all or none: each is checked
 * first, and one refused writes nothing. With standard input among the paths, its text
 * is the only one written: the other files are an editor's context, never rewritten
 * behind it. */
int cli_fix_write_files(const FixRun *run, const FixCommand *options, bool *written)
{
    bool to_stdout = false;
    for (uint32_t i = 0; i < run->count; i++) {
        const FixFile *f = &run->files[i];
        if (options->diff) {
            char *name = cli_diff_name(f->path);
            format_write_diff(stdout, name, f->original, f->original_len, f->text, f->len,
                              options->color);
            free(name);
        } else if (f->from_stdin) {
            fwrite(f->text, 1, f->len, stdout);
            written[i] = to_stdout = true;
        }
    }
    if (options->diff || to_stdout)
        return EXIT_OK;
    struct stat *as_read = xcalloc(run->count + 1, sizeof *as_read);
    int status = refused_files(run, as_read) > 0 ? EXIT_USAGE : EXIT_OK;
    for (uint32_t i = 0; i < run->count && status == EXIT_OK; i++) {
        const FixFile *f = &run->files[i];
        ReplaceWhy why;
        if (!rounds_file_changed(f))
            continue;
        written[i] = replace_file(f->path, &as_read[i], f->text, f->len, &why);
        if (!written[i]) {
            fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", f->path, why.text);
            status = EXIT_USAGE;
        }
    }
    free(as_read);
    return status;
}

/* The line that says why the files that changed were not written, if any was not. */
static void explain_not_written(const FixRun *run, const FixCommand *options,
                                const bool *written, int write_status)
{
    uint32_t left = 0, done = 0;
    for (uint32_t i = 0; i < run->count; i++) {
        if (run->files[i].fixed == 0 || !rounds_file_changed(&run->files[i]))
            continue;
        if (written[i])
            done++;
        else
            left++;
    }
    if (options->unread)
        fprintf(stderr, "orbitc: error: some paths could not be read; nothing was written\n");
    else if (options->diff || left == 0)
        return;
    else if (write_status != EXIT_OK && done == 0)
        fprintf(stderr, "orbitc: error: nothing was written (the fixes were checked "
                        "together: the files are written all or none)\n");
    else if (write_status != EXIT_OK)
        fprintf(stderr, "orbitc: error: %u of the %u files fixed %s written, the others "
                        "not\n", done, done + left, done == 1 ? "was" : "were");
    else
        fprintf(stderr, "orbitc: standard input is among the paths: only its fixed text is "
                        "written, to standard output; no file was written\n");
}

int cli_fix_workspace(Workspace *workspace, const char *stdin_path, const FixCommand *options)
{
    FixRun run;
    rounds_init(&run, workspace, stdin_path, options->max_rounds);
    run.unsafe = options->unsafe;
    if (options->show_fixes)
        run.applied = print_applied;
    Compiler *current = rounds_run(&run);
    report_left(&run, current, options->max_left);
    bool *written = xcalloc(run.count + 1, sizeof *written);
    int write_status = options->unread ? EXIT_USAGE
                                       : cli_fix_write_files(&run, options, written);
    if (!options->quiet)
        report_fixed(&run, written);
    options->print(options->context, current);
    int status = current->diags.errors > 0
        || (options->deny_warnings && current->diags.warnings > 0) ? EXIT_ERRORS : EXIT_OK;
    explain_not_written(&run, options, written, write_status);
    if (write_status != EXIT_OK)
        status = write_status;
    free(written);
    if (current != run.first)
        rounds_free_check(current);
    rounds_free(&run);
    return status;
}

/* --- the command line --- */

static void print_remaining(void *context, Compiler *c)
{
    cli_print_diagnostics(context, c);
}

/* fix: check as `check` does, then apply the machine-applicable fixes (cli_fix_workspace).
 * With no path, the current directory. When the fixed text of standard input or a diff
 * goes to standard output, the diagnostics must be the human ones, on standard error. */
int cli_fix(const CliOptions *opt)
{
    static const char *const here[] = { "." };
    CliOptions options = *opt;
    if (options.path_count == 0) {
        options.paths = (const char **)here;
        options.path_count = 1;
    }
    bool to_stdout = opt->fmt.diff;
    for (int i = 0; i < options.path_count; i++)
        to_stdout |= strcmp(options.paths[i], "-") == 0;
    if (to_stdout && opt->format != FORMAT_HUMAN)
        return cli_usage_error("`fix` writes %s to standard output: use the human format "
                               "for the diagnostics",
                               opt->fmt.diff ? "the diff" : "the fixed text");
    ReplaceWhy why;   /* a FIFO or `<(…)` is refused before it is read (replace_file.h) */
    for (int i = 0; i < options.path_count && !opt->fmt.diff; i++) {
        if (strcmp(options.paths[i], "-") != 0 && !replace_file_kind_allowed(options.paths[i], &why)) {
            fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", options.paths[i], why.text);
            return EXIT_USAGE;
        }
    }
    CliRun run;
    cli_run_init(&run);
    int status = cli_load(&options, &run);
    if (status == EXIT_OK && run.c.sources.count == 1) {
        status = EXIT_USAGE;   /* nothing could be read; each path was reported */
    } else if (status == EXIT_OK) {
        workspace_check(&run.w);
        const char *stdin_path = NULL;
        for (size_t i = 0; i < run.w.inputs.count; i++)
            if (run.w.inputs.items[i].from_stdin)
                stdin_path = run.w.inputs.items[i].path;
        FixCommand fix = { opt->max_rounds, opt->fmt.diff, opt->deny_warnings,
                           run.w.failures > 0, opt->quiet, opt->unsafe_fixes, opt->show_fixes,
                           opt->fmt.diff && cli_want_color_on(opt->color, STDOUT_FILENO),
                           print_remaining, &options, opt->max_diagnostics };
        status = cli_fix_workspace(&run.w, stdin_path, &fix);
        if (status == EXIT_ERRORS && opt->exit_zero)
            status = EXIT_OK;
    }
    cli_run_free(&run);
    return status;
}
