/* Unit tests of liborbc: build a module with the builder, load it, serialize it again,
 * disassemble it; the checksum; atomic writing. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orbc.h"
#include "test_orbc_sample.h"

static char *disassemble(const OrbcModule *m)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    orbc_disassemble(m, out);
    fclose(out);
    return text;
}

START_TEST(crc32c_check_value)
{
    ck_assert_uint_eq(orbc_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(orbc_crc32c(NULL, 0), 0);
}
END_TEST

/* The CPU instruction and the slicing-by-8 tables agree on every length and alignment. */
START_TEST(crc32c_paths_agree)
{
    uint8_t data[300];
    for (int i = 0; i < 300; i++)
        data[i] = (uint8_t)(i * 131 + 7);
    ck_assert_uint_eq(orbc_crc32c_portable((const uint8_t *)"123456789", 9), 0xE3069283u);
    for (size_t start = 0; start < 9; start++)
        for (size_t len = 0; start + len <= sizeof data; len += 7)
            ck_assert_uint_eq(orbc_crc32c(data + start, len),
                              orbc_crc32c_portable(data + start, len));
}
END_TEST

START_TEST(sample_loads)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    OrbcModule m;
    OrbcError err;
    ck_assert_msg(orbc_load(bytes, len, &m, &err), "%s", err.text);
    ck_assert_uint_eq(m.major, 1);
    ck_assert_uint_eq(m.workflow_count, 2);
    ck_assert_uint_eq(m.workflows[0].step_count, 6);
    const OrbcStep *charge = &m.workflows[0].steps[0];
    ck_assert_str_eq(m.strings[charge->name].text, "charge");
    ck_assert_uint_eq(charge->policy.attempts, 5);
    ck_assert_uint_eq(charge->policy.backoff, ORBC_BACKOFF_EXPONENTIAL);
    ck_assert_int_eq(charge->policy.initial_delay_ms, 500);
    ck_assert_int_eq(charge->policy.max_delay_ms, 10000);
    ck_assert_uint_eq(charge->policy.non_retryable_count, 2);
    ck_assert_str_eq(m.strings[charge->policy.non_retryable[1]].text, "INSUFFICIENT_FUNDS");
    ck_assert(charge->has_compensate);
    ck_assert_uint_eq(charge->compensate.policy.attempts, 10);
    /* max stack of the `big` compute: len(items), 2 -> 2; the && pops its left operand
     * before items, "x" -> 2 */
    const OrbcCode *big = &m.codes[m.workflows[0].steps[5].value_code];
    ck_assert_uint_eq(big->max_stack, 2);
    ck_assert(m.codes[m.workflows[0].steps[2].with_code].uses_item);
    ck_assert_uint_eq(m.codes[m.workflows[0].steps[1].with_code].max_step, 0);
    orbc_module_free(&m);
    free(bytes);
}
END_TEST

START_TEST(round_trip_is_identical)
{
    size_t len, len2, len3;
    uint8_t *bytes = sample_bytes(&len);
    uint8_t *again = sample_bytes(&len3);
    ck_assert_uint_eq(len, len3);
    ck_assert(memcmp(bytes, again, len) == 0);   /* deterministic */
    OrbcModule m;
    OrbcError err;
    ck_assert(orbc_load(bytes, len, &m, &err));
    uint8_t *bytes2;
    ck_assert(orbc_serialize(&m, &bytes2, &len2, &err));
    ck_assert_uint_eq(len, len2);
    ck_assert(memcmp(bytes, bytes2, len) == 0);
    orbc_module_free(&m);
    free(bytes);
    free(bytes2);
    free(again);
}
END_TEST

