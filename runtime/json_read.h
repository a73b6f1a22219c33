/* Reading the runtime's JSON inputs (scenarios, simulation models) against a module:
 * jansson parses the text (errors with FILE:LINE:COLUMN), and these helpers check each
 * part, saying where a bad one is as a JSON path ("model.json: workers["pay"].rate: …"),
 * with a did-you-mean for unknown keys and names. Shared by scenario.c and model.c, so
 * that both files read the same way. */
#ifndef ORBIT_RUN_JSON_READ_H
#define ORBIT_RUN_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "namemap.h"
#include "orbc.h"
#include "value.h"

/* The largest number of milliseconds a file may give: about 31 700 years, so that sums
 * of times stay in range. */
#define JREAD_MAX_MS 1000000000000000LL

typedef struct JsonRead {
    const OrbcModule *m;
    Arena *a;
    const char *path;       /* the file's name in messages */
    char *err;
    size_t errlen;
    NameMap tasks;          /* task name -> task index */
    NameMap signals;        /* awaited signal name -> the module's string index */
    bool signals_ready;
    uint32_t workflow;      /* set by json_read_workflow */
} JsonRead;

/* A reader of the file `path` against `module`; names and messages live in `arena`. */
void json_read_init(JsonRead *r, const OrbcModule *module, Arena *arena, const char *path, char *err,
                size_t errlen);

/* Parses JSON text (duplicate keys are errors); NULL with "PATH:LINE:COLUMN: …". */
json_t *json_read_parse(const char *path, const char *bytes, size_t len, char *err, size_t errlen);

/* Writes "PATH: WHERE: message" to the error buffer and returns false. */
__attribute__((format(printf, 3, 4)))
bool json_read_problem(JsonRead *r, const char *where, const char *fmt, ...);
bool json_read_unknown_name(JsonRead *r, const char *where, const char *what, const char *name,
                        const char *const *candidates, size_t count);

/* Maps of NUL-terminated text (namemap_init_text): the first of equal names wins. */
void json_read_map_put(NameMap *map, Arena *a, const char *key, uint32_t value);
bool json_read_map_get(const NameMap *map, const char *key, uint32_t *value);

/* The module's string `index` ("" when out of range). */
const char *json_read_string(const OrbcModule *m, uint32_t index);

/* JSON paths: WHERE.key, WHERE["name"], WHERE[i] (`where` NULL: the top level). */
const char *json_read_where_key(JsonRead *r, const char *where, const char *key);
const char *json_read_where_name(JsonRead *r, const char *where, const char *name);
const char *json_read_where_index(JsonRead *r, const char *where, size_t i);

/* Every key of `object` must be one of `keys`. */
bool json_read_check_keys(JsonRead *r, const char *where, json_t *object, const char *const *keys,
                      size_t count);
bool json_read_object(JsonRead *r, const char *where, json_t *value);
bool json_read_ms(JsonRead *r, const char *where, json_t *value, int64_t *out);
bool json_read_bool(JsonRead *r, const char *where, json_t *value, bool *out);
bool json_read_text(JsonRead *r, const char *where, json_t *value, const char **out);

/* A JSON value as an engine value (integers stay integers). */
Value json_read_value(Arena *a, json_t *json);

/* The task named `name`, or an error at `where` with a did-you-mean. */
bool json_read_task(JsonRead *r, const char *where, const char *name, uint32_t *task);
bool json_read_is_builtin(const JsonRead *r, uint32_t task);
/* The signal `name` if some step of the program awaits it, or an error at `where`. */
bool json_read_signal(JsonRead *r, const char *where, const char *name, uint32_t *string);

/* Chooses the workflow (r->workflow): `name` (--workflow), else the file's "workflow"
 * key, else the module's only workflow. */
bool json_read_workflow(JsonRead *r, const char *name, json_t *root);
/* The file's "input" as a value, `{}` when absent. */
Value json_read_input(JsonRead *r, json_t *root);

#endif
