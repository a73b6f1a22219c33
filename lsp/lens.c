/* Running tests from the editor (docs/editors.md, "Code lens: running a test"): a code
 * lens on each `test "NAME"` of a document, `▶ Run test` until the test ran and its last
 * result after; the commands `orbit.runTest [uri, name]` and `orbit.runTests [uri]`,
 * which run the tests in process through the runner of `orbitc test` (testing/runner.h)
 * over the project's checked program, show the result, and publish the failed
 * expectations as diagnostics of the test's file (beside the checker's, publish.c) until
 * the document changes or the test passes.
 *
 * What was last seen of each test lives in Server.lens: URI -> test name -> { "title":
 * the lens's text, "version": of the document when it ran, "diagnostics": [...] }. */
#include "server.h"

#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "orbc_value.h"
#include "runner.h"

#define LENS_RUN_TEST "orbit.runTest"
#define LENS_RUN_TESTS "orbit.runTests"

json_t *lsp_lens_commands(void)
{
    return json_pack("{s:[s, s]}", "commands", LENS_RUN_TEST, LENS_RUN_TESTS);
}

/* The file of test `m` (an index of the analysis's source map). */
static uint32_t test_file(const Analysis *a, const Member *m)
{
    return source_file_at(&a->c.sources, m->span.start);
}

/* The lens's text for a result: "✓ passed (completed at 1h10m)", "✗ failed: WHAT",
 * "⚠ could not run: WHY". */
static void result_title(const TestResult *r, TextBuffer *out)
{
    char at[ORBC_DURATION_TEXT_SIZE];
    switch (r->status) {
    case TEST_PASSED:
        orbc_format_duration(at, r->virtual_ms);
        text_printf(out, "✓ passed (%s at %s)", r->outcome ? r->outcome : "", at);
        break;
    case TEST_FAILED:
        text_printf(out, "✗ failed: %s", r->failure_count ? r->failures[0].what : "");
        break;
    case TEST_ERROR:
        text_printf(out, "⚠ could not run: %s", r->message ? r->message : "");
        break;
    }
}

/* The byte offset in `lines` of a 1-based line and column in characters. */
static uint32_t offset_of(const LineIndex *lines, uint32_t line, uint32_t column)
{
    if (line == 0 || line > lines->count)
        return lines->len;
    uint32_t at = lines->starts[line - 1];
    for (uint32_t c = 1; c < column && at < lines->len && lines->text[at] != '\n'; c++) {
        at++;
        while (at < lines->len && ((unsigned char)lines->text[at] & 0xC0) == 0x80)
            at++;
    }
    return at;
}

/* The end of the expectation that starts at `at`: its value ends at a `,` or a closing
 * bracket outside any bracket or string of its own, or at the end of the line. */
static uint32_t expectation_end(const LineIndex *lines, uint32_t at)
{
    const char *t = lines->text;
    uint32_t depth = 0, end = at;
    bool string = false;
    for (uint32_t i = at; i < lines->len && t[i] != '\n' && t[i] != '\r'; i++) {
        char ch = t[i];
        if (string) {
            if (ch == '\\' && i + 1 < lines->len)
                i++;
            else if (ch == '"')
                string = false;
        } else if (ch == '"') {
            string = true;
        } else if (ch == '{' || ch == '[' || ch == '(') {
            depth++;
        } else if (ch == '}' || ch == ']' || ch == ')' || ch == ',') {
            if (depth == 0)
                break;
            if (ch != ',')
                depth--;
        }
        if (ch != ' ' && ch != '\t')
            end = i + 1;
    }
    return end;
}

/* The diagnostics of a failed test's expectations, in the file whose lines are given. */
static json_t *failure_diagnostics(Server *s, LineIndex *lines, const TestResult *r)
{
    json_t *list = json_array();
    for (uint32_t i = 0; i < r->failure_count; i++) {
        const TestFailure *f = &r->failures[i];
        uint32_t start = offset_of(lines, f->line, f->column);
        TextBuffer message = { 0 };
        text_printf(&message, "%s: expected %s, actual %s", f->what, f->expected, f->actual);
        json_array_append_new(list, json_pack("{s:o, s:i, s:s, s:o}", "range",
                                              lsp_line_range_json(s, lines, start,
                                                                  expectation_end(lines, start)),
                                              "severity", 1, "source", "orbitc test",
                                              "message",
                                              diag_json_text(message.data, message.len)));
        text_free(&message);
    }
    return list;
}

