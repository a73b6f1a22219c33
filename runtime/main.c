/* orbit-run: the reference runtime's command line. Loads a .orbc file with liborbc, a
 * scenario with jansson, runs one workflow in virtual time and prints its history.
 * Exit status: 0 the workflow completed, 1 it failed, timed out or is blocked forever,
 * 2 bad usage or malformed input. `orbit-run simulate` runs it many times against a
 * simulation model instead (simulate.h) and prints what happened how often;
 * `orbit-run replay` replays recorded histories against new bytecode (replay.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "orbc.h"
#include "replay.h"
#include "run_scenario.h"
#include "simulate.h"
#include "version.h"

enum { MAX_INPUT_FILE = 256 * 1024 * 1024 };

static const char usage[] =
    "usage: orbit-run FILE.orbc [--workflow NAME] [--scenario SCENARIO.json]\n"
    "                 [--input INPUT.json] [--format text|json] [--show-values]\n"
    "       orbit-run simulate FILE.orbc --model MODEL.json [--workflow NAME] [--runs N]\n"
    "                 [--seed S] [--jobs J] [--format text|json|svg]\n"
    "       orbit-run replay NEW.orbc HISTORY... [--workflow NAME] [--format text|json]\n"
    "\n"
    "Runs a workflow of a compiled Orbit program in virtual time against a scenario of\n"
    "scripted workers, built-in tasks and signals, and prints its history.\n"
    "\n"
    "  --workflow NAME       the workflow to run (default: the scenario's \"workflow\",\n"
    "                        else the program's only workflow)\n"
    "  --scenario FILE       the scenario (JSON, see docs/runtime.md); default: none\n"
    "  --input FILE          the workflow input (JSON), instead of the scenario's \"input\"\n"
    "  --format text|json    history as `orbit logs` lines (default) or JSON lines\n"
    "  --show-values         add step inputs, outputs and signal payloads to the history\n"
    "\n"
    "Exit status: 0 completed, 1 failed, timed out or blocked, 2 usage or malformed input.\n"
    "\n"
    "simulate: runs the workflow many times against a model of how its workers and\n"
    "signals behave (latencies, failure rates; docs/runtime.md) and reports how often it\n"
    "completed, failed or timed out, how long it took and what each step did.\n"
    "\n"
    "  --model FILE          the simulation model (JSON, see docs/runtime.md)\n"
    "  --runs N              how many runs (default 10000, at most 10000000)\n"
    "  --seed S              the seed (0 to 2^63-1): same seed, same result (default 1)\n"
    "  --jobs J              threads sharing the runs; the result does not depend on it\n"
    "                        (default 1)\n"
    "  --format text|json|svg  a table with 95% intervals (default), the JSON report, or\n"
    "                        an SVG picture of the completion time by outcome\n"
    "\n"
    "Exit status: 0 the simulation ran, 2 usage or malformed input.\n"
    "\n"
    "replay: replays recorded histories (JSON lines of `orbit-run --format json\n"
    "--show-values` or `orbit-restate logs --format json`; `-` reads standard input)\n"
    "through the engine core against NEW.orbc, and says for each whether it continues\n"
    "(NEW writes the same records), finished (it ended, and NEW writes all of it) or\n"
    "diverges (the first record NEW writes differently, and what NEW wrote instead).\n"
    "\n"
    "  --workflow NAME       the workflow of NEW to replay against (default: the one\n"
    "                        each history's WorkflowStarted names)\n"
    "  --format text|json    one line per history and a summary (default), or one JSON\n"
    "                        object per history\n"
    "\n"
    "Exit status: 0 every history continues or finished, 1 some history diverges,\n"
    "2 usage, an unreadable or malformed history, or one recorded without values.\n";

typedef struct Args {
    const char *orbc;
    const char *workflow;
    const char *scenario;
    const char *input;
    HistoryFormat format;
    bool show_values;
} Args;

/* "orbit-run: MESSAGE `ARG`" and the command's usage line; the exit status 2. */
static int usage_line_error(const char *command, const char *usage_line, const char *message,
                            const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s\n", command, message, arg ? " `" : "", arg ? arg : "",
            arg ? "`" : "");
    fprintf(stderr, "usage: %s\n", usage_line);
    return 2;
}

