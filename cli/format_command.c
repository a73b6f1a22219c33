/* `orbitc fmt [--check] [--diff] [PATH...]` (format_command.h, docs/style.md): formats
 * each file in place, atomically, touching only the files whose text changes. `-` is
 * standard input, formatted to standard output. A file with lexical or syntax errors is
 * left as it is, its errors printed. Each file is read, parsed and formatted in a
 * compiler of its own, so memory does not grow with the number of files. */
#include "format_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "format.h"
#include "orbc.h"
#include "workspace.h"

enum { FMT_OK = 0, FMT_ERRORS = 1, FMT_FAILED = 2 };

static int worse(int a, int b)
{
    return a > b ? a : b;
}

static void print_errors(Compiler *c, const FormatOptions *options)
{
    RenderOptions render = { .color = options->color, .max_shown = 200, .summary = true };
    diag_finish(&c->diags);
    render_human(stderr, &c->diags, &c->sources, &render);
}

/* What to do with a file whose formatted text differs from it. */
static int act_on_change(const Input *input, const SourceFile *source, const FormatText *text,
                         const FormatOptions *options)
{
    const char *name = input->path;
    if (options->diff) {
        format_write_diff(stdout, name, source->text, source->len, text->text, text->len);
        return FMT_ERRORS;
    }
    if (options->check) {
        printf("%s\n", name);
        return FMT_ERRORS;
    }
    OrbcError err;
    if (!orbc_write_file(input->path, (const uint8_t *)text->text, text->len, &err)) {
        fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", input->path, err.text);
        return FMT_FAILED;
    }
    return FMT_OK;
}

static int format_one(const Input *input, const FormatOptions *options)
{
    Compiler c;
    compiler_init(&c);
    Workspace w;
    workspace_init(&w, &c, false);
    w.report = cli_print_problem;
    uint32_t file = workspace_read_input(&w, input);
    workspace_free(&w);
    if (file == UINT32_MAX) {
        compiler_free(&c);
        return FMT_FAILED;
    }
    const SourceFile *source = source_file(&c.sources, file);
    FormatText text = { 0 };
    int status = FMT_OK;
    if (!format_file(&c, file, &text, NULL)) {
        print_errors(&c, options);
        status = FMT_ERRORS;
    } else if (input->from_stdin && !options->check && !options->diff) {
        fwrite(text.text, 1, text.len, stdout);
    } else if (text.len != source->len || memcmp(text.text, source->text, text.len) != 0) {
        status = act_on_change(input, source, &text, options);
    }
    format_text_free(&text);
    compiler_free(&c);
    return status;
}

int format_command(const char *const *paths, int count, const FormatOptions *options)
{
    static const char *const here[] = { "." };
    if (count == 0) {
        paths = here;
        count = 1;
    }
    InputList inputs = { .report = cli_print_problem };
    inputs_collect(&inputs, paths, count);
    inputs_name_stdin(&inputs, NULL);
    int status = inputs.failures ? FMT_FAILED : FMT_OK;
    for (size_t i = 0; i < inputs.count; i++)
        status = worse(status, format_one(&inputs.items[i], options));
    inputs_free(&inputs);
    return status;
}
