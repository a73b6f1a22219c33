/* Diagnostics: what every pass reports, collected in a sink, then sorted, deduplicated
 * and rendered for people (render_human), machines (render_json) or CI systems
 * (render_github, render_gitlab, render_sarif), or one line each (render_concise).
 *
 * A diagnostic has a code from the registry (codes.def), a primary span with an optional
 * label under it, a message, secondary labelled spans, notes, help lines and fixes. A fix
 * is a machine-applicable replacement of a span; its message is shown as a help line. */
#ifndef ORBIT_DIAG_H
#define ORBIT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "source.h"

typedef enum Severity { SEV_ERROR, SEV_WARNING } Severity;

typedef enum DiagCode {
#define DIAG(code, severity, title) code,
#include "codes.def"
#undef DIAG
    DIAG_CODE_COUNT
} DiagCode;

/* In codes.def, SEVERITY is ERROR, WARNING, or LINT: a warning that is off unless the
 * user enables it (`--warn CODE`). Any warning can be turned off with `--allow CODE`. */
typedef struct DiagInfo {
    const char *code;       /* "E0410" */
    Severity severity;      /* SEV_WARNING for LINT */
    bool default_on;        /* false for LINT */
    const char *title;      /* one line */
} DiagInfo;

const DiagInfo *diag_info(DiagCode code);
/* The code spelt exactly as the registry spells it ("E0410"; not "e0410", see
 * diag_code_from_text), or -1 when no such code is registered. */
int diag_code_from_string(const char *text);
/* The same for text[0..len) in any letter case ("w0007" is W0007), as users may write a
 * code on the command line, in a suppression or in a configuration. */
int diag_code_from_text(const char *text, size_t len);
/* Whether the code's name starts with text[0..len) in any letter case ("w00" starts
 * W0007; a whole code is its own prefix; "" starts none): rule selection by prefix
 * (`--select W00`, `W00: allow` in orbit.program). */
bool diag_code_has_prefix(DiagCode code, const char *text, size_t len);
/* How many warning codes start with text[0..len), in any letter case. */
uint32_t diag_warnings_with_prefix(const char *text, size_t len);
/* Fills `codes` with the codes of the warnings ("W0001", …) in registry order, for
 * did-you-mean, and returns how many (no table kept: threads may ask at once). */
size_t diag_warning_codes(const char *codes[DIAG_CODE_COUNT]);
/* The long explanation (Markdown), embedded at build time from explain/CODE.md. */
const char *diag_explanation(DiagCode code);

typedef struct DiagLabel {
    Span span;
    const char *message;
    struct DiagLabel *next;
} DiagLabel;

typedef struct DiagText {
    const char *text;
    struct DiagText *next;
} DiagText;

typedef enum Applicability {
    FIX_MACHINE_APPLICABLE,   /* certain: an editor may apply it without asking */
    FIX_MAYBE_INCORRECT,      /* plausible: offer it, let the person decide */
} Applicability;

typedef struct DiagFix {
    Span span;
    const char *replacement;
    const char *message;      /* shown as a help line, e.g. "did you mean `backoff`?" */
    Applicability applicability;
    struct DiagFix *next;
} DiagFix;

typedef struct Diagnostic {
    DiagCode code;
    Severity severity;
    Span span;
    const char *message;
    const char *label;        /* text under the primary carets, or NULL */
    DiagLabel *labels;        /* secondary, in the order added */
    DiagText *notes;
    DiagText *helps;
    DiagFix *fixes;
    uint32_t seq;             /* report order, unique in its sink: breaks sorting ties */
    /* Private to diag.c: the last node of each list, so that adding is O(1). */
    DiagLabel *last_label;
    DiagText *last_note;
    DiagText *last_help;
    DiagFix *last_fix;
} Diagnostic;

/* The level of a warning code in a run: its default (on, or off for a LINT), off, on, or
 * on and reported as an error (`deny`, from a program's configuration). */
typedef enum LintLevel { LINT_DEFAULT, LINT_ALLOW, LINT_WARN, LINT_DENY } LintLevel;

typedef struct DiagSink {
    Arena *arena;
    uint8_t level[DIAG_CODE_COUNT];  /* LintLevel per code, set by the driver; a report of
                                        a warning that is off is not kept (diag_report
                                        returns a scratch diagnostic nobody sees) */
    Diagnostic **items;
    uint32_t count;
    uint32_t cap;
    uint32_t next_seq;        /* the seq of the next report: never reused, even after
                                 reports are dropped, so that no two tie in diag_finish */
    uint32_t errors;          /* after diag_finish: counts of what is left */
    uint32_t warnings;
} DiagSink;

void diag_sink_init(DiagSink *sink, Arena *arena);
void diag_sink_free(DiagSink *sink);

/* Whether a report of this code would be kept (errors always are). */
bool diag_enabled(const DiagSink *sink, DiagCode code);

