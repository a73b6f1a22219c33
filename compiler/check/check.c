/* The semantic checker's entry point and the helpers its passes share:
 * did-you-mean with the peer-system aliases, dotted names, durations for messages.
 *
 * Passes, in order: declarations (check_decls.c), workflow signatures and bodies
 * (check_steps.c, which calls check_policy.c, check_types.c and check_lints.c), the
 * tests (check_tests.c). */
#include "check_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "orbc_value.h"   /* ORBC_DURATION_TEXT_SIZE */
#include "suggest.h"
#include "suppress.h"

/* ---- Small helpers ---------------------------------------------------------------- */

const Name *check_intern_name(Checker *ck, const char *text)
{
    return intern_cstr(ck->names, text);
}

/* Names that users bring from peer systems, mapped to Orbit's (docs/diagnostics.md,
 * "Did-you-mean"). */
static const char *const PEER_ALIASES[][2] = {
    { "retries", "retry" },
    { "retry_policy", "retry" },
    { "retryPolicy", "retry" },
    { "maxAttempts", "attempts" },
    { "max_attempts", "attempts" },
    { "initialDelayMs", "initial_delay" },
    { "initial_interval", "initial_delay" },
    { "maxDelayMs", "max_delay" },
    { "maximum_interval", "max_delay" },
    { "timeoutMs", "timeout" },
};

const char *check_peer_alias(const char *word)
{
    for (size_t i = 0; i < sizeof PEER_ALIASES / sizeof PEER_ALIASES[0]; i++)
        if (strcmp(PEER_ALIASES[i][0], word) == 0)
            return PEER_ALIASES[i][1];
    return NULL;
}

const char *check_suggest(Checker *ck, const char *word, const char *const *candidates,
                    uint32_t count)
{
    (void)ck;
    const char *alias = check_peer_alias(word);
    if (alias)
        for (uint32_t i = 0; i < count; i++)
            if (strcmp(candidates[i], alias) == 0)
                return alias;
    return suggest_name(word, strlen(word), candidates, count);
}

const char *check_suggest_indexed(Checker *ck, const char *word, const SuggestIndex *index)
{
    (void)ck;
    const char *alias = check_peer_alias(word);
    if (alias && suggest_index_exact(index, alias, strlen(alias)))
        return alias;
    return suggest_index_find(index, word, strlen(word));
}

void check_add_suggestion(Checker *ck, Diagnostic *d, Span span, const char *replacement)
{
    diag_add_fix(ck->diags, d, span, replacement, FIX_MACHINE_APPLICABLE,
                 "did you mean `%s`?", replacement);
}

void check_add_name_suggestion(Checker *ck, Diagnostic *d, Span span, const char *replacement)
{
    if (!ck->partly_read) {
        check_add_suggestion(ck, d, span, replacement);
        return;
    }
    diag_add_fix(ck->diags, d, span, replacement, FIX_MAYBE_INCORRECT,
                 "did you mean `%s`?", replacement);
    diag_add_note(ck->diags, d, "`%s` was not read to its end: the name may be declared "
                                "in the part not read, so `orbitc fix` does not apply "
                                "this suggestion",
                  source_file(&ck->c->sources, ck->partly_read)->path);
}

/* The first file of the program (c->asts, the files being checked) whose parse stopped
 * early, else 0. */
static uint32_t first_partly_read(const Compiler *c)
{
    for (uint32_t i = 1; i < c->ast_count; i++)
        if (c->asts[i] && c->asts[i]->fatal)
            return c->asts[i]->file;
    return 0;
}

static bool append_dotted(char *buf, size_t cap, size_t *len, const Expr *e)
{
    if (e->kind == EXPR_NAME) {
        size_t n = e->name->len;
        if (*len + n + 1 > cap)
            return false;
        memcpy(buf + *len, e->name->text, n);
        *len += n;
        return true;
    }
    if (e->kind != EXPR_FIELD || !e->left || !e->field)
        return false;
    if (!append_dotted(buf, cap, len, e->left))
        return false;
    size_t n = e->field->len;
    if (*len + n + 2 > cap)
        return false;
    buf[(*len)++] = '.';
    memcpy(buf + *len, e->field->text, n);
    *len += n;
    return true;
}

