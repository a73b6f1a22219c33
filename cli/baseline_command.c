/* `orbitc check --baseline FILE` and `--write-baseline FILE` (docs/cli.md, "Baseline"):
 * the warnings a baseline holds are left out of the report and of the exit status, its
 * entries that no longer occur are listed for pruning, and the file is written again,
 * only ever shrinking: an existing file as `orbitc fmt` rewrites a source (replace_file.h:
 * a read-only file refused, its owner, group and mode kept, untouched when its text does
 * not change), a new one atomically. The matching is the workspace's (baseline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cli.h"
#include "memory.h"
#include "orbc.h"
#include "replace_file.h"

enum { STALE_SHOWN = 20 };   /* stale entries listed one by one; then how many more */

static int baseline_error(char *message)
{
    fprintf(stderr, "orbitc: error: %s\n", message);
    free(message);
    return EXIT_USAGE;
}

/* Reads --write-baseline's file, when it exists, as a file to rewrite (refused when it is
 * not a regular file), and the baseline that the check is compared with: --baseline's
 * (which must exist, unless it is the file --write-baseline writes), else
 * --write-baseline's when it exists (from the same bytes). */
static int read_before(const CliOptions *opt, CliBaseline *b)
{
    bool missing;
    char *error = NULL;
    const char *target = opt->write_baseline;
    if (target && baseline_file_read(&b->target, target, "write", &missing, &error))
        b->have_target = true;
    else if (target && !missing)
        return baseline_error(error);
    free(error);
    error = NULL;
    bool from_target = !opt->baseline || (target && strcmp(opt->baseline, target) == 0);
    const char *path = from_target ? target : opt->baseline;
    if (from_target && !b->have_target)
        return EXIT_OK;   /* a new baseline */
    bool ok = from_target
        ? baseline_init(&b->before, path, &error)
              && baseline_parse(&b->before, path, b->target.text, b->target.len, &error)
        : baseline_read(&b->before, path, &missing, &error);
    if (ok) {
        b->have_before = true;
        return EXIT_OK;
    }
    baseline_free(&b->before);
    return baseline_error(error);
}

int cli_baseline_apply(const CliOptions *opt, CliRun *run, CliBaseline *b)
{
    memset(b, 0, sizeof *b);
    if (!opt->baseline && !opt->write_baseline)
        return EXIT_OK;
    int status = read_before(opt, b);
    if (status != EXIT_OK)
        return status;
    DiagSink *sink = &run->c.diags;
    b->marks = xcalloc(sink->count + 1, 1);
    if (b->have_before)
        b->known = baseline_match(&b->before, &run->w, b->marks);
    if (opt->write_baseline) {
        char *error = NULL;
        if (!baseline_init(&b->after, opt->write_baseline, &error))
            return baseline_error(error);
        b->have_after = true;
        baseline_collect(&b->after, &run->w, b->have_before ? b->marks : NULL, &b->before);
        if (!b->have_before) {   /* a new baseline: every warning is in it */
            for (uint32_t i = 0; i < sink->count; i++)
                if (baseline_holds(sink->items[i]))
                    b->marks[i] = BASELINE_KNOWN;
            b->known = baseline_total(&b->after, false);
        }
    }
    for (uint32_t i = 0; i < sink->count; i++)
        b->new_count += b->marks[i] == BASELINE_NEW || b->marks[i] == BASELINE_OVER;
    baseline_drop(sink, b->marks);
    return EXIT_OK;
}

/* "  checkout.orbit: W0006 in workflow checkout > step charge (1 of 2)" */
static void list_stale(const Baseline *before, uint32_t max_shown)
{
    uint32_t shown = 0, hidden = 0;
    for (uint32_t i = 0; i < before->count; i++) {
        const BaselineEntry *e = &before->items[i];
        if (!e->stale)
            continue;
        if (max_shown && shown == max_shown) {
            hidden++;
            continue;
        }
        shown++;
        fprintf(stderr, "  %s: %s in %s (%u of %u)\n", e->file, diag_info(e->code)->code,
                e->scope, e->stale, e->count);
    }
    if (hidden)
        fprintf(stderr, "  ... and %u more %s\n", hidden, hidden == 1 ? "entry" : "entries");
}

