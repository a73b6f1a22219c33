/* compat: what changing a program does to what runs it (docs/compat.md). Compares two
 * loaded modules (liborbc's OrbcModule, so sources, .orbc files and git revisions alike)
 * and lists every change with its rule, and every place an execution of OLD can be
 * waiting with whether it can continue under NEW: replaying its history so far through
 * the engine core with NEW's bytecode gives exactly the same records. Conservative: a
 * place says it can continue only when everything its records came from is the same.
 * Above liborbc and base/ only; the reports in JSON through jansson. */
#ifndef ORBIT_COMPAT_H
#define ORBIT_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "attributes.h"
#include "orbc.h"
#include "textbuf.h"

typedef enum CompatLevel { COMPAT_INFO, COMPAT_WARNING, COMPAT_ERROR } CompatLevel;
typedef enum CompatKind {
    COMPAT_EXECUTIONS, COMPAT_WORKERS, COMPAT_CALLERS, COMPAT_POLICY
} CompatKind;

typedef enum CompatRule {
#define COMPAT_RULE(id, name, level, kind, summary) COMPAT_##id,
#include "rules.def"
    COMPAT_RULE_COUNT
} CompatRule;

typedef struct CompatRuleInfo {
    const char *name;       /* "step-removed" */
    uint8_t level;          /* CompatLevel when the change stops no place */
    uint8_t kind;           /* CompatKind */
    const char *summary;
} CompatRuleInfo;

/* The row of a rule; NULL past the table. */
const CompatRuleInfo *compat_rule_info(uint32_t rule);
/* The rule named `name`, or COMPAT_RULE_COUNT. */
CompatRule compat_rule_named(const char *name);
/* "info", "warning", "error"; "executions", "workers", "callers", "policy". */
const char *compat_level_name(uint32_t level);
const char *compat_kind_name(uint32_t kind);

typedef struct CompatLoc {
    const char *file;       /* NULL: none (the side does not have it) */
    uint32_t line, column;
} CompatLoc;

typedef struct CompatChange {
    uint8_t rule;           /* CompatRule */
    uint8_t level;          /* the rule's, or ERROR when it stops a place */
    uint8_t kind;           /* the rule's */
    const char *workflow;   /* OLD's (or NEW's for an added one) name; NULL for a task */
    const char *message;
    CompatLoc old, new;
    uint32_t blocks;        /* places it stops */
} CompatChange;

/* Where an execution can be waiting (docs/compat.md, "Places"). */
typedef enum CompatState {
    COMPAT_QUEUED, COMPAT_BACKOFF, COMPAT_SIGNAL, COMPAT_SLEEP, COMPAT_CHILD,
    COMPAT_COMPENSATING
} CompatState;

typedef struct CompatPlace {
    const char *id;         /* "checkout/charge#backoff:2" */
    const char *workflow;   /* the top workflow */
    const char *step;       /* "charge", "pack/pick" */
    uint8_t state;          /* CompatState */
    uint32_t attempt;       /* 0: none (signal, sleep, child) */
    bool can_continue;
    uint32_t *changes;      /* indices into the report's changes that stop it, ascending */
    uint32_t change_count;
} CompatPlace;

typedef struct CompatOptions {
    const char *const *workflows;   /* only these OLD workflows (NULL: every one) */
    uint32_t workflow_count;
} CompatOptions;

typedef struct CompatReport {
    Arena arena;            /* everything below lives here */
    CompatChange *changes;
    uint32_t change_count;
    CompatPlace *places;
    uint32_t place_count;
    uint32_t errors, warnings, infos, places_blocked;
} CompatReport;

/* Compares OLD with NEW (both verified by orbc_load). Deterministic: the changes in
 * OLD's order of workflows and steps, then NEW's additions, then the tasks; the places
 * in OLD's order. Free the report with compat_report_free. */
void compat_compare(const OrbcModule *old_module, const OrbcModule *new_module,
                    const CompatOptions *options, CompatReport *report);
void compat_report_free(CompatReport *report);

/* "queued", "backoff", "signal", "sleep", "child", "compensating" (a place's `state`). */
const char *compat_state_name(uint32_t state);

/* Whether the report breaks at `fail_on`: a change at that level or above. */
bool compat_fails(const CompatReport *report, CompatLevel fail_on);

/* The reports (report_*.c), appended to `out`. The labels name the two sides ("git:
 * origin/main", "."). */
void compat_write_json(const CompatReport *r, const char *old_label, const char *new_label,
                       TextBuffer *out);
void compat_write_human(const CompatReport *r, const char *old_label, const char *new_label,
                        bool color, TextBuffer *out);
void compat_write_github(const CompatReport *r, TextBuffer *out);
void compat_write_sarif(const CompatReport *r, TextBuffer *out);
void compat_write_junit(const CompatReport *r, const char *old_label, const char *new_label,
                        TextBuffer *out);

/* For JavaScript (the WebAssembly build): two .orbc files' bytes in, the JSON report
 * out (malloc'd, NUL-terminated; the caller frees it with free), or a JSON object
 * {"error": "..."} when a side does not load. */
WASM_EXPORT char *compat_orbc_json(const uint8_t *old_bytes, uint32_t old_len, const uint8_t *new_bytes,
                       uint32_t new_len);

#endif
