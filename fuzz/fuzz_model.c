/* libFuzzer target: raw bytes -> the simulation model parser of `orbit-run simulate`
 * (runtime/model.c) and, when the model is accepted, a few simulated runs of it and its
 * three reports (text, JSON, SVG) written to a discarded stream. Bad JSON, negative or
 * out-of-range rates, rates that sum over 1, unknown workers, signals and keys must each
 * be an error, never a crash or a hang. The module is fuzz_module.c's (workflow `main`,
 * workers `payments.charge` and `payments.refund`, `orbit.http.request`, signal
 * `approved`). Seeds: fuzz/corpus/fuzz_model/.
 *
 * Built by meson with -Dfuzz=true (fuzz/build.sh); run with fuzz/run.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_module.h"
#include "model.h"
#include "simulate.h"

static OrbcModule module;
static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) {
        fuzz_runtime_module(&module);
        sink = fopen("/dev/null", "w");
    }
    Arena arena;
    arena_init(&arena);
    Model model;
    char err[2048];
    if (model_load("fuzz.json", (const char *)data, size, &module, "main", &arena, &model, err,
                   sizeof err)) {
        SimulateResult result;
        simulate(&module, &model, 1 + size % 16, size, 1 + size % 2, &result);
        simulate_report(&result, SIMULATE_TEXT, sink);
        simulate_report(&result, SIMULATE_JSON, sink);
        simulate_report(&result, SIMULATE_SVG, sink);
        simulate_result_free(&result);
    }
    arena_free(&arena);
    return 0;
}
