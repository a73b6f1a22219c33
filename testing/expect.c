/* The judge (testing_internal.h): every expectation of docs/testing.md, "What must
 * happen", over a run's history, each failure with its expected and actual values as
 * Orbit writes them, and the divergence: the history around the first event where what
 * was expected differs, with the scripted outcomes that led there. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namemap.h"
#include "orbc.h"
#include "orbc_value.h"
#include "scenario_of_test.h"
#include "textbuf.h"
#include "invariants.h"
#include "testing_internal.h"

enum {
    /* The history lines shown before and after the event of the divergence. */
    CONTEXT_BEFORE = 3,
    CONTEXT_AFTER = 2,
    /* The scripted outcomes shown: the last deliveries up to the divergence. */
    OUTCOMES_SHOWN = 6,
};

/* ---- values ---------------------------------------------------------------------------- */

static bool is_identifier(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'
              || (*s >= '0' && *s <= '9')))
            return false;
    }
    return true;
}

/* A string as an Orbit literal: the escapes \n \t \r \" \\ and \u{…} for the other
 * control characters (docs/language.md). */
static void write_string(TextBuffer *out, const char *text, size_t len)
{
    text_append_str(out, "\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            text_printf(out, "\\%c", c);
        else if (c == '\n')
            text_append_str(out, "\\n");
        else if (c == '\t')
            text_append_str(out, "\\t");
        else if (c == '\r')
            text_append_str(out, "\\r");
        else if (c < 0x20 || c == 0x7f)
            text_printf(out, "\\u{%X}", c);
        else
            text_append(out, (const char *)&text[i], 1);
    }
    text_append_str(out, "\"");
}

static void append_json_text(TextBuffer *out, const json_t *v)
{
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (text)
        text_append_str(out, text);
    free(text);
}

static void write_value(TextBuffer *out, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (json_object_size(v) == 0) {
            text_append_str(out, "{}");
            break;
        }
        text_append_str(out, "{ ");
        const char *key;
        const json_t *item;
        bool first = true;
        json_object_foreach((json_t *)v, key, item) {
            if (!first)
                text_append_str(out, ", ");
            first = false;
            if (is_identifier(key))
                text_append_str(out, key);
            else
                write_string(out, key, strlen(key));
            text_append_str(out, ": ");
            write_value(out, item);
        }
        text_append_str(out, " }");
        break;
    }
    case JSON_ARRAY: {
        text_append_str(out, "[");
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                text_append_str(out, ", ");
            write_value(out, json_array_get(v, i));
        }
        text_append_str(out, "]");
        break;
    }
    case JSON_STRING:
        write_string(out, json_string_value(v), json_string_length(v));
        break;
    case JSON_REAL: {
        char number[ORBC_NUMBER_TEXT_SIZE];
        orbc_format_number(number, json_real_value(v));
        text_append_str(out, number);
        break;
    }
    default:
        append_json_text(out, v);
        break;
    }
}

char *testing_value_text(Arena *arena, const json_t *value)
{
    if (!value)
        return "(none)";
    TextBuffer out = { 0 };
    write_value(&out, value);
    char *text = arena_strndup(arena, out.data ? out.data : "", out.len);
    text_free(&out);
    return text;
}

