/* The expression machine: a loop over the instructions of one code block. Jumps only go
 * forward, so a block runs in time linear in its length. The module is verified by the
 * loader; the machine still checks operands and stack bounds so that a hand-built
 * module cannot make it read out of bounds. */
#define _GNU_SOURCE
#include "vm.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Vm {
    const OrbcModule *module;
    Arena *arena;
    Value *consts;
    const Str **strings;
    Value stack[ORBC_MAX_STACK];
};

typedef struct Frame {
    Vm *vm;
    const OrbcCode *code;
    const EvalScope *scope;
    uint32_t pc;           /* offset of the instruction being executed */
    uint32_t sp;
    char *err;
    size_t errlen;
} Frame;

Vm *vm_new(const OrbcModule *module, Arena *arena)
{
    Vm *vm = xcalloc(1, sizeof *vm);
    vm->module = module;
    vm->arena = arena;
    vm->strings = arena_alloc(arena, sizeof(Str *) * (module->string_count + 1));
    for (uint32_t i = 0; i < module->string_count; i++) {
        Str *s = arena_alloc(arena, sizeof *s);
        s->text = module->strings[i].text;
        s->len = module->strings[i].len;
        vm->strings[i] = s;
    }
    vm->consts = arena_alloc(arena, sizeof(Value) * (module->const_count + 1));
    for (uint32_t i = 0; i < module->const_count; i++) {
        const OrbcConst *c = &module->consts[i];
        Value v = value_null();
        switch (c->kind) {
        case ORBC_CONST_BOOL: v = value_bool(c->boolean); break;
        case ORBC_CONST_INT: v = value_int(c->integer); break;
        case ORBC_CONST_NUMBER: v = value_number(c->number); break;
        case ORBC_CONST_DURATION: v = value_duration(c->integer); break;
        case ORBC_CONST_STRING:
            if (c->string < module->string_count) {
                v.kind = V_STRING;
                v.s = vm->strings[c->string];
            }
            break;
        default: break;
        }
        vm->consts[i] = v;
    }
    return vm;
}

void vm_free(Vm *vm)
{
    free(vm);
}

Value vm_const(const Vm *vm, uint32_t index)
{
    return index < vm->module->const_count ? vm->consts[index] : value_null();
}

const Str *vm_string(const Vm *vm, uint32_t index)
{
    static const Str empty = {0, ""};
    return index < vm->module->string_count ? vm->strings[index] : &empty;
}

const char *vm_code_position(Vm *vm, uint32_t code)
{
    if (code >= vm->module->code_count || vm->module->codes[code].pos_count == 0)
        return "?";
    const OrbcCode *c = &vm->module->codes[code];
    return arena_printf(vm->arena, "%s:%" PRIu32 ":%" PRIu32, vm_string(vm, c->file)->text,
                        c->pos[0].line, c->pos[0].column);
}

/* ---- errors ---- */

static const OrbcPos *position_of(const OrbcCode *code, uint32_t offset)
{
    return code->pos_count ? orbc_pos_at(code, offset) : NULL;
}

