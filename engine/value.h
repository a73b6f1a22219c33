/* Runtime values of the reference runtime: null, bool, int, number, string, duration,
 * list and record, allocated from a run's arena (freed all at once when the run ends).
 *
 * Lists and records remember their nesting depth; nothing may nest deeper than
 * VALUE_MAX_DEPTH, so every recursive walk over a value (printing, equality, contract
 * checks) has a bounded depth. Records keep their fields in order; a record with many
 * fields gets a hash index so that looking up a field costs O(1). */
#ifndef ORBIT_RUN_VALUE_H
#define ORBIT_RUN_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"   /* base: values live in a run's arena */
#include "textbuf.h"
#include "orbc_value.h"

enum { VALUE_MAX_DEPTH = 4096 };

/* ---- values ---- */

typedef struct Str {
    size_t len;
    const char *text;    /* NUL-terminated; may contain NUL */
} Str;

typedef struct List List;
typedef struct Record Record;

typedef struct Value {
    uint8_t kind;        /* OrbcKind: liborbc's kinds (orbc_value.h) */
    union {
        bool b;
        int64_t i;       /* INT; DURATION in milliseconds */
        double n;
        const Str *s;
        List *list;
        Record *rec;
    };
} Value;

struct List {
    uint32_t count;
    uint32_t depth;      /* 1 + the deepest element's depth */
    Value *items;
};

struct Record {
    uint32_t count;
    uint32_t depth;
    const Str **names;
    Value *values;
    uint32_t *index;     /* open-addressing hash of field positions + 1, or NULL */
    uint32_t index_cap;
};

static inline Value value_null(void) { return (Value){ .kind = ORBC_KIND_NULL }; }
static inline Value value_bool(bool b) { return (Value){ .kind = ORBC_KIND_BOOL, .b = b }; }
static inline Value value_int(int64_t i) { return (Value){ .kind = ORBC_KIND_INT, .i = i }; }
static inline Value value_number(double n)
{
    return (Value){ .kind = ORBC_KIND_NUMBER, .n = n };
}
static inline Value value_duration(int64_t ms)
{
    return (Value){ .kind = ORBC_KIND_DURATION, .i = ms };
}

const Str *value_str_new(Arena *a, const char *text, size_t len);
Value value_string(Arena *a, const char *text, size_t len);
Value value_cstring(Arena *a, const char *text);

/* A list or record of `count` slots to fill, then value_*_seal to compute the depth. */
List *value_list_new(Arena *a, uint32_t count);
Record *value_record_new(Arena *a, uint32_t count);
/* Computes depth (and the hash index of a large record); false when too deep. */
bool value_list_seal(Arena *a, List *l);
bool value_record_seal(Arena *a, Record *r);

/* The position of a field, or -1. */
int64_t value_record_find(const Record *r, const char *name, size_t len);
const Value *value_record_get(const Record *r, const char *name);

/* The value as liborbc sees it (a string by its bytes, a list or record opaque), and
 * back: a string result of liborbc is wrapped in a Str from the arena. */
OrbcValue value_to_orbc(Value v);
Value value_from_orbc(Arena *a, OrbcValue v);

uint32_t value_depth(Value v);
/* `eq` (liborbc's rules; two lists or two records by their contents). */
bool value_equal(Value a, Value b);
/* "int", "string", "record", ... */
const char *value_kind_name(Value v);

/* JSON text of a value (compact; records keep their order; durations as milliseconds;
 * numbers as `str` writes them; non-finite numbers as null). */
void value_to_json(TextBuffer *out, Value v);
/* A JSON string literal of `len` bytes (escapes quotes, backslashes, controls). */
void value_json_quote(TextBuffer *out, const char *text, size_t len);

#endif
