/* The history writer, text and JSON. Text fields are escaped so that every event stays
 * on one line whatever the scenario's strings contain. */
#include "history.h"

#include <inttypes.h>
#include <string.h>

void history_init(History *h, FILE *out, HistoryFormat format)
{
    memset(h, 0, sizeof *h);
    h->out = out;
    h->format = format;
}

void history_free(History *h)
{
    text_free(&h->line);
}

/* Text form of a string: control characters escaped. */
static void add_text(TextBuffer *b, const char *text)
{
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n')
            text_append(b, "\\n", 2);
        else if (c == '\r')
            text_append(b, "\\r", 2);
        else if (c == '\t')
            text_append(b, "\\t", 2);
        else if (c < 0x20 || c == 0x7f)
            text_printf(b, "\\x%02x", c);
        else
            text_append(b, p, 1);
    }
}

static void json_key(History *h, const char *key)
{
    text_append(&h->line, ",", 1);
    value_json_quote(&h->line, key, strlen(key));
    text_append(&h->line, ":", 1);
}

static void history_begin(History *h, int64_t time_ms, const char *event)
{
    h->seq++;
    h->line.len = 0;
    if (h->format == HISTORY_JSON)
        text_printf(&h->line, "{\"time_ms\":%" PRId64 ",\"seq\":%" PRIu32 ",\"event\":\"%s\"",
                    time_ms, h->seq, event);
    else
        text_printf(&h->line, "+ %" PRId64 "ms #%" PRIu32 " %s", time_ms, h->seq, event);
}

static void history_str(History *h, const char *key, const char *value)
{
    if (h->format == HISTORY_JSON) {
        json_key(h, key);
        value_json_quote(&h->line, value, strlen(value));
        return;
    }
    text_printf(&h->line, " %s=", key);
    add_text(&h->line, value);
}

static void history_int(History *h, const char *key, int64_t value)
{
    if (h->format == HISTORY_JSON)
        json_key(h, key);
    else
        text_printf(&h->line, " %s=", key);
    text_printf(&h->line, "%" PRId64, value);
}

static void history_value(History *h, const char *key, Value value)
{
    if (h->format == HISTORY_JSON) {
        json_key(h, key);
        value_to_json(&h->line, value);
        return;
    }
    TextBuffer json = {0};
    value_to_json(&json, value);
    text_printf(&h->line, " %s=", key);
    add_text(&h->line, json.data ? json.data : "");
    text_free(&json);
}

static void history_error(History *h, const char *code, const char *message)
{
    if (h->format == HISTORY_JSON) {
        history_str(h, "error", code);
        history_str(h, "message", message);
        return;
    }
    history_str(h, "error", code);
    if (*message) {
        text_append(&h->line, " ", 1);
        add_text(&h->line, message);
    }
}

static void history_note(History *h, const char *message)
{
    if (h->format == HISTORY_JSON) {
        history_str(h, "message", message);
        return;
    }
    text_append(&h->line, " ", 1);
    add_text(&h->line, message);
}

static void history_end(History *h)
{
    if (h->format == HISTORY_JSON)
        text_append(&h->line, "}", 1);
    text_append(&h->line, "\n", 1);
    if (h->out)
        fwrite(h->line.data, 1, h->line.len, h->out);
}

void history_write(History *h, const EngineRecord *record)
{
    history_begin(h, record->time_ms, record->event);
    for (uint32_t i = 0; i < record->field_count; i++) {
        const EngineField *f = &record->fields[i];
        switch (f->kind) {
        case ENGINE_FIELD_STR: history_str(h, f->key, f->text); break;
        case ENGINE_FIELD_INT: history_int(h, f->key, f->number); break;
        case ENGINE_FIELD_VALUE: history_value(h, f->key, f->value); break;
        case ENGINE_FIELD_ERROR: history_error(h, f->text, f->message); break;
        default: history_note(h, f->text); break;
        }
    }
    history_end(h);
}

void history_final(History *h, const char *status, const Value *output, const char *code,
                   const char *message, const char *step)
{
    if (h->format != HISTORY_JSON)
        return;
    h->line.len = 0;
    text_append_str(&h->line, "{\"status\":");
    value_json_quote(&h->line, status, strlen(status));
    if (output) {
        json_key(h, "output");
        value_to_json(&h->line, *output);
    }
    if (code)
        history_error(h, code, message ? message : "");
    if (step)
        history_str(h, "step", step);
    text_append(&h->line, "}\n", 2);
    if (h->out)
        fwrite(h->line.data, 1, h->line.len, h->out);
}
