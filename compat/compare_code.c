/* compat: code blocks compared by meaning (docs/bytecode.md §4): the same instructions,
 * each operand resolved: a constant by its kind and value, a string by its text, a step
 * by its name, so that two blocks of different tables and different step numbers that
 * compute the same thing are the same. Positions are compared apart (an expression's
 * error names its file, line and column). */
#include <string.h>

#include "compat_internal.h"

static bool string_same(const OrbcModule *a, uint32_t i, const OrbcModule *b, uint32_t j)
{
    if (i >= a->string_count || j >= b->string_count)
        return i >= a->string_count && j >= b->string_count;
    return a->strings[i].len == b->strings[j].len
        && memcmp(a->strings[i].text, b->strings[j].text, a->strings[i].len) == 0;
}

static bool const_same(const OrbcModule *a, uint32_t i, const OrbcModule *b, uint32_t j)
{
    if (i >= a->const_count || j >= b->const_count)
        return false;
    const OrbcConst *x = &a->consts[i], *y = &b->consts[j];
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case ORBC_CONST_NULL: return true;
    case ORBC_CONST_BOOL: return x->boolean == y->boolean;
    case ORBC_CONST_NUMBER: return memcmp(&x->number, &y->number, sizeof x->number) == 0;
    case ORBC_CONST_STRING: return string_same(a, x->string, b, y->string);
    default: return x->integer == y->integer;
    }
}

static bool step_same(const CompatRun *run, const OrbcWorkflow *wa, uint32_t i,
                      const OrbcWorkflow *wb, uint32_t j)
{
    if (!wa || !wb || i >= wa->step_count || j >= wb->step_count)
        return false;
    return string_same(run->old, wa->steps[i].name, run->new, wb->steps[j].name);
}

/* The operands after the opcode at `pa` and `pb`, resolved. */
static bool operands_same(const CompatRun *run, const OrbcWorkflow *wa, const uint8_t *pa,
                          const OrbcWorkflow *wb, const uint8_t *pb, uint32_t size)
{
    const OrbcOpInfo *info = orbc_op_info(pa[0]);
    const OrbcModule *a = run->old, *b = run->new;
    switch (info->operands) {
    case ORBC_OPERANDS_CONST: return const_same(a, orbc_u32(pa + 1), b, orbc_u32(pb + 1));
    case ORBC_OPERANDS_STEP: return step_same(run, wa, orbc_u32(pa + 1), wb, orbc_u32(pb + 1));
    case ORBC_OPERANDS_STRING: return string_same(a, orbc_u32(pa + 1), b, orbc_u32(pb + 1));
    case ORBC_OPERANDS_NAMES: {
        uint32_t n = orbc_u32(pa + 1);
        if (n != orbc_u32(pb + 1))
            return false;
        for (uint32_t k = 0; k < n; k++) {
            if (!string_same(a, orbc_u32(pa + 5 + 4 * k), b, orbc_u32(pb + 5 + 4 * k)))
                return false;
        }
        return true;
    }
    default:   /* counts, calls, jump targets: the bytes themselves */
        return memcmp(pa + 1, pb + 1, size - 1) == 0;
    }
}

bool compat_code_same(const CompatRun *run, const OrbcWorkflow *old_wf, uint32_t old_code,
                      const OrbcWorkflow *new_wf, uint32_t new_code)
{
    if (old_code == ORBC_NONE || new_code == ORBC_NONE)
        return old_code == new_code;
    const OrbcCode *ca = &run->old->codes[old_code], *cb = &run->new->codes[new_code];
    if (ca->len != cb->len)
        return false;
    for (uint32_t at = 0; at < ca->len;) {
        uint32_t size = orbc_instr_size(ca->code + at, ca->len - at);
        if (size == 0 || ca->code[at] != cb->code[at]
            || size != orbc_instr_size(cb->code + at, cb->len - at)
            || !operands_same(run, old_wf, ca->code + at, new_wf, cb->code + at, size))
            return false;
        at += size;
    }
    return true;
}

bool compat_code_same_place(const CompatRun *run, uint32_t old_code, uint32_t new_code)
{
    if (old_code == ORBC_NONE || new_code == ORBC_NONE)
        return old_code == new_code;
    const OrbcCode *ca = &run->old->codes[old_code], *cb = &run->new->codes[new_code];
    if (ca->pos_count != cb->pos_count)   /* the file: compat_workflow_contracts */
        return false;
    for (uint32_t k = 0; k < ca->pos_count; k++) {
        if (ca->pos[k].offset != cb->pos[k].offset || ca->pos[k].line != cb->pos[k].line
            || ca->pos[k].column != cb->pos[k].column)
            return false;
    }
    return true;
}

CompatLoc compat_code_loc(const OrbcModule *m, uint32_t code)
{
    if (code == ORBC_NONE || code >= m->code_count || m->codes[code].pos_count == 0)
        return (CompatLoc){ 0 };
    const OrbcCode *c = &m->codes[code];
    return (CompatLoc){ compat_str(m, c->file), c->pos[0].line, c->pos[0].column };
}
