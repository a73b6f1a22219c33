/* `orbitc fix` (fix_command.h). The files live in memory between rounds; nothing is
 * written until the end, and then only the files that changed.
 *
 * A round takes the fixes that the last check offers (fix_select) and applies them, and
 * the result is checked again. A fix never brings a diagnostic that the program did not
 * have before `fix` started (counted by code and message): only a set of fixes whose
 * check brings nothing new is accepted. When the fixes of a round do bring something,
 * each new diagnostic that lies on the text of exactly one of them blames that fix,
 * which is left out of the round, and the others are checked again; a check whose new diagnostics blame no fix (they lie elsewhere, or on
 * several fixes) tries the fixes in halves, recursively, each half on top of the fixes
 * accepted so far, until each fix that brings one is found alone. A round costs a few
 * checks when what its fixes bring lies on them, whatever their number; at most about
 * 2k log2(n) checks for k fixes among n that bring something elsewhere; with none, one.
 * A new diagnostic on a fix's text that another fix caused leaves that fix out with it:
 * fewer fixes, never a wrong one. A fix left out is tried again by the next round, on
 * the text the fixes accepted made (with them it may bring nothing; without that, a
 * second `fix` would apply it); the last round applies nothing, so every fix the last
 * check offers was tried on its text, and those left are reported ("left"). */
#include "fix_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fix.h"
#include "format.h"
#include "memory.h"
#include "orbc.h"
#include "replace_file.h"
#include "workspace.h"

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
    const Diagnostic *diag;    /* the one counted */
} Key;

/* A fix left out of a round, remembered for the report: "left" at the end where the
 * last check still offers it. */
typedef struct LeftFix {
    uint32_t file;
    DiagCode code;
    DiagCode brought;          /* the code of the diagnostic it would bring */
    const char *old_text;      /* the text it replaces (old_len bytes); malloc'd */
    uint32_t old_len;
    char *replacement;
} LeftFix;

typedef struct FixRun {
    FixFile *files;
    uint32_t count;            /* the sources but the standard library */
    uint32_t rounds;
    bool gave_up;              /* fixes were left after the last round */
    Key *baseline;             /* the diagnostics before any fix, sorted */
    uint32_t baseline_count;
    LeftFix *left;             /* sorted (compare_left) up to left_sorted */
    uint32_t left_count, left_cap, left_sorted;
    Workspace *workspace;      /* the programs and their configurations */
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
        keys[i] = (Key){ sink->items[i]->code, sink->items[i]->message, sink->items[i] };
    qsort(keys, sink->count, sizeof *keys, compare_keys);
    return keys;
}

/* The diagnostics of `c` that the fixes brought: of each code and message that `c` has
 * more often than the baseline, every occurrence (which of them is the new one cannot
 * be told). malloc'd; *count of them, in the order of their keys. Both lists are
 * sorted: one merge. */
static const Diagnostic **brings_new(const FixRun *run, const Compiler *c, uint32_t *count)
{
    Key *keys = keys_of(&c->diags);
    const Diagnostic **brought = xmalloc((c->diags.count + 1) * sizeof *brought);
    uint32_t n = 0, b = 0;
    for (uint32_t i = 0, next; i < c->diags.count; i = next) {
        next = i + 1;
        while (next < c->diags.count && compare_keys(&keys[i], &keys[next]) == 0)
            next++;
        while (b < run->baseline_count && compare_keys(&run->baseline[b], &keys[i]) < 0)
            b++;
        uint32_t before = 0;
        for (; b < run->baseline_count && compare_keys(&run->baseline[b], &keys[i]) == 0; b++)
            before++;
        if (next - i > before)
            for (uint32_t k = i; k < next; k++)
                brought[n++] = keys[k].diag;
    }
    free(keys);
    *count = n;
    return brought;
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
        free((char *)run->left[i].old_text);
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

static int compare_left(const void *pa, const void *pb)
{
    const LeftFix *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->code != b->code)
        return a->code < b->code ? -1 : 1;
    if (a->old_len != b->old_len)
        return a->old_len < b->old_len ? -1 : 1;
    int by_text = memcmp(a->old_text, b->old_text, a->old_len);
    return by_text ? by_text : strcmp(a->replacement, b->replacement);
}

/* Sorts the fixes left out since the last lookup (once a round, before was_left). */
static void sort_left(FixRun *run)
{
    if (run->left_sorted != run->left_count)
        qsort(run->left, run->left_count, sizeof *run->left, compare_left);
    run->left_sorted = run->left_count;
}

/* The fix left out that `e` (of `c`) repeats, or NULL. The same edit of the same
 * diagnostic's code is the same fix, wherever earlier fixes moved it. */
static const LeftFix *was_left(const FixRun *run, const Compiler *c, const FixEdit *e)
{
    if (run->left_sorted == 0)
        return NULL;   /* bsearch wants an array */
    LeftFix probe = { e->file, e->code, e->code,
                      source_file(&c->sources, e->file)->text + e->start, e->end - e->start,
                      (char *)e->replacement };
    return bsearch(&probe, run->left, run->left_sorted, sizeof *run->left, compare_left);
}

