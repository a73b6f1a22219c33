/* The worst case of a whole workflow (docs/diagnostics.md, "The worst case of a
 * workflow"; `orbitc explain W0010`): its steps one after another, each at its worst
 * (policy.c's retry budget, with the queue timeout of each attempt), a `for` step as one
 * of its units (they run in parallel), a workflow step as its child's own worst case
 * (or its `timeout`), then the compensations of a failure. The checker fills in
 * Workflow.worst (program.h); the language server and `orbitc graph` read it and write
 * it with the texts below. */
#ifndef ORBIT_WORST_PATH_H
#define ORBIT_WORST_PATH_H

#include <stddef.h>

#include "program.h"
#include "textbuf.h"

/* The texts below are appended to `out`, whole: a name in them is never cut. */

/* Why `w` is unbounded, seen from workflow `from`: "step `pick` has no `timeout`", with
 * " (workflow `pack_items`)" when the step is in another workflow. */
void worst_reason_text(const Worst *w, const Name *from, TextBuffer *out);

/* "12h52m27s800ms", or "unbounded: REASON". */
void worst_text(const Worst *w, const Name *from, TextBuffer *out);

/* The arithmetic of one step's worst case, as W0010's notes and the hover give it:
 * "5 attempts × (2m queue timeout + 10s timeout) + 7s500ms of backoff delays = 10m57s500ms",
 * "await `timeout` 12h", "the step `timeout` 30m (workflow `pack_items` may take longer)". */
void worst_step_text(const Program *p, const Workflow *wf, const StepWorst *s,
                     TextBuffer *out);

/* "`charge` 10m57s500ms + `pack` 30m + … = 41m": the bounded worst case of the steps of
 * `wf`, each step that adds to it (at most 8 by name), appended to `out`. */
void worst_sum_text(const Workflow *wf, TextBuffer *out);

/* Whether step `s` adds to its workflow's worst case (a bounded 0 does not): the steps
 * of the critical path. */
bool worst_step_counts(const StepWorst *s);

#endif
