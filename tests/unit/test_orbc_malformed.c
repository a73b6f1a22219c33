/* The malformed-file suite of the loader, in the spirit of WebAssembly's assert_malformed:
 * each case breaks one thing in a real file and expects its specific error (message and
 * byte offset). Then exhaustive cases: truncation at every offset and every byte flipped,
 * each either rejected or loaded, never a crash (run it under ASan/UBSan). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc.h"
#include "test_orbc_sample.h"

static void expect_error(const uint8_t *bytes, size_t len, const char *expected)
{
    OrbcModule m;
    OrbcError err;
    bool ok = orbc_load(bytes, len, &m, &err);
    if (ok)
        orbc_module_free(&m);
    ck_assert_msg(!ok, "loaded, expected: %s", expected);
    ck_assert_str_eq(err.text, expected);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- byte-level cases on the real file ---- */

START_TEST(too_short)
{
    expect_error((const uint8_t *)"ORBC", 4,
                 "orbc: file too short for the header: 4 bytes (offset 4)");
    expect_error((const uint8_t *)"", 0, "orbc: file too short for the header: 0 bytes (offset 0)");
}
END_TEST

START_TEST(bad_magic)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    bytes[1] = 'R' + 1;
    expect_error(bytes, len, "orbc: bad magic: not an .orbc file (offset 0)");
    free(bytes);
}
END_TEST

START_TEST(unknown_major)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    bytes[4] = 2;
    orbc_seal(bytes, len);
    expect_error(bytes, len, "orbc: unsupported major version 2 (this loader reads 1) (offset 4)");
    free(bytes);
}
END_TEST

START_TEST(newer_minor_and_unknown_section_load)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    /* minor 7, plus an unknown section (id 77, 3 bytes) between STRINGS and CONSTS */
    uint32_t strings_len = orbc_u32(bytes + 20);
    size_t insert_at = 24 + strings_len;
    uint8_t *bigger = malloc(len + 11);
    memcpy(bigger, bytes, insert_at);
    put_u32(bigger + insert_at, 77);
    put_u32(bigger + insert_at + 4, 3);
    memcpy(bigger + insert_at + 8, "abc", 3);
    memcpy(bigger + insert_at + 11, bytes + insert_at, len - insert_at);
    bigger[6] = 7;
    put_u32(bigger + 12, (uint32_t)len + 11);
    orbc_seal(bigger, len + 11);
    OrbcModule m;
    OrbcError err;
    ck_assert_msg(orbc_load(bigger, len + 11, &m, &err), "%s", err.text);
    ck_assert_uint_eq(m.minor, 7);
    ck_assert_uint_eq(m.workflow_count, 2);
    orbc_module_free(&m);
    free(bigger);
    free(bytes);
}
END_TEST

START_TEST(wrong_checksum)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    bytes[len - 1] ^= 1;
    expect_error(bytes, len, "orbc: bad checksum (offset 8)");
    bytes[len - 1] ^= 1;
    bytes[8] ^= 0x80;
    expect_error(bytes, len, "orbc: bad checksum (offset 8)");
    free(bytes);
}
END_TEST

START_TEST(length_field_mismatch)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    char expected[128];
    snprintf(expected, sizeof expected,
             "orbc: file length field says %zu bytes, file has %zu (offset 12)", len, len - 1);
    expect_error(bytes, len - 1, expected);
    free(bytes);
}
END_TEST

START_TEST(absurd_string_count)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    put_u32(bytes + 24, 0xFFFFFFF0u);
    orbc_seal(bytes, len);
    expect_error(bytes, len, "orbc: too many strings: 4294967280 (limit 16777216) (offset 24)");
    put_u32(bytes + 24, 1000000);
    orbc_seal(bytes, len);
    uint32_t payload = orbc_u32(bytes + 20);
    char expected[128];
    snprintf(expected, sizeof expected,
             "orbc: 1000000 strings do not fit in the %u bytes left (offset 24)", payload - 4);
    expect_error(bytes, len, expected);
    free(bytes);
}
END_TEST