/* What is kept of test `name` of `uri` (made when `make`). */
static json_t *test_state(Server *s, const char *uri, const char *name, bool make)
{
    if (!s->lens) {
        if (!make)
            return NULL;
        s->lens = json_object();
    }
    json_t *tests = json_object_get(s->lens, uri);
    if (!tests) {
        if (!make)
            return NULL;
        json_object_set_new(s->lens, uri, tests = json_object());
    }
    json_t *state = json_object_get(tests, name);
    if (!state && make)
        json_object_set_new(tests, name, state = json_object());
    return state;
}

void lsp_lens_diagnostics(Server *s, const AnalysisFile *f, json_t *list)
{
    json_t *tests = s->lens && f->uri ? json_object_get(s->lens, f->uri) : NULL;
    const char *name;
    json_t *state;
    json_object_foreach(tests, name, state) {
        json_t *diagnostics = json_object_get(state, "diagnostics");
        if (json_integer_value(json_object_get(state, "version")) != f->version) {
            json_object_del(state, "diagnostics");   /* the document changed */
            continue;
        }
        json_array_extend(list, diagnostics);
    }
}

/* The tests of `file` in its program (a->program, selected), in source order: how many. */
static uint32_t file_tests(const Analysis *a, uint32_t file, const Member **out)
{
    const Program *p = a->program;
    uint32_t n = 0;
    for (uint32_t i = 0; p && i < p->test_count; i++)
        if (test_file(a, p->tests[i]) == file)
            out[n++] = p->tests[i];
    return n;
}

json_t *lsp_handle_code_lens(Server *s, json_t *params)
{
    uint32_t file;
    const char *uri = lsp_params_uri(s, params);
    Analysis *a = lsp_source_for_uri(s, uri, &file);
    if (!a)
        return NULL;
    json_t *out = json_array();
    if (!lsp_analysis_select(a, file) || !a->program)
        return out;                     /* a program's configuration has no tests */
    const Member **tests = xmalloc((a->program->test_count + 1) * sizeof *tests);
    uint32_t count = file_tests(a, file, tests);
    uint32_t origin = source_file(&a->c.sources, file)->origin;
    for (uint32_t i = 0; i < count; i++) {
        const Member *m = tests[i];
        const char *name = m->name->text;
        json_t *state = test_state(s, uri, name, false);
        const char *title = json_string_value(json_object_get(state, "title"));
        uint32_t start = m->span.start - origin;
        json_array_append_new(
            out, json_pack("{s:o, s:{s:s, s:s, s:[s, s]}}", "range",
                           lsp_range_json(s, a, file, start, member_key_span(m).end - origin),
                           "command", "title", title ? title : "▶ Run test", "command",
                           LENS_RUN_TEST, "arguments", uri, name));
    }
    free(tests);
    return out;
}

/* Whether the program of root `root` has an error in one of its files. */
static bool program_has_errors(const Analysis *a, uint32_t root)
{
    const DiagSink *sink = &a->c.diags;
    for (uint32_t k = 0; k < sink->count; k++) {
        FileSpan at;
        if (sink->items[k]->severity == SEV_ERROR &&
            diag_locate(&a->c.sources, sink->items[k]->span, &at) && at.file > 0 &&
            at.file < a->c.sources.count && a->root_of[at.file] == root)
            return true;
    }
    return false;
}

/* The project whose current analysis is `a`. */
static Project *project_of(Server *s, const Analysis *a)
{
    for (uint32_t i = 0; i < s->project_count; i++)
        if (s->projects[i].live && s->projects[i].analysis == a)
            return &s->projects[i];
    return NULL;
}

