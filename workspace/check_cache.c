/* The cache of `orbitc check` (check_cache.h): keys, and entries as JSON with jansson. */
#define _GNU_SOURCE   /* dl_iterate_phdr */
#include "check_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "memory.h"
#include "replace_file.h"
#include "version.h"
#include "workspace.h"

#ifdef __ELF__   /* not WebAssembly (the playground compiles this file too) */
#include <elf.h>
#include <link.h>
#endif

/* The version of the entries' format: a change of it (or of orbitc) changes every key. */
#define ENTRY_FORMAT "orbitc check cache 2"

/* The largest entry written and read: a program with more diagnostics than fit is not
 * cached, and a larger file was not written by orbitc (it is taken as corrupt). */
enum { ENTRY_MAX = 64u << 20 };

/* The largest file index read: 8 M files (56 bytes each and their paths) */
enum { INDEX_MAX = 1u << 30 };

char *cache_default_dir(const char **ignored)
{
    const char *dir = getenv("ORBITC_CACHE_DIR");
    *ignored = NULL;
    if (dir && dir[0] == '/')
        return xstrdup(dir);
    if (dir && dir[0])   /* relative: the directory it names depends on where orbitc runs */
        *ignored = dir;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *base = xdg && xdg[0] == '/' ? xdg : home && home[0] == '/' ? home : NULL;
    if (!base)
        return NULL;
    const char *tail = base == xdg ? "/orbitc" : "/.cache/orbitc";
    size_t len = strlen(base) + strlen(tail) + 1;
    char *path = xmalloc(len);
    snprintf(path, len, "%s%s", base, tail);
    return path;
}

/* `hash` continued over a field, its length included, so that no two sequences of
 * fields run together into the same bytes. */
static uint64_t hash_field(uint64_t hash, const void *bytes, size_t len)
{
    return hash_wide(hash, bytes, len);   /* which mixes the length in */
}

static uint64_t hash_text(uint64_t hash, const char *text)
{
    return hash_field(hash, text, strlen(text));
}

#ifdef __ELF__
/* Collects the GNU build ID of the executable (the first object dl_iterate_phdr
 * names): a hash the linker computes over the whole program. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uint64_t *hash = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *note = (const char *)(info->dlpi_addr + ph->p_vaddr);
        for (size_t at = 0; at + sizeof(ElfW(Nhdr)) <= ph->p_memsz;) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(note + at);
            size_t name = (n->n_namesz + 3) & ~(size_t)3, desc = (n->n_descsz + 3) & ~(size_t)3;
            const char *body = (const char *)(n + 1);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(body, "GNU", 4) == 0) {
                *hash = hash_field(*hash, body + name, n->n_descsz);
                return 1;
            }
            at += sizeof *n + name + desc;
        }
    }
    return 1;   /* the executable only */
}
#endif

/* This orbitc: its version and its build ID, so that a rebuilt orbitc of the same
 * version does not read what an older build wrote; without a build ID, the size, time
 * and inode of its executable. */
static uint64_t hash_orbitc(uint64_t hash)
{
    hash = hash_text(hash, ORBIT_VERSION);
    uint64_t with_id = hash;
#ifdef __ELF__
    dl_iterate_phdr(find_build_id, &with_id);
#endif
    if (with_id != hash)
        return with_id;
    struct stat st;
    if (stat("/proc/self/exe", &st) == 0) {
        int64_t identity[4] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
                                (int64_t)st.st_mtim.tv_nsec, (int64_t)st.st_ino };
        hash = hash_field(hash, identity, sizeof identity);
    }
    return hash;
}

/* Why a directory of the cache cannot be trusted (NULL: it can): another user's, or
 * one that others may write to (they could put an entry there, or take one away). */
static const char *untrusted(const struct stat *st)
{
    if (st->st_uid != geteuid())
        return "is owned by another user";
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return "is writable by other users";
    return NULL;
}

