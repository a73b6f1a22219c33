/* Lowering: turns a program that checked clean into the bytes of a .orbc file
 * (docs/bytecode.md), through liborbc's builder. Deterministic: the same program gives
 * the same bytes. */
#ifndef ORBIT_LOWER_H
#define ORBIT_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "orbc.h"
#include "program.h"

/* Lowers `p` (which must have checked without errors). On success stores a malloc'd
 * buffer in *bytes (the caller frees it) and returns true. Returns false when the program
 * exceeds a limit of the format: a part of the program the format cannot hold is
 * reported as E0601 in c->diags (call diag_finish before printing them); any other limit,
 * or something the checker should have rejected, is described in `why` (a line to print
 * after the diagnostics, such as "cannot build: too many strings"). */
bool lower_program(Compiler *c, const Program *p, uint8_t **bytes, size_t *len, char *why,
                   size_t why_size);
/* The same, the file's bytes left in the pieces the builder wrote them in (*out, to free
 * with orbc_output_free): `orbitc build` writes them with orbc_output_write_file, without
 * copying the file into one buffer. */
bool lower_program_output(Compiler *c, const Program *p, OrbcOutput **out, char *why,
                          size_t why_size);

#endif
