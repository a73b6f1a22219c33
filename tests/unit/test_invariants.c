/* The invariants of Orbit tests (testing/invariants.c, docs/testing.md "What must hold in
 * every world"): each built-in one over histories written here event by event, one that
 * keeps it and one that breaks it (an engine that runs programs correctly never writes
 * the second kind: these are the only runs that can show each function failing), and the
 * user's conditions over the final state, with a program compiled in memory. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "lower.h"
#include "workspace.h"

static const char PROGRAM[] =
    "worker \"w.pay\" {\n"
    "  output { id: string }\n"
    "}\n"
    "worker \"w.refund\" {\n"
    "  input { id: string }\n"
    "}\n"
    "workflow one {\n"
    "  step pay {\n"
    "    worker \"w.pay\"\n"
    "    idempotency_key \"k\"\n"
    "    timeout 10s\n"
    "    retry { attempts: 2 }\n"
    "    compensate {\n"
    "      worker \"w.refund\"\n"
    "      with { id: pay.id }\n"
    "    }\n"
    "  }\n"
    "  step wait { await \"go\" }\n"
    "}\n"
    "test \"t\" {\n"
    "  invariant \"refunded on failure\" {\n"
    "    holds: execution.status != \"failed\" || pay.compensation == \"completed\"\n"
    "  }\n"
    "  invariant \"the output\" {\n"
    "    holds: execution.status != \"completed\" || execution.output.id == \"x\"\n"
    "  }\n"
    "}\n";

static Compiler compiler;
static Workspace workspace;
static OrbcModule module;
static const Member *the_test;
static Arena arena;

static void setup(void)
{
    compiler_init(&compiler);
    workspace_init(&workspace, &compiler, false);
    workspace_add_text(&workspace, "t.orbit", strdup(PROGRAM), strlen(PROGRAM));
    workspace_check(&workspace);
    ck_assert_uint_eq(compiler.diags.errors, 0);
    Program *p = workspace.checked[0];
    uint8_t *bytes = NULL;
    size_t len = 0;
    char why[256] = "";
    ck_assert_msg(lower_program(&compiler, p, &bytes, &len, why, sizeof why), "%s", why);
    OrbcError err;
    ck_assert_msg(orbc_load(bytes, len, &module, &err), "load: %s", err.text);
    free(bytes);
    ck_assert_uint_eq(p->test_count, 1);
    the_test = p->tests[0];
    arena_init(&arena);
}

static void teardown(void)
{
    arena_free(&arena);
    orbc_module_free(&module);
    workspace_free(&workspace);
    compiler_free(&compiler);
}

/* A history: events "TIME EVENT [STEP [ATTEMPT [ERROR]]]", a status and an error. */
static TestHistory history(const char *status, const char *error, const char *const *lines,
                           uint32_t count)
{
    TestEvent *events = arena_alloc(&arena, (count + 1) * sizeof *events);
    for (uint32_t i = 0; i < count; i++) {
        char event[64] = "", step[64] = "", code[64] = "";
        long long time = 0, attempt = 0;
        int n = sscanf(lines[i], "%lld %63s %63s %lld %63s", &time, event, step, &attempt, code);
        ck_assert_int_ge(n, 2);
        events[i] = (TestEvent){ time, arena_strndup(&arena, event, strlen(event)),
                                 n >= 3 ? arena_strndup(&arena, step, strlen(step)) : NULL,
                                 n >= 4 ? attempt : 0,
                                 n >= 5 ? arena_strndup(&arena, code, strlen(code)) : NULL,
                                 NULL, lines[i], lines[i] };
    }
    return (TestHistory){ events, count, status, error, NULL, NULL };
}

#define HISTORY(status, error, ...) \
    history(status, error, (const char *const[]){ __VA_ARGS__ }, \
            sizeof (const char *const[]){ __VA_ARGS__ } / sizeof(const char *))

/* The built-in invariant that `h` breaks, or NULL. */
static const char *builtin_broken(const TestHistory *h, bool allow_block)
{
    InvariantRun run = { &module, 0, NULL, true, allow_block };
    InvariantBreak b;
    return testing_invariants_check(&arena, &run, h, &b) ? b.name : NULL;
}

static const char *user_broken(TestHistory *h, const char *output)
{
    h->output = output ? json_loads(output, 0, NULL) : NULL;
    InvariantRun run = { &module, 0, the_test, false, false };
    InvariantBreak b;
    const char *name = testing_invariants_check(&arena, &run, h, &b) ? b.name : NULL;
    json_decref(h->output);
    return name;
}

START_TEST(a_run_that_keeps_them_all)
{
    TestHistory h = HISTORY("completed", NULL, "0 WorkflowStarted", "0 StepScheduled pay 1",
                            "0 StepDispatched pay 1", "10 StepAttemptFailed pay 1 TIMEOUT",
                            "10 StepScheduled pay 2", "10 StepDispatched pay 2",
                            "20 StepCompleted pay 2", "20 SignalWaitStarted wait",
                            "30 StepCompleted wait", "30 WorkflowCompleted");
    ck_assert_ptr_null(builtin_broken(&h, false));
    ck_assert_ptr_null(user_broken(&h, "{\"id\": \"x\"}"));
}
END_TEST

