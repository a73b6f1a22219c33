/* The file index of the cache (file_index.h): stat -> content hash, and the programs
 * known to have no diagnostics. */
#include "file_index.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "memory.h"

static const char MAGIC[8] = { 'o', 'r', 'b', 'i', 't', 'c', 'F', 'I' };

typedef struct Header {
    char magic[8];
    uint32_t version, file_count, clean_count, text_len;
    int64_t start_ns;
    uint64_t checksum;
} Header;

_Static_assert(sizeof(Header) == 40, "the header is 40 bytes");
_Static_assert(sizeof(FileRecord) == 56, "a file record is 56 bytes");

void file_index_init(FileIndex *ix, int64_t start_ns)
{
    memset(ix, 0, sizeof *ix);
    ix->start_ns = start_ns;
}

void file_index_free(FileIndex *ix)
{
    free(ix->data);
    free(ix->out_files);
    free(ix->out_text);
    free(ix->out_clean);
    memset(ix, 0, sizeof *ix);
}

/* -1, 0, 1 as the path of `r` (in `text`) sorts before, as, after path[0..len). */
static int compare_path(const char *text, const FileRecord *r, const char *path, size_t len)
{
    size_t n = r->path_len < len ? r->path_len : len;
    int order = memcmp(text + r->path_at, path, n);
    if (order != 0)
        return order;
    return r->path_len < len ? -1 : r->path_len > len;
}

/* Whether the records and keys are whole, in order, and within the text. */
static bool well_formed(const FileRecord *files, uint32_t file_count, const uint64_t *clean,
                        uint32_t clean_count, const char *text, uint32_t text_len)
{
    for (uint32_t i = 0; i < file_count; i++) {
        const FileRecord *r = &files[i];
        if (r->path_at > text_len || r->path_len > text_len - r->path_at)
            return false;
        if (i > 0 && compare_path(text, &files[i - 1], text + r->path_at, r->path_len) >= 0)
            return false;
    }
    for (uint32_t i = 1; i < clean_count; i++)
        if (clean[i - 1] >= clean[i])
            return false;
    return true;
}

bool file_index_take(FileIndex *ix, uint8_t *data, size_t len)
{
    Header h;
    if (len < sizeof h) {
        free(data);
        return false;
    }
    memcpy(&h, data, sizeof h);
    uint64_t body = (uint64_t)h.file_count * sizeof(FileRecord)
                    + (uint64_t)h.clean_count * sizeof(uint64_t) + h.text_len;
    const FileRecord *files = (const FileRecord *)(data + sizeof h);
    const uint64_t *clean = (const uint64_t *)(files + h.file_count);
    const char *text = (const char *)(clean + h.clean_count);
    if (memcmp(h.magic, MAGIC, sizeof MAGIC) != 0 || h.version != FILE_INDEX_VERSION
        || body != len - sizeof h
        || hash_wide(HASH_FNV1A_START, data + sizeof h, len - sizeof h) != h.checksum
        || !well_formed(files, h.file_count, clean, h.clean_count, text, h.text_len)) {
        free(data);
        return false;
    }
    ix->data = data;
    ix->files = files;
    ix->file_count = h.file_count;
    ix->clean = clean;
    ix->clean_count = h.clean_count;
    ix->text = text;
    ix->trust_before = h.start_ns - FILE_INDEX_GRANULARITY_NS;
    return true;
}

