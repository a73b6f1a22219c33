/* Which members each place may hold, written once (the language reference's table,
 * docs/reference/04-steps.md, and diagnostics/explain/E0307.md's show it to users, checked
 * against MEMBERS by tests/code/test_reference.py): place_allows and the checker's
 * suggestions for a misspelt member (place_members) both read MEMBERS. */
#include "placement.h"

/* One row per member, in the order a misspelt member's suggestions are tried: on a tie
 * the first row wins (tests/golden/steps/suggestion_order.orbit). Columns in Place order; the
 * last, a step whose action is unknown, allows everything a step may hold. A step's
 * action is allowed on every step, so that a second one is reported as such (E0302). */
static const struct { Keyword kw; bool yes[PLACE_COUNT]; } MEMBERS[] = {
    /*                         task   wf     sleep  await  comp   compen body   unknown */
    { KW_INPUT,           { false, false, false, false, false, false, true,  false } },
    { KW_OUTPUT,          { false, false, false, false, false, false, true,  false } },
    { KW_WORKER,          { true,  true,  true,  true,  true,  true,  false, true } },
    { KW_USING,           { true,  true,  true,  true,  true,  true,  false, true } },
    { KW_WORKFLOW,        { true,  true,  true,  true,  true,  false, false, true } },
    { KW_SLEEP,           { true,  true,  true,  true,  true,  false, false, true } },
    { KW_AWAIT,           { true,  true,  true,  true,  true,  false, false, true } },
    { KW_COMPUTE,         { true,  true,  true,  true,  true,  false, false, true } },
    { KW_WITH,            { true,  true,  false, false, false, true,  false, true } },
    { KW_WHEN,            { true,  true,  true,  true,  true,  false, false, true } },
    { KW_FOR,             { true,  true,  false, false, true,  false, false, true } },
    { KW_IDEMPOTENCY_KEY, { true,  false, false, false, false, true,  false, true } },
    { KW_RETRY,           { true,  false, false, false, false, true,  false, true } },
    { KW_TIMEOUT,         { true,  true,  false, true,  false, true,  true,  true } },
    { KW_QUEUE_TIMEOUT,   { true,  false, false, false, false, true,  false, true } },
    { KW_COMPENSATE,      { true,  false, false, false, false, false, false, true } },
    { KW_STEP,            { false, false, false, false, false, false, true,  false } },
    { KW_RETURN,          { false, false, false, false, false, false, true,  false } },
};

#define MEMBER_ROWS (uint32_t)(sizeof MEMBERS / sizeof MEMBERS[0])
_Static_assert(MEMBER_ROWS == PLACE_MEMBERS_MAX, "PLACE_MEMBERS_MAX counts the rows");

Place place_of_action(Keyword kw)
{
    switch (kw) {
    case KW_WORKER: case KW_USING: return PLACE_TASK;
    case KW_WORKFLOW: return PLACE_WORKFLOW_STEP;
    case KW_SLEEP: return PLACE_SLEEP;
    case KW_AWAIT: return PLACE_AWAIT;
    case KW_COMPUTE: return PLACE_COMPUTE;
    default: return PLACE_UNKNOWN_STEP;
    }
}

bool place_allows(Keyword kw, Place place)
{
    for (uint32_t i = 0; i < MEMBER_ROWS; i++)
        if (MEMBERS[i].kw == kw)
            return MEMBERS[i].yes[place];
    return false;
}

uint32_t place_members(Place place, const char *names[PLACE_MEMBERS_MAX])
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < MEMBER_ROWS; i++)
        if (MEMBERS[i].yes[place])
            names[n++] = keyword_text(MEMBERS[i].kw);
    return n;
}
