/* The reports of a run of `orbitc test` (results.h), each written into a text buffer
 * that the command line prints: for people and as one JSON document (report.c; the
 * document's schema is in docs/testing.md, "JSON output"), and for CI systems: JUnit
 * XML, TAP and GitHub annotations (report_ci.h). */
#ifndef ORBIT_TESTING_REPORT_H
#define ORBIT_TESTING_REPORT_H

#include <stdbool.h>

#include "results.h"
#include "textbuf.h"

/* A line per test; for a failure each expectation that failed with what was expected
 * and what happened, then the divergence; for a test that could not run, why; then the
 * counts. `color`: ANSI colours (the caller decides, as for diagnostics). */
void testing_report_human(const TestRun *run, bool color, TextBuffer *out);

/* One JSON document (docs/testing.md, "JSON output"), with a final newline. */
void testing_report_json(const TestRun *run, TextBuffer *out);

#endif
