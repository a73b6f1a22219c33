/* `orbitc fmt [--check] [--diff] [PATH...]` (format_command.h, docs/style.md): formats
 * each file in place, keeping its identity (replace_file.h; docs/cli.md, "How fmt and fix
 * write files"), touching only the files whose text changes. `-` is standard input,
 * formatted to standard output. A file with lexical or syntax errors is left as it is,
 * its errors printed. Each file is read, parsed and formatted in a
 * compiler of its own, so memory does not grow with the number of files. */
#include "format_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "format.h"
#include "orbc.h"
#include "replace_file.h"
#include "workspace.h"

enum { FMT_OK = 0, FMT_ERRORS = 1, FMT_FAILED = 2 };

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* Reads the input. A file to rewrite in place is opened by the writer (replace_file.h),
 * which refuses anything but a regular file before reading it, and keeps its identity in
 * *as_read. */
static bool read_input(Compiler *c, const Input *input, bool in_place, struct stat *as_read)
{
    const char *error = NULL;
    bool ok;
    if (input->from_stdin) {
        ok = workspace_add_fd(c, STDIN_FILENO, input->path, &error);
    } else if (in_place) {
        ReplaceWhy why;
        int fd = replace_file_open(input->path, as_read, &why);
        if (fd < 0) {
            fprintf(stderr, "orbitc: error: cannot %s `%s`: %s\n",
                    why.refused ? "write" : "read", input->path, why.text);
            return false;
        }
        ok = workspace_add_fd(c, fd, input->path, &error);
        close(fd);
    } else {
        ok = input->found ? workspace_add_found_file(c, input->path, &error)
                          : workspace_add_file(c, input->path, &error);
    }
    if (!ok)
        fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n",
                input->from_stdin ? "-" : input->path, error);
    return ok;
}

static void print_errors(Compiler *c, const FormatOptions *options)
{
    RenderOptions render = { .color = options->color, .max_shown = 200, .summary = true };
    diag_finish(&c->diags);
    render_human(stderr, &c->diags, &c->sources, &render);
}

/* What to do with a file whose formatted text differs from it (read as *as_read). */
static int act_on_change(const Input *input, const struct stat *as_read, const SourceFile *source,
                         const FormatText *text, const FormatOptions *options)
{
    const char *name = input->path;
    if (options->diff) {
        char *diff_name = cli_diff_name(name);
        format_write_diff(stdout, diff_name, source->text, source->len, text->text, text->len,
                          options->diff_color);
        free(diff_name);
        return FMT_ERRORS;
    }
    if (options->check) {
        printf("%s\n", name);
        return FMT_ERRORS;
    }
    ReplaceWhy why;
    struct stat now;   /* the content too: a same-size edit within one clock tick keeps the times */
    if (!replace_file_unchanged(input->path, source->text, source->len, &now, &why)
        || !replace_file(input->path, as_read, text->text, text->len, &why)) {
        fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", input->path, why.text);
        return FMT_FAILED;
    }
    return FMT_OK;
}

static int format_one(const Input *input, const FormatOptions *options)
{
    Compiler c;
    compiler_init(&c);
    struct stat as_read;
    if (!read_input(&c, input, !options->check && !options->diff, &as_read)) {
        compiler_free(&c);
        return FMT_FAILED;
    }
    uint32_t file = c.sources.count - 1;
    const SourceFile *source = source_file(&c.sources, file);
    FormatText text = { 0 };
    int status = FMT_OK;
    if (!format_file(&c, file, &text, NULL)) {
        print_errors(&c, options);
        status = FMT_ERRORS;
    } else if (input->from_stdin && !options->check && !options->diff) {
        fwrite(text.text, 1, text.len, stdout);
    } else if (text.len != source->len || memcmp(text.text, source->text, text.len) != 0) {
        status = act_on_change(input, &as_read, source, &text, options);
    }
    format_text_free(&text);
    compiler_free(&c);
    return status;
}

int cli_fmt_paths(const char *const *paths, int count, const FormatOptions *options)
{
    static const char *const here[] = { "." };
    if (count == 0) {
        paths = here;
        count = 1;
    }
    InputList inputs = { .report = cli_print_problem, .ignore = options->ignore };
    inputs_collect(&inputs, paths, count);
    inputs_name_stdin(&inputs, options->stdin_filename);
    int status = inputs.failures ? FMT_FAILED : FMT_OK;
    for (size_t i = 0; i < inputs.count; i++)
        status = worse(status, format_one(&inputs.items[i], options));
    inputs_free(&inputs);
    return status;
}

/* `orbitc fmt`: the options main.c parsed. */
int cli_fmt(const CliOptions *opt)
{
    FormatOptions options = opt->fmt;
    options.color = cli_want_color(opt->color);
    options.diff_color = options.diff && cli_want_color_on(opt->color, STDOUT_FILENO);
    options.stdin_filename = opt->stdin_filename;
    options.ignore = cli_input_ignore(opt);
    bool reads_stdin = false;
    for (int i = 0; i < opt->path_count; i++)
        reads_stdin |= strcmp(opt->paths[i], "-") == 0;
    if (opt->stdin_filename && !reads_stdin)
        return cli_usage_error("%s names standard input: add `-` to the paths", "--stdin-filename");
    return cli_fmt_paths(opt->paths, opt->path_count, &options);
}
