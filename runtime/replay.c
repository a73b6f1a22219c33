/* Replay of a recorded history against new bytecode (replay.h; docs/runtime.md,
 * "Replay").
 *
 * The records of a history are the engine's answers to the events its host gave it. An
 * event's records come together, so the first record not yet reproduced always begins
 * the records of the next event, and says which event it was (the table `sources`): a
 * pickup, an answer, a lost worker, a signal come from the world and carry what the
 * engine needs (the attempt by its step and number, the output, the failure, the
 * payload); everything else is the engine's own timer (a retry, a sleep, a timeout, the
 * deadline) or, in virtual time, "nothing else can happen". Timers are the ones NEW's
 * engine started, fired as a host fires them: by time, limits last, in the order set
 * (engine/timers.c), every timer due before a record's time before that record's event.
 * NEW's records, written as history.c writes them, are compared with the history's as
 * JSON, record for record; the first difference is the divergence. */
#include "replay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "engine.h"
#include "history.h"
#include "json_read.h"
#include "memory.h"
#include "timers.h"

/* ---- reading ---- */

static bool read_problem(char *err, size_t errlen, const char *path, size_t line, const char *what)
{
    snprintf(err, errlen, "%s:%zu: %s", path, line, what);
    return false;
}

static void push_record(ReplayHistory *h, json_t *record)
{
    if (h->count == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->records = xrealloc(h->records, h->cap * sizeof *h->records);
    }
    h->records[h->count++] = record;
}

/* Integral reals back to integers, after a parse that read every integer as a real. */
static json_t *integers_again(json_t *j)
{
    if (json_is_real(j)) {
        double d = json_real_value(j);
        if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(json_int_t)d) {
            json_decref(j);
            return json_integer((json_int_t)d);
        }
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            json_array_set_new(j, i, integers_again(json_incref(json_array_get(j, i))));
    } else if (json_is_object(j)) {
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
            json_object_set_new(j, key, integers_again(json_incref(v)));
    }
    return j;
}

/* A line of JSON. Numbers written as integers beyond 64 bits (a number such as 1e20, as
 * `str` writes it) are read as reals, the rest of the line's integers as integers. */
static json_t *parse_line(const char *text, size_t len, json_error_t *err)
{
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, err);
    if (j || strstr(err->text, "too big integer") == NULL)
        return j;
    j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, err);
    return j ? integers_again(j) : NULL;
}

/* One line: a record, or the final status line (*status). */
static bool read_line(const char *path, size_t line_no, const char *line, size_t len,
                      ReplayHistory *h, bool *status, char *err, size_t errlen)
{
    if (memchr(line, '\0', len))
        return read_problem(err, errlen, path, line_no, "a NUL byte");
    json_error_t jerr;
    json_t *j = parse_line(line, len, &jerr);
    if (!j) {
        snprintf(err, errlen, "%s:%zu:%d: %s", path, line_no, jerr.column, jerr.text);
        return false;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        return read_problem(err, errlen, path, line_no, "expected a JSON object (a history record)");
    }
    if (!json_object_get(j, "event") && json_object_get(j, "status")) {
        json_decref(j);
        *status = true;
        return true;
    }
    json_t *event = json_object_get(j, "event"), *seq = json_object_get(j, "seq"),
           *time = json_object_get(j, "time_ms");
    const char *problem = NULL;
    if (!json_is_string(event) || !json_is_integer(seq) || !json_is_integer(time))
        problem = "a record needs \"time_ms\", \"seq\" and \"event\"";
    else if (json_integer_value(seq) != (json_int_t)h->count + 1)
        problem = "records out of order: its \"seq\" is not the line's record number";
    else if (json_integer_value(time) < 0 ||
             (h->count && json_integer_value(time) <
                              json_integer_value(json_object_get(h->records[h->count - 1], "time_ms"))))
        problem = "records out of order: its \"time_ms\" is before the last record's";
    else if (h->count == 0 && (strcmp(json_string_value(event), "WorkflowStarted") != 0 ||
                               !json_is_string(json_object_get(j, "workflow"))))
        problem = "a history begins with WorkflowStarted and its \"workflow\"";
    if (problem) {
        json_decref(j);
        return read_problem(err, errlen, path, line_no, problem);
    }
    push_record(h, j);
    return true;
}

