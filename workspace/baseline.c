/* The baseline (baseline.h): the findings of a check keyed without positions, matched
 * against a file of them, and that file read and written with jansson. */
#define _GNU_SOURCE   /* realpath */
#include "baseline.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "columns.h"
#include "hash.h"
#include "json_text.h"
#include "memory.h"
#include "replace_file.h"
#include "textbuf.h"

/* One warning of the check, keyed (baseline.h). */
typedef struct Finding {
    const char *program;     /* per file, in FileKeys */
    const char *file;
    char *scope;
    DiagCode code;
    char fingerprint[17];
    uint32_t diag;           /* its index in the sink */
} Finding;

typedef struct Findings {
    Finding *items;
    uint32_t count;
    char **programs, **files;   /* per source file, computed once */
    uint32_t file_count;
} Findings;

/* --- paths relative to the baseline's directory --- */

/* The directory part of `path` ("." when it has none). malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

/* `path` resolved: itself when it exists, else its directory resolved and its last
 * component; NULL when neither can be. malloc'd. */
static char *resolve(const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real))
        return xstrdup(real);
    char *dir = dir_of(path);
    bool ok = realpath(dir, real) != NULL;
    free(dir);
    if (!ok)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    TextBuffer out = { 0 };
    text_printf(&out, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", name);
    return out.data;
}

/* `path` relative to `dir` (a real directory) when below it ("." for `dir` itself), else
 * the path resolved, else as given. malloc'd. */
static char *relative_to(const char *dir, const char *path)
{
    char *real = resolve(path);
    if (!real)
        return xstrdup(path);
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        n = 0;
    char *result;
    if (strcmp(real, dir) == 0)
        result = xstrdup(".");
    else if (strncmp(real, dir, n) == 0 && real[n] == '/')
        result = xstrdup(real + n + 1);
    else
        result = xstrdup(real);
    free(real);
    return result;
}

/* --- keys --- */

/* Appends `keyword name` for a declaration or step. */
static void add_scope(TextBuffer *scope, const Member *m)
{
    if (scope->len)
        text_append_str(scope, " > ");
    text_printf(scope, "%s %s", keyword_text(m->keyword), m->name ? m->name->text : "");
}

static bool names_a_scope(const Member *m)
{
    return m->kind == MEMBER_CLAUSE && m->name
        && (m->keyword == KW_WORKFLOW || m->keyword == KW_WORKER || m->keyword == KW_TYPE
            || m->keyword == KW_STEP);
}

static bool member_holds(const Member *m, uint32_t pos)
{
    return m->span.start <= pos && pos < m->span.end;
}

/* The named members holding `pos`, found down the blocks that hold it. */
static void scope_in(TextBuffer *scope, const Block *block, uint32_t pos, int depth)
{
    for (const Member *m = block_first(block), *end = block_end(block); m != end; m++) {
        if (!member_holds(m, pos))
            continue;
        if (names_a_scope(m))
            add_scope(scope, m);
        if (depth < AST_MAX_DEPTH)
            scope_in(scope, member_body(m), pos, depth + 1);
        return;
    }
}

static char *scope_of(const Compiler *c, uint32_t file, uint32_t pos, const char *path)
{
    TextBuffer scope = { 0 };
    const SourceAst *ast = file < c->ast_count ? c->asts[file] : NULL;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (member_holds(m, pos)) {
            if (names_a_scope(m))
                add_scope(&scope, m);
            scope_in(&scope, member_body(m), pos, 1);
            break;
        }
    }
    if (!scope.len)
        text_printf(&scope, "file %s", path);
    return scope.data;
}

/* The text of [start, end) without white space, `,` and `;`: the same before and after
 * `orbitc fmt` (docs/style.md: it changes only the space between tokens and the
 * separators). Hashed with FNV-1a into 16 hexadecimal digits. */
static void fingerprint_of(const char *text, uint32_t start, uint32_t end, char out[17])
{
    uint64_t hash = HASH_FNV1A_START;
    const char *p = text + start, *stop = text + end;
    for (; p < stop; p++) {
        char ch = *p;
        if (!source_is_space(ch) && ch != ',' && ch != ';')
            hash = hash_fnv1a(hash, p, 1);
    }
    snprintf(out, 17, "%016llx", (unsigned long long)hash);
}

bool baseline_holds(const Diagnostic *d)
{
    return d->severity == SEV_WARNING;   /* as reported: a denied code is SEV_ERROR */
}

