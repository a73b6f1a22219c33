/* Lowering: a checked Program -> liborbc builder -> bytes of a .orbc file.
 *
 * Tables fill in a fixed traversal order (declared workers, then workflows in source
 * order, steps in order, each step's code in the order when/for/with/key/value), so the
 * builder's first-use numbering makes the output deterministic. Each tree of unary and
 * binary operators is folded before it is emitted (a post-order pass that finds the
 * operators with a value certain at compile time, computed by liborbc's evaluation, the
 * runtime's own), then emitted for the stack machine. */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "orbc.h"
#include "orbc_value.h"
#include "types.h"

/* ---- a pointer -> index map (open addressing, malloc'd: growing frees the old table) ----
 *
 * A key's slot is found by Fibonacci hashing (the high bits of the pointer times 2^64 /
 * the golden ratio), so the low bits that arena pointers share do not crowd the table. */

typedef struct PtrSlot {
    const void *key;     /* NULL: empty */
    uint32_t value;
} PtrSlot;

typedef struct PtrMap {
    PtrSlot *slots;
    uint32_t mask;
    uint32_t count;
    unsigned shift;      /* 64 - log2(capacity) */
} PtrMap;

static PtrSlot *ptrmap_slot(const PtrMap *map, const void *key)
{
    uint32_t i = (uint32_t)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> map->shift);
    while (map->slots[i].key && map->slots[i].key != key)
        i = (i + 1) & map->mask;
    return &map->slots[i];
}

static bool ptrmap_get(const PtrMap *map, const void *key, uint32_t *value)
{
    if (!map->slots)
        return false;
    const PtrSlot *slot = ptrmap_slot(map, key);
    if (!slot->key)
        return false;
    *value = slot->value;
    return true;
}

static void ptrmap_free(PtrMap *map)
{
    free(map->slots);
    *map = (PtrMap){ 0 };
}

/* An empty map with room for `expected` keys without growing. */
static void ptrmap_init(PtrMap *map, uint32_t expected)
{
    uint32_t cap = 256;
    while (cap < expected * 2 && cap < (1u << 30))
        cap *= 2;
    *map = (PtrMap){ xcalloc(cap, sizeof *map->slots), cap - 1, 0,
                     64 - (unsigned)__builtin_ctz(cap) };
}

/* Room for one more key: the table is kept at most half full. */
static void ptrmap_room(PtrMap *map)
{
    if (map->slots && (map->count + 1) * 2 <= map->mask + 1)
        return;
    uint32_t cap = map->slots ? (map->mask + 1) * 2 : 256;
    PtrMap bigger = { xcalloc(cap, sizeof *bigger.slots), cap - 1, map->count,
                      64 - (unsigned)__builtin_ctz(cap) };
    for (uint32_t i = 0; map->slots && i <= map->mask; i++)
        if (map->slots[i].key)
            *ptrmap_slot(&bigger, map->slots[i].key) = map->slots[i];
    ptrmap_free(map);
    *map = bigger;
}

static void ptrmap_put(PtrMap *map, const void *key, uint32_t value)
{
    ptrmap_room(map);
    PtrSlot *slot = ptrmap_slot(map, key);
    if (!slot->key)
        map->count++;
    *slot = (PtrSlot){ key, value };
}

/* ---- state ---- */

/* Per source file, built on first use: marks[k] = the scalars in text[0, k * 64). */
typedef struct ColumnIndex {
    uint32_t *marks;     /* NULL: not built yet */
    uint32_t mark_count;
    bool ascii;          /* no byte above 0x7F: a column is a byte distance */
} ColumnIndex;

/* The line of the last position asked for: positions [start, next) are on it. */
typedef struct LineCursor {
    const SourceFile *file;   /* NULL before the first position */
    const ColumnIndex *columns;
    uint32_t line;            /* 0-based */
    uint32_t start, next;
    uint32_t start_scalars;   /* scalars in the file before the line's start */
    bool ascii;               /* the line is in 64-byte blocks without non-ASCII text (a
                                 column is a byte distance): known for short lines only */
} LineCursor;

/* A growable array of indices, reused: a step's arrays live until the step is written. */
typedef struct Scratch {
    uint32_t *items;
    uint32_t cap;
} Scratch;

/* Room for `count` items (the contents are not kept). */
static uint32_t *scratch_room(Scratch *s, uint32_t count)
{
    if (count > s->cap) {
        free(s->items);
        s->cap = count > 2 * s->cap ? count : 2 * s->cap;
        s->items = xcalloc(s->cap, sizeof *s->items);
    }
    return s->items;
}

/* A list, optional or record type being lowered: lower_type's work stack. */
typedef struct TypeWork {
    const Type *t;
    OrbcField *fields;   /* a record's, filled in field by field */
    uint32_t next;       /* parts begun: fields of a record, 1 for an element */
    uint32_t elem;       /* a list's or optional's element, once lowered */
} TypeWork;

/* An operator whose value constant folding found, in the order emission meets it. */
typedef struct Fold {
    const Expr *expr;
    OrbcValue value;
} Fold;

typedef struct Lowerer {
    Compiler *c;
    const Program *p;
    OrbcBuilder *b;
    Arena *arena;
    PtrMap types;        /* const Type * -> type index; ORBC_NONE while in progress */
    TypeWork *type_work; /* lower_type's stack */
    uint32_t type_work_count, type_work_cap;
    PtrMap tasks;        /* worker or built-in Name * -> task index */
    PtrMap names;        /* Name * -> string index */
    Fold *folds;         /* the operator trees being emitted: their folded operators */
    uint32_t fold_count, fold_cap;
    uint32_t fold_next;  /* the next of `folds` that emission meets */
    OrbcEval eval;       /* liborbc's evaluation, the runtime's own: strings in the arena */
    uint32_t file;       /* string index of the current workflow's file */
    ColumnIndex *columns;  /* per source file */
    LineCursor cursor;
    /* the arrays of the step being lowered, reused from step to step */
    Scratch deps, step_codes, compensate_codes;
    Scratch deps_read;     /* per entry of `deps`: 1 once its code reads that step */
    uint32_t dep_count;    /* entries of `deps` while a step is lowered, else 0 */
    bool failed;
    char *why;             /* lower_program's message for a failure without E0601 */
    size_t why_size;
    bool stack_reported;   /* E0601 given for the current code block */
    uint32_t limit_errors; /* E0601 reports: nothing is written */
} Lowerer;