/* Equality of values: numbers by their value (an integer equals the same real). */
bool testing_values_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++) {
            if (!testing_values_equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        }
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *key;
        const json_t *item;
        json_object_foreach((json_t *)a, key, item) {
            const json_t *other = json_object_get(b, key);
            if (!other || !testing_values_equal(item, other))
                return false;
        }
        return true;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

/* `output_includes`: a record holds the fields of `part`, a nested record recursively. */
static bool value_includes(const json_t *whole, const json_t *part)
{
    if (!json_is_object(part))
        return whole && testing_values_equal(part, whole);
    if (!json_is_object(whole))
        return false;
    const char *key;
    const json_t *item;
    json_object_foreach((json_t *)part, key, item) {
        if (!value_includes(json_object_get(whole, key), item))
            return false;
    }
    return true;
}

/* ---- the judge's state ------------------------------------------------------------------- */

typedef struct Judge {
    Arena *arena;
    const TestCase *tc;
    const TestHistory *h;
    TestFailure *failures;
    uint32_t *positions;
    uint32_t count, cap;
    uint32_t diverged;       /* the event of the first failure (h->count: none) */
    struct StepIndex *steps; /* what happened to each step, made when first asked */
} Judge;

/* The text of an expression as Orbit writes the value, or its source-less description. */
static const char *expr_text(Judge *j, const Expr *e)
{
    TestingProblem problem;
    json_t *v = e ? testing_value_json(e, &problem) : NULL;
    if (!v)
        return e && e->kind == EXPR_NAME ? e->name->text : "(not a value)";
    const char *text = testing_value_text(j->arena, v);
    json_decref(v);
    return text;
}

static void fail(Judge *j, uint32_t pos, const char *what, const char *expected,
                 const char *actual, uint32_t event)
{
    if (j->count == j->cap) {
        uint32_t cap = j->cap ? j->cap * 2 : 4;
        TestFailure *failures = arena_alloc(j->arena, cap * sizeof *failures);
        uint32_t *positions = arena_alloc(j->arena, cap * sizeof *positions);
        if (j->count) {
            memcpy(failures, j->failures, j->count * sizeof *failures);
            memcpy(positions, j->positions, j->count * sizeof *positions);
        }
        j->failures = failures;
        j->positions = positions;
        j->cap = cap;
    }
    j->failures[j->count] = (TestFailure){ what, expected, actual ? actual : "(none)", 0, 0 };
    j->positions[j->count++] = pos;
    if (event < j->diverged)
        j->diverged = event;   /* the earliest event where a failure shows */
}

/* The event that explains how the workflow ended: its first permanent failure, else its
 * last event. */
static uint32_t ending_event(const TestHistory *h)
{
    for (uint32_t i = 0; i < h->count; i++) {
        if (strcmp(h->events[i].event, "StepFailed") == 0
            || strcmp(h->events[i].event, "WorkflowTimeoutReached") == 0)
            return i;
    }
    return h->count ? h->count - 1 : 0;
}

/* ---- each expectation ----------------------------------------------------------------- */

/* `text` as an Orbit string literal, or NULL. */
static const char *quoted(Judge *j, const char *text)
{
    if (!text)
        return NULL;
    TextBuffer out = { 0 };
    write_string(&out, text, strlen(text));
    const char *literal = arena_strndup(j->arena, out.data, out.len);
    text_free(&out);
    return literal;
}

static void expect_status(Judge *j, uint32_t pos, const char *expected)
{
    if (strcmp(expected, j->h->status) != 0)
        fail(j, pos, "status", expected, j->h->status, ending_event(j->h));
}

static void add_event(StepFacts *f, const TestEvent *e, bool own, uint32_t i)
{
    f->last_event = i;
    if (strcmp(e->event, "StepScheduled") == 0) {
        f->attempts++;
        if (strcmp(f->status, "not_reached") == 0)
            f->status = "running";
    } else if (own && strcmp(e->event, "StepCompleted") == 0) {
        f->status = "completed";
    } else if (strcmp(e->event, "StepFailed") == 0 && strcmp(f->status, "failed") != 0) {
        f->status = "failed";   /* the step, or the first of its `for` elements */
        f->error = e->error;
    } else if (own && strcmp(e->event, "StepSkipped") == 0) {
        f->status = "skipped";
    } else if (own && strcmp(e->event, "StepCancelled") == 0) {
        f->status = "cancelled";
    } else if (own && strcmp(e->event, "CompensationStarted") == 0) {
        f->compensated = true;
    } else if (own && strcmp(e->event, "CompensationCompleted") == 0) {
        f->compensation = "completed";
    } else if (own && strcmp(e->event, "CompensationFailed") == 0) {
        f->compensation = "failed";
    } else if (strcmp(f->status, "not_reached") == 0 && strncmp(e->event, "Compensation", 12) != 0) {
        f->status = "running";
    }
}

void testing_step_index(Arena *arena, const TestHistory *h, StepIndex *index)
{
    namemap_init_text(&index->map, arena, 16);
    index->facts = arena_alloc(arena, (h->count + 1) * sizeof *index->facts);
    index->count = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        const TestEvent *e = &h->events[i];
        if (!e->step || strpbrk(e->step, "/."))
            continue;
        size_t len = strcspn(e->step, "[");
        const char *name = e->step[len] ? arena_strndup(arena, e->step, len) : e->step;
        uint32_t hash = orbc_hash(name, len), at;
        if (!namemap_get(&index->map, name, hash, &at)) {
            at = index->count++;
            index->facts[at] = (StepFacts){ "not_reached", 0, NULL, false, NULL, h->count };
            namemap_put(&index->map, arena, name, hash, at);
        }
        add_event(&index->facts[at], e, e->step[len] == '\0', i);
    }
}

