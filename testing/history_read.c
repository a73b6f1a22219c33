/* A run's history read back (testing_internal.h): the JSON lines run_scenario writes
 * with --format json, parsed with jansson, beside the `orbit logs` lines of the same run,
 * which the expectations `events: […]` match and the reports show. */
#include <ctype.h>
#include <string.h>

#include "testing_internal.h"

/* A string field of `object`, copied into the arena, or NULL. */
static const char *field_text(Arena *arena, const json_t *object, const char *key)
{
    const json_t *v = json_object_get(object, key);
    return json_is_string(v) ? arena_strndup(arena, json_string_value(v), json_string_length(v))
                             : NULL;
}

/* The line after "+ TIMEms #SEQ ". */
static const char *line_body(const char *line)
{
    const char *p = line;
    for (int spaces = 0; *p && spaces < 3; p++)
        spaces += *p == ' ';
    return p;
}

/* Splits `text` into its lines (copied into the arena); returns how many. */
static uint32_t split_lines(Arena *arena, const char *text, size_t len, const char ***lines)
{
    uint32_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += text[i] == '\n';
    *lines = arena_alloc(arena, (count + 1) * sizeof **lines);
    uint32_t n = 0;
    for (const char *p = text, *end = text + len; p < end && n < count;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        (*lines)[n++] = arena_strndup(arena, p, (size_t)(nl - p));
        p = nl + 1;
    }
    return count;
}

static const char *lower_status(Arena *arena, const char *status)
{
    char *s = arena_strndup(arena, status, strlen(status));
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return s;
}

bool testing_history_read(Arena *arena, const char *json_lines, size_t json_len,
                          const char *text, size_t text_len, TestHistory *h)
{
    memset(h, 0, sizeof *h);
    const char **json_of, **text_of;
    uint32_t json_count = split_lines(arena, json_lines, json_len, &json_of);
    uint32_t text_count = split_lines(arena, text, text_len, &text_of);
    /* the JSON has one more line: the final status */
    if (json_count == 0 || json_count != text_count + 1)
        return false;
    h->text = arena_strndup(arena, text, text_len);
    h->events = arena_alloc(arena, (text_count + 1) * sizeof *h->events);
    h->count = text_count;
    for (uint32_t i = 0; i < json_count; i++) {
        json_t *object = json_loads(json_of[i], JSON_DECODE_ANY, NULL);
        if (!json_is_object(object)) {
            json_decref(object);
            return false;
        }
        if (i + 1 == json_count) {
            const char *status = field_text(arena, object, "status");
            h->status = status ? lower_status(arena, status) : "stopped";
            h->error = field_text(arena, object, "error");
            json_t *output = json_object_get(object, "output");
            h->output = output ? json_incref(output) : NULL;
        } else {
            TestEvent *e = &h->events[i];
            e->time_ms = json_integer_value(json_object_get(object, "time_ms"));
            e->event = field_text(arena, object, "event");
            e->step = field_text(arena, object, "step");
            e->attempt = json_integer_value(json_object_get(object, "attempt"));
            e->error = field_text(arena, object, "error");
            e->workflow = field_text(arena, object, "workflow");
            e->line = text_of[i];
            e->body = line_body(e->line);
            if (!e->event) {
                json_decref(object);
                return false;
            }
        }
        json_decref(object);
    }
    return true;
}

void testing_history_free(TestHistory *h)
{
    json_decref(h->output);
    h->output = NULL;
}
