/* The pipeline of one compiler run, shared by the command line (main.c), the fuzz targets
 * and the tests: set up a Compiler with the standard library, add sources, check. */
#ifndef ORBIT_DRIVER_H
#define ORBIT_DRIVER_H

#include <stdbool.h>

#include "compiler.h"

typedef struct Program Program;

/* Initialises `c` and adds the embedded standard library as file 0. */
void driver_init(Compiler *c);
void driver_free(Compiler *c);

/* Adds a source buffer. `text` must be malloc'd with a NUL at text[len]; the compiler owns
 * it from now on. Returns the file index. */
uint32_t driver_add_source(Compiler *c, const char *path, char *text, uint32_t len);

/* Reads a file and adds it. A file larger than SOURCE_MAX_FILE_SIZE is added empty with
 * an E0010 diagnostic. Returns false (and sets *error to a static or strerror text) only
 * when the file cannot be read at all; nothing is added then. */
bool driver_add_file(Compiler *c, const char *path, const char **error);

/* Parses every source not parsed yet, then runs the checker over the whole program.
 * Call once. Diagnostics are sorted and deduplicated (diag_finish) before it returns. */
Program *driver_check(Compiler *c);

#endif