START_TEST(section_past_end)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    put_u32(bytes + 20, 0x7FFFFFFF);
    orbc_seal(bytes, len);
    expect_error(bytes, len,
                 "orbc: section of 2147483647 bytes extends past the end of the file (offset 20)");
    free(bytes);
}
END_TEST

START_TEST(section_out_of_order)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    put_u32(bytes + 16, ORBC_SEC_CONSTS);
    orbc_seal(bytes, len);
    expect_error(bytes, len, "orbc: section CONSTS out of order or repeated (expected STRINGS) "
                             "(offset 16)");
    free(bytes);
}
END_TEST

START_TEST(missing_section)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    /* cut the file after the TASKS section: find it by walking the sections */
    size_t at = 16;
    for (int i = 0; i < 4; i++)
        at += 8 + orbc_u32(bytes + at + 4);
    put_u32(bytes + 12, (uint32_t)at);
    orbc_seal(bytes, at);
    char expected[128];
    snprintf(expected, sizeof expected, "orbc: missing section CODE (offset %zu)", at);
    expect_error(bytes, at, expected);
    free(bytes);
}
END_TEST

/* ---- module-level cases: change the sample, serialize without verifying ---- */

typedef void Mutation(OrbcBuilder *b, OrbcModule *m);

/* Builds the sample, applies `mutate` and returns the serialized bytes. */
static uint8_t *mutated(Mutation *mutate, size_t *len)
{
    OrbcBuilder *b = sample_builder();
    OrbcModule *m = (OrbcModule *)orbc_builder_module(b);
    mutate(b, m);   /* serialize `m` itself: orbc_builder_module would reset its counts */
    uint8_t *bytes;
    OrbcError err;
    ck_assert_msg(orbc_serialize(m, &bytes, len, &err), "%s", err.text);
    orbc_builder_free(b);
    return bytes;
}

/* The error of loading a mutated sample, with the offset replaced by N, so that the cases
 * below state what they expect without depending on the exact layout. */
static void expect_mutation_error(Mutation *mutate, const char *expected)
{
    size_t len;
    uint8_t *bytes = mutated(mutate, &len);
    OrbcModule m;
    OrbcError err;
    bool ok = orbc_load(bytes, len, &m, &err);
    if (ok)
        orbc_module_free(&m);
    free(bytes);
    ck_assert_msg(!ok, "loaded, expected: %s", expected);
    ck_assert_msg(err.offset > 16 && err.offset < len, "offset %zu", err.offset);
    char *paren = strstr(err.text, " (offset ");
    ck_assert_ptr_nonnull(paren);
    *paren = '\0';
    ck_assert_str_eq(err.text, expected);
}

/* Replaces a code block by new code emitted by `emit`. */
static uint32_t replace_code(OrbcBuilder *b, OrbcModule *m, uint32_t index,
                             void (*emit)(OrbcBuilder *b))
{
    orbc_code_begin(b, 0);
    orbc_code_pos(b, 1, 1);
    emit(b);
    uint32_t fresh = orbc_code_end(b);
    m = (OrbcModule *)orbc_builder_module(b);
    OrbcCode copy = m->codes[fresh];
    m->codes[index] = copy;
    m->code_count--;          /* drop the fresh block again */
    return index;
}

static OrbcStep *step(OrbcModule *m, uint32_t w, uint32_t s)
{
    return &m->workflows[w].steps[s];
}

/* The `when` code of step 1 (notify) gets replaced in several cases. */
#define WHEN_CODE(m) (step(m, 0, 1)->when_code)