static int usage_error(const char *message, const char *arg)
{
    return usage_line_error("orbit-run", "orbit-run FILE.orbc [--workflow NAME] "
                            "[--scenario FILE] [--input FILE] [--format text|json]", message, arg);
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, Args *args)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **target = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("orbit-run %s (bytecode %d.%d)\n", ORBIT_VERSION, ORBC_MAJOR, ORBC_MINOR);
            return 0;
        }
        if (strcmp(a, "--show-values") == 0) {
            args->show_values = true;
            continue;
        }
        if (strcmp(a, "--workflow") == 0)
            target = &args->workflow;
        else if (strcmp(a, "--scenario") == 0)
            target = &args->scenario;
        else if (strcmp(a, "--input") == 0)
            target = &args->input;
        else if (strcmp(a, "--format") == 0) {
            if (i + 1 >= argc)
                return usage_error("missing value after", a);
            const char *f = argv[++i];
            if (strcmp(f, "text") == 0)
                args->format = HISTORY_TEXT;
            else if (strcmp(f, "json") == 0)
                args->format = HISTORY_JSON;
            else
                return usage_error("unknown format (use text or json):", f);
            continue;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option", a);
        } else if (args->orbc) {
            return usage_error("unexpected argument", a);
        } else {
            args->orbc = a;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error("missing value after", a);
        *target = argv[++i];
    }
    if (!args->orbc)
        return usage_error("no .orbc file given", NULL);
    return -1;
}

static char *read_file(const char *path, size_t *len)
{
    bool stdin_ = strcmp(path, "-") == 0;
    FILE *f = stdin_ ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "orbit-run: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *data = xmalloc(cap);
    for (;;) {
        n += fread(data + n, 1, cap - n, f);
        if (n < cap || n >= MAX_INPUT_FILE)
            break;
        cap *= 2;
        data = xrealloc(data, cap);
    }
    bool failed = ferror(f) || n >= MAX_INPUT_FILE;
    if (!stdin_)
        fclose(f);
    if (failed) {
        fprintf(stderr, "orbit-run: cannot read %s: %s\n", path,
                "the file is too large or unreadable");
        free(data);
        return NULL;
    }
    *len = n;
    return data;
}

static bool load_module(const char *path, OrbcModule *module)
{
    size_t len;
    char *bytes = read_file(path, &len);
    if (!bytes)
        return false;
    OrbcError err;
    bool ok = orbc_load((const uint8_t *)bytes, len, module, &err);
    free(bytes);
    if (!ok)
        fprintf(stderr, "orbit-run: %s: %s\n", path, err.text);
    return ok;
}

/* Reads the scenario and the input the arguments name, and runs the workflow. */
static int run(const Args *args, const OrbcModule *module)
{
    RunRequest request = {.scenario_name = args->scenario, .workflow = args->workflow,
                          .input_name = args->input, .format = args->format,
                          .show_values = args->show_values};
    char *scenario = NULL, *input = NULL;
    int status = 2;
    if ((!args->scenario || (scenario = read_file(args->scenario, &request.scenario_len)))
        && (!args->input || (input = read_file(args->input, &request.input_len)))) {
        request.scenario = scenario;
        request.input = input;
        char err[2048];
        status = run_scenario(module, &request, stdout, err, sizeof err);
        if (err[0])
            fprintf(stderr, "orbit-run: %s\n", err);
        fflush(stdout);
    }
    free(scenario);
    free(input);
    return status;
}

/* ---- orbit-run simulate ---- */

