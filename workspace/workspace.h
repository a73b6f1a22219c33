/* The workspace: the one pipeline of every front end of orbitc. The command line
 * (cli/), `fix`, `fmt`, the language server (lsp/), the fuzz targets and the tests all
 * load sources through it and check them with workspace_check; none writes the sequence
 * out again. It reads paths and files (inputs.h), finds the programs they form by their
 * roots and reads their configuration (roots.h), and runs
 *
 *     load -> parse -> configure -> check each program -> finish the diagnostics
 *
 * leaving diagnostics in the compiler's sink and the checked programs in `checked`;
 * lowering them is the caller's (lower/lower.h). It never prints: a path that cannot be
 * used goes to the `report` callback, and is counted in `failures`. */
#ifndef ORBIT_WORKSPACE_H
#define ORBIT_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "inputs.h"
#include "roots.h"

typedef struct Program Program;

/* The content hash of a source (workspace_hash_text), when known without its text. */
typedef struct SourceHash {
    uint64_t hash;
    bool known;
} SourceHash;

/* A path that cannot be used: `path` as the user gave it (`-` for standard input) and
 * `message`, the whole sentence ("cannot read `a.orbit`: Permission denied"). */
typedef void (*WorkspaceReport)(void *context, const char *path, const char *message);

typedef struct Workspace {
    Compiler *c;              /* the sources and their diagnostics (not owned) */
    CheckOptions check;       /* how each program is checked (checker.h); all zero in
                                 workspace_init */
    bool by_roots;            /* files form programs by their roots (orbit.program);
                                 false: every file is one program */
    InputList inputs;         /* the paths given, expanded (workspace_collect) */
    RootSet roots;            /* the programs the files form: one per root */
    uint8_t overrides[DIAG_CODE_COUNT];   /* LintLevel per code over every program's
                                             configuration; LINT_DEFAULT: no say */
    Program **checked;        /* after workspace_check: [roots.count], NULL for a root
                                 without files */
    unsigned failures;        /* paths that could not be used, each reported */
    bool prepared;            /* workspace_prepare has run */
    bool threads_parse;       /* workspace_prepare parses the configurations only: the
                                 programs are parsed by workspace_check_jobs' threads */
    unsigned read_threads;    /* workspace_read_inputs reads the files found in
                                 directories on this many threads (0 or 1: on this one) */
    WorkspaceReport report;   /* NULL: failures are only counted */
    void *report_context;
    /* the cache of `check` (check_cache.h), when it is used: its file index decides which
     * inputs need not be read (their text is added later, when a program needs it) */
    struct CheckCache *cache;
    struct FileIndex *index;  /* set by workspace_read_inputs from `cache` */
    int64_t start_ns;         /* when workspace_collect began (before any stat) */
    uint64_t paths_hash;      /* of the paths it was given */
    SourceHash *hashes;       /* [sources] with an index: each input's content hash */
    uint32_t hash_cap;
    _Atomic bool stale;       /* a file not read changed before its text was needed */
    const char *last_dir;     /* the real directory of the last input read (its string) */
    uint32_t last_program;    /* and the program it belongs to */
} Workspace;

/* Sets up a workspace over `c` (compiler_init'ed) with no overrides. */
void workspace_init(Workspace *w, Compiler *c, bool by_roots);
void workspace_free(Workspace *w);

/* --- loading --- */

/* Expands the paths the user gave into w->inputs (inputs.h); "-" is standard input,
 * named `stdin_name` (NULL: "<stdin>"). Each path that cannot be used is reported. */
void workspace_collect(Workspace *w, const char *const *paths, int count,
                       const char *stdin_name);

/* Reads every collected input into the compiler, each into the program of its nearest
 * root; one that cannot be read is reported. */
void workspace_read_inputs(Workspace *w);

/* Reads one input and adds it to the program of its root (or the only program). Returns
 * the file index, or UINT32_MAX when it could not be read (reported). */
uint32_t workspace_read_input(Workspace *w, const Input *input);

/* Adds a source held in memory (an editor's document, a fuzz input, a text `fix` made)
 * under `path`, to the program of its root: `text` is malloc'd with a NUL at text[len]
 * and owned by the compiler from now on; a text over the limits is added empty with
 * E0010. Returns the file index. */
uint32_t workspace_add_text(Workspace *w, const char *path, char *text, size_t len);

/* --- the pipeline --- */

