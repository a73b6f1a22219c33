/* The program of a document (docs/editors.md, "What is checked"): for a document inside
 * a workspace folder, every .orbit file below that folder, with the open documents in
 * place of their files on disk; for any other document, the document alone. A change
 * re-checks the whole program (a megabyte checks in tens of milliseconds) and the
 * diagnostics of all its files are published again. */
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "uri.h"

/* ---- Projects ----------------------------------------------------------------------- */

static uint32_t project_add(Server *s, const char *root, bool is_folder)
{
    uint32_t i = 0;
    while (i < s->project_count && s->projects[i].live)
        i++;
    if (i == s->project_count) {
        if (s->project_count == s->project_cap) {
            s->project_cap = s->project_cap ? s->project_cap * 2 : 4;
            s->projects = xrealloc(s->projects, s->project_cap * sizeof *s->projects);
        }
        s->project_count++;
    }
    Project *p = &s->projects[i];
    memset(p, 0, sizeof *p);
    p->live = true;
    p->root = strcpy(xmalloc(strlen(root) + 1), root);
    for (size_t len = strlen(root); is_folder && len > 1 && p->root[len - 1] == '/';)
        p->root[--len] = '\0';
    p->published_by_uri = json_object();
    p->problems = json_object();
    p->walk_problems = json_object();
    p->is_folder = is_folder;
    p->rescan = is_folder;
    p->dirty = !is_folder;       /* a folder is checked once a document of it opens */
    return i;
}

static void analysis_free(Analysis *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->c.sources.count; i++) {
        free(a->files[i].uri);
        lsp_line_index_free(&a->files[i].lines);
    }
    free(a->files);
    free(a->baselined);
    free(a->programs);
    free(a->root_of);
    if (a->indexed)
        arena_free(&a->index_arena);
    compiler_free(&a->c);
    free(a);
}

static void disk_files_free(Project *p)
{
    for (uint32_t i = 0; i < p->disk_count; i++)
        free(p->disk_files[i]);
    free(p->disk_files);
    p->disk_files = NULL;
    p->disk_count = 0;
}

static void project_free(Project *p)
{
    analysis_free(p->analysis);
    disk_files_free(p);
    lsp_published_free(p);
    json_decref(p->problems);
    json_decref(p->walk_problems);
    free(p->root);
    memset(p, 0, sizeof *p);
}

/* The path of a folder's URI, without a trailing slash; NULL if not a file: URI. */
static char *folder_path(const char *uri)
{
    char *path = uri ? lsp_uri_to_path(uri) : NULL;
    size_t len = path ? strlen(path) : 0;
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    return path;
}

static void add_folder(Server *s, const char *uri)
{
    char *path = folder_path(uri);
    if (path)
        project_add(s, path, true);
    else
        lsp_log_message(s, "workspace folder %s is not a file: URI; ignored", uri);
    free(path);
}

void lsp_projects_init(Server *s, const json_t *params)
{
    json_t *folders = lsp_json_object_member(params, "workspaceFolders");
    const char *root_uri = lsp_json_string_member(params, "rootUri");
    const char *root_path = lsp_json_string_member(params, "rootPath");
    if (json_is_array(folders)) {
        size_t i;
        json_t *folder;
        json_array_foreach(folders, i, folder) {
            const char *uri = lsp_json_string_member(folder, "uri");
            if (uri)
                add_folder(s, uri);
        }
    } else if (root_uri) {
        add_folder(s, root_uri);
    } else if (root_path && root_path[0] == '/') {
        project_add(s, root_path, true);
    }
}

/* Whether `path` is below the folder `root`. */
static bool is_below(const char *root, const char *path)
{
    size_t len = strlen(root);
    if (strcmp(root, "/") == 0)
        return path[0] == '/';
    return strncmp(root, path, len) == 0 && path[len] == '/';
}

/* The deepest folder project that holds `path`, or NO_INDEX. */
static uint32_t folder_of(Server *s, const char *path)
{
    uint32_t best = NO_INDEX;
    for (uint32_t i = 0; path && i < s->project_count; i++) {
        Project *p = &s->projects[i];
        if (p->live && p->is_folder && is_below(p->root, path) &&
            (best == NO_INDEX || strlen(p->root) > strlen(s->projects[best].root)))
            best = i;
    }
    return best;
}

