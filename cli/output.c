/* Where and how check, build and fix print their diagnostics (cli.h): the format asked
 * for, or the table of `check --statistics`; on standard error (human) or standard
 * output (the others), or into `check --output-file FILE`, written atomically once the
 * run is over; and a warning when a SARIF log nears GitHub's limit of results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "memory.h"
#include "orbc.h"

/* GitHub code scanning takes at most 25,000 results from one run of a tool and drops the
 * rest (docs/ci.md); orbitc warns from 20,000 on. */
enum { SARIF_RESULT_LIMIT = 25000, SARIF_RESULT_WARNING = 20000 };

typedef struct CodeCount {
    DiagCode code;
    uint32_t count;
} CodeCount;

/* Most frequent first; of equal counts, in registry order (E before W, by number). */
static int by_count(const void *a, const void *b)
{
    const CodeCount *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (int)x->code - (int)y->code;
}

/* `--statistics`: "COUNT  CODE  severity  title" for each code with a diagnostic. */
static void print_statistics(FILE *out, const DiagSink *sink)
{
    CodeCount counts[DIAG_CODE_COUNT];
    for (int code = 0; code < DIAG_CODE_COUNT; code++)
        counts[code] = (CodeCount){ (DiagCode)code, 0 };
    for (uint32_t i = 0; i < sink->count; i++)
        counts[sink->items[i]->code].count++;
    qsort(counts, DIAG_CODE_COUNT, sizeof counts[0], by_count);
    int width = snprintf(NULL, 0, "%u", counts[0].count);
    for (int i = 0; i < DIAG_CODE_COUNT && counts[i].count > 0; i++) {
        const DiagInfo *info = diag_info(counts[i].code);
        fprintf(out, "%*u  %s  %s\n", width, counts[i].count, info->code, info->title);
    }
}

static void render_format(FILE *out, Format format, const Compiler *c,
                          const RenderOptions *render)
{
    if (format == FORMAT_JSON)
        render_json(out, &c->diags, &c->sources, render);
    else if (format == FORMAT_GITHUB)
        render_github(out, &c->diags, &c->sources, render);
    else if (format == FORMAT_GITLAB)
        render_gitlab(out, &c->diags, &c->sources, render);
    else if (format == FORMAT_SARIF)
        render_sarif(out, &c->diags, &c->sources, render);
    else if (format == FORMAT_CONCISE)
        render_concise(out, &c->diags, &c->sources, render);
    else
        render_human(out, &c->diags, &c->sources, render);
}

static void warn_near_sarif_limit(const CliOptions *opt, const DiagSink *sink)
{
    if (opt->format != FORMAT_SARIF || opt->statistics || sink->count < SARIF_RESULT_WARNING)
        return;
    fprintf(stderr, "orbitc: warning: the SARIF log holds %u results; GitHub code scanning "
                    "takes at most %u from one run and drops the rest%s\n", sink->count,
            (unsigned)SARIF_RESULT_LIMIT,
            sink->count > SARIF_RESULT_LIMIT ? " (this run is over the limit)" : "");
    fprintf(stderr, "  help: check fewer files per run, or `--allow` the most frequent codes "
                    "(`orbitc check --statistics`)\n");
}

bool cli_write_file(const char *path, const char *text, size_t len)
{
    OrbcError err;
    if (orbc_write_file(path, (const uint8_t *)text, len, &err))
        return true;
    fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", path, err.text);
    return false;
}

bool cli_render(const CliOptions *opt, const Compiler *c, RenderOptions *render)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = opt->format == FORMAT_HUMAN && !opt->statistics ? stderr : stdout;
    if (opt->output_file) {
        out = open_memstream(&text, &len);
        if (!out)
            out_of_memory();
        render->color = opt->format == FORMAT_HUMAN && opt->color == COLOR_ALWAYS;
    }
    if (opt->statistics)
        print_statistics(out, &c->diags);
    else
        render_format(out, opt->format, c, render);
    warn_near_sarif_limit(opt, &c->diags);
    if (!opt->output_file)
        return true;
    bool ok = fclose(out) == 0 && cli_write_file(opt->output_file, text, len);
    free(text);
    return ok;
}
