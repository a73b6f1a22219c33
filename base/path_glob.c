/* Glob patterns over relative paths (path_glob.h): segment by segment, `**` for any
 * number of segments, by dynamic programming over the two lists of segments. */
#include "path_glob.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

typedef struct Segments {
    char **items;        /* NUL-terminated copies */
    size_t count;
} Segments;

static Segments split(const char *path)
{
    Segments s = { xmalloc((strlen(path) / 2 + 2) * sizeof *s.items), 0 };
    while (*path) {
        size_t len = strcspn(path, "/");
        if (len > 0)
            s.items[s.count++] = xstrndup(path, len);
        path += len;
        path += *path == '/';
    }
    return s;
}

static void segments_free(Segments *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i]);
    free(s->items);
}

/* matched[i * (n + 1) + j]: whether the pattern's segments from i match the path's from
 * j, filled from the ends backwards. */
bool path_glob_match(const char *pattern, const char *path)
{
    Segments p = split(pattern), s = split(path);
    size_t m = p.count, n = s.count, width = n + 1;
    bool *matched = xcalloc((m + 1) * width, sizeof *matched);
    matched[m * width + n] = true;
    for (size_t i = m; i-- > 0;) {
        bool any = strcmp(p.items[i], "**") == 0;
        for (size_t j = n + 1; j-- > 0;) {
            bool rest = matched[(i + 1) * width + j];
            if (any)   /* none of the path's segments, or one more */
                matched[i * width + j] = rest || (j < n && matched[i * width + j + 1]);
            else
                matched[i * width + j] = j < n && matched[(i + 1) * width + j + 1]
                    && fnmatch(p.items[i], s.items[j], 0) == 0;
        }
    }
    bool result = matched[0];
    free(matched);
    segments_free(&p);
    segments_free(&s);
    return result;
}
