/* What values mean: the operators and built-in functions of the expression machine on
 * scalar values (orbc_value.h, docs/bytecode.md section 4), and the text of values. The
 * reference runtime's VM and the compiler's constant folding both call these, so they
 * cannot disagree. */
#define _GNU_SOURCE   /* memmem */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_internal.h"
#include "orbc_value.h"

const char *orbc_kind_name(uint8_t kind)
{
    static const char *const names[] = {
        "null", "bool", "int", "number", "string", "duration", "list", "record",
    };
    return kind <= ORBC_KIND_RECORD ? names[kind] : "?";
}

/* ---- results and failures ---- */

__attribute__((format(printf, 3, 4)))
static OrbcEvalStatus fail(OrbcEval *ev, OrbcEvalStatus status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(ev->message, sizeof ev->message, fmt, args);
    va_end(args);
    return status;
}

static OrbcEvalStatus overflow(OrbcEval *ev)
{
    return fail(ev, ORBC_EVAL_OVERFLOW, "integer overflow");
}

static OrbcEvalStatus bad_operands(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b)
{
    return fail(ev, ORBC_EVAL_TYPE, "cannot apply `%s` to %s and %s", orbc_op_info(op)->symbol,
                orbc_kind_name(a.kind), orbc_kind_name(b.kind));
}

static OrbcEvalStatus give(OrbcValue *out, OrbcValue v)
{
    *out = v;
    return ORBC_EVAL_OK;
}

static OrbcValue make_bool(bool b)
{
    return (OrbcValue){ .kind = ORBC_KIND_BOOL, .boolean = b };
}

static OrbcValue make_int(uint8_t kind, int64_t i)
{
    return (OrbcValue){ .kind = kind, .integer = i };
}

static OrbcValue make_number(double n)
{
    return (OrbcValue){ .kind = ORBC_KIND_NUMBER, .number = n };
}

/* A string result of `len` bytes from the caller's allocator (NUL-terminated). */
static char *new_text(OrbcEval *ev, size_t len, OrbcValue *out)
{
    char *text = len < SIZE_MAX ? ev->alloc(ev->context, len + 1) : NULL;
    if (!text) {
        fail(ev, ORBC_EVAL_NO_MEMORY, "out of memory");
        return NULL;
    }
    text[len] = '\0';
    *out = (OrbcValue){ .kind = ORBC_KIND_STRING, .string = { text, len } };
    return text;
}

/* ---- arithmetic ---- */

static bool numeric(OrbcValue v)
{
    return v.kind == ORBC_KIND_INT || v.kind == ORBC_KIND_NUMBER;
}

static double as_double(OrbcValue v)
{
    return v.kind == ORBC_KIND_INT ? (double)v.integer : v.number;
}

static OrbcEvalStatus join(OrbcEval *ev, OrbcValue a, OrbcValue b, OrbcValue *out)
{
    size_t len = a.string.len + b.string.len;
    char *text = len >= a.string.len ? new_text(ev, len, out) : NULL;
    if (!text)
        return ORBC_EVAL_NO_MEMORY;
    if (a.string.len)
        memcpy(text, a.string.text, a.string.len);
    if (b.string.len)
        memcpy(text + a.string.len, b.string.text, b.string.len);
    return ORBC_EVAL_OK;
}

static OrbcEvalStatus add_sub(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b,
                              OrbcValue *out)
{
    bool add = op == ORBC_OP_ADD;
    int64_t r;
    if ((a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_INT) ||
        (a.kind == ORBC_KIND_DURATION && b.kind == ORBC_KIND_DURATION)) {
        bool over = add ? __builtin_add_overflow(a.integer, b.integer, &r)
                        : __builtin_sub_overflow(a.integer, b.integer, &r);
        return over ? overflow(ev) : give(out, make_int(a.kind, r));
    }
    if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        return give(out, make_number(add ? x + y : x - y));
    }
    if (add && a.kind == ORBC_KIND_STRING && b.kind == ORBC_KIND_STRING)
        return join(ev, a, b, out);
    return bad_operands(ev, op, a, b);
}

