/* The playground's API (docs/playground.md): the toolchain as functions from text to
 * JSON, for the page, compiled to WebAssembly by tools/playground.sh (and natively for
 * its differential test, tests/playground/test_wasm.py). Each text argument is a pointer and a
 * length in bytes (UTF-8): every byte counts, a NUL too, as when orbitc reads a file, and
 * nothing needs a terminating NUL. Each function returns a malloc'd NUL-terminated
 * string that the caller frees with orbit_pg_free: JSON, which holds no NUL byte (a NUL
 * of a text is written \u0000), so the NUL ends it. Nothing here reads or writes a file:
 * sources come from memory, and what the command line would print goes to a memory
 * stream, through the very functions the command line and orbit-run call (the
 * workspace's pipeline, the formatter, the rounds of fix, lowering, liborbc's
 * disassembler, the runtime's run).
 *
 *   orbit_pg_check(source, name)   `orbitc check --format json NAME`: JSON Lines (NULL
 *                                  when the name holds a NUL: no file can be so named)
 *   orbit_pg_format(source)        {"ok": true, "text"} as `orbitc fmt -`, or
 *                                  {"ok": false, "message"}
 *   orbit_pg_fix(source)           {"text", "fixed"} as `orbitc fix -`
 *   orbit_pg_build(source)         {"ok", "bytecode": base64} as `orbitc build`
 *   orbit_pg_dis(source)           {"ok", "text"} as `orbitc dis` of the build
 *   orbit_pg_run(source, scenario) {"ok", "exit", "logs", "history", "message"} as
 *                                  `orbit-run --scenario` (text, and --format json)
 *   orbit_pg_tokens(source)        [[start, end, "KIND"], ...] in UTF-16 units
 *   orbit_pg_scenario(source)      a scenario where every worker answers soon and every
 *                                  signal arrives; {} when the program does not build;
 *                                  {"ok": false, "message"} when no scenario can hold
 *                                  its values (deeper than orbit-run reads JSON)
 *   orbit_pg_graph(source, workflow, format)
 *                                  {"ok": true, "text"} as `orbitc graph --format FORMAT
 *                                  [--workflow WORKFLOW]`, or {"ok": false, "message"}
 *
 * (Each argument above is two: the text and its length.) The name of the source, where
 * one is not given (length 0), is `playground.orbit`. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "diag.h"
#include "json_text.h"
#include "fix_rounds.h"
#include "format.h"
#include "graph_write.h"
#include "lower.h"
#include "memory.h"
#include "no_index.h"
#include "orbc.h"
#include "run_scenario.h"
#include "token_walk.h"
#include "workspace.h"

#include "api.h"

enum {
    /* The latency of a worker's answer in the scenario orbit_pg_scenario proposes, and
     * when the signals its workflow awaits arrive. */
    PROPOSED_ANSWER_MS = 100,
    PROPOSED_SIGNAL_MS = 1000,
};

static const char DEFAULT_NAME[] = "playground.orbit";
static const char SCENARIO_NAME[] = "scenario.json";

/* One text argument: `len` bytes at `text` (NULL when len is 0 is allowed). */
typedef struct Text {
    const char *text;
    size_t len;
} Text;

static Text text_of(const char *text, size_t len)
{
    return (Text){ text && len ? text : "", text ? len : 0 };
}

/* A malloc'd NUL-terminated copy of `t` (a NUL inside stays: use t.len, not strlen). */
static char *text_copy(Text t)
{
    return xstrndup(t.text, t.len);
}

/* Whether `t` holds a NUL byte: then it cannot be a name (of a file, a workflow, a
 * format), which the toolchain keeps as NUL-terminated strings. */
static bool has_nul(Text t)
{
    return memchr(t.text, '\0', t.len) != NULL;
}

/* --- JSON out --- */

/* The text of `value` (which it takes), compact, keys in insertion order. */
static char *answer_text(json_t *value)
{
    if (!value)
        out_of_memory();
    char *text = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    json_decref(value);
    if (!text)
        out_of_memory();
    return text;
}

/* --- memory streams: what the command line writes to a FILE --- */

typedef struct Captured {
    FILE *out;
    char *text;
    size_t len;
} Captured;

static void capture_begin(Captured *c)
{
    c->text = NULL;
    c->len = 0;
    c->out = open_memstream(&c->text, &c->len);
    if (!c->out)
        out_of_memory();
}