static void m_name_string(OrbcBuilder *b, OrbcModule *m) { m->workflows[0].name = 999; }
static void m_input_type(OrbcBuilder *b, OrbcModule *m) { m->workflows[0].input_type = 99; }
static void m_task_target(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->target = 4; }
static void m_task_kind(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->target = 2; }
static void m_workflow_target(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 2)->target = 2; }
static void m_code_index(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->with_code = 11; }
static void m_code_twice(OrbcBuilder *b, OrbcModule *m)
{
    step(m, 0, 1)->with_code = step(m, 0, 0)->with_code;
}
static void m_code_unused(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 1)->when_code = ORBC_NONE; }
static void m_later_step(OrbcBuilder *b, OrbcModule *m)
{
    /* step 1's `with` reads step 0; give it to step 0 */
    uint32_t with = step(m, 0, 0)->with_code;
    step(m, 0, 0)->with_code = step(m, 0, 1)->with_code;
    step(m, 0, 1)->with_code = with;
}
static void m_item_outside_for(OrbcBuilder *b, OrbcModule *m)
{
    uint32_t with = step(m, 0, 2)->with_code;
    step(m, 0, 2)->with_code = step(m, 0, 1)->with_code;
    step(m, 0, 1)->with_code = with;
}
static void m_attempts_zero(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->policy.attempts = 0; }
static void m_attempts_big(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->policy.attempts = 1001; }
static void m_max_delay(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->policy.max_delay_ms = 499; }
static void m_backoff(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->policy.backoff = 2; }
static void m_timeout(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 0)->timeout_ms = -1; }
static void m_dup_step(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 3)->name = step(m, 0, 1)->name; }
static void m_dep_later(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 1)->deps[0] = 1; }
static void m_sleep_retry(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 4)->policy.attempts = 3; }
static void m_const_string(OrbcBuilder *b, OrbcModule *m) { m->consts[1].string = 500; }
static void m_type_forward(OrbcBuilder *b, OrbcModule *m) { m->types[6].elem = 6; }
static void m_dup_field(OrbcBuilder *b, OrbcModule *m) { m->types[4].fields[1].name = m->types[4].fields[0].name; }
static void m_bad_utf8(OrbcBuilder *b, OrbcModule *m) { ((char *)m->strings[2].text)[1] = (char)0xC0; }
/* Points that docs/bytecode.md settles: positions start at 1,
 * optionality is the field's flag, and fields a kind of step does not use hold zero: */
static void m_step_line_zero(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 2)->line = 0; }
static void m_workflow_column_zero(OrbcBuilder *b, OrbcModule *m) { m->workflows[1].column = 0; }
static void m_compensate_line_zero(OrbcBuilder *b, OrbcModule *m)
{
    step(m, 0, 0)->compensate.line = 0;
}
static void m_optional_string_field(OrbcBuilder *b, OrbcModule *m)
{
    m->types[4].fields[1].optional = true;   /* charge_in.amount: number */
}
static void m_optional_type_required(OrbcBuilder *b, OrbcModule *m)
{
    for (uint32_t t = 0; t < m->type_count; t++)
        for (uint32_t f = 0; f < m->types[t].field_count; f++)
            if (m->types[m->types[t].fields[f].type].kind == ORBC_TYPE_OPTIONAL)
                m->types[t].fields[f].optional = false;
}
static void m_worker_timeout(OrbcBuilder *b, OrbcModule *m) { m->tasks[3].default_timeout_ms = 5000; }
static void m_sleep_delay(OrbcBuilder *b, OrbcModule *m) { step(m, 0, 4)->policy.initial_delay_ms = 0; }
static void m_await_backoff(OrbcBuilder *b, OrbcModule *m)
{
    step(m, 0, 3)->policy.backoff = ORBC_BACKOFF_EXPONENTIAL;
}
static void m_step_names_by_text(OrbcBuilder *b, OrbcModule *m)
{
    /* step 3 keeps its own string index, whose text becomes step 1's name */
    m->strings[step(m, 0, 3)->name] = (OrbcString){ "notify", 6 };
}