/* The nearest directory at or above the file's that holds a program's configuration
 * (orbit.program), malloc'd, or NULL. */
static char *nearest_root(const char *path)
{
    char *dir = strcpy(xmalloc(strlen(path) + sizeof PROGRAM_MARKER + 2), path);
    for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
        strcpy(slash + 1, PROGRAM_MARKER);
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
            slash[slash == dir] = '\0';
            return dir;
        }
        *slash = '\0';
    }
    free(dir);
    return NULL;
}

uint32_t lsp_project_for(Server *s, const char *uri, const char *path)
{
    uint32_t folder = folder_of(s, path);
    if (folder != NO_INDEX)
        return folder;
    char *root = path && !s->options.memory_only ? nearest_root(path) : NULL;
    if (root) {               /* outside every folder, but in a program: check all of it */
        folder = project_add(s, root, true);
        free(root);
        return folder;
    }
    for (uint32_t i = 0; i < s->project_count; i++)
        if (s->projects[i].live && !s->projects[i].is_folder &&
            strcmp(s->projects[i].root, uri) == 0)
            return i;
    return project_add(s, uri, false);
}

void lsp_project_mark_dirty(Server *s, uint32_t project)
{
    if (project != NO_INDEX)
        s->projects[project].dirty = true;
}

void lsp_project_release(Server *s, uint32_t project)
{
    if (project == NO_INDEX)
        return;
    Project *p = &s->projects[project];
    if (p->is_folder) {
        p->dirty = true;         /* the file on disk takes the document's place */
        return;
    }
    lsp_publish_clear_all(s, p);
    project_free(p);
}

void lsp_projects_free(Server *s)
{
    free(s->stdlib_path);
    free(s->stdlib_uri);
    for (uint32_t i = 0; i < s->project_count; i++)
        if (s->projects[i].live)
            project_free(&s->projects[i]);
    free(s->projects);
}

/* ---- The files of a folder ------------------------------------------------------- */

/* A path made absolute (malloc'd): the workspace names a program's configuration
 * relative to the current directory when it is below it; the user is shown, and the
 * client given, whole paths. */
static char *absolute_path(const char *path)
{
    char cwd[4096];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return strcpy(xmalloc(strlen(path) + 1), path);
    size_t len = strlen(cwd) + strlen(path) + 2;
    char *full = xmalloc(len);
    snprintf(full, len, "%s/%s", cwd, path);
    return full;
}

/* The paths of a project that cannot be used, as the workspace reports them during a
 * check (an unreadable orbit.program, a directory that cannot be walked). */
typedef struct Problems {
    Server *s;
    json_t *seen;              /* message -> true */
} Problems;

/* In the log, and gathered to be shown (show_new_problems); the path the message
 * quotes (`path`) is made absolute. */
static void report_problem(void *context, const char *path, const char *message)
{
    Problems *problems = context;
    TextBuffer text = { 0 };
    char quoted[4200];
    snprintf(quoted, sizeof quoted, "`%s`", path);
    const char *at = path[0] != '/' ? strstr(message, quoted) : NULL;
    if (at) {
        char *full = absolute_path(path);
        text_printf(&text, "%.*s`%s`%s", (int)(at - message), message, full,
                    at + strlen(quoted));
        free(full);
    } else {
        text_append_str(&text, message);
    }
    lsp_log_message(problems->s, "%s", text.data);
    json_object_set_new(problems->seen, text.data, json_true());
    text_free(&text);
}

/* Shows the user (window/showMessage, as an error) each problem that the project's last
 * check did not have: a problem that stays is shown once, not at every keystroke; one
 * that goes away and comes back is shown again. */
static void show_new_problems(Server *s, Project *p, json_t *seen)
{
    const char *message;
    json_t *value;
    json_object_foreach(seen, message, value)
        if (!json_object_get(p->problems, message))
            lsp_send_notification(s, "window/showMessage",
                                  json_pack("{s:i, s:o}", "type", 1,
                                            "message", diag_json_text0(message)));
    json_decref(p->problems);
    p->problems = json_incref(seen);
}

/* The .orbit files below the folder, found as `orbitc check DIR` finds them
 * (workspace/inputs.h: sorted, hidden entries skipped, each file once); not those of a
 * workspace folder inside it (a program of its own), nor the standard library's copy. */