/* The text written, malloc'd and NUL-terminated, and its length in *len (it may hold a
 * NUL: a name in the program can); len may be NULL. */
static char *capture_end(Captured *c, size_t *len)
{
    if (fclose(c->out) != 0)
        out_of_memory();
    if (len)
        *len = c->len;
    return c->text;
}

/* --- one program of one source, through the workspace --- */

typedef struct Run {
    Compiler c;
    Workspace w;
} Run;

/* Loads `source` under `name` and checks it, as `orbitc check NAME` does a file below no
 * program root: the file is a program of its own (no file system is asked for roots). */
static void run_check(Run *run, Text source, const char *name, bool check_only)
{
    compiler_init(&run->c);
    workspace_init(&run->w, &run->c, false);
    run->w.check.check_only = check_only;
    workspace_add_text(&run->w, name, text_copy(source), source.len);
    workspace_check(&run->w);
}

static void run_free(Run *run)
{
    workspace_free(&run->w);
    compiler_free(&run->c);
}

/* The bytecode of `source`, as `orbitc build` writes it; NULL with *message (malloc'd)
 * when it does not build. */
static uint8_t *build_bytes(Text source, size_t *len, char **message)
{
    Run run;
    run_check(&run, source, DEFAULT_NAME, false);
    uint8_t *bytes = NULL;
    char why[256] = "";
    Program *program = run.w.roots.count ? run.w.checked[0] : NULL;
    if (run.c.diags.errors == 0 && program)
        lower_program(&run.c, program, &bytes, len, why, sizeof why);
    if (!bytes) {
        diag_finish(&run.c.diags);   /* lowering may have reported E0601 */
        size_t errors = run.c.diags.errors;
        char text[320];
        if (why[0])
            snprintf(text, sizeof text, "%s", why);
        else
            snprintf(text, sizeof text, "the program does not build: %zu %s (see the diagnostics)",
                     errors, errors == 1 ? "error" : "errors");
        *message = xstrdup(text);
    }
    run_free(&run);
    return bytes;
}

/* The module of `source`, built and loaded as orbit-run loads a file; false with
 * *message (malloc'd). */
static bool build_module(Text source, OrbcModule *module, char **message)
{
    size_t len;
    uint8_t *bytes = build_bytes(source, &len, message);
    if (!bytes)
        return false;
    OrbcError err;
    bool ok = orbc_load(bytes, len, module, &err);
    free(bytes);
    if (!ok)
        *message = xstrdup(err.text);
    return ok;
}

static char *failure(char *message)
{
    json_t *result = json_pack("{s:b, s:o}", "ok", 0, "message", diag_json_text0(message));
    free(message);
    return answer_text(result);
}

/* --- the API --- */

char *orbit_pg_check(const char *source, size_t source_len, const char *name,
                                     size_t name_len)
{
    Text given = text_of(name, name_len);
    if (has_nul(given))
        return NULL;
    char *file = given.len ? text_copy(given) : xstrdup(DEFAULT_NAME);
    Run run;
    run_check(&run, text_of(source, source_len), file, true);
    free(file);
    Captured out;
    capture_begin(&out);
    RenderOptions render = { .summary = true };
    render_json(out.out, &run.c.diags, &run.c.sources, &render);
    run_free(&run);
    return capture_end(&out, NULL);   /* JSON Lines: a NUL is written \u0000 */
}

char *orbit_pg_format(const char *source, size_t source_len)
{
    Text given = text_of(source, source_len);
    FormatText text = { 0 };
    if (!format_text(DEFAULT_NAME, given.text, given.len, &text))
        return failure(xstrdup("the source has lexical or syntax errors: it is formatted once "
                               "they are fixed (see the diagnostics)"));
    json_t *result = json_pack("{s:b, s:o}", "ok", 1, "text", diag_json_text(text.text, text.len));
    format_text_free(&text);
    return answer_text(result);
}

char *orbit_pg_fix(const char *source, size_t source_len)
{
    Run run;
    run_check(&run, text_of(source, source_len), DEFAULT_NAME, false);
    FixRun fix;
    rounds_init(&fix, &run.w, NULL, FIX_MAX_ROUNDS);
    Compiler *last = rounds_run(&fix);
    const FixFile *file = &fix.files[0];
    json_t *result = json_pack("{s:o, s:I}", "text", diag_json_text(file->text, file->len),
                               "fixed", (json_int_t)file->fixed);
    if (last != fix.first)
        rounds_free_check(last);
    rounds_free(&fix);
    run_free(&run);
    return answer_text(result);
}