/* The names of a dotted name of at most DOTTED_CACHE_PARTS parts, last first; false for
 * another shape. */
static bool dotted_parts(const Expr *e, const Name **parts, uint32_t *count)
{
    uint32_t n = 0;
    for (; e && e->kind == EXPR_FIELD && e->left && e->field; e = e->left) {
        if (n == DOTTED_CACHE_PARTS - 1)
            return false;
        parts[n++] = e->field;
    }
    if (!e || e->kind != EXPR_NAME)
        return false;
    parts[n++] = e->name;
    *count = n;
    return true;
}

/* The last dotted name made is kept by its parts: a program names the same built-in
 * task (`using orbit.http.request`) again and again. */
const Name *check_dotted_name(Checker *ck, const Expr *e)
{
    const Name *parts[DOTTED_CACHE_PARTS];
    uint32_t n = 0;
    bool cacheable = dotted_parts(e, parts, &n);
    if (cacheable && ck->dotted_count == n &&
        memcmp(parts, ck->dotted_parts, n * sizeof *parts) == 0)
        return ck->dotted;
    char buf[512];
    size_t len = 0;
    if (!e || !append_dotted(buf, sizeof buf, &len, e))
        return NULL;
    const Name *name = intern(ck->names, buf, len);
    if (cacheable) {
        memcpy(ck->dotted_parts, parts, n * sizeof *parts);
        ck->dotted_count = n;
        ck->dotted = name;
    }
    return name;
}

const char *check_what_text(Checker *ck, const What *w)
{
    switch (w->kind) {
    case WHAT_FIXED: return w->text;
    case WHAT_WORKER: return arena_printf(ck->arena, "worker `%s`", w->text);
    case WHAT_BUILTIN: return arena_printf(ck->arena, "`%s`", w->text);
    case WHAT_WORKFLOW: return arena_printf(ck->arena, "workflow `%s`", w->text);
    case WHAT_RECORD: return arena_printf(ck->arena, "`%s`", w->text);
    case WHAT_FIELD: return arena_printf(ck->arena, "field `%s`", w->text);
    case WHAT_ARGUMENT:
        return arena_printf(ck->arena, "argument %u of `%s`", w->number, w->text);
    case WHAT_OUTPUT_OF:
        return arena_printf(ck->arena, "the output of workflow `%s`", w->text);
    case WHAT_INPUT_OF:
        return arena_printf(ck->arena, "the input of %s", check_what_text(ck, w->inner));
    case WHAT_ELEMENT_OF:
        return arena_printf(ck->arena, "an element of %s", check_what_text(ck, w->inner));
    }
    return "";
}

const char *check_duration_text(Checker *ck, int64_t ms)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    policy_duration_text(ms, text, sizeof text);
    return arena_strndup(ck->arena, text, strlen(text));
}

/* ---- The workflows, on several threads ----------------------------------------------
 *
 * A pass over the workflows (signatures, then bodies) may be spread over the threads
 * that the caller lends (CheckOptions.threads): the workflows are taken CHUNK at a time, in
 * turn, by whichever thread is free. Each thread checks with a Checker of its own, a
 * copy of the caller's after the declarations: what the declarations made (the maps, the
 * Program's declarations, the names, the shared types, made whole by types_init) it only
 * reads; it allocates in its own compiler's arena, interns through its own interner
 * (whose names are the caller's: compiler_init_view), has its own state of the passes
 * (check_internal.h, from `steps` on) and its own sink, with the caller's lint levels.
 * A workflow's pass writes only that workflow and the trees of its declaration. Then
 * the caller copies each chunk's diagnostics into its sink in the order of the
 * workflows: the same reports, in the same report order, as the pass on one thread. */