static void rescan(Server *s, uint32_t project)
{
    Project *p = &s->projects[project];
    disk_files_free(p);
    json_object_clear(p->walk_problems);
    p->rescan = false;
    if (s->options.memory_only)
        return;
    Problems problems = { s, p->walk_problems };
    InputList list = { .report = report_problem, .report_context = &problems };
    const char *root = p->root;
    inputs_collect(&list, &root, 1);
    p->disk_files = xmalloc((list.count + 1) * sizeof *p->disk_files);
    for (size_t i = 0; i < list.count; i++) {
        const char *path = list.items[i].path;
        if (lsp_is_stdlib_copy(s, path) || folder_of(s, path) != project)
            continue;
        p->disk_files[p->disk_count++] = list.items[i].path;
        list.items[i].path = NULL;
    }
    inputs_free(&list);
}

/* ---- The standard library, as a file an editor can open ------------------------ */

/* The standard library as a read-only file in the server's cache (cache.c), written
 * once, so that "go to definition" of `orbit.http.request` or `len` can show it. */
static void write_stdlib_copy(Server *s, const SourceFile *stdlib)
{
    s->stdlib_tried = true;
    char path[LSP_CACHE_PATH_MAX];
    if (!lsp_cache_path(s, "orbit.orbit", path) ||
        !lsp_cache_write(s, path, stdlib->text, stdlib->len))
        return;
    s->stdlib_path = strcpy(xmalloc(strlen(path) + 1), path);
    s->stdlib_uri = lsp_uri_from_path(path);
}

bool lsp_is_stdlib_copy(Server *s, const char *path)
{
    return path && s->stdlib_path && strcmp(path, s->stdlib_path) == 0;
}

/* ---- Checking ----------------------------------------------------------------------- */

/* A source of the program: a document, or a file on disk. */
typedef struct Source {
    const char *path;
    uint32_t document;
} Source;

static int compare_sources(const void *a, const void *b)
{
    return strcmp(((const Source *)a)->path, ((const Source *)b)->path);
}

/* The sources of a project in path order; an open document replaces its file. */
static Source *project_sources(Server *s, uint32_t project, uint32_t *count)
{
    Project *p = &s->projects[project];
    uint32_t open = 0;
    for (uint32_t i = 0; i < s->document_count; i++)
        open += s->documents[i].open && s->documents[i].project == project;
    Source *docs = xmalloc((open ? open : 1) * sizeof *docs);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->document_count; i++) {
        Document *d = &s->documents[i];
        if (d->open && d->project == project)
            docs[n++] = (Source){ d->path ? d->path : d->uri, i };
    }
    qsort(docs, n, sizeof *docs, compare_sources);
    Source *all = xmalloc((n + p->disk_count + 1) * sizeof *all);
    uint32_t k = 0, i = 0, j = 0;
    while (i < n || j < p->disk_count) {
        int order = i == n ? 1 : j == p->disk_count ? -1
                  : strcmp(docs[i].path, p->disk_files[j]);
        if (order <= 0) {
            if (k == 0 || strcmp(all[k - 1].path, docs[i].path) != 0)
                all[k++] = docs[i];
            i++;
            j += order == 0;
        } else {
            all[k++] = (Source){ p->disk_files[j++], NO_INDEX };
        }
    }
    free(docs);
    *count = k;
    return all;
}

/* The URI of a source that was not a document: its file's, made absolute (a program's
 * configuration is named relative to the current directory when below it). */
static char *file_uri(const char *path)
{
    char *full = absolute_path(path);
    char *uri = lsp_uri_from_path(full);
    free(full);
    return uri;
}

/* Notes each file's root (root_of) and takes the checked programs. */
static void take_programs(Analysis *a, Workspace *w)
{
    Compiler *c = &a->c;
    a->root_of = xmalloc((c->sources.count + 1) * sizeof *a->root_of);
    for (uint32_t f = 0; f < c->sources.count; f++)
        a->root_of[f] = NO_INDEX;
    for (uint32_t r = 0; r < w->roots.count; r++) {
        const Root *root = &w->roots.items[r];
        for (uint32_t k = 0; k < root->file_count; k++)
            a->root_of[root->files[k]] = r;
    }
    a->programs = w->checked;
    a->root_count = w->roots.count;
    w->checked = NULL;
}