/* RFC 4648 base64, with padding. */
static json_t *base64(const uint8_t *bytes, size_t len)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t out_len = (len + 2) / 3 * 4;
    char *out = xmalloc(out_len + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t n = (uint32_t)bytes[i] << 16;
        if (i + 1 < len)
            n |= (uint32_t)bytes[i + 1] << 8;
        if (i + 2 < len)
            n |= bytes[i + 2];
        out[o++] = digits[n >> 18 & 63];
        out[o++] = digits[n >> 12 & 63];
        out[o++] = i + 1 < len ? digits[n >> 6 & 63] : '=';
        out[o++] = i + 2 < len ? digits[n & 63] : '=';
    }
    json_t *s = diag_json_text(out, out_len);
    free(out);
    return s;
}

char *orbit_pg_build(const char *source, size_t source_len)
{
    size_t len;
    char *message;
    uint8_t *bytes = build_bytes(text_of(source, source_len), &len, &message);
    if (!bytes)
        return failure(message);
    json_t *result = json_pack("{s:b, s:o}", "ok", 1, "bytecode", base64(bytes, len));
    free(bytes);
    return answer_text(result);
}

char *orbit_pg_dis(const char *source, size_t source_len)
{
    OrbcModule module;
    char *message;
    if (!build_module(text_of(source, source_len), &module, &message))
        return failure(message);
    Captured out;
    capture_begin(&out);
    orbc_disassemble(&module, out.out);
    orbc_module_free(&module);
    size_t len;
    char *text = capture_end(&out, &len);
    json_t *result = json_pack("{s:b, s:o}", "ok", 1, "text", diag_json_text(text, len));
    free(text);
    return answer_text(result);
}

/* The history of one run in `format` (*len bytes); *status gets orbit-run's exit
 * status. */
static char *run_history(const OrbcModule *module, Text scenario, HistoryFormat format,
                         int *status, size_t *len, char *err, size_t errlen)
{
    RunRequest request = { .scenario_name = SCENARIO_NAME, .scenario = scenario.text,
                           .scenario_len = scenario.len, .format = format };
    Captured out;
    capture_begin(&out);
    *status = run_scenario(module, &request, out.out, err, errlen);
    return capture_end(&out, len);
}

/* The JSON Lines of a history (`len` bytes) as an array of its events. */
static json_t *history_events(const char *lines, size_t len)
{
    json_t *events = json_array();
    for (const char *line = lines, *end = lines + len; line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        size_t line_len = (size_t)((newline ? newline : end) - line);
        json_t *event = json_loadb(line, line_len, 0, NULL);
        if (event)
            json_array_append_new(events, event);
        line += line_len + (newline != NULL);
    }
    return events;
}

char *orbit_pg_run(const char *source, size_t source_len, const char *scenario,
                                   size_t scenario_len)
{
    OrbcModule module;
    char *message;
    if (!build_module(text_of(source, source_len), &module, &message))
        return failure(message);
    Text script = text_of(scenario, scenario_len);
    char err[2048];
    int status;
    size_t logs_len, lines_len;
    char *logs = run_history(&module, script, HISTORY_TEXT, &status, &logs_len, err, sizeof err);
    json_t *result;
    if (status == 2) {
        result = json_pack("{s:b, s:i, s:o}", "ok", 0, "exit", status, "message",
                           diag_json_text0(err));
    } else {
        char *lines = run_history(&module, script, HISTORY_JSON, &status, &lines_len, err,
                                  sizeof err);
        result = json_pack("{s:b, s:i, s:o, s:o}", "ok", 1, "exit", status, "logs",
                           diag_json_text(logs, logs_len), "history",
                           history_events(lines, lines_len));
        free(lines);
    }
    free(logs);
    orbc_module_free(&module);
    return answer_text(result);
}

/* The tokens of the lexer as [start, end, kind], in UTF-16 units of the source. */
typedef struct TokenList {
    json_t *tokens;
    const char *text;
    uint32_t at_byte, at_unit;     /* the last position converted */
} TokenList;

