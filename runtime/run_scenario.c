/* One run, as orbit-run makes it (run_scenario.h). */
#include "run_scenario.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "scenario.h"
#include "sim.h"

static bool load_scenario(const RunRequest *request, const OrbcModule *module, Arena *arena,
                          Scenario *scenario, char *err, size_t errlen)
{
    bool given = request->scenario != NULL;
    if (!scenario_load(given ? request->scenario_name : "(no scenario)",
                       given ? request->scenario : "{}", given ? request->scenario_len : 2,
                       module, request->workflow, arena, scenario, err, errlen))
        return false;
    return !request->input
        || scenario_load_value(request->input_name, request->input, request->input_len, arena,
                               &scenario->input, err, errlen);
}

int run_scenario(const OrbcModule *module, const RunRequest *request, FILE *out, char *err,
                 size_t errlen)
{
    Arena arena;
    arena_init(&arena);
    Scenario scenario;
    int status = 2;
    if (errlen)
        err[0] = '\0';
    if (load_scenario(request, module, &arena, &scenario, err, errlen)) {
        const OrbcWorkflow *wf = &module->workflows[scenario.workflow];
        Value input;
        char why[1024];
        if (contract_conform(module, &arena, wf->input_type, scenario.input, &input, why,
                             sizeof why)) {
            History history;
            history_init(&history, out, request->format);
            RunOptions options = {.show_values = request->show_values};
            bool stopped = false;
            EngineResult r = sim_run(module, &scenario, input, &history, &options, &arena,
                                     &stopped);
            if (stopped) {
                history_final(&history, "STOPPED", NULL, NULL, NULL, NULL);
                snprintf(err, errlen, "the run was stopped after %" PRIu32 " events (the "
                         "scenario's max_events)", scenario.max_events);
            } else {
                history_final(&history, engine_status_name(r.status),
                              r.status == ENGINE_COMPLETED ? &r.output : NULL,
                              r.status == ENGINE_FAILED ? r.error : NULL, r.message, r.step);
            }
            history_free(&history);
            status = r.status == ENGINE_COMPLETED && !stopped ? 0 : 1;
        } else {
            snprintf(err, errlen, "the input does not match the contract of workflow `%s`: %s",
                     module->strings[wf->name].text, why);
        }
    }
    arena_free(&arena);
    return status;
}