static void lowerer_free(Lowerer *l)
{
    ptrmap_free(&l->types);
    free(l->type_work);
    ptrmap_free(&l->tasks);
    free(l->folds);
    ptrmap_free(&l->names);
    free(l->deps.items);
    free(l->deps_read.items);
    free(l->step_codes.items);
    free(l->compensate_codes.items);
}

static void lower_error(Lowerer *l, const char *what)
{
    if (!l->failed)
        snprintf(l->why, l->why_size, "internal error while lowering: %s", what);
    l->failed = true;
}

/* Names are interned, so the pointer finds the string index without hashing text. */
static uint32_t name_string(Lowerer *l, const Name *name)
{
    uint32_t index;
    if (ptrmap_get(&l->names, name, &index))
        return index;
    index = orbc_add_string(l->b, name->text, name->len);
    ptrmap_put(&l->names, name, index);
    return index;
}

/* ---- positions: 1-based line, 1-based column in Unicode scalars (as diagnostics) ----
 *
 * A column counts the bytes that start a UTF-8 sequence between the line's start and the
 * position. Each file gets, on first use, the count of such bytes before every 64-byte
 * mark (one pass over the file), so a column is two lookups and at most 63 bytes counted
 * in a block that holds non-ASCII text, whatever the line's length: code is emitted in
 * post-order, so positions jump back and forth on a line. The line of the last position
 * is kept, and the next one is looked for among the lines around it: positions are
 * asked for in nearly source order. */

enum { COLUMN_MARK_SHIFT = 6, COLUMN_MARK = 1 << COLUMN_MARK_SHIFT };

/* Bytes in text[from, to) that start a UTF-8 sequence (are not 10xxxxxx), eight at a
 * time: a continuation byte has bit 7 set and bit 6 clear. */
