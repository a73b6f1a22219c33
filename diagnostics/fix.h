/* Machine-applicable fixes as edits of source text: which fixes of a run can be applied
 * together, and applying them. Used by `orbitc fix` (fix_command.c) and by editors'
 * "fix all" (the language server). */
#ifndef ORBIT_FIX_H
#define ORBIT_FIX_H

#include <stdint.h>

#include "diag.h"

typedef struct FixEdit {
    uint32_t file;            /* source index */
    uint32_t start, end;      /* bytes of that file to replace */
    const char *replacement;  /* in the sink's arena */
    DiagCode code;            /* of the diagnostic the fix belongs to */
    const char *message;      /* the fix's, "did you mean `backoff`?" */
} FixEdit;

/* The fixes of the sink that can be applied together, in a malloc'd array sorted by
 * file and position (*count of them): of each diagnostic, its first machine-applicable
 * fix, when it lies in one file that is not the standard library and changes something.
 * Of two fixes that overlap (or insert at one place) the first is kept and the other is
 * left for the next round, after a re-check; the same edit made by two diagnostics is
 * made once. */
FixEdit *fix_select(const DiagSink *sink, const SourceMap *sources, uint32_t *count);

/* The same, taking the first maybe-incorrect fix too when `unsafe` (`fix --unsafe-fixes`):
 * of each diagnostic, its first fix of either kind. */
FixEdit *fix_select_any(const DiagSink *sink, const SourceMap *sources, bool unsafe,
                        uint32_t *count);

/* The text of `file` with the edits for it applied (edits as fix_select returns them; the
 * others are skipped). malloc'd, NUL-terminated; *len gets its length. */
char *fix_apply(const SourceMap *sources, uint32_t file, const FixEdit *edits,
                uint32_t count, uint32_t *len);

#endif