/* The record of `path` (`len` bytes), or NULL, by binary search; *at is its index. */
static const FileRecord *search(const FileIndex *ix, const char *path, size_t len,
                                uint32_t *at)
{
    uint32_t lo = 0, hi = ix->file_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int order = compare_path(ix->text, &ix->files[mid], path, len);
        if (order == 0) {
            *at = mid;
            return &ix->files[mid];
        }
        if (order < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The record of `path`, or NULL: first where the last lookup stopped (*cursor; the files
 * of a directory walk come sorted, as the records are), else by binary search. */
static const FileRecord *find(const FileIndex *ix, const char *path, uint32_t *cursor)
{
    size_t len = strlen(path);
    if (*cursor < ix->file_count
        && compare_path(ix->text, &ix->files[*cursor], path, len) == 0)
        return &ix->files[(*cursor)++];
    uint32_t at = 0;
    const FileRecord *r = search(ix, path, len, &at);
    if (r)
        *cursor = at + 1;
    return r;
}

static void push_record(FileIndex *ix, const Input *input, uint64_t size, uint64_t hash)
{
    if (ix->out_file_count == ix->out_file_cap) {
        ix->out_file_cap = ix->out_file_cap ? ix->out_file_cap * 2 : 64;
        ix->out_files = xrealloc(ix->out_files, ix->out_file_cap * sizeof *ix->out_files);
    }
    size_t len = strlen(input->path);
    if (ix->out_text_len + len > ix->out_text_cap) {
        ix->out_text_cap = ix->out_text_cap * 2 + len + 4096;
        ix->out_text = xrealloc(ix->out_text, ix->out_text_cap);
    }
    memcpy(ix->out_text + ix->out_text_len, input->path, len);
    ix->out_files[ix->out_file_count++] = (FileRecord){
        .size = size, .mtime_ns = input->mtime_ns, .ctime_ns = input->ctime_ns,
        .ino = (uint64_t)input->ino, .dev = (uint64_t)input->dev, .hash = hash,
        .path_at = (uint32_t)ix->out_text_len, .path_len = (uint32_t)len,
    };
    ix->out_text_len += len;
}

/* Whether `input` may have a record: a regular file collected with its stat. */
static bool indexed(const FileIndex *ix, const Input *input)
{
    return input->known && input->regular && !input->from_stdin && ix->file_count > 0;
}

/* Whether record `r` (NULL: none) vouches for `input`: its stat is the one recorded, and
 * the record is not racy. */
static bool trusted(const FileIndex *ix, const FileRecord *r, const Input *input)
{
    return r && r->size == (uint64_t)input->size && r->mtime_ns == input->mtime_ns
           && r->ctime_ns == input->ctime_ns && r->ino == (uint64_t)input->ino
           && r->dev == (uint64_t)input->dev && r->mtime_ns < ix->trust_before
           && r->ctime_ns < ix->trust_before;
}

bool file_index_knows(const FileIndex *ix, const Input *input, uint32_t *cursor)
{
    return indexed(ix, input) && trusted(ix, find(ix, input->path, cursor), input);
}

bool file_index_lookup(FileIndex *ix, const Input *input, uint64_t *hash)
{
    if (!indexed(ix, input))
        return false;
    const FileRecord *r = find(ix, input->path, &ix->cursor);
    if (!trusted(ix, r, input))
        return false;
    *hash = r->hash;
    push_record(ix, input, r->size, r->hash);
    ix->reused_files++;
    return true;
}

void file_index_record(FileIndex *ix, const Input *input, size_t len, uint64_t hash)
{
    if (input->known && input->regular && !input->from_stdin && (uint64_t)input->size == len)
        push_record(ix, input, len, hash);
}

bool file_index_is_clean(const FileIndex *ix, uint64_t key)
{
    uint32_t lo = 0, hi = ix->clean_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->clean[mid] == key)
            return true;
        if (ix->clean[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

void file_index_record_clean(FileIndex *ix, uint64_t key)
{
    if (ix->out_clean_count == ix->out_clean_cap) {
        ix->out_clean_cap = ix->out_clean_cap ? ix->out_clean_cap * 2 : 64;
        ix->out_clean = xrealloc(ix->out_clean, ix->out_clean_cap * sizeof *ix->out_clean);
    }
    ix->out_clean[ix->out_clean_count++] = key;
    ix->reused_clean += file_index_is_clean(ix, key);
}

bool file_index_changed(const FileIndex *ix)
{
    return ix->reused_files != ix->out_file_count || ix->out_file_count != ix->file_count
           || ix->reused_clean != ix->out_clean_count || ix->out_clean_count != ix->clean_count;
}

/* A record being sorted, with where its path is. */
typedef struct Sorted {
    const char *path;
    FileRecord record;
} Sorted;

static int compare_sorted(const void *a, const void *b)
{
    const Sorted *x = a, *y = b;
    size_t n = x->record.path_len < y->record.path_len ? x->record.path_len : y->record.path_len;
    int order = memcmp(x->path, y->path, n);
    if (order != 0)
        return order;
    return x->record.path_len < y->record.path_len ? -1 : x->record.path_len > y->record.path_len;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the records by path (and the keys), keeping the first of equal ones. */
static void sort_out(FileIndex *ix)
{
    Sorted *items = xmalloc((ix->out_file_count + 1) * sizeof *items);
    for (uint32_t i = 0; i < ix->out_file_count; i++)
        items[i] = (Sorted){ ix->out_text + ix->out_files[i].path_at, ix->out_files[i] };
    qsort(items, ix->out_file_count, sizeof *items, compare_sorted);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ix->out_file_count; i++)
        if (i == 0 || compare_sorted(&items[i - 1], &items[i]) != 0)
            ix->out_files[kept++] = items[i].record;
    ix->out_file_count = kept;
    free(items);
    if (ix->out_clean_count)   /* none: out_clean is NULL, which qsort may not take */
        qsort(ix->out_clean, ix->out_clean_count, sizeof *ix->out_clean, compare_keys);
    kept = 0;
    for (uint32_t i = 0; i < ix->out_clean_count; i++)
        if (kept == 0 || ix->out_clean[kept - 1] != ix->out_clean[i])
            ix->out_clean[kept++] = ix->out_clean[i];
    ix->out_clean_count = kept;
}

uint8_t *file_index_serialize(FileIndex *ix, size_t *len)
{
    sort_out(ix);
    size_t files = ix->out_file_count * sizeof(FileRecord),
           clean = ix->out_clean_count * sizeof(uint64_t);
    *len = sizeof(Header) + files + clean + ix->out_text_len;
    uint8_t *data = xmalloc(*len);
    uint8_t *body = data + sizeof(Header);
    if (files)
        memcpy(body, ix->out_files, files);
    if (clean)
        memcpy(body + files, ix->out_clean, clean);
    if (ix->out_text_len)
        memcpy(body + files + clean, ix->out_text, ix->out_text_len);
    Header h = {
        .version = FILE_INDEX_VERSION, .file_count = ix->out_file_count,
        .clean_count = ix->out_clean_count, .text_len = (uint32_t)ix->out_text_len,
        .start_ns = ix->start_ns,
        .checksum = hash_wide(HASH_FNV1A_START, body, *len - sizeof(Header)),
    };
    memcpy(h.magic, MAGIC, sizeof MAGIC);
    memcpy(data, &h, sizeof h);
    return data;
}