StepFacts testing_step_facts(Arena *arena, const TestHistory *h, StepIndex *index,
                             const char *name)
{
    if (!index->facts)
        testing_step_index(arena, h, index);
    uint32_t at;
    if (namemap_get(&index->map, name, orbc_hash(name, strlen(name)), &at))
        return index->facts[at];
    return (StepFacts){ "not_reached", 0, NULL, false, NULL, h->count };
}

static void expect_step(Judge *j, StepIndex *index, const Member *m)
{
    const Block *b = testing_member_block(m);
    if (!m->name || !b)
        return;
    const char *name = m->name->text;
    StepFacts f = testing_step_facts(j->arena, j->h, index, name);
    uint32_t at = f.last_event < j->h->count ? f.last_event : ending_event(j->h);
    for (uint32_t i = 0; i < b->count; i++) {
        const Member *field = &b->members[i];
        const char *word = testing_member_word(field);
        const Expr *v = member_value(field);
        if (field->kind != MEMBER_ATTR || !v)
            continue;
        const char *what = arena_printf(j->arena, "step %s: %s", name, word);
        const char *expected = expr_text(j, v);
        const char *actual = NULL;
        if (strcmp(word, "status") == 0)
            actual = f.status;
        else if (strcmp(word, "attempts") == 0)
            actual = arena_printf(j->arena, "%u", f.attempts);
        else if (strcmp(word, "error") == 0)
            actual = quoted(j, f.error);
        else if (strcmp(word, "compensated") == 0)
            actual = f.compensated ? "true" : "false";
        else if (strcmp(word, "compensation") == 0)
            actual = f.compensation;
        else
            continue;   /* the checker's to report */
        if (!actual || strcmp(expected, actual) != 0)
            fail(j, field->span.start, what, expected, actual, at);
    }
}

/* Whether the time of an entry, `time` (`len` bytes: "120000ms", "2m"), is `ms`: as the
 * history writes it, in milliseconds, or as a duration in its largest exact units, as
 * Orbit writes durations (liborbc's orbc_format_duration). */
static bool time_matches(const char *time, size_t len, int64_t ms)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    size_t n = orbc_format_duration(text, ms);
    if (n == len && memcmp(text, time, len) == 0)
        return true;
    n = (size_t)snprintf(text, sizeof text, "%lldms", (long long)ms);
    return n == len && memcmp(text, time, len) == 0;
}

/* Whether event `e` matches the entry of `events: […]`: its line without time and
 * number starts with the entry, up to a space; an entry that starts with a time
 * (`+ 500ms …`, `+ 2m …`) matches the time too. */
static bool event_matches(const TestEvent *e, const char *entry)
{
    if (entry[0] == '+' && entry[1] == ' ') {
        const char *time = entry + 2;
        size_t len = strcspn(time, " ");
        if (time[len] != ' ' || !time_matches(time, len, e->time_ms))
            return false;
        entry = time + len + 1;
    }
    size_t len = strlen(entry);
    return strncmp(e->body, entry, len) == 0 && (e->body[len] == '\0' || e->body[len] == ' ');
}

/* The event name an entry names ("StepFailed" of "+ 10ms StepFailed step=x"). */
static size_t entry_event(const char *entry, const char **start)
{
    if (entry[0] == '+' && entry[1] == ' ') {
        const char *space = strchr(entry + 2, ' ');
        entry = space ? space + 1 : entry + strlen(entry);
    }
    *start = entry;
    return strcspn(entry, " ");
}