START_TEST(builder_dedups_in_first_use_order)
{
    OrbcBuilder *b = orbc_builder_new();
    ck_assert_uint_eq(orbc_add_cstring(b, "b"), 0);
    ck_assert_uint_eq(orbc_add_cstring(b, "a"), 1);
    ck_assert_uint_eq(orbc_add_cstring(b, "b"), 0);
    ck_assert_uint_eq(orbc_add_string(b, "a\0b", 3), 2);
    ck_assert_uint_eq(orbc_const_int(b, 7), 0);
    ck_assert_uint_eq(orbc_const_duration(b, 7), 1);   /* same payload, other kind */
    ck_assert_uint_eq(orbc_const_int(b, 7), 0);
    ck_assert_uint_eq(orbc_const_string(b, "a", 1), 2);
    uint32_t s = orbc_type_simple(b, ORBC_TYPE_STRING);
    uint32_t l = orbc_type_list(b, s);
    ck_assert_uint_eq(orbc_type_list(b, s), l);
    ck_assert_uint_ne(orbc_type_optional(b, s), l);
    for (int i = 0; i < 5000; i++) {
        char text[16];
        snprintf(text, sizeof text, "n%d", i);
        ck_assert_uint_eq(orbc_add_cstring(b, text), 3 + (uint32_t)i);
    }
    ck_assert_uint_eq(orbc_add_cstring(b, "n4999"), 5002);
    orbc_builder_free(b);
}
END_TEST

START_TEST(disassembly_shows_everything)
{
    size_t len;
    uint8_t *bytes = sample_bytes(&len);
    OrbcModule m;
    OrbcError err;
    ck_assert(orbc_load(bytes, len, &m, &err));
    char *text = disassemble(&m);
    const char *expected[] = {
        "orbc 1.0\n",
        "  task2 builtin \"orbit.http.request\" input any output any default_timeout 30s\n",
        "\nworkflow 0 checkout at checkout.orbit:14:1\n",
        "  timeout 1d\n",
        "  step 0 charge at checkout.orbit:1:3\n    worker \"payments.charge\" (task0)\n",
        "    retry attempts=5 backoff=exponential initial_delay=500ms max_delay=10s "
        "non_retryable=[\"CARD_DECLINED\", \"INSUFFICIENT_FUNDS\"]\n",
        "    timeout 10s\n    queue_timeout 2m\n",
        "    compensate at checkout.orbit:20:5\n      worker \"payments.refund\" (task1)\n",
        "    depends_on charge\n",
        "    for item\n",
        "    await \"manager_approved\"\n    timeout 12h\n",
        "    sleep: code ",
        "      0000  8:21     const k",
        "jump_if_not_null 0010\n",
        "call contains/2\n",
        "  return: code ",
        "  return null\n",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        if (!strstr(text, expected[i]))
            fprintf(stderr, "%s", text);
        ck_assert_msg(strstr(text, expected[i]), "missing: %s", expected[i]);
    }
    free(text);
    orbc_module_free(&m);
    free(bytes);
}
END_TEST

START_TEST(pos_at_finds_the_covering_entry)
{
    OrbcPos pos[] = { { 0, 1, 1 }, { 5, 2, 3 }, { 9, 4, 1 } };
    OrbcCode code = { .pos_count = 3, .pos = pos, .len = 12 };
    ck_assert_uint_eq(orbc_pos_at(&code, 0)->line, 1);
    ck_assert_uint_eq(orbc_pos_at(&code, 4)->line, 1);
    ck_assert_uint_eq(orbc_pos_at(&code, 5)->line, 2);
    ck_assert_uint_eq(orbc_pos_at(&code, 8)->line, 2);
    ck_assert_uint_eq(orbc_pos_at(&code, 11)->line, 4);
}
END_TEST

static char *temp_dir(void)
{
    char *dir = strdup("/tmp/orbc_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

/* The number of entries of `dir`, hidden ones included ("." and ".." not). */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL)
        count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(d);
    return count;
}

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *data = malloc(1 << 16);
    *len = fread(data, 1, 1 << 16, f);
    fclose(f);
    return data;
}