bool replay_read(const char *path, const char *bytes, size_t len, ReplayHistory *h, char *err,
                 size_t errlen)
{
    memset(h, 0, sizeof *h);
    err[0] = '\0';
    bool status = false;
    size_t line_no = 0;
    for (size_t at = 0; at < len;) {
        const char *line = bytes + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + (nl != NULL);
        line_no++;
        if (n && line[n - 1] == '\r')
            n--;
        size_t blank = 0;
        while (blank < n && (line[blank] == ' ' || line[blank] == '\t'))
            blank++;
        if (blank == n)
            continue;
        if (status) {
            replay_history_free(h);
            return read_problem(err, errlen, path, line_no, "a line after the final status line");
        }
        if (!read_line(path, line_no, line, n, h, &status, err, errlen)) {
            replay_history_free(h);
            return false;
        }
    }
    return true;
}

void replay_history_free(ReplayHistory *h)
{
    for (size_t i = 0; i < h->count; i++)
        json_decref(h->records[i]);
    free(h->records);
    memset(h, 0, sizeof *h);
}

/* ---- small helpers over records ---- */

static const char *field_str(const json_t *record, const char *key)
{
    const char *s = json_string_value(json_object_get(record, key));
    return s ? s : "";
}

static int64_t field_int(const json_t *record, const char *key)
{
    return json_integer_value(json_object_get(record, key));
}

static bool is_event(const json_t *record, const char *event)
{
    return strcmp(field_str(record, "event"), event) == 0;
}

static const char *const end_events[] = {"WorkflowCompleted", "WorkflowFailed", "WorkflowTimedOut",
                                         "WorkflowBlocked"};

static bool is_end(const json_t *record)
{
    for (size_t i = 0; i < sizeof end_events / sizeof *end_events; i++)
        if (is_event(record, end_events[i]))
            return true;
    return false;
}

/* ---- places ---- */

/* What a record does to the place of its step (`step=`): the one table of places. */
typedef enum PlaceEffect {
    P_NONE,
    P_QUEUED,      /* an attempt is queued or running: `attempt` */
    P_BACKOFF,     /* the next attempt waits for its delay */
    P_SLEEP, P_SIGNAL, P_CHILD,
    P_LEFT,        /* the step (or element) is no longer waiting */
    P_COMPENSATED, /* a compensation ended (`step=` is the compensated step) */
} PlaceEffect;

static const struct { const char *event; uint8_t effect; } place_effects[] = {
    {"StepScheduled", P_QUEUED}, {"StepDispatched", P_QUEUED}, {"StepRedelivered", P_QUEUED},
    {"RetryScheduled", P_BACKOFF}, {"TimerStarted", P_SLEEP}, {"SignalWaitStarted", P_SIGNAL},
    {"ChildWorkflowStarted", P_CHILD},
    {"StepAttemptFailed", P_LEFT}, {"StepCompleted", P_LEFT}, {"StepFailed", P_LEFT},
    {"StepCancelled", P_LEFT}, {"StepSkipped", P_LEFT}, {"TimerFired", P_LEFT},
    {"ChildWorkflowCompleted", P_LEFT}, {"ChildWorkflowFailed", P_LEFT},
    {"ChildWorkflowTimedOut", P_LEFT}, {"ChildWorkflowCancelled", P_LEFT},
    {"CompensationCompleted", P_COMPENSATED}, {"CompensationFailed", P_COMPENSATED},
};

static const char *const place_states[] = {
    [P_QUEUED] = "queued", [P_BACKOFF] = "backoff", [P_SLEEP] = "sleep", [P_SIGNAL] = "signal",
    [P_CHILD] = "child",
};

