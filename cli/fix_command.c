/* `orbitc fix` (fix_command.h). The files live in memory between rounds; nothing is
 * written until the end, and then only the files that changed.
 *
 * A round takes the fixes that the last check offers (fix_select) and applies them, and
 * the result is checked again. A fix never brings a diagnostic that the program did not
 * have before `fix` started (counted by code and message): when the fixes of a round do,
 * they are tried in halves, recursively, each half on top of the fixes accepted so far,
 * until each fix that brings one is found alone and left out ("left" in the report, and
 * not tried again). A round with k such fixes among n costs about 2k log2(n) checks
 * more; a round without any, none. */
#include "fix_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fix.h"
#include "format.h"
#include "memory.h"
#include "orbc.h"
#include "replace_file.h"
#include "workspace.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };

/* A source file of the run (index i + 1 of every round's compiler). */
typedef struct FixFile {
    char *path;
    char *original;            /* as read */
    uint32_t original_len;
    char *text;                /* with the fixes so far */
    uint32_t len;
    bool from_stdin;
    uint32_t fixed;            /* fixes applied */
    uint32_t by_code[DIAG_CODE_COUNT];
} FixFile;

/* A diagnostic as the baseline counts it: its code and message. */
typedef struct Key {
    DiagCode code;
    const char *message;
} Key;

/* A fix left out, remembered so that no later round tries it again. */
typedef struct LeftFix {
    uint32_t file;
    DiagCode code;
    char *old_text;
    char *replacement;
} LeftFix;

typedef struct FixRun {
    FixFile *files;
    uint32_t count;            /* the sources but the standard library */
    uint32_t rounds;
    bool gave_up;              /* fixes were left after the last round */
    Key *baseline;             /* the diagnostics before any fix, sorted */
    uint32_t baseline_count;
    LeftFix *left;
    uint32_t left_count, left_cap;
    Workspace *workspace;     /* the programs and their configurations */
    const FixCommand *options;
} FixRun;

/* --- the baseline: what the program had before --- */

static int compare_keys(const void *pa, const void *pb)
{
    const Key *a = pa, *b = pb;
    if (a->code != b->code)
        return a->code < b->code ? -1 : 1;
    return strcmp(a->message, b->message);
}

static Key *keys_of(const DiagSink *sink)
{
    Key *keys = xmalloc((sink->count + 1) * sizeof *keys);
    for (uint32_t i = 0; i < sink->count; i++)
        keys[i] = (Key){ sink->items[i]->code, sink->items[i]->message };
    qsort(keys, sink->count, sizeof *keys, compare_keys);
    return keys;
}

/* Whether `c` has a diagnostic more often than the baseline (one the fixes brought);
 * *brought gets its code. Both lists are sorted: one merge. */
static bool brings_new(const FixRun *run, const Compiler *c, DiagCode *brought)
{
    Key *keys = keys_of(&c->diags);
    uint32_t b = 0;
    bool found = false;
    for (uint32_t i = 0; i < c->diags.count && !found; i++) {
        while (b < run->baseline_count && compare_keys(&run->baseline[b], &keys[i]) < 0)
            b++;
        if (b < run->baseline_count && compare_keys(&run->baseline[b], &keys[i]) == 0)
            b++;   /* matched one occurrence */
        else {
            found = true;
            *brought = keys[i].code;
        }
    }
    free(keys);
    return found;
}

/* --- the files --- */

static void take_files(FixRun *run, const Compiler *c, const char *stdin_path)
{
    run->count = c->sources.count - 1;
    run->files = xcalloc(run->count + 1, sizeof *run->files);
    for (uint32_t i = 0; i < run->count; i++) {
        const SourceFile *source = source_file(&c->sources, i + 1);
        FixFile *f = &run->files[i];
        f->path = xstrdup(source->path);
        f->original = xstrndup(source->text, source->len);
        f->original_len = source->len;
        f->text = xstrndup(source->text, source->len);
        f->len = source->len;
        f->from_stdin = stdin_path && strcmp(stdin_path, source->path) == 0;
    }
    run->baseline = keys_of(&c->diags);
    run->baseline_count = c->diags.count;
}

static void free_run(FixRun *run)
{
    for (uint32_t i = 0; i < run->count; i++) {
        free(run->files[i].path);
        free(run->files[i].original);
        free(run->files[i].text);
    }
    free(run->files);
    for (uint32_t i = 0; i < run->left_count; i++) {
        free(run->left[i].old_text);
        free(run->left[i].replacement);
    }
    free(run->left);
    free(run->baseline);
}