__attribute__((format(printf, 2, 3)))
static bool fail(Frame *f, const char *fmt, ...)
{
    const OrbcPos *pos = position_of(f->code, f->pc);
    const Str *file = vm_string(f->vm, f->code->file);
    int n = snprintf(f->err, f->errlen, "%s:%" PRIu32 ":%" PRIu32 ": ", file->text,
                     pos ? pos->line : 0, pos ? pos->column : 0);
    if (n < 0 || (size_t)n >= f->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err + n, f->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool too_deep(Frame *f)
{
    return fail(f, "value nested deeper than %d levels", VALUE_MAX_DEPTH);
}

/* ---- stack ---- */

static bool push(Frame *f, Value v)
{
    if (f->sp >= ORBC_MAX_STACK)
        return fail(f, "operand stack overflow");
    f->vm->stack[f->sp++] = v;
    return true;
}

static bool need(Frame *f, uint32_t n)
{
    if (f->sp < n)
        return fail(f, "operand stack underflow");
    return true;
}

static Value pop(Frame *f)
{
    return f->vm->stack[--f->sp];
}

/* ---- arithmetic ---- */

static bool numeric(Value v)
{
    return v.kind == V_INT || v.kind == V_NUMBER;
}

static double as_double(Value v)
{
    return v.kind == V_INT ? (double)v.i : v.n;
}

static bool bad_operands(Frame *f, uint8_t op, Value a, Value b)
{
    return fail(f, "cannot apply `%s` to %s and %s", orbc_op_info(op)->symbol,
                value_kind_name(a), value_kind_name(b));
}

static bool overflow(Frame *f)
{
    return fail(f, "integer overflow");
}

static bool join_strings(Frame *f, Value a, Value b)
{
    size_t len = a.s->len + b.s->len;
    char *text = arena_alloc(f->vm->arena, len + 1);
    memcpy(text, a.s->text, a.s->len);
    memcpy(text + a.s->len, b.s->text, b.s->len);
    Str *s = arena_alloc(f->vm->arena, sizeof *s);
    s->text = text;
    s->len = len;
    Value v = {.kind = V_STRING, .s = s};
    return push(f, v);
}

static bool add_sub(Frame *f, uint8_t op, Value a, Value b)
{
    bool add = op == ORBC_OP_ADD;
    int64_t r;
    if ((a.kind == V_INT && b.kind == V_INT) || (a.kind == V_DURATION && b.kind == V_DURATION)) {
        bool over = add ? __builtin_add_overflow(a.i, b.i, &r)
                        : __builtin_sub_overflow(a.i, b.i, &r);
        if (over)
            return overflow(f);
        Value v = {.kind = a.kind, .i = r};
        return push(f, v);
    }
    if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        return push(f, value_number(add ? x + y : x - y));
    }
    if (add && a.kind == V_STRING && b.kind == V_STRING)
        return join_strings(f, a, b);
    return bad_operands(f, op, a, b);
}

static bool mul(Frame *f, Value a, Value b)
{
    int64_t r;
    if (a.kind == V_INT && b.kind == V_INT) {
        if (__builtin_mul_overflow(a.i, b.i, &r))
            return overflow(f);
        return push(f, value_int(r));
    }
    if ((a.kind == V_DURATION && b.kind == V_INT) || (a.kind == V_INT && b.kind == V_DURATION)) {
        if (__builtin_mul_overflow(a.i, b.i, &r))
            return overflow(f);
        return push(f, value_duration(r));
    }
    if (numeric(a) && numeric(b))
        return push(f, value_number(as_double(a) * as_double(b)));
    return bad_operands(f, ORBC_OP_MUL, a, b);
}

static bool div_mod(Frame *f, uint8_t op, Value a, Value b)
{
    bool divide = op == ORBC_OP_DIV;
    bool ints = a.kind == V_INT && b.kind == V_INT;
    bool duration = divide && a.kind == V_DURATION && b.kind == V_INT;
    if (ints || duration) {
        if (b.i == 0)
            return fail(f, "division by zero");
        if (a.i == INT64_MIN && b.i == -1) {
            if (!divide)
                return push(f, value_int(0));
            return overflow(f);
        }
        Value v = {.kind = a.kind, .i = divide ? a.i / b.i : a.i % b.i};
        return push(f, v);
    }
    if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        return push(f, value_number(divide ? x / y : fmod(x, y)));
    }
    return bad_operands(f, op, a, b);
}

static int compare_strings(const Str *a, const Str *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->text, b->text, n) : 0;
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static bool compare(Frame *f, uint8_t op, Value a, Value b)
{
    int c;
    if (a.kind == V_INT && b.kind == V_INT)
        c = (a.i > b.i) - (a.i < b.i);
    else if (a.kind == V_DURATION && b.kind == V_DURATION)
        c = (a.i > b.i) - (a.i < b.i);
    else if (numeric(a) && numeric(b)) {
        double x = as_double(a), y = as_double(b);
        if (isnan(x) || isnan(y))
            return push(f, value_bool(false));
        c = (x > y) - (x < y);
    } else if (a.kind == V_STRING && b.kind == V_STRING)
        c = compare_strings(a.s, b.s);
    else
        return bad_operands(f, op, a, b);
    bool r = op == ORBC_OP_LT ? c < 0
           : op == ORBC_OP_LE ? c <= 0
           : op == ORBC_OP_GT ? c > 0
           : c >= 0;
    return push(f, value_bool(r));
}

static bool binary(Frame *f, uint8_t op)
{
    if (!need(f, 2))
        return false;
    Value b = pop(f), a = pop(f);
    switch (op) {
    case ORBC_OP_ADD:
    case ORBC_OP_SUB: return add_sub(f, op, a, b);
    case ORBC_OP_MUL: return mul(f, a, b);
    case ORBC_OP_DIV:
    case ORBC_OP_MOD: return div_mod(f, op, a, b);
    case ORBC_OP_EQ: return push(f, value_bool(value_equal(a, b)));
    case ORBC_OP_NE: return push(f, value_bool(!value_equal(a, b)));
    default: return compare(f, op, a, b);
    }
}

static bool unary(Frame *f, uint8_t op)
{
    if (!need(f, 1))
        return false;
    Value a = pop(f);
    if (op == ORBC_OP_NOT) {
        if (a.kind != V_BOOL)
            return fail(f, "cannot apply `!` to %s", value_kind_name(a));
        return push(f, value_bool(!a.b));
    }
    if (a.kind == V_INT || a.kind == V_DURATION) {
        if (a.i == INT64_MIN)
            return overflow(f);
        a.i = -a.i;
        return push(f, a);
    }
    if (a.kind == V_NUMBER)
        return push(f, value_number(-a.n));
    return fail(f, "cannot apply `-` to %s", value_kind_name(a));
}