typedef struct PlaceSlot {
    const char *label;     /* the record's `step=` (a compensation's: "charge.compensate") */
    uint8_t effect;        /* the last one */
    int64_t attempt;
} PlaceSlot;

static const char compensate_suffix[] = ".compensate";

static bool is_compensation(const char *label)
{
    size_t n = strlen(label), s = sizeof compensate_suffix - 1;
    return n > s && strcmp(label + n - s, compensate_suffix) == 0;
}

/* The label without the `[index]` of `for` elements and the compensation suffix. */
static char *place_path(Arena *a, const char *label)
{
    size_t n = strlen(label);
    if (is_compensation(label))
        n -= sizeof compensate_suffix - 1;
    char *out = arena_alloc(a, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (label[i] == '[') {
            while (i < n && label[i] != ']')
                i++;
            continue;
        }
        out[k++] = label[i];
    }
    out[k] = '\0';
    return out;
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "id")),
                  json_string_value(json_object_get(*(json_t *const *)b, "id")));
}

/* A child step still running: every `/`-prefix of the label is a step in P_CHILD. */
static bool ancestors_running(Arena *a, const NameMap *map, const PlaceSlot *slots, const char *label)
{
    for (const char *p = strchr(label, '/'); p; p = strchr(p + 1, '/')) {
        char *prefix = arena_alloc(a, (size_t)(p - label) + 1);
        memcpy(prefix, label, (size_t)(p - label));
        prefix[p - label] = '\0';
        uint32_t i;
        if (!json_read_map_get(map, prefix, &i) || slots[i].effect != P_CHILD)
            return false;
    }
    return true;
}

json_t *replay_places(const ReplayHistory *h)
{
    json_t *places = json_array();
    if (h->count == 0 || is_end(h->records[h->count - 1]))
        return places;
    Arena arena;
    arena_init(&arena);
    NameMap map;
    namemap_init_text(&map, &arena, 64);
    PlaceSlot *slots = NULL;
    size_t count = 0, cap = 0;
    const char *workflow = field_str(h->records[0], "workflow");
    for (size_t r = 0; r < h->count; r++) {
        const json_t *rec = h->records[r];
        const char *event = field_str(rec, "event");
        uint8_t effect = P_NONE;
        for (size_t i = 0; i < sizeof place_effects / sizeof *place_effects; i++)
            if (strcmp(event, place_effects[i].event) == 0)
                effect = place_effects[i].effect;
        if (effect == P_NONE || !json_is_string(json_object_get(rec, "step")))
            continue;
        const char *label = field_str(rec, "step");
        if (effect == P_COMPENSATED) {
            label = arena_printf(&arena, "%s%s", label, compensate_suffix);
            effect = P_LEFT;
        }
        uint32_t i;
        if (!json_read_map_get(&map, label, &i)) {
            if (count == cap) {
                cap = cap ? cap * 2 : 64;
                slots = xrealloc(slots, cap * sizeof *slots);
            }
            i = (uint32_t)count++;
            slots[i] = (PlaceSlot){.label = arena_printf(&arena, "%s", label)};
            json_read_map_put(&map, &arena, slots[i].label, i);
        }
        PlaceSlot *s = &slots[i];
        if (effect == P_QUEUED)
            s->attempt = field_int(rec, "attempt");
        else if (effect == P_BACKOFF)
            s->attempt++;
        s->effect = effect;
    }
    json_t **items = xmalloc((count + 1) * sizeof *items);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const PlaceSlot *s = &slots[i];
        if (s->effect == P_LEFT || !ancestors_running(&arena, &map, slots, s->label))
            continue;
        bool compensation = is_compensation(s->label);
        const char *state = compensation ? "compensating" : place_states[s->effect];
        bool numbered = s->effect == P_QUEUED || s->effect == P_BACKOFF;
        const char *path = place_path(&arena, s->label);
        char *id = numbered ? arena_printf(&arena, "%s/%s#%s:%" PRId64, workflow, path, state, s->attempt)
                            : arena_printf(&arena, "%s/%s#%s", workflow, path, state);
        items[n++] = json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", id, "workflow", workflow,
                               "step", path, "state", state, "attempt",
                               numbered ? json_integer(s->attempt) : json_null());
    }
    qsort(items, n, sizeof *items, compare_ids);
    json_t *last = NULL;   /* the last one kept: a place listed twice is kept once */
    for (size_t i = 0; i < n; i++) {
        if (last && compare_ids(&last, &items[i]) == 0) {
            json_decref(items[i]);
            continue;
        }
        json_array_append_new(places, items[i]);
        last = items[i];
    }
    free(items);
    free(slots);
    arena_free(&arena);
    return places;
}