static void expect_events(Judge *j, const Member *m)
{
    const Expr *list = member_value(m);
    if (!list || list->kind != EXPR_LIST)
        return;
    uint32_t next = 0;   /* the first event the next entry may match */
    for (uint32_t k = 0; k < list->count; k++) {
        const Expr *entry = list->elems[k];
        if (entry->kind != EXPR_STRING)
            continue;
        uint32_t i = next;
        while (i < j->h->count && !event_matches(&j->h->events[i], entry->text))
            i++;
        if (i < j->h->count) {
            next = i + 1;
            continue;
        }
        /* not found: the nearest event of the same kind after the last match */
        const char *name;
        size_t len = entry_event(entry->text, &name);
        uint32_t near = j->h->count;
        for (uint32_t c = next; c < j->h->count && near == j->h->count; c++) {
            const char *body = j->h->events[c].body;
            if (strncmp(body, name, len) == 0 && (body[len] == ' ' || body[len] == '\0'))
                near = c;
        }
        const char *actual = near < j->h->count ? quoted(j, j->h->events[near].line) : NULL;
        fail(j, entry->span.start, arena_printf(j->arena, "events[%u]", k),
             quoted(j, entry->text), actual, near < j->h->count ? near : next);
        return;   /* later entries are judged from a guess: one failure says it */
    }
}

static void expect_member(Judge *j, const Member *m)
{
    const char *word = testing_member_word(m);
    const Expr *v = member_value(m);
    const TestHistory *h = j->h;
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_STEP) {
        expect_step(j, j->steps, m);
        return;
    }
    if (m->kind != MEMBER_ATTR || !v)
        return;
    if (strcmp(word, "status") == 0) {
        expect_status(j, m->span.start, expr_text(j, v));
    } else if (strcmp(word, "error") == 0) {
        const char *expected = expr_text(j, v);
        const char *actual = quoted(j, h->error);
        if (!actual || strcmp(expected, actual) != 0)
            fail(j, m->span.start, "error", expected, actual, ending_event(h));
    } else if (strcmp(word, "output") == 0 || strcmp(word, "output_includes") == 0) {
        TestingProblem problem;
        json_t *expected = testing_value_json(v, &problem);
        bool whole = strcmp(word, "output") == 0;
        bool holds = expected && h->output
            && (whole ? testing_values_equal(expected, h->output) : value_includes(h->output, expected));
        if (!holds)
            fail(j, m->span.start, whole ? "output" : "output_includes",
                 testing_value_text(j->arena, expected),
                 h->output ? testing_value_text(j->arena, h->output) : NULL,
                 h->count ? h->count - 1 : 0);
        json_decref(expected);
    } else if (strcmp(word, "events") == 0) {
        expect_events(j, m);
    }
}

/* ---- the divergence ------------------------------------------------------------------- */

/* The test's member `word NAME { … }` (`step charge`, `task "payments.charge"`, `child
 * pack_items`) in `b`, or NULL. */
static const Member *find_named(const Block *b, Keyword kw, const char *word, const char *name)
{
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        if (m->kind == MEMBER_CLAUSE && m->keyword == kw && m->name
            && (kw != KW_NONE || strcmp(testing_member_word(m), word) == 0)
            && strcmp(m->name->text, name) == 0)
            return m;
    }
    return NULL;
}

/* The `attempts` list of a script block, or NULL. */
static const Expr *script_attempts(const Block *b)
{
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        if (m->kind == MEMBER_ATTR && strcmp(testing_member_word(m), "attempts") == 0
            && member_value(m) && member_value(m)->kind == EXPR_LIST)
            return member_value(m);
    }
    return NULL;
}

static const Block *compensate_block(const Block *b)
{
    for (uint32_t i = 0; b && i < b->count; i++) {
        if (b->members[i].kind == MEMBER_CLAUSE && b->members[i].keyword == KW_COMPENSATE)
            return member_body(&b->members[i]);
    }
    return NULL;
}

static const Workflow *find_workflow(const Program *p, const char *name)
{
    for (uint32_t i = 0; name && i < p->workflow_count; i++) {
        if (strcmp(p->workflows[i].name->text, name) == 0)
            return &p->workflows[i];
    }
    return NULL;
}