static void e_const_range(OrbcBuilder *b) { orbc_emit_u32(b, ORBC_OP_CONST, 77); }
static void e_jump_outside(OrbcBuilder *b)
{
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
    orbc_emit_u32(b, ORBC_OP_JUMP_IF_TRUE, 1000);
}
static void e_jump_backward(OrbcBuilder *b)
{
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
    orbc_emit_u32(b, ORBC_OP_JUMP, 0);
}
static void e_jump_middle(OrbcBuilder *b)
{
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
    orbc_emit_u32(b, ORBC_OP_JUMP_IF_TRUE, 12);
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
}
static void e_underflow(OrbcBuilder *b) { orbc_emit(b, ORBC_OP_ADD); }
static void e_two_results(OrbcBuilder *b)
{
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
    orbc_emit_u32(b, ORBC_OP_CONST, 0);
}
static void e_unknown_op(OrbcBuilder *b) { orbc_emit(b, (OrbcOp)0xEE); }
static void e_unknown_func(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_call(b, (OrbcFunc)9, 1);
}
static void e_bad_arity(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_call(b, ORBC_FN_CONTAINS, 1);
}
static void e_unreachable(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    uint32_t site = orbc_emit_jump(b, ORBC_OP_JUMP);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_patch_jump(b, site);
}
static void e_depth_mismatch(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    uint32_t site = orbc_emit_jump(b, ORBC_OP_JUMP_IF_TRUE);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_patch_jump(b, site);
}
static void e_field_string(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_FIELD, 4000);
}
static void e_dup_record(OrbcBuilder *b)
{
    uint32_t names[] = { 1, 2, 1 };
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_record(b, 3, names);
}
static void e_record_underflow(OrbcBuilder *b)
{
    uint32_t names[] = { 1, 2 };
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_record(b, 2, names);
}
static void e_item(OrbcBuilder *b) { orbc_emit(b, ORBC_OP_ITEM); }
/* The audit of every operand (besides the cases above): */
static void e_jump_into_record_names(OrbcBuilder *b)
{
    uint32_t names[] = { 1, 2 };
    orbc_emit(b, ORBC_OP_INPUT);                      /* 0 */
    orbc_emit_u32(b, ORBC_OP_JUMP_IF_TRUE, 17);       /* 1: into the second name */
    orbc_emit(b, ORBC_OP_INPUT);                      /* 6 */
    orbc_emit(b, ORBC_OP_INPUT);                      /* 7 */
    orbc_emit_record(b, 2, names);                    /* 8: 8 + 1 + 4 + 2 x 4 bytes */
}
static void e_record_over_limit(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_RECORD, ORBC_MAX_COUNT + 1);   /* count only, no names */
}
static void e_list_over_limit(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_LIST, ORBC_MAX_COUNT + 1);
}
static void e_step_over_limit(OrbcBuilder *b) { orbc_emit_u32(b, ORBC_OP_STEP, ORBC_MAX_LARGE); }
static void e_field_opt_string(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_FIELD_OPT, 30);
}
static void e_call_bad_argc(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_call(b, ORBC_FN_LEN, 2);
}
static void e_truncated_operand(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit(b, ORBC_OP_FIELD);   /* its u32 would start here: RETURN and nothing after */
}

#define CODE_MUTATION(NAME, EMIT)                                   \
    static void NAME(OrbcBuilder *b, OrbcModule *m)                 \
    {                                                               \
        replace_code(b, m, WHEN_CODE(m), EMIT);                     \
    }
