/* The built-in task `orbit.http.request`: what makes a request valid (docs/runtime.md,
 * "Invalid HTTP requests"). An invalid request fails with HTTP_ERROR, not retryable,
 * before anything is sent. */
#ifndef ORBIT_RUN_HTTP_H
#define ORBIT_RUN_HTTP_H

#include "arena.h"
#include "value.h"

/* NULL when `request` (the input, already checked against the task's contract) is a
 * valid request; otherwise why not, allocated in `a`: "invalid request: …". */
const char *http_request_problem(Arena *a, Value request);

#endif
