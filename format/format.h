/* The formatter: one canonical layout for Orbit source (docs/style.md), used by
 * `orbitc fmt` and by editors (the language server's formatting requests).
 *
 * It changes only the space between tokens: indentation, line breaks, blank lines,
 * separators, and the trailing comma of a list broken over lines. Every other token is
 * written exactly as it is in the source (string and duration literals, names,
 * parentheses), and every comment stays where it was among the tokens. A file with
 * lexical or syntax errors is never formatted. */
#ifndef ORBIT_FORMAT_H
#define ORBIT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

enum {
    FORMAT_WIDTH = 100,          /* a block or list is kept on one line when it ends at
                                    or before this column */
    FORMAT_INDENT = 2,           /* spaces per level of blocks and broken lists */
    FORMAT_CONTINUATION = 4,     /* extra spaces of a member's continuation lines */
};

/* Formatted text: malloc'd, NUL-terminated (text[len] == '\0'). */
typedef struct FormatText {
    char *text;
    size_t len;
} FormatText;

/* Where one top-level declaration is, in the source and in the formatted text (byte
 * offsets, end exclusive). */
typedef struct FormatDecl {
    uint32_t source_start, source_end;
    size_t out_start, out_end;
} FormatDecl;

/* The declarations of a formatted file, in order (format_file fills it when asked). */
typedef struct FormatDecls {
    FormatDecl *items;           /* malloc'd */
    uint32_t count;
} FormatDecls;

/* Parses file `file` of `c` (its diagnostics go to c->diags) and formats it. Returns
 * false, with *out untouched, when the file has lexical or syntax errors (it is then
 * not formatted); the checker is not run. `decls` may be NULL. */
bool format_file(Compiler *c, uint32_t file, FormatText *out, FormatDecls *decls);

/* For editors: formats `len` bytes of source in a compiler of its own. False on lexical
 * or syntax errors (nothing is formatted). `path` names the text; it may be NULL. */
bool format_text(const char *path, const char *text, size_t len, FormatText *out);

/* One replacement of the bytes [start, end) of a text. */
typedef struct FormatEdit {
    uint32_t start, end;
    FormatText replacement;
} FormatEdit;

/* Range formatting for editors: formats every top-level declaration that the bytes
 * [start, end) touch (a declaration is always formatted whole) and leaves the rest of
 * the text as it is. *edit replaces the touched declarations, from the start of the
 * line of the first one to the end of the last one (through the end of its line, when
 * the edit would otherwise remove the text's first line end, which sets the style of
 * all of them); when the range touches none, or they are formatted already, it is
 * empty (start == end, no text). False on lexical or syntax errors. */
bool format_range(const char *path, const char *text, size_t len, uint32_t start,
                  uint32_t end, FormatEdit *edit);

void format_text_free(FormatText *text);

/* The unified diff (3 lines of context) that turns `old` into `new`, both named `name`
 * (in colour, as git shows it, when `color`: the headers bold, `@@` lines cyan, removed
 * lines red, added lines green)
 * in its header (`--- NAME`, `+++ NAME`; `patch -p0` applies it when NAME is relative:
 * cli_diff_name, cli/cli.h). Nothing when they are
 * equal. Time and memory O(n log n) in the number of lines: lines that occur once in
 * each text anchor the comparison, as Go's internal/diff does. */
void format_write_diff(FILE *out, const char *name, const char *old, size_t old_len,
                       const char *new_text, size_t new_len, bool color);

#endif