/* ---- which event a record stands for ---- */

typedef enum ReplaySource {
    SRC_TIMER,     /* a timer of the engine (the default) */
    SRC_PICKUP,    /* ENGINE_PICKED_UP of the record's attempt */
    SRC_ANSWER,    /* ENGINE_ANSWERED: its output, or its failure */
    SRC_LOST,      /* ENGINE_WORKER_LOST */
    SRC_SIGNAL,    /* ENGINE_SIGNAL with the record's signal and payload */
    SRC_IDLE,      /* ENGINE_IDLE: nothing else could happen (virtual time only) */
} ReplaySource;

/* The first record of an event's records, and the event it stands for (docs/runtime.md,
 * "Replay", has this table). A StepAttemptFailed of TIMEOUT or QUEUE_TIMEOUT is a
 * limit's timer when one is due; a StepCompleted without `attempt` is never first. */
static const struct { const char *event; uint8_t source; } sources[] = {
    {"StepDispatched", SRC_PICKUP},
    {"StepCompleted", SRC_ANSWER},
    {"StepAttemptFailed", SRC_ANSWER},
    {"CompensationCompleted", SRC_ANSWER},
    {"StepRedelivered", SRC_LOST},
    {"SignalReceived", SRC_SIGNAL},
    {"WorkflowBlocked", SRC_IDLE},
    {"StepCancelled", SRC_IDLE},   /* of an attempt picked up: SRC_LOST (step()) */
};

static uint8_t source_of(const json_t *record)
{
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
        if (is_event(record, sources[i].event))
            return sources[i].source;
    return SRC_TIMER;
}

/* ---- the replay ---- */

typedef struct ReplayAttempt {
    uint32_t id, delivery, task;
    bool picked;              /* its current delivery was picked up */
} ReplayAttempt;

typedef struct Replay {
    const OrbcModule *m;
    const ReplayHistory *h;
    const char *path;
    Arena *arena;
    Engine *engine;
    History writer;           /* NEW's records as JSON, one at a time */
    TimerQueue timers;
    NameMap attempts;         /* "LABEL#NUMBER" -> index */
    ReplayAttempt *att;
    size_t att_count, att_cap;
    NameMap strings;          /* the module's strings -> index, for signals */
    bool strings_ready;
    size_t next;              /* the next history record to reproduce */
    bool finished;            /* NEW's execution ended */
    json_t *divergence;       /* the first difference, or NULL */
    char *err;                /* a history that cannot be replayed */
    size_t errlen;
    bool failed;
} Replay;

static const char *attempt_key(Replay *r, const char *label, int64_t number)
{
    return arena_printf(r->arena, "%s#%" PRId64, label, number);
}

static ReplayAttempt *find_attempt(Replay *r, const char *label, int64_t number)
{
    uint32_t i;
    return json_read_map_get(&r->attempts, attempt_key(r, label, number), &i) ? &r->att[i] : NULL;
}

static void diverge(Replay *r, json_t *actual)
{
    const json_t *expected = r->h->records[r->next];
    json_t *step = json_object_get(expected, "step"), *attempt = json_object_get(expected, "attempt");
    r->divergence = json_pack("{s:I, s:O, s:o, s:O, s:O}", "seq", (json_int_t)r->next + 1,
                              "expected", (json_t *)expected, "actual", actual ? actual : json_null(),
                              "step", step ? step : json_null(),
                              "attempt", attempt ? attempt : json_null());
}

