/* Memory outside arenas: one out-of-memory policy (memory.h). */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include "memory.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 * 1024 * 1024 };

_Noreturn void out_of_memory(void)
{
    fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
    exit(2);
}

_Noreturn void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

char *xstrndup(const char *text, size_t len)
{
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

char *xstrdup(const char *text)
{
    return xstrndup(text, strlen(text));
}

void *big_buffer_alloc(size_t size)
{
    if (size < HUGE_PAGE)
        return malloc(size ? size : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Whole huge pages only: the tail stays in small pages, so the buffer costs no more
     * resident memory than its size. Only a hint: failure is harmless. */
    madvise(p, size & ~(size_t)(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
    return p;
}
