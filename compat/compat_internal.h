/* What compat/'s files share: the comparison under way (CompatRun), the effects that say
 * which places each change stops, and the comparisons of code and contracts. */
#ifndef ORBIT_COMPAT_INTERNAL_H
#define ORBIT_COMPAT_INTERNAL_H

#include "compat.h"
#include "namemap.h"

/* Which places of OLD's workflow `wf` a change stops, seen from its step (places.c). */
typedef enum CompatAspect {
    ASPECT_WORKFLOW,        /* every place of the workflow (removed, input, timeout) */
    ASPECT_RESULT,          /* the end: an execution that completed (a child) or compensates */
    ASPECT_IDENTITY,        /* the step and every place at it or after it */
    ASPECT_ATTEMPTS,        /* fewer attempts: `param` the new count */
    ASPECT_DELAY,           /* `param`: the first attempt whose delay before it changed */
    ASPECT_RETRY_CODES,     /* a code no longer retries: places after a failed attempt */
    ASPECT_COMPENSATE,      /* the compensation of the step: compensating places */
    ASPECT_FAILURE,         /* only what a failure records: compensating places */
} CompatAspect;

typedef struct CompatEffect {
    uint32_t change;
    uint32_t wf;            /* OLD's workflow index */
    uint32_t step;          /* OLD's step index (ASPECT_WORKFLOW, ASPECT_RESULT: none) */
    uint8_t aspect;
    uint32_t param;
} CompatEffect;

typedef struct CompatRun {
    const OrbcModule *old, *new;
    const CompatOptions *options;
    CompatReport *report;
    Arena *arena;
    NameMap new_workflows, new_tasks, old_tasks, old_workflows;
    uint32_t change_cap;
    CompatEffect *effects;
    uint32_t effect_count, effect_cap;
    int64_t *worst;         /* NEW's worst case per workflow, worked out once (policy.c) */
} CompatRun;

/* The text of string `index` of a module ("" when out of range). */
const char *compat_str(const OrbcModule *m, uint32_t index);
/* The index in `map` of `name`, or ORBC_NONE. */
uint32_t compat_lookup(const NameMap *map, const char *name);

/* Appends a change (compat.c); returns its index. `old_loc`/`new_loc` may be NULL. */
uint32_t compat_add_change(CompatRun *run, CompatRule rule, const char *workflow,
                           const CompatLoc *old_loc, const CompatLoc *new_loc,
                           const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Says which places change `change` stops. */
void compat_add_effect(CompatRun *run, uint32_t change, uint32_t wf, uint32_t step,
                       CompatAspect aspect, uint32_t param);

/* compare_code.c: two code blocks (ORBC_NONE for none) mean the same: the same
 * instructions, constants, strings and steps (by name) resolved. */
bool compat_code_same(const CompatRun *run, const OrbcWorkflow *old_wf, uint32_t old_code,
                      const OrbcWorkflow *new_wf, uint32_t new_code);
/* At the same lines and columns (an expression's error names them; its file is its
 * workflow's, compared once by compat_workflow_contracts). */
bool compat_code_same_place(const CompatRun *run, uint32_t old_code, uint32_t new_code);
/* Where a code block starts (file NULL for ORBC_NONE). */
CompatLoc compat_code_loc(const OrbcModule *m, uint32_t code);

/* contracts.c: type `a` of module `ma` and type `b` of `mb`. */
bool compat_type_equal(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b);
/* Whether every value `a` accepts, `b` accepts; when not, `why` says where first
 * (`missing` true when `b` requires a field `a` does not have). `extra_ok`: fields of
 * `a` that `b` lacks are fine (a worker reads the fields it knows). */
bool compat_type_within(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b,
                        bool extra_ok, char *why, size_t why_len, bool *missing);
/* The type's text ("{id: string, n: int?}"), for messages. */
const char *compat_type_text(Arena *arena, const OrbcModule *m, uint32_t type);
/* The contract changes of the workflows and the tasks. */
void compat_workflow_contracts(CompatRun *run, uint32_t old_wf, uint32_t new_wf);
void compat_task_contracts(CompatRun *run);

/* steps.c: the changes of one workflow present on both sides. */
void compat_compare_steps(CompatRun *run, uint32_t old_wf, uint32_t new_wf);
/* policy.c: the policies and timeouts of a step present on both sides. */
void compat_compare_policy(CompatRun *run, uint32_t old_wf, uint32_t old_step,
                           uint32_t new_wf, uint32_t new_step);
/* The worst case of NEW's workflow `wf` in ms, or -1 when unbounded (policy.c): its
 * steps one after the other, as the checker's worst_path.c counts them. */
int64_t compat_worst_case(CompatRun *run, uint32_t wf);

/* places.c: every place of OLD's workflows with the changes that stop it. */
void compat_places(CompatRun *run);

/* Whether OLD's workflow `wf` is compared (CompatOptions.workflows). */
bool compat_selected(const CompatRun *run, const char *name);

#endif
