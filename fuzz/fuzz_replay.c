/* libFuzzer target: a module of the conformance kit (tests/conformance/runtime/NAME.orbc,
 * the golden programs' bytecode, chosen by the first byte) and arbitrary history bytes ->
 * orbit-run replay: the history read (replay_read), its places (replay_places) and its
 * replay against the module (replay_run). Nothing may crash, leak or hang, and:
 * - the places are sorted by id, each once, each id `WORKFLOW/…` of the first record's
 *   workflow, and none for a history that ended;
 * - a replay that gives no result says why; one that does has a verdict, compares at most
 *   the history's records, and a divergence exactly when it diverges, at the record it
 *   compared last.
 * Seeds (fuzz/run.sh): each module's own history, `--format json --show-values`.
 *
 * Built by meson with -Dfuzz=true (fuzz/build.sh); run with fuzz/run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* The modules, by the first byte of an input (run.sh's seeds name the same, in order). */
static const char *const names[] = {
    "checkout", "child_ok", "failure_compensation", "http_statuses", "await_signal",
    "redelivery", "queue_timeout", "sleep", "timeout_late_success", "workflow_timeout",
    "retries_in_the_history", "tie_retry_at_deadline",
};
enum { MODULES = sizeof names / sizeof *names, MAX_INPUT = 4096 };

static OrbcModule modules[MODULES];
static bool loaded;

static void fail(const char *why)
{
    fprintf(stderr, "fuzz_replay: %s\n", why);
    abort();
}

static void load(void)
{
    static uint8_t bytes[1 << 20];
    for (size_t i = 0; i < MODULES; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.orbc", FUZZ_KIT, names[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            fail("cannot read a module of the conformance kit");
        size_t n = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        OrbcError err;
        if (!orbc_load(bytes, n, &modules[i], &err))
            fail(err.text);
    }
    loaded = true;
}

static bool ended(const json_t *record)
{
    static const char *const ends[] = {"WorkflowCompleted", "WorkflowFailed", "WorkflowTimedOut",
                                       "WorkflowBlocked"};
    const char *event = json_string_value(json_object_get(record, "event"));
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        if (event && strcmp(event, ends[i]) == 0)
            return true;
    return false;
}

static void check_places(const ReplayHistory *h, const json_t *places)
{
    const char *workflow = json_string_value(json_object_get(h->records[0], "workflow"));
    if (!json_is_array(places) || (ended(h->records[h->count - 1]) && json_array_size(places)))
        fail("a history that ended waits somewhere");
    const char *last = NULL;
    for (size_t i = 0; i < json_array_size(places); i++) {
        const char *id = json_string_value(json_object_get(json_array_get(places, i), "id"));
        if (!id || !workflow || strncmp(id, workflow, strlen(workflow)) != 0 ||
            id[strlen(workflow)] != '/')
            fail("a place whose id is not WORKFLOW/…");
        if (last && strcmp(last, id) >= 0)
            fail("places not sorted by id, each once");
        last = id;
    }
}

static void check_result(const ReplayHistory *h, const json_t *result)
{
    const char *verdict = json_string_value(json_object_get(result, "verdict"));
    json_int_t records = json_integer_value(json_object_get(result, "records"));
    const json_t *d = json_object_get(result, "divergence");
    bool diverges = verdict && strcmp(verdict, "diverges") == 0;
    if (!verdict || records < 0 || (size_t)records > h->count)
        fail("no verdict, or more records compared than the history has");
    if (diverges != json_is_object(d) ||
        (diverges && json_integer_value(json_object_get(d, "seq")) != records))
        fail("a divergence that is not at the last record compared");
    TextBuffer line = {0};
    replay_text(&line, result);
    text_free(&line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!loaded)
        load();
    if (size < 1 || size > MAX_INPUT)
        return 0;
    const OrbcModule *module = &modules[data[0] % MODULES];
    ReplayHistory h;
    char err[2048];
    if (!replay_read("h", (const char *)data + 1, size - 1, &h, err, sizeof err)) {
        if (!err[0])
            fail("a history refused without a reason");
        return 0;
    }
    if (h.count > 0) {
        json_t *places = replay_places(&h);
        check_places(&h, places);
        json_decref(places);
    }
    json_t *result = replay_run(module, &h, "h", NULL, err, sizeof err);
    if (!result && !err[0])
        fail("a replay without a result or a reason");
    if (result)
        check_result(&h, result);
    json_decref(result);
    replay_history_free(&h);
    return 0;
}