/* ---- records, lists, indexing ---- */

static bool field(Frame *f, uint32_t name, bool optional)
{
    if (!need(f, 1))
        return false;
    Value r = pop(f);
    const Str *s = vm_string(f->vm, name);
    if (optional && r.kind == V_NULL)
        return push(f, value_null());
    if (r.kind != V_RECORD)
        return fail(f, "cannot read field `%s` of %s", s->text, value_kind_name(r));
    int64_t i = record_find(r.rec, s->text, s->len);
    if (i >= 0)
        return push(f, r.rec->values[i]);
    if (optional)
        return push(f, value_null());
    return fail(f, "field `%s` is missing", s->text);
}

static bool index_op(Frame *f)
{
    if (!need(f, 2))
        return false;
    Value i = pop(f), x = pop(f);
    if (x.kind == V_LIST && i.kind == V_INT) {
        if (i.i < 0 || (uint64_t)i.i >= x.list->count)
            return fail(f, "index %" PRId64 " is out of range for a list of %" PRIu32 " elements",
                        i.i, x.list->count);
        return push(f, x.list->items[i.i]);
    }
    if (x.kind == V_RECORD && i.kind == V_STRING) {
        int64_t at = record_find(x.rec, i.s->text, i.s->len);
        if (at < 0)
            return fail(f, "field `%s` is missing", i.s->text);
        return push(f, x.rec->values[at]);
    }
    return fail(f, "cannot index %s with %s", value_kind_name(x), value_kind_name(i));
}

static bool make_list(Frame *f, uint32_t n)
{
    if (!need(f, n))
        return false;
    List *l = list_new(f->vm->arena, n);
    f->sp -= n;
    memcpy(l->items, &f->vm->stack[f->sp], sizeof(Value) * n);
    if (!list_seal(f->vm->arena, l))
        return too_deep(f);
    Value v = {.kind = V_LIST, .list = l};
    return push(f, v);
}

static bool make_record(Frame *f, uint32_t n, const uint8_t *names)
{
    if (!need(f, n))
        return false;
    Record *r = record_new(f->vm->arena, n);
    f->sp -= n;
    for (uint32_t i = 0; i < n; i++) {
        r->names[i] = vm_string(f->vm, orbc_u32(names + 4 * i));
        r->values[i] = f->vm->stack[f->sp + i];
    }
    if (!record_seal(f->vm->arena, r))
        return too_deep(f);
    Value v = {.kind = V_RECORD, .rec = r};
    return push(f, v);
}

/* ---- built-in functions ---- */

static bool fn_len(Frame *f, Value a)
{
    if (a.kind == V_STRING)
        return push(f, value_int((int64_t)a.s->len));
    if (a.kind == V_LIST)
        return push(f, value_int(a.list->count));
    if (a.kind == V_RECORD)
        return push(f, value_int(a.rec->count));
    return fail(f, "`len` needs a string, list or record, found %s", value_kind_name(a));
}

static bool fn_str(Frame *f, Value a)
{
    Buf b = {0};
    value_to_text(&b, a);
    Value v = value_string(f->vm->arena, b.data ? b.data : "", b.len);
    buf_free(&b);
    return push(f, v);
}

static bool fn_case(Frame *f, Value a, bool upper)
{
    if (a.kind != V_STRING)
        return fail(f, "`%s` needs a string, found %s", upper ? "upper" : "lower",
                    value_kind_name(a));
    char *text = arena_strndup(f->vm->arena, a.s->text, a.s->len);
    for (size_t i = 0; i < a.s->len; i++) {
        char c = text[i];
        if (upper && c >= 'a' && c <= 'z')
            text[i] = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            text[i] = (char)(c - 'A' + 'a');
    }
    Str *s = arena_alloc(f->vm->arena, sizeof *s);
    s->text = text;
    s->len = a.s->len;
    Value v = {.kind = V_STRING, .s = s};
    return push(f, v);
}

static bool substring(const Str *hay, const Str *needle)
{
    if (needle->len == 0)
        return true;
    if (needle->len > hay->len)
        return false;
    return memmem(hay->text, hay->len, needle->text, needle->len) != NULL;
}

static bool fn_contains(Frame *f, Value a, Value b)
{
    if (a.kind == V_STRING && b.kind == V_STRING)
        return push(f, value_bool(substring(a.s, b.s)));
    if (a.kind == V_LIST) {
        for (uint32_t i = 0; i < a.list->count; i++)
            if (value_equal(a.list->items[i], b))
                return push(f, value_bool(true));
        return push(f, value_bool(false));
    }
    if (a.kind == V_RECORD && b.kind == V_STRING)
        return push(f, value_bool(record_find(a.rec, b.s->text, b.s->len) >= 0));
    return fail(f, "`contains` cannot search %s for %s", value_kind_name(a), value_kind_name(b));
}