static uint32_t count_scalars(const char *text, uint32_t from, uint32_t to)
{
    uint32_t n = 0, i = from;
    for (; i + 8 <= to; i += 8) {
        uint64_t w;
        memcpy(&w, text + i, 8);
        uint64_t continuation = w & ~(w << 1) & 0x8080808080808080ULL;
        n += 8 - (uint32_t)(((continuation >> 7) * 0x0101010101010101ULL) >> 56);
    }
    for (; i < to; i++)
        n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

/* Whether text[from, from + 64) is ASCII. */
static bool ascii_block(const char *text, uint32_t from)
{
    uint64_t high = 0;
    for (uint32_t i = 0; i < COLUMN_MARK; i += 8) {
        uint64_t w;
        memcpy(&w, text + from + i, 8);
        high |= w;
    }
    return (high & 0x8080808080808080ULL) == 0;
}

static const ColumnIndex *column_index(Lowerer *l, uint32_t file)
{
    ColumnIndex *ci = &l->columns[file];
    if (ci->marks)
        return ci;
    const SourceFile *f = source_file(&l->c->sources, file);
    uint32_t marks = (f->len >> COLUMN_MARK_SHIFT) + 1;
    ci->marks = arena_alloc_raw(l->arena, marks * sizeof *ci->marks);
    ci->mark_count = marks;
    uint32_t n = 0;
    for (uint32_t k = 0; k + 1 < marks; k++) {
        ci->marks[k] = n;
        uint32_t from = k << COLUMN_MARK_SHIFT;
        n += ascii_block(f->text, from) ? COLUMN_MARK
                                        : count_scalars(f->text, from, from + COLUMN_MARK);
    }
    ci->marks[marks - 1] = n;
    uint32_t tail = (marks - 1) << COLUMN_MARK_SHIFT;
    ci->ascii = n == tail && count_scalars(f->text, tail, f->len) == f->len - tail;
    return ci;
}

/* Scalars in text[0, offset) of a file that is not ASCII-only. A 64-byte block without
 * continuation bytes (64 scalars) needs no counting. */
static uint32_t scalars_before(const ColumnIndex *ci, const char *text, uint32_t offset)
{
    uint32_t mark = offset >> COLUMN_MARK_SHIFT, from = mark << COLUMN_MARK_SHIFT;
    if (mark + 1 < ci->mark_count && ci->marks[mark + 1] - ci->marks[mark] == COLUMN_MARK)
        return ci->marks[mark] + (offset - from);
    return ci->marks[mark] + count_scalars(text, from, offset);
}

/* The line of `offset`, looked for first among the few lines after `line` (positions
 * are asked for in nearly source order: the next is almost always a few lines on), then
 * by binary search. */
static uint32_t nearby_line(const SourceMap *map, uint32_t file, const SourceFile *f,
                            uint32_t line, uint32_t offset)
{
    enum { NEARBY = 16 };
    const uint32_t *starts = f->line_starts;
    if (line < f->line_count && starts[line] <= offset) {
        uint32_t last = f->line_count - line > NEARBY ? line + NEARBY : f->line_count - 1;
        while (line < last && starts[line + 1] <= offset)
            line++;
        if (line < last)
            return line;
    }
    return source_line_of(map, file, offset);
}

/* Whether text[start, next) lies in 64-byte blocks of ASCII text; false for a line of
 * more than SHORT_LINE blocks, not looked at (the cursor may go back and forth between
 * long lines). */
static bool ascii_line(const ColumnIndex *ci, uint32_t start, uint32_t next)
{
    enum { SHORT_LINE = 16 };
    if (ci->ascii)
        return true;
    uint32_t first = start >> COLUMN_MARK_SHIFT, last = (next - 1) >> COLUMN_MARK_SHIFT;
    if (next <= start || last - first >= SHORT_LINE || last + 1 >= ci->mark_count)
        return false;
    return ci->marks[last + 1] - ci->marks[first] == (last + 1 - first) << COLUMN_MARK_SHIFT;
}

/* Moves the cursor to the line of `pos`. Not inlined: position_at, its only caller, is
 * called for every instruction and stays small. */
__attribute__((noinline)) static void move_cursor(Lowerer *l, uint32_t pos)
{
    const SourceMap *map = &l->c->sources;
    LineCursor *cur = &l->cursor;
    const SourceFile *f = cur->file;
    if (f && pos - f->origin <= f->len) {
        uint32_t file = (uint32_t)(f - map->files);
        cur->line = nearby_line(map, file, f, cur->line, pos - f->origin);
    } else {
        uint32_t file = source_file_at(map, pos);
        cur->file = f = source_file(map, file);
        cur->line = source_line_of(map, file, pos - f->origin);   /* builds the line table */
        cur->columns = column_index(l, file);
    }
    uint32_t start = f->line_starts[cur->line];
    uint32_t next = cur->line + 1 < f->line_count ? f->line_starts[cur->line + 1] : f->len + 1;
    cur->start = f->origin + start;
    cur->next = f->origin + next;
    cur->ascii = ascii_line(cur->columns, start, next);
    cur->start_scalars = cur->ascii ? 0 : scalars_before(cur->columns, f->text, start);
}

/* The line and column of a position (source.h). */
static void position_at(Lowerer *l, uint32_t pos, uint32_t *line, uint32_t *column)
{
    LineCursor *cur = &l->cursor;
    if (pos - cur->start >= cur->next - cur->start)
        move_cursor(l, pos);
    uint32_t col = pos - cur->start;
    if (!cur->ascii)
        col = scalars_before(cur->columns, cur->file->text, pos - cur->file->origin) -
              cur->start_scalars;
    *line = cur->line + 1;
    *column = col + 1;
}

static void code_pos(Lowerer *l, Span span)
{
    uint32_t line, column;
    position_at(l, span.start, &line, &column);
    orbc_code_pos(l->b, line, column);
}

/* ---- types ---- */

/* E0601 for a record type the format cannot hold: at its name when it is declared with
 * `type`, else at the first field past the limit. */
static void record_too_large(Lowerer *l, const Type *t)
{
    Span first_over = t->fields[ORBC_MAX_COUNT].span;
    Span where = first_over;
    for (uint32_t i = 0; i < l->p->type_count; i++)
        if (l->p->types[i].type == t)
            where = l->p->types[i].span;
    l->limit_errors++;
    DiagSink *diags = &l->c->diags;
    Diagnostic *d = diag_report(diags, E0601, where,
                                "record type too large to build: %u fields, the limit is %u",
                                t->field_count, (unsigned)ORBC_MAX_COUNT);
    diag_set_label(diags, d, "this record type has %u fields", t->field_count);
    if (where.start != first_over.start)
        diag_add_label(diags, d, first_over, "field %u", (unsigned)ORBC_MAX_COUNT + 1);
    diag_add_help(diags, d, "group the fields into nested records of at most %u fields each",
                  (unsigned)ORBC_MAX_COUNT);
}

/* The index of a type lowered already (or of `any` for no type, and for a type still
 * being lowered: a cycle becomes `any`), or false. */
static bool type_lowered(Lowerer *l, const Type *t, uint32_t *index)
{
    if (!t) {
        *index = orbc_type_simple(l->b, ORBC_TYPE_ANY);
        return true;
    }
    if (!ptrmap_get(&l->types, t, index))
        return false;
    if (*index == ORBC_NONE)
        *index = orbc_type_simple(l->b, ORBC_TYPE_ANY);
    return true;
}

/* The index of a type without parts, or ORBC_NONE for a list, optional or record. */
static uint32_t simple_type(Lowerer *l, const Type *t)
{
    switch (t->kind) {
    case TYPE_ERROR:
    case TYPE_ANY: return orbc_type_simple(l->b, ORBC_TYPE_ANY);
    case TYPE_NULL: return orbc_type_simple(l->b, ORBC_TYPE_NULL);
    case TYPE_STRING: return orbc_type_simple(l->b, ORBC_TYPE_STRING);
    case TYPE_INT: return orbc_type_simple(l->b, ORBC_TYPE_INT);
    case TYPE_NUMBER: return orbc_type_simple(l->b, ORBC_TYPE_NUMBER);
    case TYPE_BOOL: return orbc_type_simple(l->b, ORBC_TYPE_BOOL);
    case TYPE_DURATION: return orbc_type_simple(l->b, ORBC_TYPE_DURATION);
    case TYPE_LIST:
    case TYPE_OPTIONAL:
    case TYPE_RECORD: break;
    }
    return ORBC_NONE;
}

/* Starts lowering a list, optional or record type: it goes on the work stack. */
static void push_type(Lowerer *l, const Type *t)
{
    ptrmap_put(&l->types, t, ORBC_NONE);
    if (l->type_work_count == l->type_work_cap) {
        l->type_work_cap = l->type_work_cap ? 2 * l->type_work_cap : 16;
        l->type_work = xrealloc(l->type_work, l->type_work_cap * sizeof *l->type_work);
    }
    TypeWork *w = &l->type_work[l->type_work_count++];
    *w = (TypeWork){ .t = t };
    if (t->kind == TYPE_RECORD) {
        if (t->field_count > ORBC_MAX_COUNT)
            record_too_large(l, t);
        w->fields = arena_alloc(l->arena, (t->field_count + 1) * sizeof *w->fields);
    }
}

/* The next part of `w` to lower (a record's next field, with its name's string made
 * first, or a list's or optional's element), or false when all of them are lowered. */
static bool next_part(Lowerer *l, TypeWork *w, const Type **part)
{
    const Type *t = w->t;
    if (t->kind != TYPE_RECORD) {
        *part = t->elem;
        return w->next++ == 0;
    }
    if (w->next == t->field_count)
        return false;
    const Field *f = &t->fields[w->next];
    w->fields[w->next].name = name_string(l, f->name);
    w->fields[w->next].optional = f->optional;
    w->next++;
    *part = f->type;
    return true;
}

/* The index of `w`'s type, all its parts lowered. */
static uint32_t finish_type(Lowerer *l, const TypeWork *w)
{
    const Type *t = w->t;
    if (t->kind == TYPE_LIST)
        return orbc_type_list(l->b, w->elem);
    if (t->kind == TYPE_OPTIONAL)
        return orbc_type_optional(l->b, w->elem);
    uint32_t name = t->name ? name_string(l, t->name) : ORBC_NONE;
    return orbc_type_record(l->b, name, t->field_count, w->fields);
}

/* The lowered index of a part of the type on top of the stack. */
static void set_part(TypeWork *w, uint32_t index)
{
    if (w->t->kind == TYPE_RECORD)
        w->fields[w->next - 1].type = index;
    else
        w->elem = index;
}

/* Types are lowered parts first, in the order of a depth-first walk, but with a stack of
 * their own: a chain of record types each naming the next is as deep as the program is
 * long, and would overflow the C stack. */
static uint32_t lower_type(Lowerer *l, const Type *t)
{
    uint32_t index;
    if (type_lowered(l, t, &index))
        return index;
    if ((index = simple_type(l, t)) != ORBC_NONE) {
        ptrmap_put(&l->types, t, index);
        return index;
    }
    uint32_t bottom = l->type_work_count;
    push_type(l, t);
    for (;;) {
        TypeWork *w = &l->type_work[l->type_work_count - 1];
        const Type *part;
        if (next_part(l, w, &part)) {
            if (type_lowered(l, part, &index)) {
                set_part(w, index);
            } else if ((index = simple_type(l, part)) != ORBC_NONE) {
                ptrmap_put(&l->types, part, index);
                set_part(w, index);
            } else {
                push_type(l, part);
            }
            continue;
        }
        index = finish_type(l, w);
        ptrmap_put(&l->types, w->t, index);
        if (--l->type_work_count == bottom)
            return index;
        set_part(&l->type_work[l->type_work_count - 1], index);
    }
}

/* ---- tasks ---- */

static uint32_t add_task(Lowerer *l, const Name *name, OrbcTaskKind kind, const Type *input,
                         const Type *output, int64_t default_timeout_ms)
{
    uint32_t index;
    if (ptrmap_get(&l->tasks, name, &index))
        return index;
    OrbcTask task = { name_string(l, name), (uint8_t)kind, lower_type(l, input),
                      lower_type(l, output), default_timeout_ms };
    index = orbc_add_task(l->b, &task);
    ptrmap_put(&l->tasks, name, index);
    return index;
}

/* The task of a step or compensate target: declared workers were added up front;
 * undeclared workers (contracts `any`) and built-in tasks are added on first use. */
static uint32_t task_for(Lowerer *l, StepKind kind, const Name *name, uint32_t index)
{
    if (kind == STEP_TASK_BUILTIN) {
        if (index >= l->p->builtin_count) {
            lower_error(l, "unresolved built-in task");
            return 0;
        }
        const Builtin *bi = &l->p->builtins[index];
        return add_task(l, bi->name, ORBC_TASK_BUILTIN, bi->input, bi->output,
                        bi->default_timeout_ms);
    }
    if (index != NO_INDEX && index < l->p->worker_count) {
        const Worker *w = &l->p->workers[index];
        return add_task(l, w->name, ORBC_TASK_WORKER, w->input, w->output, 0);
    }
    return add_task(l, name, ORBC_TASK_WORKER, NULL, NULL, 0);
}

/* ---- constant folding ---- */

/* The value of `e` when it is the next folded operator (literals are folded where they
 * are emitted). */
static const OrbcValue *folded(Lowerer *l, const Expr *e)
{
    if (l->fold_next == l->fold_count || l->folds[l->fold_next].expr != e)
        return NULL;
    return &l->folds[l->fold_next++].value;
}

/* `e` folds to `v`: it replaces the folds of its operands, from `mark` on. */
static void record_fold(Lowerer *l, uint32_t mark, const Expr *e, OrbcValue v)
{
    l->fold_count = mark;
    if (l->fold_count == l->fold_cap) {
        l->fold_cap = l->fold_cap ? l->fold_cap * 2 : 16;
        l->folds = xrealloc(l->folds, l->fold_cap * sizeof *l->folds);
    }
    l->folds[l->fold_count++] = (Fold){ e, v };
}

/* liborbc's allocator for folded strings. */
static void *alloc_in_arena(void *arena, size_t size)
{
    return arena_alloc_raw(arena, size);
}

/* The instruction of a binary operator that pops both operands (ast.h's AST_OPERATORS);
 * ORBC_OP_RETURN for none (&&, ||, ??). */
static OrbcOp binary_op(Op op)
{
    const OrbcOpInfo *info = orbc_op_info(ast_op_instruction(op));
    return info && info->flow == ORBC_FLOW_NEXT && info->pops == 2
         ? (OrbcOp)ast_op_instruction(op) : ORBC_OP_RETURN;
}

/* The conditional jump of `&&`, `||`, `??`; ORBC_OP_RETURN for other operators. */
static OrbcOp short_circuit_op(Op op)
{
    const OrbcOpInfo *info = orbc_op_info(ast_op_instruction(op));
    return info && info->flow == ORBC_FLOW_BRANCH ? (OrbcOp)ast_op_instruction(op)
                                                  : ORBC_OP_RETURN;
}

/* A binary operator on constants (b is NULL when the right operand is not constant),
 * computed by liborbc exactly as the runtime computes it; false when it would fail at
 * run time (the runtime then reports the failure) or is not certain. Division and
 * remainder are left to the runtime; a joined string must fit the format's limit. */
static bool fold_binary(Lowerer *l, Op op, const OrbcValue *a, const OrbcValue *b,
                        OrbcValue *out)
{
    OrbcOp jump = short_circuit_op(op);
    if (jump != ORBC_OP_RETURN) {   /* the right operand runs only when a is not kept */
        bool keep_a;
        if (orbc_eval_branch(&l->eval, jump, *a, &keep_a) != ORBC_EVAL_OK || (!keep_a && !b))
            return false;
        *out = keep_a ? *a : *b;
        return true;
    }
    OrbcOp instr = binary_op(op);
    if (!b || instr == ORBC_OP_RETURN || instr == ORBC_OP_DIV || instr == ORBC_OP_MOD)
        return false;
    if (orbc_eval_binary(&l->eval, instr, *a, *b, out) != ORBC_EVAL_OK)
        return false;
    return out->kind != ORBC_KIND_STRING || out->string.len <= ORBC_MAX_STRING_LEN;
}

static bool fold_unary(Lowerer *l, Op op, const OrbcValue *a, OrbcValue *out)
{
    OrbcOp instr = (OrbcOp)ast_op_instruction(op);
    return orbc_eval_unary(&l->eval, instr, *a, out) == ORBC_EVAL_OK;
}

static bool fold_literal(const Expr *e, OrbcValue *v)
{
    switch (e->kind) {
    case EXPR_INT: *v = (OrbcValue){ .kind = ORBC_KIND_INT, .integer = e->integer }; return true;
    case EXPR_DURATION:
        *v = (OrbcValue){ .kind = ORBC_KIND_DURATION, .integer = e->integer };
        return true;
    case EXPR_NUMBER:
        *v = (OrbcValue){ .kind = ORBC_KIND_NUMBER, .number = e->number };
        return true;
    case EXPR_STRING:
        *v = (OrbcValue){ .kind = ORBC_KIND_STRING, .string = { e->text, e->len } };
        return true;
    case EXPR_BOOL: *v = (OrbcValue){ .kind = ORBC_KIND_BOOL, .boolean = e->boolean }; return true;
    case EXPR_NULL: *v = (OrbcValue){ .kind = ORBC_KIND_NULL }; return true;
    default: return false;
    }
}

static bool fold_expr(Lowerer *l, const Expr *e, OrbcValue *v);

static bool is_add(const Expr *e)
{
    return e->kind == EXPR_BINARY && e->op == OP_ADD;
}

/* The strings of `pieces` joined, in the arena: a string constant's value is its bytes. */
static OrbcValue joined(Lowerer *l, const OrbcValue *pieces, uint32_t count, size_t len)
{
    char *text = arena_alloc_raw(l->arena, len + 1);
    size_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (pieces[i].string.len)
            memcpy(text + at, pieces[i].string.text, pieces[i].string.len);
        at += pieces[i].string.len;
    }
    text[len] = '\0';
    return (OrbcValue){ .kind = ORBC_KIND_STRING, .string = { text, len } };
}

