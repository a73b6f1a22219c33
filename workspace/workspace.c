#include "workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_cache.h"
#include "checker.h"
#include "file_index.h"
#include "hash.h"
#include "memory.h"

void workspace_init(Workspace *w, Compiler *c, bool by_roots)
{
    memset(w, 0, sizeof *w);
    w->c = c;
    w->by_roots = by_roots;
    roots_init(&w->roots);
    memset(w->overrides, LINT_DEFAULT, sizeof w->overrides);
}

void workspace_free(Workspace *w)
{
    free(w->checked);
    free(w->hashes);
    roots_free(&w->roots);
    inputs_free(&w->inputs);
}

/* --- loading --- */

void workspace_collect(Workspace *w, const char *const *paths, int count,
                       const char *stdin_name)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);   /* before any file is looked at */
    w->start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    w->paths_hash = hash_fnv1a(HASH_FNV1A_START, &count, sizeof count);
    for (int i = 0; i < count; i++)
        w->paths_hash = hash_fnv1a(w->paths_hash, paths[i], strlen(paths[i]) + 1);
    if (stdin_name)
        w->paths_hash = hash_fnv1a(w->paths_hash, stdin_name, strlen(stdin_name) + 1);
    w->inputs.report = w->report;
    w->inputs.report_context = w->report_context;
    inputs_collect(&w->inputs, paths, count);
    inputs_name_stdin(&w->inputs, stdin_name);
    w->failures += w->inputs.failures;
}

/* The program a file at `path` belongs to: its root's, or the only one. */
static uint32_t program_of(Workspace *w, const char *path)
{
    return w->by_roots ? roots_find(&w->roots, w->c, path)
                       : roots_unrooted(&w->roots);
}

/* The program of an input: with the real directory a walk found, that of the input
 * before it when they share it (the files of a directory come one after the other). */
static uint32_t input_program(Workspace *w, const Input *input)
{
    if (!w->by_roots || !input->real_dir)
        return program_of(w, input->path);
    if (!w->last_dir || strcmp(w->last_dir, input->real_dir) != 0) {
        w->last_dir = input->real_dir;
        w->last_program = roots_find_in(&w->roots, w->c, input->real_dir, input->marker_here);
    }
    return w->last_program;
}

/* Sets the content hash of source `file`. */
static void set_hash(Workspace *w, uint32_t file, uint64_t hash)
{
    if (file >= w->hash_cap) {
        uint32_t cap = w->hash_cap ? w->hash_cap : 64;
        while (cap <= file)
            cap *= 2;
        w->hashes = xrealloc(w->hashes, cap * sizeof *w->hashes);
        memset(w->hashes + w->hash_cap, 0, (cap - w->hash_cap) * sizeof *w->hashes);
        w->hash_cap = cap;
    }
    w->hashes[file] = (SourceHash){ hash, true };
}

/* With a file index: the input added unread when its record says what it holds. */
static bool add_unread(Workspace *w, const Input *input, uint32_t *file)
{
    uint64_t hash;
    if (!compiler_fits(w->c, (uint64_t)input->size) || !file_index_lookup(w->index, input, &hash))
        return false;
    *file = compiler_add_source(w->c, input->path, NULL, (uint32_t)input->size);
    set_hash(w, *file, hash);
    return true;
}


uint32_t workspace_add_text(Workspace *w, const char *path, char *text, size_t len)
{
    Compiler *c = w->c;
    uint32_t file;
    if (compiler_fits(c, len)) {
        file = compiler_add_source(c, path, text, (uint32_t)len);
    } else {
        free(text);
        file = compiler_add_too_large(c, path, len, false);
    }
    roots_add_file(&w->roots, program_of(w, path), file);
    return file;
}

/* --- the pipeline --- */

/* Parses what is not parsed yet and configures the programs (their names and lint
 * levels, reporting the configurations' mistakes). */
static void prepare(Workspace *w, Compiler *c)
{
    if (c->sources.count <= 1)
        return;
    if (w->threads_parse) {
        for (uint32_t i = 0; i < w->roots.count; i++)
            if (w->roots.items[i].config_file && !w->roots.items[i].config_unread)
                compiler_parse_only(c, &w->roots.items[i].config_file, 1);
    } else {
        compiler_parse(c);
    }
    roots_configure(&w->roots, c);
}

/* Checks each program with its lint levels and finishes the diagnostics. */
static void check_each(Workspace *w, Compiler *c, Program **checked)
{
    for (uint32_t i = 0; i < w->roots.count; i++)
        checked[i] = roots_check(&w->roots, c, i, w->overrides, &w->check);
    diag_finish(&c->diags);
}

