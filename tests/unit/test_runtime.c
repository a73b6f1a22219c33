/* Unit tests of the reference runtime (runtime): modules built with liborbc's
 * builder, run against scenarios, histories compared exactly. One module holds one
 * workflow per semantic rule; the table below names the workflow, the scenario and the
 * expected history (or "error: …" for a rejected scenario).
 *
 * ORBIT_RUN_TEST_PRINT=1 prints every actual history instead of comparing (to update the
 * table: read every line before pasting it). */
#define _GNU_SOURCE
#include <check.h>
#include <time.h>

#include "http.h"
#include "test_runtime_fixture.h"

/* Workflow indices; `pack` of `parent` starts `pack_items`. */
enum { WF_PACK_ITEMS = 8 };

static OrbcModule module;

static void add_seed_and_table(Fx *f, uint32_t http, uint32_t charge)
{
    OrbcStep *s = fx_step(f, "broken", ORBC_STEP_BUILTIN, http);
    s->with_code = fx_code(f, "s:http://localhost:1/ rec:url");
    fx_retry(s, 3, ORBC_BACKOFF_EXPONENTIAL, 100, 60000);
    s->timeout_ms = 30000;
    fx_workflow(f, "seed", fx_record(f, ""), 0, ORBC_NONE);

    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A1 rec:order_id");
    fx_retry(s, 6, ORBC_BACKOFF_EXPONENTIAL, 500, 4000);
    fx_workflow(f, "table", fx_record(f, ""), 0, fx_code(f, "step:0 field:charge_id"));
}

