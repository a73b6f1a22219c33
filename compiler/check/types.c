/* Static types: the shared simple types, constructors, assignability and printing. */
#include "types.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

const char *const BUILTIN_TYPE_NAMES[BUILTIN_TYPE_COUNT] = {
    "string", "int", "number", "bool", "duration", "any",
};

static const Type *simple(Types *types, TypeKind kind)
{
    Type *t = arena_alloc_node(types->arena, sizeof *t);
    t->kind = kind;
    types->simple_of[kind] = t;
    return t;
}

void types_init(Types *types, Arena *arena)
{
    memset(types, 0, sizeof *types);
    types->arena = arena;
    types->error = simple(types, TYPE_ERROR);
    types->any = simple(types, TYPE_ANY);
    types->null = simple(types, TYPE_NULL);
    types->string = simple(types, TYPE_STRING);
    types->integer = simple(types, TYPE_INT);
    types->number = simple(types, TYPE_NUMBER);
    types->boolean = simple(types, TYPE_BOOL);
    types->duration = simple(types, TYPE_DURATION);
    /* [T] and T? of every simple type, made here once and for all: after types_init a
     * Types is only read (but for its arena), so that threads with copies of it share
     * them (compiler/check/check.c, the workflows on several threads). */
    for (int kind = 0; kind <= TYPE_DURATION; kind++) {
        type_list(types, types->simple_of[kind]);
        type_optional(types, types->simple_of[kind]);
    }
    types->empty_record = type_record(types, NULL, 0);
    types->any_list = type_list(types, types->any);
}

/* A list or optional type over `elem` (`kind`), shared when `elem` is a simple type. */
static const Type *wrapper(Types *types, TypeKind kind, const Type *elem,
                           const Type **shared)
{
    bool simple_elem = elem->kind <= TYPE_DURATION && types->simple_of[elem->kind] == elem;
    if (simple_elem && shared[elem->kind])
        return shared[elem->kind];
    Type *t = arena_alloc_node(types->arena, sizeof *t);
    t->kind = kind;
    t->elem = elem;
    if (simple_elem)
        shared[elem->kind] = t;
    return t;
}

const Type *type_list(Types *types, const Type *elem)
{
    return wrapper(types, TYPE_LIST, elem, types->list_of);
}

const Type *type_optional(Types *types, const Type *elem)
{
    if (elem->kind == TYPE_OPTIONAL || elem->kind == TYPE_NULL || type_is_unchecked(elem))
        return elem;
    return wrapper(types, TYPE_OPTIONAL, elem, types->optional_of);
}

/* ---- Records: fields by name ----
 *
 * A record of more than TYPE_SMALL_RECORD fields gets, when it is made, a table of its
 * fields by name (open addressing on the names' hashes, at most half full; a slot holds a
 * field's position + 1, 0 when empty), so that a field access, a literal checked against
 * a contract, or a comparison of two records costs the same on a record of 60,000 fields
 * as on one of 6. */

static uint32_t field_slot_count(uint32_t field_count)
{
    uint32_t cap = 16;
    while (cap < field_count * 2)
        cap *= 2;
    return cap;
}

/* The field named `name` in a table of `slot_count` slots over `fields`, or NULL. */
static const Field *slot_find(const uint32_t *slots, uint32_t slot_count, const Field *fields,
                              const Name *name)
{
    uint32_t mask = slot_count - 1;
    for (uint32_t at = name->hash & mask; slots[at]; at = (at + 1) & mask) {
        const Field *f = &fields[slots[at] - 1];
        if (f->name == name)
            return f;
    }
    return NULL;
}

/* Puts fields[i] in the table (its name is not there yet). */
static void slot_add(uint32_t *slots, uint32_t slot_count, const Field *fields, uint32_t i)
{
    uint32_t mask = slot_count - 1, at = fields[i].name->hash & mask;
    while (slots[at])
        at = (at + 1) & mask;
    slots[at] = i + 1;
}

static const uint32_t *index_fields(Types *types, const Field *fields, uint32_t count)
{
    if (count <= TYPE_SMALL_RECORD)
        return NULL;
    uint32_t slot_count = field_slot_count(count);
    uint32_t *slots = arena_alloc(types->arena, slot_count * sizeof *slots);
    for (uint32_t i = 0; i < count; i++)
        slot_add(slots, slot_count, fields, i);
    return slots;
}

