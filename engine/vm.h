/* The expression machine of docs/bytecode.md section 4: evaluates one code block of a
 * verified module on an operand stack and returns its value, or an error message that
 * starts with the source position of the failing instruction. */
#ifndef ORBIT_RUN_VM_H
#define ORBIT_RUN_VM_H

#include "orbc.h"
#include "value.h"

typedef struct Vm Vm;

/* What a code block may read: the workflow input, the results of the workflow's steps
 * (null until a step has run), and the current `for` element. */
typedef struct EvalScope {
    Value input;
    const Value *steps;
    uint32_t step_count;
    const Value *item;     /* NULL outside a `for` element */
} EvalScope;

Vm *vm_new(const OrbcModule *module, Arena *arena);
void vm_free(Vm *vm);

/* Evaluates code block `code`. On failure returns false and writes
 * "FILE:LINE:COL: what went wrong" into `err`. */
bool vm_eval(Vm *vm, uint32_t code, const EvalScope *scope, Value *out, char *err, size_t errlen);

/* "FILE:LINE:COL" of the start of code block `code`, for messages about its result. */
const char *vm_code_position(Vm *vm, uint32_t code);

/* The value of constant `index` (strings are copied into the arena once). */
Value vm_const(const Vm *vm, uint32_t index);
/* Module string `index` as a Str. */
const Str *vm_string(const Vm *vm, uint32_t index);

#endif
