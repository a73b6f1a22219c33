/* Memory outside arenas, with one out-of-memory policy for every program of the project
 * (orbitc, orbit-run, the tests): when memory runs out, the program prints
 * "PROGRAM: out of memory" on stderr and exits with status 2, the status of "could not
 * run" (docs/architecture.md). Nothing is freed on the way out: the process ends.
 *
 * liborbc does not use this: a library returns errors instead of exiting. */
#ifndef ORBIT_MEMORY_H
#define ORBIT_MEMORY_H

#include <stddef.h>

/* Prints the message and exits with status 2. */
_Noreturn void out_of_memory(void);

/* The same for another limit the program cannot go past ("PROGRAM: MESSAGE"): the one
 * other place outside the command lines that prints. */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc, calloc and realloc that never return NULL (a zero size still gives a valid,
 * distinct pointer). */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
/* A malloc'd copy of the `len` bytes at `text`, with a NUL after them. */
char *xstrndup(const char *text, size_t len);
/* A malloc'd copy of the NUL-terminated `text`. */
char *xstrdup(const char *text);

/* `size` bytes for a large buffer filled at once (a source file's text): like malloc
 * (free it with free), but from 2 MiB up its whole 2 MiB pieces are transparent huge
 * pages, so filling it takes a 512th of the page faults. NULL when memory runs out (the
 * caller reports the file it was reading). */
void *big_buffer_alloc(size_t size);

#endif