/* A configuration as an input of the file index: its stat (following links, as opening
 * it does); false when it has none. */
static bool config_input(const Root *root, Input *input)
{
    struct stat st;
    if (stat(root->config_path, &st) != 0)
        return false;
    *input = (Input){ .path = root->config_path, .known = true, .regular = S_ISREG(st.st_mode),
                      .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
                      .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                      .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec };
    return true;
}

/* With a file index: root `i`'s orbit.program added unread when the index knows its
 * content and that it configures nothing but levels, without a mistake
 * (cache_config_clean): a program found in the cache then never needs it, and one
 * checked reads and configures it on its thread (check_jobs.c). */
static bool add_config_unread(Workspace *w, uint32_t i, bool *recorded)
{
    Root *root = &w->roots.items[i];
    Input input;
    uint64_t hash;
    if (!w->cache || !config_input(root, &input) || !compiler_fits(w->c, (uint64_t)input.size)
        || !(*recorded = file_index_lookup(w->index, &input, &hash))
        || !cache_config_clean(w->cache, root->config_path, hash))
        return false;
    root->config_file = compiler_add_source(w->c, root->config_path, NULL, (uint32_t)input.size);
    root->config_unread = true;
    set_hash(w, root->config_file, hash);
    return true;
}

/* Reads root `i`'s orbit.program; with a file index, records its stat and hash (unless
 * the index's record of it was taken already). */
static void read_config(Workspace *w, uint32_t i, bool recorded)
{
    Root *root = &w->roots.items[i];
    Input input;
    bool known = w->index && !recorded && config_input(root, &input);
    roots_read_config(&w->roots, i, w->c, w->report, w->report_context, &w->failures);
    if (!w->index || !root->config_file)
        return;
    const SourceFile *f = source_file(&w->c->sources, root->config_file);
    uint64_t hash = workspace_hash_text(f->text, f->len);
    set_hash(w, root->config_file, hash);
    if (known)
        file_index_record(w->index, &input, f->len, hash);
}

/* Tells the cache which configurations read this run have no mistake and no `files`
 * block: the next run may leave them unread. */
static void record_clean_configs(Workspace *w)
{
    const Compiler *c = w->c;
    bool *mistaken = xcalloc(c->sources.count, sizeof *mistaken);
    for (uint32_t d = 0; d < c->diags.count; d++)
        mistaken[source_file_at(&c->sources, c->diags.items[d]->span.start)] = true;
    for (uint32_t i = 0; i < w->roots.count; i++) {
        const Root *root = &w->roots.items[i];
        if (root->config_file && !root->config_unread && !mistaken[root->config_file]
            && root->file_level_count == 0)
            cache_record_config(w->cache, root->config_path,
                                      workspace_source_hash(w, root->config_file));
    }
    free(mistaken);
}

void workspace_prepare(Workspace *w)
{
    if (w->prepared)
        return;
    w->prepared = true;
    for (uint32_t i = 0; i < w->roots.count; i++) {
        bool recorded = false;
        if (w->roots.items[i].config_path && !(w->index && add_config_unread(w, i, &recorded)))
            read_config(w, i, recorded);
    }
    prepare(w, w->c);
    if (w->index)
        record_clean_configs(w);
}

void workspace_check(Workspace *w)
{
    workspace_prepare(w);
    free(w->checked);
    w->checked = xcalloc(w->roots.count + 1, sizeof *w->checked);
    check_each(w, w->c, w->checked);
}

Program **workspace_check_again(Workspace *w, Compiler *other)
{
    Program **checked = xcalloc(w->roots.count + 1, sizeof *checked);
    prepare(w, other);
    check_each(w, other, checked);
    return checked;
}

bool workspace_program_failed(const Workspace *w, uint32_t root, bool deny_warnings)
{
    return roots_failed(&w->roots, w->c, root, deny_warnings);
}

/* --- sources read on demand --- */

uint64_t workspace_hash_text(const char *text, size_t len)
{
    return hash_wide(HASH_FNV1A_START, text, len);
}

uint64_t workspace_source_hash(const Workspace *w, uint32_t file)
{
    if (file < w->hash_cap && w->hashes[file].known)
        return w->hashes[file].hash;
    const SourceFile *f = source_file(&w->c->sources, file);
    return workspace_hash_text(f->text, f->len);
}

/* The text of unread source `file`: the file as it is now when it is still what the
 * index said, else (it changed meanwhile) as many bytes of it as the source has room for,
 * with w->stale set. */