static void on_record(Replay *r, const EngineRecord *record)
{
    if (r->divergence || r->next >= r->h->count)
        return;
    history_write(&r->writer, record);
    json_error_t jerr;
    json_t *actual = parse_line(r->writer.line.data, r->writer.line.len, &jerr);
    if (actual && json_equal(actual, r->h->records[r->next])) {
        json_decref(actual);
        r->next++;
        return;
    }
    diverge(r, actual);
}

static void on_queue(Replay *r, const EngineCommand *c)
{
    const char *key = attempt_key(r, c->task.label, c->task.number);
    uint32_t i;
    if (!json_read_map_get(&r->attempts, key, &i)) {
        if (r->att_count == r->att_cap) {
            r->att_cap = r->att_cap ? r->att_cap * 2 : 32;
            r->att = xrealloc(r->att, r->att_cap * sizeof *r->att);
        }
        i = (uint32_t)r->att_count++;
        json_read_map_put(&r->attempts, r->arena, key, i);
    }
    r->att[i] = (ReplayAttempt){.id = c->attempt, .delivery = c->delivery, .task = c->task.task};
}

/* Hands NEW's engine one event and carries out its commands. Returns whether it was
 * accepted. */
static bool send(Replay *r, EngineEvent *event)
{
    if (r->finished)
        return false;
    bool accepted = engine_handle(r->engine, event);
    size_t count;
    const EngineCommand *commands = engine_commands(r->engine, &count);
    for (size_t i = 0; i < count; i++) {
        const EngineCommand *c = &commands[i];
        switch (c->kind) {
        case ENGINE_RECORD: on_record(r, &c->record); break;
        case ENGINE_START_TIMER: timers_push(&r->timers, c->at_ms, c->limit, 0, c->timer, 0); break;
        case ENGINE_QUEUE_ATTEMPT: on_queue(r, c); break;
        case ENGINE_FINISHED: r->finished = true; break;
        default: break;
        }
    }
    return accepted;
}

/* Fires the first timer due; returns whether NEW wrote a record. */
static bool fire_first(Replay *r)
{
    Timer t;
    if (!timers_pop(&r->timers, &t))
        return false;
    size_t before = r->next;
    send(r, &(EngineEvent){.kind = ENGINE_TIMER_FIRED, .time_ms = t.at, .timer = t.id});
    return r->next != before || r->divergence;
}

/* In virtual time, what orbit-run tells the engine when its queue is empty: the attempts
 * no worker took, then "nothing else can happen". */
static void send_idle(Replay *r, int64_t time)
{
    for (size_t i = 0; i < r->att_count; i++)
        if (!r->att[i].picked)
            send(r, &(EngineEvent){.kind = ENGINE_NO_WORKER, .time_ms = time, .attempt = r->att[i].id});
    send(r, &(EngineEvent){.kind = ENGINE_IDLE, .time_ms = time});
}

/* NEW cannot reproduce the next record from the event it stands for: what NEW does next
 * instead (its next timer, else nothing more can happen) is the divergence, or nothing. */
static void what_new_does(Replay *r)
{
    size_t before = r->next;
    while (!r->divergence && r->next == before && !r->finished) {
        if (!fire_first(r) && !timers_first(&r->timers)) {
            send_idle(r, field_int(r->h->records[r->next], "time_ms"));
            break;
        }
    }
    if (!r->divergence && r->next == before)
        diverge(r, NULL);
}

static bool need_value(Replay *r, const json_t *record, const char *key)
{
    if (json_object_get(record, key) || r->next + 1 >= r->h->count)
        return true;
    snprintf(r->err, r->errlen, "%s: record #%zu (%s) has no `%s`: the history was recorded without "
             "values; record it with --show-values (or orbit-restate logs --format json)",
             r->path, r->next + 1, field_str(record, "event"), key);
    r->failed = true;
    return false;
}

static Value record_value(Replay *r, const json_t *record, const char *key)
{
    json_t *v = json_object_get(record, key);
    return v ? json_read_value(r->arena, v) : value_null();
}