static const Step *find_step(const Workflow *w, const char *name)
{
    for (uint32_t i = 0; w && i < w->step_count; i++) {
        if (strcmp(w->steps[i].name->text, name) == 0)
            return &w->steps[i];
    }
    return NULL;
}

/* Where the outcomes of one delivery come from: a list of the test and how many of its
 * outcomes were handed out. The runtime's rule (docs/runtime.md, "A script"): the step's
 * own `attempts` when it has them, else its task's; a task's list is shared by every
 * step that uses it. */
typedef struct Source {
    const Expr *list;       /* the `attempts` list, or NULL: the default outcome */
    const char *where;      /* `task "payments.charge"`, `step charge` */
    uint32_t used;
} Source;

typedef struct Sources {
    Source *items;
    uint32_t count, cap;
} Sources;

static Source *source_of(Judge *j, Sources *s, const Expr *list, const char *where)
{
    for (uint32_t i = 0; i < s->count; i++) {
        if (s->items[i].list == list && strcmp(s->items[i].where, where) == 0)
            return &s->items[i];
    }
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        Source *items = arena_alloc(j->arena, s->cap * sizeof *items);
        if (s->count)
            memcpy(items, s->items, s->count * sizeof *items);
        s->items = items;
    }
    s->items[s->count] = (Source){ list, where, 0 };
    return &s->items[s->count++];
}

/* An outcome record in words: "fail CARD_DECLINED", "succeed", "status 503". */
static const char *outcome_words(Judge *j, const Expr *outcome)
{
    if (outcome->kind != EXPR_OBJECT)
        return "(not an outcome)";
    for (uint32_t i = 0; i < outcome->block->count; i++) {
        const Member *m = &outcome->block->members[i];
        const char *word = testing_member_word(m);
        const Expr *v = member_value(m);
        if (!v || strcmp(word, "after") == 0 || strcmp(word, "pickup") == 0
            || strcmp(word, "times") == 0 || strcmp(word, "body") == 0
            || strcmp(word, "headers") == 0)
            continue;
        if (strcmp(word, "fail") == 0 && v->kind == EXPR_OBJECT) {
            for (uint32_t f = 0; f < v->block->count; f++) {
                const Member *code = &v->block->members[f];
                if (strcmp(testing_member_word(code), "code") == 0 && member_value(code)
                    && member_value(code)->kind == EXPR_STRING)
                    return arena_printf(j->arena, "fail %s", member_value(code)->text);
            }
        }
        if (strcmp(word, "succeed") == 0 || strcmp(word, "never_answers") == 0
            || strcmp(word, "fail") == 0)
            return word;
        return arena_printf(j->arena, "%s %s", word, expr_text(j, v));
    }
    return "(no outcome)";
}

/* How many deliveries an outcome stands for (`times`, default 1). */
static int64_t outcome_times(const Expr *outcome)
{
    if (outcome->kind != EXPR_OBJECT)
        return 1;
    for (uint32_t i = 0; i < outcome->block->count; i++) {
        const Member *m = &outcome->block->members[i];
        if (strcmp(testing_member_word(m), "times") == 0 && member_value(m)
            && member_value(m)->kind == EXPR_INT)
            return member_value(m)->integer > 0 ? member_value(m)->integer : 1;
    }
    return 1;
}

/* The script a delivery of `label` takes its outcome from. `children`: the label of each
 * workflow step seen so far -> the index of its ChildWorkflowStarted event. */
