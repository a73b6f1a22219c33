/* Source files and positions. Every file of a SourceMap occupies its own range of one
 * 32-bit position space, as in clang and rustc: file i holds the positions
 * [origin, origin + len] (the last one is its end), and the next file starts one past
 * that. A Span is then two positions, 8 bytes in every syntax tree node, and the file is
 * found from the position (source_file_at). Lines and columns are computed only when a
 * diagnostic is printed or a program is lowered. */
#ifndef ORBIT_SOURCE_H
#define ORBIT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct Span {
    uint32_t start;  /* position of the first byte */
    uint32_t end;    /* position one past the last byte (== start for an empty range) */
} Span;

typedef struct SourceFile {
    char *path;               /* as given on the command line, or "<stdlib>/orbit.orbit" */
    const char *text;         /* the bytes; text[len] == '\0' (the file may contain NULs too) */
    uint32_t len;
    uint32_t origin;          /* the position of byte 0 */
    bool is_stdlib;
    uint32_t *line_starts;    /* byte offset of each line's first byte; built on demand */
    uint32_t line_count;
} SourceFile;

typedef struct SourceMap {
    SourceFile *files;
    uint32_t count;
    uint32_t cap;
    uint32_t next_origin;     /* where the next file's positions begin */
    bool borrowed;            /* a view (source_map_borrow): paths and texts not owned */
} SourceMap;

enum {
    /* Largest source file accepted (bytes). Offsets are 32-bit; this keeps far away from it. */
    SOURCE_MAX_FILE_SIZE = 256u * 1024 * 1024,
};

/* Most bytes of source in one run, all files together: the position space is 32-bit. */
#define SOURCE_MAX_TOTAL_SIZE (3u * 1024 * 1024 * 1024)

void source_map_init(SourceMap *map);
void source_map_free(SourceMap *map);

/* Makes `view` a view of the files of `from`, at the same indexes and positions, that
 * shares their paths and texts (read only; `from` must outlive it) but builds its own
 * line tables: a compiler on another thread may read the sources of a run without
 * touching `from`. No file may be added to the view; free it with source_map_free. */
void source_map_borrow(SourceMap *view, const SourceMap *from);

/* Adds a file whose bytes are owned by the map from now on (freed by source_map_free,
 * unless is_stdlib). `text` must have a NUL after `len` bytes, and `len` at most
 * source_room(map) (else the program stops: callers check). Returns the file index. */
uint32_t source_map_add(SourceMap *map, const char *path, char *text, uint32_t len, bool is_stdlib);

/* How many more bytes of source fit in the position space (SOURCE_MAX_TOTAL_SIZE). */
uint64_t source_room(const SourceMap *map);

const SourceFile *source_file(const SourceMap *map, uint32_t file);

/* The index of the file that holds position `pos` (0 when the map is empty). */
uint32_t source_file_at(const SourceMap *map, uint32_t pos);

/* The span of bytes [start, end) of file `file`. */
static inline Span source_span(const SourceMap *map, uint32_t file, uint32_t start, uint32_t end);

/* 0-based line of a byte offset, and the byte offset where that line starts. Lines end
 * as source_eol_len says; an offset inside a "\r\n" belongs to the line it ends. */
uint32_t source_line_of(const SourceMap *map, uint32_t file, uint32_t offset);
uint32_t source_line_start(const SourceMap *map, uint32_t file, uint32_t line);
/* The line's text without its line end. */
const char *source_line_text(const SourceMap *map, uint32_t file, uint32_t line, uint32_t *len);

/* Line ends, one rule for all of orbitc (positions, the lexer, the formatter, inline
 * suppressions, the language server), the Language Server Protocol's: "\n", "\r\n" and a
 * lone "\r" each end one line. The length of the line end at p, for p < end: 2 for
 * "\r\n", 1 for "\n" or a lone "\r", 0 when no line ends at p. */
static inline uint32_t source_eol_len(const char *p, const char *end)
{
    if (*p == '\n')
        return 1;
    if (*p != '\r')
        return 0;
    return p + 1 < end && p[1] == '\n' ? 2 : 1;
}

/* Whether c is a byte of a line end. */
static inline bool source_is_eol(char c)
{
    return c == '\n' || c == '\r';
}

/* The first line end in [p, end), or end. */
static inline const char *source_find_eol(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *limit = nl ? nl : end;
    const char *cr = memchr(p, '\r', (size_t)(limit - p));
    return cr ? cr : limit;
}

/* Whether byte `at` of text[0, len) starts a line: it is the first or follows a line end
 * (the "\n" of a "\r\n" does not: it ends the line). at == len is allowed. */
static inline bool source_starts_line(const char *text, uint32_t len, uint32_t at)
{
    if (at == 0)
        return true;
    char before = text[at - 1];
    return before == '\n' || (before == '\r' && (at == len || text[at] != '\n'));
}

/* The start of the line that holds byte `at` of text[0, len). */
static inline uint32_t source_line_begin(const char *text, uint32_t len, uint32_t at)
{
    while (!source_starts_line(text, len, at))
        at--;
    return at;
}

/* The white space the lexer skips between tokens (compiler/syntax/lexer.re): space, tab,
 * form feed, vertical tab, and the line ends, which it also counts. */
static inline bool source_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static inline Span span_make(uint32_t start, uint32_t end)
{
    Span s = { start, end };
    return s;
}

static inline Span source_span(const SourceMap *map, uint32_t file, uint32_t start, uint32_t end)
{
    uint32_t origin = map->files[file].origin;
    return span_make(origin + start, origin + end);
}

/* The smallest span that covers both (same file). */
static inline Span span_join(Span a, Span b)
{
    Span s = a;
    if (b.start < s.start)
        s.start = b.start;
    if (b.end > s.end)
        s.end = b.end;
    return s;
}

#endif
