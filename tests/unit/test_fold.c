/* The differential test of constant folding: for every operator and built-in
 * function, over a sample of operands of every kind (integer overflow, division by zero,
 * float edge cases, long strings, durations), the value `orbitc build` folds at build
 * time is the value the runtime computes at run time, and what fails at run time is never
 * folded (it fails the same way).
 *
 * One program holds every combination twice, on its own line each:
 *     step fN { compute (SOURCE_A) OP (SOURCE_B) }        operands known at build time
 *     step rN { compute (input.vA) OP (input.vB) }        operands known at run time
 * It is compiled in memory (the compiler and the runtime linked into one binary), the
 * checker's rejections (`"a" + 1` does not type-check, so it can never be folded) are
 * taken out, and the rest is lowered, loaded and run on the runtime's VM: each fN block
 * against its rN block. The fN blocks that folded hold one constant. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workspace.h"
#include "lower.h"
#include "orbc.h"
#include "orbc_value.h"
#include "program.h"
#include "value.h"
#include "vm.h"

/* ---- operands ---- */

typedef struct Sample {
    const char *source;   /* Orbit text of the value: a literal or a constant expression */
    OrbcValue value;      /* the same value */
    bool huge;            /* only in a few combinations (the source is large) */
} Sample;

#define INT(v) { .kind = ORBC_KIND_INT, .integer = (v) }
#define NUM(v) { .kind = ORBC_KIND_NUMBER, .number = (v) }
#define DUR(v) { .kind = ORBC_KIND_DURATION, .integer = (v) }
#define STR(s) { .kind = ORBC_KIND_STRING, .string = { (s), sizeof(s) - 1 } }

static const Sample fixed_samples[] = {
    { "null", { .kind = ORBC_KIND_NULL }, false },
    { "true", { .kind = ORBC_KIND_BOOL, .boolean = true }, false },
    { "false", { .kind = ORBC_KIND_BOOL, .boolean = false }, false },
    { "0", INT(0), false },
    { "1", INT(1), false },
    { "-1", INT(-1), false },
    { "7", INT(7), false },
    { "-7", INT(-7), false },
    { "1000000007", INT(1000000007), false },
    { "4611686018427387904", INT(INT64_C(4611686018427387904)), false },
    { "9223372036854775807", INT(INT64_MAX), false },
    { "-9223372036854775807 - 1", INT(INT64_MIN), false },
    { "0.0", NUM(0.0), false },
    { "-0.0", NUM(-0.0), false },
    { "0.5", NUM(0.5), false },
    { "-2.25", NUM(-2.25), false },
    { "0.1", NUM(0.1), false },
    { "3.0", NUM(3.0), false },
    { "123456789.125", NUM(123456789.125), false },
    { "1e17", NUM(1e17), false },
    { "1e308", NUM(1e308), false },
    { "1e-300", NUM(1e-300), false },
    { "5e-324", NUM(5e-324), false },
    { "1e308 * 10.0", NUM(INFINITY), false },
    { "-1e308 * 10.0", NUM(-INFINITY), false },
    { "\"\"", STR(""), false },
    { "\"a\"", STR("a"), false },
    { "\"abc\"", STR("abc"), false },
    { "\"ABC\"", STR("ABC"), false },
    { "\"Hello, World 42\"", STR("Hello, World 42"), false },
    { "\"\xc3\xa9t\xc3\xa9 \xc3\x80\"", STR("\xc3\xa9t\xc3\xa9 \xc3\x80"), false },
    { "\"a\\\"b\\\\c\\n\"", STR("a\"b\\c\n"), false },
    { "0ms", DUR(0), false },
    { "1ms", DUR(1), false },
    { "1500ms", DUR(1500), false },
    { "1h30m", DUR(5400000), false },
    { "1d", DUR(86400000), false },
    { "9223372036854775807ms", DUR(INT64_MAX), false },
    { "-9223372036854775807ms - 1ms", DUR(INT64_MIN), false },
};

