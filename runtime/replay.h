/* Replay of recorded histories against new bytecode (docs/runtime.md, "Replay"):
 * `orbit-run replay NEW.orbc HISTORY...`. A history is JSON lines as
 * `orbit-run --format json --show-values` (or `orbit-restate logs --format json`) writes
 * them. The events the host gave the engine are rebuilt from the records, handed to an
 * engine over NEW's module, and NEW's records are compared with the history's, record
 * for record, up to the history's length: an execution "can continue" under NEW when
 * they are all equal. The places a history is waiting at are derived here too, and only
 * here (replay_places). */
#ifndef ORBIT_RUN_REPLAY_H
#define ORBIT_RUN_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "orbc.h"
#include "textbuf.h"

typedef struct ReplayHistory {
    json_t **records;      /* the records, in order (the final status line left out) */
    size_t count, cap;
} ReplayHistory;

/* Reads a history's JSON lines (the final {"status":…} line optional). False with
 * "PATH:LINE: message" in `err` for a malformed line, a NUL byte, invalid UTF-8, a
 * record out of order, or a line after the status line. */
bool replay_read(const char *path, const char *bytes, size_t len, ReplayHistory *h, char *err,
                 size_t errlen);
void replay_history_free(ReplayHistory *h);

/* The places the history is waiting at (docs/runtime.md, "Replay"): a new JSON array of
 * place objects {"id", "workflow", "step", "state", "attempt"}, sorted by id, each once;
 * [] for a history that ended. */
json_t *replay_places(const ReplayHistory *h);

/* Replays the history against `module` (the workflow `workflow`, or NULL: the one its
 * WorkflowStarted names): a new JSON object {"history": path, "verdict", "places",
 * "records", "divergence"}, or NULL with the reason in `err` when the history cannot be
 * replayed at all (it has no values where an event needs one). */
json_t *replay_run(const OrbcModule *module, const ReplayHistory *h, const char *path,
                   const char *workflow, char *err, size_t errlen);

/* One line of text for a result of replay_run (with its newline). */
void replay_text(TextBuffer *out, const json_t *result);

/* A record as a short `orbit logs` line: the event and its fields, without time and seq. */
void replay_record_text(TextBuffer *out, const json_t *record);

#endif
