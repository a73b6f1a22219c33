/* `orbitc compat OLD NEW [--format human|json|github|sarif|junit] [--fail-on
 * error|warning|info] [--workflow NAME]...` (docs/compat.md): loads both sides as
 * modules (an .orbc file through liborbc's loader; a source path through the one
 * pipeline, workspace_check, then lowered in memory; a git revision read by compat_git.c
 * and checked the same way), compares them (compat/), prints the report. Exit status: 0
 * compatible, 1 a change at --fail-on's level or above, 2 a side could not be loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "compat_command.h"
#include "lower.h"
#include "memory.h"

static bool is_git(const char *arg)
{
    return strncmp(arg, "git:", 4) == 0;
}

static bool is_orbc(const char *arg)
{
    size_t n = strlen(arg);
    return n > 5 && strcmp(arg + n - 5, ".orbc") == 0;
}

static bool load_orbc(CompatSide *s)
{
    size_t len;
    const char *why;
    uint8_t *bytes = workspace_read_binary(s->label, ORBC_MAX_FILE_SIZE, &len, &why);
    if (!bytes) {
        fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", s->label, why);
        return false;
    }
    OrbcError err;
    s->loaded = orbc_load(bytes, len, &s->module, &err);
    free(bytes);
    if (!s->loaded)
        fprintf(stderr, "orbitc: error: `%s` is not a bytecode file that loads: %s\n", s->label,
                err.text);
    return s->loaded;
}

/* The side's sources, loaded into s->run, checked and lowered into its module. */
static bool lower_side(const CliOptions *opt, CompatSide *s)
{
    Workspace *w = &s->run.w;
    workspace_check(w);
    Program *p = w->roots.count == 1 ? w->checked[0] : NULL;
    if (s->run.c.diags.errors > 0 || w->failures > 0) {
        CliOptions human = *opt;
        human.format = FORMAT_HUMAN;
        cli_print_diagnostics(&human, &s->run.c);
        fprintf(stderr, "orbitc: error: `%s` does not check: nothing was compared\n", s->label);
        return false;
    }
    if (!p) {
        fprintf(stderr, "orbitc: error: `%s` holds %s program: compare one program at a time\n",
                s->label, w->roots.count ? "more than one" : "no");
        return false;
    }
    uint8_t *bytes;
    size_t len;
    char why[512];
    if (!lower_program(&s->run.c, p, &bytes, &len, why, sizeof why)) {
        fprintf(stderr, "orbitc: error: `%s`: %s\n", s->label, why);
        return false;
    }
    OrbcError err;
    s->loaded = orbc_load(bytes, len, &s->module, &err);
    free(bytes);
    if (!s->loaded)
        fprintf(stderr, "orbitc: error: `%s`: its bytecode does not load: %s\n", s->label, err.text);
    return s->loaded;
}

static bool load_side(const CliOptions *opt, CompatSide *s, const char *other)
{
    if (is_orbc(s->label) && !is_git(s->label))
        return load_orbc(s);
    s->have_run = true;
    if (is_git(s->label)) {
        compiler_init(&s->run.c);
        workspace_init(&s->run.w, &s->run.c, false);
        s->run.w.report = cli_print_problem;
        return cli_compat_git(s, other) && lower_side(opt, s);
    }
    cli_run_init(&s->run);
    CliOptions one = *opt;
    one.paths = &s->label;
    one.path_count = 1;
    return cli_load(&one, &s->run) == EXIT_OK && lower_side(opt, s);
}

static void free_side(CompatSide *s)
{
    if (s->loaded)
        orbc_module_free(&s->module);
    if (s->have_run)
        cli_run_free(&s->run);
}

/* The path a git side without PATH reads: the other side's, when it is a path. */
static const char *path_of(const char *arg)
{
    return is_git(arg) || is_orbc(arg) ? NULL : arg;
}

static void print_report(const CliOptions *opt, const CompatReport *r, const char *old_label,
                         const char *new_label)
{
    TextBuffer out = { 0 };
    switch (opt->compat_format) {
    case COMPAT_FORMAT_JSON: compat_write_json(r, old_label, new_label, &out); break;
    case COMPAT_FORMAT_GITHUB: compat_write_github(r, &out); break;
    case COMPAT_FORMAT_SARIF: compat_write_sarif(r, &out); break;
    case COMPAT_FORMAT_JUNIT: compat_write_junit(r, old_label, new_label, &out); break;
    default:
        compat_write_human(r, old_label, new_label, cli_want_color_on(opt->color, STDOUT_FILENO),
                           &out);
        break;
    }
    if (out.len)
        fwrite(out.data, 1, out.len, stdout);
    text_free(&out);
}

static bool has_workflow(const OrbcModule *m, const char *name)
{
    for (uint32_t i = 0; i < m->workflow_count; i++) {
        uint32_t s = m->workflows[i].name;
        if (s < m->string_count && strcmp(m->strings[s].text, name) == 0)
            return true;
    }
    return false;
}

/* Each --workflow names a workflow of one side or the other. */
static bool workflows_known(const CliOptions *opt, const CompatSide *old, const CompatSide *new)
{
    for (int i = 0; i < opt->workflow_count; i++) {
        const char *name = opt->workflows[i];
        if (!has_workflow(&old->module, name) && !has_workflow(&new->module, name)) {
            fprintf(stderr, "orbitc: error: neither side has a workflow `%s` (--workflow)\n", name);
            return false;
        }
    }
    return true;
}

int cli_compat(const CliOptions *opt)
{
    if (opt->path_count != 2)
        return cli_usage_error("%s compares two programs: `orbitc compat OLD NEW` (each an "
                               ".orbc file, a source path or git:REV[:PATH])", "compat");
    CompatSide old = { .label = opt->paths[0] }, new = { .label = opt->paths[1] };
    int status = EXIT_USAGE;
    if (load_side(opt, &old, path_of(new.label)) && load_side(opt, &new, path_of(old.label))
        && workflows_known(opt, &old, &new)) {
        CompatOptions options = { opt->workflow_count ? opt->workflows : NULL,
                                  (uint32_t)opt->workflow_count };
        CompatReport r;
        compat_compare(&old.module, &new.module, &options, &r);
        print_report(opt, &r, old.label, new.label);
        status = compat_fails(&r, (CompatLevel)opt->fail_on) ? EXIT_ERRORS : EXIT_OK;
        compat_report_free(&r);
    }
    free_side(&old);
    free_side(&new);
    return status;
}