static char *read_unread(Workspace *w, uint32_t file)
{
    const SourceFile *f = source_file(&w->c->sources, file);
    size_t len = 0;
    const char *error = NULL;
    char *text = (char *)workspace_read_binary(f->path, f->len, &len, &error);
    if (text && len == f->len && workspace_hash_text(text, len) == w->hashes[file].hash)
        return text;
    w->stale = true;
    char *kept = xcalloc((size_t)f->len + 1, 1);
    if (text)
        memcpy(kept, text, len < f->len ? len : f->len);
    free(text);
    return kept;
}

void workspace_load_sources(Workspace *w, Compiler *view, const uint32_t *files,
                            uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        SourceFile *f = &w->c->sources.files[files[i]];
        if (!f->text)
            f->text = read_unread(w, files[i]);
        view->sources.files[files[i]].text = f->text;
    }
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

/* What reading a file gave, before it is added (add_read): the two halves of adding a
 * file, so that threads can read ahead (read_ahead) and the sources be added in order. */
typedef struct ReadFile {
    bool tried;              /* read_ahead read it (else it is read when added) */
    const char *error;       /* it could not be opened or is not a file: nothing read */
    bool regular;
    uint64_t size;           /* a regular file's, from fstat */
    char *text;              /* malloc'd, NUL after len; NULL: not read (read_error) */
    size_t len;
    const char *read_error;
} ReadFile;

/* The first half: fstat and read the open file `fd`; a regular file that would not fit
 * (in `c`; without `c`, over SOURCE_MAX_FILE_SIZE) is not read. */
static void read_open_file(int fd, const Compiler *c, bool regular_only, ReadFile *rf)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rf->error = strerror(errno);
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        rf->error = "is a directory";
        return;
    }
    rf->regular = S_ISREG(st.st_mode);
    if (!rf->regular && regular_only) {
        rf->error = "not a regular file";
        return;
    }
    rf->size = rf->regular ? (uint64_t)st.st_size : 0;
    if (rf->regular && (c ? !compiler_fits(c, rf->size) : rf->size > SOURCE_MAX_FILE_SIZE))
        return;
    rf->text = read_up_to(fd, (size_t)rf->size, SOURCE_MAX_FILE_SIZE, &rf->len,
                          &rf->read_error);
}

/* The second half: adds what was read as `name`. A regular file larger than the limits
 * is added empty with E0010 (not read); a stream (pipe, character device) was read up to
 * the limit. */
static bool add_read(Compiler *c, const char *name, ReadFile *rf, const char **error)
{
    if (rf->error) {
        *error = rf->error;
        return false;
    }
    if (rf->regular && !compiler_fits(c, rf->size)) {
        free(rf->text);
        compiler_add_too_large(c, name, rf->size, false);
        return true;
    }
    if (!rf->text) {
        *error = rf->read_error;
        return false;
    }
    if (!compiler_fits(c, rf->len)) {
        free(rf->text);
        compiler_add_too_large(c, name, rf->len, rf->len > SOURCE_MAX_FILE_SIZE);
        return true;
    }
    compiler_add_source(c, name, rf->text, (uint32_t)rf->len);  /* a file that changed
                                                                 while read is taken as
                                                                 it was read */
    return true;
}

static bool add_open_file(Compiler *c, int fd, const char *name, bool regular_only,
                          const char **error)
{
    ReadFile rf = { 0 };
    read_open_file(fd, c, regular_only, &rf);
    return add_read(c, name, &rf, error);
}

static int open_path(const char *path, bool regular_only)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (regular_only ? O_NONBLOCK : 0));
}

static bool add_path(Compiler *c, const char *path, bool regular_only, const char **error)
{
    int fd = open_path(path, regular_only);
    if (fd < 0) {
        *error = strerror(errno);
        return false;
    }
    bool ok = add_open_file(c, fd, path, regular_only, error);
    close(fd);
    return ok;
}

bool workspace_add_file(Compiler *c, const char *path, const char **error)
{
    return add_path(c, path, false, error);
}

bool workspace_add_found_file(Compiler *c, const char *path, const char **error)
{
    return add_path(c, path, true, error);
}

char *workspace_read_fd(int fd, size_t size_hint, size_t limit, size_t *len, const char **error)
{
    return read_up_to(fd, size_hint, limit, len, error);
}

bool workspace_add_fd(Compiler *c, int fd, const char *name, const char **error)
{
    return add_open_file(c, fd, name, false, error);
}

uint8_t *workspace_read_binary(const char *path, size_t limit, size_t *len, const char **error)
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

/* --- reading the inputs --- */

