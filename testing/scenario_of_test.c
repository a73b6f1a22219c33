/* A test declaration read as its scenario's JSON (scenario_of_test.h). */
#include "scenario_of_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "memory.h"
#include "test_members.h"   /* each member's scenario key: the checker's table */

static void problem_at(TestingProblem *problem, uint32_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem_at(TestingProblem *problem, uint32_t pos, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(problem->message, sizeof problem->message, fmt, args);
    va_end(args);
    problem->pos = pos;
}

const char *testing_member_word(const Member *m)
{
    if (m->kind == MEMBER_ATTR)
        return m->name ? m->name->text : "";
    if (m->kind != MEMBER_CLAUSE)
        return "";
    if (m->keyword != KW_NONE)
        return keyword_text(m->keyword);
    return m->key ? m->key->text : "";
}

const Block *testing_member_block(const Member *m)
{
    if (m->kind == MEMBER_ERROR)
        return NULL;
    if (member_body(m))
        return member_body(m);
    const Expr *value = member_value(m);
    return value && value->kind == EXPR_OBJECT ? value->block : NULL;
}

json_t *testing_value_json(const Expr *e, TestingProblem *problem)
{
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_DURATION:
        return json_integer(e->integer);
    case EXPR_NUMBER:
        return json_real(e->number);
    case EXPR_STRING: {
        json_t *s = json_stringn(e->text, e->len);
        if (!s)
            problem_at(problem, e->span.start, "a string the scenario cannot hold");
        return s;
    }
    case EXPR_BOOL:
        return json_boolean(e->boolean);
    case EXPR_NULL:
        return json_null();
    case EXPR_UNARY:
        if (e->op == OP_NEG && (e->left->kind == EXPR_INT || e->left->kind == EXPR_DURATION))
            return json_integer(-e->left->integer);
        if (e->op == OP_NEG && e->left->kind == EXPR_NUMBER)
            return json_real(-e->left->number);
        break;
    case EXPR_LIST: {
        json_t *list = json_array();
        for (uint32_t i = 0; i < e->count; i++) {
            json_t *item = testing_value_json(e->elems[i], problem);
            if (!item) {
                json_decref(list);
                return NULL;
            }
            json_array_append_new(list, item);
        }
        return list;
    }
    case EXPR_OBJECT: {
        json_t *object = json_object();
        const Block *b = e->block;
        for (uint32_t i = 0; i < b->count; i++) {
            const Member *m = &b->members[i];
            json_t *item = m->kind == MEMBER_ATTR && member_value(m)
                ? testing_value_json(member_value(m), problem) : NULL;
            if (m->kind != MEMBER_ATTR && !item)
                problem_at(problem, m->span.start, "a record holds `name: value` fields only");
            if (!item) {
                json_decref(object);
                return NULL;
            }
            json_object_set_new(object, testing_member_word(m), item);
        }
        return object;
    }
    default:
        break;
    }
    problem_at(problem, e->span.start, "a value of a test is a literal (a number, string, "
               "duration, boolean, null, list or record)");
    return NULL;
}

/* The member `word` of `block` that the scenario holds as it is (under its own key, a
 * duration in milliseconds), or NULL. */
static const TestMember *find_key(TestBlock block, const char *word)
{
    const TestMember *m = check_test_member(block, word);
    return m && m->scenario ? m : NULL;
}

/* Sets `object[key.scenario]` to the value of attribute `m` (a duration where the key
 * says so). */
static bool put_attribute(json_t *object, const TestMember *key, const Member *m,
                          TestingProblem *problem)
{
    const Expr *value = member_value(m);
    if (m->kind != MEMBER_ATTR || !value) {
        problem_at(problem, m->span.start, "`%s` is written `%s: VALUE`", key->name, key->name);
        return false;
    }
    if (key->value == TV_DURATION && value->kind != EXPR_DURATION) {
        problem_at(problem, value->span.start, "`%s` is a duration (such as `120ms`)", key->name);
        return false;
    }
    json_t *json = testing_value_json(value, problem);
    if (!json)
        return false;
    json_object_set_new(object, key->scenario, json);
    return true;
}