/* Remembers that `e` (of `c`) brings a new diagnostic of code `brought`. */
static void leave_out(FixRun *run, const Compiler *c, const FixEdit *e, DiagCode brought)
{
    if (run->left_count == run->left_cap) {
        run->left_cap = run->left_cap ? run->left_cap * 2 : 8;
        run->left = xrealloc(run->left, run->left_cap * sizeof *run->left);
    }
    const char *old = source_file(&c->sources, e->file)->text + e->start;
    run->left[run->left_count++] = (LeftFix){ e->file, e->code, brought,
                                              xstrndup(old, e->end - e->start),
                                              e->end - e->start, xstrdup(e->replacement) };
}

/* "orbitc: left checkout.orbit:7:7: the fix of E0410 would bring a new E0410", at the
 * fix's place in the text the last check read (the one its diagnostics are shown in). */
static void print_left(const Compiler *c, const FixEdit *e, DiagCode brought)
{
    const SourceFile *file = source_file(&c->sources, e->file);
    uint32_t line = source_line_of(&c->sources, e->file, e->start);
    uint32_t column = 1;
    for (uint32_t at = source_line_start(&c->sources, e->file, line); at < e->start; at++)
        column += ((unsigned char)file->text[at] & 0xC0) != 0x80;   /* characters */
    fprintf(stderr, "orbitc: left %s:%u:%u: the fix of %s would bring a new %s\n", file->path,
            line + 1, column, diag_info(e->code)->code, diag_info(brought)->code);
}

/* Reports the fixes that `last` still offers but were left out, at most `max_shown` of
 * them (0: all) and then how many more; returns how many fixes it offers. */