CODE_MUTATION(m_const_range, e_const_range)
CODE_MUTATION(m_jump_outside, e_jump_outside)
CODE_MUTATION(m_jump_backward, e_jump_backward)
CODE_MUTATION(m_jump_middle, e_jump_middle)
CODE_MUTATION(m_underflow, e_underflow)
CODE_MUTATION(m_two_results, e_two_results)
CODE_MUTATION(m_unknown_op, e_unknown_op)
CODE_MUTATION(m_unknown_func, e_unknown_func)
CODE_MUTATION(m_bad_arity, e_bad_arity)
CODE_MUTATION(m_unreachable, e_unreachable)
CODE_MUTATION(m_depth_mismatch, e_depth_mismatch)
CODE_MUTATION(m_field_string, e_field_string)
CODE_MUTATION(m_dup_record, e_dup_record)
CODE_MUTATION(m_record_underflow, e_record_underflow)
CODE_MUTATION(m_item_in_when, e_item)
CODE_MUTATION(m_jump_into_record_names, e_jump_into_record_names)
CODE_MUTATION(m_record_over_limit, e_record_over_limit)
CODE_MUTATION(m_list_over_limit, e_list_over_limit)
CODE_MUTATION(m_step_over_limit, e_step_over_limit)
CODE_MUTATION(m_field_opt_string, e_field_opt_string)
CODE_MUTATION(m_call_bad_argc, e_call_bad_argc)
CODE_MUTATION(m_truncated_operand, e_truncated_operand)

static const struct {
    Mutation *mutate;
    const char *expected;
} cases[] = {
    { m_name_string, "orbc: string index 999 out of range (30 strings)" },
    { m_input_type, "orbc: type index 99 out of range (10 types)" },
    { m_task_target, "orbc: task index 4 out of range (4 tasks)" },
    { m_task_kind, "orbc: task 2 has the wrong kind for this step" },
    { m_workflow_target, "orbc: workflow index 2 out of range (2 workflows)" },
    { m_code_index, "orbc: with code index 11 out of range (11 code blocks)" },
    { m_code_twice, "orbc: code block 0 used twice" },
    { m_code_unused, "orbc: code block 3 is never used" },
    { m_later_step, "orbc: with code reads step 0, which has not run yet" },
    { m_item_outside_for, "orbc: with code uses `item` outside a for step" },
    { m_item_in_when, "orbc: when code uses `item` outside a for step" },
    { m_attempts_zero, "orbc: attempts 0 outside 1 to 1000" },
    { m_attempts_big, "orbc: attempts 1001 outside 1 to 1000" },
    { m_max_delay, "orbc: max delay below initial delay" },
    { m_backoff, "orbc: unknown backoff 2" },
    { m_timeout, "orbc: negative timeout -1" },
    { m_dup_step, "orbc: step 3 repeats the name of an earlier step" },
    { m_dep_later, "orbc: step 1 depends on step 1, which is not earlier" },
    { m_sleep_retry, "orbc: step 4: a step that is no task has the default policy (attempts 1, "
                     "fixed, 1000 ms, 60000 ms, no codes)" },
    { m_sleep_delay, "orbc: step 4: a step that is no task has the default policy (attempts 1, "
                     "fixed, 1000 ms, 60000 ms, no codes)" },
    { m_await_backoff, "orbc: step 3: a step that is no task has the default policy (attempts "
                       "1, fixed, 1000 ms, 60000 ms, no codes)" },
    { m_step_line_zero, "orbc: line and column must be at least 1" },
    { m_workflow_column_zero, "orbc: line and column must be at least 1" },
    { m_compensate_line_zero, "orbc: line and column must be at least 1" },
    { m_optional_string_field, "orbc: type 4: field 1 is optional but its type does not accept "
                               "null" },
    { m_optional_type_required, "orbc: type 8: field 2 has an optional type but is not "
                                "optional" },
    { m_worker_timeout, "orbc: task 3: a worker task has no default timeout" },
    { m_step_names_by_text, "orbc: step 3 repeats the name of an earlier step" },
    { m_const_string, "orbc: string index 500 out of range (30 strings)" },
    { m_type_forward, "orbc: type index 6 out of range (6 types)" },
    { m_dup_field, "orbc: type 4: field 1 repeats an earlier field name" },
    { m_bad_utf8, "orbc: invalid UTF-8 in string 2" },
    { m_const_range, "orbc: constant index 77 out of range (7 constants)" },
    { m_jump_outside, "orbc: jump target 1000 outside code block of 11 bytes" },
    { m_jump_backward, "orbc: backward jump to 0 at 5" },
    { m_jump_middle, "orbc: jump into the middle of an instruction at 12" },
    { m_underflow, "orbc: stack underflow: instruction pops 2 values, stack has 0" },
    { m_two_results, "orbc: stack depth 2 at return, expected 1" },
    { m_unknown_op, "orbc: unknown opcode 0xee" },
    { m_unknown_func, "orbc: unknown function 9" },
    { m_bad_arity, "orbc: function called with 1 arguments, expects 2" },
    { m_unreachable, "orbc: unreachable instruction at 6" },
    { m_depth_mismatch, "orbc: stack depth 2 differs from 1 at jump target" },
    { m_field_string, "orbc: string index 4000 out of range (30 strings)" },
    { m_dup_record, "orbc: record field 2 repeats an earlier name" },
    { m_record_underflow, "orbc: stack underflow: instruction pops 2 values, stack has 1" },
    { m_jump_into_record_names, "orbc: jump into the middle of an instruction at 17" },
    { m_record_over_limit, "orbc: record of 65536 fields (limit 65535)" },
    { m_list_over_limit, "orbc: list of 65536 elements (limit 65535)" },
    { m_step_over_limit, "orbc: step index 16777216 out of range (limit 16777216)" },
    { m_field_opt_string, "orbc: string index 30 out of range (30 strings)" },
    { m_call_bad_argc, "orbc: function called with 2 arguments, expects 1" },
    { m_truncated_operand, "orbc: truncated instruction at 1" },
};