static Source *delivery_source(Judge *j, Sources *s, const char *label, const NameMap *children)
{
    const Block *test = member_body(j->tc->test);
    const char *slash = strrchr(label, '/');
    const char *leaf = slash ? slash + 1 : label;
    size_t leaf_len = strcspn(leaf, "[.");
    char *step_name = arena_strndup(j->arena, leaf, leaf_len);
    bool compensation = strstr(leaf, ".compensate") != NULL;
    const Workflow *workflow = j->tc->workflow;
    const char *child = NULL;
    if (slash) {
        /* the child workflow the parent label started */
        size_t parent_len = (size_t)(slash - label);
        char *parent = arena_strndup(j->arena, label, parent_len);
        uint32_t started;
        if (namemap_get(children, parent, orbc_hash(parent, parent_len), &started))
            child = j->h->events[started].workflow;
        workflow = find_workflow(j->tc->program, child);
    }
    const Block *step_script = NULL;
    if (child) {
        const Member *c = find_named(test, KW_NONE, "child", child);
        const Member *m = c ? find_named(member_body(c), KW_STEP, NULL, step_name) : NULL;
        step_script = m ? member_body(m) : NULL;
    } else if (!slash) {
        const Member *m = find_named(test, KW_STEP, NULL, step_name);
        step_script = m ? member_body(m) : NULL;
    }
    if (compensation)
        step_script = compensate_block(step_script);
    const char *step_where = child
        ? arena_printf(j->arena, "child %s step %s%s", child, step_name,
                       compensation ? " compensate" : "")
        : arena_printf(j->arena, "step %s%s", step_name, compensation ? " compensate" : "");
    if (script_attempts(step_script))
        return source_of(j, s, script_attempts(step_script), step_where);
    const Step *step = find_step(workflow, step_name);
    const Name *task = step ? (compensation ? (step->compensate ? step->compensate->target_name
                                                                : NULL)
                                            : step->target_name)
                            : NULL;
    if (task) {
        const Member *t = find_named(test, KW_NONE, "task", task->text);
        const Expr *list = t ? script_attempts(member_body(t)) : NULL;
        if (list)
            return source_of(j, s, list, arena_printf(j->arena, "task \"%s\"", task->text));
    }
    return source_of(j, s, NULL, step_where);
}

/* The outcome a delivery of `src` takes, in words; counts it. */
static const char *next_outcome(Judge *j, Source *src)
{
    if (!src->list)
        return "the default outcome (no script)";
    uint64_t n = src->used++;
    for (uint32_t k = 0; k < src->list->count; k++) {
        const Expr *outcome = src->list->elems[k];
        uint64_t times = (uint64_t)outcome_times(outcome);
        if (n < times)
            return arena_printf(j->arena, "scripted %s (%s, attempts[%u])",
                                outcome_words(j, outcome), src->where, k);
        n -= times;
    }
    return arena_printf(j->arena, "the default outcome (%s: its attempts are used up)",
                        src->where);
}

/* The scripted outcomes of the deliveries up to event `upto`, the last OUTCOMES_SHOWN.
 * An attempt the runtime fails before any worker sees it (an invalid HTTP request, the
 * adapter disabled: StepAttemptFailed without StepDispatched) takes no outcome. */
static void write_outcomes(Judge *j, TextBuffer *out, uint32_t upto)
{
    Sources sources = { 0 };
    NameMap children, pending;   /* label -> its ChildWorkflowStarted; its delivery + 1 */
    namemap_init_text(&children, j->arena, 8);
    namemap_init_text(&pending, j->arena, 8);
    const char **lines = arena_alloc(j->arena, (upto + 2) * sizeof *lines);
    Source **from = arena_alloc(j->arena, (upto + 2) * sizeof *from);
    uint32_t shown = 0;
    for (uint32_t i = 0; i <= upto && i < j->h->count; i++) {
        const TestEvent *e = &j->h->events[i];
        if (!e->step)
            continue;
        uint32_t hash = orbc_hash(e->step, strlen(e->step)), at;
        if (strcmp(e->event, "ChildWorkflowStarted") == 0)
            namemap_put(&children, j->arena, e->step, hash, i);
        if (strcmp(e->event, "StepDispatched") == 0)
            namemap_put(&pending, j->arena, e->step, hash, 0);
        if (strcmp(e->event, "StepAttemptFailed") == 0
            && namemap_get(&pending, e->step, hash, &at) && at > 0 && e->error
            && (strcmp(e->error, "HTTP_ERROR") == 0 || strcmp(e->error, "ADAPTER_DISABLED") == 0)) {
            if (from[at - 1]->list)
                from[at - 1]->used--;
            lines[at - 1] = arena_printf(j->arena, "attempt %" PRId64 " of %s: no outcome (the "
                                         "runtime failed it before any worker: %s)",
                                         e->attempt, e->step, e->error);
            namemap_put(&pending, j->arena, e->step, hash, 0);
        }
        bool scheduled = strcmp(e->event, "StepScheduled") == 0;
        if (!scheduled && strcmp(e->event, "StepRedelivered") != 0)
            continue;
        from[shown] = delivery_source(j, &sources, e->step, &children);
        lines[shown] = arena_printf(j->arena, "%sattempt %" PRId64 " of %s: %s",
                                    scheduled ? "" : "redelivery of ", e->attempt, e->step,
                                    next_outcome(j, from[shown]));
        namemap_put(&pending, j->arena, e->step, hash, ++shown);
    }
    if (shown == 0)
        return;
    text_append_str(out, "scripted outcomes that led there:\n");
    for (uint32_t k = shown > OUTCOMES_SHOWN ? shown - OUTCOMES_SHOWN : 0; k < shown; k++)
        text_printf(out, "  %s\n", lines[k]);
}