enum {
    FIXED_SAMPLES = sizeof fixed_samples / sizeof fixed_samples[0],
    LONG_STRING = 3000,         /* bytes of the long string in every combination */
    HUGE_STRING = 600 * 1024,   /* two joined pass the format's 1 MiB string limit */
    SAMPLE_COUNT = FIXED_SAMPLES + 2,
};

static Sample samples[SAMPLE_COUNT];

/* A string of `len` bytes ("xxx…é" or "yyy…", never an escape) as a sample. */
static Sample string_sample(size_t len, char fill, bool huge)
{
    char *text = malloc(len + 1), *source = malloc(len + 3);
    memset(text, fill, len);
    if (!huge)
        memcpy(text + len - 2, "\xc3\xa9", 2);
    text[len] = '\0';
    source[0] = '"';
    memcpy(source + 1, text, len);
    memcpy(source + 1 + len, "\"", 2);
    return (Sample){ source, { .kind = ORBC_KIND_STRING, .string = { text, len } }, huge };
}

static void make_samples(void)
{
    memcpy(samples, fixed_samples, sizeof fixed_samples);
    samples[FIXED_SAMPLES] = string_sample(LONG_STRING, 'x', false);
    samples[FIXED_SAMPLES + 1] = string_sample(HUGE_STRING, 'y', true);
}

static void free_samples(void)
{
    for (int i = FIXED_SAMPLES; i < SAMPLE_COUNT; i++) {
        free((char *)samples[i].source);
        free((char *)samples[i].value.string.text);
    }
}

/* ---- operations ---- */

typedef struct Operation {
    const char *format;   /* the expression, %s standing for each operand */
    int operands;
    bool folds;           /* lowering folds it when the operands are constant and it
                             succeeds (division, remainder and calls are left to run time) */
    bool huge;            /* also taken with the huge string */
} Operation;

static const Operation operations[] = {
    { "(%s) + (%s)", 2, true, true },
    { "(%s) - (%s)", 2, true, false },
    { "(%s) * (%s)", 2, true, false },
    { "(%s) / (%s)", 2, false, false },
    { "(%s) %% (%s)", 2, false, false },
    { "(%s) == (%s)", 2, true, true },
    { "(%s) != (%s)", 2, true, false },
    { "(%s) < (%s)", 2, true, true },
    { "(%s) <= (%s)", 2, true, false },
    { "(%s) > (%s)", 2, true, false },
    { "(%s) >= (%s)", 2, true, false },
    { "(%s) && (%s)", 2, true, false },
    { "(%s) || (%s)", 2, true, false },
    { "(%s) ?? (%s)", 2, true, false },
    { "-(%s)", 1, true, false },
    { "!(%s)", 1, true, false },
    { "len(%s)", 1, false, true },
    { "str(%s)", 1, false, false },
    { "lower(%s)", 1, false, false },
    { "upper(%s)", 1, false, true },
    { "contains(%s, %s)", 2, false, false },
};

enum { OPERATION_COUNT = sizeof operations / sizeof operations[0] };

typedef struct Combo {
    int op, a, b;         /* b = -1 for one operand */
    uint32_t f_line, r_line;
    bool rejected;        /* the checker rejects fN (operand kinds the operator does not take) */
} Combo;

/* Every operation over every operand (pair); the huge string only where the operation
 * says so, and only with itself. */
static Combo *make_combos(uint32_t *count)
{
    Combo *combos = malloc(sizeof *combos * OPERATION_COUNT * SAMPLE_COUNT * SAMPLE_COUNT);
    uint32_t n = 0;
    for (int op = 0; op < OPERATION_COUNT; op++)
        for (int a = 0; a < SAMPLE_COUNT; a++)
            for (int b = 0; b < (operations[op].operands == 2 ? SAMPLE_COUNT : 1); b++) {
                bool huge = samples[a].huge || (operations[op].operands == 2 && samples[b].huge);
                bool all_huge = samples[a].huge &&
                                (operations[op].operands == 1 || samples[b].huge);
                if (huge && (!all_huge || !operations[op].huge))
                    continue;
                combos[n++] = (Combo){ op, a, operations[op].operands == 2 ? b : -1, 0, 0,
                                       false };
            }
    *count = n;
    return combos;
}

