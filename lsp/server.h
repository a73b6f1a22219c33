/* The state of the language server, shared by its parts (internal to lsp/). Its files and
 * what each holds are listed once, in the row of lsp/ in docs/architecture.md
 * (tests/code/test_layers.py fails on a file that the row does not name); a new request: the
 * recipe there, "A new language-server request".
 *
 * One thread. Messages are read into a queue as they arrive; a program is re-checked
 * when no message is waiting, and its results are published only if no change to it
 * arrived meanwhile (they would be stale). A request is always answered against the
 * current text: a program with unchecked changes is checked first. */
#ifndef ORBIT_LSP_SERVER_H
#define ORBIT_LSP_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "workspace.h"
#include "json_text.h"
#include "lsp.h"
#include "namemap.h"
#include "no_index.h"
#include "program.h"
#include "text.h"
#include "textbuf.h"
#include "transport.h"

enum {
    /* Messages read ahead into the queue at most (a cancellation searches it). */
    QUEUE_MAX = 1024,
};

/* JSON-RPC and LSP error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    LSP_SERVER_NOT_INITIALIZED = -32002,
    LSP_REQUEST_FAILED = -32803,
    LSP_REQUEST_CANCELLED = -32800,
};

/* The last semantic tokens sent for a document (semantic.c), for /full/delta. */
typedef struct SemanticResult {
    uint32_t *items;           /* malloc'd, NULL for none */
    uint32_t count;
    uint64_t result_id;
} SemanticResult;

typedef struct Document {
    const char *uri;           /* as the client sent it (the key in document_by_uri) */
    char *path;                /* its file (malloc'd), or NULL for a URI that is not file: */
    bool open;
    char *text;                /* malloc'd, text[len] == '\0' */
    uint32_t len, cap;
    int64_t version;
    uint32_t project;          /* index in Server.projects */
    SemanticResult semantic;
} Document;

/* One source file of a checked program, by its index in the compiler's source map. */
typedef struct AnalysisFile {
    char *uri;                 /* malloc'd */
    uint32_t document;         /* Server.documents index, or NO_INDEX (read from disk) */
    int64_t version;           /* of the document when it was checked */
    LineIndex lines;           /* built when first needed (lines.starts == NULL before) */
} AnalysisFile;

/* The result of checking a program: the compiler's whole state, kept until the next
 * check so that requests can look at the syntax trees and the checked program. */
typedef struct Analysis {
    Compiler c;
    /* The files of a workspace folder may form several programs (program roots,
     * workspace/roots.h): each is checked on its own. */
    Program **programs;        /* [root_count]; NULL for a root without files */
    uint32_t root_count;
    uint32_t *root_of;         /* [c.sources.count]: each file's root, or NO_INDEX */
    Program *program;          /* the program of the file a request is about
                                  (lsp_analysis_select) */
    AnalysisFile *files;       /* [c.sources.count]; [0] is the standard library */
    uint8_t *baselined;        /* [c.diags.count]: BaselineMark (workspace/baseline.h) of
                                  each diagnostic, or NULL without a baseline */
    const Program *indexed;    /* query.c: the maps below are of this program */
    Arena index_arena;
    NameMap types_by_name, error_codes_by_name;
    NameMap workflows_by_name, workers_by_name, builtins_by_name;  /* for the names tests
                                                                      write (query.c) */
    NameMap *steps_by_name;    /* [workflow_count]: each workflow's steps, made when a test
                                  first names one (slots NULL before) */
} Analysis;

/* What was last published for a URI. */
typedef struct Published {
    const char *uri;           /* the key in published_by_uri */
    uint64_t hash;             /* of the diagnostics array as sent */
    int64_t version;
    bool empty;
    uint32_t stamp;            /* the publication round that last saw the file */
} Published;

/* A program of the language: the .orbit files checked together. For a workspace folder,
 * every .orbit file below it, with open documents in place of their files on disk; for
 * a document outside every folder, that document alone. */
