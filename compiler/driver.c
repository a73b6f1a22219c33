#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker.h"
#include "memory.h"
#include "parse.h"
#include "suppress.h"

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

/* --- reading --- */

/* Waits until `fd` (a non-blocking stream, e.g. an inherited standard input) has data. */
static void wait_readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
}

/* Reads `fd` from where it stands to its end, or to `limit` + 1 bytes, whichever comes
 * first (so that a caller sees that a stream goes on past its limit without reading it
 * all: /dev/zero ends too). `size_hint` is the size of a regular file, 0 for a stream.
 * The buffer is malloc'd with a NUL after the *len bytes. NULL with *error set when a
 * read fails or memory runs out. */
static char *read_up_to(int fd, size_t size_hint, size_t limit, size_t *len,
                        const char **error)
{
    size_t cap = size_hint < limit ? size_hint + 1 : limit + 1;
    if (size_hint == 0 && cap > (1u << 16))
        cap = 1u << 16;
    char *text = big_buffer_alloc(cap + 1);
    size_t used = 0;
    while (text && used <= limit) {
        if (used == cap) {
            cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *grown = realloc(text, cap + 1);
            if (!grown)
                break;
            text = grown;
        }
        ssize_t got = read(fd, text + used, cap - used);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            wait_readable(fd);
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *error = strerror(errno);
            free(text);
            return NULL;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    if (!text || (used == cap && used <= limit)) {  /* memory ran out */
        free(text);
        *error = "out of memory";
        return NULL;
    }
    text[used] = '\0';
    *len = used;
    return text;
}

static char *empty_text(void)
{
    char *text = xmalloc(1);
    text[0] = '\0';
    return text;
}

/* Adds `name` empty, with E0010 saying why its `size` bytes were not taken. */
static void add_too_large(Compiler *c, const char *name, uint64_t size, bool stream)
{
    uint32_t file = driver_add_source(c, name, empty_text(), 0);
    if (stream)
        diag_report(&c->diags, E0010, source_span(&c->sources, file, 0, 0),
                    "source file is too large: more than the limit of %u MiB",
                    (unsigned)(SOURCE_MAX_FILE_SIZE >> 20));
    else if (size > SOURCE_MAX_FILE_SIZE)
        parse_report_file_too_large(c, file, size);
    else
        parse_report_sources_too_large(c, file, size);
}

/* Reads the open file `fd` and adds it as `name`. A regular file larger than the limits
 * is added empty with E0010 without being read; a stream (pipe, character device) is read
 * up to the limit. */
static bool add_open_file(Compiler *c, int fd, const char *name, bool regular_only,
                          const char **error)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *error = strerror(errno);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        *error = "is a directory";
        return false;
    }
    bool regular = S_ISREG(st.st_mode);
    if (!regular && regular_only) {
        *error = "not a regular file";
        return false;
    }
    uint64_t room = source_room(&c->sources);
    if (regular && ((uint64_t)st.st_size > SOURCE_MAX_FILE_SIZE || (uint64_t)st.st_size >= room)) {
        add_too_large(c, name, (uint64_t)st.st_size, false);
        return true;
    }
    size_t len = 0;
    char *text = read_up_to(fd, regular ? (size_t)st.st_size : 0, SOURCE_MAX_FILE_SIZE, &len,
                            error);
    if (!text)
        return false;
    if (len > SOURCE_MAX_FILE_SIZE || len >= room) {
        free(text);
        add_too_large(c, name, len, len > SOURCE_MAX_FILE_SIZE);
        return true;
    }
    driver_add_source(c, name, text, (uint32_t)len);  /* a file that changed while read is
                                                         taken as it was read */
    return true;
}

static bool add_path(Compiler *c, const char *path, bool regular_only, const char **error)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (regular_only ? O_NONBLOCK : 0));
    if (fd < 0) {
        *error = strerror(errno);
        return false;
    }
    bool ok = add_open_file(c, fd, path, regular_only, error);
    close(fd);
    return ok;
}

bool driver_add_file(Compiler *c, const char *path, const char **error)
{
    return add_path(c, path, false, error);
}

bool driver_add_found_file(Compiler *c, const char *path, const char **error)
{
    return add_path(c, path, true, error);
}

bool driver_add_fd(Compiler *c, int fd, const char *name, const char **error)
{
    return add_open_file(c, fd, name, false, error);
}

uint8_t *driver_read_binary(const char *path, size_t limit, size_t *len, const char **error)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *error = strerror(errno);
        if (fd >= 0 && !is_stdin)
            close(fd);
        return NULL;
    }
    char *bytes = NULL;
    if (S_ISDIR(st.st_mode))
        *error = "is a directory";
    else
        bytes = read_up_to(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, limit, len, error);
    if (!is_stdin)
        close(fd);
    return (uint8_t *)bytes;
}

void driver_parse(Compiler *c)
{
    uint32_t count = c->sources.count;
    c->asts = xrealloc(c->asts, count * sizeof *c->asts);
    for (uint32_t i = c->ast_count; i < count; i++)
        c->asts[i] = parse_source(c, i);
    c->ast_count = count;
}

Program *driver_check_files(Compiler *c, const uint32_t *files, uint32_t count)
{
    SourceAst **all = c->asts;
    uint32_t all_count = c->ast_count;
    SourceAst **program = xmalloc((count + 1) * sizeof *program);
    program[0] = all[0];
    for (uint32_t i = 0; i < count; i++)
        program[i + 1] = all[files[i]];
    c->asts = program;   /* the checker and the suppressions see these files only */
    c->ast_count = count + 1;
    uint32_t first = c->diags.count;
    Program *checked = check_program(c);
    suppress_apply(c, first);
    c->asts = all;
    c->ast_count = all_count;
    free(program);
    return checked;
}

Program *driver_check(Compiler *c)
{
    driver_parse(c);
    uint32_t count = c->ast_count - 1;
    uint32_t *files = xmalloc((count + 1) * sizeof *files);
    for (uint32_t i = 0; i < count; i++)
        files[i] = i + 1;
    Program *program = driver_check_files(c, files, count);
    free(files);
    diag_finish(&c->diags);
    return program;
}