/* A left-deep chain `x0 + r1 + r2 + …` (e and its left operands are `+`), folded as
 * fold_expr folds it node by node, except that while its folded part is strings, they
 * are kept as pieces and joined once, when the folding stops: joining them at each `+`
 * copied the whole string so far, quadratic in time and memory. Every node of the chain
 * starts where x0 does, so each one folded replaces the record of the one below it. */
static bool fold_add_chain(Lowerer *l, const Expr *e, OrbcValue *v)
{
    enum { SHORT_CHAIN = 8 };   /* most chains: no allocation */
    const Expr *short_nodes[SHORT_CHAIN];
    OrbcValue short_pieces[SHORT_CHAIN + 1];
    uint32_t count = 0;
    for (const Expr *n = e; is_add(n); n = n->left)
        count++;
    bool is_short = count <= SHORT_CHAIN;
    const Expr **nodes = is_short ? short_nodes : xmalloc(count * sizeof *nodes);  /* bottom up */
    OrbcValue *pieces = is_short ? short_pieces : xmalloc((count + 1) * sizeof *pieces);
    uint32_t i = count, piece_count = 0, mark = l->fold_count;
    for (const Expr *n = e; is_add(n); n = n->left)
        nodes[--i] = n;
    OrbcValue acc, b;
    bool a_const = fold_expr(l, nodes[0]->left, &acc);
    bool joining = a_const && acc.kind == ORBC_KIND_STRING;   /* acc is the pieces */
    size_t len = joining ? acc.string.len : 0;
    if (joining)
        pieces[piece_count++] = acc;
    for (i = 0; i < count; i++) {
        bool b_const = fold_expr(l, nodes[i]->right, &b);
        if (!a_const)
            continue;
        if (joining && b_const && b.kind == ORBC_KIND_STRING &&
            b.string.len <= ORBC_MAX_STRING_LEN - len) {
            pieces[piece_count++] = b;
            len += b.string.len;
            record_fold(l, mark, nodes[i], (OrbcValue){ .kind = ORBC_KIND_STRING });
            continue;
        }
        if (joining) {   /* the string so far meets something else: liborbc decides */
            acc = joined(l, pieces, piece_count, len);
            if (piece_count > 1)
                l->folds[mark].value = acc;
            joining = false;
        }
        a_const = fold_binary(l, nodes[i]->op, &acc, b_const ? &b : NULL, &acc);
        if (a_const)
            record_fold(l, mark, nodes[i], acc);
    }
    if (joining && piece_count > 1) {
        acc = joined(l, pieces, piece_count, len);
        l->folds[mark].value = acc;
    }
    if (!is_short) {
        free(nodes);
        free(pieces);
    }
    *v = acc;
    return a_const;
}

