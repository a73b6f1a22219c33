/* libFuzzer target: bytes as up to MAX_FILES source files (split at lines holding only
 * `%%`), checked and fixed in memory as `orbitc fix` does (fix_rounds.h, the same
 * rounds). Inputs over 4 KiB are ignored. The guarantees of `fix` must hold, else it
 * aborts with the reason:
 *   - no diagnostic remains that was not there before (by code and message, counted), so
 *     no new code appears;
 *   - a second fix of the fixed files changes nothing (unless the rounds ran out);
 *   - in a program that had no error before, each workflow that had no diagnostic
 *     builds, after the fixes, to the same disassembly but for source places: fixes
 *     never change what was not a diagnostic's.
 * A crash, hang, sanitizer report or leak is a bug as usual. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix_rounds.h"
#include "lower.h"
#include "orbc.h"
#include "workspace.h"

enum { MAX_INPUT = 4096, MAX_FILES = 4 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_fix: %s: %s\n", what, detail);
    abort();
}

/* The files of a run: their texts, kept while its compiler lives. */
typedef struct Files {
    const char *text[MAX_FILES];
    uint32_t len[MAX_FILES];
    uint32_t count;
} Files;

/* Splits the input at lines that hold only `%%`. */
static Files split(const char *data, uint32_t size)
{
    Files files = { .count = 0 };
    uint32_t start = 0;
    for (uint32_t i = 0; i + 2 <= size && files.count < MAX_FILES - 1; i++) {
        bool line_start = i == 0 || data[i - 1] == '\n';
        bool sep = line_start && data[i] == '%' && data[i + 1] == '%'
            && (i + 2 == size || data[i + 2] == '\n');
        if (!sep)
            continue;
        files.text[files.count] = data + start;
        files.len[files.count++] = i - start;
        start = i + 2 < size ? i + 3 : size;
        i = start - 1;
    }
    files.text[files.count] = data + start;
    files.len[files.count++] = size - start;
    return files;
}

/* A checked run of the files, as cli_fix makes it; *program gets the first root's
 * program when there is one root (for lowering). */
typedef struct Run {
    Compiler c;
    Workspace w;
    Program *program;
} Run;

static void run_check(Run *run, const Files *files)
{
    compiler_init(&run->c);
    workspace_init(&run->w, &run->c, true);
    for (uint32_t i = 0; i < files->count; i++) {
        char path[64];
        snprintf(path, sizeof path, "/nonexistent-fuzz-fix/f%u.orbit", i);
        char *text = malloc(files->len[i] + 1);
        if (!text)
            abort();
        memcpy(text, files->text[i], files->len[i]);
        text[files->len[i]] = '\0';
        workspace_add_text(&run->w, path, text, files->len[i]);
    }
    workspace_check(&run->w);
    run->program = run->w.roots.count == 1 ? run->w.checked[0] : NULL;
}

static void run_free(Run *run)
{
    workspace_free(&run->w);
    compiler_free(&run->c);
}

static Compiler *fix(Run *run, bool *unfinished)
{
    return rounds_in_memory(&run->w, FIX_MAX_ROUNDS, unfinished);
}

static int compare_diags(const void *pa, const void *pb)
{
    const Diagnostic *a = *(const Diagnostic *const *)pa, *b = *(const Diagnostic *const *)pb;
    if (a->code != b->code)
        return a->code < b->code ? -1 : 1;
    return strcmp(a->message, b->message);
}

static const Diagnostic **sorted(const DiagSink *sink)
{
    const Diagnostic **items = malloc((sink->count + 1) * sizeof *items);
    if (!items)
        abort();
    if (sink->count)
        memcpy(items, sink->items, sink->count * sizeof *items);
    qsort(items, sink->count, sizeof *items, compare_diags);
    return items;
}

/* Every diagnostic of `after` was in `before` (a multiset: one merge of sorted lists). */
static void nothing_new(const DiagSink *before, const DiagSink *after)
{
    const Diagnostic **b = sorted(before), **a = sorted(after);
    uint32_t j = 0;
    for (uint32_t i = 0; i < after->count; i++) {
        while (j < before->count && compare_diags(&b[j], &a[i]) < 0)
            j++;
        if (j == before->count || compare_diags(&b[j], &a[i]) != 0) {
            char detail[512];
            snprintf(detail, sizeof detail, "%s %s", diag_info(a[i]->code)->code, a[i]->message);
            fail("a diagnostic after fix was not there before", detail);
        }
        j++;
    }
    free(b);
    free(a);
}