START_TEST(write_file_is_atomic)
{
    char *dir = temp_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/out.orbc", dir);
    OrbcError err;
    ck_assert(orbc_write_file(path, (const uint8_t *)"first", 5, &err));
    ck_assert(orbc_write_file(path, (const uint8_t *)"second!", 7, &err));
    size_t len;
    char *data = read_whole(path, &len);
    ck_assert_uint_eq(len, 7);
    ck_assert(memcmp(data, "second!", 7) == 0);
    free(data);

    /* A directory is refused (never replaced), and no temporary file is left behind. */
    char sub[600], inner[700];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(inner, sizeof inner, "%s/keep", sub);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    FILE *f = fopen(inner, "w");
    fputs("keep", f);
    fclose(f);
    ck_assert(!orbc_write_file(sub, (const uint8_t *)"x", 1, &err));
    ck_assert_str_eq(err.text, "is a directory");
    ck_assert_int_eq(access(inner, F_OK), 0);
    ck_assert_int_eq(entries_in(dir), 2);   /* out.orbc and sub */

    /* A directory that does not exist: the reason alone, no temporary file name. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/out.orbc", dir);
    ck_assert(!orbc_write_file(missing, (const uint8_t *)"x", 1, &err));
    ck_assert_str_eq(err.text, "No such file or directory");

    data = read_whole(path, &len);
    ck_assert_uint_eq(len, 7);
    free(data);
    unlink(inner);
    rmdir(sub);

    /* A chain of relative symbolic links, the last one dangling: the file it names is
     * created, the links stay links. The file replaced keeps its permissions. */
    char link1[600], link2[600], final[600];
    snprintf(link1, sizeof link1, "%s/link1.orbc", dir);
    snprintf(link2, sizeof link2, "%s/link2.orbc", dir);
    snprintf(final, sizeof final, "%s/final.orbc", dir);
    ck_assert_int_eq(symlink("link2.orbc", link1), 0);
    ck_assert_int_eq(symlink("final.orbc", link2), 0);
    ck_assert(orbc_write_file(link1, (const uint8_t *)"linked", 6, &err));
    struct stat st;
    ck_assert_int_eq(lstat(link1, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(lstat(link2, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    data = read_whole(final, &len);
    ck_assert_uint_eq(len, 6);
    free(data);
    ck_assert_int_eq(chmod(final, 0600), 0);
    ck_assert(orbc_write_file(link1, (const uint8_t *)"again", 5, &err));
    ck_assert_int_eq(stat(final, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0600);
    ck_assert_int_eq(entries_in(dir), 4);
    unlink(link1);
    unlink(link2);
    unlink(final);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

/* A workflow of `count` compute steps added to `b`, step i reading step i - 1. `steps`
 * and `deps` hold `count` entries each. */
static void add_chain(OrbcBuilder *b, uint32_t count, OrbcStep *steps, uint32_t *deps)
{
    uint32_t file = orbc_add_cstring(b, "chain.orbit");
    for (uint32_t i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "s%u", i);
        steps[i] = sample_blank_step(b, name, ORBC_STEP_COMPUTE);
        orbc_code_begin(b, file);
        orbc_code_pos(b, i + 1, 3);
        if (i == 0) {
            orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_int(b, 1));
        } else {
            orbc_emit_u32(b, ORBC_OP_STEP, i - 1);
            deps[i] = i - 1;
            steps[i].deps = &deps[i];
            steps[i].dep_count = 1;
        }
        steps[i].value_code = orbc_code_end(b);
    }
    OrbcWorkflow w = { orbc_add_cstring(b, "chain"), file, 1, 1,
                       orbc_type_simple(b, ORBC_TYPE_ANY), orbc_type_simple(b, ORBC_TYPE_ANY),
                       0, ORBC_NONE, count, steps };
    orbc_add_workflow(b, &w);
}

/* The whole of a file of at most `cap` bytes. */
static uint8_t *read_file_bytes(const char *path, size_t cap, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    uint8_t *data = malloc(cap + 1);
    ck_assert_ptr_nonnull(data);
    *len = fread(data, 1, cap + 1, f);
    fclose(f);
    return data;
}

/* A file kept in pieces (orbc_builder_finish_output) is written as the same bytes as
 * orbc_builder_finish gives: streamed, with code and workflows over several chunks of
 * 1 MiB (the checksum carried across them), and from a builder that keeps structs. */
START_TEST(output_in_pieces_writes_the_same_bytes)
{
    enum { STEPS = 60000 };
    OrbcStep *steps = calloc(STEPS, sizeof *steps);
    uint32_t *deps = calloc(STEPS, sizeof *deps);
    ck_assert_ptr_nonnull(steps);
    ck_assert_ptr_nonnull(deps);
    OrbcBuilder *b = orbc_builder_new();
    add_chain(b, STEPS, steps, deps);
    uint8_t *expected = NULL;
    size_t expected_len = 0;
    OrbcError err;
    ck_assert_msg(orbc_builder_finish(b, &expected, &expected_len, &err), "%s", err.text);
    orbc_builder_free(b);
    ck_assert_uint_gt(expected_len, 3u << 20);
    char *dir = temp_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/out.orbc", dir);
    for (int streaming = 0; streaming < 2; streaming++) {
        b = streaming ? orbc_builder_new_streaming() : orbc_builder_new();
        add_chain(b, STEPS, steps, deps);
        OrbcOutput *out = NULL;
        ck_assert_msg(orbc_builder_finish_output(b, &out, &err), "%s", err.text);
        orbc_builder_free(b);
        ck_assert_uint_eq(orbc_output_len(out), expected_len);
        ck_assert_msg(orbc_output_write_file(out, path, &err), "%s", err.text);
        orbc_output_free(out);
        size_t len;
        uint8_t *written = read_file_bytes(path, expected_len, &len);
        ck_assert_uint_eq(len, expected_len);
        ck_assert_int_eq(memcmp(written, expected, len), 0);
        free(written);
    }
    /* A builder that fails gives no output, and says why. */
    b = orbc_builder_new_streaming();
    OrbcField *fields = calloc(ORBC_MAX_COUNT + 1, sizeof *fields);
    ck_assert_ptr_nonnull(fields);
    orbc_type_record(b, ORBC_NONE, ORBC_MAX_COUNT + 1, fields);
    free(fields);
    OrbcOutput *out = (OrbcOutput *)1;
    ck_assert(!orbc_builder_finish_output(b, &out, &err));
    ck_assert_ptr_null(out);
    ck_assert_str_eq(err.text, "orbc: a record type of more than 65535 fields");
    orbc_builder_free(b);
    unlink(path);
    rmdir(dir);
    free(dir);
    free(expected);
    free(steps);
    free(deps);
}
END_TEST

/* A workflow of 100,000 compute steps (above the old limit of 65,535) builds and loads;
 * step i reads step i - 1, so every step index is checked by the verifier. */
START_TEST(hundred_thousand_steps_load)
{
    enum { STEPS = 100000 };
    OrbcBuilder *b = orbc_builder_new();
    OrbcStep *steps = calloc(STEPS, sizeof *steps);
    uint32_t *deps = calloc(STEPS, sizeof *deps);
    ck_assert_ptr_nonnull(steps);
    ck_assert_ptr_nonnull(deps);
    add_chain(b, STEPS, steps, deps);
    uint8_t *bytes = NULL;
    size_t len = 0;
    OrbcError err;
    ck_assert_msg(orbc_builder_finish(b, &bytes, &len, &err), "%s", err.text);
    OrbcModule m;
    ck_assert_msg(orbc_load(bytes, len, &m, &err), "%s", err.text);
    ck_assert_uint_eq(m.workflows[0].step_count, STEPS);
    ck_assert_uint_eq(m.workflows[0].steps[STEPS - 1].deps[0], STEPS - 2);
    orbc_module_free(&m);
    free(bytes);
    free(steps);
    free(deps);
    orbc_builder_free(b);
}
END_TEST

/* A streaming builder writes code and steps as they come: the file must not change. */
START_TEST(streamed_builder_gives_the_same_bytes)
{
    uint8_t *kept = NULL, *streamed = NULL;
    size_t kept_len = 0, streamed_len = 0;
    OrbcError err;
    OrbcBuilder *b = sample_builder();
    ck_assert_msg(orbc_builder_finish(b, &kept, &kept_len, &err), "%s", err.text);
    orbc_builder_free(b);
    b = sample_build_in(orbc_builder_new_streaming());
    ck_assert_ptr_null(orbc_builder_workflow(b, 0));
    ck_assert_msg(orbc_builder_finish(b, &streamed, &streamed_len, &err), "%s", err.text);
    orbc_builder_free(b);
    ck_assert_uint_eq(kept_len, streamed_len);
    ck_assert_int_eq(memcmp(kept, streamed, kept_len), 0);
    free(kept);
    free(streamed);
}
END_TEST

/* Workflows added step by step; a wrong step count fails the build. */
START_TEST(streamed_workflow_step_by_step)
{
    for (int streaming = 0; streaming < 2; streaming++) {
        OrbcBuilder *b = streaming ? orbc_builder_new_streaming() : orbc_builder_new();
        uint32_t file = orbc_add_cstring(b, "one.orbit");
        uint32_t any = orbc_type_simple(b, ORBC_TYPE_ANY);
        OrbcWorkflow w = { orbc_add_cstring(b, "one"), file, 1, 1, any, any, 0, ORBC_NONE,
                           1, NULL };
        ck_assert_uint_eq(orbc_workflow_begin(b, &w), 0);
        OrbcStep s = sample_blank_step(b, "a", ORBC_STEP_COMPUTE);
        orbc_code_begin(b, file);
        orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_int(b, 7));
        s.value_code = orbc_code_end(b);
        orbc_workflow_step(b, &s);
        orbc_code_begin(b, file);
        orbc_emit_u32(b, ORBC_OP_STEP, 0);
        orbc_workflow_end(b, orbc_code_end(b));
        uint8_t *bytes = NULL;
        size_t len = 0;
        OrbcError err;
        ck_assert_msg(orbc_builder_finish(b, &bytes, &len, &err), "%s", err.text);
        OrbcModule m;
        ck_assert_msg(orbc_load(bytes, len, &m, &err), "%s", err.text);
        ck_assert_uint_eq(m.workflows[0].return_code, 1);
        ck_assert_uint_eq(m.workflows[0].steps[0].value_code, 0);
        orbc_module_free(&m);
        free(bytes);
        orbc_builder_free(b);

        b = streaming ? orbc_builder_new_streaming() : orbc_builder_new();
        w.step_count = 2;
        orbc_workflow_begin(b, &w);
        orbc_workflow_step(b, &s);
        orbc_workflow_end(b, ORBC_NONE);
        ck_assert(!orbc_builder_finish(b, &bytes, &len, &err));
        ck_assert_ptr_null(bytes);
        orbc_builder_free(b);
    }
}
END_TEST

/* Adds the workflow "w" made of the one step `s`, whose code is already emitted. */
static void add_single_step_workflow(OrbcBuilder *b, uint32_t file, uint32_t any,
                                     const OrbcStep *s)
{
    OrbcWorkflow w = { orbc_add_cstring(b, "w"), file, 1, 1, any, any, 0, ORBC_NONE, 1, NULL };
    orbc_workflow_begin(b, &w);
    orbc_workflow_step(b, s);
    orbc_workflow_end(b, ORBC_NONE);
}

/* The builder tracks the operand stack of each block: a list of ORBC_MAX_STACK values
 * loads; one more, which the loader would reject, makes finish fail (in both modes). */
START_TEST(builder_refuses_a_stack_too_deep)
{
    for (int streaming = 0; streaming < 2; streaming++) {
        for (uint32_t n = ORBC_MAX_STACK; n <= ORBC_MAX_STACK + 1; n++) {
            OrbcBuilder *b = streaming ? orbc_builder_new_streaming() : orbc_builder_new();
            uint32_t file = orbc_add_cstring(b, "wide.orbit");
            uint32_t any = orbc_type_simple(b, ORBC_TYPE_ANY);
            OrbcStep s = sample_blank_step(b, "a", ORBC_STEP_COMPUTE);
            orbc_code_begin(b, file);
            uint32_t one = orbc_const_int(b, 1);
            for (uint32_t i = 0; i < n; i++)
                orbc_emit_u32(b, ORBC_OP_CONST, one);
            ck_assert_uint_eq(orbc_code_max_stack(b), n);
            orbc_emit_u32(b, ORBC_OP_LIST, n);
            s.value_code = orbc_code_end(b);
            add_single_step_workflow(b, file, any, &s);
            uint8_t *bytes = NULL;
            size_t len = 0;
            OrbcError err;
            bool ok = orbc_builder_finish(b, &bytes, &len, &err);
            if (n <= ORBC_MAX_STACK) {
                ck_assert_msg(ok, "%s", err.text);
                OrbcModule m;
                ck_assert_msg(orbc_load(bytes, len, &m, &err), "%s", err.text);
                orbc_module_free(&m);
            } else {
                ck_assert(!ok);
                ck_assert_ptr_null(bytes);
                ck_assert_ptr_nonnull(strstr(err.text, "operand stack"));
            }
            free(bytes);
            orbc_builder_free(b);
        }
    }
}
END_TEST

/* A record type or a retry policy past ORBC_MAX_COUNT also makes finish fail. */
START_TEST(builder_refuses_counts_past_the_limit)
{
    enum { N = ORBC_MAX_COUNT + 1 };
    OrbcField *fields = calloc(N, sizeof *fields);
    uint32_t *codes = calloc(N, sizeof *codes);
    ck_assert_ptr_nonnull(fields);
    ck_assert_ptr_nonnull(codes);
    for (int which = 0; which < 2; which++) {
        OrbcBuilder *b = orbc_builder_new_streaming();
        uint32_t file = orbc_add_cstring(b, "big.orbit");
        uint32_t any = orbc_type_simple(b, ORBC_TYPE_ANY);
        for (uint32_t i = 0; i < N; i++) {
            char name[16];
            snprintf(name, sizeof name, "f%u", i);
            fields[i] = (OrbcField){ orbc_add_cstring(b, name), any, false };
            codes[i] = fields[i].name;
        }
        if (which == 0)
            orbc_type_record(b, ORBC_NONE, N, fields);
        OrbcStep s = sample_blank_step(b, "a", ORBC_STEP_COMPUTE);
        if (which == 1) {
            s.policy.non_retryable = codes;
            s.policy.non_retryable_count = N;
        }
        orbc_code_begin(b, file);
        orbc_emit_u32(b, ORBC_OP_CONST, orbc_const_int(b, 1));
        s.value_code = orbc_code_end(b);
        add_single_step_workflow(b, file, any, &s);
        uint8_t *bytes = NULL;
        size_t len = 0;
        OrbcError err;
        ck_assert(!orbc_builder_finish(b, &bytes, &len, &err));
        ck_assert_ptr_nonnull(strstr(err.text, which == 0 ? "record type" : "non_retryable"));
        orbc_builder_free(b);
    }
    free(fields);
    free(codes);
}
END_TEST

static Suite *orbc_suite(void)
{
    Suite *s = suite_create("orbc");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, crc32c_check_value);
    tcase_add_test(tc, crc32c_paths_agree);
    tcase_add_test(tc, sample_loads);
    tcase_add_test(tc, round_trip_is_identical);
    tcase_add_test(tc, builder_dedups_in_first_use_order);
    tcase_add_test(tc, disassembly_shows_everything);
    tcase_add_test(tc, pos_at_finds_the_covering_entry);
    tcase_add_test(tc, write_file_is_atomic);
    tcase_add_test(tc, streamed_builder_gives_the_same_bytes);
    tcase_add_test(tc, streamed_workflow_step_by_step);
    tcase_add_test(tc, builder_refuses_a_stack_too_deep);
    tcase_add_test(tc, builder_refuses_counts_past_the_limit);
    suite_add_tcase(s, tc);
    /* A module of 100,000 steps takes about a second under ASan on a quiet machine, more
     * than Check's default 4 seconds on a loaded one: the bound guards against a hang,
     * it does not time anything. (The same for three modules of 60,000.) */
    TCase *large = tcase_create("large");
    tcase_add_test(large, hundred_thousand_steps_load);
    tcase_add_test(large, output_in_pieces_writes_the_same_bytes);
    tcase_set_timeout(large, 120);
    suite_add_tcase(s, large);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(orbc_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