enum { CHUNK = 8 };   /* workflows taken at a time: ~20k instructions each in a body */

typedef struct Part {   /* one thread's */
    Checker ck;
    DiagSink diags;
} Part;

typedef struct Chunk {   /* the diagnostics of one chunk: [first, end) of a part's sink */
    uint32_t part, first, end;
} Chunk;

typedef struct Spread {
    const Checker *from;
    void (*pass)(Checker *ck, uint32_t workflow);
    Part *parts;          /* [threads] */
    Chunk *chunks;        /* [chunk_count] */
    uint32_t chunk_count;
    atomic_uint next;     /* the next chunk to take */
} Spread;

/* The state of the passes (check_internal.h), all zero. */
static void check_state_zero(Checker *ck)
{
    size_t from = offsetof(Checker, steps);
    memset((char *)ck + from, 0, sizeof *ck - from);
}

static void check_state_free(Checker *ck)
{
    free(ck->clauses);
    free(ck->step_decls);
    free(ck->step_buffer);
    free(ck->dep_mark);
    free(ck->dep_buffer);
    check_state_zero(ck);
}

static void part_init(Part *part, const Checker *from, Compiler *c)
{
    Checker *ck = &part->ck;
    *ck = *from;
    check_state_zero(ck);
    ck->c = c;
    ck->arena = &c->arena;
    ck->names = &c->names;
    ck->types.arena = &c->arena;
    diag_sink_init(&part->diags, &c->arena);
    memcpy(part->diags.level, from->diags->level, sizeof part->diags.level);
    ck->diags = &part->diags;
}

/* One thread's part: chunks until none is left. */
static void spread_task(void *arg, uint32_t thread, Compiler *c)
{
    Spread *spread = arg;
    Part *part = &spread->parts[thread];
    part_init(part, spread->from, c);
    uint32_t count = spread->from->program->workflow_count;
    for (uint32_t k; (k = atomic_fetch_add(&spread->next, 1)) < spread->chunk_count;) {
        Chunk *chunk = &spread->chunks[k];
        chunk->part = thread;
        chunk->first = part->diags.count;
        for (uint32_t i = k * CHUNK; i < count && i < (k + 1) * CHUNK; i++)
            spread->pass(&part->ck, i);
        chunk->end = part->diags.count;
    }
    check_state_free(&part->ck);
}

/* pass(ck, i) for each workflow i, in order, or spread over the threads. */
static void check_each_workflow(Checker *ck, void (*pass)(Checker *ck, uint32_t workflow))
{
    uint32_t count = ck->program->workflow_count;
    const Threads *threads = &ck->options->threads;
    if (threads->count < 2 || count <= CHUNK) {
        for (uint32_t i = 0; i < count; i++)
            pass(ck, i);
        return;
    }
    Spread spread = { .from = ck, .pass = pass, .chunk_count = (count + CHUNK - 1) / CHUNK };
    spread.parts = xcalloc(threads->count, sizeof *spread.parts);
    spread.chunks = xcalloc(spread.chunk_count, sizeof *spread.chunks);
    atomic_init(&spread.next, 0);
    threads->run(threads->context, spread_task, &spread);
    for (uint32_t k = 0; k < spread.chunk_count; k++) {
        const Chunk *chunk = &spread.chunks[k];
        const DiagSink *from = &spread.parts[chunk->part].diags;
        for (uint32_t d = chunk->first; d < chunk->end; d++)
            diag_copy(ck->diags, from->items[d]);
    }
    for (uint32_t i = 0; i < threads->count; i++)
        diag_sink_free(&spread.parts[i].diags);
    free(spread.parts);
    free(spread.chunks);
}

/* ---- Entry point -------------------------------------------------------------------- */

