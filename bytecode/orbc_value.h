/* liborbc: what values mean (docs/bytecode.md, section 4). The operators and built-in
 * functions of the expression machine on scalar values, the text of a number and of a
 * duration, the duration units. The reference runtime's VM evaluates with these
 * functions, and the compiler folds constants with the same ones, so a folded
 * expression has exactly the value the runtime would compute.
 *
 * Lists and records belong to the runtime that holds them: a value of those kinds is
 * opaque here (its kind is known, its contents are not). Where a result depends on the
 * contents (equality of two lists or of two records, `len`, `contains`, `str` of one),
 * the functions return ORBC_EVAL_CONTAINER and the caller computes it; everything else,
 * including every failure, is decided here. */
#ifndef ORBC_VALUE_H
#define ORBC_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orbc.h"

/* The kinds of values (docs/bytecode.md, section 4), the one list of them: the runtime's
 * values (engine/value.h) use it too. The scalar kinds are numbered as the constants'
 * tags (OrbcConstKind, orbc.h: a fact of the file format, kept apart because it has no
 * containers), then the two containers. */
typedef enum OrbcKind {
    ORBC_KIND_NULL = ORBC_CONST_NULL,
    ORBC_KIND_BOOL = ORBC_CONST_BOOL,
    ORBC_KIND_INT = ORBC_CONST_INT,
    ORBC_KIND_NUMBER = ORBC_CONST_NUMBER,
    ORBC_KIND_STRING = ORBC_CONST_STRING,
    ORBC_KIND_DURATION = ORBC_CONST_DURATION,
    ORBC_KIND_LIST,
    ORBC_KIND_RECORD,
} OrbcKind;

typedef struct OrbcValue {
    uint8_t kind;                /* OrbcKind */
    union {
        bool boolean;
        int64_t integer;         /* INT; DURATION in milliseconds */
        double number;
        struct {
            const char *text;    /* `len` bytes (results: NUL-terminated too) */
            size_t len;
        } string;
        const void *container;   /* LIST, RECORD: the caller's, never read here */
    };
} OrbcValue;

/* "null", "bool", "int", "number", "string", "duration", "list", "record"; "?" else. */
const char *orbc_kind_name(uint8_t kind);

/* ---- evaluation ---- */

typedef enum OrbcEvalStatus {
    ORBC_EVAL_OK = 0,
    ORBC_EVAL_TYPE,              /* the operator does not take values of these kinds */
    ORBC_EVAL_OVERFLOW,          /* integer (or duration) overflow */
    ORBC_EVAL_DIVISION_BY_ZERO,  /* by an int zero */
    ORBC_EVAL_CONTAINER,         /* the result depends on a list's or record's contents */
    ORBC_EVAL_NO_MEMORY,         /* the allocator returned NULL */
} OrbcEvalStatus;

/* The context of an evaluation: where string results go, and what went wrong. */
typedef struct OrbcEval {
    /* Returns `size` bytes for a string result (joined, `str`, `lower`, `upper`), or
     * NULL when there is no memory. Results are never freed here. */
    void *(*alloc)(void *context, size_t size);
    void *context;
    /* After a failure other than ORBC_EVAL_CONTAINER, the runtime's message without its
     * position: "integer overflow", "cannot apply `+` to int and string". */
    char message[128];
} OrbcEval;

/* NOT, NEG. */
OrbcEvalStatus orbc_eval_unary(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue *out);
/* ADD ... GE: `a op b`. */
OrbcEvalStatus orbc_eval_binary(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b,
                                OrbcValue *out);
/* The conditional jumps (`&&`, `||`, `??`) on the value on top of the stack: sets *jump
 * (jump and keep it, or pop it and go on); fails when `&&` or `||` finds no bool. */
OrbcEvalStatus orbc_eval_branch(OrbcEval *ev, uint8_t op, OrbcValue top, bool *jump);
/* A built-in function with `argc` arguments (its arity, checked by the verifier). */
OrbcEvalStatus orbc_eval_call(OrbcEval *ev, uint8_t func, const OrbcValue *args,
                              uint32_t argc, OrbcValue *out);
/* `eq`: an int and a number compare as numbers, values of different kinds are unequal.
 * Two lists or two records compare by their contents, which is the caller's part: for
 * them this returns false (orbc_eval_binary: ORBC_EVAL_CONTAINER). */
bool orbc_values_equal(OrbcValue a, OrbcValue b);

/* ---- text ---- */

enum {
    ORBC_NUMBER_TEXT_SIZE = 40,     /* any number's text, with its NUL */
    ORBC_DURATION_TEXT_SIZE = 64,   /* any duration's text, with its NUL */
    ORBC_SCALAR_TEXT_SIZE = 64,     /* any null, bool, int, number or duration's text */
};

/* The text of a number as `str` gives it (docs/bytecode.md, section 4.1: ECMAScript's
 * Number::toString): the shortest digits that read back as the same double, in plain
 * notation from 1e-6 up to below 1e21 ("0.1", "1250", "0.000001"), else with an exponent
 * ("1e+21", "1.5e-7"); "0" for zero and negative zero; "NaN", "Infinity", "-Infinity".
 * Returns its length. */
size_t orbc_format_number(char out[ORBC_NUMBER_TEXT_SIZE], double n);
/* A duration in the largest exact units, largest first: "1h30m", "500ms", "-2s"; "0ms"
 * for zero. Returns its length. */
size_t orbc_format_duration(char out[ORBC_DURATION_TEXT_SIZE], int64_t ms);
/* The text `str` gives for a null, bool, int, number or duration ("null", "true", "42",
 * "1.5", "1500ms"); "" for other kinds. Returns its length. */
size_t orbc_scalar_text(char out[ORBC_SCALAR_TEXT_SIZE], OrbcValue v);

/* The units of duration literals, largest first ("d", "h", "m", "s", "ms"). */
typedef struct OrbcDurationUnit {
    const char *name;
    int64_t ms;
} OrbcDurationUnit;

enum { ORBC_DURATION_UNIT_COUNT = 5 };
extern const OrbcDurationUnit orbc_duration_units[ORBC_DURATION_UNIT_COUNT];

#endif