typedef struct Project {
    bool live;
    char *root;                /* the folder, or the standalone document's URI */
    bool is_folder;
    bool dirty;                /* needs a check */
    bool rescan;               /* the folder must be walked again */
    char **disk_files;         /* .orbit files found below the folder, sorted */
    uint32_t disk_count;
    Analysis *analysis;        /* the last check, or NULL */
    bool publish_pending;      /* its diagnostics were not published (they were stale) */
    json_t *published_by_uri;  /* URI -> index in `published` (a jansson object: its hash
                                  table) */
    Published *published;
    uint32_t published_count, published_cap;
    uint32_t stamp;            /* publication rounds */
    json_t *problems;          /* the paths that could not be used at the last check:
                                  message -> true (shown to the user when new) */
    json_t *walk_problems;     /* those of the last walk of the folder (rescan) */
} Project;

typedef struct Message {
    json_t *json;
    bool cancelled;
} Message;

typedef struct Server {
    LspOptions options;
    LspReader *reader;
    LspWrite write;
    void *write_context;
    bool output_lost;          /* the client stopped reading */
    bool input_ended;          /* the end of the stream (or a broken one) was seen */

    bool initialized;          /* `initialize` was answered */
    bool shutdown;             /* `shutdown` was answered */
    bool exited;               /* `exit` arrived */
    /* The processes whose end ends the server: --clientProcessId's and initialize's
     * processId (0: none). */
    long client_pids[2];

    PositionEncoding encoding;
    bool client_document_changes;   /* versioned WorkspaceEdit.documentChanges */
    bool client_watch_files;        /* dynamic registration of file watchers */
    bool client_markdown;           /* hover in Markdown (else plain text) */
    bool client_line_folding_only;  /* foldingRange.lineFoldingOnly */
    bool client_code_lens_refresh;  /* workspace.codeLens.refreshSupport */
    uint32_t folding_range_limit;   /* foldingRange.rangeLimit, 0: none */
    uint8_t lint_level[DIAG_CODE_COUNT];   /* initializationOptions warn / allow */
    char *explain_uri;         /* initializationOptions.explainUri (with {code}), or NULL */
    bool explain_tried;        /* the explanations were written to the cache (or could not be) */
    char *explain_base;        /* the URI of their directory in the cache ("…/"), or NULL */
    char *baseline;            /* initializationOptions.baseline: the baseline file of each
                                  workspace folder, relative to it (or absolute), or NULL */
    char *baseline_problem;    /* the last problem with it that was logged, or NULL */

    json_t *document_by_uri;   /* URI -> index in `documents` (a jansson object) */
    Document *documents;
    uint32_t document_count, document_cap;

    Project *projects;
    uint32_t project_count, project_cap;

    bool stdlib_tried;         /* the standard library was written out (or could not be) */
    char *stdlib_path;         /* its read-only copy for "go to definition", or NULL */
    char *stdlib_uri;

    uint64_t semantic_results; /* resultIds of semantic tokens given so far */
    json_t *lens;              /* lens.c: the last result of each test run, or NULL */

    /* The integers that the answer being sent ends with, written into its last (empty)
     * array by server.c instead of through jansson (lsp_answer_integers); NULL: none. */
    const uint32_t *answer_integers;
    uint32_t answer_integer_count;
    uint32_t *answer_integers_owned;   /* freed once the answer is sent */

    Message *queue;
    uint32_t queue_head, queue_count;
    uint64_t next_request_id;

    /* The error of the request being handled, set by a handler that returns NULL. */
    int error_code;
    char error_message[256];
} Server;

