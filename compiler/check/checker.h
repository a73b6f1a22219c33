/* The semantic checker: every pass after parsing. (Named checker.h, not check.h: that
 * name belongs to the Check unit-test framework, whose <check.h> the tests include.) */
#ifndef ORBIT_CHECKER_H
#define ORBIT_CHECKER_H

#include <stdint.h>

#include "compiler.h"

typedef struct Program Program;   /* the checked program model: program.h */

/* Checks every parsed file (c->asts) together with the standard library (file 0), and
 * reports every problem into c->diags. Returns the checked program; lowering may use it
 * only when no errors were reported. */
Program *check_program(Compiler *c);

/* Checks one program: the standard library and the given sources (parsed, by index),
 * applying their inline suppressions (suppress.h). The lint levels are those of c->diags
 * when it is called; the sink is not finished. The checker's entry for the workspace's
 * pipeline (workspace/workspace.h), which calls it once for each program. */
Program *check_files(Compiler *c, const uint32_t *files, uint32_t count);

#endif