static void init_names(Checker *ck)
{
    ck->n_input = check_intern_name(ck, "input");
    ck->n_workflow = check_intern_name(ck, "workflow");
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++) {
        ck->n_keywords[kw] = check_intern_name(ck, keyword_text((Keyword)kw));
        names_put(&ck->keyword_names, ck->arena, ck->n_keywords[kw], (uint32_t)kw);
        uint32_t h = ck->n_keywords[kw]->hash & 255;
        ck->keyword_hashes[h >> 6] |= (uint64_t)1 << (h & 63);
    }
    for (int i = 0; i < RETRY_SETTING_COUNT; i++)
        ck->n_settings[i] = check_intern_name(ck, RETRY_SETTING_NAMES[i]);
    Types *t = &ck->types;
    const Type *const types[BUILTIN_TYPE_COUNT] = {   /* in BUILTIN_TYPE_NAMES order */
        t->string, t->integer, t->number, t->boolean, t->duration, t->any,
    };
    for (int i = 0; i < BUILTIN_TYPE_COUNT; i++) {
        ck->n_builtin_types[i] = check_intern_name(ck, BUILTIN_TYPE_NAMES[i]);
        ck->builtin_types[i] = types[i];
    }
    ck->n_builtin = check_intern_name(ck, "builtin");
    ck->n_error = check_intern_name(ck, "error");
    ck->n_function = check_intern_name(ck, "function");
    ck->n_test = check_intern_name(ck, "test");
    ck->n_retryable = check_intern_name(ck, "retryable");
    ck->n_yes = check_intern_name(ck, "yes");
    ck->n_no = check_intern_name(ck, "no");
    ck->n_depends = check_intern_name(ck, "depends");
    ck->n_fixed = check_intern_name(ck, "fixed");
    ck->n_exponential = check_intern_name(ck, "exponential");
}

/* Checks every parsed file (c->asts) together with the standard library (file 0), and
 * reports every problem into c->diags. Returns the checked program; lowering may use it
 * only when no errors were reported. */
static Program *check_program(Compiler *c, const CheckOptions *options)
{
    static const CheckOptions defaults;
    Checker checker;
    Checker *ck = &checker;
    memset(ck, 0, sizeof *ck);
    ck->c = c;
    ck->options = options ? options : &defaults;
    ck->diags = &c->diags;
    ck->arena = &c->arena;
    ck->names = &c->names;
    ck->program = arena_alloc(ck->arena, sizeof *ck->program);
    ck->partly_read = first_partly_read(c);
    types_init(&ck->types, ck->arena);
    init_names(ck);
    for (int kw = 0; kw < KW_COUNT; kw++) {
        for (int place = 0; place < PLACE_COUNT; place++)
            if (place_allows((Keyword)kw, (Place)place))
                ck->allowed[place] |= 1u << kw;
        if (keyword_is_member((Keyword)kw))
            ck->member_keywords |= 1u << kw;
    }

    check_declarations(ck);
    check_each_workflow(ck, check_workflow_signature);   /* every one before any body */
    check_each_workflow(ck, check_workflow_body);
    worst_resolve(ck);
    check_tests(ck);
    check_state_free(ck);
    return ck->program;
}

Program *check_files(Compiler *c, const uint32_t *files, uint32_t count,
                     const CheckOptions *options)
{
    SourceAst **all = c->asts;
    uint32_t all_count = c->ast_count;
    SourceAst **program = xmalloc((count + 1) * sizeof *program);
    program[0] = all[0];
    for (uint32_t i = 0; i < count; i++)
        program[i + 1] = all[files[i]];
    c->asts = program;   /* the checker and the suppressions see these files only */
    c->ast_count = count + 1;
    uint32_t first = c->diags.count;
    Program *checked = check_program(c, options);
    if (!options || !options->ignore_suppressions)
        suppress_apply(c, first);
    c->asts = all;
    c->ast_count = all_count;
    free(program);
    return checked;
}