static bool call(Frame *f, uint8_t func, uint8_t argc)
{
    if (orbc_func_arity(func) != argc)
        return fail(f, "bad call of function %u with %u arguments", func, argc);
    if (!need(f, argc))
        return false;
    f->sp -= argc;
    Value *args = &f->vm->stack[f->sp];
    switch (func) {
    case ORBC_FN_LEN: return fn_len(f, args[0]);
    case ORBC_FN_STR: return fn_str(f, args[0]);
    case ORBC_FN_LOWER: return fn_case(f, args[0], false);
    case ORBC_FN_UPPER: return fn_case(f, args[0], true);
    default: return fn_contains(f, args[0], args[1]);
    }
}

/* ---- the loop ---- */

/* The conditional jumps: returns 1 to jump, 0 to fall through (value popped), -1 on error. */
static int branch(Frame *f, uint8_t op)
{
    if (!need(f, 1))
        return -1;
    Value top = f->vm->stack[f->sp - 1];
    bool taken;
    if (op == ORBC_OP_JUMP_IF_NOT_NULL) {
        taken = top.kind != V_NULL;
    } else {
        if (top.kind != V_BOOL) {
            fail(f, "`%s` needs a bool, found %s", orbc_op_info(op)->symbol, value_kind_name(top));
            return -1;
        }
        taken = op == ORBC_OP_JUMP_IF_FALSE ? !top.b : top.b;
    }
    if (!taken)
        f->sp--;
    return taken;
}

static bool step_value(Frame *f, uint32_t index)
{
    if (index >= f->scope->step_count)
        return fail(f, "step %" PRIu32 " does not exist", index);
    return push(f, f->scope->steps[index]);
}

static bool execute(Frame *f, const uint8_t *ins, uint32_t size, uint32_t *next, bool *done)
{
    uint8_t op = ins[0];
    uint32_t arg = size >= 5 ? orbc_u32(ins + 1) : 0;
    switch (op) {
    case ORBC_OP_CONST:
        if (arg >= f->vm->module->const_count)
            return fail(f, "constant %" PRIu32 " does not exist", arg);
        return push(f, f->vm->consts[arg]);
    case ORBC_OP_INPUT: return push(f, f->scope->input);
    case ORBC_OP_STEP: return step_value(f, arg);
    case ORBC_OP_ITEM:
        if (!f->scope->item)
            return fail(f, "no `for` element here");
        return push(f, *f->scope->item);
    case ORBC_OP_FIELD: return field(f, arg, false);
    case ORBC_OP_FIELD_OPT: return field(f, arg, true);
    case ORBC_OP_INDEX: return index_op(f);
    case ORBC_OP_LIST: return make_list(f, arg);
    case ORBC_OP_RECORD: return make_record(f, orbc_u32(ins + 1), ins + 5);
    case ORBC_OP_CALL: return call(f, ins[1], ins[2]);
    case ORBC_OP_NOT:
    case ORBC_OP_NEG: return unary(f, op);
    case ORBC_OP_JUMP:
        *next = arg;
        return true;
    case ORBC_OP_JUMP_IF_FALSE:
    case ORBC_OP_JUMP_IF_TRUE:
    case ORBC_OP_JUMP_IF_NOT_NULL: {
        int taken = branch(f, op);
        if (taken > 0)
            *next = arg;
        return taken >= 0;
    }
    case ORBC_OP_RETURN:
        *done = true;
        return need(f, 1);
    default:
        return binary(f, op);
    }
}

bool vm_eval(Vm *vm, uint32_t code_index, const EvalScope *scope, Value *out, char *err,
             size_t errlen)
{
    Frame f = {.vm = vm, .scope = scope, .err = err, .errlen = errlen};
    static const OrbcCode none = {0};
    f.code = code_index < vm->module->code_count ? &vm->module->codes[code_index] : &none;
    if (f.code == &none) {
        snprintf(err, errlen, "code block %" PRIu32 " does not exist", code_index);
        return false;
    }
    uint32_t len = f.code->len;
    while (f.pc < len) {
        uint32_t size = orbc_instr_size(f.code->code + f.pc, len - f.pc);
        if (size == 0)
            return fail(&f, "malformed instruction");
        uint32_t next = f.pc + size;
        bool done = false;
        if (!execute(&f, f.code->code + f.pc, size, &next, &done))
            return false;
        if (done) {
            *out = pop(&f);
            return true;
        }
        if (next <= f.pc)
            return fail(&f, "backward jump");
        f.pc = next;
    }
    return fail(&f, "code block ends without `return`");
}
