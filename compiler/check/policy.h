/* Retry policies and timeouts as diagnostics/explain/E0410.md (`orbitc explain E0410`)
 * gives them: the retry settings with their types, defaults and meanings, the delay before
 * each attempt, and the worst-case time of a step. Written once, for the checker (E0410,
 * W0006) and the language server (hover, completion, inlay hints). */
#ifndef ORBIT_POLICY_H
#define ORBIT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "orbc.h"
#include "program.h"
#include "textbuf.h"

/* The settings of a retry block, in the order of diagnostics/explain/E0410.md's table. */
typedef enum RetrySetting {
    SET_ATTEMPTS, SET_BACKOFF, SET_INITIAL_DELAY, SET_MAX_DELAY, SET_NON_RETRYABLE,
    RETRY_SETTING_COUNT
} RetrySetting;

/* The table's columns: the setting, its type and its meaning (the default column is
 * policy_setting_default, from policy_default_retry's values). */
extern const char *const RETRY_SETTING_NAMES[RETRY_SETTING_COUNT];
extern const char *const RETRY_SETTING_TYPES[RETRY_SETTING_COUNT];
extern const char *const RETRY_SETTING_MEANINGS[RETRY_SETTING_COUNT];

/* The backoff strategies, in Backoff order. */
extern const char *const BACKOFF_NAMES[2];

/* The defaults and the limit, as liborbc writes and verifies them (orbc.h). */
enum {
    DEFAULT_INITIAL_DELAY_MS = ORBC_DEFAULT_INITIAL_DELAY_MS,
    DEFAULT_MAX_DELAY_MS = ORBC_DEFAULT_MAX_DELAY_MS,
    MAX_ATTEMPTS = ORBC_MAX_ATTEMPTS,
};

/* The policy of a step without a retry block: one attempt, every setting at its default. */
void policy_default_retry(RetryPolicy *policy);

/* The default of a setting as the table writes it ("1", "fixed", "1s", "60s, or
 * `initial_delay` if that is longer", "[]"), in buf. */
const char *policy_setting_default(RetrySetting setting, char *buf, size_t size);

/* The delay before attempt n (n >= 2; attempt 2 is the first retry): initial_delay
 * (fixed) or min(initial_delay × 2^(n−2), max_delay) (exponential). */
int64_t policy_retry_delay(const RetryPolicy *policy, uint32_t attempt);

/* The worst case of a step: every attempt fails by its timeout (`timeout_ms`, 0 = none)
 * and waits every delay. total_ms = attempts × timeout + delays_ms (saturating);
 * first_late is the first attempt that would start at or after the workflow timeout (0
 * when none does, or there is no workflow timeout). */
typedef struct RetryBudget {
    int64_t total_ms;
    int64_t delays_ms;
    uint32_t first_late;
} RetryBudget;

/* a + b for durations (b >= 0), INT64_MAX when it does not fit. */
int64_t policy_add_saturating(int64_t a, int64_t b);

RetryBudget policy_retry_budget(const RetryPolicy *policy, int64_t timeout_ms,
                         int64_t workflow_timeout_ms);

enum {
    /* Delays listed one by one by policy_write_delays; a longer schedule shows its start
     * and its end. */
    POLICY_DELAYS_SHOWN = 10,
};

/* The delays before attempts 2 to `attempts`, as the hover and the inlay hints write
 * them: "500ms, 1s, 2s, 4s"; more than POLICY_DELAYS_SHOWN delays are abbreviated to the
 * first ones and the last: "1s, 2s, 4s, 8s, 16s, 32s, 1m, … (999 delays in all), 1m".
 * Nothing for a policy of one attempt. */
void policy_write_delays(TextBuffer *out, const RetryPolicy *policy);

/* The worst case of a step with its reckoning, as the hover and the inlay hints write
 * it: "5 attempts × 10s + 7s500ms of delays = 57s500ms" (the total between `emphasis`,
 * "**" in Markdown), "10s" for one attempt, and without a timeout "no limit: without a
 * `timeout` an attempt may run forever (the delays alone add up to 2s)". The figures are
 * policy_retry_budget's, those of W0006. */
void policy_write_worst_case(TextBuffer *out, const RetryPolicy *policy, int64_t timeout_ms,
                             const char *emphasis);

/* A duration as messages write it: liborbc's text ("1d2h", "1m30s", "250ms"), and "0s"
 * for none. Returns buf. */
const char *policy_duration_text(int64_t ms, char *buf, size_t size);

#endif