/* Logs a problem with the baseline once, until another one replaces it. */
static void log_baseline_problem(Server *s, char *problem)
{
    if (!s->baseline_problem || strcmp(s->baseline_problem, problem) != 0)
        lsp_log_message(s, "%s", problem);
    free(s->baseline_problem);
    s->baseline_problem = problem;
}

/* The marks of the folder's baseline (initializationOptions.baseline) over the checked
 * workspace, or NULL: no baseline, a document outside every folder, or a baseline that
 * cannot be read (logged; a missing file is no problem: it is not written yet). */
static uint8_t *baseline_marks(Server *s, const Project *p, const Workspace *w)
{
    if (!s->baseline || !p->is_folder || s->options.memory_only)
        return NULL;
    TextBuffer path = { 0 };
    if (s->baseline[0] == '/')
        text_append_str(&path, s->baseline);
    else
        text_printf(&path, "%s/%s", p->root, s->baseline);
    Baseline b;
    bool missing;
    char *error = NULL;
    uint8_t *marks = NULL;
    if (baseline_read(&b, path.data, &missing, &error)) {
        marks = xcalloc(w->c->diags.count + 1, 1);
        baseline_match(&b, w, marks);
    } else if (missing) {
        free(error);
    } else {
        log_baseline_problem(s, error);
    }
    baseline_free(&b);
    text_free(&path);
    return marks;
}

static Analysis *analyse(Server *s, uint32_t project)
{
    Project *p = &s->projects[project];
    Analysis *a = xcalloc(1, sizeof *a);
    compiler_init(&a->c);
    if (!s->stdlib_tried)
        write_stdlib_copy(s, source_file(&a->c.sources, 0));
    if (p->rescan)
        rescan(s, project);
    Problems problems = { s, json_deep_copy(p->walk_problems) };
    /* The files of a folder form the programs their roots make of them (orbitc check
     * does the same, workspace/roots.h), each checked with its configuration's lint
     * levels under the client's. A document that is not a file, and every source in
     * memory-only mode, is one program. */
    Workspace w;
    workspace_init(&w, &a->c, p->is_folder && !s->options.memory_only);
    w.report = report_problem;
    w.report_context = &problems;
    memcpy(w.overrides, s->lint_level, sizeof w.overrides);
    uint32_t count;
    Source *sources = project_sources(s, project, &count);
    for (uint32_t i = 0; i < count; i++) {
        if (sources[i].document != NO_INDEX) {
            const Document *d = &s->documents[sources[i].document];
            char *text = compiler_fits(&a->c, d->len) ? xstrndup(d->text, d->len) : NULL;
            workspace_add_text(&w, sources[i].path, text, d->len);
        } else {
            Input input = { .path = (char *)sources[i].path, .found = true };
            workspace_read_input(&w, &input);
        }
    }
    uint32_t added = a->c.sources.count - 1;
    workspace_check(&w);
    a->baselined = baseline_marks(s, p, &w);
    take_programs(a, &w);
    workspace_free(&w);
    /* every source now, the programs' configurations included */
    a->files = xcalloc(a->c.sources.count, sizeof *a->files);
    a->files[0] = (AnalysisFile){ NULL, NO_INDEX, 0, { 0 } };
    if (s->stdlib_uri)
        a->files[0].uri = strcpy(xmalloc(strlen(s->stdlib_uri) + 1), s->stdlib_uri);
    for (uint32_t f = 1, i = 0; f < a->c.sources.count; f++) {
        const char *path = source_file(&a->c.sources, f)->path;
        while (i < count && strcmp(sources[i].path, path) != 0 && f <= added)
            i++;   /* the sources that could be read, in order */
        const Document *d = f <= added && i < count && sources[i].document != NO_INDEX
            ? &s->documents[sources[i].document] : NULL;
        a->files[f].document = d ? sources[i].document : NO_INDEX;
        a->files[f].version = d ? d->version : 0;
        a->files[f].uri = d ? strcpy(xmalloc(strlen(d->uri) + 1), d->uri) : file_uri(path);
    }
    free(sources);
    show_new_problems(s, p, problems.seen);
    json_decref(problems.seen);
    a->program = a->root_count ? a->programs[0] : NULL;
    return a;
}

