/* The code verifier: checks one code block of the expression machine in a single forward
 * pass (docs/bytecode.md, section 6 rule 5). Jumps only go forward, so the operand stack
 * depth of every instruction is known when the pass reaches it. Also: a check that names
 * are distinct, by sorting. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_internal.h"

typedef struct CodeCheck {
    OrbcReader *r;
    OrbcCode *c;
    size_t base;         /* file offset of code[0] */
    int32_t *depth;      /* depth expected at each offset by a jump to it, or -1 */
    uint8_t *starts;     /* 1 where an instruction starts */
    uint32_t sp;         /* current depth */
    bool reachable;
} CodeCheck;

static bool fail_at(CodeCheck *k, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail_at(CodeCheck *k, uint32_t offset, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    orbc_reader_vfail(k->r, k->base + offset, fmt, args);
    va_end(args);
    return false;
}

/* Records the stack depth a jump of `size` bytes at `at` brings to `target`. The target
 * must start an instruction after the jump: a target inside a later instruction is found
 * when the pass reaches that instruction (check_instruction), one inside the jump's own
 * operand here, since the pass has already left it. */
static bool set_target(CodeCheck *k, uint32_t at, uint32_t size, uint32_t target,
                       uint32_t depth)
{
    if (target <= at)
        return fail_at(k, at, "backward jump to %u at %u", target, at);
    if (target < at + size)
        return fail_at(k, at, "jump into the middle of an instruction at %u", target);
    if (target >= k->c->len)
        return fail_at(k, at, "jump target %u outside code block of %u bytes", target,
                       k->c->len);
    if (k->depth[target] >= 0 && (uint32_t)k->depth[target] != depth)
        return fail_at(k, at, "stack depth %u differs from %u at jump target", depth,
                       (uint32_t)k->depth[target]);
    k->depth[target] = (int32_t)depth;
    return true;
}

/* The names of a `record` of `count` fields at `o`: valid strings, pairwise distinct. */
static bool check_record_names(CodeCheck *k, uint32_t o, uint32_t count)
{
    const OrbcModule *m = k->r->module;
    const uint8_t *code = k->c->code + o;
    uint32_t *names = malloc((count ? count : 1) * sizeof *names);
    if (!names)
        return fail_at(k, o, "out of memory checking a record of %u fields", count);
    for (uint32_t i = 0; i < count; i++) {
        names[i] = orbc_u32(code + 5 + 4 * i);
        if (names[i] >= m->string_count) {
            free(names);
            return fail_at(k, o, "string index %u out of range (%u strings)",
                           orbc_u32(code + 5 + 4 * i), m->string_count);
        }
    }
    uint32_t dup = 0;
    bool distinct = orbc_strings_distinct(k->r, names, count, &dup);
    free(names);
    if (!distinct)
        return fail_at(k, o, "record field %u repeats an earlier name", dup);
    return true;
}

/* Checks the operands of the instruction at `o` by their kind (ops.def). Jump targets
 * are checked by check_flow. */
static bool check_operands(CodeCheck *k, uint32_t o, const OrbcOpInfo *info)
{
    const OrbcModule *m = k->r->module;
    const uint8_t *code = k->c->code + o;
    uint32_t arg = info->operands == ORBC_OPERANDS_NONE || info->operands == ORBC_OPERANDS_CALL
        ? 0 : orbc_u32(code + 1);
    int arity;
    switch ((OrbcOperands)info->operands) {
    case ORBC_OPERANDS_NONE:
    case ORBC_OPERANDS_TARGET:
        return true;
    case ORBC_OPERANDS_CONST:
        if (arg >= m->const_count)
            return fail_at(k, o, "constant index %u out of range (%u constants)", arg,
                           m->const_count);
        return true;
    case ORBC_OPERANDS_STEP:
        if (arg >= ORBC_MAX_LARGE)
            return fail_at(k, o, "step index %u out of range (limit %u)", arg, ORBC_MAX_LARGE);
        if (k->c->max_step == ORBC_NONE || arg > k->c->max_step)
            k->c->max_step = arg;
        return true;
    case ORBC_OPERANDS_STRING:
        if (arg >= m->string_count)
            return fail_at(k, o, "string index %u out of range (%u strings)", arg,
                           m->string_count);
        return true;
    case ORBC_OPERANDS_COUNT:
        if (arg > ORBC_MAX_COUNT)
            return fail_at(k, o, "%s of %u elements (limit %u)", info->name, arg,
                           ORBC_MAX_COUNT);
        return true;
    case ORBC_OPERANDS_NAMES:   /* count <= ORBC_MAX_COUNT: orbc_instr_size checked it */
        return check_record_names(k, o, arg);
    case ORBC_OPERANDS_CALL:
        arity = orbc_func_arity(code[1]);
        if (arity < 0)
            return fail_at(k, o, "unknown function %u", code[1]);
        if ((uint32_t)arity != code[2])
            return fail_at(k, o, "function called with %u arguments, expects %u", code[2],
                           (uint32_t)arity);
        return true;
    }
    return fail_at(k, o, "unknown opcode 0x%02x", code[0]);
}

/* Where execution goes after the instruction at `o`: `before` is the stack depth before
 * it (which a conditional jump's target sees), k->sp the depth after it. */
static bool check_flow(CodeCheck *k, uint32_t o, uint32_t size, const OrbcOpInfo *info,
                       uint32_t before)
{
    const uint8_t *code = k->c->code + o;
    switch ((OrbcFlow)info->flow) {
    case ORBC_FLOW_NEXT:
        return true;
    case ORBC_FLOW_JUMP:
        k->reachable = false;
        return set_target(k, o, size, orbc_u32(code + 1), k->sp);
    case ORBC_FLOW_BRANCH:
        return set_target(k, o, size, orbc_u32(code + 1), before);
    case ORBC_FLOW_RETURN:
        if (o + size != k->c->len)
            return fail_at(k, o, "code after return at %u", o + size);
        k->reachable = false;
        return true;
    }
    return true;
}

static bool check_instruction(CodeCheck *k, uint32_t o, uint32_t size)
{
    const OrbcOpInfo *info = orbc_op_info(k->c->code[o]);   /* known: it has a size */
    k->starts[o] = 1;
    if (k->depth[o] >= 0) {
        if (k->reachable && (uint32_t)k->depth[o] != k->sp)
            return fail_at(k, o, "stack depth %u differs from %u at jump target", k->sp,
                           (uint32_t)k->depth[o]);
        k->sp = (uint32_t)k->depth[o];
        k->reachable = true;
    } else if (!k->reachable) {
        return fail_at(k, o, "unreachable instruction at %u", o);
    }
    for (uint32_t i = o + 1; i < o + size; i++)
        if (k->depth[i] >= 0)
            return fail_at(k, i, "jump into the middle of an instruction at %u", i);
    if (!check_operands(k, o, info))
        return false;
    if (k->c->code[o] == ORBC_OP_ITEM)
        k->c->uses_item = true;
    uint32_t pops = orbc_instr_pops(k->c->code + o), before = k->sp;
    if (info->flow == ORBC_FLOW_RETURN && k->sp != pops)
        return fail_at(k, o, "stack depth %u at return, expected %u", k->sp, pops);
    if (k->sp < pops)
        return fail_at(k, o, "stack underflow: instruction pops %u values, stack has %u",
                       pops, k->sp);
    k->sp = k->sp - pops + info->pushes;
    if (k->sp > ORBC_MAX_STACK)
        return fail_at(k, o, "stack depth %u exceeds the limit %u", k->sp, ORBC_MAX_STACK);
    if (k->sp > k->c->max_stack)
        k->c->max_stack = k->sp;
    return check_flow(k, o, size, info, before);
}

/* Why orbc_instr_size found no instruction at `o`. */
static bool incomplete_instruction(CodeCheck *k, uint32_t o)
{
    const uint8_t *code = k->c->code + o;
    uint32_t avail = k->c->len - o;
    if (!orbc_op_name(code[0]))
        return fail_at(k, o, "unknown opcode 0x%02x", code[0]);
    if (code[0] == ORBC_OP_RECORD && avail >= 5 && orbc_u32(code + 1) > ORBC_MAX_COUNT)
        return fail_at(k, o, "record of %u fields (limit %u)", orbc_u32(code + 1),
                       ORBC_MAX_COUNT);
    return fail_at(k, o, "truncated instruction at %u", o);
}

static bool check_positions(CodeCheck *k)
{
    const OrbcCode *c = k->c;
    for (uint32_t i = 0; i < c->pos_count; i++) {
        uint32_t off = c->pos[i].offset;
        if (!k->starts[off])
            return orbc_reader_fail(k->r, k->base,
                                    "position %u is not at an instruction start (%u)", i, off);
    }
    return true;
}

bool orbc_verify_code(OrbcReader *r, OrbcCode *code, size_t base)
{
    CodeCheck k = { r, code, base, NULL, NULL, 0, true };
    code->max_stack = 0;
    code->max_step = ORBC_NONE;
    code->uses_item = false;
    k.depth = malloc(code->len * sizeof *k.depth);
    k.starts = calloc(code->len, 1);
    bool ok = k.depth && k.starts;
    if (!ok)
        orbc_reader_fail(r, base, "out of memory verifying code");
    for (uint32_t i = 0; ok && i < code->len; i++)
        k.depth[i] = -1;
    uint32_t o = 0, last_op = 0;
    while (ok && o < code->len) {
        uint32_t size = orbc_instr_size(code->code + o, code->len - o);
        if (size == 0) {
            ok = incomplete_instruction(&k, o);
            break;
        }
        last_op = code->code[o];
        ok = check_instruction(&k, o, size);
        o += size;
    }
    if (ok && last_op != ORBC_OP_RETURN)
        ok = orbc_reader_fail(r, base + code->len, "code block does not end with return");
    if (ok)
        ok = check_positions(&k);
    free(k.depth);
    free(k.starts);
    return ok;
}

/* ---- distinct names ---- */

static int compare_strings(const OrbcModule *m, uint32_t a, uint32_t b)
{
    const OrbcString *x = &m->strings[a], *y = &m->strings[b];
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->text, y->text, x->len);
}

/* Bottom-up merge sort of string indices by content. */
static void sort_strings(const OrbcModule *m, uint32_t *a, uint32_t *tmp, uint32_t n)
{
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, t = lo;
            while (i < mid && j < hi)
                tmp[t++] = compare_strings(m, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[t++] = a[i++];
            while (j < hi)
                tmp[t++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

bool orbc_strings_distinct(OrbcReader *r, const uint32_t *names, uint32_t count, uint32_t *dup)
{
    if (count < 2)
        return true;
    uint32_t *order = malloc(2 * (size_t)count * sizeof *order);
    if (!order)
        return true;   /* cannot check; not a reason to reject */
    for (uint32_t i = 0; i < count; i++)
        order[i] = names[i];
    sort_strings(r->module, order, order + count, count);
    bool distinct = true;
    for (uint32_t i = 1; i < count && distinct; i++) {
        if (compare_strings(r->module, order[i - 1], order[i]) == 0) {
            distinct = false;
            for (uint32_t j = 0, seen = 0; j < count; j++) {
                if (compare_strings(r->module, names[j], order[i]) == 0 && seen++) {
                    *dup = j;
                    break;
                }
            }
        }
    }
    free(order);
    return distinct;
}
