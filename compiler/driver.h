/* The pipeline of one compiler run, shared by the command line (main.c), the fuzz targets
 * and the tests: set up a Compiler with the standard library, add sources, check. */
#ifndef ORBIT_DRIVER_H
#define ORBIT_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

typedef struct Program Program;

/* Initialises `c` and adds the embedded standard library as file 0. */
void driver_init(Compiler *c);
void driver_free(Compiler *c);

/* Adds a source buffer. `text` must be malloc'd with a NUL at text[len]; the compiler owns
 * it from now on. Returns the file index. */
uint32_t driver_add_source(Compiler *c, const char *path, char *text, uint32_t len);

/* Reads a file the user named and adds it: a regular file, a pipe or a character device
 * (`orbitc check <(cat f)`, /dev/stdin); opening a FIFO waits for its writer, as `cat`
 * does. A file larger than SOURCE_MAX_FILE_SIZE is added empty with an E0010 diagnostic
 * (a regular file without being read; a stream is read up to the limit). Returns false
 * (and sets *error to a static or strerror text) only when the file cannot be read at
 * all (a directory among them); nothing is added then. */
bool driver_add_file(Compiler *c, const char *path, const char **error);

/* The same for a file found by a directory walk: only a regular file is read, and a FIFO
 * or device met there is refused ("not a regular file") without ever blocking. */
bool driver_add_found_file(Compiler *c, const char *path, const char **error);

/* The same for an open descriptor (standard input), read from where it stands, and added
 * under `name`. The descriptor stays open. */
bool driver_add_fd(Compiler *c, int fd, const char *name, const char **error);

/* Reads a whole binary file ("-": standard input): at most `limit` + 1 bytes, so that an
 * oversized file reaches its loader, which names the limit. malloc'd; NULL with *error
 * set (a directory: "is a directory"). */
uint8_t *driver_read_binary(const char *path, size_t limit, size_t *len, const char **error);

/* Parses every source not parsed yet, then runs the checker over the whole program.
 * Call once. Diagnostics are sorted and deduplicated (diag_finish) before it returns. */
Program *driver_check(Compiler *c);

/* The parts of driver_check, for a run that checks several programs (programs.h): parse
 * every source not parsed yet; then check the program made of the standard library and
 * the given sources (parsed, by index), applying their inline suppressions. The lint
 * levels are those of c->diags when it is called; the sink is not finished. */
void driver_parse(Compiler *c);
Program *driver_check_files(Compiler *c, const uint32_t *files, uint32_t count);

#endif