/* Checks a project now; publishes unless a queued message made the result stale. */
static void check_project(Server *s, uint32_t project)
{
    Project *p = &s->projects[project];
    analysis_free(p->analysis);   /* first: two programs in memory at once would double
                                     the peak */
    p->analysis = NULL;
    p->analysis = analyse(s, project);
    p->dirty = false;
    p->publish_pending = true;
    if (!lsp_results_are_stale(s, project)) {
        lsp_publish_diagnostics(s, p);
        p->publish_pending = false;
    }
}

bool lsp_check_next_project(Server *s)
{
    for (uint32_t i = 0; i < s->project_count; i++) {
        Project *p = &s->projects[i];
        if (!p->live)
            continue;
        if (p->dirty) {
            check_project(s, i);
            return true;
        }
        if (p->publish_pending) {
            if (!lsp_results_are_stale(s, i)) {
                lsp_publish_diagnostics(s, p);
                p->publish_pending = false;
            }
            return true;
        }
    }
    return false;
}

Analysis *lsp_project_analysis(Server *s, uint32_t project)
{
    if (s->projects[project].dirty || !s->projects[project].analysis)
        check_project(s, project);
    return s->projects[project].analysis;
}

/* Whether a source's path (relative for a configuration below the current directory)
 * is the absolute path `path`. */
static bool same_path(const char *source, const char *path)
{
    if (source[0] == '/')
        return strcmp(source, path) == 0;
    char *full = absolute_path(source);
    bool same = strcmp(full, path) == 0;
    free(full);
    return same;
}

Analysis *lsp_source_for_uri(Server *s, const char *uri, uint32_t *file)
{
    if (!uri) {
        lsp_request_error(s, RPC_INVALID_PARAMS, "textDocument.uri is missing");
        return NULL;
    }
    Document *d = lsp_document_find(s, uri);
    char *path = lsp_uri_to_path(uri);
    uint32_t project = d && d->open ? d->project : folder_of(s, path);
    Analysis *a = project == NO_INDEX ? NULL : lsp_project_analysis(s, project);
    for (uint32_t i = 1; a && i < a->c.sources.count; i++) {
        bool same = d && d->open ? a->files[i].document == (uint32_t)(d - s->documents)
                                 : path && same_path(source_file(&a->c.sources, i)->path, path);
        if (same) {
            free(path);
            *file = i;
            return a;
        }
    }
    free(path);
    lsp_request_error(s, LSP_REQUEST_FAILED, "%s is not part of an Orbit program "
                      "(open it, or open its folder)", uri);
    return NULL;
}

Analysis *lsp_analysis_for_uri(Server *s, const char *uri, uint32_t *file)
{
    Analysis *a = lsp_source_for_uri(s, uri, file);
    if (!a || lsp_analysis_select(a, *file))
        return a;
    lsp_request_error(s, LSP_REQUEST_FAILED, "%s is a program's configuration, not "
                      "part of a program", uri);
    return NULL;
}

/* The byte offset of a request's position in `file`; false (after lsp_request_error)
 * without a position. */
static bool position_offset(Server *s, const json_t *params, Analysis *a, uint32_t file,
                            uint32_t *offset)
{
    json_t *position = lsp_json_object_member(params, "position");
    int64_t line, character;
    if (!lsp_json_integer_member(position, "line", &line) ||
        !lsp_json_integer_member(position, "character", &character) || line < 0 ||
        character < 0) {
        lsp_request_error(s, RPC_INVALID_PARAMS, "a position is needed");
        return false;
    }
    LspPosition p = { line > UINT32_MAX ? UINT32_MAX : (uint32_t)line,
                      character > UINT32_MAX ? UINT32_MAX : (uint32_t)character };
    *offset = lsp_line_index_offset(lsp_analysis_lines(a, file), p, s->encoding);
    return true;
}

Analysis *lsp_analysis_at(Server *s, const json_t *params, uint32_t *file, uint32_t *offset)
{
    if (!json_is_object(lsp_json_object_member(params, "position"))) {
        lsp_request_error(s, RPC_INVALID_PARAMS, "a position is needed");
        return NULL;
    }
    Analysis *a = lsp_analysis_for_uri(s, lsp_params_uri(s, params), file);
    return a && position_offset(s, params, a, *file, offset) ? a : NULL;
}

Analysis *lsp_source_at(Server *s, const json_t *params, uint32_t *file, uint32_t *offset)
{
    if (!json_is_object(lsp_json_object_member(params, "position"))) {
        lsp_request_error(s, RPC_INVALID_PARAMS, "a position is needed");
        return NULL;
    }
    Analysis *a = lsp_source_for_uri(s, lsp_params_uri(s, params), file);
    return a && position_offset(s, params, a, *file, offset) ? a : NULL;
}