static void add_timeouts(Fx *f, uint32_t charge, uint32_t refund)
{
    OrbcStep *s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "input field:id rec:order_id");
    s->key_code = fx_code(f, "s:charge- input field:id add");
    fx_retry(s, 3, ORBC_BACKOFF_FIXED, 1000, 60000);
    s->timeout_ms = 500;
    fx_workflow(f, "late", fx_record(f, "id:string"), 0, fx_code(f, "step:0"));

    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A1 rec:order_id");
    fx_retry(s, 3, ORBC_BACKOFF_FIXED, 1000, 60000);
    s->queue_timeout_ms = 2000;
    fx_workflow(f, "queue", fx_record(f, ""), 0, ORBC_NONE);

    s = fx_step(f, "a", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A rec:order_id");
    fx_compensate(s, refund, fx_code(f, "step:0 field:charge_id rec:charge_id"));
    s = fx_step(f, "b", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:B rec:order_id");
    fx_compensate(s, refund, fx_code(f, "step:1 field:charge_id rec:charge_id"));
    s = fx_step(f, "slow", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:C rec:order_id");
    fx_retry(s, 5, ORBC_BACKOFF_FIXED, 1000, 60000);
    s = fx_step(f, "never", ORBC_STEP_COMPUTE, ORBC_NONE);
    s->value_code = fx_code(f, "i:1");
    fx_workflow(f, "deadline", fx_record(f, ""), 5000, ORBC_NONE);
}

static void add_misc(Fx *f, uint32_t http, uint32_t charge)
{
    OrbcStep *s = fx_step(f, "approval", ORBC_STEP_AWAIT, fx_str(f, "approved"));
    s->timeout_ms = 1000;
    s = fx_step(f, "nap", ORBC_STEP_SLEEP, ORBC_NONE);
    s->value_code = fx_code(f, "d:250");
    s = fx_step(f, "maybe", ORBC_STEP_COMPUTE, ORBC_NONE);
    s->when_code = fx_code(f, "b:0");
    s->value_code = fx_code(f, "i:1");
    s = fx_step(f, "fan", ORBC_STEP_WORKER, charge);
    s->for_var = fx_str(f, "x");
    s->for_code = fx_code(f, "s:a s:b s:c list:3");
    s->with_code = fx_code(f, "item rec:order_id");
    s = fx_step(f, "total", ORBC_STEP_COMPUTE, ORBC_NONE);
    s->value_code = fx_code(f, "step:3 call:0:1 i:10 mul");
    fx_workflow(f, "misc", fx_record(f, ""), 0, fx_code(f, "step:0 step:2 step:4 list:3"));

    s = fx_step(f, "hook", ORBC_STEP_BUILTIN, http);
    s->with_code = fx_code(f, "s:http://x rec:url");
    fx_retry(s, 3, ORBC_BACKOFF_FIXED, 100, 60000);
    fx_workflow(f, "hook", fx_record(f, ""), 0, fx_code(f, "step:0 field:status"));
}

static void add_children_and_errors(Fx *f, uint32_t charge, uint32_t refund, uint32_t pick)
{
    OrbcStep *s = fx_step(f, "pack", ORBC_STEP_WORKFLOW, WF_PACK_ITEMS);
    s->for_var = fx_str(f, "sku");
    s->for_code = fx_code(f, "s:x s:y list:2");
    s->with_code = fx_code(f, "item rec:sku");
    s->timeout_ms = 1000;
    fx_workflow(f, "parent", fx_record(f, ""), 0, fx_code(f, "step:0"));

    s = fx_step(f, "pick", ORBC_STEP_WORKER, pick);
    s->with_code = fx_code(f, "input field:sku rec:sku");
    fx_workflow(f, "pack_items", fx_record(f, "sku:string"), 0, fx_code(f, "step:0"));

    s = fx_step(f, "first", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A rec:order_id");
    fx_compensate(s, refund, fx_code(f, "step:0 field:charge_id rec:charge_id"));
    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A rec:order_id");
    fx_retry(s, 3, ORBC_BACKOFF_FIXED, 10, 60000);
    fx_non_retryable(f, s, "CARD_DECLINED");
    fx_workflow(f, "codes", fx_record(f, ""), 0, ORBC_NONE);

    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "input field:n rec:order_id");
    s = fx_step(f, "div", ORBC_STEP_COMPUTE, ORBC_NONE);
    s->value_code = fx_code(f, "i:1 input field:zero div");
    fx_workflow(f, "contracts", fx_record(f, "n:any,zero:int"), 0, ORBC_NONE);
}

static void build_module(void)
{
    Fx *f = fx_new();
    uint32_t any = fx_simple(f, "any");
    uint32_t http = fx_task(f, "orbit.http.request", true, any,
                            fx_record(f, "status:int,headers:any,body:any"), 30000);
    uint32_t charge = fx_task(f, "payments.charge", false, fx_record(f, "order_id:string"),
                              fx_record(f, "charge_id:string"), 0);
    uint32_t refund = fx_task(f, "payments.refund", false, any, any, 0);
    uint32_t pick = fx_task(f, "warehouse.pick", false, any, any, 0);
    add_seed_and_table(f, http, charge);
    add_timeouts(f, charge, refund);
    add_misc(f, http, charge);
    add_children_and_errors(f, charge, refund, pick);
    fx_load(f, &module);
    free(f);
}

typedef struct Case {
    const char *workflow;
    const char *scenario;
    bool show_values;
    const char *expected;
} Case;

static const Case cases[] = {
    {"seed", "{\"workers\":{\"orbit.http.request\":{\"attempts\":[{\"after_ms\":2,\"network_error\":\"io: Connection refused (os error 111)\"},{\"after_ms\":3,\"network_error\":\"io: Connection refused (os error 111)\"},{\"after_ms\":2,\"network_error\":\"io: Connection refused (os error 111)\"}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=seed\n"
     "+ 0ms #2 StepScheduled step=broken attempt=1\n"
     "+ 0ms #3 StepDispatched step=broken attempt=1 worker_id=orbit-runtime\n"
     "+ 2ms #4 StepAttemptFailed step=broken attempt=1 error=HTTP_ERROR request failed: io: Connection refused (os error 111)\n"
     "+ 2ms #5 RetryScheduled step=broken delay_ms=100\n"
     "+ 102ms #6 StepScheduled step=broken attempt=2\n"
     "+ 102ms #7 StepDispatched step=broken attempt=2 worker_id=orbit-runtime\n"
     "+ 105ms #8 StepAttemptFailed step=broken attempt=2 error=HTTP_ERROR request failed: io: Connection refused (os error 111)\n"
     "+ 105ms #9 RetryScheduled step=broken delay_ms=200\n"
     "+ 305ms #10 StepScheduled step=broken attempt=3\n"
     "+ 305ms #11 StepDispatched step=broken attempt=3 worker_id=orbit-runtime\n"
     "+ 307ms #12 StepAttemptFailed step=broken attempt=3 error=HTTP_ERROR request failed: io: Connection refused (os error 111)\n"
     "+ 307ms #13 StepFailed step=broken error=HTTP_ERROR request failed: io: Connection refused (os error 111) (gave up after 3 attempts)\n"
     "+ 307ms #14 WorkflowFailed workflow=seed step=broken error=HTTP_ERROR request failed: io: Connection refused (os error 111) (gave up after 3 attempts)\n"},
    {"table", "{\"workers\":{\"payments.charge\":{\"attempts\":[{\"fail\":{\"code\":\"DOWN\"}},{\"fail\":{\"code\":\"DOWN\"}},{\"fail\":{\"code\":\"DOWN\"}},{\"fail\":{\"code\":\"DOWN\"}},{\"fail\":{\"code\":\"DOWN\"}},{\"after_ms\":5,\"succeed\":{\"charge_id\":\"ch_1\"}}]}}}", true,
     "+ 0ms #1 WorkflowStarted workflow=table input={}\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1 input={\"order_id\":\"A1\"}\n"
     "+ 0ms #3 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 0ms #4 StepAttemptFailed step=charge attempt=1 error=DOWN\n"
     "+ 0ms #5 RetryScheduled step=charge delay_ms=500\n"
     "+ 500ms #6 StepScheduled step=charge attempt=2 input={\"order_id\":\"A1\"}\n"
     "+ 500ms #7 StepDispatched step=charge attempt=2 worker_id=worker-1\n"
     "+ 500ms #8 StepAttemptFailed step=charge attempt=2 error=DOWN\n"
     "+ 500ms #9 RetryScheduled step=charge delay_ms=1000\n"
     "+ 1500ms #10 StepScheduled step=charge attempt=3 input={\"order_id\":\"A1\"}\n"
     "+ 1500ms #11 StepDispatched step=charge attempt=3 worker_id=worker-1\n"
     "+ 1500ms #12 StepAttemptFailed step=charge attempt=3 error=DOWN\n"
     "+ 1500ms #13 RetryScheduled step=charge delay_ms=2000\n"
     "+ 3500ms #14 StepScheduled step=charge attempt=4 input={\"order_id\":\"A1\"}\n"
     "+ 3500ms #15 StepDispatched step=charge attempt=4 worker_id=worker-1\n"
     "+ 3500ms #16 StepAttemptFailed step=charge attempt=4 error=DOWN\n"
     "+ 3500ms #17 RetryScheduled step=charge delay_ms=4000\n"
     "+ 7500ms #18 StepScheduled step=charge attempt=5 input={\"order_id\":\"A1\"}\n"
     "+ 7500ms #19 StepDispatched step=charge attempt=5 worker_id=worker-1\n"
     "+ 7500ms #20 StepAttemptFailed step=charge attempt=5 error=DOWN\n"
     "+ 7500ms #21 RetryScheduled step=charge delay_ms=4000\n"
     "+ 11500ms #22 StepScheduled step=charge attempt=6 input={\"order_id\":\"A1\"}\n"
     "+ 11500ms #23 StepDispatched step=charge attempt=6 worker_id=worker-1\n"
     "+ 11505ms #24 StepCompleted step=charge attempt=6 output={\"charge_id\":\"ch_1\"}\n"
     "+ 11505ms #25 WorkflowCompleted workflow=table output=\"ch_1\"\n"},
    {"late", "{\"input\":{\"id\":\"A1\"},\"workers\":{\"payments.charge\":{\"attempts\":[{\"after_ms\":700,\"succeed\":{\"charge_id\":\"ch_late\"}},{\"never_answers\":true}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=late\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1 idempotency_key=charge-A1\n"
     "+ 0ms #3 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 500ms #4 StepAttemptFailed step=charge attempt=1 error=TIMEOUT the attempt did not finish within the step timeout of 500ms\n"
     "+ 500ms #5 RetryScheduled step=charge delay_ms=1000\n"
     "+ 700ms #6 StepCompleted step=charge attempt=1\n"
     "+ 700ms #7 WorkflowCompleted workflow=late output={\"charge_id\":\"ch_late\"}\n"},
    {"queue", "{\"workers\":{\"payments.charge\":{\"attempts\":[{\"pickup_ms\":1500,\"after_ms\":10,\"fail\":{\"code\":\"BUSY\"}},{\"pickup_ms\":1500,\"succeed\":{\"charge_id\":\"x\"}}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=queue\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1\n"
     "+ 1500ms #3 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 1510ms #4 StepAttemptFailed step=charge attempt=1 error=BUSY\n"
     "+ 1510ms #5 RetryScheduled step=charge delay_ms=1000\n"
     "+ 2510ms #6 StepScheduled step=charge attempt=2\n"
     "+ 4010ms #7 StepDispatched step=charge attempt=2 worker_id=worker-1\n"
     "+ 4010ms #8 StepCompleted step=charge attempt=2\n"
     "+ 4010ms #9 WorkflowCompleted workflow=queue output=null\n"},
    {"queue", "{\"workers\":{\"payments.charge\":{\"no_worker\":true}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=queue\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1\n"
     "+ 2000ms #3 StepAttemptFailed step=charge attempt=1 error=QUEUE_TIMEOUT no worker picked the task up within the queue timeout of 2s\n"
     "+ 2000ms #4 StepFailed step=charge error=QUEUE_TIMEOUT no worker picked the task up within the queue timeout of 2s\n"
     "+ 2000ms #5 WorkflowFailed workflow=queue step=charge error=QUEUE_TIMEOUT no worker picked the task up within the queue timeout of 2s\n"},
    {"deadline", "{\"workers\":{\"payments.charge\":{\"worker_id\":\"w-7\",\"attempts\":[{\"after_ms\":100,\"succeed\":{\"charge_id\":\"c1\"}},{\"after_ms\":100,\"succeed\":{\"charge_id\":\"c2\"}},{\"lost_after_ms\":50},{\"after_ms\":100,\"fail\":{\"code\":\"X\"}},{\"after_ms\":100,\"fail\":{\"code\":\"X\"}},{\"after_ms\":100,\"fail\":{\"code\":\"X\"}},{\"never_answers\":true}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=deadline\n"
     "+ 0ms #2 StepScheduled step=a attempt=1\n"
     "+ 0ms #3 StepDispatched step=a attempt=1 worker_id=w-7\n"
     "+ 100ms #4 StepCompleted step=a attempt=1\n"
     "+ 100ms #5 StepScheduled step=b attempt=1\n"
     "+ 100ms #6 StepDispatched step=b attempt=1 worker_id=w-7\n"
     "+ 200ms #7 StepCompleted step=b attempt=1\n"
     "+ 200ms #8 StepScheduled step=slow attempt=1\n"
     "+ 200ms #9 StepDispatched step=slow attempt=1 worker_id=w-7\n"
     "+ 250ms #10 StepRedelivered step=slow attempt=1\n"
     "+ 250ms #11 StepDispatched step=slow attempt=1 worker_id=w-7\n"
     "+ 350ms #12 StepAttemptFailed step=slow attempt=1 error=X\n"
     "+ 350ms #13 RetryScheduled step=slow delay_ms=1000\n"
     "+ 1350ms #14 StepScheduled step=slow attempt=2\n"
     "+ 1350ms #15 StepDispatched step=slow attempt=2 worker_id=w-7\n"
     "+ 1450ms #16 StepAttemptFailed step=slow attempt=2 error=X\n"
     "+ 1450ms #17 RetryScheduled step=slow delay_ms=1000\n"
     "+ 2450ms #18 StepScheduled step=slow attempt=3\n"
     "+ 2450ms #19 StepDispatched step=slow attempt=3 worker_id=w-7\n"
     "+ 2550ms #20 StepAttemptFailed step=slow attempt=3 error=X\n"
     "+ 2550ms #21 RetryScheduled step=slow delay_ms=1000\n"
     "+ 3550ms #22 StepScheduled step=slow attempt=4\n"
     "+ 3550ms #23 StepDispatched step=slow attempt=4 worker_id=w-7\n"
     "+ 5000ms #24 WorkflowTimeoutReached workflow=deadline timeout_ms=5000\n"
     "+ 5000ms #25 StepCancelled step=slow attempt=4\n"
     "+ 5000ms #26 CompensationStarted step=b\n"
     "+ 5000ms #27 StepScheduled step=b.compensate attempt=1\n"
     "+ 5000ms #28 StepDispatched step=b.compensate attempt=1 worker_id=worker-1\n"
     "+ 5010ms #29 CompensationCompleted step=b attempt=1\n"
     "+ 5010ms #30 CompensationStarted step=a\n"
     "+ 5010ms #31 StepScheduled step=a.compensate attempt=1\n"
     "+ 5010ms #32 StepDispatched step=a.compensate attempt=1 worker_id=worker-1\n"
     "+ 5020ms #33 CompensationCompleted step=a attempt=1\n"
     "+ 5020ms #34 WorkflowTimedOut workflow=deadline timeout_ms=5000\n"},
    {"misc", "{\"signals\":[{\"name\":\"approved\",\"at_ms\":300,\"payload\":{\"by\":\"ann\"}}]}", true,
     "+ 0ms #1 WorkflowStarted workflow=misc input={}\n"
     "+ 0ms #2 SignalWaitStarted step=approval signal=approved timeout_ms=1000\n"
     "+ 300ms #3 SignalReceived signal=approved payload={\"by\":\"ann\"}\n"
     "+ 300ms #4 StepCompleted step=approval output={\"by\":\"ann\"}\n"
     "+ 300ms #5 TimerStarted step=nap duration_ms=250\n"
     "+ 550ms #6 TimerFired step=nap\n"
     "+ 550ms #7 StepCompleted step=nap output=null\n"
     "+ 550ms #8 StepSkipped step=maybe\n"
     "+ 550ms #9 StepScheduled step=fan[0] attempt=1 input={\"order_id\":\"a\"}\n"
     "+ 550ms #10 StepScheduled step=fan[1] attempt=1 input={\"order_id\":\"b\"}\n"
     "+ 550ms #11 StepScheduled step=fan[2] attempt=1 input={\"order_id\":\"c\"}\n"
     "+ 550ms #12 StepDispatched step=fan[0] attempt=1 worker_id=worker-1\n"
     "+ 550ms #13 StepDispatched step=fan[1] attempt=1 worker_id=worker-1\n"
     "+ 550ms #14 StepDispatched step=fan[2] attempt=1 worker_id=worker-1\n"
     "+ 560ms #15 StepCompleted step=fan[0] attempt=1 output={\"charge_id\":\"\"}\n"
     "+ 560ms #16 StepCompleted step=fan[1] attempt=1 output={\"charge_id\":\"\"}\n"
     "+ 560ms #17 StepCompleted step=fan[2] attempt=1 output={\"charge_id\":\"\"}\n"
     "+ 560ms #18 StepCompleted step=fan output=[{\"charge_id\":\"\"},{\"charge_id\":\"\"},{\"charge_id\":\"\"}]\n"
     "+ 560ms #19 StepCompleted step=total output=30\n"
     "+ 560ms #20 WorkflowCompleted workflow=misc output=[{\"by\":\"ann\"},null,30]\n"},
    {"misc", "{}", false,
     "+ 0ms #1 WorkflowStarted workflow=misc\n"
     "+ 0ms #2 SignalWaitStarted step=approval signal=approved timeout_ms=1000\n"
     "+ 1000ms #3 StepFailed step=approval error=SIGNAL_TIMEOUT no signal `approved` arrived within the timeout of 1s\n"
     "+ 1000ms #4 WorkflowFailed workflow=misc step=approval error=SIGNAL_TIMEOUT no signal `approved` arrived within the timeout of 1s\n"},
    {"hook", "{\"http_adapter\":false}", false,
     "+ 0ms #1 WorkflowStarted workflow=hook\n"
     "+ 0ms #2 StepScheduled step=hook attempt=1\n"
     "+ 0ms #3 StepAttemptFailed step=hook attempt=1 error=ADAPTER_DISABLED the `orbit.http.request` adapter is not enabled on this server\n"
     "+ 0ms #4 StepFailed step=hook error=ADAPTER_DISABLED the `orbit.http.request` adapter is not enabled on this server\n"
     "+ 0ms #5 WorkflowFailed workflow=hook step=hook error=ADAPTER_DISABLED the `orbit.http.request` adapter is not enabled on this server\n"},
    {"hook", "{\"workers\":{\"orbit.http.request\":{\"attempts\":[{\"status\":503},{\"status\":429},{\"status\":201,\"body\":{\"ok\":true}}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=hook\n"
     "+ 0ms #2 StepScheduled step=hook attempt=1\n"
     "+ 0ms #3 StepDispatched step=hook attempt=1 worker_id=orbit-runtime\n"
     "+ 0ms #4 StepAttemptFailed step=hook attempt=1 error=HTTP_ERROR request failed: status 503\n"
     "+ 0ms #5 RetryScheduled step=hook delay_ms=100\n"
     "+ 100ms #6 StepScheduled step=hook attempt=2\n"
     "+ 100ms #7 StepDispatched step=hook attempt=2 worker_id=orbit-runtime\n"
     "+ 100ms #8 StepAttemptFailed step=hook attempt=2 error=HTTP_ERROR request failed: status 429\n"
     "+ 100ms #9 RetryScheduled step=hook delay_ms=100\n"
     "+ 200ms #10 StepScheduled step=hook attempt=3\n"
     "+ 200ms #11 StepDispatched step=hook attempt=3 worker_id=orbit-runtime\n"
     "+ 200ms #12 StepCompleted step=hook attempt=3\n"
     "+ 200ms #13 WorkflowCompleted workflow=hook output=201\n"},
    {"hook", "{\"workers\":{\"orbit.http.request\":{\"attempts\":[{\"status\":503},{\"status\":404}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=hook\n"
     "+ 0ms #2 StepScheduled step=hook attempt=1\n"
     "+ 0ms #3 StepDispatched step=hook attempt=1 worker_id=orbit-runtime\n"
     "+ 0ms #4 StepAttemptFailed step=hook attempt=1 error=HTTP_ERROR request failed: status 503\n"
     "+ 0ms #5 RetryScheduled step=hook delay_ms=100\n"
     "+ 100ms #6 StepScheduled step=hook attempt=2\n"
     "+ 100ms #7 StepDispatched step=hook attempt=2 worker_id=orbit-runtime\n"
     "+ 100ms #8 StepAttemptFailed step=hook attempt=2 error=HTTP_ERROR request failed: status 404\n"
     "+ 100ms #9 StepFailed step=hook error=HTTP_ERROR request failed: status 404\n"
     "+ 100ms #10 WorkflowFailed workflow=hook step=hook error=HTTP_ERROR request failed: status 404\n"},
    {"hook", "{\"steps\":{\"hook\":{\"attempts\":[{\"never_answers\":true},{\"after_ms\":5,\"succeed\":{\"status\":1,\"headers\":{},\"body\":null}}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=hook\n"
     "+ 0ms #2 StepScheduled step=hook attempt=1\n"
     "+ 0ms #3 StepDispatched step=hook attempt=1 worker_id=orbit-runtime\n"
     "+ 30000ms #4 StepAttemptFailed step=hook attempt=1 error=TIMEOUT the attempt did not finish within the step timeout of 30s\n"
     "+ 30000ms #5 RetryScheduled step=hook delay_ms=100\n"
     "+ 30100ms #6 StepScheduled step=hook attempt=2\n"
     "+ 30100ms #7 StepDispatched step=hook attempt=2 worker_id=orbit-runtime\n"
     "+ 30105ms #8 StepCompleted step=hook attempt=2\n"
     "+ 30105ms #9 WorkflowCompleted workflow=hook output=1\n"},
    {"parent", "{\"steps\":{\"pack_items.pick\":{\"attempts\":[{\"after_ms\":20,\"succeed\":{\"ok\":1}},{\"never_answers\":true}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=parent\n"
     "+ 0ms #2 ChildWorkflowStarted step=pack[0] workflow=pack_items\n"
     "+ 0ms #3 ChildWorkflowStarted step=pack[1] workflow=pack_items\n"
     "+ 0ms #4 StepScheduled step=pack[0]/pick attempt=1\n"
     "+ 0ms #5 StepScheduled step=pack[1]/pick attempt=1\n"
     "+ 0ms #6 StepDispatched step=pack[0]/pick attempt=1 worker_id=worker-1\n"
     "+ 0ms #7 StepDispatched step=pack[1]/pick attempt=1 worker_id=worker-1\n"
     "+ 20ms #8 StepCompleted step=pack[0]/pick attempt=1\n"
     "+ 20ms #9 ChildWorkflowCompleted step=pack[0] workflow=pack_items\n"
     "+ 20ms #10 StepCompleted step=pack[0]\n"
     "+ 1000ms #11 StepCancelled step=pack[1]/pick attempt=1\n"
     "+ 1000ms #12 ChildWorkflowCancelled step=pack[1] workflow=pack_items\n"
     "+ 1000ms #13 StepFailed step=pack[1] error=TIMEOUT the child workflow `pack_items` did not finish within the step timeout of 1s\n"
     "+ 1000ms #14 WorkflowFailed workflow=parent step=pack[1] error=TIMEOUT the child workflow `pack_items` did not finish within the step timeout of 1s\n"},
    {"codes", "{\"workers\":{\"payments.charge\":{\"attempts\":[{\"succeed\":{\"charge_id\":\"c1\"}},{\"fail\":{\"code\":\"card_declined\",\"message\":\"declined\"}},{\"fail\":{\"code\":\"CARD_DECLINED\",\"message\":\"declined\",\"retryable\":true}}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=codes\n"
     "+ 0ms #2 StepScheduled step=first attempt=1\n"
     "+ 0ms #3 StepDispatched step=first attempt=1 worker_id=worker-1\n"
     "+ 0ms #4 StepCompleted step=first attempt=1\n"
     "+ 0ms #5 StepScheduled step=charge attempt=1\n"
     "+ 0ms #6 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 0ms #7 StepAttemptFailed step=charge attempt=1 error=card_declined declined\n"
     "+ 0ms #8 RetryScheduled step=charge delay_ms=10\n"
     "+ 10ms #9 StepScheduled step=charge attempt=2\n"
     "+ 10ms #10 StepDispatched step=charge attempt=2 worker_id=worker-1\n"
     "+ 10ms #11 StepAttemptFailed step=charge attempt=2 error=CARD_DECLINED declined\n"
     "+ 10ms #12 StepFailed step=charge error=CARD_DECLINED declined\n"
     "+ 10ms #13 CompensationStarted step=first\n"
     "+ 10ms #14 StepScheduled step=first.compensate attempt=1\n"
     "+ 10ms #15 StepDispatched step=first.compensate attempt=1 worker_id=worker-1\n"
     "+ 20ms #16 CompensationCompleted step=first attempt=1\n"
     "+ 20ms #17 WorkflowFailed workflow=codes step=charge error=CARD_DECLINED declined\n"},
    {"contracts", "{\"input\":{\"n\":5,\"zero\":0}}", false,
     "+ 0ms #1 WorkflowStarted workflow=contracts\n"
     "+ 0ms #2 StepFailed step=charge error=INPUT_CONTRACT_VIOLATION input does not match the contract of `payments.charge`: expected string at `order_id`, found int\n"
     "+ 0ms #3 WorkflowFailed workflow=contracts step=charge error=INPUT_CONTRACT_VIOLATION input does not match the contract of `payments.charge`: expected string at `order_id`, found int\n"},
    {"contracts", "{\"input\":{\"n\":\"A\",\"zero\":0},\"workers\":{\"payments.charge\":{\"attempts\":[{\"succeed\":{\"charge_id\":7}}]}}}", false,
     "+ 0ms #1 WorkflowStarted workflow=contracts\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1\n"
     "+ 0ms #3 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 0ms #4 StepAttemptFailed step=charge attempt=1 error=OUTPUT_CONTRACT_VIOLATION output does not match the contract of `payments.charge`: expected string at `charge_id`, found int\n"
     "+ 0ms #5 StepFailed step=charge error=OUTPUT_CONTRACT_VIOLATION output does not match the contract of `payments.charge`: expected string at `charge_id`, found int\n"
     "+ 0ms #6 WorkflowFailed workflow=contracts step=charge error=OUTPUT_CONTRACT_VIOLATION output does not match the contract of `payments.charge`: expected string at `charge_id`, found int\n"},
    {"contracts", "{\"input\":{\"n\":\"A\",\"zero\":0}}", false,
     "+ 0ms #1 WorkflowStarted workflow=contracts\n"
     "+ 0ms #2 StepScheduled step=charge attempt=1\n"
     "+ 0ms #3 StepDispatched step=charge attempt=1 worker_id=worker-1\n"
     "+ 10ms #4 StepCompleted step=charge attempt=1\n"
     "+ 10ms #5 StepFailed step=div error=EXPRESSION_ERROR `compute`: t.orbit:3:7: division by zero\n"
     "+ 10ms #6 WorkflowFailed workflow=contracts step=div error=EXPRESSION_ERROR `compute`: t.orbit:3:7: division by zero\n"},
    {"contracts", "{\"input\":{\"n\":\"A\"}}", false,
     "error: missing field `zero`"},
    {"contracts", "{\"steps\":{\"div\":{}}}", false,
     "error: s.json: steps[\"div\"]: `div` is a compute step; only task and child-workflow steps have scripted outcomes"},
    {"contracts", "{\"workers\":{\"payments.charg\":{}}}", false,
     "error: s.json: workers: unknown worker or built-in task `payments.charg` (did you mean `payments.charge`?)"},
    {"contracts", "{\"workers\":{\"payments.charge\":{\"attempts\":[{\"afterms\":1}]}}}", false,
     "error: s.json: workers[\"payments.charge\"].attempts[0]: unknown key `afterms` (did you mean `after_ms`?)"},
    {"contracts", "{\"workers\": [1,}", false,
     "error: s.json:1:16: unexpected token near '}'"},
    {"misc", "{\"signals\":[{\"name\":\"aproved\",\"at_ms\":300}]}", false,
     "error: s.json: signals[0].name: unknown signal `aproved` (did you mean `approved`?)"},
    {NULL, "{}", false,
     "error: the program has 11 workflows; choose one with --workflow NAME (`seed`, `table`, `late`, `queue`, `deadline`, `misc`, `hook`, `parent`, `pack_items`, `codes`, …)"},
};

static void setup(void)
{
    build_module();
}

static void teardown(void)
{
    orbc_module_free(&module);
}

START_TEST(history_matches)
{
    const Case *c = &cases[_i];
    char *actual = fx_run(&module, c->workflow, c->scenario, c->show_values, NULL);
    if (getenv("ORBIT_RUN_TEST_PRINT"))
        printf("---- case %d\n%s\n", _i, actual);
    else
        ck_assert_str_eq(actual, c->expected);
    free(actual);
}
END_TEST

/* The same scenario twice gives the same bytes: virtual time has no jitter. */
START_TEST(runs_are_repeatable)
{
    char *first = fx_run(&module, "deadline", cases[5].scenario, true, NULL);
    char *second = fx_run(&module, "deadline", cases[5].scenario, true, NULL);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
}
END_TEST

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* 10 000 task steps, each failing once and retried: well under a second. */
START_TEST(ten_thousand_steps_with_retries)
{
    enum { STEPS = 10000 };
    Fx *f = fx_new();
    uint32_t any = fx_simple(f, "any");
    uint32_t task = fx_task(f, "work", false, any, any, 0);
    uint32_t with = fx_code(f, "input field:n rec:n");
    char name[32];
    for (int i = 0; i < STEPS; i++) {
        snprintf(name, sizeof name, "s%d", i);
        OrbcStep *s = fx_step(f, name, ORBC_STEP_WORKER, task);
        s->with_code = i == 0 ? with : fx_code(f, "input field:n rec:n");
        fx_retry(s, 3, ORBC_BACKOFF_EXPONENTIAL, 100, 1000);
        s->timeout_ms = 1000;
    }
    fx_workflow(f, "big", fx_record(f, "n:int"), 0, ORBC_NONE);
    OrbcModule big;
    fx_load(f, &big);
    free(f);
    /* Every step: one failure, then a success. */
    size_t cap = 64 + (size_t)STEPS * 80;
    char *scenario = malloc(cap);
    size_t len = (size_t)snprintf(scenario, cap, "{\"input\":{\"n\":1},\"workers\":{\"work\":{\"attempts\":[");
    for (int i = 0; i < STEPS; i++)
        len += (size_t)snprintf(scenario + len, cap - len,
                                "%s{\"after_ms\":3,\"fail\":{\"code\":\"BUSY\"}},{\"after_ms\":7,\"succeed\":{}}",
                                i ? "," : "");
    snprintf(scenario + len, cap - len, "]}}}");
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    EngineStatus status;
    char *history = fx_run(&big, NULL, scenario, false, &status);
    double took = seconds_since(&start);
    fprintf(stderr, "10000 steps with retries: %.3f s\n", took);
    ck_assert_int_eq(status, ENGINE_COMPLETED);
    /* 1 start + 10000 x (scheduled, dispatched, failed, retry, scheduled, dispatched,
     * completed) + 1 end */
    const char *last = strrchr(history, '#');
    ck_assert_ptr_nonnull(last);
    ck_assert_int_eq(atoi(last + 1), 2 + STEPS * 7);
    ck_assert(took < 5.0);   /* generous for sanitizer builds; about 0.1 s optimized */
    free(history);
    free(scenario);
    orbc_module_free(&big);
}
END_TEST

/* ---- orbit.http.request: which requests are valid (docs/runtime.md) ---- */

static const struct {
    const char *request;     /* the input, as JSON */
    const char *problem;     /* NULL: valid */
} http_cases[] = {
    { "{\"url\":\"https://hooks.example/paid\"}", NULL },
    { "{\"url\":\"http://h\",\"method\":null,\"headers\":null,\"query\":null}", NULL },
    { "{\"url\":\"HtTpS://u:p@h.example:65535/a?b=c#d\",\"method\":\"DELETE\"}", NULL },
    { "{\"url\":\"http://[::1]:8080/x\",\"method\":\"OPTIONS\"}", NULL },
    { "{\"url\":\"http://h?x\",\"headers\":{\"x-id\":\"1\"},\"query\":{\"q\":\"\"}}", NULL },
    { "{\"url\":\"::not a url::\",\"method\":\"BOGUS METHOD\"}",
      "invalid request: url \"::not a url::\" is not an absolute http or https URL" },
    { "{\"url\":\"ftp://h/x\"}",
      "invalid request: url \"ftp://h/x\" is not an absolute http or https URL" },
    { "{\"url\":\"https:///path\"}",
      "invalid request: url \"https:///path\" is not an absolute http or https URL" },
    { "{\"url\":\"https://user@/x\"}",
      "invalid request: url \"https://user@/x\" is not an absolute http or https URL" },
    { "{\"url\":\"https://h:65536/\"}",
      "invalid request: url \"https://h:65536/\" is not an absolute http or https URL" },
    { "{\"url\":\"https://h:/\"}",
      "invalid request: url \"https://h:/\" is not an absolute http or https URL" },
    { "{\"url\":\"https://h/a b\"}",
      "invalid request: url \"https://h/a b\" is not an absolute http or https URL" },
    { "{\"url\":\"https://[::1/\"}",
      "invalid request: url \"https://[::1/\" is not an absolute http or https URL" },
    { "{\"url\":\"https://h\",\"method\":\"get\"}",
      "invalid request: method \"get\" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, "
      "OPTIONS" },
    { "{\"url\":\"https://h\",\"headers\":[\"a\"]}",
      "invalid request: `headers` must be a record of strings, found list" },
    { "{\"url\":\"https://h\",\"headers\":{\"a b\":\"1\"}}",
      "invalid request: header name \"a b\" is not an HTTP token" },
    { "{\"url\":\"https://h\",\"headers\":{\"a\":1}}",
      "invalid request: `headers` \"a\" must be a string, found int" },
    { "{\"url\":\"https://h\",\"headers\":{\"a\":\"x\\r\\ny: z\"}}",
      "invalid request: header \"a\" has a line break or NUL in its value" },
    { "{\"url\":\"https://h\",\"query\":{\"page\":2}}",
      "invalid request: `query` \"page\" must be a string, found int" },
    { "{\"url\":\"https://h\",\"query\":\"a=1\"}",
      "invalid request: `query` must be a record of strings, found string" },
};

START_TEST(http_requests)
{
    Arena arena;
    arena_init(&arena);
    Value request;
    char err[256];
    const char *json = http_cases[_i].request;
    ck_assert_msg(scenario_load_value("case", json, strlen(json), &arena, &request, err, sizeof err),
                  "%s", err);
    const char *problem = http_request_problem(&arena, request);
    if (http_cases[_i].problem)
        ck_assert_msg(problem && strcmp(problem, http_cases[_i].problem) == 0,
                      "%s: got %s", json, problem ? problem : "(valid)");
    else
        ck_assert_msg(!problem, "%s: %s", json, problem);
    arena_free(&arena);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("histories");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, history_matches, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, runs_are_repeatable);
    tcase_add_loop_test(tc, http_requests, 0, (int)(sizeof http_cases / sizeof http_cases[0]));
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    TCase *perf = tcase_create("speed");
    tcase_add_test(perf, ten_thousand_steps_with_retries);
    tcase_set_timeout(perf, 120);
    suite_add_tcase(s, perf);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? 1 : 0;
}
