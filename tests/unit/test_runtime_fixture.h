/* Test fixture for the reference runtime: builds small modules with liborbc's builder
 * (no compiler needed), loads them back through the verifying loader, and runs them
 * against a scenario given as a JSON string, returning the history as text.
 *
 * Code blocks are written in a tiny assembler, one instruction per word, RETURN added:
 *   s:TEXT (string const, `_` stands for a space)  i:N  d:MS  b:0|1  null
 *   input  item  step:N  field:NAME  opt:NAME  index  list:N  rec:a,b,c  call:F:ARGC
 *   not neg add sub mul div mod eq ne lt le gt ge */
#ifndef TEST_RUNTIME_FIXTURE_H
#define TEST_RUNTIME_FIXTURE_H


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "sim.h"
#include "orbc.h"
#include "scenario.h"

enum { FX_MAX_STEPS = 10050 };

typedef struct Fx {
    OrbcBuilder *b;
    uint32_t file;
    OrbcStep steps[FX_MAX_STEPS];
    uint32_t nsteps;
    uint32_t codes[FX_MAX_STEPS][4];   /* storage for non_retryable lists */
    uint32_t deps[FX_MAX_STEPS][8];    /* storage for dependencies */
} Fx;

/* A fixture on the heap (it holds room for FX_MAX_STEPS steps); free it with free(). */
static inline Fx *fx_new(void)
{
    Fx *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->b = orbc_builder_new();
    f->file = orbc_add_cstring(f->b, "t.orbit");
    return f;
}

static inline uint32_t fx_str(Fx *f, const char *s)
{
    return orbc_add_cstring(f->b, s);
}

static inline uint32_t fx_simple(Fx *f, const char *name)
{
    static const struct { const char *name; OrbcTypeKind kind; } kinds[] = {
        {"any", ORBC_TYPE_ANY}, {"null", ORBC_TYPE_NULL}, {"bool", ORBC_TYPE_BOOL},
        {"int", ORBC_TYPE_INT}, {"number", ORBC_TYPE_NUMBER}, {"string", ORBC_TYPE_STRING},
        {"duration", ORBC_TYPE_DURATION},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return orbc_type_simple(f->b, kinds[i].kind);
    abort();
}

/* "order_id:string,amount:number,note?:string" (an empty spec is the empty record). */
static inline uint32_t fx_record(Fx *f, const char *spec)
{
    OrbcField fields[16];
    uint32_t n = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(part, ':');
        *colon = '\0';
        bool optional = colon > part && colon[-1] == '?';
        if (optional)
            colon[-1] = '\0';
        uint32_t type = fx_simple(f, colon + 1);
        if (optional)
            type = orbc_type_optional(f->b, type);
        fields[n++] = (OrbcField){.name = fx_str(f, part), .type = type, .optional = optional};
    }
    free(copy);
    return orbc_type_record(f->b, ORBC_NONE, n, fields);
}

static inline uint32_t fx_task(Fx *f, const char *name, bool builtin, uint32_t input,
                               uint32_t output, int64_t default_timeout_ms)
{
    OrbcTask t = {.name = fx_str(f, name), .kind = builtin ? ORBC_TASK_BUILTIN : ORBC_TASK_WORKER,
                  .input_type = input, .output_type = output,
                  .default_timeout_ms = default_timeout_ms};
    return orbc_add_task(f->b, &t);
}