static OrbcEvalStatus mul(OrbcEval *ev, OrbcValue a, OrbcValue b, OrbcValue *out)
{
    int64_t r;
    bool ints = a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_INT;
    bool duration = (a.kind == ORBC_KIND_DURATION && b.kind == ORBC_KIND_INT) ||
                    (a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_DURATION);
    if (ints || duration) {
        if (__builtin_mul_overflow(a.integer, b.integer, &r))
            return overflow(ev);
        return give(out, make_int(ints ? ORBC_KIND_INT : ORBC_KIND_DURATION, r));
    }
    if (numeric(a) && numeric(b))
        return give(out, make_number(as_double(a) * as_double(b)));
    return bad_operands(ev, ORBC_OP_MUL, a, b);
}

static OrbcEvalStatus div_mod(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b,
                              OrbcValue *out)
{
    bool divide = op == ORBC_OP_DIV;
    bool ints = a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_INT;
    bool duration = divide && a.kind == ORBC_KIND_DURATION && b.kind == ORBC_KIND_INT;
    if (ints || duration) {
        if (b.integer == 0)
            return fail(ev, ORBC_EVAL_DIVISION_BY_ZERO, "division by zero");
        if (a.integer == INT64_MIN && b.integer == -1)
            return divide ? overflow(ev) : give(out, make_int(ORBC_KIND_INT, 0));
        return give(out, make_int(a.kind, divide ? a.integer / b.integer
                                                 : a.integer % b.integer));
    }
    if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        return give(out, make_number(divide ? x / y : fmod(x, y)));
    }
    return bad_operands(ev, op, a, b);
}

/* ---- comparison ---- */

static int compare_bytes(OrbcValue a, OrbcValue b)
{
    size_t n = a.string.len < b.string.len ? a.string.len : b.string.len;
    int c = n ? memcmp(a.string.text, b.string.text, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (a.string.len > b.string.len) - (a.string.len < b.string.len);
}

bool orbc_values_equal(OrbcValue a, OrbcValue b)
{
    if (numeric(a) && numeric(b)) {
        if (a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_INT)
            return a.integer == b.integer;
        return as_double(a) == as_double(b);
    }
    if (a.kind != b.kind)
        return false;
    switch ((OrbcKind)a.kind) {
    case ORBC_KIND_NULL: return true;
    case ORBC_KIND_BOOL: return a.boolean == b.boolean;
    case ORBC_KIND_DURATION: return a.integer == b.integer;
    case ORBC_KIND_STRING: return compare_bytes(a, b) == 0;
    default: return false;
    }
}

static OrbcEvalStatus compare(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b,
                              OrbcValue *out)
{
    int c;
    if ((a.kind == ORBC_KIND_INT && b.kind == ORBC_KIND_INT) ||
        (a.kind == ORBC_KIND_DURATION && b.kind == ORBC_KIND_DURATION)) {
        c = (a.integer > b.integer) - (a.integer < b.integer);
    } else if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        if (isnan(x) || isnan(y))
            return give(out, make_bool(false));   /* unordered: every comparison false */
        c = (x > y) - (x < y);
    } else if (a.kind == ORBC_KIND_STRING && b.kind == ORBC_KIND_STRING) {
        c = compare_bytes(a, b);
    } else {
        return bad_operands(ev, op, a, b);
    }
    bool r = op == ORBC_OP_LT ? c < 0
           : op == ORBC_OP_LE ? c <= 0
           : op == ORBC_OP_GT ? c > 0
           : c >= 0;
    return give(out, make_bool(r));
}

static bool is_container(OrbcValue v)
{
    return v.kind == ORBC_KIND_LIST || v.kind == ORBC_KIND_RECORD;
}

