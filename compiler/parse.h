/* The front end: lexes and parses one source file into a syntax tree, reporting every
 * lexical and syntax problem into c->diags. Never fails: a file with errors yields the
 * tree of what could be read, with EXPR_ERROR / MEMBER_ERROR where parts were lost. */
#ifndef ORBIT_PARSE_H
#define ORBIT_PARSE_H

#include "compiler.h"

SourceAst *parse_source(Compiler *c, uint32_t file);

#endif
