/* The history writer: one event per line, in the `orbit logs` format (docs/runtime.md,
 * "History events"):
 *     + 203ms #11 StepAttemptFailed step=broken attempt=1 error=HTTP_ERROR request failed: …
 * or, with --format json, one JSON object per line with the same fields
 *     {"time_ms":203,"seq":11,"event":"StepAttemptFailed","step":"broken","attempt":1,
 *      "error":"HTTP_ERROR","message":"request failed: …"}
 * An event is built with history_begin, fields in order, then history_end. */
#ifndef ORBIT_RUN_HISTORY_H
#define ORBIT_RUN_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#include "value.h"

typedef enum HistoryFormat { HISTORY_TEXT, HISTORY_JSON } HistoryFormat;

typedef struct History {
    FILE *out;
    HistoryFormat format;
    uint32_t seq;          /* of the last event written */
    TextBuffer line;
} History;

void history_init(History *h, FILE *out, HistoryFormat format);
void history_free(History *h);

void history_begin(History *h, int64_t time_ms, const char *event);
void history_str(History *h, const char *key, const char *value);
void history_int(History *h, const char *key, int64_t value);
void history_value(History *h, const char *key, Value value);   /* value as JSON */
/* `error=CODE message` (text: must be the last field) or "error" and "message" (JSON). */
void history_error(History *h, const char *code, const char *message);
/* A free-text explanation (text: the rest of the line; JSON: "message"). */
void history_note(History *h, const char *message);
void history_end(History *h);

/* JSON format only: the closing line {"status":…,"output":…} or with "error",
 * "message" and "step" (NULL: left out). */
void history_final(History *h, const char *status, const Value *output, const char *code,
                   const char *message, const char *step);

#endif