/* The keys of every warning of `w`'s sink. */
static void findings_of(Findings *f, const Workspace *w, const char *dir)
{
    const Compiler *c = w->c;
    const DiagSink *sink = &c->diags;
    *f = (Findings){ .file_count = c->sources.count };
    f->items = xcalloc(sink->count + 1, sizeof *f->items);
    f->programs = xcalloc(f->file_count + 1, sizeof *f->programs);
    f->files = xcalloc(f->file_count + 1, sizeof *f->files);
    for (uint32_t r = 0; r < w->roots.count; r++) {
        const Root *root = &w->roots.items[r];
        for (uint32_t i = 0; i < root->file_count; i++) {
            uint32_t file = root->files[i];
            if (file < f->file_count && !f->programs[file])
                f->programs[file] = root->dir ? relative_to(dir, root->dir) : xstrdup("");
        }
    }
    for (uint32_t i = 0; i < sink->count; i++) {
        const Diagnostic *d = sink->items[i];
        FileSpan at;
        if (!baseline_holds(d) || !diag_locate(&c->sources, d->span, &at) || at.file == 0
            || at.file >= f->file_count)
            continue;
        const SourceFile *source = source_file(&c->sources, at.file);
        if (!f->files[at.file])
            f->files[at.file] = relative_to(dir, source->path);
        if (!f->programs[at.file])
            f->programs[at.file] = xstrdup("");
        Finding *k = &f->items[f->count++];
        k->program = f->programs[at.file];
        k->file = f->files[at.file];
        k->scope = scope_of(c, at.file, d->span.start, k->file);
        k->code = d->code;
        fingerprint_of(source->text, at.start, at.end, k->fingerprint);
        k->diag = i;
    }
}

static void findings_free(Findings *f)
{
    for (uint32_t i = 0; i < f->count; i++)
        free(f->items[i].scope);
    for (uint32_t i = 0; i < f->file_count; i++) {
        free(f->programs[i]);
        free(f->files[i]);
    }
    free(f->items);
    free(f->programs);
    free(f->files);
}

/* The key without the file: program, code, scope, fingerprint. */
static int compare_key(const char *program_a, DiagCode code_a, const char *scope_a,
                       const char *print_a, const char *program_b, DiagCode code_b,
                       const char *scope_b, const char *print_b)
{
    int order = strcmp(program_a, program_b);
    if (order == 0 && code_a != code_b)
        order = code_a < code_b ? -1 : 1;
    if (order == 0)
        order = strcmp(scope_a, scope_b);
    if (order == 0)
        order = strcmp(print_a, print_b);
    return order;
}

static int finding_vs_entry(const Finding *a, const BaselineEntry *e)
{
    return compare_key(a->program, a->code, a->scope, a->fingerprint, e->program, e->code,
                       e->scope, e->fingerprint);
}

/* By key, then file, then report order. */
static int compare_findings(const void *pa, const void *pb)
{
    const Finding *a = pa, *b = pb;
    int order = compare_key(a->program, a->code, a->scope, a->fingerprint, b->program,
                            b->code, b->scope, b->fingerprint);
    if (order == 0)
        order = strcmp(a->file, b->file);
    if (order == 0 && a->diag != b->diag)
        order = a->diag < b->diag ? -1 : 1;
    return order;
}

/* By key, then file. */
static int compare_entries(const void *pa, const void *pb)
{
    const BaselineEntry *a = pa, *b = pb;
    int order = compare_key(a->program, a->code, a->scope, a->fingerprint, b->program,
                            b->code, b->scope, b->fingerprint);
    return order ? order : strcmp(a->file, b->file);
}

/* As the file lists them, for reading: program, file, scope, code, fingerprint. */
static int compare_written(const void *pa, const void *pb)
{
    const BaselineEntry *a = pa, *b = pb;
    int order = strcmp(a->program, b->program);
    if (order == 0)
        order = strcmp(a->file, b->file);
    if (order == 0)
        order = strcmp(a->scope, b->scope);
    if (order == 0 && a->code != b->code)
        order = a->code < b->code ? -1 : 1;
    if (order == 0)
        order = strcmp(a->fingerprint, b->fingerprint);
    return order;
}

/* --- matching --- */