START_TEST(each_defect_has_its_error)
{
    expect_mutation_error(cases[_i].mutate, cases[_i].expected);
}
END_TEST

/* ---- jumps into their own operand ----
 * A jump whose target lies inside its own 4-byte operand (offset + 1 ... offset + 4):
 * the verifier has already passed those bytes when it reads the target, so this needs
 * its own check. Every jump kind, every such target, in a block that is otherwise valid
 * (the target is the one defect):
 *   conditional:    0 input; 1 JUMP_KIND t; 6 input; 7 return        (valid: t = 7)
 *   unconditional:  0 input; 1 jump_if_true 12; 6 input; 7 jump t; 12 return
 *                                                                    (valid: t = 12) */

static const OrbcOp jump_kinds[] = { ORBC_OP_JUMP, ORBC_OP_JUMP_IF_FALSE, ORBC_OP_JUMP_IF_TRUE,
                                     ORBC_OP_JUMP_IF_NOT_NULL };
static OrbcOp jump_kind;
static uint32_t jump_target;

static uint32_t jump_offset(void)
{
    return jump_kind == ORBC_OP_JUMP ? 7 : 1;
}

static uint32_t return_offset(void)
{
    return jump_kind == ORBC_OP_JUMP ? 12 : 7;
}

static void e_jump_to(OrbcBuilder *b)
{
    orbc_emit(b, ORBC_OP_INPUT);
    if (jump_kind == ORBC_OP_JUMP) {
        uint32_t over = orbc_emit_jump(b, ORBC_OP_JUMP_IF_TRUE);
        orbc_emit(b, ORBC_OP_INPUT);
        orbc_emit_u32(b, ORBC_OP_JUMP, jump_target);
        orbc_patch_jump(b, over);
        return;
    }
    orbc_emit_u32(b, jump_kind, jump_target);
    orbc_emit(b, ORBC_OP_INPUT);
}
CODE_MUTATION(m_jump_to, e_jump_to)

START_TEST(jump_into_its_own_operand)
{
    jump_kind = jump_kinds[_i / 4];
    jump_target = jump_offset() + 1 + _i % 4;
    char expected[96];
    snprintf(expected, sizeof expected, "orbc: jump into the middle of an instruction at %u",
             jump_target);
    expect_mutation_error(m_jump_to, expected);
}
END_TEST