/* Post-order over an operator tree (unary and binary operators, down to operands of
 * other kinds): finds the operators whose value is certain at compile time and records
 * the outermost ones, in the order emission meets them. Returns the expression's value
 * in *v when it is constant. Recursion depth is bounded by AST_MAX_DEPTH. */
static bool fold_expr(Lowerer *l, const Expr *e, OrbcValue *v)
{
    if (fold_literal(e, v))
        return true;
    OrbcValue a, b;
    uint32_t mark = l->fold_count;
    switch (e->kind) {
    case EXPR_UNARY:
        if (!fold_expr(l, e->left, &a) || !fold_unary(l, e->op, &a, v))
            return false;
        record_fold(l, mark, e, *v);
        return true;
    case EXPR_BINARY: {
        if (is_add(e) && is_add(e->left))
            return fold_add_chain(l, e, v);
        bool a_const = fold_expr(l, e->left, &a);
        bool b_const = fold_expr(l, e->right, &b);
        if (!a_const || !fold_binary(l, e->op, &a, b_const ? &b : NULL, v))
            return false;
        record_fold(l, mark, e, *v);
        return true;
    }
    default:
        return false;   /* lists, records, names, fields, indexing and calls: not constant */
    }
}

/* ---- emitting code ---- */

static uint32_t const_index(Lowerer *l, const OrbcValue *v)
{
    switch ((OrbcKind)v->kind) {
    case ORBC_KIND_NULL: return orbc_const_null(l->b);
    case ORBC_KIND_BOOL: return orbc_const_bool(l->b, v->boolean);
    case ORBC_KIND_INT: return orbc_const_int(l->b, v->integer);
    case ORBC_KIND_NUMBER: return orbc_const_number(l->b, v->number);
    case ORBC_KIND_STRING: return orbc_const_string(l->b, v->string.text, v->string.len);
    case ORBC_KIND_DURATION: return orbc_const_duration(l->b, v->integer);
    case ORBC_KIND_LIST:
    case ORBC_KIND_RECORD: break;   /* never folded */
    }
    lower_error(l, "folded a list or record");
    return 0;
}

