/* `orbitc check --add-suppressions[=CODE,...]` (docs/cli.md, "Adding suppressions"):
 * a line `// orbit:allow(CODE, ...)` before the member that holds each warning, the
 * innermost one that starts its line, indented as that line, which is where `orbitc fmt`
 * keeps such a comment (docs/style.md). The comment silences the warning
 * (compiler/check/suppress.h), so a second run finds nothing to add. Errors, and the
 * warnings about suppression comments themselves (W0008, W0009), are never suppressed.
 * The edits are applied with the fixer's machinery (diagnostics/fix.h) and the files
 * written as `orbitc fix` writes them (fix_command.h): all or none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "columns.h"
#include "fix.h"
#include "fix_command.h"
#include "memory.h"
#include "textbuf.h"

/* One comment to insert: at `at` (a line start) of `file`, for these codes. */
typedef struct Insertion {
    uint32_t file;
    uint32_t at;
    uint32_t indent;                /* bytes of blanks that start the member's line */
    bool codes[DIAG_CODE_COUNT];
} Insertion;

static bool suppressible(DiagCode code)
{
    return diag_info(code)->severity == SEV_WARNING && code != W0008 && code != W0009;
}

/* The codes of `--add-suppressions=W0006,W0002` into wanted[]; all suppressible ones
 * without a list. An empty list (`--add-suppressions=`, a variable that expanded to
 * nothing) or an empty code in it (`W0006,`) is a mistake, not a request to suppress
 * nothing. */
static int read_codes(const char *list, bool *wanted)
{
    for (int code = 0; code < DIAG_CODE_COUNT; code++)
        wanted[code] = !list && suppressible((DiagCode)code);
    if (!list)
        return EXIT_OK;
    if (!*list)
        return cli_usage_error("%s: no code is given (`--add-suppressions` alone suppresses "
                               "every warning)", "--add-suppressions=");
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return cli_usage_error("--add-suppressions: an empty code in the list `%s`", list);
        int code = diag_code_from_text(p, len);
        if (code < 0 || !suppressible((DiagCode)code)) {
            char *word = xstrndup(p, len);
            int status = cli_usage_error("--add-suppressions: `%s` is not a warning code "
                                         "that a comment may suppress", word);
            free(word);
            return status;
        }
        wanted[code] = true;
        if (!p[len])
            return EXIT_OK;
        p += len + 1;
    }
}

int cli_add_suppressions_usage(const CliOptions *opt)
{
    bool wanted[DIAG_CODE_COUNT];
    int status = read_codes(opt->suppress_codes, wanted);
    if (status == EXIT_OK && (opt->baseline || opt->write_baseline))
        status = cli_usage_error("%s cannot be combined with a baseline", "--add-suppressions");
    return status;
}

/* Whether only blanks come before byte `at` on its line. */
static bool starts_its_line(const char *text, uint32_t len, uint32_t at)
{
    uint32_t begin = source_line_begin(text, len, at);
    for (uint32_t i = begin; i < at; i++)
        if (text[i] != ' ' && text[i] != '\t')
            return false;
    return true;
}

/* The innermost member holding `pos` (a file offset made a position) that starts its
 * line, down the blocks that hold it; NULL when none does. */
static const Member *target_in(const Block *block, uint32_t pos, const SourceFile *f,
                               const Member *found, int depth)
{
    for (const Member *m = block_first(block), *end = block_end(block); m != end; m++) {
        if (m->span.start > pos || pos >= m->span.end)
            continue;
        if (starts_its_line(f->text, f->len, m->span.start - f->origin))
            found = m;
        if (depth < AST_MAX_DEPTH)
            found = target_in(member_body(m), pos, f, found, depth + 1);
        return found;
    }
    return found;
}

static const Member *target_of(const Compiler *c, uint32_t file, uint32_t pos)
{
    const SourceAst *ast = file < c->ast_count ? c->asts[file] : NULL;
    const SourceFile *f = source_file(&c->sources, file);
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (m->span.start <= pos && pos < m->span.end) {
            const Member *found = starts_its_line(f->text, f->len, m->span.start - f->origin)
                ? m : NULL;
            return target_in(member_body(m), pos, f, found, 1);
        }
    }
    return NULL;
}

static bool is_config(const Workspace *w, uint32_t file)
{
    for (uint32_t r = 0; r < w->roots.count; r++)
        if (w->roots.items[r].config_path && w->roots.items[r].config_file == file)
            return true;
    return false;
}

