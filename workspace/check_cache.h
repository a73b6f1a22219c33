/* The cache of `orbitc check` (docs/cli.md, "The cache"): the diagnostics of each program,
 * kept as data (one JSON file per program) under a key made of everything they depend on,
 * so that re-checking an unchanged program parses nothing and renders what a cold run
 * would, in every format.
 *
 * The key of a program is a hash of 64 bits (hash_wide, base/hash.h) over everything that
 * decides what its check reports: the entry format's version, orbitc's version and its
 * build ID (a rebuilt orbitc never reads its predecessor's entries), the standard
 * library, the lint levels of the command line, whether suppressions apply, the
 * program's orbit.program (path as shown and text) and each of its files in order (path
 * as shown and text; with `files` blocks, its path below the root's real directory too,
 * root_relative_path, which is what their patterns match: the same path as shown may be
 * another file there). tests/cli/test_check_cache.py checks, over random trees, directories
 * and flags, that a run with the cache prints what a run without it prints. An entry
 * holds the diagnostics with their spans as (file of the program, byte offsets), so that
 * it does not depend on the other programs of the run.
 *
 * Entries are written atomically (a temporary file renamed over the entry), so that
 * several orbitc processes and threads may read and write the same directory: a reader
 * sees a whole entry or none. An entry that cannot be read as one (truncated, edited,
 * another format) is ignored (the program is checked) and written again; the run counts
 * it, and the command line says so once. It never prints. */
#ifndef ORBIT_CHECK_CACHE_H
#define ORBIT_CHECK_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "file_index.h"

typedef struct Workspace Workspace;

typedef struct CheckCache {
    char *dir;                /* where the entries are: DIR/check/KEY.json */
    uint64_t base_key;        /* the key of everything but the program's own files */
    FileIndex index;          /* the file index of this tree (file_index.h) */
    char *index_path;         /* DIR/index/NAME, NULL until cache_index */
    pthread_mutex_t lock;     /* over the counts below (threads of --jobs) */
    unsigned hits, misses, written;
    unsigned corrupt;         /* entries ignored as unreadable */
    char *first_corrupt;      /* the path of the first of them */
    bool unwritable;          /* an entry could not be written (read-only disk, ...) */
    char *refused;            /* why the cache is not used: a directory not to be trusted */
} CheckCache;

/* The directory of the cache: $ORBITC_CACHE_DIR when it is an absolute path, else
 * $XDG_CACHE_HOME/orbitc (an absolute XDG_CACHE_HOME), else $HOME/.cache/orbitc; NULL
 * when none can be named. A relative path is ignored, as the XDG Base Directory
 * specification has a relative XDG_CACHE_HOME ignored (the cache would be written
 * wherever orbitc runs, into the project): *ignored is then ORBITC_CACHE_DIR's value
 * (NULL otherwise), for the caller to say so. malloc'd. */
char *cache_default_dir(const char **ignored);

/* Opens the cache at `dir`. Creates nothing yet. False (cache->refused says why, the
 * cache is closed with cache_close) when `dir`, DIR/check or DIR/index is a
 * directory that is not this user's or that others may write to: the run goes without
 * the cache. orbitc never changes such a directory: its mode is its owner's choice. What
 * it makes itself is private: directories 0700, files 0600 (whatever the umask lets
 * through of that); and it reads only regular files of this user's that no one else
 * may write (read without following a symbolic link, and without blocking on a FIFO): any
 * other file in the place of an entry or a file index is ignored as unreadable, counted
 * as corrupt, and replaced. */
bool cache_open(CheckCache *cache, const char *dir);

/* For the run of `w`, once its paths are collected and before its inputs are read
 * (workspace_read_inputs calls it when w->cache is set): computes the key of everything
 * but the programs (the command line's levels and the compiler's settings enter it) and
 * reads the file index of this tree (DIR/index/NAME, NAME a hash of that key, the current
 * directory and the paths given), counting it as corrupt when it is not one. Returns the
 * index, empty when there was none. */
FileIndex *cache_index(CheckCache *cache, const Workspace *w);

/* Whether the file index says that the orbit.program at `path` whose content hashes to
 * `hash` has no mistake and no `files` block (for this orbitc: the key of everything
 * but the programs enters it); and recording that it has none. */
bool cache_config_clean(CheckCache *cache, const char *path, uint64_t hash);
void cache_record_config(CheckCache *cache, const char *path, uint64_t hash);

/* Writes the file index when it changed, and frees everything. */
void cache_close(CheckCache *cache);

/* The key of program `root` of `w`. */
uint64_t cache_key(const CheckCache *cache, const Workspace *w, uint32_t root);

/* Adds the cached diagnostics of program `root` under `key` to c->diags (c a view of
 * w's compiler: compiler_init_view), reads the text of the files they show
 * (workspace_load_sources) and returns true; false when there is no entry, or an entry
 * that cannot be read (counted as corrupt). A key the file index knows to have no
 * diagnostics reads nothing. */
bool cache_load(CheckCache *cache, Workspace *w, uint32_t root, uint64_t key,
                      Compiler *c);

/* Writes the diagnostics c->diags.items[first, end) of program `root` under `key` (and,
 * when there are none, says so in the file index). A
 * program whose diagnostics cannot be written as an entry (a span outside its files, text
 * that is not UTF-8) is not cached. */
void cache_store(CheckCache *cache, const Workspace *w, uint32_t root, uint64_t key,
                       const Compiler *c, uint32_t first, uint32_t end);

#endif
