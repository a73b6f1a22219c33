/* The semantic checker: every pass after parsing. (Named checker.h, not check.h: that
 * name belongs to the Check unit-test framework, whose <check.h> the tests include.) */
#ifndef ORBIT_CHECKER_H
#define ORBIT_CHECKER_H

#include "compiler.h"

typedef struct Program Program;   /* the checked program model: program.h */

/* Checks every parsed file (c->asts) together with the standard library (file 0), and
 * reports every problem into c->diags. Returns the checked program; lowering may use it
 * only when no errors were reported. */
Program *check_program(Compiler *c);

#endif