/* Reads `input` (or adds what read_ahead read of it) into the run's compiler. */
static uint32_t read_input(Workspace *w, const Input *input, ReadFile *ahead)
{
    Compiler *c = w->c;
    const char *error = NULL;
    uint32_t file = c->sources.count;
    bool ok = (w->index && add_unread(w, input, &file))
              || (ahead && ahead->tried ? add_read(c, input->path, ahead, &error)
                  : input->from_stdin   ? workspace_add_fd(c, STDIN_FILENO, input->path, &error)
                  : input->found        ? workspace_add_found_file(c, input->path, &error)
                                        : workspace_add_file(c, input->path, &error));
    if (!ok) {
        inputs_report_unreadable(w->report, w->report_context,
                                 input->from_stdin ? "-" : input->path, error);
        w->failures++;
        return UINT32_MAX;
    }
    const SourceFile *f = source_file(&c->sources, file);
    if (w->index && f->text) {   /* read now: hashed, and recorded for the next run */
        uint64_t hash = workspace_hash_text(f->text, f->len);
        set_hash(w, file, hash);
        file_index_record(w->index, input, f->len, hash);
    }
    roots_add_file(&w->roots, input_program(w, input), file);
    return file;
}

uint32_t workspace_read_input(Workspace *w, const Input *input)
{
    return read_input(w, input, NULL);
}

/* Reading ahead: the files found by walking directories (but those the file index knows,
 * which are not read at all) are opened and read by Workspace.read_threads threads, each
 * taking the next one not taken; the sources are then added in order by this thread, as
 * if read here (the same texts, errors and positions). The system's copying of the
 * files' bytes is then shared between the processors instead of coming before any
 * checking. Which files are to be read is decided first, here: on a warm run (the index
 * knows every file) no thread is started. */
typedef struct ReadAhead {
    const InputList *inputs;
    const size_t *todo;       /* the inputs to read, in order */
    size_t todo_count;
    ReadFile *files;          /* [inputs->count] */
    atomic_size_t next;       /* the next of `todo` to take */
} ReadAhead;

static void *read_some(void *arg)
{
    ReadAhead *ra = arg;
    for (size_t k; (k = atomic_fetch_add(&ra->next, 1)) < ra->todo_count;) {
        const Input *input = &ra->inputs->items[ra->todo[k]];
        ReadFile *rf = &ra->files[ra->todo[k]];
        rf->tried = true;
        int fd = open_path(input->path, true);
        if (fd < 0) {
            rf->error = strerror(errno);
            continue;
        }
        read_open_file(fd, NULL, true, rf);
        close(fd);
    }
    return NULL;
}

/* The inputs found by the walk that the file index does not know, by index. */
static size_t *to_read(const Workspace *w, size_t *count)
{
    size_t *todo = xmalloc((w->inputs.count + 1) * sizeof *todo);
    uint32_t cursor = 0;
    *count = 0;
    for (size_t i = 0; i < w->inputs.count; i++) {
        const Input *input = &w->inputs.items[i];
        if (input->found && !input->from_stdin
            && !(w->index && file_index_knows(w->index, input, &cursor)))
            todo[(*count)++] = i;
    }
    return todo;
}

/* What the threads read, by input (NULL: nothing to read ahead). */
static ReadFile *read_ahead(const Workspace *w)
{
    ReadAhead ra = { .inputs = &w->inputs };
    size_t *todo = to_read(w, &ra.todo_count);
    ra.todo = todo;
    if (ra.todo_count < 2) {   /* nothing to share */
        free(todo);
        return NULL;
    }
    ra.files = xcalloc(w->inputs.count + 1, sizeof *ra.files);
    atomic_init(&ra.next, 0);
    unsigned threads = w->read_threads;   /* no more than there are files to read */
    if (threads > WORKSPACE_THREADS_MAX)
        threads = WORKSPACE_THREADS_MAX;
    if (threads > ra.todo_count)
        threads = (unsigned)ra.todo_count;
    pthread_t *ids = xcalloc(threads, sizeof *ids);
    bool *started = xcalloc(threads, sizeof *started);
    for (unsigned i = 1; i < threads; i++)
        started[i] = pthread_create(&ids[i], NULL, read_some, &ra) == 0;
    read_some(&ra);   /* a thread that could not start leaves its share to the others */
    for (unsigned i = 1; i < threads; i++)
        if (started[i])
            pthread_join(ids[i], NULL);
    free(started);
    free(ids);
    free(todo);
    return ra.files;
}

void workspace_read_inputs(Workspace *w)
{
    if (w->cache)
        w->index = cache_index(w->cache, w);
    ReadFile *ahead = w->read_threads > 1 && w->inputs.count > 1 ? read_ahead(w) : NULL;
    for (size_t i = 0; i < w->inputs.count; i++)
        read_input(w, &w->inputs.items[i], ahead ? &ahead[i] : NULL);
    free(ahead);
}