/* ---- the program ---- */

typedef struct Text {
    char *data;
    size_t len, cap;
    uint32_t lines;       /* complete lines so far */
} Text;

__attribute__((format(printf, 2, 3)))
static void put(Text *t, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    while (t->len + (size_t)n + 1 > t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1 << 20;
        t->data = realloc(t->data, t->cap);
    }
    va_start(args, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, args);
    va_end(args);
    for (int i = 0; i < n; i++)
        t->lines += t->data[t->len + i] == '\n';
    t->len += (size_t)n;
}

static void put_expr(Text *t, const Combo *c, bool folded)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "input.v%d", c->a);
    snprintf(b, sizeof b, "input.v%d", c->b < 0 ? 0 : c->b);
    const char *x = folded ? samples[c->a].source : a;
    const char *y = c->b < 0 ? "" : folded ? samples[c->b].source : b;
    put(t, operations[c->op].format, x, y);
}

/* The program: the samples alone (kI, to check their sources), then each combination's
 * fN and rN lines; a rejected fN leaves an empty line, so line numbers never move. */
static char *program_text(Combo *combos, uint32_t count, size_t *len)
{
    Text t = { 0 };
    put(&t, "workflow fold {\n  input {");
    for (int i = 0; i < SAMPLE_COUNT; i++)
        put(&t, "%s v%d: any", i ? "," : "", i);
    put(&t, " }\n");
    for (int i = 0; i < SAMPLE_COUNT; i++)
        put(&t, "  step k%d { compute %s }\n", i, samples[i].source);
    for (uint32_t n = 0; n < count; n++) {
        Combo *c = &combos[n];
        c->f_line = t.lines + 1;
        if (!c->rejected) {
            put(&t, "  step f%u { compute ", n);
            put_expr(&t, c, true);
            put(&t, " }");
        }
        put(&t, "\n");
        c->r_line = t.lines + 1;
        put(&t, "  step r%u { compute ", n);
        put_expr(&t, c, false);
        put(&t, " }\n");
    }
    put(&t, "}\n");
    *len = t.len;
    return t.data;
}

/* Checks the program; marks the combinations whose fN line has an error as rejected.
 * Returns the number of errors (none may be on an rN line). */
static uint32_t check_program(Compiler *c, const Program **program, Combo *combos,
                              uint32_t count)
{
    size_t len;
    char *text = program_text(combos, count, &len);
    Workspace w;
    workspace_init(&w, c, false);
    uint32_t file = workspace_add_text(&w, "fold.orbit", text, len);
    workspace_check(&w);
    *program = w.checked[0];
    workspace_free(&w);
    uint32_t origin = source_file(&c->sources, file)->origin;
    uint32_t lines = combos[count - 1].r_line + 2;
    uint32_t *combo_of_line = calloc(lines + 1, sizeof *combo_of_line);
    for (uint32_t n = 0; n < count; n++)
        combo_of_line[combos[n].f_line] = n + 1;
    uint32_t errors = 0;
    for (uint32_t i = 0; i < c->diags.count; i++) {
        const Diagnostic *d = c->diags.items[i];
        if (d->severity != SEV_ERROR)
            continue;
        errors++;
        ck_assert_msg(d->span.start >= origin, "error outside fold.orbit: %s", d->message);
        uint32_t line = source_line_of(&c->sources, file, d->span.start - origin) + 1;
        ck_assert_msg(line <= lines && combo_of_line[line],
                      "error on line %u, not an fN line: %s", line, d->message);
        combos[combo_of_line[line] - 1].rejected = true;
    }
    free(combo_of_line);
    return errors;
}

/* ---- running ---- */