/* One key: findings [fs, fe), entries [es, ee), both ordered by file. */
static void match_key(const Finding *findings, uint32_t fs, uint32_t fe, BaselineEntry *entries,
                      uint32_t es, uint32_t ee, uint8_t *marks, uint32_t *known)
{
    uint64_t total = 0;   /* counts of up to 10^9 each: no overflow */
    for (uint32_t e = es; e < ee; e++) {
        total += entries[e].count;
        entries[e].stale = entries[e].count;
    }
    uint32_t found = fe - fs;
    BaselineMark mark = found <= total ? BASELINE_KNOWN : total ? BASELINE_OVER : BASELINE_NEW;
    for (uint32_t i = fs; i < fe; i++)
        marks[findings[i].diag] = (uint8_t)mark;
    if (mark == BASELINE_KNOWN)
        *known += found;
    if (mark == BASELINE_OVER) {
        for (uint32_t e = es; e < ee; e++)
            entries[e].stale = 0;
        return;
    }
    /* the findings of each file use up its entries first, then the others in order */
    uint32_t left = 0;
    for (uint32_t i = fs, e = es; i < fe;) {
        uint32_t next = i;
        while (next < fe && strcmp(findings[next].file, findings[i].file) == 0)
            next++;
        while (e < ee && strcmp(entries[e].file, findings[i].file) < 0)
            e++;
        uint32_t n = next - i;
        for (; e < ee && n > 0 && strcmp(entries[e].file, findings[i].file) == 0; e++) {
            uint32_t take = n < entries[e].stale ? n : entries[e].stale;
            entries[e].stale -= take;
            n -= take;
        }
        left += n;
        i = next;
    }
    for (uint32_t e = es; e < ee && left > 0; e++) {
        uint32_t take = left < entries[e].stale ? left : entries[e].stale;
        entries[e].stale -= take;
        left -= take;
    }
}

uint32_t baseline_match(Baseline *b, const Workspace *w, uint8_t *marks)
{
    const DiagSink *sink = &w->c->diags;
    memset(marks, BASELINE_NOT_A_FINDING, sink->count);
    Findings f;
    findings_of(&f, w, b->dir);
    qsort(f.items, f.count, sizeof *f.items, compare_findings);
    if (b->count)   /* an empty baseline has no items: qsort may not take NULL */
        qsort(b->items, b->count, sizeof *b->items, compare_entries);
    for (uint32_t e = 0; e < b->count; e++)
        b->items[e].stale = b->items[e].count;
    uint32_t known = 0, i = 0, e = 0;
    while (i < f.count) {
        uint32_t fe = i + 1;
        while (fe < f.count && compare_key(f.items[i].program, f.items[i].code,
                                           f.items[i].scope, f.items[i].fingerprint,
                                           f.items[fe].program, f.items[fe].code,
                                           f.items[fe].scope, f.items[fe].fingerprint) == 0)
            fe++;
        while (e < b->count && finding_vs_entry(&f.items[i], &b->items[e]) > 0)
            e++;
        uint32_t ee = e;
        while (ee < b->count && finding_vs_entry(&f.items[i], &b->items[ee]) == 0)
            ee++;
        match_key(f.items, i, fe, b->items, e, ee, marks, &known);
        i = fe;
        e = ee;
    }
    findings_free(&f);
    return known;
}

/* --- entries --- */

static BaselineEntry *add_entry(Baseline *b)
{
    if (b->count == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->items = xrealloc(b->items, b->cap * sizeof *b->items);
    }
    BaselineEntry *e = &b->items[b->count++];
    memset(e, 0, sizeof *e);
    return e;
}

static void entry_free(BaselineEntry *e)
{
    free(e->program);
    free(e->file);
    free(e->scope);
    free(e->fingerprint);
    free(e->message);
}

/* Whether finding `i` (of a run sorted by key and file) goes into the file: every
 * warning without marks; else the known ones, and of an over-full key the first ones,
 * as many as `before` counted for the key. */
static bool keeps(const Findings *f, uint32_t i, const uint8_t *marks, uint64_t *over_left,
                  const Baseline *before)
{
    const Finding *k = &f->items[i];
    if (!marks)
        return true;
    if (marks[k->diag] == BASELINE_KNOWN)
        return true;
    if (marks[k->diag] != BASELINE_OVER)
        return false;
    bool first = i == 0 || compare_key(f->items[i - 1].program, f->items[i - 1].code,
                                       f->items[i - 1].scope, f->items[i - 1].fingerprint,
                                       k->program, k->code, k->scope, k->fingerprint) != 0;
    if (first) {   /* before->items are sorted by key (baseline_match) */
        *over_left = 0;
        uint32_t lo = 0, hi = before ? before->count : 0;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (finding_vs_entry(k, &before->items[mid]) > 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t e = lo; before && e < before->count
                              && finding_vs_entry(k, &before->items[e]) == 0; e++)
            *over_left += before->items[e].count;
    }
    if (*over_left == 0)
        return false;
    (*over_left)--;
    return true;
}

