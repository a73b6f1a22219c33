/* Contract checks: does a value match a type of the module (a workflow's or a task's
 * input or output)? Used for INPUT_CONTRACT_VIOLATION and OUTPUT_CONTRACT_VIOLATION, and
 * to build the placeholder output of a scripted worker that has no outcome left. */
#ifndef ORBIT_RUN_CONTRACT_H
#define ORBIT_RUN_CONTRACT_H

#include "orbc.h"
#include "value.h"

/* Checks `v` against type `type`. JSON has no durations: an int where a duration is
 * expected is taken as milliseconds and converted, so `*out` may differ from `v`.
 * On a mismatch returns false and writes e.g. "expected string at `order_id`, found int",
 * "missing field `currency`" or "unexpected field `amout`" into `err`. */
bool contract_conform(const OrbcModule *m, Arena *a, uint32_t type, Value v, Value *out,
                      char *err, size_t errlen);

/* The simplest value of a type: {} for any, "" / 0 / false / [] / null, records with
 * every required field, as deep as the type nests (up to VALUE_MAX_DEPTH levels). */
Value contract_default(const OrbcModule *m, Arena *a, uint32_t type);

#endif