bool cache_open(CheckCache *cache, const char *dir)
{
    memset(cache, 0, sizeof *cache);
    json_object_seed(0);   /* jansson's hash seed, set before any thread makes an object */
    size_t len = strlen(dir) + sizeof "/check";
    cache->dir = xmalloc(len);
    snprintf(cache->dir, len, "%s/check", dir);
    pthread_mutex_init(&cache->lock, NULL);
    static const char *const below[] = { "", "/check", "/index" };
    for (size_t i = 0; i < sizeof below / sizeof *below && !cache->refused; i++) {
        size_t size = strlen(dir) + strlen(below[i]) + 1;
        char *path = xmalloc(size);
        snprintf(path, size, "%s%s", dir, below[i]);
        struct stat st;   /* missing, or not a directory: nothing is read from it */
        const char *why = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? untrusted(&st) : NULL;
        if (why) {
            size = strlen(path) + strlen(why) + 64;
            cache->refused = xmalloc(size);
            snprintf(cache->refused, size, "the cache directory `%s` %s (mode %04o)", path,
                     why, (unsigned)(st.st_mode & 07777));
        }
        free(path);
    }
    return !cache->refused;
}

/* Reads a file of the cache: a regular file of this user's that no one else may write,
 * of at most `limit` bytes. It is opened without following a symbolic link and without
 * blocking (a FIFO is refused, never waited for). NULL when there is none (*refused
 * false) or when there is one that is refused or cannot be read (*refused true). */
static uint8_t *read_cache_file(const char *path, size_t limit, size_t *len, bool *refused)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) {   /* none, or its directory is none: a miss (ELOOP: a link, refused) */
        *refused = errno != ENOENT && errno != ENOTDIR;
        return NULL;
    }
    struct stat st;
    const char *error = NULL;
    uint8_t *data = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !untrusted(&st)
        && (uint64_t)st.st_size <= limit)
        data = (uint8_t *)workspace_read_fd(fd, (size_t)st.st_size, limit, len, &error);
    close(fd);
    *refused = data == NULL;
    return data;
}

static void count_corrupt(CheckCache *cache, const char *path)
{
    pthread_mutex_lock(&cache->lock);
    if (cache->corrupt++ == 0)
        cache->first_corrupt = xstrdup(path);
    pthread_mutex_unlock(&cache->lock);
}

/* DIR/index/NAME for the tree of `w` (its current directory and the paths given). */
static char *index_path(const CheckCache *cache, const Workspace *w)
{
    char cwd[PATH_MAX];
    uint64_t hash = hash_field(cache->base_key, &w->paths_hash, sizeof w->paths_hash);
    hash = hash_text(hash, getcwd(cwd, sizeof cwd) ? cwd : "");
    size_t base = strlen(cache->dir) - strlen("check");   /* DIR/ */
    size_t len = base + sizeof "index/" + 16;
    char *path = xmalloc(len);
    snprintf(path, len, "%.*sindex/%016llx", (int)base, cache->dir, (unsigned long long)hash);
    return path;
}

FileIndex *cache_index(CheckCache *cache, const Workspace *w)
{
    const Compiler *c = w->c;
    const SourceFile *stdlib = source_file(&c->sources, 0);
    uint64_t hash = hash_text(HASH_FNV1A_START, ENTRY_FORMAT);
    hash = hash_orbitc(hash);
    hash = hash_field(hash, stdlib->text, stdlib->len);
    hash = hash_field(hash, w->overrides, sizeof w->overrides);
    uint8_t flags[2] = { w->check.check_only, w->check.ignore_suppressions };
    cache->base_key = hash_field(hash, flags, sizeof flags);
    file_index_init(&cache->index, w->start_ns);
    cache->index_path = index_path(cache, w);
    size_t len = 0;
    bool refused = false;
    uint8_t *data = read_cache_file(cache->index_path, INDEX_MAX, &len, &refused);
    if (refused || (data && !file_index_take(&cache->index, data, len)))
        count_corrupt(cache, cache->index_path);
    return &cache->index;
}

/* The key under which the file index lists a configuration without mistakes. */
static uint64_t config_key(const CheckCache *cache, const char *path, uint64_t hash)
{
    uint64_t key = hash_text(hash_text(cache->base_key, "orbit.program without mistakes"), path);
    return hash_field(key, &hash, sizeof hash);
}