/* The same blocks jumping to their `return` load: the fixture has no other defect. */
START_TEST(jump_past_its_operand_loads)
{
    jump_kind = jump_kinds[_i];
    jump_target = return_offset();
    size_t len;
    uint8_t *bytes = mutated(m_jump_to, &len);
    OrbcModule m;
    OrbcError err;
    bool ok = orbc_load(bytes, len, &m, &err);
    free(bytes);
    ck_assert_msg(ok, "%s", err.text);
    orbc_module_free(&m);
}
END_TEST

/* ---- exhaustive cases ---- */

/* Loads; when it loads, disassembles to /dev/null (exercising every printed path). */
static bool try_load(const uint8_t *bytes, size_t len)
{
    OrbcModule m;
    OrbcError err;
    if (!orbc_load(bytes, len, &m, &err)) {
        ck_assert(strncmp(err.text, "orbc: ", 6) == 0);
        ck_assert(strstr(err.text, " (offset "));
        return false;
    }
    FILE *null = fopen("/dev/null", "w");
    orbc_disassemble(&m, null);
    fclose(null);
    orbc_module_free(&m);
    return true;
}

START_TEST(truncated_at_every_offset)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    for (size_t n = 0; n < len; n++) {
        /* as is: the length field no longer matches */
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, bytes, n);
        ck_assert_msg(!try_load(copy, n), "truncated to %zu loaded", n);
        /* with the length and checksum fixed up: the structure is cut short */
        if (n >= ORBC_HEADER_SIZE) {
            put_u32(copy + 12, (uint32_t)n);
            orbc_seal(copy, n);
            ck_assert_msg(!try_load(copy, n), "resealed truncation to %zu loaded", n);
        }
        free(copy);
    }
    free(bytes);
}
END_TEST

START_TEST(every_byte_flipped)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    uint8_t *copy = malloc(len);
    int loaded = 0;
    for (size_t i = 0; i < len; i++) {
        static const uint8_t masks[] = { 0x01, 0x80, 0xFF };
        for (size_t k = 0; k < sizeof masks; k++) {
            memcpy(copy, bytes, len);
            copy[i] ^= masks[k];
            bool minor = i == 6 || i == 7;   /* a newer minor version is accepted */
            ck_assert_msg(try_load(copy, len) == minor, "flip at %zu: wrong outcome", i);
            if (i >= 12) {
                orbc_seal(copy, len);   /* past the checksum: reach the verifier */
                loaded += try_load(copy, len);
            }
        }
    }
    /* Some flips are harmless (a line number, a constant's value); most are caught. */
    ck_assert_int_gt(loaded, 0);
    ck_assert_int_lt(loaded, (int)len * 3);
    free(copy);
    free(bytes);
}
END_TEST

static Suite *malformed_suite(void)
{
    Suite *s = suite_create("orbc_malformed");
    TCase *tc = tcase_create("malformed");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, too_short);
    tcase_add_test(tc, bad_magic);
    tcase_add_test(tc, unknown_major);
    tcase_add_test(tc, newer_minor_and_unknown_section_load);
    tcase_add_test(tc, wrong_checksum);
    tcase_add_test(tc, length_field_mismatch);
    tcase_add_test(tc, absurd_string_count);
    tcase_add_test(tc, section_past_end);
    tcase_add_test(tc, section_out_of_order);
    tcase_add_test(tc, missing_section);
    tcase_add_loop_test(tc, each_defect_has_its_error, 0, sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, jump_into_its_own_operand, 0, 16);
    tcase_add_loop_test(tc, jump_past_its_operand_loads, 0, 4);
    tcase_add_test(tc, truncated_at_every_offset);
    tcase_add_test(tc, every_byte_flipped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(malformed_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