/* Whether a code is lexical (the E00xx family, first in codes.def). */
static inline bool diag_is_lexical(DiagCode code)
{
    return code < E0100;
}

/* Drops the reports made since the sink held `first` of them, except those whose code
 * `keep` accepts (for example diag_is_lexical). Call before diag_finish. */
void diag_drop_since(DiagSink *sink, uint32_t first, bool (*keep)(DiagCode code));

/* Drops the reports [from, to) of the sink, keeping those after them (the reports of
 * a parse whose result is not kept). Call before diag_finish. */
void diag_drop_range(DiagSink *sink, uint32_t from, uint32_t to);

/* Reports a diagnostic; the severity comes from the registry (a warning whose level is
 * LINT_DENY is reported as an error). Returns it so that labels, notes, helps and fixes
 * can be added. All text is copied into the arena. */
Diagnostic *diag_report(DiagSink *sink, DiagCode code, Span span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Adds a diagnostic as it was made elsewhere, with its severity, whatever the sink's lint
 * levels (another sink's, copied by diag_copy; a cached one); `message` is copied. */
Diagnostic *diag_report_as(DiagSink *sink, DiagCode code, Severity severity, Span span,
                           const char *message);

/* Adds a copy of `from` (a diagnostic of another sink over the same positions), with
 * its labels, notes, helps and fixes, all text copied into this sink's arena. */
Diagnostic *diag_copy(DiagSink *sink, const Diagnostic *from);

void diag_set_label(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_add_label(DiagSink *sink, Diagnostic *d, Span span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_add_note(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_add_help(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_add_fix(DiagSink *sink, Diagnostic *d, Span span, const char *replacement,
                  Applicability applicability, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Sorts by file, then start offset, then report order; drops exact duplicates (same code,
 * span and message); counts errors and warnings. Call before rendering. It may be called
 * again after more reports, and sorts and counts them all: `orbitc build` finishes the
 * checker's diagnostics (workspace/workspace.c), then lowering may report E0601
 * (compiler/lower/lower.h) and the build finishes the sink again. */
void diag_finish(DiagSink *sink);

/* A path the run could not read (exit 2), and the error line said about it: the CI
 * reports say the run is not complete (SARIF: a failed invocation with a notification
 * each; GitLab: an issue each), since the file's results are missing from them. */
typedef struct RenderUnread {
    const char *path;
    const char *message;      /* "cannot read `x.orbit`: Permission denied" */
} RenderUnread;

typedef struct RenderOptions {
    bool color;               /* ANSI colors (human output only) */
    uint32_t max_shown;       /* 0 = no limit; else print this many, then "N more" */
    bool summary;             /* print the closing "error: N errors, M warnings emitted" */
    bool warnings_denied;     /* --deny-warnings: the summary says the warnings fail the run */
    const RenderUnread *unread;   /* the paths that could not be read (SARIF, GitLab) */
    uint32_t unread_count;
} RenderOptions;

/* Human output, rustc style. Tabs are expanded, carets placed by display width. */
void render_human(FILE *out, const DiagSink *sink, const SourceMap *sources,
                  const RenderOptions *options);

/* One JSON object per line; the schema is docs/diagnostics.schema.json. */
void render_json(FILE *out, const DiagSink *sink, const SourceMap *sources,
                 const RenderOptions *options);

/* One line per diagnostic, `path:line:col: severity[CODE]: message` (render_concise.c),
 * for grep and editors' quickfix lists. */
void render_concise(FILE *out, const DiagSink *sink, const SourceMap *sources,
                    const RenderOptions *options);

/* For CI systems (docs/diagnostics.md), every diagnostic, on `out` (paths relative to
 * the current directory):
 * GitHub Actions workflow commands, one line each; */
void render_github(FILE *out, const DiagSink *sink, const SourceMap *sources,
                   const RenderOptions *options);
/* a GitLab Code Quality report (a JSON array); */
void render_gitlab(FILE *out, const DiagSink *sink, const SourceMap *sources,
                   const RenderOptions *options);
/* one SARIF 2.1.0 log. */
void render_sarif(FILE *out, const DiagSink *sink, const SourceMap *sources,
                  const RenderOptions *options);

/* Position helpers shared by the renderers (and tested on their own). `offset` is a byte
 * offset in the file. Columns are 1-based counts of Unicode scalar values; the UTF-16
 * character is 0-based, as LSP wants; display columns count terminal cells with tabs
 * expanded to the next multiple of 4. Invalid UTF-8 bytes count as one unit each.
 * column_utf16 and column_cells return the count of units before the byte (0-based);
 * an invalid byte or a control character is shown as U+FFFD and so takes one cell. */
uint32_t column_scalars(const char *line, uint32_t byte_in_line);
uint32_t column_utf16(const char *line, uint32_t byte_in_line);
uint32_t column_cells(const char *line, uint32_t byte_in_line);

#endif