static int compare_insertions(const void *pa, const void *pb)
{
    const Insertion *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* The insertions for the wanted warnings of the sink, sorted, one per place; *skipped
 * counts the warnings that no member starting a line holds. */
static Insertion *plan(const CliRun *run, const bool *wanted, uint32_t *count,
                       uint32_t *skipped)
{
    const Compiler *c = &run->c;
    Insertion *list = xcalloc(c->diags.count + 1, sizeof *list);
    uint32_t n = 0;
    *skipped = 0;
    for (uint32_t i = 0; i < c->diags.count; i++) {
        const Diagnostic *d = c->diags.items[i];
        FileSpan at;
        if (!wanted[d->code] || !diag_locate(&c->sources, d->span, &at) || at.file == 0
            || is_config(&run->w, at.file))
            continue;
        const Member *m = target_of(c, at.file, d->span.start);
        if (!m) {
            (*skipped)++;
            continue;
        }
        const SourceFile *f = source_file(&c->sources, at.file);
        uint32_t start = m->span.start - f->origin;
        Insertion *k = &list[n++];
        k->file = at.file;
        k->at = source_line_begin(f->text, f->len, start);
        k->indent = start - k->at;
        k->codes[d->code] = true;
    }
    qsort(list, n, sizeof *list, compare_insertions);
    uint32_t merged = 0;
    for (uint32_t i = 0; i < n; i++) {
        Insertion *last = merged ? &list[merged - 1] : NULL;
        if (last && last->file == list[i].file && last->at == list[i].at) {
            for (int code = 0; code < DIAG_CODE_COUNT; code++)
                last->codes[code] |= list[i].codes[code];
        } else {
            list[merged++] = list[i];
        }
    }
    *count = merged;
    return list;
}

/* The line of an insertion, with the file's own line end (its first one's: the style
 * `orbitc fmt` keeps). Allocated in the compiler's arena. */
static const char *comment_line(Compiler *c, const Insertion *k)
{
    const SourceFile *f = source_file(&c->sources, k->file);
    const char *eol = source_find_eol(f->text, f->text + f->len);
    uint32_t eol_len = eol < f->text + f->len ? source_eol_len(eol, f->text + f->len) : 1;
    TextBuffer line = { 0 };
    text_append(&line, f->text + k->at, k->indent);
    text_append_str(&line, "// orbit:allow(");
    const char *sep = "";
    for (int code = 0; code < DIAG_CODE_COUNT; code++) {
        if (k->codes[code]) {
            text_printf(&line, "%s%s", sep, diag_info((DiagCode)code)->code);
            sep = ", ";
        }
    }
    text_append_str(&line, ")");
    text_append(&line, eol_len ? eol : "\n", eol_len ? eol_len : 1);
    char *copy = arena_alloc(&c->arena, line.len + 1);
    memcpy(copy, line.data, line.len + 1);
    text_free(&line);
    return copy;
}

/* Applies the insertions to the files of `fix` (index file - 1) and counts them. */
static void apply(Compiler *c, FixRun *fix, const Insertion *list, uint32_t count)
{
    FixEdit *edits = xcalloc(count + 1, sizeof *edits);
    for (uint32_t i = 0; i < count; i++)
        edits[i] = (FixEdit){ list[i].file, list[i].at, list[i].at, comment_line(c, &list[i]),
                              W0008, "a suppression" };
    for (uint32_t i = 0; i < count;) {
        uint32_t file = list[i].file, next = i;
        FixFile *f = &fix->files[file - 1];
        while (next < count && list[next].file == file) {
            for (int code = 0; code < DIAG_CODE_COUNT; code++)
                f->by_code[code] += list[next].codes[code];
            next++;
        }
        uint32_t len;
        char *text = fix_apply(&c->sources, file, edits + i, next - i, &len);
        free(f->text);
        f->text = text;
        f->len = len;
        i = next;
    }
    free(edits);
}

/* "orbitc: suppressed in checkout.orbit: 3 comments (W0002: 1, W0006: 2)" */
static void report(const FixRun *fix, const bool *written, uint32_t skipped)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < fix->count; i++) {
        const FixFile *f = &fix->files[i];
        if (!rounds_file_changed(f))
            continue;
        fprintf(stderr, "orbitc: %s %s:", written[i] ? "suppressed in" : "would suppress in",
                f->path);
        const char *sep = " ";
        for (int code = 0; code < DIAG_CODE_COUNT; code++) {
            if (f->by_code[code]) {
                fprintf(stderr, "%s%s (%u)", sep, diag_info((DiagCode)code)->code,
                        f->by_code[code]);
                sep = ", ";
            }
            total += f->by_code[code];
        }
        fprintf(stderr, "\n");
    }
    if (total == 0)
        fprintf(stderr, "orbitc: no warning to suppress\n");
    if (skipped)
        fprintf(stderr, "orbitc: %u %s not held by a declaration or member that starts a "
                        "line: not suppressed\n", skipped, skipped == 1 ? "warning is" : "warnings are");
}

int cli_add_suppressions(const CliOptions *opt, CliRun *run)
{
    bool wanted[DIAG_CODE_COUNT];
    int status = cli_add_suppressions_usage(opt);
    if (status != EXIT_OK)
        return status;
    read_codes(opt->suppress_codes, wanted);
    for (size_t i = 0; i < run->w.inputs.count; i++)
        if (run->w.inputs.items[i].from_stdin)
            return cli_usage_error("%s rewrites files: standard input cannot be one",
                                   "--add-suppressions");
    if (run->w.failures > 0) {
        cli_report_unread(run, "no file was changed");
        return EXIT_USAGE;
    }
    uint32_t count, skipped;
    Insertion *list = plan(run, wanted, &count, &skipped);
    FixRun fix;
    rounds_init(&fix, &run->w, NULL, 1);
    apply(&run->c, &fix, list, count);
    free(list);
    bool *written = xcalloc(fix.count + 1, sizeof *written);
    FixCommand options = { .max_rounds = 1 };
    status = cli_fix_write_files(&fix, &options, written);
    report(&fix, written, skipped);
    if (status == EXIT_OK && run->c.diags.errors > 0) {
        fprintf(stderr, "orbitc: %u %s remain%s: errors cannot be suppressed (`orbitc check` "
                        "shows them)\n", run->c.diags.errors,
                run->c.diags.errors == 1 ? "error" : "errors", run->c.diags.errors == 1 ? "s" : "");
        status = EXIT_ERRORS;
    }
    free(written);
    rounds_free(&fix);
    return status;
}