START_TEST(never_blocks)
{
    TestHistory task = HISTORY("blocked", NULL, "0 WorkflowStarted", "0 StepScheduled pay 1",
                               "0 WorkflowBlocked pay");
    ck_assert_str_eq(builtin_broken(&task, false), "never_blocks");
    ck_assert_ptr_null(builtin_broken(&task, true));   /* the test expects the block */
    TestHistory signal = HISTORY("blocked", NULL, "0 WorkflowStarted",
                                 "0 SignalWaitStarted wait", "0 WorkflowBlocked wait");
    ck_assert_ptr_null(builtin_broken(&signal, false));
}
END_TEST

START_TEST(compensations_end)
{
    TestHistory open = HISTORY("failed", "X", "0 StepCompleted pay 1", "5 StepFailed wait 0 X",
                               "5 CompensationStarted pay", "5 WorkflowFailed");
    ck_assert_str_eq(builtin_broken(&open, false), "compensations_end");
    TestHistory ended = HISTORY("failed", "X", "0 StepCompleted pay 1", "5 StepFailed wait 0 X",
                                "5 CompensationStarted pay", "6 CompensationFailed pay",
                                "6 WorkflowFailed");
    ck_assert_ptr_null(builtin_broken(&ended, false));
    TestHistory stopped = HISTORY("stopped", NULL, "0 StepCompleted pay 1",
                                  "5 StepFailed wait 0 X", "5 CompensationStarted pay");
    ck_assert_ptr_null(builtin_broken(&stopped, false));   /* no end to judge */
}
END_TEST

START_TEST(no_attempt_after_end)
{
    TestHistory late = HISTORY("timed_out", NULL, "0 StepScheduled pay 1",
                               "5 WorkflowTimeoutReached", "5 StepScheduled pay 2");
    ck_assert_str_eq(builtin_broken(&late, false), "no_attempt_after_end");
    TestHistory failed = HISTORY("failed", "X", "0 StepFailed pay 0 X",
                                 "1 StepDispatched pay 1");
    ck_assert_str_eq(builtin_broken(&failed, false), "no_attempt_after_end");
    TestHistory compensating = HISTORY("failed", "X", "0 StepCompleted pay 1",
                                       "1 StepFailed wait 0 X", "1 CompensationStarted pay",
                                       "1 StepScheduled pay.compensate 1",
                                       "1 StepDispatched pay.compensate 1",
                                       "2 CompensationCompleted pay 1");
    ck_assert_ptr_null(builtin_broken(&compensating, false));
}
END_TEST

START_TEST(attempts_within_policy)
{
    TestHistory three = HISTORY("completed", NULL, "0 StepScheduled pay 1",
                                "1 StepScheduled pay 2", "2 StepScheduled pay 3");
    ck_assert_str_eq(builtin_broken(&three, false), "attempts_within_policy");
    TestHistory two = HISTORY("completed", NULL, "0 StepScheduled pay 1",
                              "1 StepScheduled pay 2");
    ck_assert_ptr_null(builtin_broken(&two, false));
}
END_TEST

START_TEST(idempotent_single_flight)
{
    TestHistory both = HISTORY("completed", NULL, "0 StepDispatched pay 1",
                               "1 StepDispatched pay 2");
    ck_assert_str_eq(builtin_broken(&both, false), "idempotent_single_flight");
    TestHistory one_after_another = HISTORY("completed", NULL, "0 StepDispatched pay 1",
                                            "1 StepAttemptFailed pay 1 TIMEOUT",
                                            "1 StepDispatched pay 2", "2 StepRedelivered pay 2",
                                            "2 StepDispatched pay 2");
    ck_assert_ptr_null(builtin_broken(&one_after_another, false));
}
END_TEST

START_TEST(the_users_conditions)
{
    TestHistory kept = HISTORY("failed", "X", "0 StepCompleted pay 1", "1 StepFailed wait 0 X",
                               "1 CompensationStarted pay", "2 CompensationCompleted pay 1");
    ck_assert_ptr_null(user_broken(&kept, NULL));
    TestHistory unrefunded = HISTORY("failed", "X", "0 StepCompleted pay 1",
                                     "1 StepFailed wait 0 X", "1 CompensationStarted pay",
                                     "2 CompensationFailed pay 0 Y");
    ck_assert_str_eq(user_broken(&unrefunded, NULL), "refunded on failure");
    TestHistory done = HISTORY("completed", NULL, "0 StepCompleted pay 1",
                               "1 StepCompleted wait");
    ck_assert_str_eq(user_broken(&done, "{\"id\": \"y\"}"), "the output");
    ck_assert_ptr_null(user_broken(&done, "{\"id\": \"x\"}"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("invariants");
    TCase *tc = tcase_create("invariants");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_run_that_keeps_them_all);
    tcase_add_test(tc, never_blocks);
    tcase_add_test(tc, compensations_end);
    tcase_add_test(tc, no_attempt_after_end);
    tcase_add_test(tc, attempts_within_policy);
    tcase_add_test(tc, idempotent_single_flight);
    tcase_add_test(tc, the_users_conditions);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
