/* Static types of Orbit values (docs/language.md, "Types"): construction, printing, and
 * the rule of which type is accepted where another is expected. The Type struct is in
 * program.h. */
#ifndef ORBIT_TYPES_H
#define ORBIT_TYPES_H

#include <stdbool.h>

#include "arena.h"
#include "program.h"

/* Records of more fields than this are given a table of their fields by name (types.c);
 * smaller ones are searched field by field, and so are the records being built. */
enum { TYPE_SMALL_RECORD = 16 };

/* The names of the built-in types, as written in contracts. */
enum { BUILTIN_TYPE_COUNT = 6 };
extern const char *const BUILTIN_TYPE_NAMES[BUILTIN_TYPE_COUNT];

/* The shared instances of the simple types. */
typedef struct Types {
    Arena *arena;
    const Type *error, *any, *null, *string, *integer, *number, *boolean, *duration;
    const Type *empty_record;    /* {} */
    const Type *any_list;        /* [any] */
    /* The shared instance of each simple type, and [T] and T? of each (but T? of error,
     * any and null, which are the type itself), all made by types_init: contracts name
     * the same few again and again, and a value of the very type expected needs no
     * further check. */
    const Type *simple_of[TYPE_DURATION + 1];
    const Type *list_of[TYPE_DURATION + 1];
    const Type *optional_of[TYPE_DURATION + 1];
} Types;

void types_init(Types *types, Arena *arena);

const Type *type_list(Types *types, const Type *elem);
/* T? ; optional of an optional, of null, any or error is the type itself. */
const Type *type_optional(Types *types, const Type *elem);
/* A record over `count` fields (the array is kept, not copied). */
const Type *type_record(Types *types, Field *fields, uint32_t count);

/* A record built field by field (the checker's records of `type` declarations and object
 * literals): its fields by name are kept as they come, so that a repeated name is found
 * at once, and they become the record's table. */
typedef struct RecordBuilder {
    Field *fields;       /* room for `capacity` */
    uint32_t count, capacity;
    uint32_t *slots;     /* the table for `capacity` fields (types.c); NULL when small */
    uint64_t hashes;     /* bit (hash % 64) of each name added: a name whose bit is not
                            set is not there, and a small record is not searched */
} RecordBuilder;

/* The field named `name` among `count` fields, looked at one by one, or NULL: how a
 * record of at most TYPE_SMALL_RECORD fields (and one being built) is searched. */
static inline const Field *type_fields_find(const Field *fields, uint32_t count,
                                            const Name *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (fields[i].name == name)
            return &fields[i];
    return NULL;
}

void type_record_begin(Types *types, RecordBuilder *rb, uint32_t capacity);
/* type_record_find and type_record_add of a builder with a table (`slots`). */
const Field *type_record_find_by_slot(const RecordBuilder *rb, const Name *name);
void type_record_add_slot(RecordBuilder *rb);

/* The field already added with this name, or NULL. */
static inline const Field *type_record_find(const RecordBuilder *rb, const Name *name)
{
    if (!(rb->hashes >> (name->hash & 63) & 1))
        return NULL;
    if (rb->slots)
        return type_record_find_by_slot(rb, name);
    return type_fields_find(rb->fields, rb->count, name);
}

/* Adds a field named `name` (not added yet, and fewer than `capacity`): the caller fills
 * in the rest. */
static inline Field *type_record_add(RecordBuilder *rb, const Name *name)
{
    Field *f = &rb->fields[rb->count];
    f->name = name;
    rb->hashes |= (uint64_t)1 << (name->hash & 63);
    if (rb->slots)
        type_record_add_slot(rb);
    rb->count++;
    return f;
}

const Type *type_record_end(Types *types, RecordBuilder *rb);

/* type_field of a record that has a table of its fields by name. */
const Field *type_field_by_slot(const Type *record, const Name *name);

/* The field of a record with this name, or NULL: through the record's table of fields by
 * name when it has more than TYPE_SMALL_RECORD. Inline, with the small helpers below,
 * since the checker asks for every field it reads or is given. */
static inline const Field *type_field(const Type *record, const Name *name)
{
    if (record->field_slots)
        return type_field_by_slot(record, name);
    return type_fields_find(record->fields, record->field_count, name);
}

/* T for T?, else the type itself. */
static inline const Type *type_strip_optional(const Type *t)
{
    return t->kind == TYPE_OPTIONAL ? t->elem : t;
}

/* error or any: a type that never causes an error. */
static inline bool type_is_unchecked(const Type *t)
{
    return t->kind == TYPE_ERROR || t->kind == TYPE_ANY;
}

static inline bool type_is_numeric(const Type *t)    /* int or number */
{
    return t->kind == TYPE_INT || t->kind == TYPE_NUMBER;
}

bool type_accepts_slow(const Type *to, const Type *from);

/* Whether a value of type `from` is accepted where `to` is expected (a type accepts
 * itself: the shared simple types make that the common case). */
static inline bool type_accepts(const Type *to, const Type *from)
{
    return to == from || type_accepts_slow(to, from);
}

/* The type as a user writes it: `string`, `[int]`, `Money`, `{ a: int, b: string? }`. */
const char *type_text(Arena *arena, const Type *t);

#endif