typedef struct SimArgs {
    const char *orbc;
    const char *model;
    const char *workflow;
    uint64_t runs, seed;
    unsigned jobs;
    SimulateFormat format;
} SimArgs;

static int sim_usage_error(const char *message, const char *arg)
{
    return usage_line_error("orbit-run simulate", "orbit-run simulate FILE.orbc --model "
                            "MODEL.json [--workflow NAME] [--runs N] [--seed S] [--jobs J] "
                            "[--format text|json|svg]", message, arg);
}

/* A whole number from `min` to `max`, all of `text`. */
static bool parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!*text || *text == '-' || *text == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static int sim_option(SimArgs *args, const char *option, const char *value)
{
    uint64_t n;
    if (strcmp(option, "--model") == 0)
        args->model = value;
    else if (strcmp(option, "--workflow") == 0)
        args->workflow = value;
    else if (strcmp(option, "--runs") == 0) {
        if (!parse_count(value, 1, SIMULATE_MAX_RUNS, &args->runs))
            return sim_usage_error("--runs takes a number from 1 to 10000000, not", value);
    } else if (strcmp(option, "--seed") == 0) {
        if (!parse_count(value, 0, INT64_MAX, &args->seed))
            return sim_usage_error("--seed takes a number from 0 to 2^63-1 (a JSON integer), not",
                                   value);
    } else if (strcmp(option, "--jobs") == 0) {
        if (!parse_count(value, 1, SIMULATE_MAX_JOBS, &n))
            return sim_usage_error("--jobs takes a number from 1 to 256, not", value);
        args->jobs = (unsigned)n;
    } else if (strcmp(option, "--format") == 0) {
        if (strcmp(value, "text") == 0)
            args->format = SIMULATE_TEXT;
        else if (strcmp(value, "json") == 0)
            args->format = SIMULATE_JSON;
        else if (strcmp(value, "svg") == 0)
            args->format = SIMULATE_SVG;
        else
            return sim_usage_error("unknown format (use text, json or svg):", value);
    } else {
        return sim_usage_error("unknown option", option);
    }
    return -1;
}

static int sim_parse_args(int argc, char **argv, SimArgs *args)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (a[0] == '-' && a[1] != '\0') {
            if (i + 1 >= argc)
                return sim_usage_error("missing value after", a);
            int status = sim_option(args, a, argv[++i]);
            if (status >= 0)
                return status;
        } else if (args->orbc) {
            return sim_usage_error("unexpected argument", a);
        } else {
            args->orbc = a;
        }
    }
    if (!args->orbc)
        return sim_usage_error("no .orbc file given", NULL);
    if (!args->model)
        return sim_usage_error("no model given (--model MODEL.json)", NULL);
    return -1;
}

static int simulate_main(int argc, char **argv)
{
    SimArgs args = {.runs = 10000, .seed = 1, .jobs = 1};
    int status = sim_parse_args(argc, argv, &args);
    if (status >= 0)
        return status;
    OrbcModule module;
    if (!load_module(args.orbc, &module))
        return 2;
    size_t len;
    char *text = read_file(args.model, &len);
    status = 2;
    if (text) {
        Arena arena;
        arena_init(&arena);
        Model model;
        char err[2048];
        if (model_load(args.model, text, len, &module, args.workflow, &arena, &model, err,
                       sizeof err)) {
            SimulateResult result;
            simulate(&module, &model, args.runs, args.seed, args.jobs, &result);
            status = simulate_report(&result, args.format, stdout) ? 0 : 2;
            if (status)
                fprintf(stderr, "orbit-run: cannot write the report: %s\n", strerror(errno));
            simulate_result_free(&result);
        } else {
            fprintf(stderr, "orbit-run: %s\n", err);
        }
        arena_free(&arena);
        free(text);
    }
    orbc_module_free(&module);
    return status;
}

/* ---- orbit-run replay ---- */