bool cache_config_clean(CheckCache *cache, const char *path, uint64_t hash)
{
    if (!cache->index_path || !file_index_is_clean(&cache->index, config_key(cache, path, hash)))
        return false;
    cache_record_config(cache, path, hash);   /* kept in the index written */
    return true;
}

void cache_record_config(CheckCache *cache, const char *path, uint64_t hash)
{
    pthread_mutex_lock(&cache->lock);
    if (cache->index_path)
        file_index_record_clean(&cache->index, config_key(cache, path, hash));
    pthread_mutex_unlock(&cache->lock);
}

/* Writes `len` bytes as the file `path` of the cache, atomically, making its directory
 * when it is missing; false when it cannot be written. */
static bool write_file(const char *path, const void *bytes, size_t len);

void cache_close(CheckCache *cache)
{
    if (cache->index_path && file_index_changed(&cache->index)) {
        size_t len = 0;
        uint8_t *data = file_index_serialize(&cache->index, &len);
        write_file(cache->index_path, data, len);
        free(data);
    }
    file_index_free(&cache->index);
    pthread_mutex_destroy(&cache->lock);
    free(cache->dir);
    free(cache->index_path);
    free(cache->first_corrupt);
    free(cache->refused);
    memset(cache, 0, sizeof *cache);
}

/* A file: its path and its content's hash (known from the file index without reading
 * it). */
static uint64_t hash_file(uint64_t hash, const Workspace *w, uint32_t file)
{
    hash = hash_text(hash, source_file(&w->c->sources, file)->path);
    uint64_t content = workspace_source_hash(w, file);
    return hash_field(hash, &content, sizeof content);
}

/* With `files` blocks, where a file is below the root decides its levels: its path
 * relative to the root's real directory (root_relative_path, what the patterns match),
 * which the path as shown does not tell (`./pay.orbit` checked from legacy/ and from
 * src/, or through a symbolic link retargeted), nor the root's directory. That path is
 * the file's directory below the root and its name, which its path as shown holds: so
 * the key takes, at each file whose directory as shown is not the previous file's, its
 * index and that directory's place below the root (the files of a directory come
 * together: a few hashes per program, not one per file). */
static uint64_t hash_place(uint64_t hash, const Workspace *w, const Root *root, uint32_t i,
                           RootPaths *memo)
{
    const char *dir, *name;
    uint32_t resolved = memo->resolved;
    uint8_t below = root_relative_parts(w->c, root, root->files[i], memo, &dir, &name);
    if (memo->resolved == resolved)   /* the directory of the file before */
        return hash;
    hash = hash_field(hash, &i, sizeof i);
    hash = hash_field(hash, &below, sizeof below);
    return below ? hash_text(hash, dir) : hash;
}

uint64_t cache_key(const CheckCache *cache, const Workspace *w, uint32_t index)
{
    const Root *root = &w->roots.items[index];
    uint64_t hash = cache->base_key;
    hash = root->config_file ? hash_file(hash, w, root->config_file) : hash_text(hash, "");
    bool by_place = root->file_level_count > 0 && root->real_dir;   /* file_levels_apply */
    RootPaths memo = { 0 };
    hash = hash_field(hash, &root->file_count, sizeof root->file_count);
    for (uint32_t i = 0; i < root->file_count; i++) {
        hash = hash_file(hash, w, root->files[i]);
        if (by_place)
            hash = hash_place(hash, w, root, i, &memo);
    }
    root_paths_free(&memo);
    return hash;
}

static char *entry_path(const CheckCache *cache, uint64_t key)
{
    size_t len = strlen(cache->dir) + 32;
    char *path = xmalloc(len);
    snprintf(path, len, "%s/%016llx.json", cache->dir, (unsigned long long)key);
    return path;
}

/* --- the files of a program, numbered: 0 the standard library, 1 … n its files, n + 1
 * its orbit.program --- */

typedef struct Slots {
    const SourceMap *sources;
    const Root *root;
} Slots;

static uint32_t slot_count(const Slots *s)
{
    return s->root->file_count + 2;
}

