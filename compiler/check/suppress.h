/* Inline suppressions of warnings (docs/diagnostics.md, "Inline suppressions"):
 *
 *     // orbit:allow(W0006)                  on the line before a member, or
 *     retry { attempts: 9 }  // orbit:allow(W0006, W0002): a reason, if you like
 *
 * silence the listed warnings reported inside the member the comment precedes, or inside
 * the member that starts on the comment's line. Errors cannot be suppressed (a warning
 * that a program's configuration denies can). A comment
 * that names an unknown code, an error, or is malformed is reported (W0008); a listed
 * code that silences nothing is reported too (W0009), with a fix that removes it. */
#ifndef ORBIT_SUPPRESS_H
#define ORBIT_SUPPRESS_H

#include "compiler.h"

/* Drops the warnings that a suppression comment in c->asts covers from the reports
 * c->diags.items[first..] (those of the checker's run over c->asts), then reports the
 * problems of the comments themselves. Call after the checker and before diag_finish. */
void suppress_apply(Compiler *c, uint32_t first);

/* The list of codes of the `orbit:allow(…)` directive that a comment holds: text[0..len)
 * is the comment as written (from its opener, `//` or that of a block), *start the
 * offset just after the `(`, *end that of the `)` (or of the comment's end when it is
 * missing, as while typing).
 * False when the comment is not such a directive (another comment, another spelling).
 * Nothing is reported: for the language server's links, hover and completion of codes. */
bool suppress_directive_list(const char *text, uint32_t len, bool block, uint32_t *start,
                             uint32_t *end);

#endif
