/* The coverage of `orbitc test --coverage` (docs/testing.md, "Coverage"): which items of
 * a module's workflows (steps reached, `when` true and false, `for` over 0, 1 or many
 * items, retry attempts, giving up, non-retryable codes, timeouts, compensations) the
 * histories of the tests reached, and how often. The items come from the module alone;
 * the counts from the histories as orbit-run's `--format json` writes them
 * (docs/runtime.md, "History events"). Written as a table per workflow, as JSON, or as
 * lcov's tracefile for genhtml.
 *
 * One Coverage per thread: the objects share nothing but the module, which they only
 * read; the runner merges them (coverage_merge) before writing. */
#ifndef ORBIT_TESTING_COVERAGE_H
#define ORBIT_TESTING_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orbc.h"
#include "textbuf.h"

typedef struct Coverage Coverage;

/* The items of every workflow of `module`, none covered yet. The module must outlive the
 * Coverage. `source_root`: prepended to the module's source file names in lcov's SF:
 * lines (NULL or "": the names as they are; an absolute name is kept as it is). */
Coverage *coverage_new(const OrbcModule *module, const char *source_root);

/* Marks the workflow timeout of `workflow` as an item no run can reach: `why` says so
 * ("the steps take at most 12h52m27s800ms", from the checker's worst case). It is shown
 * with its reason and counted in no total, nor as a branch of lcov. The runner marks
 * every Coverage of a module alike, before any run. */
void coverage_timeout_unreachable(Coverage *c, uint32_t workflow, const char *why);

/* One run of one test: the history as orbit-run's `--format json` lines (every event,
 * then the closing status line), `workflow` the index of the workflow that ran. Events
 * of child workflows count for the child workflow. A line that is not an event of the
 * module (malformed JSON, an unknown step) is passed over. Thread-safe for distinct
 * Coverage objects. */
void coverage_add_run(Coverage *c, uint32_t workflow, const char *history_json, size_t len);

/* Adds the counts of `from` to `into`; both were made for the same module. */
void coverage_merge(Coverage *into, const Coverage *from);

/* What a run reports is the coverage of every program it tested: a list of Coverage
 * objects, one per module, written as one table, one JSON document or one tracefile. */

/* Covered and total items of the list; the percentage is 100 * covered / total (100 when
 * total is 0): coverage_percent. */
void coverage_counts(const Coverage *const *list, uint32_t count, uint64_t *covered,
                     uint64_t *total);
double coverage_percent(const Coverage *const *list, uint32_t count);
/* Whether the percentage is at least `threshold` (`--coverage-threshold N`). */
bool coverage_meets(const Coverage *const *list, uint32_t count, double threshold);

/* A table per workflow (line, item, hits, covered), a total line per workflow and one
 * for all, with the percentage. */
void coverage_write_text(const Coverage *const *list, uint32_t count, TextBuffer *out);
/* The same as one JSON object (docs/testing.md, "Coverage"): the workflows of every
 * module of the list in its `workflows`. */
void coverage_write_json(const Coverage *const *list, uint32_t count, TextBuffer *out);
/* lcov's tracefile: a record per source file, FN/FNDA per workflow, DA per step line,
 * BRDA per item of two or more ways on the step's line (the workflow timeout on the
 * workflow's line). */
void coverage_write_lcov(const Coverage *const *list, uint32_t count, TextBuffer *out);

void coverage_free(Coverage *c);

#endif
