/* The results of `orbitc test` in the formats CI systems read (docs/testing.md,
 * `--format junit|tap|github`): JUnit XML (the Ant/Jenkins dialect, checked against
 * Jenkins' junit-10.xsd), TAP version 14, and GitHub Actions workflow commands. Each
 * writer appends the whole document to `out`; texts are written as valid UTF-8 (an
 * invalid byte becomes U+FFFD) with each format's escaping. */
#ifndef ORBIT_TESTING_REPORT_CI_H
#define ORBIT_TESTING_REPORT_CI_H

#include "results.h"
#include "textbuf.h"

void testing_report_junit(const TestRun *run, TextBuffer *out);
void testing_report_tap(const TestRun *run, TextBuffer *out);
void testing_report_github(const TestRun *run, TextBuffer *out);

#endif