OrbcEvalStatus orbc_eval_binary(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue b,
                                OrbcValue *out)
{
    switch (op) {
    case ORBC_OP_ADD:
    case ORBC_OP_SUB: return add_sub(ev, op, a, b, out);
    case ORBC_OP_MUL: return mul(ev, a, b, out);
    case ORBC_OP_DIV:
    case ORBC_OP_MOD: return div_mod(ev, op, a, b, out);
    case ORBC_OP_EQ:
    case ORBC_OP_NE:
        if (a.kind == b.kind && is_container(a))
            return ORBC_EVAL_CONTAINER;
        return give(out, make_bool(orbc_values_equal(a, b) == (op == ORBC_OP_EQ)));
    case ORBC_OP_LT:
    case ORBC_OP_LE:
    case ORBC_OP_GT:
    case ORBC_OP_GE: return compare(ev, op, a, b, out);
    }
    return fail(ev, ORBC_EVAL_TYPE, "`%s` is not a binary operator",
                orbc_op_name(op) ? orbc_op_name(op) : "?");
}

OrbcEvalStatus orbc_eval_unary(OrbcEval *ev, uint8_t op, OrbcValue a, OrbcValue *out)
{
    if (op == ORBC_OP_NOT && a.kind == ORBC_KIND_BOOL)
        return give(out, make_bool(!a.boolean));
    if (op == ORBC_OP_NEG && (a.kind == ORBC_KIND_INT || a.kind == ORBC_KIND_DURATION))
        return a.integer == INT64_MIN ? overflow(ev) : give(out, make_int(a.kind, -a.integer));
    if (op == ORBC_OP_NEG && a.kind == ORBC_KIND_NUMBER)
        return give(out, make_number(-a.number));
    const OrbcOpInfo *info = orbc_op_info(op);
    return fail(ev, ORBC_EVAL_TYPE, "cannot apply `%s` to %s", info ? info->symbol : "?",
                orbc_kind_name(a.kind));
}

OrbcEvalStatus orbc_eval_branch(OrbcEval *ev, uint8_t op, OrbcValue top, bool *jump)
{
    if (op == ORBC_OP_JUMP_IF_NOT_NULL) {
        *jump = top.kind != ORBC_KIND_NULL;
        return ORBC_EVAL_OK;
    }
    const OrbcOpInfo *info = orbc_op_info(op);
    if (top.kind != ORBC_KIND_BOOL)
        return fail(ev, ORBC_EVAL_TYPE, "`%s` needs a bool, found %s",
                    info ? info->symbol : "?", orbc_kind_name(top.kind));
    *jump = op == ORBC_OP_JUMP_IF_FALSE ? !top.boolean : top.boolean;
    return ORBC_EVAL_OK;
}

/* ---- built-in functions ---- */

static OrbcEvalStatus fn_len(OrbcEval *ev, OrbcValue a, OrbcValue *out)
{
    if (a.kind == ORBC_KIND_STRING)
        return give(out, make_int(ORBC_KIND_INT, (int64_t)a.string.len));
    if (is_container(a))
        return ORBC_EVAL_CONTAINER;
    return fail(ev, ORBC_EVAL_TYPE, "`len` needs a string, list or record, found %s",
                orbc_kind_name(a.kind));
}

static OrbcEvalStatus fn_str(OrbcEval *ev, OrbcValue a, OrbcValue *out)
{
    if (a.kind == ORBC_KIND_STRING)
        return give(out, a);
    if (is_container(a))
        return ORBC_EVAL_CONTAINER;
    char text[ORBC_SCALAR_TEXT_SIZE];
    size_t len = orbc_scalar_text(text, a);
    char *copy = new_text(ev, len, out);
    if (!copy)
        return ORBC_EVAL_NO_MEMORY;
    memcpy(copy, text, len);
    return ORBC_EVAL_OK;
}

