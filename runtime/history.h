/* The history writer: one event per line, in the `orbit logs` format (docs/runtime.md,
 * "History events"):
 *     + 203ms #11 StepAttemptFailed step=broken attempt=1 error=HTTP_ERROR request failed: …
 * or, with --format json, one JSON object per line with the same fields
 *     {"time_ms":203,"seq":11,"event":"StepAttemptFailed","step":"broken","attempt":1,
 *      "error":"HTTP_ERROR","message":"request failed: …"}
 * The events are the engine core's records (engine.h, ENGINE_RECORD). */
#ifndef ORBIT_RUN_HISTORY_H
#define ORBIT_RUN_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "value.h"

typedef enum HistoryFormat { HISTORY_TEXT, HISTORY_JSON } HistoryFormat;

typedef struct History {
    FILE *out;             /* NULL: nothing written, each event kept in `line` only */
    HistoryFormat format;
    uint32_t seq;          /* of the last event written */
    TextBuffer line;
} History;

void history_init(History *h, FILE *out, HistoryFormat format);
void history_free(History *h);

/* Writes one event: a line of text, or a JSON object. */
void history_write(History *h, const EngineRecord *record);

/* JSON format only: the closing line {"status":…,"output":…} or with "error",
 * "message" and "step" (NULL: left out). */
void history_final(History *h, const char *status, const Value *output, const char *code,
                   const char *message, const char *step);

#endif