static bool is_http_task(const Replay *r, uint32_t task)
{
    return task < r->m->task_count && r->m->tasks[task].kind == ORBC_TASK_BUILTIN &&
           strcmp(json_read_string(r->m, r->m->tasks[task].name), "orbit.http.request") == 0;
}

/* A worker's failure is retryable when the history retried it, or gave up after the
 * last attempt; else it was not (the history does not record the flag). */
static bool failure_retryable(const Replay *r, const char *label)
{
    if (r->next + 1 >= r->h->count)
        return true;
    const json_t *after = r->h->records[r->next + 1];
    if (strcmp(field_str(after, "step"), label) != 0)
        return true;
    if (is_event(after, "RetryScheduled"))
        return true;
    return strstr(field_str(after, "message"), "(gave up after ") != NULL;
}

static const char http_failed[] = "request failed: ";

/* The answer a StepCompleted, CompensationCompleted or StepAttemptFailed reports. */
static bool answer_of(Replay *r, const json_t *rec, const char *label, const ReplayAttempt *a,
                      EngineAnswer *answer)
{
    if (is_event(rec, "StepAttemptFailed")) {
        const char *code = field_str(rec, "error"), *message = field_str(rec, "message");
        size_t prefix = sizeof http_failed - 1;
        if (is_http_task(r, a->task) && strcmp(code, "HTTP_ERROR") == 0 &&
            strncmp(message, http_failed, prefix) == 0) {
            char *end;
            const char *status = message + prefix + strlen("status ");
            long long n = strncmp(message + prefix, "status ", 7) == 0 ? strtoll(status, &end, 10) : 0;
            if (n >= 400 && *end == '\0') {
                *answer = (EngineAnswer){.kind = ENGINE_ANSWER_HTTP_RESPONSE, .status = n,
                                         .output = value_null()};
                return true;
            }
            *answer = (EngineAnswer){.kind = ENGINE_ANSWER_NETWORK_ERROR, .message = message + prefix};
            return true;
        }
        *answer = (EngineAnswer){.kind = ENGINE_ANSWER_FAIL, .code = code, .message = message,
                                 .retryable = strcmp(code, "OUTPUT_CONTRACT_VIOLATION") != 0 &&
                                              failure_retryable(r, label)};
        return true;
    }
    if (is_event(rec, "CompensationCompleted")) {
        /* Its output is not recorded: the simplest value of its contract. */
        uint32_t type = a->task < r->m->task_count ? r->m->tasks[a->task].output_type : ORBC_NONE;
        *answer = (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT,
                                 .output = contract_default(r->m, r->arena, type)};
        return true;
    }
    if (!need_value(r, rec, "output"))
        return false;
    *answer = (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT, .output = record_value(r, rec, "output")};
    return true;
}

static uint32_t signal_string(Replay *r, const char *name)
{
    if (!r->strings_ready) {
        namemap_init_text(&r->strings, r->arena, r->m->string_count + 1);
        for (uint32_t i = r->m->string_count; i-- > 0;)
            json_read_map_put(&r->strings, r->arena, json_read_string(r->m, i), i);
        r->strings_ready = true;
    }
    uint32_t i;
    return json_read_map_get(&r->strings, name, &i) ? i : r->m->string_count;
}

/* The event of the world that the next record stands for; false when NEW has nothing it
 * could be (an attempt it never queued). */