void baseline_collect(Baseline *out, const Workspace *w, const uint8_t *marks,
                      const Baseline *before)
{
    Findings f;
    findings_of(&f, w, out->dir);
    qsort(f.items, f.count, sizeof *f.items, compare_findings);
    BaselineEntry *last = NULL;
    uint64_t over_left = 0;
    for (uint32_t i = 0; i < f.count; i++) {
        const Finding *k = &f.items[i];
        if (!keeps(&f, i, marks, &over_left, before))
            continue;
        if (last && finding_vs_entry(k, last) == 0 && strcmp(last->file, k->file) == 0) {
            last->count++;
            continue;
        }
        last = add_entry(out);
        last->program = xstrdup(k->program);
        last->file = xstrdup(k->file);
        last->scope = xstrdup(k->scope);
        last->code = k->code;
        last->fingerprint = xstrdup(k->fingerprint);
        last->count = 1;
        last->message = xstrdup(w->c->diags.items[k->diag]->message);
    }
    findings_free(&f);
}

void baseline_drop(DiagSink *sink, const uint8_t *marks)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < sink->count; i++)
        if (marks[i] != BASELINE_KNOWN)
            sink->items[kept++] = sink->items[i];
    sink->count = kept;
    diag_finish(sink);
}

uint32_t baseline_total(const Baseline *b, bool stale)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < b->count; i++)
        total += stale ? b->items[i].stale : b->items[i].count;
    return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

/* --- the file --- */

bool baseline_init(Baseline *b, const char *path, char **error)
{
    memset(b, 0, sizeof *b);
    char *dir = dir_of(path);
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        TextBuffer problem = { 0 };
        text_printf(&problem, "cannot use the baseline `%s`: %s", path, strerror(errno));
        *error = problem.data;
        free(dir);
        return false;
    }
    free(dir);
    b->dir = xstrdup(real);
    return true;
}

void baseline_free(Baseline *b)
{
    for (uint32_t i = 0; i < b->count; i++)
        entry_free(&b->items[i]);
    free(b->items);
    free(b->dir);
    memset(b, 0, sizeof *b);
}