/* An outcome record (an element of `attempts`) with its keys renamed. */
static json_t *outcome_json(const Expr *e, TestingProblem *problem)
{
    if (e->kind != EXPR_OBJECT) {
        problem_at(problem, e->span.start, "an outcome is a record, such as `{ succeed: {} }`");
        return NULL;
    }
    json_t *outcome = json_object();
    for (uint32_t i = 0; i < e->block->count; i++) {
        const Member *m = &e->block->members[i];
        const TestMember *key = find_key(TB_OUTCOME, testing_member_word(m));
        if (!key) {
            problem_at(problem, m->span.start, "unknown member `%s` of an outcome",
                       testing_member_word(m));
        }
        if (!key || !put_attribute(outcome, key, m, problem)) {
            json_decref(outcome);
            return NULL;
        }
    }
    return outcome;
}

static json_t *script_json(const Block *b, bool compensable, TestingProblem *problem);

/* One member of a script into `script`. */
static bool put_script_member(json_t *script, const Member *m, bool compensable,
                              TestingProblem *problem)
{
    const char *word = testing_member_word(m);
    if (compensable && m->kind == MEMBER_CLAUSE && m->keyword == KW_COMPENSATE
        && member_body(m)) {
        json_t *compensate = script_json(member_body(m), false, problem);
        if (!compensate)
            return false;
        json_object_set_new(script, "compensate", compensate);
        return true;
    }
    const TestMember *key = find_key(TB_SCRIPT, word);
    if (!key) {
        problem_at(problem, m->span.start, "unknown member `%s` of a script", word);
        return false;
    }
    if (strcmp(key->name, "attempts") != 0)
        return put_attribute(script, key, m, problem);
    const Expr *list = member_value(m);
    if (m->kind != MEMBER_ATTR || !list || list->kind != EXPR_LIST) {
        problem_at(problem, m->span.start, "`attempts` is a list of outcomes");
        return false;
    }
    json_t *attempts = json_array();
    json_object_set_new(script, "attempts", attempts);
    for (uint32_t i = 0; i < list->count; i++) {
        json_t *outcome = outcome_json(list->elems[i], problem);
        if (!outcome)
            return false;
        json_array_append_new(attempts, outcome);
    }
    return true;
}

/* A script's block: `{ attempts: […], pickup: 2s, compensate { … } }`. */
static json_t *script_json(const Block *b, bool compensable, TestingProblem *problem)
{
    json_t *script = json_object();
    for (uint32_t i = 0; i < b->count; i++) {
        if (!put_script_member(script, &b->members[i], compensable, problem)) {
            json_decref(script);
            return NULL;
        }
    }
    return script;
}

/* The object `parent[key]`, made when missing. */
static json_t *object_at(json_t *parent, const char *key)
{
    json_t *child = json_object_get(parent, key);
    if (!child) {
        child = json_object();
        json_object_set_new(parent, key, child);
    }
    return child;
}

/* `step NAME { SCRIPT }` under `steps` as `PREFIX.NAME` (PREFIX: a child workflow) or
 * `NAME`. */
static bool put_step(json_t *scenario, const char *prefix, const Member *m,
                     TestingProblem *problem)
{
    if (!m->name || !member_body(m)) {
        problem_at(problem, m->span.start, "a step's script is written `step NAME { … }`");
        return false;
    }
    json_t *script = script_json(member_body(m), true, problem);
    if (!script)
        return false;
    char *key = prefix ? NULL : xstrdup(m->name->text);
    if (prefix) {
        size_t len = strlen(prefix) + m->name->len + 2;
        key = xmalloc(len);
        snprintf(key, len, "%s.%s", prefix, m->name->text);
    }
    json_object_set_new(object_at(scenario, "steps"), key, script);
    free(key);
    return true;
}