/* Writes the text of the baseline to --write-baseline's file: a new file atomically
 * (orbc_write_file, as --output-file), an existing one as `orbitc fmt` rewrites a source
 * (replace_file), and not at all when its text is the same. False with the error said. */
static bool write_text(const CliOptions *opt, const CliBaseline *b, const char *text,
                       size_t len, bool *unchanged)
{
    const char *path = opt->write_baseline;
    const BaselineFile *old = &b->target;
    *unchanged = b->have_target && old->len == len && memcmp(old->text, text, len) == 0;
    if (*unchanged)
        return true;
    const char *problem;
    ReplaceWhy why;
    OrbcError err;
    struct stat now;   /* the content too: a same-size edit within one clock tick keeps the times */
    if (b->have_target)
        problem = replace_file_unchanged(path, old->text, old->len, &now, &why)
                      && replace_file(path, &old->as_read, text, len, &why)
                  ? NULL : why.text;
    else
        problem = orbc_write_file(path, (const uint8_t *)text, len, &err) ? NULL : err.text;
    if (problem)
        fprintf(stderr, "orbitc: error: cannot write the baseline `%s`: %s\n", path, problem);
    return !problem;
}

static int write_after(const CliOptions *opt, CliBaseline *b)
{
    size_t len;
    char *text = baseline_text(&b->after, &len);
    bool unchanged;
    bool ok = write_text(opt, b, text, len, &unchanged);
    free(text);
    if (!ok)
        return EXIT_USAGE;
    if (opt->quiet)
        return EXIT_OK;
    uint32_t total = baseline_total(&b->after, false);
    fprintf(stderr, unchanged ? "orbitc: the baseline `%s` is unchanged: %u %s in %u %s"
                              : "orbitc: wrote the baseline `%s`: %u %s in %u %s",
            opt->write_baseline, total, total == 1 ? "warning" : "warnings", b->after.count,
            b->after.count == 1 ? "entry" : "entries");
    uint32_t pruned = b->have_before ? baseline_total(&b->before, true) : 0;
    if (pruned)
        fprintf(stderr, "; %u no longer occurring %s pruned", pruned,
                pruned == 1 ? "was" : "were");
    fprintf(stderr, "\n");
    if (b->new_count)
        fprintf(stderr, "orbitc: the %u new %s above %s not added: a baseline only ever "
                        "shrinks (fix or suppress %s, or delete `%s` and write it again "
                        "to accept every warning)\n", b->new_count,
                b->new_count == 1 ? "warning" : "warnings",
                b->new_count == 1 ? "was" : "were", b->new_count == 1 ? "it" : "them",
                opt->write_baseline);
    return EXIT_OK;
}

int cli_baseline_finish(const CliOptions *opt, CliBaseline *b, bool complete)
{
    if (!opt->baseline && !opt->write_baseline)
        return EXIT_OK;
    const char *path = opt->baseline ? opt->baseline : opt->write_baseline;
    int status = EXIT_OK;
    if (b->have_before && !b->have_after && !opt->quiet) {
        if (b->known)
            fprintf(stderr, "orbitc: %u %s of the baseline `%s` not shown\n", b->known,
                    b->known == 1 ? "warning" : "warnings", path);
        uint32_t stale = baseline_total(&b->before, true);
        if (stale) {
            fprintf(stderr, "orbitc: %u %s of the baseline `%s` no longer %s; `orbitc check "
                            "--write-baseline %s` prunes %s:\n", stale,
                    stale == 1 ? "warning" : "warnings", path, stale == 1 ? "occurs" : "occur",
                    path, stale == 1 ? "it" : "them");
            list_stale(&b->before, opt->max_diagnostics ? STALE_SHOWN : 0);
        }
    }
    if (b->have_after && !complete) {
        fprintf(stderr, "orbitc: error: the baseline `%s` was not written: some paths could "
                        "not be read, and their warnings would be dropped from it\n",
                opt->write_baseline);
        status = EXIT_USAGE;
    } else if (b->have_after) {
        status = write_after(opt, b);
    }
    return status;
}

void cli_baseline_free(CliBaseline *b)
{
    if (b->have_before)
        baseline_free(&b->before);
    if (b->have_after)
        baseline_free(&b->after);
    if (b->have_target)
        baseline_file_free(&b->target);
    free(b->marks);
}