static const char *string_member(json_t *entry, const char *key)
{
    json_t *v = json_object_get(entry, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* One entry of the file, or false with *why. */
static bool read_entry(Baseline *b, json_t *entry, const char **why)
{
    static const char *const keys[] = { "program", "file", "scope", "code", "fingerprint",
                                        "count", "message" };
    const char *text[5];
    if (!json_is_object(entry)) {
        *why = "is not an object";
        return false;
    }
    for (int k = 0; k < 5; k++) {
        if (!(text[k] = string_member(entry, keys[k]))) {
            *why = "lacks a string `program`, `file`, `scope`, `code` or `fingerprint`";
            return false;
        }
    }
    int code = diag_code_from_string(text[3]);
    if (code < 0 || diag_info((DiagCode)code)->severity != SEV_WARNING) {
        *why = "has a `code` that is not a warning code";
        return false;
    }
    json_t *count = json_object_get(entry, "count");
    if (!json_is_integer(count) || json_integer_value(count) < 1
        || json_integer_value(count) > 1000000000) {
        *why = "has no `count` from 1 to 10^9";
        return false;
    }
    const char *key;
    json_t *value;
    json_object_foreach(entry, key, value) {
        bool known = false;
        for (int k = 0; k < 7; k++)
            known |= strcmp(key, keys[k]) == 0;
        if (!known) {
            *why = "has a member this version of orbitc does not know";
            return false;
        }
    }
    BaselineEntry *e = add_entry(b);
    e->program = xstrdup(text[0]);
    e->file = xstrdup(text[1]);
    e->scope = xstrdup(text[2]);
    e->code = (DiagCode)code;
    e->fingerprint = xstrdup(text[4]);
    e->count = (uint32_t)json_integer_value(count);
    const char *message = string_member(entry, "message");
    e->message = xstrdup(message ? message : "");
    return true;
}

bool baseline_file_read(BaselineFile *f, const char *path, const char *verb, bool *missing,
                        char **error)
{
    memset(f, 0, sizeof *f);
    *missing = false;
    ReplaceWhy why;
    int fd = replace_file_open(path, &f->as_read, &why);
    const char *problem = NULL;
    TextBuffer message = { 0 };
    if (fd < 0) {
        *missing = !why.refused && access(path, F_OK) != 0 && errno == ENOENT;
        if (why.refused)   /* its kind: not what fmt says of a source it would rewrite */
            text_printf(&message, "cannot %s the baseline `%s`: it is %s, not a regular file",
                        verb, path, replace_file_kind(f->as_read.st_mode));
        else
            text_printf(&message, "cannot read the baseline `%s`: %s", path, why.text);
        *error = message.data;
        return false;
    }
    f->text = workspace_read_fd(fd, (size_t)f->as_read.st_size, SOURCE_MAX_FILE_SIZE, &f->len,
                                &problem);
    close(fd);
    if (!f->text)
        text_printf(&message, "cannot read the baseline `%s`: %s", path, problem);
    else if (f->len > SOURCE_MAX_FILE_SIZE)
        text_printf(&message, "cannot read the baseline `%s`: it is larger than %u MiB", path,
                    (unsigned)(SOURCE_MAX_FILE_SIZE >> 20));
    else
        return true;
    *error = message.data;
    baseline_file_free(f);
    return false;
}

void baseline_file_free(BaselineFile *f)
{
    free(f->text);
    f->text = NULL;
    f->len = 0;
}

bool baseline_parse(Baseline *b, const char *path, const char *text, size_t len, char **error)
{
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        TextBuffer problem = { 0 };
        text_printf(&problem, "the baseline `%s` is not JSON: %s (line %d)", path, err.text,
                    err.line);
        *error = problem.data;
        return false;
    }
    json_t *version = json_object_get(root, "version");
    json_t *entries = json_object_get(root, "entries");
    bool ok = json_is_object(root) && json_is_integer(version)
        && json_integer_value(version) == BASELINE_VERSION && json_is_array(entries);
    if (!ok) {
        TextBuffer problem = { 0 };
        text_printf(&problem, "the baseline `%s` is not a baseline of this version of orbitc "
                              "(docs/baseline.schema.json)", path);
        *error = problem.data;
    }
    size_t i;
    json_t *entry;
    json_array_foreach(entries, i, entry) {
        const char *why;
        if (ok && !read_entry(b, entry, &why)) {
            TextBuffer problem = { 0 };
            text_printf(&problem, "the baseline `%s`: entry %zu %s", path, i + 1, why);
            *error = problem.data;
            ok = false;
        }
    }
    json_decref(root);
    return ok;
}

bool baseline_read(Baseline *b, const char *path, bool *missing, char **error)
{
    *missing = false;
    if (!baseline_init(b, path, error))
        return false;
    BaselineFile file;
    if (!baseline_file_read(&file, path, "read", missing, error))
        return false;
    bool ok = baseline_parse(b, path, file.text, file.len, error);
    baseline_file_free(&file);
    return ok;
}

char *baseline_text(const Baseline *b, size_t *len)
{
    BaselineEntry *sorted = xmalloc((b->count + 1) * sizeof *sorted);
    if (b->count)
        memcpy(sorted, b->items, b->count * sizeof *sorted);
    qsort(sorted, b->count, sizeof *sorted, compare_written);
    json_t *entries = json_array();
    for (uint32_t i = 0; i < b->count; i++) {
        const BaselineEntry *e = &sorted[i];
        json_array_append_new(entries, json_pack(
            "{s:o, s:o, s:o, s:s, s:s, s:I, s:o}", "program", diag_json_text0(e->program),
            "file", diag_json_text0(e->file), "scope", diag_json_text0(e->scope),
            "code", diag_info(e->code)->code, "fingerprint",
            e->fingerprint, "count", (json_int_t)e->count, "message",
            diag_json_text0(e->message)));
    }
    free(sorted);
    json_t *root = json_pack("{s:i, s:o}", "version", BASELINE_VERSION, "entries", entries);
    char *dumped = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    TextBuffer out = { 0 };
    text_printf(&out, "%s\n", dumped ? dumped : "");
    free(dumped);
    *len = out.len;
    return out.data;
}