/* ASCII case of a string; other bytes (UTF-8 sequences) stay as they are. */
static OrbcEvalStatus fn_case(OrbcEval *ev, uint8_t func, OrbcValue a, OrbcValue *out)
{
    bool upper = func == ORBC_FN_UPPER;
    if (a.kind != ORBC_KIND_STRING)
        return fail(ev, ORBC_EVAL_TYPE, "`%s` needs a string, found %s", orbc_func_name(func),
                    orbc_kind_name(a.kind));
    char *text = new_text(ev, a.string.len, out);
    if (!text)
        return ORBC_EVAL_NO_MEMORY;
    for (size_t i = 0; i < a.string.len; i++) {
        char c = a.string.text[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        text[i] = c;
    }
    return ORBC_EVAL_OK;
}

static bool has_substring(OrbcValue hay, OrbcValue needle)
{
    if (needle.string.len == 0)
        return true;
    if (needle.string.len > hay.string.len)
        return false;
    return memmem(hay.string.text, hay.string.len, needle.string.text,
                  needle.string.len) != NULL;
}

static OrbcEvalStatus fn_contains(OrbcEval *ev, OrbcValue a, OrbcValue b, OrbcValue *out)
{
    if (a.kind == ORBC_KIND_STRING && b.kind == ORBC_KIND_STRING)
        return give(out, make_bool(has_substring(a, b)));
    if (a.kind == ORBC_KIND_LIST || (a.kind == ORBC_KIND_RECORD && b.kind == ORBC_KIND_STRING))
        return ORBC_EVAL_CONTAINER;
    return fail(ev, ORBC_EVAL_TYPE, "`contains` cannot search %s for %s",
                orbc_kind_name(a.kind), orbc_kind_name(b.kind));
}

OrbcEvalStatus orbc_eval_call(OrbcEval *ev, uint8_t func, const OrbcValue *args,
                              uint32_t argc, OrbcValue *out)
{
    if (orbc_func_arity(func) != (int)argc)
        return fail(ev, ORBC_EVAL_TYPE, "bad call of function %u with %u arguments", func,
                    argc);
    switch ((OrbcFunc)func) {
    case ORBC_FN_LEN: return fn_len(ev, args[0], out);
    case ORBC_FN_STR: return fn_str(ev, args[0], out);
    case ORBC_FN_LOWER:
    case ORBC_FN_UPPER: return fn_case(ev, func, args[0], out);
    case ORBC_FN_CONTAINS: return fn_contains(ev, args[0], args[1], out);
    case ORBC_FN_COUNT: break;
    }
    return fail(ev, ORBC_EVAL_TYPE, "bad call of function %u with %u arguments", func, argc);
}

/* ---- text ---- */

const OrbcDurationUnit orbc_duration_units[ORBC_DURATION_UNIT_COUNT] = {
    { "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 },
};

int64_t orbc_retry_delay(OrbcBackoff backoff, int64_t initial_ms, int64_t max_ms,
                         uint32_t attempt)
{
    if (attempt < 2)
        return 0;
    if (backoff != ORBC_BACKOFF_EXPONENTIAL)
        return initial_ms;
    int64_t delay = initial_ms;
    for (uint32_t n = 2; n < attempt && delay > 0 && delay < max_ms; n++)
        delay = delay > max_ms / 2 ? max_ms : delay * 2;
    return delay < max_ms ? delay : max_ms;
}

size_t orbc_format_duration(char out[ORBC_DURATION_TEXT_SIZE], int64_t ms)
{
    if (ms == 0) {
        memcpy(out, "0ms", 4);
        return 3;
    }
    size_t len = 0;
    uint64_t left = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    if (ms < 0)
        out[len++] = '-';
    for (int i = 0; i < ORBC_DURATION_UNIT_COUNT; i++) {
        uint64_t unit = (uint64_t)orbc_duration_units[i].ms, n = left / unit;
        if (n == 0)
            continue;
        left -= n * unit;
        len += (size_t)snprintf(out + len, ORBC_DURATION_TEXT_SIZE - len, "%" PRIu64 "%s", n,
                                orbc_duration_units[i].name);
    }
    return len;
}

/* ---- the text of a number (docs/bytecode.md, section 4.1) ---- */

static bool reads_back(uint64_t digits, int exp10, double x)
{
    char text[48];
    snprintf(text, sizeof text, "%" PRIu64 "e%d", digits, exp10);
    return strtod(text, NULL) == x;
}

/* A decimal of p significant digits, digits x 10^exp10, that reads back as x, if there
 * is one: the correctly rounded one, or else its neighbour on the other side of x (the
 * doubles that read back as x lie in an interval that is not symmetric around x at a
 * power of two). */
static bool digits_that_read_back(double x, int p, uint64_t *digits, int *exp10)
{
    char text[48];
    snprintf(text, sizeof text, "%.*e", p - 1, x);   /* "d.ddde+XX", correctly rounded */
    uint64_t nearest = 0;
    const char *c = text;
    for (; *c != 'e'; c++)
        if (*c != '.')
            nearest = nearest * 10 + (uint64_t)(*c - '0');
    *exp10 = atoi(c + 1) - (p - 1);
    *digits = nearest;
    if (reads_back(nearest, *exp10, x))
        return true;
    *digits = strtod(text, NULL) < x ? nearest + 1 : nearest - 1;
    return reads_back(*digits, *exp10, x);
}

/* The shortest decimal that reads back as x (finite, positive): its digits, without
 * trailing zeros, and n such that x reads back from 0.DIGITS x 10^n. Whether p digits
 * suffice is monotone in p, and 17 always do, so p is found by binary search. Returns the
 * number of digits. */
static int shortest_digits(double x, char digits[24], int *n)
{
    int lo = 1, hi = 17;
    uint64_t d;
    int exp10;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (digits_that_read_back(x, mid, &d, &exp10))
            hi = mid;
        else
            lo = mid + 1;
    }
    digits_that_read_back(x, lo, &d, &exp10);
    while (d % 10 == 0) {
        d /= 10;
        exp10++;
    }
    int k = snprintf(digits, 24, "%" PRIu64, d);
    *n = exp10 + k;
    return k;
}

size_t orbc_format_number(char out[ORBC_NUMBER_TEXT_SIZE], double x)
{
    if (isnan(x))
        return (size_t)snprintf(out, ORBC_NUMBER_TEXT_SIZE, "NaN");
    if (x == 0)   /* and -0 */
        return (size_t)snprintf(out, ORBC_NUMBER_TEXT_SIZE, "0");
    char *o = out;
    if (x < 0) {
        *o++ = '-';
        x = -x;
    }
    if (isinf(x))
        return (size_t)(o - out) + (size_t)snprintf(o, 10, "Infinity");
    char digits[24];
    int n = 0;
    int k = shortest_digits(x, digits, &n);
    if (k <= n && n <= 21) {            /* 1250, 100000000000000000000 */
        memcpy(o, digits, (size_t)k);
        memset(o + k, '0', (size_t)(n - k));
        o += n;
    } else if (0 < n && n <= 21) {      /* 1.5, 123.456 */
        memcpy(o, digits, (size_t)n);
        o[n] = '.';
        memcpy(o + n + 1, digits + n, (size_t)(k - n));
        o += k + 1;
    } else if (-6 < n && n <= 0) {      /* 0.001, 0.000001 */
        memcpy(o, "0.", 2);
        memset(o + 2, '0', (size_t)-n);
        memcpy(o + 2 - n, digits, (size_t)k);
        o += 2 - n + k;
    } else {                            /* 1e+21, 1.5e-7 */
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += snprintf(o, 8, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
    return (size_t)(o - out);
}

size_t orbc_scalar_text(char out[ORBC_SCALAR_TEXT_SIZE], OrbcValue v)
{
    switch ((OrbcKind)v.kind) {
    case ORBC_KIND_NULL: return (size_t)snprintf(out, ORBC_SCALAR_TEXT_SIZE, "null");
    case ORBC_KIND_BOOL:
        return (size_t)snprintf(out, ORBC_SCALAR_TEXT_SIZE, "%s", v.boolean ? "true" : "false");
    case ORBC_KIND_INT:
        return (size_t)snprintf(out, ORBC_SCALAR_TEXT_SIZE, "%" PRId64, v.integer);
    case ORBC_KIND_NUMBER: return orbc_format_number(out, v.number);
    case ORBC_KIND_DURATION:
        return (size_t)snprintf(out, ORBC_SCALAR_TEXT_SIZE, "%" PRId64 "ms", v.integer);
    default:
        out[0] = '\0';
        return 0;
    }
}