static bool changed(const FixFile *f)
{
    return f->len != f->original_len || memcmp(f->text, f->original, f->len) != 0;
}

/* A new compiler holding `texts` (one per file; NULL: the file as it is now), checked
 * as the first one was. Free it with free_compiler (a Compiler holds pointers into
 * itself: it is never copied). */
static Compiler *check_texts(const FixRun *run, char **texts, const uint32_t *lens)
{
    Compiler *c = xmalloc(sizeof *c);
    compiler_init(c);
    for (uint32_t i = 0; i < run->count; i++) {
        const FixFile *f = &run->files[i];
        char *text = texts && texts[i] ? texts[i] : f->text;
        uint32_t len = texts && texts[i] ? lens[i] : f->len;
        compiler_add_source(c, f->path, xstrndup(text, len), len);
    }
    free(workspace_check_again(run->workspace, c));
    return c;
}

static void free_compiler(Compiler *c)
{
    if (c) {
        compiler_free(c);
        free(c);
    }
}

/* --- fixes left out --- */

static char *edit_old_text(const Compiler *c, const FixEdit *e)
{
    return xstrndup(source_file(&c->sources, e->file)->text + e->start, e->end - e->start);
}

static bool was_left(const FixRun *run, const Compiler *c, const FixEdit *e)
{
    const char *old = source_file(&c->sources, e->file)->text + e->start;
    uint32_t old_len = e->end - e->start;
    for (uint32_t i = 0; i < run->left_count; i++) {
        const LeftFix *l = &run->left[i];
        if (l->file == e->file && l->code == e->code && strlen(l->old_text) == old_len
            && memcmp(l->old_text, old, old_len) == 0 && strcmp(l->replacement, e->replacement) == 0)
            return true;
    }
    return false;
}

/* "orbitc: left checkout.orbit:7:7: the fix of E0410 would bring E0410" */
static void leave_out(FixRun *run, const Compiler *c, const FixEdit *e, DiagCode brought)
{
    if (run->left_count == run->left_cap) {
        run->left_cap = run->left_cap ? run->left_cap * 2 : 8;
        run->left = xrealloc(run->left, run->left_cap * sizeof *run->left);
    }
    run->left[run->left_count++] = (LeftFix){ e->file, e->code, edit_old_text(c, e),
                                              xstrdup(e->replacement) };
    const SourceFile *file = source_file(&c->sources, e->file);
    uint32_t line = source_line_of(&c->sources, e->file, e->start);
    uint32_t column = 1;
    for (uint32_t at = source_line_start(&c->sources, e->file, line); at < e->start; at++)
        column += ((unsigned char)file->text[at] & 0xC0) != 0x80;   /* characters */
    fprintf(stderr, "orbitc: left %s:%u:%u: the fix of %s would bring a new %s\n", file->path,
            line + 1, column, diag_info(e->code)->code, diag_info(brought)->code);
}

/* --- a round --- */

typedef struct Round {
    const Compiler *current;   /* the check the fixes come from */
    FixEdit *edits;
    uint32_t count;
    bool *accepted;
    Compiler *good;            /* the check of the accepted fixes, when any */
} Round;

/* The texts of the files with the accepted edits (and [lo, hi) too) applied; NULL for a
 * file without any. */
static char **texts_with(const FixRun *run, const Round *round, uint32_t lo, uint32_t hi,
                         uint32_t *lens)
{
    char **texts = xcalloc(run->count, sizeof *texts);
    FixEdit *chosen = xmalloc((round->count + 1) * sizeof *chosen);
    uint32_t n = 0;
    for (uint32_t i = 0; i < round->count; i++)
        if (round->accepted[i] || (i >= lo && i < hi))
            chosen[n++] = round->edits[i];
    for (uint32_t i = 0, first = 0; i < n; i++) {
        if (i + 1 < n && chosen[i + 1].file == chosen[i].file)
            continue;   /* the last edit of its file: apply them all */
        uint32_t f = chosen[i].file - 1;
        texts[f] = fix_apply(&round->current->sources, chosen[i].file, chosen + first,
                             i + 1 - first, &lens[f]);
        first = i + 1;
    }
    free(chosen);
    return texts;
}

static void free_texts(const FixRun *run, char **texts)
{
    for (uint32_t i = 0; i < run->count; i++)
        free(texts[i]);
    free(texts);
}