static uint32_t report_left(FixRun *run, const Compiler *last, uint32_t max_shown)
{
    sort_left(run);
    uint32_t offered, shown = 0, hidden = 0;
    FixEdit *edits = fix_select(&last->diags, &last->sources, &offered);
    for (uint32_t i = 0; i < offered; i++) {
        const LeftFix *left = was_left(run, last, &edits[i]);
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
    return offered;
}

/* --- a round --- */

typedef struct Round {
    const Compiler *current;   /* the check the fixes come from */
    FixEdit *edits;
    uint32_t count;
    bool *accepted;
    Compiler *good;            /* the check of the accepted fixes, when any */
} Round;

/* Where the replacement of a tried edit lies in the text of its trial. */
typedef struct Placed {
    uint32_t file;
    uint32_t start, end;       /* bytes of the fixed text */
    uint32_t tried;            /* its place in the list of edits tried */
} Placed;

/* The texts of the files with the accepted edits and the `n` edits `tried` (indexes into
 * round->edits, increasing) applied; NULL for a file without any. *placed gets where the
 * replacement of each tried edit lies (malloc'd, n of them, sorted by file and place). */
static char **texts_with(const FixRun *run, const Round *round, const uint32_t *tried,
                         uint32_t n, uint32_t *lens, Placed **placed)
{
    char **texts = xcalloc(run->count, sizeof *texts);
    FixEdit *chosen = xmalloc((round->count + 1) * sizeof *chosen);
    *placed = xmalloc((n + 1) * sizeof **placed);
    uint32_t count = 0, k = 0, shift = 0;
    for (uint32_t i = 0; i < round->count; i++) {
        bool is_tried = k < n && tried[k] == i;
        if (!round->accepted[i] && !is_tried)
            continue;
        const FixEdit *e = &round->edits[i];
        if (count > 0 && chosen[count - 1].file != e->file)
            shift = 0;   /* a new file */
        uint32_t replacement = (uint32_t)strlen(e->replacement);
        if (is_tried) {
            (*placed)[k] = (Placed){ e->file, e->start + shift, e->start + shift + replacement, k };
            k++;
        }
        shift += replacement - (e->end - e->start);   /* unsigned: wraps back as it should */
        chosen[count++] = *e;
    }
    for (uint32_t i = 0, first = 0; i < count; i++) {
        if (i + 1 < count && chosen[i + 1].file == chosen[i].file)
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

/* The tried edit that new diagnostic `d` lies on (touching counts: a removal leaves no
 * text), when it lies on exactly one; else n. */
static uint32_t blamed_edit(const Compiler *trial, const Placed *placed, uint32_t n,
                            const Diagnostic *d)
{
    if (d->span.end < d->span.start || trial->sources.count == 0)
        return n;
    uint32_t file = source_file_at(&trial->sources, d->span.start);
    uint32_t origin = source_file(&trial->sources, file)->origin;
    uint32_t start = d->span.start - origin, end = d->span.end - origin;
    /* the first placed edit after the diagnostic: by file, then place */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (placed[mid].file < file || (placed[mid].file == file && placed[mid].start <= end))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Going back, the edits end earlier and earlier (they do not overlap). */
    uint32_t found = n, touching = 0;
    for (uint32_t i = lo; i > 0 && touching < 2; i--) {
        const Placed *p = &placed[i - 1];
        if (p->file != file || p->end < start)
            break;
        found = p->tried;
        touching++;
    }
    return touching == 1 ? found : n;
}

/* Accepts the `n` edits `tried` when, with those accepted before, they bring nothing
 * new. Else each edit that a new diagnostic lies on is left out and the others are
 * tried again; when no new diagnostic points at one, each half is tried alone. */
static void try_edits(FixRun *run, Round *round, uint32_t *tried, uint32_t n)
{
    while (n > 0) {
        uint32_t *lens = xcalloc(run->count + 1, sizeof *lens);
        Placed *placed;
        char **texts = texts_with(run, round, tried, n, lens, &placed);
        Compiler *trial = check_texts(run, texts, lens);
        free_texts(run, texts);
        free(lens);
        uint32_t new_count;
        const Diagnostic **brought = brings_new(run, trial, &new_count);
        if (new_count == 0) {
            for (uint32_t i = 0; i < n; i++)
                round->accepted[tried[i]] = true;
            free_compiler(round->good);
            round->good = trial;   /* the accepted set only grows: the last good is the result */
            free(brought);
            free(placed);
            return;
        }
        /* blame[i]: the code of the new diagnostic on tried[i], or DIAG_CODE_COUNT */
        DiagCode *blame = xmalloc((n + 1) * sizeof *blame);
        for (uint32_t i = 0; i < n; i++)
            blame[i] = n == 1 ? brought[0]->code : DIAG_CODE_COUNT;
        for (uint32_t i = 0; i < new_count && n > 1; i++) {
            uint32_t at = blamed_edit(trial, placed, n, brought[i]);
            if (at < n && blame[at] == DIAG_CODE_COUNT)
                blame[at] = brought[i]->code;
        }
        free(brought);
        free(placed);
        free_compiler(trial);
        uint32_t kept = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (blame[i] == DIAG_CODE_COUNT)
                tried[kept++] = tried[i];
            else
                leave_out(run, round->current, &round->edits[tried[i]], blame[i]);
        }
        free(blame);
        if (kept == n) {   /* nothing to blame: halve */
            uint32_t half = n / 2;
            try_edits(run, round, tried, half);
            try_edits(run, round, tried + half, n - half);
            return;
        }
        n = kept;
    }
}

/* One round over the fixes `current` offers: the check of the files with those that
 * were applied, or NULL when none was. */
static Compiler *fix_round(FixRun *run, const Compiler *current)
{
    Round round = { .current = current };
    round.edits = fix_select(&current->diags, &current->sources, &round.count);
    round.accepted = xcalloc(round.count + 1, sizeof *round.accepted);
    uint32_t *tried = xmalloc((round.count + 1) * sizeof *tried);
    for (uint32_t i = 0; i < round.count; i++)
        tried[i] = i;
    if (round.count > 0)
        try_edits(run, &round, tried, round.count);
    free(tried);
    if (round.good) {
        uint32_t *lens = xcalloc(run->count + 1, sizeof *lens);
        Placed *placed;
        char **texts = texts_with(run, &round, NULL, 0, lens, &placed);
        free(placed);
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

/* Rounds until one applies nothing or max_rounds: the last check (`first` when no fix
 * was applied). Prints nothing. */
static Compiler *fix_rounds(FixRun *run, Compiler *first)
{
    Compiler *current = first;
    while (run->rounds < run->options->max_rounds) {
        Compiler *next = fix_round(run, current);
        if (!next)
            break;
        if (current != first)
            free_compiler(current);
        current = next;
        run->rounds++;
    }
    return current;
}

Compiler *fix_in_memory(Workspace *workspace, const FixCommand *options, bool *unfinished)
{
    Compiler *first = workspace->c;
    FixRun run = { .workspace = workspace, .options = options };
    take_files(&run, first, NULL);
    Compiler *last = fix_rounds(&run, first);
    uint32_t offered;
    free(fix_select(&last->diags, &last->sources, &offered));
    *unfinished = run.rounds == options->max_rounds && offered > 0;
    free_run(&run);
    return last;
}

void fix_free_check(Compiler *c)
{
    free_compiler(c);
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
            char *name = cli_diff_name(f->path);
            format_write_diff(stdout, name, f->original, f->original_len, f->text, f->len);
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
    Compiler *current = fix_rounds(&run, first);
    uint32_t offered = report_left(&run, current, options->max_left);
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

/* --- the command line --- */

static void print_remaining(void *context, Compiler *c)
{
    cli_print_diagnostics(context, c);
}

/* fix: check as `check` does, then apply the machine-applicable fixes (fix_command).
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
                           run.w.failures > 0, print_remaining, &options,
                           opt->max_diagnostics };
        status = fix_command(&run.w, stdin_path, &fix);
    }
    cli_run_free(&run);
    return status;
}
