/* The module of the runtime's fuzz targets (fuzz_scenario, fuzz_model), built with
 * liborbc's builder: workflow `main` with a worker with contracts and a compensation
 * (`payments.charge`, `payments.refund`), an await of the signal `approved`, the built-in
 * HTTP task, and a child workflow `sub`; retries, timeouts, a queue timeout and a
 * workflow timeout. */
#ifndef ORBIT_FUZZ_MODULE_H
#define ORBIT_FUZZ_MODULE_H

#include "orbc.h"

/* Builds and loads it (aborts if that fails: a bug of the target itself). */
void fuzz_runtime_module(OrbcModule *module);

#endif
