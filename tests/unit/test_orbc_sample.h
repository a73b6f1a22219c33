/* A sample module for the bytecode tests, built with the builder API: every step kind,
 * a compensate block, a for step, short-circuit operators, calls and records. The tests
 * either load it as is or change one thing in it (sample_module) and expect a specific
 * loader error. Included by tests/test_orbc*.c. */
#ifndef TEST_ORBC_SAMPLE_H
#define TEST_ORBC_SAMPLE_H

#include <stdlib.h>
#include <string.h>

#include "orbc.h"

static OrbcPolicy sample_default_policy(void)
{
    OrbcPolicy p = { 1, ORBC_BACKOFF_FIXED, 1000, 60000, 0, NULL };
    return p;
}

static OrbcStep sample_blank_step(OrbcBuilder *b, const char *name, OrbcStepKind kind)
{
    OrbcStep s;
    memset(&s, 0, sizeof s);
    s.name = orbc_add_cstring(b, name);
    s.kind = (uint8_t)kind;
    s.line = 1;
    s.column = 3;
    s.target = ORBC_NONE;
    s.for_var = ORBC_NONE;
    s.for_code = s.when_code = s.with_code = s.key_code = s.value_code = ORBC_NONE;
    s.policy = sample_default_policy();
    return s;
}

/* input.NAME */
static void sample_input_field(OrbcBuilder *b, const char *name)
{
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_FIELD, orbc_add_cstring(b, name));
}