static inline uint32_t fx_code(Fx *f, const char *text)
{
    orbc_code_begin(f->b, f->file);
    orbc_code_pos(f->b, 3, 7);
    char *copy = strdup(text), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        bool done = false;
        for (unsigned op = 0; op <= UINT8_MAX && !done; op++) {   /* by mnemonic, ops.def */
            const OrbcOpInfo *info = orbc_op_info((uint8_t)op);
            if (info && info->operands == ORBC_OPERANDS_NONE && info->flow == ORBC_FLOW_NEXT &&
                strcmp(w, info->name) == 0) {
                orbc_emit(f->b, (OrbcOp)op);
                done = true;
            }
        }
        if (done)
            continue;
        if (strncmp(w, "s:", 2) == 0) {
            for (char *c = w + 2; *c; c++)
                if (*c == '_')
                    *c = ' ';
            orbc_emit_u32(f->b, ORBC_OP_CONST, orbc_const_string(f->b, w + 2, strlen(w + 2)));
        } else if (strncmp(w, "i:", 2) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_CONST, orbc_const_int(f->b, atoll(w + 2)));
        } else if (strncmp(w, "d:", 2) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_CONST, orbc_const_duration(f->b, atoll(w + 2)));
        } else if (strncmp(w, "b:", 2) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_CONST, orbc_const_bool(f->b, w[2] == '1'));
        } else if (strcmp(w, "null") == 0) {
            orbc_emit_u32(f->b, ORBC_OP_CONST, orbc_const_null(f->b));
        } else if (strncmp(w, "step:", 5) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_STEP, (uint32_t)atoi(w + 5));
        } else if (strncmp(w, "field:", 6) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_FIELD, fx_str(f, w + 6));
        } else if (strncmp(w, "opt:", 4) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_FIELD_OPT, fx_str(f, w + 4));
        } else if (strncmp(w, "list:", 5) == 0) {
            orbc_emit_u32(f->b, ORBC_OP_LIST, (uint32_t)atoi(w + 5));
        } else if (strncmp(w, "call:", 5) == 0) {
            orbc_emit_call(f->b, (OrbcFunc)atoi(w + 5), (uint8_t)atoi(strchr(w + 5, ':') + 1));
        } else if (strncmp(w, "rec:", 4) == 0) {
            uint32_t names[16], n = 0;
            char *save2 = NULL;
            char *name = strtok_r(w + 4, ",", &save2);
            for (; name; name = strtok_r(NULL, ",", &save2))
                names[n++] = fx_str(f, name);
            orbc_emit_record(f->b, n, names);
        } else {
            fprintf(stderr, "fixture: unknown word %s\n", w);
            abort();
        }
    }
    free(copy);
    return orbc_code_end(f->b);
}

/* A step with no code, one attempt, no timeouts. */
static inline OrbcStep *fx_step(Fx *f, const char *name, OrbcStepKind kind, uint32_t target)
{
    OrbcStep *s = &f->steps[f->nsteps++];
    memset(s, 0, sizeof *s);
    s->name = fx_str(f, name);
    s->kind = (uint8_t)kind;
    s->line = f->nsteps + 1;
    s->column = 3;
    s->target = target;
    s->for_var = s->for_code = s->when_code = ORBC_NONE;
    s->with_code = s->key_code = s->value_code = ORBC_NONE;
    s->policy = (OrbcPolicy){.attempts = 1, .backoff = ORBC_BACKOFF_FIXED,
                             .initial_delay_ms = 1000, .max_delay_ms = 60000};
    return s;
}

static inline void fx_retry(OrbcStep *s, uint32_t attempts, OrbcBackoff backoff,
                            int64_t initial_ms, int64_t max_ms)
{
    s->policy.attempts = attempts;
    s->policy.backoff = (uint8_t)backoff;
    s->policy.initial_delay_ms = initial_ms;
    s->policy.max_delay_ms = max_ms;
}

static inline void fx_non_retryable(Fx *f, OrbcStep *s, const char *code)
{
    uint32_t i = (uint32_t)(s - f->steps);
    f->codes[i][s->policy.non_retryable_count] = fx_str(f, code);
    s->policy.non_retryable = f->codes[i];
    s->policy.non_retryable_count++;
}

static inline void fx_compensate(OrbcStep *s, uint32_t task, uint32_t with_code)
{
    s->has_compensate = true;
    s->compensate = (OrbcCompensate){
        .task = task, .line = 9, .column = 5, .with_code = with_code, .key_code = ORBC_NONE,
        .policy = {.attempts = 1, .initial_delay_ms = 1000, .max_delay_ms = 60000},
    };
}

