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

/* Enough for every text below. */
enum { WORST_TEXT_SIZE = 512 };

/* Why `w` is unbounded, seen from workflow `from`: "step `pick` has no `timeout`", with
 * " (workflow `pack_items`)" when the step is in another workflow. Returns buf. */
const char *worst_reason_text(const Worst *w, const Name *from, char *buf, size_t size);

/* "12h52m27s800ms", or "unbounded: REASON". Returns buf. */
const char *worst_text(const Worst *w, const Name *from, char *buf, size_t size);

/* The arithmetic of one step's worst case, as W0010's notes and the hover give it:
 * "5 attempts × (2m queue timeout + 10s timeout) + 7s500ms of backoff delays = 10m57s500ms",
 * "await `timeout` 12h", "the step `timeout` 30m (workflow `pack_items` may take longer)".
 * Returns buf. */
const char *worst_step_text(const Program *p, const Workflow *wf, const StepWorst *s,
                            char *buf, size_t size);

/* "`charge` 10m57s500ms + `pack` 30m + … = 41m": the bounded worst case of the steps of
 * `wf`, each step that adds to it (at most 8 by name), appended to `out`. */
void worst_sum_text(const Workflow *wf, TextBuffer *out);

/* Whether step `s` adds to its workflow's worst case (a bounded 0 does not): the steps
 * of the critical path. */
bool worst_step_counts(const StepWorst *s);

#endif
