#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "memory.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void source_map_init(SourceMap *map)
{
    memset(map, 0, sizeof *map);
}

void source_map_borrow(SourceMap *view, const SourceMap *from)
{
    *view = *from;
    view->cap = from->count;
    view->files = xmalloc((from->count + 1) * sizeof *view->files);
    if (from->count)   /* an empty map has no files: memcpy may not take NULL */
        memcpy(view->files, from->files, from->count * sizeof *view->files);
    for (uint32_t i = 0; i < view->count; i++) {
        view->files[i].line_starts = NULL;   /* built on demand, by the view's owner */
        view->files[i].line_count = 0;
    }
    view->borrowed = true;
}

void source_map_free(SourceMap *map)
{
    for (uint32_t i = 0; i < map->count; i++) {
        SourceFile *f = &map->files[i];
        if (!map->borrowed) {
            free(f->path);
            if (!f->is_stdlib)
                free((char *)f->text);
        }
        free(f->line_starts);
    }
    free(map->files);
    memset(map, 0, sizeof *map);
}

uint64_t source_room(const SourceMap *map)
{
    return SOURCE_MAX_TOTAL_SIZE - (uint64_t)map->next_origin;
}

uint32_t source_map_add(SourceMap *map, const char *path, char *text, uint32_t len, bool is_stdlib)
{
    if (len > source_room(map)) {
        fatal("too much source (more than %u MiB in all)",
              (unsigned)(SOURCE_MAX_TOTAL_SIZE >> 20));
    }
    if (map->count == map->cap) {
        map->cap = map->cap ? map->cap * 2 : 8;
        map->files = xrealloc(map->files, map->cap * sizeof *map->files);
    }
    SourceFile *f = &map->files[map->count];
    memset(f, 0, sizeof *f);
    size_t plen = strlen(path);
    f->path = xrealloc(NULL, plen + 1);
    memcpy(f->path, path, plen + 1);
    f->text = text;
    f->len = len;
    f->origin = map->next_origin;
    f->is_stdlib = is_stdlib;
    map->next_origin += len + 1;   /* the end position of this file is its own */
    return map->count++;
}

const SourceFile *source_file(const SourceMap *map, uint32_t file)
{
    return &map->files[file];
}

uint32_t source_file_at(const SourceMap *map, uint32_t pos)
{
    uint32_t lo = 0, hi = map->count;   /* invariant: files[lo].origin <= pos */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (map->files[mid].origin <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The line table, in one pass over the file. Where SSE2 is available (every x86-64), 64
 * bytes are compared with '\n' at once and the line ends found are taken from the bit
 * mask: a call of memchr for every line costs more than the line's bytes. In a file
 * that holds a '\r' (one memchr finds out: most files have none, and comparing every
 * block with '\r' too costs more), the block is compared with '\r' as well, and a '\r'
 * followed by '\n' is dropped from the mask: the '\n' ends that line (source_eol_len,
 * source.h). The table is first sized for a line every 32 bytes: a large table comes
 * from the system untouched, and growing it past that copies nothing but page
 * mappings. */
enum { LINE_BLOCK = 64 };

#if defined(__SSE2__)
/* Bit k set: text[k] == c, for k < 16. */
static uint64_t bytes_of_16(const char *text, char c)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)text);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(c)));
}

static uint64_t bytes_of_64(const char *text, char c)
{
    return bytes_of_16(text, c) | bytes_of_16(text + 16, c) << 16 |
           bytes_of_16(text + 32, c) << 32 | bytes_of_16(text + 48, c) << 48;
}
#endif

typedef struct LineTable {
    uint32_t *starts;
    uint32_t count, cap;
} LineTable;

#if defined(__SSE2__)
/* The whole blocks of text[0, len): returns where they end. Inlined twice, for files
 * with and without a '\r', so that a file of LF line ends pays for no '\r'. */
static inline __attribute__((always_inline)) uint32_t
block_lines(LineTable *t, const char *text, uint32_t len, bool has_cr)
{
    uint32_t i = 0;
    for (; len - i >= LINE_BLOCK; i += LINE_BLOCK) {
        uint64_t mask = bytes_of_64(text + i, '\n');
        if (has_cr) {
            /* text[len] is a NUL, so the byte after the block can always be read. */
            uint64_t lf_next = mask >> 1 | (uint64_t)(text[i + LINE_BLOCK] == '\n') << 63;
            mask |= bytes_of_64(text + i, '\r') & ~lf_next;
        }
        if (!mask)
            continue;
        if (t->cap - t->count < LINE_BLOCK) {   /* room for every line the block may end */
            t->cap *= 2;
            t->starts = xrealloc(t->starts, t->cap * sizeof *t->starts);
        }
        uint32_t *next = t->starts + t->count;
        do {
            *next++ = i + (uint32_t)__builtin_ctzll(mask) + 1;
            mask &= mask - 1;
        } while (mask);
        t->count = (uint32_t)(next - t->starts);
    }
    return i;
}
#endif

static void build_lines(SourceFile *f)
{
    const char *text = f->text;
    uint32_t len = f->len, i = 0;
    LineTable t = { NULL, 0, len / 32 + LINE_BLOCK };
    t.starts = xrealloc(NULL, t.cap * sizeof *t.starts);
    t.starts[t.count++] = 0;
#if defined(__SSE2__)
    if (memchr(text, '\r', len))
        i = block_lines(&t, text, len, true);
    else
        i = block_lines(&t, text, len, false);
#endif
    for (; i < len; i++) {
        uint32_t eol = source_eol_len(text + i, text + len);
        if (!eol)
            continue;
        i += eol - 1;
        if (t.count == t.cap) {
            t.cap *= 2;
            t.starts = xrealloc(t.starts, t.cap * sizeof *t.starts);
        }
        t.starts[t.count++] = i + 1;
    }
    f->line_starts = t.starts;
    f->line_count = t.count;
}

static SourceFile *file_with_lines(const SourceMap *map, uint32_t file)
{
    SourceFile *f = &map->files[file];
    if (!f->line_starts)
        build_lines(f);
    return f;
}

uint32_t source_line_of(const SourceMap *map, uint32_t file, uint32_t offset)
{
    SourceFile *f = file_with_lines(map, file);
    uint32_t lo = 0, hi = f->line_count;  /* invariant: line_starts[lo] <= offset */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t source_line_start(const SourceMap *map, uint32_t file, uint32_t line)
{
    SourceFile *f = file_with_lines(map, file);
    return line < f->line_count ? f->line_starts[line] : f->len;
}

const char *source_line_text(const SourceMap *map, uint32_t file, uint32_t line, uint32_t *len)
{
    SourceFile *f = file_with_lines(map, file);
    if (line >= f->line_count) {
        *len = 0;
        return f->text + f->len;
    }
    uint32_t start = f->line_starts[line];
    uint32_t end = line + 1 < f->line_count ? f->line_starts[line + 1] : f->len;
    if (end > start && f->text[end - 1] == '\n')
        end--;
    if (end > start && f->text[end - 1] == '\r')
        end--;
    *len = end - start;
    return f->text + start;
}
