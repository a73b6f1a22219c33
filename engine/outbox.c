/* The outbox: the commands one event produces, in order. A history record is a command
 * whose fields are added one by one after outbox_event; they are kept in one array for
 * the whole event and pointed to when the event is over (outbox_seal). */
#include "engine_internal.h"

#include <stdlib.h>


static EngineCommand *command(Engine *e, uint8_t kind)
{
    if (e->command_count == e->command_cap) {
        size_t cap = e->command_cap;
        e->commands = engine_grow(e->commands, &e->command_cap, sizeof *e->commands);
        e->first_field = engine_grow(e->first_field, &cap, sizeof *e->first_field);
    }
    EngineCommand *c = &e->commands[e->command_count];
    e->first_field[e->command_count++] = (uint32_t)e->field_count;
    *c = (EngineCommand){.kind = kind};
    return c;
}

void outbox_event(Engine *e, const char *event)
{
    EngineCommand *c = command(e, ENGINE_RECORD);
    c->record.time_ms = e->now;
    c->record.event = event;
}

static EngineField *field(Engine *e, uint8_t kind, const char *key)
{
    if (e->field_count == e->field_cap)
        e->fields = engine_grow(e->fields, &e->field_cap, sizeof *e->fields);
    e->commands[e->command_count - 1].record.field_count++;
    EngineField *f = &e->fields[e->field_count++];
    *f = (EngineField){.kind = kind, .key = key};
    return f;
}

void outbox_str(Engine *e, const char *key, const char *value)
{
    field(e, ENGINE_FIELD_STR, key)->text = value;
}

void outbox_int(Engine *e, const char *key, int64_t value)
{
    field(e, ENGINE_FIELD_INT, key)->number = value;
}

void outbox_value(Engine *e, const char *key, Value value)
{
    field(e, ENGINE_FIELD_VALUE, key)->value = value;
}

void outbox_shown_value(Engine *e, const char *key, Value value)
{
    EngineField *f = field(e, ENGINE_FIELD_VALUE, key);
    f->value = value;
    f->shown = true;
}

void outbox_error(Engine *e, const char *code, const char *message)
{
    EngineField *f = field(e, ENGINE_FIELD_ERROR, "error");
    f->text = code;
    f->message = message;
}

void outbox_note(Engine *e, const char *message)
{
    field(e, ENGINE_FIELD_NOTE, "message")->text = message;
}

uint32_t outbox_timer(Engine *e, int64_t delay, bool limit, uint8_t kind, void *target, uint32_t gen)
{
    if (e->timer_count == e->timer_cap)
        e->timers = engine_grow(e->timers, &e->timer_cap, sizeof *e->timers);
    e->timers[e->timer_count++] = (EngineTimer){.kind = kind, .gen = gen, .target = target};
    EngineCommand *c = command(e, ENGINE_START_TIMER);
    c->timer = (uint32_t)e->timer_count;
    c->at_ms = engine_time_after(e->now, delay);
    c->limit = limit;
    return c->timer;
}

size_t outbox_queue(Engine *e, const Attempt *a)
{
    const Unit *u = a->unit;
    EngineCommand *c = command(e, ENGINE_QUEUE_ATTEMPT);
    c->attempt = a->id;
    c->delivery = a->delivery;
    c->task = (EngineTask){
        .task = u->task, .workflow = u->exec->wf_index, .step = u->step_index,
        .compensation = u->compensation, .number = a->number, .label = u->label,
        .input = u->input, .idempotency_key = u->key,
    };
    return e->command_count - 1;
}

void outbox_cancel(Engine *e, const Attempt *a)
{
    command(e, ENGINE_CANCEL_ATTEMPT)->attempt = a->id;
}

void outbox_finished(Engine *e, const EngineResult *result)
{
    command(e, ENGINE_FINISHED)->result = *result;
}

void outbox_start_child(Engine *e, const Unit *u, uint32_t workflow, Value input)
{
    command(e, ENGINE_START_CHILD)->child = (EngineChild){
        .id = u->host_child, .workflow = workflow, .parent_workflow = u->exec->wf_index,
        .parent_step = u->step_index, .label = u->label, .input = input,
    };
}

void outbox_clear(Engine *e)
{
    e->command_count = 0;
    e->field_count = 0;
}

void outbox_seal(Engine *e)
{
    for (size_t i = 0; i < e->command_count; i++)
        if (e->commands[i].kind == ENGINE_RECORD)
            e->commands[i].record.fields = e->fields + e->first_field[i];
}

void outbox_free(Engine *e)
{
    free(e->commands);
    free(e->first_field);
    free(e->fields);
    free(e->timers);
    free(e->attempts);
    free(e->host_children);
}