/* Adds to `s` (step `self`) the steps that code block `code` reads, each once. */
static inline void fx_add_deps(Fx *f, OrbcStep *s, uint32_t self, uint32_t code)
{
    if (code == ORBC_NONE)
        return;
    const OrbcCode *c = &orbc_builder_module(f->b)->codes[code];
    for (uint32_t o = 0; o < c->len; o += orbc_instr_size(c->code + o, c->len - o)) {
        uint32_t read = c->code[o] == ORBC_OP_STEP ? orbc_u32(c->code + o + 1) : self;
        uint32_t at = 0;
        while (at < s->dep_count && s->deps[at] < read)
            at++;
        if (read >= self || (at < s->dep_count && s->deps[at] == read) || s->dep_count == 8)
            continue;
        memmove(s->deps + at + 1, s->deps + at, (s->dep_count - at) * sizeof *s->deps);
        s->deps[at] = read;
        s->dep_count++;
    }
}

/* The dependencies of every step: the earlier steps its code reads (the loader checks
 * that they are exactly these). */
static inline void fx_fill_deps(Fx *f)
{
    for (uint32_t i = 0; i < f->nsteps; i++) {
        OrbcStep *s = &f->steps[i];
        s->deps = f->deps[i];
        s->dep_count = 0;
        const uint32_t codes[] = { s->for_code, s->when_code, s->with_code, s->key_code,
                                   s->value_code,
                                   s->has_compensate ? s->compensate.with_code : ORBC_NONE,
                                   s->has_compensate ? s->compensate.key_code : ORBC_NONE };
        for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
            fx_add_deps(f, s, i, codes[k]);
    }
}

/* Adds a workflow made of the steps declared since the last one. */
static inline uint32_t fx_workflow(Fx *f, const char *name, uint32_t input_type, int64_t timeout_ms,
                                   uint32_t return_code)
{
    OrbcWorkflow w = {
        .name = fx_str(f, name), .file = f->file, .line = 1, .column = 1,
        .input_type = input_type, .output_type = fx_simple(f, "any"), .timeout_ms = timeout_ms,
        .return_code = return_code, .step_count = f->nsteps, .steps = f->steps,
    };
    fx_fill_deps(f);
    uint32_t index = orbc_add_workflow(f->b, &w);
    f->nsteps = 0;
    return index;
}

/* Serializes, frees the builder and loads the result (aborting on a loader error). */
static inline void fx_load(Fx *f, OrbcModule *m)
{
    uint8_t *bytes;
    size_t len;
    OrbcError err;
    if (!orbc_builder_finish(f->b, &bytes, &len, &err) || !orbc_load(bytes, len, m, &err)) {
        fprintf(stderr, "fixture: %s\n", err.text);
        abort();
    }
    free(bytes);
    orbc_builder_free(f->b);
    f->b = NULL;
}

/* Runs workflow `workflow` (NULL: the only one) against a scenario; returns the text
 * history (malloc'd), or "error: MESSAGE" when the scenario or input is rejected. */
static inline char *fx_run(const OrbcModule *m, const char *workflow, const char *scenario,
                           bool show_values, EngineStatus *status)
{
    Arena a;
    arena_init(&a);
    Scenario sc;
    char err[2048];
    char *text = NULL;
    size_t len = 0;
    Value input;
    if (!scenario_load("s.json", scenario, strlen(scenario), m, workflow, &a, &sc, err, sizeof err) ||
        !contract_conform(m, &a, m->workflows[sc.workflow].input_type, sc.input, &input, err,
                          sizeof err)) {
        arena_free(&a);
        if (asprintf(&text, "error: %s", err) < 0)
            abort();
        return text;
    }
    FILE *out = open_memstream(&text, &len);
    History h;
    history_init(&h, out, HISTORY_TEXT);
    RunOptions options = {.show_values = show_values};
    EngineResult r = sim_run(m, &sc, input, &h, &options, &a, NULL);
    if (status)
        *status = r.status;
    history_free(&h);
    fclose(out);
    arena_free(&a);
    return text;
}

#endif
