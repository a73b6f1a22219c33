#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checker.h"
#include "parse.h"

extern const char orbit_stdlib_source[];
extern const unsigned orbit_stdlib_source_len;

void driver_init(Compiler *c)
{
    memset(c, 0, sizeof *c);
    arena_init(&c->arena);
    interner_init(&c->names, &c->arena);
    source_map_init(&c->sources);
    diag_sink_init(&c->diags, &c->arena);
    source_map_add(&c->sources, "<stdlib>/orbit.orbit", (char *)orbit_stdlib_source,
                   orbit_stdlib_source_len, true);
}

void driver_free(Compiler *c)
{
    free(c->asts);
    diag_sink_free(&c->diags);
    source_map_free(&c->sources);
    interner_free(&c->names);
    arena_free(&c->arena);
}

uint32_t driver_add_source(Compiler *c, const char *path, char *text, uint32_t len)
{
    return source_map_add(&c->sources, path, text, len, false);
}

static char *empty_text(void)
{
    char *text = malloc(1);
    if (!text) {
        fprintf(stderr, "orbitc: out of memory\n");
        exit(2);
    }
    text[0] = '\0';
    return text;
}

bool driver_add_file(Compiler *c, const char *path, const char **error)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *error = strerror(errno);
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
        fclose(f);
        return false;
    }
    uint64_t room = source_room(&c->sources);
    if ((unsigned long long)st.st_size > SOURCE_MAX_FILE_SIZE ||
        (uint64_t)st.st_size >= room) {
        fclose(f);
        uint32_t file = driver_add_source(c, path, empty_text(), 0);
        if ((unsigned long long)st.st_size > SOURCE_MAX_FILE_SIZE)
            parse_report_file_too_large(c, file, (uint64_t)st.st_size);
        else
            parse_report_sources_too_large(c, file, (uint64_t)st.st_size);
        return true;
    }
    size_t size = (size_t)st.st_size;
    char *text = big_buffer_alloc(size + 1);
    if (!text) {
        fclose(f);
        *error = "out of memory";
        return false;
    }
    size_t got = fread(text, 1, size, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        *error = strerror(errno ? errno : EIO);
        return false;
    }
    text[got] = '\0';  /* a file that shrank while read is taken as it was read */
    driver_add_source(c, path, text, (uint32_t)got);
    return true;
}

Program *driver_check(Compiler *c)
{
    uint32_t count = c->sources.count;
    c->asts = calloc(count, sizeof *c->asts);
    if (!c->asts) {
        fprintf(stderr, "orbitc: out of memory\n");
        exit(2);
    }
    for (uint32_t i = 0; i < count; i++)
        c->asts[i] = parse_source(c, i);
    c->ast_count = count;
    Program *program = check_program(c);
    diag_finish(&c->diags);
    return program;
}