static const char *divergence(Judge *j)
{
    const TestHistory *h = j->h;
    if (h->count == 0)
        return NULL;
    uint32_t at = j->diverged < h->count ? j->diverged : h->count - 1;
    uint32_t from = at > CONTEXT_BEFORE ? at - CONTEXT_BEFORE : 0;
    uint32_t to = at + CONTEXT_AFTER < h->count ? at + CONTEXT_AFTER : h->count - 1;
    TextBuffer out = { 0 };
    text_printf(&out, "history around the divergence (event %u of %u):\n", at + 1, h->count);
    if (from > 0)
        text_append_str(&out, "  …\n");
    for (uint32_t i = from; i <= to; i++)
        text_printf(&out, "%s %s\n", i == at ? ">" : " ", h->events[i].line);
    if (to + 1 < h->count)
        text_append_str(&out, "  …\n");
    write_outcomes(j, &out, at);
    const char *text = arena_strndup(j->arena, out.data, out.len);
    text_free(&out);
    return text;
}

/* ---- the judge ----------------------------------------------------------------------- */

void testing_judge(Arena *arena, const TestCase *tc, const TestHistory *h, TestResult *r,
                   uint32_t **positions)
{
    StepIndex steps = { 0 };
    Judge j = { .arena = arena, .tc = tc, .h = h, .diverged = h->count, .steps = &steps };
    const Block *test = member_body(tc->test);
    /* Without `status`, a test expects `completed`: judged first, at its `expect` (or
       its `test`), so that the failures stay in source order. */
    bool status_given = false;
    uint32_t expect_pos = tc->test->span.start;
    for (uint32_t i = 0; test && i < test->count; i++) {
        const Member *m = &test->members[i];
        const Block *b = strcmp(testing_member_word(m), "expect") == 0
            ? testing_member_block(m) : NULL;
        if (b && expect_pos == tc->test->span.start)
            expect_pos = m->span.start;
        for (uint32_t k = 0; b && k < b->count; k++)
            status_given |= b->members[k].kind == MEMBER_ATTR
                && strcmp(testing_member_word(&b->members[k]), "status") == 0;
    }
    if (!status_given)
        expect_status(&j, expect_pos, "completed");
    for (uint32_t i = 0; test && i < test->count; i++) {
        const Member *m = &test->members[i];
        if (strcmp(testing_member_word(m), "expect") != 0)
            continue;
        const Block *b = testing_member_block(m);
        for (uint32_t k = 0; b && k < b->count; k++)
            expect_member(&j, &b->members[k]);
    }
    InvariantRun run = { tc->module, tc->workflow_index, tc->test, tc->module != NULL,
                         testing_expects_blocked(tc->test) };
    InvariantBreak broken;
    if (testing_invariants_check(arena, &run, h, &broken)) {
        uint32_t at = broken.event < h->count ? broken.event : ending_event(h);
        fail(&j, broken.member ? broken.member->span.start : tc->test->span.start,
             arena_printf(arena, "invariant \"%s\"", broken.name), "holds", broken.detail, at);
    }
    r->failures = j.failures;
    r->failure_count = j.count;
    *positions = j.positions;
    r->status = j.count ? TEST_FAILED : TEST_PASSED;
    r->divergence = j.count ? divergence(&j) : NULL;
}
