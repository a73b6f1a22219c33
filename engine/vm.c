/* The expression machine: a loop over the instructions of one code block. Jumps only go
 * forward, so a block runs in time linear in its length. What the operators and built-in
 * functions compute is liborbc's (orbc_value.h, shared with the compiler's constant
 * folding); the machine adds the stack, lists and records. The module is verified by the
 * loader; the machine still checks operands and stack bounds so that a hand-built
 * module cannot make it read out of bounds. */
#include "vm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Vm {
    const OrbcModule *module;
    Arena *arena;
    OrbcEval eval;         /* liborbc's evaluation: strings from the arena */
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

/* liborbc's allocator for string results. */
static void *alloc_in_arena(void *arena, size_t size)
{
    return arena_alloc_raw(arena, size);
}

Vm *vm_new(const OrbcModule *module, Arena *arena)
{
    /* Not zeroed: the operand stack (64 KB) is always written before it is read (the
     * loader verified every code block), and zeroing it was most of the time of a short
     * simulated run. */
    Vm *vm = xmalloc(sizeof *vm);
    vm->module = module;
    vm->arena = arena;
    vm->eval.alloc = alloc_in_arena;
    vm->eval.context = arena;
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
                v.kind = ORBC_KIND_STRING;
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

/* ---- operators: liborbc's (orbc_value.h) ---- */

/* Pushes what liborbc computed, or fails with its message. */
static bool evaluated(Frame *f, OrbcEvalStatus status, OrbcValue result)
{
    if (status != ORBC_EVAL_OK)
        return fail(f, "%s", f->vm->eval.message);
    return push(f, value_from_orbc(f->vm->arena, result));
}

static bool binary(Frame *f, uint8_t op)
{
    if (!need(f, 2))
        return false;
    Value b = pop(f), a = pop(f);
    OrbcValue result;
    OrbcEvalStatus status = orbc_eval_binary(&f->vm->eval, op, value_to_orbc(a),
                                             value_to_orbc(b), &result);
    if (status == ORBC_EVAL_CONTAINER)   /* eq, ne of two lists or two records */
        return push(f, value_bool(value_equal(a, b) == (op == ORBC_OP_EQ)));
    return evaluated(f, status, result);
}

static bool unary(Frame *f, uint8_t op)
{
    if (!need(f, 1))
        return false;
    OrbcValue result;
    return evaluated(f, orbc_eval_unary(&f->vm->eval, op, value_to_orbc(pop(f)), &result),
                     result);
}

/* ---- records, lists, indexing ---- */

static bool field(Frame *f, uint32_t name, bool optional)
{
    if (!need(f, 1))
        return false;
    Value r = pop(f);
    const Str *s = vm_string(f->vm, name);
    if (optional && r.kind == ORBC_KIND_NULL)
        return push(f, value_null());
    if (r.kind != ORBC_KIND_RECORD)
        return fail(f, "cannot read field `%s` of %s", s->text, value_kind_name(r));
    int64_t i = value_record_find(r.rec, s->text, s->len);
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
    if (x.kind == ORBC_KIND_LIST && i.kind == ORBC_KIND_INT) {
        if (i.i < 0 || (uint64_t)i.i >= x.list->count)
            return fail(f, "index %" PRId64 " is out of range for a list of %" PRIu32 " elements",
                        i.i, x.list->count);
        return push(f, x.list->items[i.i]);
    }
    if (x.kind == ORBC_KIND_RECORD && i.kind == ORBC_KIND_STRING) {
        int64_t at = value_record_find(x.rec, i.s->text, i.s->len);
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
    List *l = value_list_new(f->vm->arena, n);
    f->sp -= n;
    memcpy(l->items, &f->vm->stack[f->sp], sizeof(Value) * n);
    if (!value_list_seal(f->vm->arena, l))
        return too_deep(f);
    Value v = {.kind = ORBC_KIND_LIST, .list = l};
    return push(f, v);
}

static bool make_record(Frame *f, uint32_t n, const uint8_t *names)
{
    if (!need(f, n))
        return false;
    Record *r = value_record_new(f->vm->arena, n);
    f->sp -= n;
    for (uint32_t i = 0; i < n; i++) {
        r->names[i] = vm_string(f->vm, orbc_u32(names + 4 * i));
        r->values[i] = f->vm->stack[f->sp + i];
    }
    if (!value_record_seal(f->vm->arena, r))
        return too_deep(f);
    Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
    return push(f, v);
}

/* ---- built-in functions: liborbc's, but for what lists and records hold ---- */

static bool list_contains(const List *list, Value v)
{
    for (uint32_t i = 0; i < list->count; i++)
        if (value_equal(list->items[i], v))
            return true;
    return false;
}

/* A function of a list or record argument that looks into it (ORBC_EVAL_CONTAINER). */
static bool call_on_container(Frame *f, uint8_t func, const Value *args)
{
    Value a = args[0];
    switch (func) {
    case ORBC_FN_LEN:
        return push(f, value_int(a.kind == ORBC_KIND_LIST ? a.list->count : a.rec->count));
    case ORBC_FN_STR: {
        TextBuffer json = {0};
        value_to_json(&json, a);
        Value v = value_string(f->vm->arena, json.data, json.len);
        text_free(&json);
        return push(f, v);
    }
    case ORBC_FN_CONTAINS:
        if (a.kind == ORBC_KIND_LIST)
            return push(f, value_bool(list_contains(a.list, args[1])));
        return push(f, value_bool(value_record_find(a.rec, args[1].s->text, args[1].s->len) >= 0));
    default:
        return fail(f, "function %u does not look into lists or records", func);
    }
}

static bool call(Frame *f, uint8_t func, uint8_t argc)
{
    if (orbc_func_arity(func) != argc)   /* at most 2 */
        return fail(f, "bad call of function %u with %u arguments", func, argc);
    if (!need(f, argc))
        return false;
    f->sp -= argc;
    const Value *args = &f->vm->stack[f->sp];
    OrbcValue values[2], result;
    for (uint32_t i = 0; i < argc; i++)
        values[i] = value_to_orbc(args[i]);
    OrbcEvalStatus status = orbc_eval_call(&f->vm->eval, func, values, argc, &result);
    if (status == ORBC_EVAL_CONTAINER)
        return call_on_container(f, func, args);
    return evaluated(f, status, result);
}

/* ---- the loop ---- */

/* The conditional jumps: returns 1 to jump, 0 to fall through (value popped), -1 on error. */
static int branch(Frame *f, uint8_t op)
{
    if (!need(f, 1))
        return -1;
    bool taken;
    OrbcValue top = value_to_orbc(f->vm->stack[f->sp - 1]);
    if (orbc_eval_branch(&f->vm->eval, op, top, &taken) != ORBC_EVAL_OK) {
        fail(f, "%s", f->vm->eval.message);
        return -1;
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