/* The first half, for a caller that needs the programs' names before anything is
 * checked (`build` of several programs): reads each program's configuration
 * (orbit.program), parses every source and configures the programs. Runs once;
 * workspace_check calls it when the caller has not. */
void workspace_prepare(Workspace *w);

/* Prepares, then checks each program with its lint levels (its configuration's under
 * w->overrides) and finishes the diagnostics (sorted, deduplicated, counted). Call once,
 * after loading. */
void workspace_check(Workspace *w);

/* The pipeline of `orbitc check` on `threads` threads (check_jobs.c), for a workspace
 * with threads_parse set: each program parsed and checked by one thread, or its
 * diagnostics read from `cache` (check_cache.h; NULL: none) and the checked ones written
 * to it; the diagnostics then gathered and finished in the compiler's sink, the same as
 * workspace_check's whatever the number of threads. No checked program is kept
 * (w->checked holds NULLs). */
typedef struct CheckCache CheckCache;
void workspace_check_jobs(Workspace *w, unsigned threads, CheckCache *cache);

/* The most threads a run starts, whatever `threads` or Workspace.read_threads ask
 * (docs/cli.md, "Every core, and the cache"): each has a compiler of its own, and more
 * threads than processors only cost. Fewer when there is less work: no more threads
 * than programs, or for fewer programs than threads, than the files of the largest or a
 * thread per WORKSPACE_BYTES_PER_THREAD of it (the checker's passes take its workflows
 * eight at a time); for reading ahead, than the files to read. */
#define WORKSPACE_THREADS_MAX 256u
#define WORKSPACE_BYTES_PER_THREAD 4096u

/* The same pipeline for `other`, a new compiler holding w's sources with other texts, in
 * the same order (`fix` checking what its fixes made): the programs and configurations
 * of `w` are used again, nothing is read from disk. Returns the checked programs
 * ([w->roots.count], malloc'd). */
Program **workspace_check_again(Workspace *w, Compiler *other);

/* Whether an error (or, with deny_warnings, a warning) lies in a file of the program of
 * root `root` or in its configuration. */
bool workspace_program_failed(const Workspace *w, uint32_t root, bool deny_warnings);

/* --- sources read on demand (with the cache's file index) --- */

/* The hash of a file's content, as the cache and its file index know it. */
uint64_t workspace_hash_text(const char *text, size_t len);

/* The content hash of source `file` (from the file index, or of its text). */
uint64_t workspace_source_hash(const Workspace *w, uint32_t file);

/* Reads the text of each of `files` that the file index let workspace_read_inputs leave
 * unread, into w's compiler and `view` (a view of it, compiler_init_view; may be w->c).
 * Called from the threads of check_jobs.c, each for its own program's files. A file whose
 * content is no longer what the index said sets w->stale (the run must be done again). */
void workspace_load_sources(Workspace *w, Compiler *view, const uint32_t *files,
                            uint32_t count);

/* --- files --- */

/* Reads a file the user named and adds it: a regular file, a pipe or a character device
 * (`orbitc check <(cat f)`, /dev/stdin); opening a FIFO waits for its writer, as `cat`
 * does. A file larger than SOURCE_MAX_FILE_SIZE is added empty with an E0010 diagnostic
 * (a regular file without being read; a stream is read up to the limit). Returns false
 * (and sets *error to a static or strerror text) only when the file cannot be read at
 * all (a directory among them); nothing is added then. */
bool workspace_add_file(Compiler *c, const char *path, const char **error);

/* The same for a file found by a directory walk: only a regular file is read, and a FIFO
 * or device met there is refused ("not a regular file") without ever blocking. */
bool workspace_add_found_file(Compiler *c, const char *path, const char **error);

/* The same for an open descriptor (standard input), read from where it stands, and added
 * under `name`. The descriptor stays open. */
bool workspace_add_fd(Compiler *c, int fd, const char *name, const char **error);

/* Reads `fd` from where it stands to its end, or to `limit` + 1 bytes (so that a caller
 * sees a file that goes on past its limit); `size_hint` is the size of a regular file, 0
 * for a stream. malloc'd, with a NUL after the *len bytes; NULL with *error set. */
char *workspace_read_fd(int fd, size_t size_hint, size_t limit, size_t *len, const char **error);

/* Reads a whole binary file ("-": standard input): at most `limit` + 1 bytes, so that an
 * oversized file reaches its loader, which names the limit. malloc'd; NULL with *error
 * set (a directory: "is a directory"). */
uint8_t *workspace_read_binary(const char *path, size_t limit, size_t *len, const char **error);

#endif