static OrbcFunc function_of(Lowerer *l, const Expr *call)
{
    if (call->ref == REF_FUNCTION && call->left->ref_index < l->p->function_count) {
        const Name *name = l->p->functions[call->left->ref_index].name;
        for (uint32_t f = 0; f < ORBC_FN_COUNT; f++)
            if (strcmp(name->text, orbc_func_name(f)) == 0)
                return (OrbcFunc)f;
    }
    lower_error(l, "call of an unknown function");
    return ORBC_FN_LEN;
}

/* Whether `.field` on a value of type `t` may find the field absent (then null). */
static bool field_may_be_absent(const Type *t, const Name *field)
{
    if (!t)
        return false;
    if (t->kind == TYPE_OPTIONAL)
        return true;
    if (t->kind != TYPE_RECORD)
        return false;
    const Field *f = type_field(t, field);
    return f && f->optional;
}

static void emit_expr(Lowerer *l, const Expr *e);
static void emit_operand(Lowerer *l, const Expr *e);

/* The step being lowered reads step `step` (a candidate of merge_deps, or its own). */
static void mark_dep_read(Lowerer *l, uint32_t step)
{
    uint32_t lo = 0, hi = l->dep_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->deps.items[mid] < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < l->dep_count && l->deps.items[lo] == step)
        l->deps_read.items[lo] = 1;
}

static void emit_name(Lowerer *l, const Expr *e)
{
    switch ((ExprRef)e->ref) {
    case REF_INPUT: orbc_emit(l->b, ORBC_OP_INPUT); return;
    case REF_STEP:
    case REF_SELF:
        orbc_emit_u32(l->b, ORBC_OP_STEP, e->ref_index);
        mark_dep_read(l, e->ref_index);
        return;
    case REF_FOR_VAR: orbc_emit(l->b, ORBC_OP_ITEM); return;
    default: lower_error(l, "unresolved name"); return;
    }
}

/* E0601 for a list or record literal whose values do not fit on the runtime's operand
 * stack, called once its elements are on it: reported at the innermost literal being
 * built when the limit was passed, once per code block. */
static void check_stack(Lowerer *l, const Expr *e, const char *what, uint32_t count)
{
    uint32_t need = orbc_code_max_stack(l->b);
    if (l->stack_reported || need <= ORBC_MAX_STACK)
        return;
    l->stack_reported = true;
    l->limit_errors++;
    DiagSink *diags = &l->c->diags;
    Diagnostic *d = diag_report(diags, E0601, e->span,
                                "%s too large to build: it needs %u values at once on the "
                                "runtime's stack, the limit is %u",
                                what, need, (unsigned)ORBC_MAX_STACK);
    diag_set_label(diags, d, "this %s has %u element%s", what, count, count == 1 ? "" : "s");
    diag_add_note(diags, d, "a literal is built on the operand stack: its elements, and the "
                            "values waiting around it, must all fit there at once");
    diag_add_help(diags, d, "pass large data in the workflow's input, or split the literal "
                            "into literals of fewer than %u elements",
                  (unsigned)ORBC_MAX_STACK);
}

__attribute__((noinline)) static void emit_object(Lowerer *l, const Expr *e)
{
    uint32_t count = e->block ? e->block->count : 0;
    uint32_t *names = arena_alloc(l->arena, (count + 1) * sizeof *names);
    uint32_t n = 0;
    for (const Member *m = block_first(e->block), *end = block_end(e->block); m != end; m++) {
        if (m->kind != MEMBER_ATTR || !m->name || n == count) {
            lower_error(l, "malformed record expression");
            return;
        }
        emit_expr(l, member_value(m));
        names[n++] = name_string(l, m->name);
    }
    check_stack(l, e, "record literal", n);
    code_pos(l, e->span);
    orbc_emit_record(l->b, n, names);
}

static void emit_short_circuit(Lowerer *l, const Expr *e, OrbcOp jump)
{
    emit_operand(l, e->left);
    code_pos(l, e->span);
    uint32_t site = orbc_emit_jump(l->b, jump);
    emit_operand(l, e->right);
    orbc_patch_jump(l->b, site);
}

static void emit_binary(Lowerer *l, const Expr *e)
{
    OrbcOp jump = short_circuit_op(e->op);
    if (jump != ORBC_OP_RETURN) {
        emit_short_circuit(l, e, jump);
        return;
    }
    OrbcOp op = binary_op(e->op);
    if (op == ORBC_OP_RETURN) {
        lower_error(l, "unknown binary operator");
        return;
    }
    emit_operand(l, e->left);
    emit_operand(l, e->right);
    code_pos(l, e->span);
    orbc_emit(l->b, op);
}

/* A constant: a literal, or an operator that folded to `v`. */
static void emit_const(Lowerer *l, const Expr *e, const OrbcValue *v)
{
    code_pos(l, e->span);
    orbc_emit_u32(l->b, ORBC_OP_CONST, const_index(l, v));
}

/* Out of line, so that emit_operand keeps no value on its stack. */
__attribute__((noinline)) static void emit_literal(Lowerer *l, const Expr *e)
{
    OrbcValue literal;
    if (fold_literal(e, &literal))
        emit_const(l, e, &literal);
}

/* An expression whose operators were folded with those around it (fold_expr): an
 * operator is constant when it is the next fold, another kind when it is a literal. */