static unsigned processors(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

/* Runs `tests` (of `file`, in a->program) through the runner; the result, or NULL after
 * lsp_request_error. */
static json_t *run_tests(Server *s, const char *uri, Analysis *a, uint32_t file,
                         const Member **tests, uint32_t count)
{
    /* The runner takes a checked workspace: here one program, the document's, with only
     * the tests asked for (the lowering leaves tests out, so the copy lowers the same). */
    Program only = *a->program;
    only.tests = tests;
    only.test_count = count;
    Program *checked = &only;
    Root root = { 0 };
    Workspace w;
    memset(&w, 0, sizeof w);
    w.c = &a->c;
    w.roots.items = &root;
    w.roots.count = 1;
    w.checked = &checked;
    TestingOptions options = { .jobs = processors() };
    TestingRun run;
    char why[512];
    if (!testing_run(&w, &options, &run, why, sizeof why)) {
        testing_run_free(&run);
        return lsp_request_error(s, LSP_REQUEST_FAILED, "the tests could not run: %s", why);
    }
    LineIndex *lines = lsp_analysis_lines(a, file);
    TextBuffer message = { 0 }, title = { 0 };
    int type = 3;                                  /* Info */
    if (count > 1)
        text_printf(&message, "%u passed, %u failed, %u could not run", run.run.passed,
                    run.run.failed, run.run.errors);
    for (uint32_t i = 0; i < run.run.count; i++) {
        const TestResult *r = &run.run.results[i];
        title.len = 0;
        result_title(r, &title);
        text_printf(&message, "%stest \"%s\": %s", message.len ? "\n" : "", r->name,
                    title.data);
        if (r->status == TEST_FAILED)
            type = 1;                              /* Error */
        else if (r->status == TEST_ERROR && type == 3)
            type = 2;                              /* Warning */
        json_t *state = test_state(s, uri, r->name, true);
        json_object_set_new(state, "title", diag_json_text(title.data, title.len));
        json_object_set_new(state, "version", json_integer(a->files[file].version));
        json_object_set_new(state, "diagnostics", failure_diagnostics(s, lines, r));
    }
    lsp_send_notification(s, "window/showMessage",
                          json_pack("{s:i, s:o}", "type", type, "message",
                                    diag_json_text(message.data, message.len)));
    text_free(&message);
    text_free(&title);
    testing_run_free(&run);
    Project *p = project_of(s, a);
    if (p)
        lsp_publish_diagnostics(s, p);
    if (s->client_code_lens_refresh)
        lsp_send_request(s, "workspace/codeLens/refresh", NULL);
    return json_null();
}

json_t *lsp_handle_execute_command(Server *s, json_t *params)
{
    const char *command = lsp_json_string_member(params, "command");
    json_t *args = lsp_json_object_member(params, "arguments");
    bool one = command && strcmp(command, LENS_RUN_TEST) == 0;
    if (!command || (!one && strcmp(command, LENS_RUN_TESTS) != 0))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "unknown command `%s`",
                                 command ? command : "");
    const char *uri = json_string_value(json_array_get(args, 0));
    const char *name = json_string_value(json_array_get(args, 1));
    if (!json_is_array(args) || json_array_size(args) != (one ? 2u : 1u) || !uri ||
        (one && !name))
        return lsp_request_error(s, RPC_INVALID_PARAMS, one
                                 ? "%s takes [uri, test name]"
                                 : "%s takes [uri]", command);
    uint32_t file;
    Analysis *a = lsp_analysis_for_uri(s, uri, &file);
    if (!a)
        return NULL;
    uint32_t root = a->root_of[file];
    if (!a->program || program_has_errors(a, root))
        return lsp_request_error(s, LSP_REQUEST_FAILED,
                                 "the program has errors: no test runs until they are fixed");
    const Member **tests = xmalloc((a->program->test_count + 1) * sizeof *tests);
    uint32_t count = file_tests(a, file, tests);
    if (one) {
        uint32_t k = 0;
        while (k < count && strcmp(tests[k]->name->text, name) != 0)
            k++;
        if (k == count) {
            free(tests);
            return lsp_request_error(s, RPC_INVALID_PARAMS, "no test \"%s\" in %s", name, uri);
        }
        tests[0] = tests[k];
        count = 1;
    } else if (count == 0) {
        free(tests);
        return lsp_request_error(s, RPC_INVALID_PARAMS, "%s has no tests", uri);
    }
    json_t *result = run_tests(s, uri, a, file, tests, count);
    free(tests);
    return result;
}

void lsp_lens_free(Server *s)
{
    json_decref(s->lens);
    s->lens = NULL;
}
