/* orbit-run: the reference runtime's command line. Loads a .orbc file with liborbc, a
 * scenario with jansson, runs one workflow in virtual time and prints its history.
 * Exit status: 0 the workflow completed, 1 it failed, timed out or is blocked forever,
 * 2 bad usage or malformed input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "orbc.h"
#include "run_scenario.h"
#include "version.h"

enum { MAX_INPUT_FILE = 256 * 1024 * 1024 };

static const char usage[] =
    "usage: orbit-run FILE.orbc [--workflow NAME] [--scenario SCENARIO.json]\n"
    "                 [--input INPUT.json] [--format text|json] [--show-values]\n"
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
    "Exit status: 0 completed, 1 failed, timed out or blocked, 2 usage or malformed input.\n";

typedef struct Args {
    const char *orbc;
    const char *workflow;
    const char *scenario;
    const char *input;
    HistoryFormat format;
    bool show_values;
} Args;

static int usage_error(const char *message, const char *arg)
{
    fprintf(stderr, "orbit-run: %s%s%s%s\n", message, arg ? " `" : "", arg ? arg : "",
            arg ? "`" : "");
    fputs("usage: orbit-run FILE.orbc [--workflow NAME] [--scenario FILE] [--input FILE] "
          "[--format text|json]\n", stderr);
    return 2;
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
    FILE *f = fopen(path, "rb");
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
        if (status == 2)
            fprintf(stderr, "orbit-run: %s\n", err);
        fflush(stdout);
    }
    free(scenario);
    free(input);
    return status;
}

int main(int argc, char **argv)
{
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
