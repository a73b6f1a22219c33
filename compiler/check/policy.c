/* Retry policies and timeouts: the facts of diagnostics/explain/E0410.md, written once. */
#include "policy.h"

#include <stdio.h>
#include <string.h>

#include "orbc_value.h"   /* orbc_format_duration: liborbc owns what a duration's text is */

const char *const RETRY_SETTING_NAMES[RETRY_SETTING_COUNT] = {
    "attempts", "backoff", "initial_delay", "max_delay", "non_retryable",
};

const char *const RETRY_SETTING_TYPES[RETRY_SETTING_COUNT] = {
    "integer literal, 1 to 1000",
    "`fixed` or `exponential`",
    "duration literal",
    "duration literal",
    "list of string literals",
};

const char *const RETRY_SETTING_MEANINGS[RETRY_SETTING_COUNT] = {
    "Total number of attempts, including the first. 1 means no retries.",
    "How the delay between attempts grows.",
    "The delay before the first retry.",
    "The upper bound for exponential delays. Must be at least initial_delay.",
    "Error codes that fail the step immediately, without retrying.",
};

const char *const BACKOFF_NAMES[2] = { "fixed", "exponential" };

void policy_default_retry(RetryPolicy *policy)
{
    memset(policy, 0, sizeof *policy);
    policy->attempts = 1;
    policy->backoff = BACKOFF_FIXED;
    policy->initial_delay_ms = DEFAULT_INITIAL_DELAY_MS;
    policy->max_delay_ms = DEFAULT_MAX_DELAY_MS;
}

const char *policy_setting_default(RetrySetting setting, char *buf, size_t size)
{
    RetryPolicy d;
    policy_default_retry(&d);
    char duration[32];
    switch (setting) {
    case SET_ATTEMPTS:
        snprintf(buf, size, "%u", d.attempts);
        break;
    case SET_BACKOFF:
        snprintf(buf, size, "%s", BACKOFF_NAMES[d.backoff]);
        break;
    case SET_INITIAL_DELAY:
        snprintf(buf, size, "%s", policy_duration_text(d.initial_delay_ms, duration, sizeof duration));
        break;
    case SET_MAX_DELAY:
        snprintf(buf, size, "%s, or `initial_delay` if that is longer",
                 policy_duration_text(d.max_delay_ms, duration, sizeof duration));
        break;
    default:
        snprintf(buf, size, "[]");
        break;
    }
    return buf;
}

int64_t policy_retry_delay(const RetryPolicy *policy, uint32_t attempt)
{
    return orbc_retry_delay(policy->backoff == BACKOFF_EXPONENTIAL ? ORBC_BACKOFF_EXPONENTIAL
                                                                   : ORBC_BACKOFF_FIXED,
                            policy->initial_delay_ms, policy->max_delay_ms, attempt);
}

int64_t policy_add_saturating(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

RetryBudget policy_retry_budget(const RetryPolicy *policy, int64_t timeout_ms,
                         int64_t workflow_timeout_ms)
{
    RetryBudget b = { timeout_ms, 0, 0 };
    /* policy_retry_delay(policy, n), step by step: the delay doubles (exponential) until
     * it reaches max_delay_ms. */
    bool doubling = policy->backoff == BACKOFF_EXPONENTIAL;
    int64_t raw = policy->initial_delay_ms;
    for (uint32_t n = 2; n <= policy->attempts; n++) {
        if (doubling && n > 2 && raw < policy->max_delay_ms)
            raw = raw > INT64_MAX / 2 ? INT64_MAX : raw * 2;
        int64_t d = doubling && raw > policy->max_delay_ms ? policy->max_delay_ms : raw;
        b.delays_ms = policy_add_saturating(b.delays_ms, d);
        b.total_ms = policy_add_saturating(b.total_ms, d);
        if (!b.first_late && workflow_timeout_ms > 0 && b.total_ms >= workflow_timeout_ms)
            b.first_late = n;
        b.total_ms = policy_add_saturating(b.total_ms, timeout_ms);
    }
    return b;
}

const char *policy_duration_text(int64_t ms, char *buf, size_t size)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    if (ms > 0)
        orbc_format_duration(text, ms);
    snprintf(buf, size, "%s", ms > 0 ? text : "0s");
    return buf;
}

void policy_write_delays(TextBuffer *out, const RetryPolicy *policy)
{
    char d[32];
    uint32_t retries = policy->attempts - 1;
    for (uint32_t n = 2; n <= policy->attempts; n++) {
        if (retries > POLICY_DELAYS_SHOWN && n == POLICY_DELAYS_SHOWN - 1) {
            text_printf(out, ", … (%u delays in all), ", retries);
            n = policy->attempts;
        } else if (n > 2) {
            text_printf(out, ", ");
        }
        text_printf(out, "%s", policy_duration_text(policy_retry_delay(policy, n), d, sizeof d));
    }
}

void policy_write_worst_case(TextBuffer *out, const RetryPolicy *policy, int64_t timeout_ms,
                             const char *emphasis)
{
    char d1[32], d2[32], d3[32];
    RetryBudget b = policy_retry_budget(policy, timeout_ms, 0);
    if (timeout_ms <= 0) {
        text_printf(out, "no limit: without a `timeout` an attempt may run forever");
        if (policy->attempts > 1)
            text_printf(out, " (the delays alone add up to %s)",
                        policy_duration_text(b.delays_ms, d1, sizeof d1));
    } else if (policy->attempts > 1) {
        text_printf(out, "%u attempts × %s + %s of delays = %s%s%s", policy->attempts,
                    policy_duration_text(timeout_ms, d1, sizeof d1),
                    policy_duration_text(b.delays_ms, d2, sizeof d2), emphasis,
                    policy_duration_text(b.total_ms, d3, sizeof d3), emphasis);
    } else {
        text_printf(out, "%s%s%s", emphasis, policy_duration_text(b.total_ms, d1, sizeof d1),
                    emphasis);
    }
}