static void emit_operand(Lowerer *l, const Expr *e)
{
    const OrbcValue *v;
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_DURATION:
    case EXPR_NUMBER:
    case EXPR_STRING:
    case EXPR_BOOL:
    case EXPR_NULL:
        emit_literal(l, e);
        return;
    case EXPR_NAME:
        code_pos(l, e->span);
        emit_name(l, e);
        return;
    case EXPR_LIST: {
        for (uint32_t k = 0; k < e->count; k++)
            emit_expr(l, e->elems[k]);
        check_stack(l, e, "list literal", e->count);
        code_pos(l, e->span);
        orbc_emit_u32(l->b, ORBC_OP_LIST, e->count);
        return;
    }
    case EXPR_OBJECT:
        emit_object(l, e);
        return;
    case EXPR_UNARY:
        if ((v = folded(l, e)) != NULL) {
            emit_const(l, e, v);
            return;
        }
        emit_operand(l, e->left);
        code_pos(l, e->span);
        orbc_emit(l->b, (OrbcOp)ast_op_instruction(e->op));
        return;
    case EXPR_BINARY:
        if ((v = folded(l, e)) != NULL) {
            emit_const(l, e, v);
            return;
        }
        emit_binary(l, e);
        return;
    case EXPR_FIELD:
        emit_expr(l, e->left);
        code_pos(l, expr_field_span(e));
        orbc_emit_u32(l->b, field_may_be_absent(e->left->type, e->field) ? ORBC_OP_FIELD_OPT
                                                                         : ORBC_OP_FIELD,
                      name_string(l, e->field));
        return;
    case EXPR_INDEX:
        emit_expr(l, e->left);
        emit_expr(l, e->right);
        code_pos(l, e->span);
        orbc_emit(l->b, ORBC_OP_INDEX);
        return;
    case EXPR_CALL: {
        OrbcFunc f = function_of(l, e);
        for (uint32_t k = 0; k < e->count; k++)
            emit_expr(l, e->elems[k]);
        code_pos(l, e->span);
        orbc_emit_call(l->b, f, (uint8_t)e->count);
        return;
    }
    default:
        lower_error(l, "expression kind that cannot be lowered");
        return;
    }
}

/* A tree of operators, folded first. The folds of an operator tree that holds this one
 * (`[a + 1] == 2 * 3` holds `a + 1`) wait, and are met again once it is emitted. Out of
 * line: its folding state would make every emit_operand keep a larger frame. */
__attribute__((noinline)) static void emit_operator_tree(Lowerer *l, const Expr *e)
{
    uint32_t outer_next = l->fold_next, outer_count = l->fold_count;
    OrbcValue value;
    l->fold_next = l->fold_count;
    fold_expr(l, e, &value);
    emit_operand(l, e);
    l->fold_next = outer_next;
    l->fold_count = outer_count;
}

/* An expression whose operators, if it is an operator, are folded first. */
static void emit_expr(Lowerer *l, const Expr *e)
{
    if (e->kind == EXPR_UNARY || e->kind == EXPR_BINARY)
        emit_operator_tree(l, e);
    else
        emit_operand(l, e);
}

/* E0601 for an expression whose code block is longer than the format allows, over the
 * whole expression, once the block is emitted. */
static void check_code_length(Lowerer *l, const Expr *e)
{
    uint64_t length;
    if (orbc_code_fits(l->b, &length))
        return;
    l->limit_errors++;
    DiagSink *diags = &l->c->diags;
    Diagnostic *d = diag_report(diags, E0601, e->span,
                                "expression too large to build: its code takes %llu bytes, "
                                "the limit is %u",
                                (unsigned long long)length, (unsigned)ORBC_MAX_CODE_LEN);
    diag_set_label(diags, d, "this expression");
    diag_add_help(diags, d, "split it over several steps");
}

/* One expression as one code block; ORBC_NONE for an absent expression. */
static uint32_t lower_code(Lowerer *l, const Expr *e)
{
    if (!e)
        return ORBC_NONE;
    orbc_code_begin(l->b, l->file);
    l->stack_reported = false;
    emit_expr(l, e);
    check_code_length(l, e);
    return orbc_code_end(l->b);
}

/* ---- steps and workflows ---- */

static OrbcPolicy lower_policy(Lowerer *l, const RetryPolicy *r, Scratch *codes)
{
    if (r->non_retryable_count > ORBC_MAX_COUNT) {
        l->limit_errors++;
        Diagnostic *d = diag_report(&l->c->diags, E0601, r->span,
                                    "retry policy too large to build: %u `non_retryable` "
                                    "codes, the limit is %u",
                                    r->non_retryable_count, (unsigned)ORBC_MAX_COUNT);
        diag_set_label(&l->c->diags, d, "this retry policy");
        diag_add_help(&l->c->diags, d, "list at most %u error codes",
                      (unsigned)ORBC_MAX_COUNT);
    }
    OrbcPolicy p = { r->attempts, r->backoff == BACKOFF_EXPONENTIAL, r->initial_delay_ms,
                     r->max_delay_ms, r->non_retryable_count, NULL };
    p.non_retryable = scratch_room(codes, r->non_retryable_count + 1);
    for (uint32_t i = 0; i < r->non_retryable_count; i++)
        p.non_retryable[i] = orbc_add_string(l->b, r->non_retryable[i].text,
                                             r->non_retryable[i].len);
    return p;
}

/* The candidates for the step's dependencies, before its code is emitted: the checker's
 * dependencies of the step and of its compensate block, merged (both ascending). A
 * reference that constant folding removes (`false && charge.ok`) leaves a candidate
 * unread, and the format wants exactly the steps the code reads (docs/bytecode.md 3.6):
 * keep_read_deps keeps those. */
static void merge_deps(Lowerer *l, const Step *s)
{
    const Compensation *c = s->compensate;
    uint32_t n = s->dep_count, m = c ? c->dep_count : 0;
    uint32_t *deps = scratch_room(&l->deps, n + m + 1);
    uint32_t i = 0, j = 0, k = 0;
    while (i < n || j < m) {
        uint32_t next = j >= m || (i < n && s->deps[i] <= c->deps[j]) ? s->deps[i] : c->deps[j];
        if (i < n && s->deps[i] == next)
            i++;
        if (j < m && c->deps[j] == next)
            j++;
        if (next < s->index && (k == 0 || deps[k - 1] != next))
            deps[k++] = next;
    }
    l->dep_count = k;
    memset(scratch_room(&l->deps_read, k + 1), 0, (k + 1) * sizeof *l->deps_read.items);
}

/* After the step's code is emitted: its dependencies are the candidates it read. */
static void keep_read_deps(Lowerer *l, OrbcStep *out)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l->dep_count; i++)
        if (l->deps_read.items[i])
            l->deps.items[kept++] = l->deps.items[i];
    out->deps = l->deps.items;
    out->dep_count = kept;
    l->dep_count = 0;
}