bool lsp_range_offsets(Server *s, Analysis *a, uint32_t file, const json_t *params,
                       uint32_t *start, uint32_t *end)
{
    LspPosition from, to;
    if (!lsp_read_range(lsp_json_object_member(params, "range"), &from, &to)) {
        lsp_request_error(s, RPC_INVALID_PARAMS, "a range is needed");
        return false;
    }
    LineIndex *lines = lsp_analysis_lines(a, file);
    *start = lsp_line_index_offset(lines, from, s->encoding);
    *end = lsp_line_index_offset(lines, to, s->encoding);
    return true;
}

bool lsp_analysis_select(Analysis *a, uint32_t file)
{
    uint32_t root = file < a->c.sources.count ? a->root_of[file] : NO_INDEX;
    a->program = root != NO_INDEX ? a->programs[root] : NULL;
    return a->program != NULL;
}

bool lsp_analysis_same_program(const Analysis *a, uint32_t x, uint32_t y)
{
    return a->root_of[x] != NO_INDEX && a->root_of[x] == a->root_of[y];
}

LineIndex *lsp_analysis_lines(Analysis *a, uint32_t file)
{
    AnalysisFile *f = &a->files[file];
    if (!f->lines.starts) {
        const SourceFile *src = source_file(&a->c.sources, file);
        lsp_line_index_build(&f->lines, src->text, src->len);
    }
    return &f->lines;
}

/* ---- Changes on disk and of the workspace ----------------------------------------- */

json_t *lsp_handle_did_change_watched_files(Server *s, json_t *params)
{
    json_t *changes = lsp_json_object_member(params, "changes");
    size_t i;
    json_t *change;
    json_array_foreach(changes, i, change) {
        const char *uri = lsp_json_string_member(change, "uri");
        char *path = uri ? lsp_uri_to_path(uri) : NULL;
        for (uint32_t k = 0; path && k < s->project_count; k++) {
            Project *p = &s->projects[k];
            if (p->live && p->is_folder && is_below(p->root, path)) {
                p->rescan = true;
                p->dirty = true;
            }
        }
        free(path);
    }
    return NULL;
}

/* After folders come or go, every open document moves to the project it now belongs
 * to; standalone projects left without their document are dropped. */
static void reassign_documents(Server *s)
{
    for (uint32_t i = 0; i < s->document_count; i++) {
        Document *d = &s->documents[i];
        if (!d->open || lsp_is_stdlib_copy(s, d->path))
            continue;
        uint32_t now = lsp_project_for(s, d->uri, d->path);
        if (now == d->project)
            continue;
        uint32_t before = d->project;
        d->project = now;
        lsp_project_mark_dirty(s, now);
        if (before != NO_INDEX && !s->projects[before].is_folder)
            lsp_project_release(s, before);
        else
            lsp_project_mark_dirty(s, before);
    }
}

json_t *lsp_handle_did_change_workspace_folders(Server *s, json_t *params)
{
    json_t *event = lsp_json_object_member(params, "event");
    json_t *removed = lsp_json_object_member(event, "removed");
    json_t *added = lsp_json_object_member(event, "added");
    size_t i;
    json_t *folder;
    json_array_foreach(removed, i, folder) {
        char *path = folder_path(lsp_json_string_member(folder, "uri"));
        for (uint32_t k = 0; path && k < s->project_count; k++) {
            Project *p = &s->projects[k];
            if (p->live && p->is_folder && strcmp(p->root, path) == 0) {
                for (uint32_t d = 0; d < s->document_count; d++)
                    if (s->documents[d].project == k)
                        s->documents[d].project = NO_INDEX;
                lsp_publish_clear_all(s, p);
                project_free(p);
            }
        }
        free(path);
    }
    json_array_foreach(added, i, folder) {
        const char *uri = lsp_json_string_member(folder, "uri");
        if (uri)
            add_folder(s, uri);
    }
    for (uint32_t k = 0; k < s->project_count; k++)   /* a folder may now hold another */
        if (s->projects[k].live && s->projects[k].is_folder)
            s->projects[k].rescan = s->projects[k].dirty = true;
    reassign_documents(s);
    return NULL;
}
