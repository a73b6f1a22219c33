/* The rounds of `orbitc fix` (fix_rounds.h), in memory: the files live here between
 * rounds; nothing is printed or written.
 *
 * A round takes the fixes that the last check offers (fix_select) and applies them, and
 * the result is checked again. A fix never brings a diagnostic that the program did not
 * have before `fix` started (counted by code and message): only a set of fixes whose
 * check brings nothing new is accepted. When the fixes of a round do bring something,
 * each new diagnostic that lies on the text of exactly one of them blames that fix,
 * which is left out of the round, and the others are checked again; a check whose new
 * diagnostics blame no fix (they lie elsewhere, or on several fixes) tries the fixes in halves, recursively, each half on top of the fixes
 * accepted so far, until each fix that brings one is found alone. A round costs a few
 * checks when what its fixes bring lies on them, whatever their number; at most about
 * 2k log2(n) checks for k fixes among n that bring something elsewhere; with none, one.
 * A new diagnostic on a fix's text that another fix caused leaves that fix out with it:
 * fewer fixes, never a wrong one. A fix left out is tried again by the next round, on
 * the text the fixes accepted made (with them it may bring nothing; without that, a
 * second `fix` would apply it); the last round applies nothing, so every fix the last
 * check offers was tried on its text, and those left are reported ("left"). */
#include "fix_rounds.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"

/* A diagnostic as the baseline counts it: its code and message. */
typedef struct FixKey {
    DiagCode code;
    const char *message;
    const Diagnostic *diag;    /* the one counted */
} Key;

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

void rounds_init(FixRun *run, Workspace *workspace, const char *stdin_path,
                  uint32_t max_rounds)
{
    const Compiler *c = workspace->c;
    *run = (FixRun){ .max_rounds = max_rounds, .workspace = workspace, .first = workspace->c };
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

void rounds_free(FixRun *run)
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

bool rounds_file_changed(const FixFile *f)
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

/* Sorts the fixes left out since the last lookup. */
static void sort_left(FixRun *run)
{
    if (run->left_sorted != run->left_count)
        qsort(run->left, run->left_count, sizeof *run->left, compare_left);
    run->left_sorted = run->left_count;
}

/* The fix left out that `e` (of `c`) repeats, or NULL. The same edit of the same
 * diagnostic's code is the same fix, wherever earlier fixes moved it. */
const LeftFix *rounds_was_left(FixRun *run, const Compiler *c, const FixEdit *e)
{
    sort_left(run);
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
    round.edits = fix_select_any(&current->diags, &current->sources, run->unsafe, &round.count);
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
            if (run->applied)
                run->applied(run->applied_context, current, &round.edits[i]);
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

Compiler *rounds_run(FixRun *run)
{
    Compiler *current = run->first;
    while (run->rounds < run->max_rounds) {
        Compiler *next = fix_round(run, current);
        if (!next)
            break;
        if (current != run->first)
            free_compiler(current);
        current = next;
        run->rounds++;
    }
    uint32_t offered;
    free(fix_select_any(&current->diags, &current->sources, run->unsafe, &offered));
    run->gave_up = run->rounds == run->max_rounds && offered > 0;
    return current;
}

Compiler *rounds_in_memory(Workspace *workspace, uint32_t max_rounds, bool *unfinished)
{
    FixRun run;
    rounds_init(&run, workspace, NULL, max_rounds);
    Compiler *last = rounds_run(&run);
    *unfinished = run.gave_up;
    rounds_free(&run);
    return last;
}

void rounds_free_check(Compiler *c)
{
    free_compiler(c);
}