static int replay_usage_error(const char *message, const char *arg)
{
    return usage_line_error("orbit-run replay", "orbit-run replay NEW.orbc HISTORY... "
                            "[--workflow NAME] [--format text|json]", message, arg);
}

/* Replays one history; returns its exit status (0, 1, 2) and counts its verdict. */
static int replay_one(const OrbcModule *module, const char *path, const char *workflow, bool json,
                      size_t counts[3])
{
    size_t len;
    char *bytes = read_file(path, &len);
    if (!bytes)
        return 2;
    ReplayHistory history;
    char err[2048];
    json_t *result = NULL;
    if (replay_read(path, bytes, len, &history, err, sizeof err)) {
        result = replay_run(module, &history, path, workflow, err, sizeof err);
        replay_history_free(&history);
    }
    free(bytes);
    if (!result) {
        fprintf(stderr, "orbit-run: %s\n", err);
        return 2;
    }
    const char *verdict = json_string_value(json_object_get(result, "verdict"));
    int status = strcmp(verdict, "diverges") == 0 ? 1 : 0;
    counts[strcmp(verdict, "continues") == 0 ? 0 : status ? 2 : 1]++;
    if (json) {
        json_dumpf(result, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
    } else {
        TextBuffer line = {0};
        replay_text(&line, result);
        fwrite(line.data, 1, line.len, stdout);
        text_free(&line);
    }
    json_decref(result);
    return status;
}

static int replay_main(int argc, char **argv)
{
    const char *orbc = NULL, *workflow = NULL;
    bool json = false;
    const char **histories = xmalloc(sizeof(char *) * (size_t)argc);
    size_t count = 0;
    int status = -1;
    for (int i = 2; i < argc && status < 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            status = 0;
        } else if (strcmp(a, "--workflow") == 0 || strcmp(a, "--format") == 0) {
            if (i + 1 >= argc)
                status = replay_usage_error("missing value after", a);
            else if (a[2] == 'w')
                workflow = argv[++i];
            else if (strcmp(argv[++i], "json") == 0 || strcmp(argv[i], "text") == 0)
                json = argv[i][0] == 'j';
            else
                status = replay_usage_error("unknown format (use text or json):", argv[i]);
        } else if (a[0] == '-' && a[1] != '\0') {
            status = replay_usage_error("unknown option", a);
        } else if (!orbc) {
            orbc = a;
        } else {
            histories[count++] = a;
        }
    }
    if (status < 0 && !orbc)
        status = replay_usage_error("no .orbc file given", NULL);
    else if (status < 0 && count == 0)
        status = replay_usage_error("no history given", NULL);
    OrbcModule module;
    if (status < 0 && !load_module(orbc, &module))
        status = 2;
    if (status >= 0) {
        free(histories);
        return status;
    }
    size_t counts[3] = {0}, unreadable = 0;   /* continue, finished, diverge */
    status = 0;
    for (size_t i = 0; i < count; i++) {
        int one = replay_one(&module, histories[i], workflow, json, counts);
        unreadable += one == 2;
        status = one > status ? one : status;
    }
    if (!json)
        printf("%zu histor%s: %zu continue%s, %zu finished, %zu diverge%s, %zu could not be "
               "replayed\n", count, count == 1 ? "y" : "ies", counts[0], counts[0] == 1 ? "s" : "",
               counts[1], counts[2], counts[2] == 1 ? "s" : "", unreadable);
    fflush(stdout);
    orbc_module_free(&module);
    free(histories);
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "simulate") == 0)
        return simulate_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "replay") == 0)
        return replay_main(argc, argv);
    Args args = {.format = HISTORY_TEXT};
    int status = parse_args(argc, argv, &args);
    if (status >= 0)
        return status;
    OrbcModule module;
    if (!load_module(args.orbc, &module))
        return 2;
    status = run(&args, &module);
    orbc_module_free(&module);
    return status;
}
