/* Lowering: turns a program that checked clean into the bytes of a .orbc file
 * (docs/bytecode.md), through liborbc's builder. Deterministic: the same program gives
 * the same bytes. */
#ifndef ORBIT_LOWER_H
#define ORBIT_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "program.h"

/* Lowers `p` (which must have checked without errors). On success stores a malloc'd
 * buffer in *bytes (the caller frees it) and returns true. Returns false only when the
 * program exceeds a limit of the format or holds something the checker should have
 * rejected; a message is printed on stderr then. */
bool lower_program(Compiler *c, const Program *p, uint8_t **bytes, size_t *len);

#endif