const Type *type_record(Types *types, Field *fields, uint32_t count)
{
    Type *t = arena_alloc_node(types->arena, sizeof *t);
    t->kind = TYPE_RECORD;
    t->fields = fields;
    t->field_count = count;
    t->field_slots = index_fields(types, fields, count);
    return t;
}

const Field *type_field_by_slot(const Type *record, const Name *name)
{
    return slot_find(record->field_slots, field_slot_count(record->field_count),
                     record->fields, name);
}

void type_record_begin(Types *types, RecordBuilder *rb, uint32_t capacity)
{
    rb->fields = arena_alloc_node(types->arena, capacity * sizeof *rb->fields);
    rb->count = 0;
    rb->capacity = capacity;
    rb->hashes = 0;
    rb->slots = capacity > TYPE_SMALL_RECORD
        ? arena_alloc(types->arena, field_slot_count(capacity) * sizeof *rb->slots) : NULL;
}

const Field *type_record_find_by_slot(const RecordBuilder *rb, const Name *name)
{
    return slot_find(rb->slots, field_slot_count(rb->capacity), rb->fields, name);
}

void type_record_add_slot(RecordBuilder *rb)
{
    slot_add(rb->slots, field_slot_count(rb->capacity), rb->fields, rb->count);
}

/* The table is the record's when it is sized as the record's own would be (fields left
 * out as repeated or malformed can make it larger: then it is made again). */
const Type *type_record_end(Types *types, RecordBuilder *rb)
{
    if (!rb->slots || rb->count <= TYPE_SMALL_RECORD ||
        field_slot_count(rb->count) != field_slot_count(rb->capacity))
        return type_record(types, rb->fields, rb->count);
    Type *t = arena_alloc_node(types->arena, sizeof *t);
    t->kind = TYPE_RECORD;
    t->fields = rb->fields;
    t->field_count = rb->count;
    t->field_slots = rb->slots;
    return t;
}

enum {
    MAX_COMPARE_DEPTH = 64,   /* recursive named types: assume equal beyond this */
    /* Record pairs compared in one call before they are remembered: named types share
     * their parts, so without it `type T0 { a: T1, b: T1 }`, … compared with a copy of
     * itself takes 2^depth comparisons. */
    PAIRS_BEFORE_MEMO = 64,
};

/* The record pairs compared so far in one call of type_accepts_slow, with the smallest
 * depth each was compared at. The comparison is a conjunction: the first pair that does
 * not accept ends the whole call, so a pair seen before (done or still being compared)
 * either accepts or is being found out; it needs comparing again only from a smaller
 * depth, where the depth limit leaves it more to look at. The result is the one of the
 * plain walk, in time linear in the pairs. */
typedef struct PairSeen {
    const Type *to, *from;
    int depth;
} PairSeen;

typedef struct Compare {
    uint32_t pairs;          /* record pairs compared */
    PairSeen *seen;          /* open addressing, NULL until PAIRS_BEFORE_MEMO */
    uint32_t mask, used;
} Compare;

static PairSeen *seen_slot(const Compare *cmp, const Type *to, const Type *from)
{
    uintptr_t h = ((uintptr_t)to * 0x9E3779B97F4A7C15u) ^ ((uintptr_t)from >> 4);
    uint32_t i = (uint32_t)(h ^ h >> 29) & cmp->mask;
    while (cmp->seen[i].to && (cmp->seen[i].to != to || cmp->seen[i].from != from))
        i = (i + 1) & cmp->mask;
    return &cmp->seen[i];
}

static void seen_grow(Compare *cmp)
{
    PairSeen *old = cmp->seen;
    uint32_t old_size = old ? cmp->mask + 1 : 0;
    cmp->mask = old ? 2 * cmp->mask + 1 : 255;
    cmp->seen = xcalloc((size_t)cmp->mask + 1, sizeof *cmp->seen);
    for (uint32_t i = 0; i < old_size; i++)
        if (old[i].to)
            *seen_slot(cmp, old[i].to, old[i].from) = old[i];
    free(old);
}

/* Whether the pair must be compared at this depth (it was not, from this depth or a
 * smaller one), remembering that it is. */
static bool compare_pair(Compare *cmp, const Type *to, const Type *from, int depth)
{
    if (++cmp->pairs <= PAIRS_BEFORE_MEMO)
        return true;
    if (!cmp->seen || 2 * (cmp->used + 1) > cmp->mask + 1)
        seen_grow(cmp);
    PairSeen *slot = seen_slot(cmp, to, from);
    if (slot->to && slot->depth <= depth)
        return false;
    if (!slot->to)
        cmp->used++;
    *slot = (PairSeen){ to, from, depth };
    return true;
}