/* Drops the source places (" at f0.orbit:5:3") from a disassembly: a fix that removes a
 * line (an unused suppression) moves what follows, not what it does. */
static void strip_places(char *text)
{
    char *out = text;
    for (const char *p = text; *p;) {
        if (strncmp(p, " at ", 4) == 0) {
            const char *end = p + 4;
            while (*end && *end != ' ' && *end != '\n')
                end++;
            if (end > p + 4 && end[-1] >= '0' && end[-1] <= '9' && memchr(p + 4, ':', end - p - 4)) {
                p = end;
                continue;
            }
        }
        *out++ = *p++;
    }
    *out = '\0';
}

/* The disassembly of a program that checks without error, or NULL (it does not lower:
 * E0601, a part too large, which fuzz_build covers). malloc'd. */
static char *disassembly(Run *run)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    char why[256];
    if (!run->program || !lower_program(&run->c, run->program, &bytes, &len, why, sizeof why))
        return NULL;
    OrbcModule module;
    OrbcError err;
    if (!orbc_load(bytes, len, &module, &err))
        fail("a fixed program gives bytecode that does not load", err.text);
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    if (!out)
        abort();
    orbc_disassemble(&module, out);
    fclose(out);
    strip_places(text);
    orbc_module_free(&module);
    free(bytes);
    return text;
}

/* The disassembly of workflow `index` (its "workflow N name" line to the next one) in
 * `text`, as a length from *start; false when it is not there. */
static bool workflow_text(const char *text, uint32_t index, const char **start, size_t *len)
{
    char header[32];
    snprintf(header, sizeof header, "\nworkflow %u ", index);
    const char *at = strstr(text, header);
    if (!at)
        return false;
    const char *next = strstr(at + 1, "\nworkflow ");
    *start = at;
    *len = next ? (size_t)(next - at) : strlen(at);
    return true;
}

/* Whether a diagnostic of `c` lies in `span`. */
static bool has_diagnostic(const Compiler *c, Span span)
{
    for (uint32_t i = 0; i < c->diags.count; i++) {
        Span d = c->diags.items[i]->span;
        if (d.start <= span.end && d.end >= span.start)
            return true;
    }
    return false;
}

/* A program without errors: each workflow that had no diagnostic lowers, after the
 * fixes of the others' warnings (W0003 changes what a step does, on purpose), to the
 * same disassembly but for source places. */
static void same_clean_workflows(Run *before, Run *after)
{
    char *old = disassembly(before), *new = disassembly(after);
    if ((old == NULL) != (new == NULL))
        fail("fixing warnings changed whether a program lowers", old ? "after" : "before");
    for (uint32_t i = 0; old && i < before->program->workflow_count; i++) {
        const char *a, *b;
        size_t a_len, b_len;
        if (has_diagnostic(&before->c, before->program->workflows[i].span)
            || !workflow_text(old, i, &a, &a_len))
            continue;
        if (!workflow_text(new, i, &b, &b_len) || a_len != b_len || memcmp(a, b, a_len) != 0)
            fail("fixing warnings changed a workflow that had none",
                 before->program->workflows[i].name->text);
    }
    free(old);
    free(new);
}

/* The texts of the user's files of `c` (a fix's last check). */
static Files texts_of(const Compiler *c)
{
    Files files = { .count = c->sources.count - 1 };
    for (uint32_t i = 0; i < files.count; i++) {
        const SourceFile *f = source_file(&c->sources, i + 1);
        files.text[i] = f->text;
        files.len[i] = f->len;
    }
    return files;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    Files files = split((const char *)data, (uint32_t)size);
    Run before;
    run_check(&before, &files);
    bool unfinished;
    Compiler *fixed = fix(&before, &unfinished);
    if (fixed == &before.c) {
        run_free(&before);
        return 0;   /* nothing applied */
    }
    nothing_new(&before.c.diags, &fixed->diags);

    /* The fixed files, checked afresh: what fix's own last check saw, and fixed again. */
    Files fixed_files = texts_of(fixed);
    Run after;
    run_check(&after, &fixed_files);
    if (after.c.diags.count != fixed->diags.count)
        fail("a fresh check of the fixed files differs from fix's last check", "count");
    bool again_unfinished;
    Compiler *again = fix(&after, &again_unfinished);
    if (again != &after.c) {
        if (!unfinished)
            fail("a second fix changes something", "it applied a fix");
        rounds_free_check(again);
    }
    if (before.c.diags.errors == 0)
        same_clean_workflows(&before, &after);
    rounds_free_check(fixed);
    run_free(&after);
    run_free(&before);
    return 0;
}
