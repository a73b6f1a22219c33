/* The file index of `orbitc check`'s cache (docs/cli.md, "Every core, and the cache"):
 * what git's index does for `git status`. For one tree (one current directory and one
 * list of paths given) it records, per source file read, its stat (size, modification
 * and change times in nanoseconds, inode, device) and the hash of its content, so that
 * the next run takes the hash without opening the file when the stat is the same; and
 * the keys of the programs whose entry holds no diagnostic, so that such a program needs
 * neither its entry nor its sources read (and of the orbit.programs without mistakes,
 * cache_config_clean, left unread too).
 *
 * A record is trusted only when the file's modification and change times are both older
 * than the start of the run that wrote it by more than FILE_INDEX_GRANULARITY_NS ("racy
 * git"): a file written within that window may change again with the same stat (file
 * system timestamps are coarse), so it is read and hashed again.
 *
 * The layout (version FILE_INDEX_VERSION, in the byte order of the machine, which is the
 * only one its inodes mean anything on), every field aligned to its size:
 *
 *     header, 40 bytes: "orbitcFI" (8 bytes), u32 version, u32 file count F,
 *                       u32 clean-program count P, u32 text length T,
 *                       i64 start of the writing run (ns since the epoch),
 *                       u64 hash_wide of everything after the header
 *     F file records, 56 bytes each, sorted by path (bytewise):
 *                       u64 size, i64 mtime_ns, i64 ctime_ns, u64 inode, u64 device,
 *                       u64 content hash, u32 path offset in the text, u32 path length
 *     P u64 program keys, ascending
 *     T bytes: the paths, one after the other
 *
 * An index that is not exactly this (another version, a wrong hash, an offset past the
 * text, unsorted) is not used at all; the caller counts it as a corrupt entry. The
 * functions here do no I/O: check_cache.c reads and writes the file. */
#ifndef ORBIT_FILE_INDEX_H
#define ORBIT_FILE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inputs.h"

#define FILE_INDEX_VERSION 1u
#define FILE_INDEX_GRANULARITY_NS INT64_C(2000000000)   /* FAT's 2 s, the coarsest */

typedef struct FileRecord {
    uint64_t size;
    int64_t mtime_ns, ctime_ns;
    uint64_t ino, dev;
    uint64_t hash;
    uint32_t path_at, path_len;
} FileRecord;

typedef struct FileIndex {
    /* the index read (all NULL/0 when there was none) */
    uint8_t *data;                  /* the whole file, malloc'd */
    const FileRecord *files;
    uint32_t file_count;
    const uint64_t *clean;
    uint32_t clean_count;
    const char *text;
    int64_t trust_before;           /* a time at or after which a record is racy */
    uint32_t cursor;                /* where the next lookup looks first */
    /* the index this run writes */
    int64_t start_ns;
    FileRecord *out_files;
    uint32_t out_file_count, out_file_cap;
    char *out_text;
    size_t out_text_len, out_text_cap;
    uint64_t *out_clean;
    uint32_t out_clean_count, out_clean_cap;
    uint32_t reused_files, reused_clean;   /* what came from the index read */
} FileIndex;

/* Starts an index for a run that began at `start_ns` (before any file was looked at). */
void file_index_init(FileIndex *ix, int64_t start_ns);
void file_index_free(FileIndex *ix);

/* Takes `data` (malloc'd, `len` bytes; owned from now on) as the index read. False when
 * it is not a valid index (it is freed, and the index stays empty). */
bool file_index_take(FileIndex *ix, uint8_t *data, size_t len);

/* The content hash recorded for `input` (a regular file collected with its stat, not
 * standard input) when its stat is the one recorded and the record is not racy; records it for
 * the index to be written. False: the file must be read. */
bool file_index_lookup(FileIndex *ix, const Input *input, uint64_t *hash);

/* Whether file_index_lookup would find `input`'s hash, without recording anything;
 * `cursor` (0 at first) is the caller's own, in place of the index's, for asking about
 * files in sorted order (workspace.c, reading ahead). */
bool file_index_knows(const FileIndex *ix, const Input *input, uint32_t *cursor);

/* Records that `input`, read now, has `len` bytes of content hashing to `hash` (nothing
 * is recorded for a pipe or a device, or when its stat is unknown or says another size:
 * it changed meanwhile). */
void file_index_record(FileIndex *ix, const Input *input, size_t len, uint64_t hash);

/* Whether program key `key` is recorded as having no diagnostics. */
bool file_index_is_clean(const FileIndex *ix, uint64_t key);

/* Records that program key `key` has no diagnostics (not thread-safe: the caller locks). */
void file_index_record_clean(FileIndex *ix, uint64_t key);

/* Whether the index to be written says something the one read did not. */
bool file_index_changed(const FileIndex *ix);

/* The index to be written, as bytes (malloc'd, *len set). Sorts what was recorded. */
uint8_t *file_index_serialize(FileIndex *ix, size_t *len);

#endif
