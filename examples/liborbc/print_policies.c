/* print_policies: prints the retry policy of every step of a compiled Orbit program.
 *
 * A complete program using liborbc, the library that loads .orbc files (docs/liborbc.md):
 * it reads a file, lets orbc_load verify all of it, walks the workflows and their steps,
 * and prints each step's effective retry policy (every default already applied by the
 * compiler). Build it against an installed liborbc with
 *
 *     cc print_policies.c $(pkg-config --cflags --libs orbc) -o print_policies
 *     ./print_policies checkout.orbc
 *
 * Exit status: 0 printed, 1 not a valid .orbc file, 2 bad usage or unreadable file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orbc.h>          /* the module, the loader */
#include <orbc_value.h>    /* what values mean: here, the text of a duration */

/* Reads a whole file into memory; NULL when it cannot be read. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, used = 0;
    uint8_t *bytes = malloc(cap);
    while (bytes) {
        used += fread(bytes + used, 1, cap - used, f);
        if (used < cap || cap > ORBC_MAX_FILE_SIZE)
            break;
        uint8_t *grown = realloc(bytes, cap * 2);
        if (!grown) {
            free(bytes);
            bytes = NULL;
        } else {
            bytes = grown;
            cap *= 2;
        }
    }
    if (bytes && ferror(f)) {
        free(bytes);
        bytes = NULL;
        errno = EIO;
    }
    fclose(f);
    *len = used;
    return bytes;
}

/* A string of the module's table (every name in a module is a string index). */
static const char *text(const OrbcModule *m, uint32_t index)
{
    return m->strings[index].text;
}

static const char *backoff_name(uint8_t backoff)
{
    return backoff == ORBC_BACKOFF_EXPONENTIAL ? "exponential" : "fixed";
}

/* The policy in the words of `orbitc dis`: "retry attempts=5 backoff=exponential
 * initial_delay=500ms max_delay=10s non_retryable=["CARD_DECLINED"]". */
static void print_policy(const OrbcModule *m, const OrbcPolicy *p)
{
    char initial[ORBC_DURATION_TEXT_SIZE], max[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(initial, p->initial_delay_ms);
    orbc_format_duration(max, p->max_delay_ms);
    printf("retry attempts=%" PRIu32 " backoff=%s initial_delay=%s max_delay=%s non_retryable=[",
           p->attempts, backoff_name(p->backoff), initial, max);
    for (uint32_t i = 0; i < p->non_retryable_count; i++)
        printf("%s\"%s\"", i ? ", " : "", text(m, p->non_retryable[i]));
    printf("]\n");
}

/* Only steps that run a task (a worker or a built-in) are retried. */
static bool runs_a_task(const OrbcStep *step)
{
    return step->kind == ORBC_STEP_WORKER || step->kind == ORBC_STEP_BUILTIN;
}

static void print_workflow(const OrbcModule *m, const OrbcWorkflow *wf)
{
    printf("workflow %s (%s:%" PRIu32 ")\n", text(m, wf->name), text(m, wf->file), wf->line);
    for (uint32_t i = 0; i < wf->step_count; i++) {
        const OrbcStep *step = &wf->steps[i];
        if (!runs_a_task(step))
            continue;
        printf("  step %s (task %s)\n    ", text(m, step->name),
               text(m, m->tasks[step->target].name));
        print_policy(m, &step->policy);
        if (step->has_compensate) {
            printf("    compensate (task %s)\n      ", text(m, m->tasks[step->compensate.task].name));
            print_policy(m, &step->compensate.policy);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: print_policies FILE.orbc\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *bytes = read_file(argv[1], &len);
    if (!bytes) {
        fprintf(stderr, "print_policies: cannot read %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    OrbcModule module;
    OrbcError err;
    bool loaded = orbc_load(bytes, len, &module, &err);
    free(bytes);   /* the module owns copies of everything it needs */
    if (!loaded) {
        fprintf(stderr, "print_policies: %s: %s\n", argv[1], err.text);
        return 1;
    }
    printf("%s: bytecode %u.%u, %" PRIu32 " workflows\n", argv[1], module.major, module.minor,
           module.workflow_count);
    for (uint32_t i = 0; i < module.workflow_count; i++)
        print_workflow(&module, &module.workflows[i]);
    orbc_module_free(&module);
    return 0;
}