/* The source index of slot `slot`, or UINT32_MAX when the program has no such file. */
static uint32_t slot_file(const Slots *s, uint32_t slot)
{
    if (slot == 0)
        return 0;
    if (slot <= s->root->file_count)
        return s->root->files[slot - 1];
    if (slot == s->root->file_count + 1 && s->root->config_file)
        return s->root->config_file;
    return UINT32_MAX;
}

/* The slot of source `file`, or UINT32_MAX. A root's files are added in the order they
 * are read, so their indexes ascend: a binary search finds one (and a file not found is
 * only a program not cached). */
static uint32_t file_slot(const Slots *s, uint32_t file)
{
    const Root *root = s->root;
    if (file == 0)
        return 0;
    if (root->config_file && file == root->config_file)
        return root->file_count + 1;
    uint32_t lo = 0, hi = root->file_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (root->files[mid] < file)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < root->file_count && root->files[lo] == file ? lo + 1 : UINT32_MAX;
}

/* --- writing an entry --- */

/* [slot, start, end] of a span, or NULL when it lies outside the program's files. */
static json_t *span_json(const Slots *s, Span span)
{
    uint32_t file = source_file_at(s->sources, span.start);
    uint32_t slot = file_slot(s, file);
    const SourceFile *f = source_file(s->sources, file);
    if (slot == UINT32_MAX || span.end < span.start || span.end - f->origin > f->len)
        return NULL;
    return json_pack("[I,I,I]", (json_int_t)slot, (json_int_t)(span.start - f->origin),
                     (json_int_t)(span.end - f->origin));
}

/* Appends `item` to `array`; false (and the array left as it is) when `item` is NULL. */
static bool append(json_t *array, json_t *item)
{
    return item && json_array_append_new(array, item) == 0;
}

/* A string as JSON: NULL for text that is not UTF-8 (jansson refuses it), so that what
 * is read back is always what was written. */
static json_t *text_json(const char *text)
{
    return text ? json_string(text) : json_null();
}

static json_t *texts_json(const DiagText *t)
{
    json_t *array = json_array();
    for (; t; t = t->next)
        if (!append(array, text_json(t->text))) {
            json_decref(array);
            return NULL;
        }
    return array;
}

static json_t *labels_json(const Slots *s, const DiagLabel *l)
{
    json_t *array = json_array();
    for (; l; l = l->next) {
        json_t *span = span_json(s, l->span), *message = text_json(l->message);
        if (!span || !message || !append(array, json_pack("[o,o]", span, message))) {
            json_decref(span);
            json_decref(message);
            json_decref(array);
            return NULL;
        }
    }
    return array;
}

static json_t *fixes_json(const Slots *s, const DiagFix *f)
{
    json_t *array = json_array();
    for (; f; f = f->next) {
        json_t *span = span_json(s, f->span), *replacement = text_json(f->replacement),
               *message = text_json(f->message);
        if (!span || !replacement || !message
            || !append(array, json_pack("[o,o,o,b]", span, replacement, message,
                                        f->applicability == FIX_MAYBE_INCORRECT))) {
            json_decref(span);
            json_decref(replacement);
            json_decref(message);
            json_decref(array);
            return NULL;
        }
    }
    return array;
}

static json_t *diagnostic_json(const Slots *s, const Diagnostic *d)
{
    json_t *parts[7] = {
        span_json(s, d->span), text_json(d->message), text_json(d->label),
        labels_json(s, d->labels), texts_json(d->notes), texts_json(d->helps),
        fixes_json(s, d->fixes),
    };
    for (int i = 0; i < 7; i++)
        if (!parts[i]) {
            for (int j = 0; j < 7; j++)
                json_decref(parts[j]);
            return NULL;
        }
    return json_pack("{s:s,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "code",
                     diag_info(d->code)->code, "error", d->severity == SEV_ERROR,
                     "span", parts[0], "message", parts[1], "label", parts[2],
                     "labels", parts[3], "notes", parts[4], "helps", parts[5],
                     "fixes", parts[6]);
}

/* mkdir -p of the cache's directory, each directory made private (0700, as the XDG Base
 * Directory specification asks of those it makes): a directory that exists is left as
 * it is (cache_open refused the cache if it was not to be trusted). */