static bool same_value(Value x, Value y)
{
    if (x.kind != y.kind)
        return false;
    switch (x.kind) {
    case ORBC_KIND_NULL: return true;
    case ORBC_KIND_BOOL: return x.b == y.b;
    case ORBC_KIND_INT:
    case ORBC_KIND_DURATION: return x.i == y.i;
    case ORBC_KIND_NUMBER:
        return memcmp(&x.n, &y.n, sizeof x.n) == 0 || (isnan(x.n) && isnan(y.n));
    case ORBC_KIND_STRING:
        return x.s->len == y.s->len && memcmp(x.s->text, y.s->text, x.s->len) == 0;
    default: return false;
    }
}

static void describe(char *out, size_t size, bool ok, Value v, const char *err)
{
    if (!ok) {
        snprintf(out, size, "error \"%s\"", err);
        return;
    }
    TextBuffer json = { 0 };
    value_to_json(&json, v);
    snprintf(out, size, "%s %.80s%s", value_kind_name(v), json.data,
             json.len > 80 ? "…" : "");
    text_free(&json);
}

/* The message of a VM error without its "fold.orbit:LINE:COL: " position. */
static const char *without_position(const char *err)
{
    const char *p = err;
    for (int colons = 0; *p && colons < 3; p++)
        colons += *p == ':';
    return *p == ' ' ? p + 1 : p;
}

typedef struct Run {
    const OrbcModule *m;
    Vm *vm;
    EvalScope scope;
    const OrbcWorkflow *w;
    uint32_t *step_of_name;   /* string index -> step index + 1 */
} Run;

static uint32_t step_named(const Run *run, const char *fmt, uint32_t n)
{
    char name[32];
    snprintf(name, sizeof name, fmt, n);
    for (uint32_t s = 0; s < run->m->string_count; s++)
        if (run->step_of_name[s] && strcmp(run->m->strings[s].text, name) == 0)
            return run->step_of_name[s] - 1;
    ck_abort_msg("no step %s", name);
    return 0;
}

static bool eval_step(Run *run, uint32_t step, Value *out, char *err, size_t errlen)
{
    return vm_eval(run->vm, run->w->steps[step].value_code, &run->scope, out, err, errlen);
}

/* A code block that is one constant: folded. */
static bool is_folded(const Run *run, uint32_t step)
{
    const OrbcCode *code = &run->m->codes[run->w->steps[step].value_code];
    return code->len == 6 && code->code[0] == ORBC_OP_CONST;
}

static Value input_record(Arena *arena)
{
    Record *r = value_record_new(arena, SAMPLE_COUNT);
    for (uint32_t i = 0; i < SAMPLE_COUNT; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%u", i);
        r->names[i] = value_str_new(arena, name, strlen(name));
        r->values[i] = value_from_orbc(arena, samples[i].value);
    }
    ck_assert(value_record_seal(arena, r));
    return (Value){ .kind = ORBC_KIND_RECORD, .rec = r };
}

typedef struct Tally {
    uint32_t combos, rejected, folded, runtime_values, runtime_errors;
    uint32_t per_op_folded[OPERATION_COUNT], per_op_checked[OPERATION_COUNT];
} Tally;