/* ---- server.c ---- */
/* Fails the current request: the handler then returns NULL. */
json_t *lsp_request_error(Server *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lsp_send_notification(Server *s, const char *method, json_t *params);   /* steals params */
void lsp_send_request(Server *s, const char *method, json_t *params);        /* steals params */
/* Reads the messages that have arrived; whether one of them changes the project (then a
 * check that started before it has a stale result). */
bool lsp_results_are_stale(Server *s, uint32_t project);
void lsp_log_message(Server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes the current request's answer end with these integers: the handler returns a
 * result whose last member is an empty array (its last member's too, down to it), and
 * server.c writes the digits into it. For arrays of hundreds of thousands of numbers
 * (semantic tokens), which jansson would allocate, print and free one by one. `owned`
 * is freed after the answer (NULL when `items` lives on, in a document). */
void lsp_answer_integers(Server *s, const uint32_t *items, uint32_t count, uint32_t *owned);
/* Members of a JSON object, NULL when absent or of another type. */
json_t *lsp_json_object_member(const json_t *object, const char *key);
const char *lsp_json_string_member(const json_t *object, const char *key);
bool lsp_json_integer_member(const json_t *object, const char *key, int64_t *out);

/* ---- documents.c ---- */
Document *lsp_document_find(Server *s, const char *uri);
/* The URI of a request's `textDocument`. */
const char *lsp_params_uri(Server *s, const json_t *params);
bool lsp_read_range(const json_t *json, LspPosition *start, LspPosition *end);
json_t *lsp_handle_did_open(Server *s, json_t *params);
json_t *lsp_handle_did_change(Server *s, json_t *params);
json_t *lsp_handle_did_close(Server *s, json_t *params);
json_t *lsp_handle_did_save(Server *s, json_t *params);
void lsp_documents_free(Server *s);

/* ---- project.c ---- */
void lsp_projects_init(Server *s, const json_t *initialize_params);
/* The project a document belongs to (made for a standalone document). */
uint32_t lsp_project_for(Server *s, const char *uri, const char *path);
void lsp_project_mark_dirty(Server *s, uint32_t project);
/* Checks the project when it has changes (publishing the results unless stale); returns
 * its analysis. */
Analysis *lsp_project_analysis(Server *s, uint32_t project);
/* Checks the first project that needs it; false when none does. */
bool lsp_check_next_project(Server *s);
/* Where a URI is in its project's current analysis: *file gets its index. Checks the
 * project first when needed. NULL (after lsp_request_error) when the URI is not part of any
 * program. */
Analysis *lsp_analysis_for_uri(Server *s, const char *uri, uint32_t *file);
LineIndex *lsp_analysis_lines(Analysis *a, uint32_t file);
/* Makes the program of `file` the analysis's current one; false when the file is part
 * of no program (a program's configuration, orbit.program). */
bool lsp_analysis_select(Analysis *a, uint32_t file);
/* Whether two files are checked as one program. */
bool lsp_analysis_same_program(const Analysis *a, uint32_t x, uint32_t y);
/* The analysis, file and byte offset of a request's textDocument and position. */
Analysis *lsp_analysis_at(Server *s, const json_t *params, uint32_t *file, uint32_t *offset);
/* The same two for any source of a program, its configuration (orbit.program) included:
 * the analysis's current program is not changed. */
Analysis *lsp_source_for_uri(Server *s, const char *uri, uint32_t *file);
Analysis *lsp_source_at(Server *s, const json_t *params, uint32_t *file, uint32_t *offset);
/* The byte offsets in `file` of the start and end of a request's range; false (after
 * lsp_request_error) when it has none. */
bool lsp_range_offsets(Server *s, Analysis *a, uint32_t file, const json_t *params,
                       uint32_t *start, uint32_t *end);
/* Whether a path is the read-only copy of the standard library (never checked). */
bool lsp_is_stdlib_copy(Server *s, const char *path);
/* Drops a standalone project whose document was closed (clearing its diagnostics). */
void lsp_project_release(Server *s, uint32_t project);
json_t *lsp_handle_did_change_watched_files(Server *s, json_t *params);
json_t *lsp_handle_did_change_workspace_folders(Server *s, json_t *params);
void lsp_projects_free(Server *s);

/* ---- cache.c ---- */
enum { LSP_CACHE_PATH_MAX = 4200 };
/* The path of a file of the server's cache (NAME may hold a directory: "explain/E0410.md");
 * false in memory-only mode, without a cache directory, or for a path too long. */
bool lsp_cache_path(Server *s, const char *name, char path[LSP_CACHE_PATH_MAX]);
/* Writes it (read-only, atomically) unless it holds `text` already; false (logged) when
 * it cannot be written. */
bool lsp_cache_write(Server *s, const char *path, const char *text, uint32_t len);

/* ---- markup.c ---- */
/* A MarkupContent of Markdown the server wrote: as it is for a client that prefers
 * Markdown, else as plain text (the marks taken out). */
json_t *lsp_markup_json(Server *s, const char *markdown, size_t len);
void lsp_markdown_to_plain(TextBuffer *out, const char *markdown, size_t len);

/* ---- publish.c ---- */
/* Publishes the diagnostics of every file of the project that changed since the last
 * publication, and clears those of files that are no longer part of it or clean. */
void lsp_publish_diagnostics(Server *s, Project *p);
/* Clears everything the project published. */
void lsp_publish_clear_all(Server *s, Project *p);
/* An LSP range of a span (whose file is known). */
json_t *lsp_range_json(Server *s, Analysis *a, uint32_t file, uint32_t start, uint32_t end);
/* The same, of byte offsets in the text of a line index. */
json_t *lsp_line_range_json(Server *s, LineIndex *lines, uint32_t start, uint32_t end);
json_t *lsp_location_json(Server *s, Analysis *a, Span span);
json_t *lsp_diagnostic_json(Server *s, Analysis *a, const Diagnostic *d);
void lsp_published_free(Project *p);

/* ---- codes.c ---- */
/* initializationOptions.explainUri. */
void lsp_codes_options(Server *s, const json_t *options);
/* The address of a code's explanation (a diagnostic's codeDescription.href), or NULL. */
json_t *lsp_code_href(Server *s, DiagCode code);
/* Hover and completion on a code in `// orbit:allow(…)` or a configuration's lints; NULL
 * when the position is not such a place (the ordinary hover or completion answers). */
json_t *lsp_code_hover(Server *s, json_t *params);
json_t *lsp_code_completion(Server *s, json_t *params);
json_t *lsp_handle_document_link(Server *s, json_t *params);
void lsp_codes_free(Server *s);

/* ---- Requests about documents: actions.c, hover.c, navigate.c, complete.c, formatting.c */

/* An edit of a workspace: a replacement of bytes [start, end) of a file. */
typedef struct Edit {
    uint32_t file;
    uint32_t start, end;
    const char *text;
} Edit;

/* A WorkspaceEdit of edits sorted by file: versioned documentChanges when the client
 * takes them (an edit made for an older text is then refused), else plain changes. */
json_t *lsp_workspace_edit_json(Server *s, Analysis *a, const Edit *edits, uint32_t count);

json_t *lsp_handle_code_action(Server *s, json_t *params);
json_t *lsp_handle_hover(Server *s, json_t *params);
json_t *lsp_handle_definition(Server *s, json_t *params);
json_t *lsp_handle_references(Server *s, json_t *params);
json_t *lsp_handle_document_highlight(Server *s, json_t *params);
json_t *lsp_handle_prepare_rename(Server *s, json_t *params);
json_t *lsp_handle_rename(Server *s, json_t *params);
json_t *lsp_handle_document_symbol(Server *s, json_t *params);
json_t *lsp_handle_workspace_symbol(Server *s, json_t *params);
json_t *lsp_handle_completion(Server *s, json_t *params);
json_t *lsp_handle_formatting(Server *s, json_t *params);
json_t *lsp_handle_range_formatting(Server *s, json_t *params);
json_t *lsp_handle_signature_help(Server *s, json_t *params);
json_t *lsp_handle_prepare_call_hierarchy(Server *s, json_t *params);
json_t *lsp_handle_incoming_calls(Server *s, json_t *params);
json_t *lsp_handle_outgoing_calls(Server *s, json_t *params);
/* ---- hints.c ---- */
json_t *lsp_handle_inlay_hint(Server *s, json_t *params);
/* ---- structure.c ---- */
json_t *lsp_handle_folding_range(Server *s, json_t *params);
json_t *lsp_handle_selection_range(Server *s, json_t *params);

/* ---- semantic.c ---- */
/* The semanticTokensProvider capability: the legend, full with delta, and range. */
json_t *lsp_semantic_legend(void);
json_t *lsp_handle_semantic_tokens_full(Server *s, json_t *params);
json_t *lsp_handle_semantic_tokens_delta(Server *s, json_t *params);
json_t *lsp_handle_semantic_tokens_range(Server *s, json_t *params);
/* Drops the document's last semantic tokens (closed, or the server ends). */
void lsp_semantic_forget(Document *d);

/* ---- lens.c ---- */
/* The executeCommandProvider capability: the commands that run tests. */
json_t *lsp_lens_commands(void);
json_t *lsp_handle_code_lens(Server *s, json_t *params);
json_t *lsp_handle_execute_command(Server *s, json_t *params);
/* Appends to `list` the failed expectations of the tests last run in file `f`, unless
 * its document changed since (they are dropped then). */
void lsp_lens_diagnostics(Server *s, const AnalysisFile *f, json_t *list);
void lsp_lens_free(Server *s);

#endif
