/* The members of each block of a test (test_members.h; docs/testing.md, "A test"). */
#include "test_members.h"

#include <string.h>

static const TestMember TEST_MEMBERS[] = {
    { "workflow", TV_WORKFLOW, 0, TN_NONE, false, false, NULL },
    { "input", TV_INPUT, 0, TN_NONE, false, false, NULL },
    { "task", TV_BLOCK, TB_SCRIPT, TN_STRING, false, false, NULL },
    { "step", TV_BLOCK, TB_STEP_SCRIPT, TN_WORD, false, false, NULL },
    { "child", TV_BLOCK, TB_CHILD, TN_WORD, false, false, NULL },
    { "signal", TV_BLOCK, TB_SIGNAL, TN_STRING, true, false, NULL },
    { "http_adapter", TV_BOOL, 0, TN_NONE, false, false, "http_adapter" },
    { "max_events", TV_POSITIVE, 0, TN_NONE, false, false, "max_events" },
    { "expect", TV_BLOCK, TB_EXPECT, TN_NONE, false, false, NULL },
    { "invariant", TV_BLOCK, TB_INVARIANT, TN_STRING, false, false, NULL },
};

static const TestMember INVARIANT_MEMBERS[] = {
    { "holds", TV_CONDITION, 0, TN_NONE, false, false, NULL },
};

static const TestMember SCRIPT_MEMBERS[] = {
    { "attempts", TV_OUTCOMES, 0, TN_NONE, false, false, "attempts" },
    { "pickup", TV_DURATION, 0, TN_NONE, false, false, "pickup_ms" },
    { "no_worker", TV_BOOL, 0, TN_NONE, false, false, "no_worker" },
    { "worker_id", TV_STRING, 0, TN_NONE, false, false, "worker_id" },
};

static const TestMember STEP_SCRIPT_MEMBERS[] = {
    { "attempts", TV_OUTCOMES, 0, TN_NONE, false, false, "attempts" },
    { "pickup", TV_DURATION, 0, TN_NONE, false, false, "pickup_ms" },
    { "no_worker", TV_BOOL, 0, TN_NONE, false, false, "no_worker" },
    { "worker_id", TV_STRING, 0, TN_NONE, false, false, "worker_id" },
    { "compensate", TV_BLOCK, TB_SCRIPT, TN_NONE, false, false, NULL },
};

static const TestMember CHILD_MEMBERS[] = {
    { "step", TV_BLOCK, TB_STEP_SCRIPT, TN_WORD, false, false, NULL },
};

static const TestMember SIGNAL_MEMBERS[] = {
    { "at", TV_DURATION, 0, TN_NONE, false, false, "at_ms" },
    { "payload", TV_VALUE, 0, TN_NONE, false, false, "payload" },
};

static const TestMember EXPECT_MEMBERS[] = {
    { "status", TV_STATUS, 0, TN_NONE, false, false, NULL },
    { "error", TV_CODE, 0, TN_NONE, false, false, NULL },
    { "output", TV_OUTPUT, 0, TN_NONE, false, false, NULL },
    { "output_includes", TV_RECORD, 0, TN_NONE, false, false, NULL },
    { "step", TV_BLOCK, TB_EXPECT_STEP, TN_WORD, false, false, NULL },
    { "events", TV_EVENTS, 0, TN_NONE, false, false, NULL },
};

static const TestMember EXPECT_STEP_MEMBERS[] = {
    { "status", TV_STEP_STATUS, 0, TN_NONE, false, false, NULL },
    { "attempts", TV_COUNT, 0, TN_NONE, false, false, NULL },
    { "error", TV_CODE, 0, TN_NONE, false, false, NULL },
    { "compensated", TV_BOOL, 0, TN_NONE, false, false, NULL },
    { "compensation", TV_COMPENSATION, 0, TN_NONE, false, false, NULL },
};

/* `times` goes through as it is: the runtime repeats the outcome. */
static const TestMember OUTCOME_MEMBERS[] = {
    { "succeed", TV_SUCCEED, 0, TN_NONE, false, true, "succeed" },
    { "fail", TV_BLOCK, TB_FAIL, TN_NONE, false, true, "fail" },
    { "never_answers", TV_TRUE, 0, TN_NONE, false, true, "never_answers" },
    { "lost_after", TV_DURATION, 0, TN_NONE, false, true, "lost_after_ms" },
    { "status", TV_HTTP_STATUS, 0, TN_NONE, false, true, "status" },
    { "network_error", TV_STRING, 0, TN_NONE, false, true, "network_error" },
    { "body", TV_VALUE, 0, TN_NONE, false, false, "body" },
    { "headers", TV_RECORD, 0, TN_NONE, false, false, "headers" },
    { "after", TV_DURATION, 0, TN_NONE, false, false, "after_ms" },
    { "pickup", TV_DURATION, 0, TN_NONE, false, false, "pickup_ms" },
    { "times", TV_POSITIVE, 0, TN_NONE, false, false, "times" },
};

static const TestMember FAIL_MEMBERS[] = {
    { "code", TV_CODE, 0, TN_NONE, false, false, "code" },
    { "message", TV_STRING, 0, TN_NONE, false, false, "message" },
    { "retryable", TV_BOOL, 0, TN_NONE, false, false, "retryable" },
};

#define TABLE(members, what) { members, sizeof members / sizeof members[0], what }
static const struct {
    const TestMember *members;
    uint32_t count;
    const char *what;          /* "unknown member `x` in …" */
} BLOCKS[TB_COUNT] = {
    [TB_TEST] = TABLE(TEST_MEMBERS, "a test"),
    [TB_SCRIPT] = TABLE(SCRIPT_MEMBERS, "a script"),
    [TB_STEP_SCRIPT] = TABLE(STEP_SCRIPT_MEMBERS, "a step's script"),
    [TB_CHILD] = TABLE(CHILD_MEMBERS, "`child`"),
    [TB_SIGNAL] = TABLE(SIGNAL_MEMBERS, "`signal`"),
    [TB_EXPECT] = TABLE(EXPECT_MEMBERS, "`expect`"),
    [TB_EXPECT_STEP] = TABLE(EXPECT_STEP_MEMBERS, "an expected step"),
    [TB_OUTCOME] = TABLE(OUTCOME_MEMBERS, "an outcome"),
    [TB_FAIL] = TABLE(FAIL_MEMBERS, "`fail`"),
    [TB_INVARIANT] = TABLE(INVARIANT_MEMBERS, "`invariant`"),
};
#undef TABLE

_Static_assert(sizeof OUTCOME_MEMBERS / sizeof OUTCOME_MEMBERS[0] == TEST_MEMBERS_MAX,
               "TEST_MEMBERS_MAX is the longest table's length");

const TestMember *check_test_members(TestBlock block, uint32_t *count, const char **what)
{
    *count = BLOCKS[block].count;
    if (what)
        *what = BLOCKS[block].what;
    return BLOCKS[block].members;
}

const TestMember *check_test_member(TestBlock block, const char *word)
{
    for (uint32_t i = 0; i < BLOCKS[block].count; i++) {
        if (strcmp(BLOCKS[block].members[i].name, word) == 0)
            return &BLOCKS[block].members[i];
    }
    return NULL;
}