/* Runs fN against rN; returns false (with a description) when they differ. */
static bool compare_combo(Run *run, const Combo *c, uint32_t n, Tally *tally, char *why,
                          size_t size)
{
    uint32_t f = step_named(run, "f%u", n), r = step_named(run, "r%u", n);
    Value fv = { 0 }, rv = { 0 };
    char ferr[256] = "", rerr[256] = "";
    bool fok = eval_step(run, f, &fv, ferr, sizeof ferr);
    bool rok = eval_step(run, r, &rv, rerr, sizeof rerr);
    bool folded = is_folded(run, f);
    tally->folded += folded;
    tally->per_op_folded[c->op] += folded;
    tally->per_op_checked[c->op]++;
    rok ? tally->runtime_values++ : tally->runtime_errors++;
    bool same = fok == rok && (fok ? same_value(fv, rv)
                                   : strcmp(without_position(ferr), without_position(rerr)) == 0);
    /* An operation that folds must have folded here: a value certain at build time,
     * within the format's limit on strings. */
    bool must_fold = operations[c->op].folds && rok &&
                     !(rv.kind == ORBC_KIND_STRING && rv.s->len > ORBC_MAX_STRING_LEN);
    if (same && folded == must_fold)
        return true;
    char fd[200], rd[200];
    describe(fd, sizeof fd, fok, fv, ferr);
    describe(rd, sizeof rd, rok, rv, rerr);
    snprintf(why, size, "line %u: %s: built %s%s, run %s", c->f_line,
             same ? "folding" : "differs", folded ? "folded to " : "", fd, rd);
    return false;
}

START_TEST(folding_agrees_with_the_runtime)
{
    make_samples();
    uint32_t count;
    Combo *combos = make_combos(&count);

    /* first pass: find what the checker rejects; second: build the rest */
    Compiler c;
    const Program *program;
    compiler_init(&c);
    check_program(&c, &program, combos, count);
    compiler_free(&c);
    compiler_init(&c);
    ck_assert_uint_eq(check_program(&c, &program, combos, count), 0);
    uint8_t *bytes;
    size_t len;
    char why[256];
    ck_assert_msg(lower_program(&c, program, &bytes, &len, why, sizeof why), "%s", why);
    compiler_free(&c);

    OrbcModule m;
    OrbcError err;
    ck_assert_msg(orbc_load(bytes, len, &m, &err), "%s", err.text);
    free(bytes);
    Arena arena;
    arena_init(&arena);
    Run run = { .m = &m, .vm = vm_new(&m, &arena), .w = &m.workflows[0] };
    run.scope.input = input_record(&arena);
    run.step_of_name = calloc(m.string_count, sizeof *run.step_of_name);
    for (uint32_t s = 0; s < run.w->step_count; s++)
        run.step_of_name[run.w->steps[s].name] = s + 1;

    /* each sample's source is its value, folded */
    for (uint32_t i = 0; i < SAMPLE_COUNT; i++) {
        uint32_t k = step_named(&run, "k%u", i);
        Value v;
        char e[256];
        ck_assert_msg(eval_step(&run, k, &v, e, sizeof e), "sample %u: %s", i, e);
        ck_assert_msg(is_folded(&run, k), "sample %u not folded", i);
        ck_assert_msg(same_value(v, value_from_orbc(&arena, samples[i].value)),
                      "sample %u: %s is not its value", i, samples[i].source);
    }

    Tally tally = { .combos = count };
    uint32_t failures = 0;
    for (uint32_t n = 0; n < count; n++) {
        if (combos[n].rejected) {
            tally.rejected++;
            continue;
        }
        char difference[512];
        if (!compare_combo(&run, &combos[n], n, &tally, difference, sizeof difference) &&
            failures++ < 20)
            fprintf(stderr, "%s\n", difference);
    }
    printf("%u operations over %u operands: %u combinations; the checker rejects %u; of "
           "the %u built, %u folded; at run time %u values and %u errors\n",
           (unsigned)OPERATION_COUNT, (unsigned)SAMPLE_COUNT, tally.combos, tally.rejected,
           tally.combos - tally.rejected, tally.folded, tally.runtime_values,
           tally.runtime_errors);
    for (int op = 0; op < OPERATION_COUNT; op++)
        printf("  %-18s %5u built, %5u folded\n", operations[op].format,
               tally.per_op_checked[op], tally.per_op_folded[op]);
    ck_assert_msg(failures == 0, "%u combinations differ (first 20 above)", failures);

    free(run.step_of_name);
    vm_free(run.vm);
    arena_free(&arena);
    orbc_module_free(&m);
    free(combos);
    free_samples();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fold");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, folding_agrees_with_the_runtime);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
