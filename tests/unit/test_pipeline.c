/* The compiler and the reference runtime linked into one program: Orbit source is checked
 * and lowered in memory, the bytes are loaded by liborbc's verifying loader, and the
 * runtime runs a scenario on the module. The expected history is the golden history of
 * the same program and scenario that `orbit-run` prints (tests/golden/run/), so this test and
 * the command-line golden test must agree.
 *
 * Usage: test_pipeline GOLDEN_RUN_DIR */
#define _GNU_SOURCE   /* asprintf, open_memstream in the runtime fixture */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workspace.h"
#include "lower.h"
#include "test_runtime_fixture.h"

static const char *golden_dir;

static char *read_golden(const char *name, const char *ext, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", golden_dir, name, ext);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)size;
    return text;
}

/* Checks and lowers one source text; returns the .orbc bytes (malloc'd). */
static uint8_t *compile(const char *path, char *source, size_t source_len, size_t *len)
{
    Compiler c;
    compiler_init(&c);
    Workspace w;
    workspace_init(&w, &c, false);
    workspace_add_text(&w, path, source, source_len);
    workspace_check(&w);
    Program *p = w.checked[0];
    workspace_free(&w);
    ck_assert_uint_eq(c.diags.errors, 0);
    uint8_t *bytes = NULL;
    char why[256] = "";
    ck_assert_msg(lower_program(&c, p, &bytes, len, why, sizeof why), "lowering: %s", why);
    compiler_free(&c);
    return bytes;
}

static void run_golden(const char *name)
{
    size_t source_len, len;
    char *source = read_golden(name, ".orbit", &source_len);
    uint8_t *bytes = compile(name, source, source_len, &len);   /* takes `source` */
    OrbcModule m;
    OrbcError err;
    ck_assert_msg(orbc_load(bytes, len, &m, &err), "load: %s", err.text);
    char *scenario = read_golden(name, ".scenario.json", NULL);
    char *expected = read_golden(name, ".history", NULL);
    char *history = fx_run(&m, NULL, scenario, false, NULL);
    ck_assert_str_eq(history, expected);
    free(history);
    free(expected);
    free(scenario);
    orbc_module_free(&m);
    free(bytes);
}

START_TEST(retries_in_the_history_in_one_process)
{
    run_golden("retries_in_the_history");
}
END_TEST

START_TEST(retry_schedule_in_one_process)
{
    run_golden("await_timeout");
}
END_TEST

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_pipeline GOLDEN_RUN_DIR\n");
        return 2;
    }
    golden_dir = argv[1];
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("pipeline");
    tcase_add_test(tc, retries_in_the_history_in_one_process);
    tcase_add_test(tc, retry_schedule_in_one_process);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