static bool make_directories(const char *dir)
{
    char *path = xstrdup(dir);
    bool ok = true;
    for (char *p = path + 1; ok; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char was = *p;
        *p = '\0';
        ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = was;
        if (was == '\0')
            break;
    }
    free(path);
    return ok;
}

static bool write_file(const char *path, const void *bytes, size_t len)
{
    ReplaceWhy why;   /* 0600: the user's alone, to read and to write (read_cache_file) */
    if (replace_file_create(path, bytes, len, 0600, &why))
        return true;
    char *dir = xstrdup(path);   /* the directory, once made, is not made again */
    *strrchr(dir, '/') = '\0';
    bool ok = make_directories(dir) && replace_file_create(path, bytes, len, 0600, &why);
    free(dir);
    return ok;
}

static void record_clean(CheckCache *cache, uint64_t key)
{
    pthread_mutex_lock(&cache->lock);
    if (cache->index_path)
        file_index_record_clean(&cache->index, key);
    pthread_mutex_unlock(&cache->lock);
}

void cache_store(CheckCache *cache, const Workspace *w, uint32_t index, uint64_t key,
                       const Compiler *c, uint32_t first, uint32_t end)
{
    Slots s = { &c->sources, &w->roots.items[index] };
    json_t *list = json_array();
    for (uint32_t i = first; i < end; i++)
        if (!append(list, diagnostic_json(&s, c->diags.items[i]))) {
            json_decref(list);
            return;   /* not cacheable: checked again next time */
        }
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)key);
    json_t *entry = json_pack("{s:s,s:s,s:o}", "format", ENTRY_FORMAT, "key", hex,
                              "diagnostics", list);
    char *text = entry ? json_dumps(entry, JSON_COMPACT) : NULL;
    json_decref(entry);
    char *path = entry_path(cache, key);
    bool ok = text && strlen(text) <= ENTRY_MAX && write_file(path, text, strlen(text));
    if (ok && first == end)
        record_clean(cache, key);
    pthread_mutex_lock(&cache->lock);
    if (ok)
        cache->written++;
    else
        cache->unwritable = true;
    pthread_mutex_unlock(&cache->lock);
    free(path);
    free(text);
}

/* --- reading an entry --- */

/* The span of [slot, start, end] in the run's positions. */
static bool read_span(const Slots *s, json_t *value, Span *span)
{
    json_int_t slot, start, end;
    if (!json_is_array(value) || json_unpack(value, "[III!]", &slot, &start, &end) != 0)
        return false;
    if (slot < 0 || slot >= slot_count(s))
        return false;
    uint32_t file = slot_file(s, (uint32_t)slot);
    if (file == UINT32_MAX)
        return false;
    const SourceFile *f = source_file(s->sources, file);
    if (start < 0 || end < start || end > f->len)
        return false;
    *span = span_make(f->origin + (uint32_t)start, f->origin + (uint32_t)end);
    return true;
}

static bool read_labels(const Slots *s, DiagSink *sink, Diagnostic *d, json_t *labels)
{
    size_t i;
    json_t *item;
    json_array_foreach(labels, i, item) {
        json_t *span_value;
        const char *message;
        Span span;
        if (json_unpack(item, "[os!]", &span_value, &message) != 0
            || !read_span(s, span_value, &span))
            return false;
        diag_add_label(sink, d, span, "%s", message);
    }
    return true;
}

static bool read_texts(DiagSink *sink, Diagnostic *d, json_t *texts, bool notes)
{
    size_t i;
    json_t *item;
    json_array_foreach(texts, i, item) {
        if (!json_is_string(item))
            return false;
        if (notes)
            diag_add_note(sink, d, "%s", json_string_value(item));
        else
            diag_add_help(sink, d, "%s", json_string_value(item));
    }
    return true;
}

static bool read_fixes(const Slots *s, DiagSink *sink, Diagnostic *d, json_t *fixes)
{
    size_t i;
    json_t *item;
    json_array_foreach(fixes, i, item) {
        json_t *span_value;
        const char *replacement, *message;
        int maybe;
        Span span;
        if (json_unpack(item, "[ossb!]", &span_value, &replacement, &message, &maybe) != 0
            || !read_span(s, span_value, &span))
            return false;
        diag_add_fix(sink, d, span, replacement,
                     maybe ? FIX_MAYBE_INCORRECT : FIX_MACHINE_APPLICABLE, "%s", message);
    }
    return true;
}

