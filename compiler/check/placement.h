/* Where a member is written, and which members each place may hold (E0307 where not;
 * diagnostics/explain/E0307.md). One table, in placement.c: read by the checker, and by
 * the language server's completion (only what is valid at the cursor is offered). */
#ifndef ORBIT_PLACEMENT_H
#define ORBIT_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"

typedef enum Place {
    PLACE_TASK, PLACE_WORKFLOW_STEP, PLACE_SLEEP, PLACE_AWAIT, PLACE_COMPUTE,
    PLACE_COMPENSATE, PLACE_WORKFLOW_BODY, PLACE_UNKNOWN_STEP,
    PLACE_COUNT
} Place;

/* Whether the keyword is a step's action: worker, using, workflow, sleep, await, compute. */
static inline bool is_action(Keyword kw)
{
    enum {
        ACTIONS = 1u << KW_WORKER | 1u << KW_USING | 1u << KW_WORKFLOW | 1u << KW_SLEEP |
                  1u << KW_AWAIT | 1u << KW_COMPUTE,
    };
    return (ACTIONS >> kw) & 1u;
}

/* The place a step's members are in, from its action (PLACE_UNKNOWN_STEP for none). */
Place place_of_action(Keyword action);

/* Whether a member `kw` may be written in `place`. */
bool place_allows(Keyword kw, Place place);

/* The number of members of the table (every keyword that is a member somewhere). */
#define PLACE_MEMBERS_MAX 18

/* The names of the members `place` allows, in the order suggestions are tried for a
 * misspelt one; returns how many. */
uint32_t place_members(Place place, const char *names[PLACE_MEMBERS_MAX]);

#endif
