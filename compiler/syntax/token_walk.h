/* The tokens of one file as the parser receives them from the lexer (lexer.h), and the
 * comments the lexer skips, in source order: for the tools that must agree with the
 * lexer (tools/lex_dump.c, docs/editors.md) and the playground's highlighting
 * (playground/api.c). Left out: the NEWLINE separators (white space to an editor; a
 * newline inside a block comment is part of the comment) and the tokens the lexer
 * invents of zero width (closers it adds for unbalanced brackets, the end of file). A
 * file with lexical errors still gives every token read; its errors go to the
 * compiler's diagnostics as usual. */
#ifndef ORBIT_TOKEN_WALK_H
#define ORBIT_TOKEN_WALK_H

#include <stdint.h>

#include "compiler.h"

/* One token or comment: [start, end) byte offsets into the file, and `kind`, the name
 * parser.y gives the token kind (`IDENT`, `STRING`, `DURATION`, `T_STEP`, `LBRACE` ...)
 * or `COMMENT` for a comment (line or block; a `#` comment, an error, too). */
typedef void (*TokenVisit)(void *context, uint32_t start, uint32_t end, const char *kind);

/* Lexes file `file` of `c` and calls `visit` for each token and comment. */
void token_walk(Compiler *c, uint32_t file, TokenVisit visit, void *context);

/* The name parser.y gives token kind `kind`, or NULL for a number that is none
 * (generated from parser.h by tools/token_names.py: token_names.c). */
const char *token_kind_name(int kind);

#endif
