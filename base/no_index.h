/* "No index": the value of a 32-bit index that points at nothing (an undeclared worker, a
 * missing part of the checked program, a file of the language server read from disk
 * rather than from an open document). One name for the compiler, the workspace and the
 * server; liborbc, which includes libc only, spells the same value ORBC_NONE (orbc.h). */
#ifndef ORBIT_NO_INDEX_H
#define ORBIT_NO_INDEX_H

#include <stdint.h>

#define NO_INDEX UINT32_MAX

#endif