/* The UTF-16 offset of byte `byte` (not before the last one asked). */
static uint32_t utf16_at(TokenList *list, uint32_t byte)
{
    for (; list->at_byte < byte; list->at_byte++) {
        unsigned char b = (unsigned char)list->text[list->at_byte];
        if ((b & 0xC0) != 0x80)
            list->at_unit += b >= 0xF0 ? 2 : 1;   /* a 4-byte sequence is a surrogate pair */
    }
    return list->at_unit;
}

static void add_token(void *context, uint32_t start, uint32_t end, const char *kind)
{
    TokenList *list = context;
    json_int_t from = utf16_at(list, start), to = utf16_at(list, end);
    json_array_append_new(list->tokens, json_pack("[I, I, s]", from, to, kind ? kind : "?"));
}

char *orbit_pg_tokens(const char *source, size_t source_len)
{
    Compiler c;
    compiler_init(&c);
    Text given = text_of(source, source_len);
    TokenList list = { json_array(), NULL, 0, 0 };
    if (compiler_fits(&c, given.len)) {
        uint32_t file = compiler_add_source(&c, DEFAULT_NAME, text_copy(given), (uint32_t)given.len);
        list.text = source_file(&c.sources, file)->text;
        token_walk(&c, file, add_token, &list);
    }
    compiler_free(&c);
    return answer_text(list.tokens);
}

/* The value of type `type` that contract_default makes, as jansson's, and how many
 * levels it nests (*depth); NULL when it nests deeper than jansson reads, which is how
 * deep orbit-run reads a scenario. */
static json_t *default_value(const OrbcModule *module, Arena *arena, uint32_t type,
                             uint32_t *depth)
{
    Value v = contract_default(module, arena, type);
    *depth = value_depth(v);
    TextBuffer text = { 0 };
    value_to_json(&text, v);
    json_t *value = json_loadb(text.data, text.len, JSON_DECODE_ANY, NULL);
    text_free(&text);
    return value;
}

/* Each signal `wf` awaits, once, arriving at PROPOSED_SIGNAL_MS without a payload. */
static json_t *proposed_signals(const OrbcModule *module, const OrbcWorkflow *wf)
{
    json_t *signals = json_array();
    for (uint32_t i = 0; i < wf->step_count; i++) {
        if (wf->steps[i].kind != ORBC_STEP_AWAIT)
            continue;
        const char *name = module->strings[wf->steps[i].target].text;
        bool seen = false;
        for (uint32_t j = 0; j < i; j++)
            seen |= wf->steps[j].kind == ORBC_STEP_AWAIT && wf->steps[j].target == wf->steps[i].target;
        if (!seen)
            json_array_append_new(signals, json_pack("{s:o, s:i}", "name", diag_json_text0(name),
                                                     "at_ms", PROPOSED_SIGNAL_MS));
    }
    return signals;
}

/* The deepest value of a proposed scenario, for the message when it is too deep. */
typedef struct Deepest {
    uint32_t depth;
    const char *what;   /* "input of workflow" or "output of worker" */
    const char *name;
} Deepest;

static void note_depth(Deepest *deepest, uint32_t depth, const char *what, const char *name)
{
    if (depth > deepest->depth)
        *deepest = (Deepest){ depth, what, name };
}

/* {"ok": false, "message"}: no scenario can hold the simplest value of `deepest`. */
static char *too_deep(const Deepest *deepest)
{
    char text[400];
    snprintf(text, sizeof text, "the simplest %s `%.100s` nests %" PRIu32 " levels deep, "
             "deeper than orbit-run reads a scenario's JSON: no scenario can hold it (give the "
             "type fewer levels to run it here)", deepest->what, deepest->name, deepest->depth);
    return failure(xstrdup(text));
}