/* Builds the sample in `b` (kept as structs or streamed) and returns it. */
static OrbcBuilder *sample_build_in(OrbcBuilder *b)
{
    uint32_t file = orbc_add_cstring(b, "checkout.orbit");
    uint32_t t_string = orbc_type_simple(b, ORBC_TYPE_STRING);
    uint32_t t_number = orbc_type_simple(b, ORBC_TYPE_NUMBER);
    uint32_t t_bool = orbc_type_simple(b, ORBC_TYPE_BOOL);
    uint32_t t_any = orbc_type_simple(b, ORBC_TYPE_ANY);

    OrbcField charge_in[] = { { orbc_add_cstring(b, "order_id"), t_string, false },
                              { orbc_add_cstring(b, "amount"), t_number, false } };
    OrbcField charge_out[] = { { orbc_add_cstring(b, "charge_id"), t_string, false } };
    uint32_t t_charge_in = orbc_type_record(b, ORBC_NONE, 2, charge_in);
    uint32_t t_charge_out = orbc_type_record(b, ORBC_NONE, 1, charge_out);
    OrbcTask charge = { orbc_add_cstring(b, "payments.charge"), ORBC_TASK_WORKER,
                        t_charge_in, t_charge_out, 0 };
    OrbcTask refund = { orbc_add_cstring(b, "payments.refund"), ORBC_TASK_WORKER,
                        t_charge_out, t_any, 0 };
    OrbcTask http = { orbc_add_cstring(b, "orbit.http.request"), ORBC_TASK_BUILTIN,
                      t_any, t_any, 30000 };
    OrbcTask pick = { orbc_add_cstring(b, "warehouse.pick"), ORBC_TASK_WORKER, t_any, t_any, 0 };
    uint32_t task_charge = orbc_add_task(b, &charge);
    uint32_t task_refund = orbc_add_task(b, &refund);
    uint32_t task_http = orbc_add_task(b, &http);
    uint32_t task_pick = orbc_add_task(b, &pick);

    OrbcStep steps[6];
    /* step 0: charge */
    steps[0] = sample_blank_step(b, "charge", ORBC_STEP_WORKER);
    steps[0].target = task_charge;
    orbc_code_begin(b, file);
    orbc_code_pos(b, 7, 12);
    sample_input_field(b, "order_id");
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_number(b, 10.5));
    uint32_t charge_names[] = { charge_in[0].name, charge_in[1].name };
    orbc_emit_record(b, 2, charge_names);
    steps[0].with_code = orbc_code_end(b);
    orbc_code_begin(b, file);
    orbc_code_pos(b, 8, 21);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_string(b, "charge-", 7));
    orbc_code_pos(b, 8, 33);
    sample_input_field(b, "order_id");
    orbc_emit(b, ORBC_OP_ADD);
    steps[0].key_code = orbc_code_end(b);
    uint32_t codes[] = { orbc_add_cstring(b, "CARD_DECLINED"),
                         orbc_add_cstring(b, "INSUFFICIENT_FUNDS") };
    steps[0].policy = (OrbcPolicy){ 5, ORBC_BACKOFF_EXPONENTIAL, 500, 10000, 2, codes };
    steps[0].timeout_ms = 10000;
    steps[0].queue_timeout_ms = 120000;
    steps[0].has_compensate = true;
    steps[0].compensate = (OrbcCompensate){ task_refund, 20, 5, ORBC_NONE, ORBC_NONE,
                                            { 10, ORBC_BACKOFF_EXPONENTIAL, 1000, 60000, 0,
                                              NULL }, 0, 0 };
    orbc_code_begin(b, file);
    orbc_code_pos(b, 22, 22);
    orbc_emit_u32(b, ORBC_OP_STEP, 0);
    orbc_emit_u32(b, ORBC_OP_FIELD, charge_out[0].name);
    orbc_emit_record(b, 1, charge_names + 0);
    steps[0].compensate.with_code = orbc_code_end(b);

    /* step 1: notify, when input.express ?? false */
    steps[1] = sample_blank_step(b, "notify", ORBC_STEP_BUILTIN);
    steps[1].target = task_http;
    steps[1].timeout_ms = 30000;
    orbc_code_begin(b, file);
    orbc_code_pos(b, 30, 10);
    orbc_emit(b, ORBC_OP_INPUT);
    orbc_emit_u32(b, ORBC_OP_FIELD_OPT, orbc_add_cstring(b, "express"));
    uint32_t site = orbc_emit_jump(b, ORBC_OP_JUMP_IF_NOT_NULL);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_bool(b, false));
    orbc_patch_jump(b, site);
    steps[1].when_code = orbc_code_end(b);
    orbc_code_begin(b, file);
    orbc_code_pos(b, 29, 12);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_string(b, "https://hooks.example/paid", 26));
    orbc_emit_u32(b, ORBC_OP_STEP, 0);
    orbc_emit_u32(b, ORBC_OP_FIELD, charge_out[0].name);
    uint32_t id_name = orbc_add_cstring(b, "id");
    orbc_emit_record(b, 1, &id_name);
    uint32_t http_names[] = { orbc_add_cstring(b, "url"), orbc_add_cstring(b, "body") };
    orbc_emit_record(b, 2, http_names);
    steps[1].with_code = orbc_code_end(b);
    uint32_t deps0[] = { 0 };
    steps[1].dep_count = 1;
    steps[1].deps = deps0;

    /* step 2: pack, a child workflow per item */
    steps[2] = sample_blank_step(b, "pack", ORBC_STEP_WORKFLOW);
    steps[2].target = 1;
    steps[2].timeout_ms = 1800000;
    steps[2].for_var = orbc_add_cstring(b, "item");
    orbc_code_begin(b, file);
    orbc_code_pos(b, 35, 17);
    sample_input_field(b, "items");
    steps[2].for_code = orbc_code_end(b);
    orbc_code_begin(b, file);
    orbc_code_pos(b, 36, 10);
    orbc_emit(b, ORBC_OP_ITEM);
    uint32_t sku = orbc_add_cstring(b, "sku");
    orbc_emit_record(b, 1, &sku);
    steps[2].with_code = orbc_code_end(b);

    /* step 3: approval */
    steps[3] = sample_blank_step(b, "approval", ORBC_STEP_AWAIT);
    steps[3].target = orbc_add_cstring(b, "manager_approved");
    steps[3].timeout_ms = 43200000;

    /* step 4: cool_off */
    steps[4] = sample_blank_step(b, "cool_off", ORBC_STEP_SLEEP);
    orbc_code_begin(b, file);
    orbc_code_pos(b, 41, 27);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_duration(b, 600000));
    steps[4].value_code = orbc_code_end(b);

    /* step 5: big = len(input.items) > 2 && !contains(input.items, "x") || false */
    steps[5] = sample_blank_step(b, "big", ORBC_STEP_COMPUTE);
    orbc_code_begin(b, file);
    orbc_code_pos(b, 42, 25);
    sample_input_field(b, "items");
    orbc_emit_call(b, ORBC_FN_LEN, 1);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_int(b, 2));
    orbc_emit(b, ORBC_OP_GT);
    uint32_t and_site = orbc_emit_jump(b, ORBC_OP_JUMP_IF_FALSE);
    sample_input_field(b, "items");
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_string(b, "x", 1));
    orbc_emit_call(b, ORBC_FN_CONTAINS, 2);
    orbc_emit(b, ORBC_OP_NOT);
    orbc_patch_jump(b, and_site);
    uint32_t or_site = orbc_emit_jump(b, ORBC_OP_JUMP_IF_TRUE);
    orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_bool(b, false));
    orbc_patch_jump(b, or_site);
    steps[5].value_code = orbc_code_end(b);

    OrbcField in_fields[] = { { charge_in[0].name, t_string, false },
                              { orbc_add_cstring(b, "items"), orbc_type_list(b, t_string),
                                false },
                              { orbc_add_cstring(b, "express"),
                                orbc_type_optional(b, t_bool), true } };
    OrbcWorkflow checkout = { orbc_add_cstring(b, "checkout"), file, 14, 1,
                              orbc_type_record(b, ORBC_NONE, 3, in_fields), t_charge_out,
                              86400000, ORBC_NONE, 6, steps };
    orbc_code_begin(b, file);
    orbc_code_pos(b, 44, 10);
    orbc_emit_u32(b, ORBC_OP_STEP, 0);
    orbc_emit_u32(b, ORBC_OP_FIELD, charge_out[0].name);
    orbc_emit_record(b, 1, charge_names + 0);
    checkout.return_code = orbc_code_end(b);
    orbc_add_workflow(b, &checkout);

    /* workflow 1: pack_items */
    OrbcField sku_field = { sku, t_string, false };
    OrbcStep pick_step = sample_blank_step(b, "pick", ORBC_STEP_WORKER);
    pick_step.target = task_pick;
    pick_step.line = 50;
    orbc_code_begin(b, file);
    orbc_code_pos(b, 50, 40);
    sample_input_field(b, "sku");
    orbc_emit_record(b, 1, &sku);
    pick_step.with_code = orbc_code_end(b);
    OrbcWorkflow pack = { orbc_add_cstring(b, "pack_items"), file, 48, 1,
                          orbc_type_record(b, ORBC_NONE, 1, &sku_field), t_any, 0, ORBC_NONE,
                          1, &pick_step };
    orbc_add_workflow(b, &pack);
    return b;
}

/* Builds the sample; the caller frees the builder. */
static OrbcBuilder *sample_builder(void)
{
    return sample_build_in(orbc_builder_new());
}

/* The sample's bytes (malloc'd). */
static uint8_t *sample_bytes(size_t *len)
{
    OrbcBuilder *b = sample_builder();
    uint8_t *bytes = NULL;
    OrbcError err;
    if (!orbc_builder_finish(b, &bytes, len, &err))
        abort();
    orbc_builder_free(b);
    return bytes;
}

#endif
