/* The front end: lexes and parses one source file into a syntax tree, reporting every
 * lexical and syntax problem into c->diags. Never fails: a file with errors yields the
 * tree of what could be read, with EXPR_ERROR / MEMBER_ERROR where parts were lost. */
#ifndef ORBIT_PARSE_H
#define ORBIT_PARSE_H

#include "compiler.h"

SourceAst *parse_source(Compiler *c, uint32_t file);

/* Reports E0010 for a source of `size` bytes, over SOURCE_MAX_FILE_SIZE (at 1:1 of it). */
void parse_report_file_too_large(Compiler *c, uint32_t file, uint64_t size);
/* Reports E0010 for a file of `size` bytes that does not fit beside the files before it
 * (SOURCE_MAX_TOTAL_SIZE in all). */
void parse_report_sources_too_large(Compiler *c, uint32_t file, uint64_t size);

/* Whether a text is taken for binary (E0012): at least a quarter of its first 8 KiB are
 * NUL bytes, other control characters or invalid UTF-8; *binary of the *sample bytes
 * looked at are, the first at *first. */
bool parse_text_is_binary(const char *text, size_t len, size_t *binary, size_t *first,
                          size_t *sample);

#endif