char *orbit_pg_scenario(const char *source, size_t source_len)
{
    OrbcModule module;
    char *message = NULL;
    if (!build_module(text_of(source, source_len), &module, &message) || module.workflow_count == 0) {
        if (message)
            free(message);
        else
            orbc_module_free(&module);
        return answer_text(json_object());
    }
    Arena arena;
    arena_init(&arena);
    const OrbcWorkflow *wf = &module.workflows[0];
    Deepest deepest = { 0, NULL, NULL };
    bool readable = true;
    uint32_t depth;
    json_t *workers = json_object();
    for (uint32_t i = 0; i < module.task_count; i++) {
        const OrbcTask *task = &module.tasks[i];
        if (task->kind != ORBC_TASK_WORKER)
            continue;
        const char *name = module.strings[task->name].text;
        json_t *output = default_value(&module, &arena, task->output_type, &depth);
        note_depth(&deepest, depth, "output of worker", name);
        readable &= output != NULL;
        json_t *answer = json_pack("{s:i, s:o}", "after_ms", PROPOSED_ANSWER_MS, "succeed",
                                   output ? output : json_null());
        json_object_set_new(workers, name, json_pack("{s:[o]}", "attempts", answer));
    }
    const char *workflow = module.strings[wf->name].text;
    json_t *input = default_value(&module, &arena, wf->input_type, &depth);
    note_depth(&deepest, depth, "input of workflow", workflow);
    readable &= input != NULL;
    json_t *scenario = json_pack("{s:o, s:o, s:o, s:o}", "workflow", diag_json_text0(workflow),
                                 "input", input ? input : json_null(), "workers", workers,
                                 "signals", proposed_signals(&module, wf));
    char *text = json_dumps(scenario, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(scenario);
    if (!text)
        out_of_memory();
    /* A value jansson read can still sit too deep in the scenario (a worker's output is
     * five levels down): read the scenario as orbit-run will. */
    json_t *read = readable ? json_loads(text, 0, NULL) : NULL;
    if (!read) {
        free(text);
        text = too_deep(&deepest);
    }
    json_decref(read);
    arena_free(&arena);
    orbc_module_free(&module);
    return text;
}

/* The step graph of the checked program `p` in `format`, from workflow `workflow` ("":
 * all), as orbitc graph writes it; NULL with *message (malloc'd) for an unknown name. */
static char *graph_text(Compiler *c, const Program *p, const char *workflow,
                        GraphFormat format, size_t *len, char **message)
{
    uint32_t root = NO_INDEX;
    if (workflow[0]) {
        const char *suggestion;
        root = graph_find_workflow(p, workflow, &suggestion);
        if (root == NO_INDEX) {
            char text[320];
            snprintf(text, sizeof text, "the program has no workflow `%.100s`%s%.100s%s", workflow,
                     suggestion ? ": did you mean `" : "", suggestion ? suggestion : "",
                     suggestion ? "`?" : "");
            *message = xstrdup(text);
            return NULL;
        }
    }
    StepGraph g;
    step_graph_build(&c->arena, p, root, &g);
    Captured out;
    capture_begin(&out);
    graph_write(&c->arena, &g, format, out.out);
    return capture_end(&out, len);
}

char *orbit_pg_graph(const char *source, size_t source_len, const char *workflow,
                                     size_t workflow_len, const char *format, size_t format_len)
{
    Text kind = text_of(format, format_len), name = text_of(workflow, workflow_len);
    GraphFormat chosen;
    char *format_name = kind.len ? text_copy(kind) : xstrdup("json");
    bool known = !has_nul(kind) && graph_format_parse(format_name, &chosen);
    free(format_name);
    if (!known)
        return failure(xstrdup("the format of a graph is dot, mermaid or json"));
    if (has_nul(name))   /* a workflow's name is an identifier: never a NUL */
        return failure(xstrdup("the program has no workflow of that name: a workflow's name "
                               "has no NUL character"));
    Run run;
    run_check(&run, text_of(source, source_len), DEFAULT_NAME, false);
    Program *program = run.w.roots.count ? run.w.checked[0] : NULL;
    size_t errors = run.c.diags.errors;
    char *message = NULL, *text = NULL;
    size_t len = 0;
    if (errors == 0 && !program) {
        message = xstrdup("the source is not a program (see the diagnostics)");
    } else if (errors > 0) {
        char why[160];
        snprintf(why, sizeof why, "the program has %zu %s: its graph is drawn once %s fixed "
                 "(see the diagnostics)", errors, errors == 1 ? "error" : "errors",
                 errors == 1 ? "it is" : "they are");
        message = xstrdup(why);
    } else {
        char *wanted = text_copy(name);
        text = graph_text(&run.c, program, wanted, chosen, &len, &message);
        free(wanted);
    }
    run_free(&run);
    if (!text)
        return failure(message);
    json_t *result = json_pack("{s:b, s:o}", "ok", 1, "text", diag_json_text(text, len));
    free(text);
    return answer_text(result);
}

void orbit_pg_free(char *text)
{
    free(text);
}
