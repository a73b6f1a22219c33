/* The baseline of a repository's existing warnings (docs/cli.md, "Baseline"): a JSON
 * file (docs/baseline.schema.json) that records the warnings a check found, so that a
 * later check reports only the new ones. `orbitc check --baseline` and
 * `--write-baseline` (cli/baseline_command.c) and the language server (lsp/project.c)
 * read it through this module; nothing here prints.
 *
 * A finding is keyed by
 *
 *     program      the directory of its program's root, relative to the baseline
 *                  file's directory ("" for the files below no root)
 *     code         "W0006"
 *     scope        the declarations and steps that hold it, outermost first:
 *                  "workflow checkout > step charge"; for a finding outside every
 *                  declaration, "file " and its file
 *     fingerprint  FNV-1a (64 bits, hexadecimal) of the text of its primary range,
 *                  without white space, comments' layout, `,` and `;`: what `orbitc
 *                  fmt` never changes
 *     file         its file, relative to the baseline file's directory
 *
 * never by line or column. Findings are matched by everything but the file first, then
 * counted: an entry holds `count` equal findings. Within one key, the findings of a file
 * use up the entries of that file first, and the rest (a workflow moved to another file
 * of the same program) the entries of the other files. When a key has more findings
 * than its entries count, all of them are new (which one was added cannot be told, as
 * eslint's bulk suppressions decide); entries left over are stale. */
#ifndef ORBIT_BASELINE_H
#define ORBIT_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "workspace.h"

enum { BASELINE_VERSION = 1 };

typedef struct BaselineEntry {
    char *program;
    char *file;
    char *scope;
    DiagCode code;
    char *fingerprint;
    uint32_t count;
    char *message;        /* of one of its findings, for the reader; never matched */
    uint32_t stale;       /* after baseline_match: how many of `count` no longer occur */
} BaselineEntry;

typedef struct Baseline {
    char *dir;            /* the real directory of the file: paths are relative to it */
    BaselineEntry *items;
    uint32_t count, cap;
} Baseline;

/* What baseline_match decides for each diagnostic of the sink. */
typedef enum BaselineMark {
    BASELINE_NOT_A_FINDING,   /* an error (a denied warning too): never in a baseline */
    BASELINE_NEW,             /* a warning the baseline does not hold */
    BASELINE_OVER,            /* a warning of a key with more findings than entries */
    BASELINE_KNOWN,           /* in the baseline: not reported */
} BaselineMark;

/* Whether diagnostic `d` is one a baseline may hold: a warning as the user sees it,
 * that is as it was reported, never by its code's default severity. A warning that the
 * program's configuration denies (`lints { W0002: deny }`, or in a `files` block) is
 * reported as an error (`error[W0002]`, failing the run) and, as every error, is never
 * recorded and never hidden, even by an entry written before the `deny`: that entry is
 * stale. `--deny-warnings` leaves warnings warnings (it only makes them fail the run,
 * which is what a baseline is for); `--warn` and `--allow`, on the command line or in
 * the configuration, decide whether a warning is reported at all. `orbitc check` and the
 * language server decide through this one function (baseline_match). */
bool baseline_holds(const Diagnostic *d);

/* An empty baseline for the file at `path` (it need not exist; its directory must).
 * False with *error (malloc'd) when the directory cannot be resolved. */
bool baseline_init(Baseline *b, const char *path, char **error);

/* A baseline file as it was read: its bytes and its identity, so that `--write-baseline`
 * rewrites it as `orbitc fmt` rewrites a source (base/replace_file.h: a read-only file
 * refused, its owner, group and mode kept, a file changed meanwhile left alone). */
typedef struct BaselineFile {
    char *text;           /* malloc'd, a NUL after `len` bytes */
    size_t len;
    struct stat as_read;
} BaselineFile;

/* Reads the file at `path` whole, opened as a file to rewrite (replace_file_open): a
 * directory, a FIFO (never waited for) or a device is refused ("cannot VERB the baseline
 * `PATH`: it is a directory, not a regular file", `verb` being "read" or "write"). False
 * with *error (malloc'd, the whole sentence) when it is refused or cannot be read;
 * *missing tells that it does not exist. */
bool baseline_file_read(BaselineFile *f, const char *path, const char *verb, bool *missing,
                        char **error);
void baseline_file_free(BaselineFile *f);

/* Reads baseline `b` from the text of its file at `path` (for paths and messages); `b`
 * was set up by baseline_init. False with *error (malloc'd, the whole sentence) when it
 * is not JSON or not a baseline of this version. */
bool baseline_parse(Baseline *b, const char *path, const char *text, size_t len, char **error);

/* baseline_init, baseline_file_read and baseline_parse: the baseline file at `path`.
 * False with *error (malloc'd, the whole sentence) when it cannot be read or is not a
 * baseline; *missing tells that it does not exist. */
bool baseline_read(Baseline *b, const char *path, bool *missing, char **error);

void baseline_free(Baseline *b);

/* Matches the warnings of `w`'s sink (after workspace_check) against `b`: marks[i] for
 * diagnostic i; sets each entry's `stale`. Returns how many are BASELINE_KNOWN. */
uint32_t baseline_match(Baseline *b, const Workspace *w, uint8_t *marks);

/* The baseline to write: the findings of `w` that `marks` keeps (BASELINE_KNOWN, and
 * of an over-full key as many as its entries counted), or every warning when `marks`
 * is NULL, grouped into entries; `out` was set up by baseline_init. */
void baseline_collect(Baseline *out, const Workspace *w, const uint8_t *marks,
                      const Baseline *before);

/* The file's text: sorted entries, two-space indentation, a final line end. malloc'd. */
char *baseline_text(const Baseline *b, size_t *len);

/* Drops the diagnostics marked BASELINE_KNOWN from the sink and counts again. */
void baseline_drop(DiagSink *sink, const uint8_t *marks);

/* The total of the entries' counts, or of their stale counts (at most UINT32_MAX). */
uint32_t baseline_total(const Baseline *b, bool stale);

#endif