static void lower_compensate(Lowerer *l, const Compensation *c, OrbcCompensate *out)
{
    out->task = task_for(l, c->kind, c->target_name, c->target_index);
    position_at(l, c->span.start, &out->line, &out->column);
    out->with_code = lower_code(l, c->with);
    out->key_code = lower_code(l, c->idempotency_key);
    out->policy = lower_policy(l, &c->retry, &l->compensate_codes);
    out->timeout_ms = c->timeout_ms;
    out->queue_timeout_ms = c->queue_timeout_ms;
}

static OrbcStepKind step_kind(StepKind kind)
{
    switch (kind) {
    case STEP_TASK_WORKER: return ORBC_STEP_WORKER;
    case STEP_TASK_BUILTIN: return ORBC_STEP_BUILTIN;
    case STEP_WORKFLOW: return ORBC_STEP_WORKFLOW;
    case STEP_SLEEP: return ORBC_STEP_SLEEP;
    case STEP_AWAIT: return ORBC_STEP_AWAIT;
    case STEP_COMPUTE: return ORBC_STEP_COMPUTE;
    }
    return ORBC_STEP_COMPUTE;
}

static uint32_t step_target(Lowerer *l, const Step *s)
{
    switch (s->kind) {
    case STEP_TASK_WORKER:
    case STEP_TASK_BUILTIN:
        return task_for(l, s->kind, s->target_name, s->target_index);
    case STEP_WORKFLOW:
        if (s->target_index >= l->p->workflow_count)
            lower_error(l, "unresolved child workflow");
        return s->target_index;
    case STEP_AWAIT:
        return s->target_name ? name_string(l, s->target_name) : ORBC_NONE;
    default:
        return ORBC_NONE;
    }
}

static void lower_step(Lowerer *l, const Step *s, OrbcStep *out)
{
    memset(out, 0, sizeof *out);
    out->name = name_string(l, s->name);
    out->kind = (uint8_t)step_kind(s->kind);
    position_at(l, s->span.start, &out->line, &out->column);
    out->target = step_target(l, s);
    out->for_var = s->for_var ? name_string(l, s->for_var) : ORBC_NONE;
    merge_deps(l, s);
    out->when_code = lower_code(l, s->when);
    out->for_code = lower_code(l, s->for_iterable);
    out->with_code = lower_code(l, s->with);
    out->key_code = lower_code(l, s->idempotency_key);
    out->value_code = lower_code(l, s->kind == STEP_SLEEP ? s->sleep : s->compute);
    out->policy = lower_policy(l, &s->retry, &l->step_codes);
    out->timeout_ms = s->timeout_ms;
    out->queue_timeout_ms = s->queue_timeout_ms;
    out->has_compensate = s->compensate != NULL;
    if (s->compensate)
        lower_compensate(l, s->compensate, &out->compensate);
    keep_read_deps(l, out);
}

static void lower_workflow(Lowerer *l, const Workflow *w)
{
    const SourceFile *file = source_file(&l->c->sources,
                                         source_file_at(&l->c->sources, w->span.start));
    l->file = orbc_add_string(l->b, file->path, strlen(file->path));
    OrbcWorkflow out = { 0 };
    out.name = name_string(l, w->name);
    out.file = l->file;
    position_at(l, w->span.start, &out.line, &out.column);
    out.input_type = lower_type(l, w->input);
    out.output_type = lower_type(l, w->output);
    out.timeout_ms = w->timeout_ms;
    out.step_count = w->step_count;
    out.return_code = ORBC_NONE;   /* set by orbc_workflow_end */
    orbc_workflow_begin(l->b, &out);
    for (uint32_t i = 0; i < w->step_count; i++) {
        OrbcStep step;
        lower_step(l, &w->steps[i], &step);
        orbc_workflow_step(l->b, &step);
    }
    orbc_workflow_end(l->b, lower_code(l, w->ret));
}

/* Lowers `p` and finishes the file: into one buffer (*bytes) when `bytes` is given, else
 * in pieces (*out). */
static bool lower(Compiler *c, const Program *p, uint8_t **bytes, size_t *len, OrbcOutput **out,
                  char *why, size_t why_size)
{
    if (why_size)
        why[0] = '\0';
    OrbcBuilder *b = orbc_builder_new_streaming();
    if (!b)
        out_of_memory();
    Lowerer l = { .c = c, .p = p, .b = b, .arena = &c->arena, .why = why,
                  .why_size = why_size };
    l.eval = (OrbcEval){ .alloc = alloc_in_arena, .context = l.arena };
    l.columns = arena_alloc(l.arena, (c->sources.count + 1) * sizeof *l.columns);
    /* Sized up front: growing rehashes and clears each larger table. A large table comes
     * zeroed from the system, so room to spare costs nothing until it is used. */
    ptrmap_init(&l.names, c->names.count);   /* every interned name may be used */
    ptrmap_init(&l.types, c->names.count);   /* about as many types as names */
    ptrmap_init(&l.tasks, p->worker_count + p->builtin_count);
    for (uint32_t i = 0; i < p->worker_count; i++)
        add_task(&l, p->workers[i].name, ORBC_TASK_WORKER, p->workers[i].input,
                 p->workers[i].output, 0);
    for (uint32_t i = 0; i < p->workflow_count && !l.failed; i++)
        lower_workflow(&l, &p->workflows[i]);
    OrbcError err;
    bool ok = !l.failed && l.limit_errors == 0
              && (bytes ? orbc_builder_finish(b, bytes, len, &err)
                        : orbc_builder_finish_output(b, out, &err));
    if (!ok && !l.failed && l.limit_errors == 0)
        snprintf(why, why_size, "cannot build: %s", err.text);
    orbc_builder_free(b);
    lowerer_free(&l);
    return ok;
}

bool lower_program(Compiler *c, const Program *p, uint8_t **bytes, size_t *len, char *why,
                   size_t why_size)
{
    *bytes = NULL;
    *len = 0;
    return lower(c, p, bytes, len, NULL, why, why_size);
}

bool lower_program_output(Compiler *c, const Program *p, OrbcOutput **out, char *why,
                          size_t why_size)
{
    *out = NULL;
    return lower(c, p, NULL, NULL, out, why, why_size);
}