/* `child WORKFLOW { step NAME { SCRIPT } … }`. */
static bool put_child(json_t *scenario, const Member *m, TestingProblem *problem)
{
    const Block *b = member_body(m);
    if (!m->name || !b) {
        problem_at(problem, m->span.start, "a child workflow's steps are written `child "
                   "WORKFLOW { step NAME { … } }`");
        return false;
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const Member *step = &b->members[i];
        if (step->kind != MEMBER_CLAUSE || step->keyword != KW_STEP) {
            problem_at(problem, step->span.start, "a `child` block holds `step NAME { … }` "
                       "scripts only");
            return false;
        }
        if (!put_step(scenario, m->name->text, step, problem))
            return false;
    }
    return true;
}

/* `signal "NAME" { at: DURATION, payload: VALUE }`. */
static bool put_signal(json_t *scenario, const Member *m, TestingProblem *problem)
{
    const Block *b = member_body(m);
    if (!m->name || !b) {
        problem_at(problem, m->span.start, "a signal is written `signal \"NAME\" { at: 1s }`");
        return false;
    }
    json_t *signal = json_pack("{s:s}", "name", m->name->text);
    json_t *signals = json_object_get(scenario, "signals");
    if (!signals) {
        signals = json_array();
        json_object_set_new(scenario, "signals", signals);
    }
    json_array_append_new(signals, signal);
    for (uint32_t i = 0; i < b->count; i++) {
        const Member *field = &b->members[i];
        const TestMember *key = find_key(TB_SIGNAL, testing_member_word(field));
        if (!key) {
            problem_at(problem, field->span.start, "unknown member `%s` of a signal",
                       testing_member_word(field));
            return false;
        }
        if (!put_attribute(signal, key, field, problem))
            return false;
    }
    return true;
}

/* One member of the test into the scenario; `expect` and `invariant` are the runner's. */
static bool put_test_member(json_t *scenario, const Member *m, TestingProblem *problem)
{
    const char *word = testing_member_word(m);
    if (m->kind == MEMBER_ERROR || strcmp(word, "expect") == 0
        || strcmp(word, "invariant") == 0)
        return true;   /* reported by the parser; the runner's, the invariants' */
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_WORKFLOW) {
        const Expr *name = member_value(m);
        if (!name || name->kind != EXPR_NAME) {
            problem_at(problem, m->span.start, "the workflow under test is written "
                       "`workflow NAME`");
            return false;
        }
        json_object_set_new(scenario, "workflow", json_string(name->name->text));
        return true;
    }
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_INPUT) {
        json_t *input = member_value(m) ? testing_value_json(member_value(m), problem) : NULL;
        if (!input)
            return false;
        json_object_set_new(scenario, "input", input);
        return true;
    }
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_STEP)
        return put_step(scenario, NULL, m, problem);
    if (m->kind == MEMBER_CLAUSE && m->keyword == KW_NONE) {
        if (strcmp(word, "task") == 0 && m->name && member_body(m)) {
            json_t *script = script_json(member_body(m), false, problem);
            if (script)
                json_object_set_new(object_at(scenario, "workers"), m->name->text, script);
            return script != NULL;
        }
        if (strcmp(word, "child") == 0)
            return put_child(scenario, m, problem);
        if (strcmp(word, "signal") == 0)
            return put_signal(scenario, m, problem);
    }
    const TestMember *key = find_key(TB_TEST, word);
    if (key)
        return put_attribute(scenario, key, m, problem);
    problem_at(problem, m->span.start, "unknown member `%s` of a test", word);
    return false;
}

char *testing_scenario_of_test(const Member *test, TestingProblem *problem)
{
    const Block *b = member_body(test);
    json_t *scenario = json_object();
    bool ok = b != NULL;
    if (!ok)
        problem_at(problem, test->span.start, "a test is written `test \"NAME\" { … }`");
    for (uint32_t i = 0; ok && b && i < b->count; i++)
        ok = put_test_member(scenario, &b->members[i], problem);
    if (ok && !json_object_get(scenario, "max_events"))
        json_object_set_new(scenario, "max_events", json_integer(TESTING_MAX_EVENTS));
    char *text = ok ? json_dumps(scenario, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(scenario);
    if (ok && !text)
        out_of_memory();
    return text;
}
