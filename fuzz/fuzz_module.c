/* The module the runtime's fuzz targets run (fuzz_module.h), built with liborbc's
 * builder. */
#include "fuzz_module.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t record(OrbcBuilder *b, const char *field, OrbcTypeKind kind)
{
    OrbcField f = {.name = orbc_add_cstring(b, field), .type = orbc_type_simple(b, kind)};
    return orbc_type_record(b, ORBC_NONE, 1, &f);
}

static uint32_t code_field_record(OrbcBuilder *b, OrbcOp source, uint32_t step, const char *from,
                                  const char *to)
{
    orbc_code_begin(b, orbc_add_cstring(b, "fuzz.orbit"));
    orbc_code_pos(b, 1, 1);
    if (source == ORBC_OP_STEP)
        orbc_emit_u32(b, ORBC_OP_STEP, step);
    else
        orbc_emit(b, source);
    if (from)
        orbc_emit_u32(b, ORBC_OP_FIELD_OPT, orbc_add_cstring(b, from));
    uint32_t name = orbc_add_cstring(b, to);
    orbc_emit_record(b, 1, &name);
    return orbc_code_end(b);
}

static OrbcStep step(OrbcBuilder *b, const char *name, OrbcStepKind kind, uint32_t target)
{
    OrbcStep s = {
        .name = orbc_add_cstring(b, name), .kind = (uint8_t)kind, .line = 1, .column = 1,
        .target = target, .for_var = ORBC_NONE, .for_code = ORBC_NONE, .when_code = ORBC_NONE,
        .with_code = ORBC_NONE, .key_code = ORBC_NONE, .value_code = ORBC_NONE,
        .policy = {.attempts = 1, .initial_delay_ms = 1000, .max_delay_ms = 60000},
    };
    return s;
}

void fuzz_runtime_module(OrbcModule *module)
{
    OrbcBuilder *b = orbc_builder_new();
    uint32_t any = orbc_type_simple(b, ORBC_TYPE_ANY);
    OrbcTask charge = {.name = orbc_add_cstring(b, "payments.charge"), .kind = ORBC_TASK_WORKER,
                       .input_type = record(b, "order_id", ORBC_TYPE_STRING),
                       .output_type = record(b, "charge_id", ORBC_TYPE_STRING)};
    OrbcTask http = {.name = orbc_add_cstring(b, "orbit.http.request"), .kind = ORBC_TASK_BUILTIN,
                     .input_type = any, .output_type = any, .default_timeout_ms = 30000};
    OrbcTask refund = {.name = orbc_add_cstring(b, "payments.refund"), .kind = ORBC_TASK_WORKER,
                       .input_type = any, .output_type = any};
    uint32_t t_charge = orbc_add_task(b, &charge), t_http = orbc_add_task(b, &http);
    uint32_t t_refund = orbc_add_task(b, &refund);

    OrbcStep main_steps[4];
    main_steps[0] = step(b, "charge", ORBC_STEP_WORKER, t_charge);
    main_steps[0].with_code = code_field_record(b, ORBC_OP_INPUT, 0, "order_id", "order_id");
    main_steps[0].policy = (OrbcPolicy){.attempts = 4, .backoff = ORBC_BACKOFF_EXPONENTIAL,
                                        .initial_delay_ms = 100, .max_delay_ms = 1000};
    main_steps[0].timeout_ms = 500;
    main_steps[0].queue_timeout_ms = 2000;
    main_steps[0].has_compensate = true;
    main_steps[0].compensate = (OrbcCompensate){
        .task = t_refund, .line = 1, .column = 1, .key_code = ORBC_NONE,
        .with_code = code_field_record(b, ORBC_OP_STEP, 0, "charge_id", "charge_id"),
        .policy = {.attempts = 2, .initial_delay_ms = 10, .max_delay_ms = 10}};
    main_steps[1] = step(b, "approval", ORBC_STEP_AWAIT, orbc_add_cstring(b, "approved"));
    main_steps[1].timeout_ms = 5000;
    main_steps[2] = step(b, "notify", ORBC_STEP_BUILTIN, t_http);
    main_steps[2].with_code = code_field_record(b, ORBC_OP_INPUT, 0, "url", "url");
    main_steps[2].policy = (OrbcPolicy){.attempts = 3, .initial_delay_ms = 100, .max_delay_ms = 100};
    main_steps[2].timeout_ms = 30000;
    main_steps[3] = step(b, "child", ORBC_STEP_WORKFLOW, 1);
    main_steps[3].timeout_ms = 3000;
    OrbcWorkflow main_wf = {.name = orbc_add_cstring(b, "main"), .file = orbc_add_cstring(b, "fuzz.orbit"),
                            .line = 1, .column = 1, .input_type = any, .output_type = any,
                            .timeout_ms = 60000, .return_code = ORBC_NONE, .step_count = 4,
                            .steps = main_steps};
    orbc_add_workflow(b, &main_wf);

    OrbcStep child_steps[1] = {step(b, "pay", ORBC_STEP_WORKER, t_charge)};
    child_steps[0].with_code = code_field_record(b, ORBC_OP_INPUT, 0, "order_id", "order_id");
    OrbcWorkflow child_wf = {.name = orbc_add_cstring(b, "sub"), .file = orbc_add_cstring(b, "fuzz.orbit"),
                             .line = 1, .column = 1, .input_type = any, .output_type = any,
                             .return_code = ORBC_NONE, .step_count = 1, .steps = child_steps};
    orbc_add_workflow(b, &child_wf);

    uint8_t *bytes;
    size_t len;
    OrbcError err;
    if (!orbc_builder_finish(b, &bytes, &len, &err) || !orbc_load(bytes, len, module, &err)) {
        fprintf(stderr, "fuzz_runtime_module: %s\n", err.text);
        abort();
    }
    free(bytes);
    orbc_builder_free(b);
}