/* Accepts the edits [lo, hi) when, with those accepted before, they bring nothing new;
 * else tries each half. */
static void try_edits(FixRun *run, Round *round, uint32_t lo, uint32_t hi)
{
    uint32_t *lens = xcalloc(run->count + 1, sizeof *lens);
    char **texts = texts_with(run, round, lo, hi, lens);
    Compiler *trial = check_texts(run, texts, lens);
    free_texts(run, texts);
    free(lens);
    DiagCode brought;
    if (!brings_new(run, trial, &brought)) {
        for (uint32_t i = lo; i < hi; i++)
            round->accepted[i] = true;
        free_compiler(round->good);
        round->good = trial;   /* the accepted set only grows: the last good is the result */
        return;
    }
    free_compiler(trial);
    if (hi - lo == 1) {
        leave_out(run, round->current, &round->edits[lo], brought);
        return;
    }
    uint32_t mid = lo + (hi - lo) / 2;
    try_edits(run, round, lo, mid);
    try_edits(run, round, mid, hi);
}

/* The fixes `c` offers that were not left out before (malloc'd; *count of them). */
static FixEdit *fixes_to_try(const FixRun *run, const Compiler *c, uint32_t *count)
{
    uint32_t offered;
    FixEdit *edits = fix_select(&c->diags, &c->sources, &offered);
    *count = 0;
    for (uint32_t i = 0; i < offered; i++)
        if (!was_left(run, c, &edits[i]))
            edits[(*count)++] = edits[i];
    return edits;
}

/* One round over the fixes `current` offers: the check of the files with those that
 * were applied, or NULL when none was. */
static Compiler *fix_round(FixRun *run, const Compiler *current)
{
    Round round = { .current = current };
    round.edits = fixes_to_try(run, current, &round.count);
    round.accepted = xcalloc(round.count + 1, sizeof *round.accepted);
    if (round.count > 0)
        try_edits(run, &round, 0, round.count);
    if (round.good) {
        uint32_t *lens = xcalloc(run->count + 1, sizeof *lens);
        char **texts = texts_with(run, &round, 0, 0, lens);
        for (uint32_t i = 0; i < round.count; i++) {
            if (!round.accepted[i])
                continue;
            FixFile *f = &run->files[round.edits[i].file - 1];
            f->fixed++;
            f->by_code[round.edits[i].code]++;
        }
        for (uint32_t i = 0; i < run->count; i++) {
            if (!texts[i])
                continue;
            free(run->files[i].text);
            run->files[i].text = texts[i];
            run->files[i].len = lens[i];
            texts[i] = NULL;
        }
        free_texts(run, texts);
        free(lens);
    }
    free(round.accepted);
    free(round.edits);
    return round.good;
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
        if (f->fixed == 0 || !changed(f))
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
        if (f->from_stdin || !changed(f)
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
static int write_files(const FixRun *run, const FixCommand *options, bool *written)
{
    bool to_stdout = false;
    for (uint32_t i = 0; i < run->count; i++) {
        const FixFile *f = &run->files[i];
        if (options->diff) {
            format_write_diff(stdout, f->path, f->original, f->original_len, f->text, f->len);
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
        if (!changed(f))
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
        if (run->files[i].fixed == 0 || !changed(&run->files[i]))
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

int fix_command(Workspace *workspace, const char *stdin_path, const FixCommand *options)
{
    Compiler *first = workspace->c;
    FixRun run = { .workspace = workspace, .options = options };
    take_files(&run, first, stdin_path);
    Compiler *current = first;
    while (run.rounds < options->max_rounds) {
        Compiler *next = fix_round(&run, current);
        if (!next)
            break;
        if (current != first)
            free_compiler(current);
        current = next;
        run.rounds++;
    }
    uint32_t offered;
    free(fixes_to_try(&run, current, &offered));
    run.gave_up = run.rounds == options->max_rounds && offered > 0;
    bool *written = xcalloc(run.count + 1, sizeof *written);
    int write_status = options->unread ? EXIT_USAGE : write_files(&run, options, written);
    report_fixed(&run, written);
    options->print(options->context, current);
    int status = current->diags.errors > 0
        || (options->deny_warnings && current->diags.warnings > 0) ? EXIT_ERRORS : EXIT_OK;
    explain_not_written(&run, options, written, write_status);
    if (write_status != EXIT_OK)
        status = write_status;
    free(written);
    if (current != first)
        free_compiler(current);
    free_run(&run);
    return status;
}