static bool accepts(Compare *cmp, const Type *to, const Type *from, int depth);

static bool record_accepts(Compare *cmp, const Type *to, const Type *from, int depth)
{
    if (!compare_pair(cmp, to, from, depth))
        return true;
    for (uint32_t i = 0; i < to->field_count; i++) {
        const Field *want = &to->fields[i];
        const Field *have = type_field(from, want->name);
        if (!have) {
            if (!want->optional)
                return false;
        } else if (!accepts(cmp, want->type, have->type, depth + 1)) {
            return false;
        }
    }
    for (uint32_t i = 0; i < from->field_count; i++)
        if (!type_field(to, from->fields[i].name))
            return false;     /* records are closed */
    return true;
}

static bool accepts(Compare *cmp, const Type *to, const Type *from, int depth)
{
    if (to == from || depth > MAX_COMPARE_DEPTH)
        return true;
    if (type_is_unchecked(to) || type_is_unchecked(from))
        return true;
    if (to->kind == TYPE_OPTIONAL) {
        if (from->kind == TYPE_NULL)
            return true;
        return accepts(cmp, to->elem, type_strip_optional(from), depth + 1);
    }
    if (from->kind == TYPE_OPTIONAL || from->kind == TYPE_NULL)
        return false;
    if (to->kind == TYPE_NUMBER && from->kind == TYPE_INT)
        return true;
    if (to->kind != from->kind)
        return false;
    if (to->kind == TYPE_LIST)
        return accepts(cmp, to->elem, from->elem, depth + 1);
    if (to->kind == TYPE_RECORD)
        return record_accepts(cmp, to, from, depth);
    return true;
}

bool type_accepts_slow(const Type *to, const Type *from)
{
    Compare cmp = { 0 };
    bool ok = accepts(&cmp, to, from, 0);
    free(cmp.seen);
    return ok;
}

/* A growing text buffer in the arena. */
typedef struct Text {
    Arena *arena;
    char *data;
    size_t len, cap;
} Text;

static void text_add(Text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *data = arena_alloc_raw(t->arena, cap);
        if (t->len)
            memcpy(data, t->data, t->len);
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n + 1);
    t->len += n;
}

enum { MAX_PRINT_DEPTH = 4, MAX_PRINT_FIELDS = 8 };

static void print_type(Text *out, const Type *t, int depth)
{
    switch (t->kind) {
    case TYPE_ERROR: text_add(out, "?"); return;   /* already reported; rarely shown */
    case TYPE_ANY: text_add(out, "any"); return;
    case TYPE_NULL: text_add(out, "null"); return;
    case TYPE_STRING: text_add(out, "string"); return;
    case TYPE_INT: text_add(out, "int"); return;
    case TYPE_NUMBER: text_add(out, "number"); return;
    case TYPE_BOOL: text_add(out, "bool"); return;
    case TYPE_DURATION: text_add(out, "duration"); return;
    case TYPE_LIST:
        text_add(out, "[");
        print_type(out, t->elem, depth + 1);
        text_add(out, "]");
        return;
    case TYPE_OPTIONAL:
        print_type(out, t->elem, depth + 1);
        text_add(out, "?");
        return;
    case TYPE_RECORD:
        break;
    }
    if (t->name) {
        text_add(out, t->name->text);
        return;
    }
    if (t->field_count == 0) {
        text_add(out, "{}");
        return;
    }
    if (depth >= MAX_PRINT_DEPTH) {
        text_add(out, "{ … }");
        return;
    }
    text_add(out, "{ ");
    for (uint32_t i = 0; i < t->field_count; i++) {
        if (i == MAX_PRINT_FIELDS) {
            text_add(out, ", …");
            break;
        }
        if (i)
            text_add(out, ", ");
        text_add(out, t->fields[i].name->text);
        text_add(out, ": ");
        print_type(out, t->fields[i].type, depth + 1);
        if (t->fields[i].optional && t->fields[i].type->kind != TYPE_OPTIONAL)
            text_add(out, "?");
    }
    text_add(out, " }");
}

const char *type_text(Arena *arena, const Type *t)
{
    Text out = { arena, NULL, 0, 0 };
    print_type(&out, t, 0);
    return out.data;
}
