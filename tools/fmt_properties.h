/* The guarantees of the formatter (docs/style.md), checked on one source text: used by
 * the fuzz target fuzz/fuzz_fmt.c and by tools/fmt_props.c, which the test suite
 * runs over every golden source, example, the standard library, generated programs and
 * the fuzz corpora. */
#ifndef ORBIT_FMT_PROPERTIES_H
#define ORBIT_FMT_PROPERTIES_H

#include <stddef.h>

typedef enum FmtVerdict {
    FMT_NOT_PARSED,     /* the text has lexical or syntax errors: not formatted, as it must */
    FMT_HOLDS,          /* every property holds */
    FMT_BROKEN,         /* one does not: `why` says which */
} FmtVerdict;

/* Formats the text, then checks that
 *   - the result parses and formats to itself (idempotent);
 *   - it has the same tokens in the same order, spelt the same, separators aside, and
 *     the same syntax tree (so the same meaning);
 *   - it has the same comments in the same order (the same text, but for the spaces at
 *     the ends of their lines and the line ends);
 *   - it is laid out as the style says: no space at the end of a line, one style of line
 *     end, no two blank lines in a row nor one at the start, a line end at the end;
 *   - range formatting (format_range) of the middle third of the text, then formatting
 *     the whole result, gives the same text as formatting the whole;
 *   - `check` of the text alone and of its formatted text report the same diagnostics
 *     (codes and messages; positions aside, and the spaces, line ends and separators
 *     `,` `;` of the messages, which may quote an expression as written), before the
 *     inline suppressions and after them: formatting changes neither what is reported
 *     nor what is silenced. */
FmtVerdict fmt_check_properties(const char *text, size_t len, char *why, size_t why_size);

#endif