static bool world_event(Replay *r, const json_t *rec, uint8_t source, EngineEvent *event)
{
    int64_t time = field_int(rec, "time_ms");
    if (source == SRC_SIGNAL) {
        if (!need_value(r, rec, "payload"))
            return false;
        const char *name = field_str(rec, "signal");
        *event = (EngineEvent){.kind = ENGINE_SIGNAL, .time_ms = time,
                               .signal = signal_string(r, name), .signal_name = name,
                               .payload = record_value(r, rec, "payload")};
        return true;
    }
    const char *label = field_str(rec, "step");
    if (is_event(rec, "CompensationCompleted"))
        label = arena_printf(r->arena, "%s%s", label, compensate_suffix);
    json_t *number = json_object_get(rec, "attempt");
    ReplayAttempt *a = json_is_integer(number) ? find_attempt(r, label, json_integer_value(number))
                                               : NULL;
    if (!a)
        return false;
    *event = (EngineEvent){.time_ms = time, .attempt = a->id, .delivery = a->delivery};
    if (source == SRC_PICKUP) {
        event->kind = ENGINE_PICKED_UP;
        event->worker_id = field_str(rec, "worker_id");
        a->picked = true;
        return true;
    }
    if (source == SRC_LOST) {
        event->kind = ENGINE_WORKER_LOST;
        return true;
    }
    event->kind = ENGINE_ANSWERED;
    return answer_of(r, rec, label, a, &event->answer);
}

/* Fires the timers due at `time` (or before: `before`), in order, until one makes NEW
 * write a record. */
static bool fire_due(Replay *r, int64_t time, bool before)
{
    for (;;) {
        const Timer *t = timers_first(&r->timers);
        if (!t || t->at > time || (before && t->at == time))
            return false;
        if (fire_first(r))
            return true;
    }
}

/* Reproduces the next record (and the rest of its event's). */
static void step(Replay *r)
{
    const json_t *rec = r->h->records[r->next];
    int64_t time = field_int(rec, "time_ms");
    size_t before = r->next;
    if (fire_due(r, time, true))
        return;
    uint8_t source = source_of(rec);
    /* A worker lost while its execution aborts is cancelled, not redelivered: the same
     * record as an attempt abandoned when nothing else can happen. */
    json_t *number = json_object_get(rec, "attempt");
    ReplayAttempt *lost = source == SRC_IDLE && json_is_integer(number)
        ? find_attempt(r, field_str(rec, "step"), json_integer_value(number)) : NULL;
    if (lost && lost->picked)
        source = SRC_LOST;
    const char *code = field_str(rec, "error");
    if (source == SRC_ANSWER && is_event(rec, "StepAttemptFailed") &&
        (strcmp(code, "TIMEOUT") == 0 || strcmp(code, "QUEUE_TIMEOUT") == 0) &&
        fire_due(r, time, false))
        return;
    if (source == SRC_TIMER) {
        if (!fire_due(r, time, false))
            what_new_does(r);
        return;
    }
    if (source == SRC_IDLE) {
        while (!r->divergence && r->next == before && timers_first(&r->timers))
            fire_first(r);
        if (!r->divergence && r->next == before)
            send_idle(r, time);
    } else {
        EngineEvent event;
        if (world_event(r, rec, source, &event))
            send(r, &event);
        else if (r->failed)
            return;
    }
    if (!r->divergence && r->next == before)
        what_new_does(r);
}

static const char *verdict(const Replay *r)
{
    if (r->divergence)
        return "diverges";
    return r->h->count && is_end(r->h->records[r->h->count - 1]) ? "finished" : "continues";
}

/* Starts NEW's engine on the history's WorkflowStarted; false with a divergence at #1
 * when NEW lacks the workflow or refuses the input. */
static bool start(Replay *r, const char *workflow)
{
    const json_t *first = r->h->records[0];
    const char *name = workflow ? workflow : field_str(first, "workflow");
    uint32_t wf = r->m->workflow_count;
    for (uint32_t i = 0; i < r->m->workflow_count; i++)
        if (strcmp(json_read_string(r->m, r->m->workflows[i].name), name) == 0)
            wf = i;
    if (wf == r->m->workflow_count) {
        diverge(r, NULL);
        return false;
    }
    if (!need_value(r, first, "input"))
        return false;
    bool show_values = json_object_get(first, "input") != NULL;
    uint32_t type = r->m->workflows[wf].input_type;
    Value input = show_values ? record_value(r, first, "input")
                              : contract_default(r->m, r->arena, type);
    Value checked = input;
    char why[512];
    if (!contract_conform(r->m, r->arena, type, input, &checked, why, sizeof why)) {
        diverge(r, NULL);
        return false;
    }
    /* A history of a disabled HTTP adapter says so in its failures. */
    bool http_adapter = true;
    for (size_t i = 0; i < r->h->count; i++)
        if (strcmp(field_str(r->h->records[i], "error"), "ADAPTER_DISABLED") == 0)
            http_adapter = false;
    EngineOptions options = {.show_values = show_values, .http_adapter = http_adapter};
    r->engine = engine_new(r->m, wf, checked, &options, r->arena);
    send(r, &(EngineEvent){.kind = ENGINE_START});
    return true;
}