static bool read_diagnostic(const Slots *s, DiagSink *sink, json_t *item)
{
    const char *code_text, *message;
    int error;
    json_t *span_value, *label, *labels, *notes, *helps, *fixes;
    Span span;
    if (json_unpack(item, "{s:s,s:b,s:o,s:s,s:o,s:o,s:o,s:o,s:o!}", "code", &code_text,
                    "error", &error, "span", &span_value, "message", &message, "label",
                    &label, "labels", &labels, "notes", &notes, "helps", &helps, "fixes",
                    &fixes) != 0)
        return false;
    int code = diag_code_from_string(code_text);
    if (code < 0 || !read_span(s, span_value, &span) || !(json_is_null(label) || json_is_string(label))
        || !json_is_array(labels) || !json_is_array(notes) || !json_is_array(helps)
        || !json_is_array(fixes))
        return false;
    Diagnostic *d = diag_report_as(sink, (DiagCode)code, error ? SEV_ERROR : SEV_WARNING, span,
                                   message);
    if (json_is_string(label))
        diag_set_label(sink, d, "%s", json_string_value(label));
    return read_labels(s, sink, d, labels) && read_texts(sink, d, notes, true)
           && read_texts(sink, d, helps, false) && read_fixes(s, sink, d, fixes);
}

/* Whether `entry` is a whole entry of `key`; its diagnostics are added to the sink as
 * they are read (the caller drops them if it is not). */
static bool read_entry(const Slots *s, DiagSink *sink, json_t *entry, uint64_t key)
{
    const char *format, *key_text;
    json_t *list;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)key);
    if (json_unpack(entry, "{s:s,s:s,s:o!}", "format", &format, "key", &key_text,
                    "diagnostics", &list) != 0
        || strcmp(format, ENTRY_FORMAT) != 0 || strcmp(key_text, hex) != 0
        || !json_is_array(list))
        return false;
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
        if (!read_diagnostic(s, sink, item))
            return false;
    return true;
}

/* Reads the text of the files that diagnostics [first, end) of c show (spans, labels,
 * fixes): the files a hit leaves unread are read only when a diagnostic is printed. */
static void load_shown(Workspace *w, Compiler *c, uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; i++) {
        const Diagnostic *d = c->diags.items[i];
        uint32_t file = source_file_at(&c->sources, d->span.start);
        workspace_load_sources(w, c, &file, 1);
        for (const DiagLabel *l = d->labels; l; l = l->next) {
            file = source_file_at(&c->sources, l->span.start);
            workspace_load_sources(w, c, &file, 1);
        }
        for (const DiagFix *f = d->fixes; f; f = f->next) {
            file = source_file_at(&c->sources, f->span.start);
            workspace_load_sources(w, c, &file, 1);
        }
    }
}

bool cache_load(CheckCache *cache, Workspace *w, uint32_t index, uint64_t key,
                      Compiler *c)
{
    bool hit = cache->index_path && file_index_is_clean(&cache->index, key);
    if (hit) {
        record_clean(cache, key);
    } else {
        char *path = entry_path(cache, key);
        size_t len = 0;
        bool refused = false;
        char *text = (char *)read_cache_file(path, ENTRY_MAX, &len, &refused);
        if (refused)
            count_corrupt(cache, path);
        if (text) {
            json_t *entry = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
            free(text);
            Slots s = { &c->sources, &w->roots.items[index] };
            uint32_t first = c->diags.count;
            hit = entry && read_entry(&s, &c->diags, entry, key);
            json_decref(entry);
            if (!hit) {
                diag_drop_range(&c->diags, first, c->diags.count);
                count_corrupt(cache, path);
            } else if (first == c->diags.count) {
                record_clean(cache, key);
            } else {
                load_shown(w, c, first, c->diags.count);
            }
        }
        free(path);
    }
    pthread_mutex_lock(&cache->lock);
    if (hit)
        cache->hits++;
    else
        cache->misses++;
    pthread_mutex_unlock(&cache->lock);
    return hit;
}