json_t *replay_run(const OrbcModule *module, const ReplayHistory *h, const char *path,
                   const char *workflow, char *err, size_t errlen)
{
    Arena arena;
    arena_init(&arena);
    Replay r = {.m = module, .h = h, .path = path, .arena = &arena, .err = err, .errlen = errlen};
    err[0] = '\0';
    history_init(&r.writer, NULL, HISTORY_JSON);
    namemap_init_text(&r.attempts, &arena, 64);
    if (h->count > 0 && start(&r, workflow))
        while (!r.divergence && !r.failed && r.next < h->count)
            step(&r);
    json_t *result = NULL;
    if (!r.failed) {
        size_t compared = r.divergence ? r.next + 1 : r.next;
        result = json_pack("{s:s, s:s, s:o, s:I, s:o}", "history", path, "verdict", verdict(&r),
                           "places", replay_places(h), "records", (json_int_t)compared,
                           "divergence", r.divergence ? r.divergence : json_null());
    } else if (r.divergence) {
        json_decref(r.divergence);
    }
    engine_free(r.engine);
    timers_free(&r.timers);
    history_free(&r.writer);
    free(r.att);
    arena_free(&arena);
    return result;
}

/* ---- text ---- */

void replay_record_text(TextBuffer *out, const json_t *record)
{
    text_append_str(out, field_str(record, "event"));
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)record, key, value) {
        if (strcmp(key, "time_ms") == 0 || strcmp(key, "seq") == 0 || strcmp(key, "event") == 0)
            continue;
        if (strcmp(key, "message") == 0) {
            text_printf(out, " %s", json_string_value(value) ? json_string_value(value) : "");
            continue;
        }
        text_printf(out, " %s=", key);
        if (json_is_string(value)) {
            text_append_str(out, json_string_value(value));
            continue;
        }
        char *j = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
        text_append_str(out, j ? j : "");
        free(j);
    }
}

void replay_text(TextBuffer *out, const json_t *result)
{
    const char *verdict = json_string_value(json_object_get(result, "verdict"));
    text_printf(out, "%s: %s", json_string_value(json_object_get(result, "history")), verdict);
    const json_t *d = json_object_get(result, "divergence");
    if (json_is_object(d)) {
        const json_t *expected = json_object_get(d, "expected"), *actual = json_object_get(d, "actual");
        text_printf(out, " at #%" JSON_INTEGER_FORMAT ": expected ",
                    json_integer_value(json_object_get(d, "seq")));
        replay_record_text(out, expected);
        if (json_is_object(actual)) {
            text_append_str(out, ", NEW wrote ");
            replay_record_text(out, actual);
            int64_t te = field_int(expected, "time_ms"), ta = field_int(actual, "time_ms");
            if (te != ta)
                text_printf(out, " (at %" PRId64 "ms, not %" PRId64 "ms)", ta, te);
        } else {
            text_append_str(out, ", NEW cannot write it");
        }
    } else if (strcmp(verdict, "continues") == 0) {
        const json_t *places = json_object_get(result, "places");
        size_t n = json_array_size(places);
        text_printf(out, " (%zu place%s", n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++)
            text_printf(out, "%s%s", i ? ", " : ": ",
                        json_string_value(json_object_get(json_array_get(places, i), "id")));
        text_append_str(out, ")");
    }
    text_append_str(out, "\n");
}
