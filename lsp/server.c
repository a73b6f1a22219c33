/* The message loop: JSON-RPC 2.0 over the base protocol, the LSP lifecycle (initialize,
 * initialized, shutdown, exit), dispatch to the handlers, errors and cancellation.
 * One bad message never ends the session: malformed JSON is answered with -32700 and
 * the next message is read; only a header that cannot be read (the stream cannot be
 * resynchronised) ends it, with a line on stderr. */
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"

/* ---- JSON helpers ------------------------------------------------------------------- */

json_t *lsp_json_object_member(const json_t *object, const char *key)
{
    return json_is_object(object) ? json_object_get(object, key) : NULL;
}

const char *lsp_json_string_member(const json_t *object, const char *key)
{
    json_t *v = lsp_json_object_member(object, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

bool lsp_json_integer_member(const json_t *object, const char *key, int64_t *out)
{
    json_t *v = lsp_json_object_member(object, key);
    if (!json_is_integer(v))
        return false;
    *out = json_integer_value(v);
    return true;
}

/* ---- Sending ------------------------------------------------------------------------ */

/* Writes `n` in decimal at `out`; returns the number of digits. */
static size_t write_decimal(char *out, uint32_t n)
{
    char digits[10];
    size_t len = 0;
    do {
        digits[len++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    for (size_t i = 0; i < len; i++)
        out[i] = digits[len - 1 - i];
    return len;
}

/* `body` (a compact dump, malloc'd) with the integers written into its last value: the
 * empty array that only closing brackets follow. NULL when the body does not end so
 * (a handler's mistake). */
static char *splice_integers(char *body, const uint32_t *items, uint32_t count)
{
    size_t len = strlen(body);
    size_t at = len;
    while (at > 0 && (body[at - 1] == '}' || body[at - 1] == ']'))
        at--;
    if (at == 0 || body[at - 1] != '[' || body[at] != ']')
        return NULL;
    char *out = xmalloc(len + (size_t)count * 11 + 1);
    memcpy(out, body, at);
    size_t n = at;
    for (uint32_t i = 0; i < count; i++) {
        if (i > 0)
            out[n++] = ',';
        n += write_decimal(out + n, items[i]);
    }
    memcpy(out + n, body + at, len - at + 1);
    return out;
}

/* Sends `message` (and frees it); `integers`: its last empty array's content (answers). */
static void send_with(Server *s, json_t *message, const uint32_t *integers, uint32_t count)
{
    if (!s->output_lost) {
        char *body = json_dumps(message, JSON_COMPACT);
        if (body && integers) {
            char *spliced = splice_integers(body, integers, count);
            free(body);
            body = spliced;
        }
        if (!body) {
            lsp_log_message(s, "cannot encode a message");
        } else {
            if (!lsp_write_frame(s->write, s->write_context, body, strlen(body)))
                s->output_lost = true;
            free(body);
        }
    }
    json_decref(message);
}

static void send_message(Server *s, json_t *message)
{
    send_with(s, message, NULL, 0);
}

void lsp_answer_integers(Server *s, const uint32_t *items, uint32_t count, uint32_t *owned)
{
    free(s->answer_integers_owned);
    s->answer_integers = items;
    s->answer_integer_count = count;
    s->answer_integers_owned = owned;
}

static void forget_answer_integers(Server *s)
{
    lsp_answer_integers(s, NULL, 0, NULL);
}

static json_t *envelope(void)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    return m;
}

static void respond(Server *s, json_t *id, json_t *result)
{
    json_t *m = envelope();
    json_object_set(m, "id", id);
    json_object_set_new(m, "result", result ? result : json_null());
    send_with(s, m, s->answer_integers, s->answer_integer_count);
    forget_answer_integers(s);
}

static void respond_error(Server *s, json_t *id, int code, const char *message)
{
    json_t *m = envelope();
    json_object_set(m, "id", id ? id : json_null());
    json_t *error = json_object();
    json_object_set_new(error, "code", json_integer(code));
    json_object_set_new(error, "message", diag_json_text0(message));
    json_object_set_new(m, "error", error);
    forget_answer_integers(s);
    send_message(s, m);
}

void lsp_send_notification(Server *s, const char *method, json_t *params)
{
    json_t *m = envelope();
    json_object_set_new(m, "method", json_string(method));
    json_object_set_new(m, "params", params);
    send_message(s, m);
}

void lsp_send_request(Server *s, const char *method, json_t *params)
{
    char id[32];
    snprintf(id, sizeof id, "orbitc-%llu", (unsigned long long)++s->next_request_id);
    json_t *m = envelope();
    json_object_set_new(m, "id", json_string(id));
    json_object_set_new(m, "method", json_string(method));
    json_object_set_new(m, "params", params);
    send_message(s, m);
}

void lsp_log_message(Server *s, const char *fmt, ...)
{
    (void)s;
    va_list ap;
    va_start(ap, fmt);
    lsp_log_vprintf(fmt, ap);
    va_end(ap);
}

json_t *lsp_request_error(Server *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error_message, sizeof s->error_message, fmt, ap);
    va_end(ap);
    s->error_code = code;
    return NULL;
}

/* ---- Lifecycle ---------------------------------------------------------------------- */

static bool string_in_array(const json_t *array, const char *wanted)
{
    size_t i;
    json_t *v;
    if (!json_is_array(array))
        return false;
    json_array_foreach(array, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), wanted) == 0)
            return true;
    return false;
}

/* hover.contentFormat lists the formats in the client's order of preference: Markdown
 * when it comes before plaintext (or plaintext is not listed). */
static bool prefers_markdown(const json_t *formats)
{
    size_t i;
    json_t *v;
    if (!json_is_array(formats))
        return false;
    json_array_foreach(formats, i, v)
        if (json_is_string(v) && (strcmp(json_string_value(v), "markdown") == 0 ||
                                  strcmp(json_string_value(v), "plaintext") == 0))
            return strcmp(json_string_value(v), "markdown") == 0;
    return false;
}

static bool flag_at(const json_t *object, const char *a, const char *b, const char *c)
{
    json_t *v = lsp_json_object_member(lsp_json_object_member(object, a), b);
    return json_is_true(lsp_json_object_member(v, c));
}

/* initializationOptions: { "warn": ["W0007"], "allow": ["W0002"] }, as --warn / --allow. */
static void read_lint_levels(Server *s, const json_t *options)
{
    static const char *const KEYS[] = { "allow", "warn" };
    for (int k = 0; k < 2; k++) {
        json_t *codes = lsp_json_object_member(options, KEYS[k]);
        size_t i;
        json_t *v;
        if (!json_is_array(codes))
            continue;
        json_array_foreach(codes, i, v) {
            int code = json_is_string(v) ? diag_code_from_string(json_string_value(v)) : -1;
            if (code >= 0 && diag_info((DiagCode)code)->severity == SEV_WARNING)
                s->lint_level[code] = k == 0 ? LINT_ALLOW : LINT_WARN;
            else
                lsp_log_message(s, "initializationOptions.%s: not a warning code", KEYS[k]);
        }
    }
}

/* foldingRange: { "lineFoldingOnly": true, "rangeLimit": 5000 } */
static void read_folding(Server *s, const json_t *folding)
{
    int64_t limit;
    s->client_line_folding_only = json_is_true(lsp_json_object_member(folding, "lineFoldingOnly"));
    if (lsp_json_integer_member(folding, "rangeLimit", &limit) && limit > 0)
        s->folding_range_limit = limit > UINT32_MAX ? UINT32_MAX : (uint32_t)limit;
}

static json_t *server_capabilities(Server *s)
{
    json_t *caps = json_object();
    json_object_set_new(caps, "positionEncoding",
                        json_string(s->encoding == ENCODING_UTF8 ? "utf-8" : "utf-16"));
    json_object_set_new(caps, "textDocumentSync",
                        json_pack("{s:b, s:i, s:{s:b}}", "openClose", 1, "change", 2,
                                  "save", "includeText", 0));
    json_object_set_new(caps, "hoverProvider", json_true());
    json_object_set_new(caps, "definitionProvider", json_true());
    json_object_set_new(caps, "referencesProvider", json_true());
    json_object_set_new(caps, "documentHighlightProvider", json_true());
    json_object_set_new(caps, "renameProvider", json_pack("{s:b}", "prepareProvider", 1));
    json_object_set_new(caps, "documentSymbolProvider", json_true());
    json_object_set_new(caps, "workspaceSymbolProvider", json_true());
    json_object_set_new(caps, "completionProvider",
                        json_pack("{s:[s, s, s]}", "triggerCharacters", ".", "\"", "["));
    json_object_set_new(caps, "codeActionProvider",
                        json_pack("{s:[s, s]}", "codeActionKinds", "quickfix",
                                  "source.fixAll.orbitc"));
    json_object_set_new(caps, "documentFormattingProvider", json_true());
    json_object_set_new(caps, "documentRangeFormattingProvider", json_true());
    json_object_set_new(caps, "documentLinkProvider", json_pack("{s:b}", "resolveProvider", 0));
    json_object_set_new(caps, "callHierarchyProvider", json_true());
    json_object_set_new(caps, "signatureHelpProvider",
                        json_pack("{s:[s, s]}", "triggerCharacters", "(", ","));
    json_object_set_new(caps, "inlayHintProvider", json_true());
    json_object_set_new(caps, "foldingRangeProvider", json_true());
    json_object_set_new(caps, "selectionRangeProvider", json_true());
    json_object_set_new(caps, "semanticTokensProvider", lsp_semantic_legend());
    json_object_set_new(caps, "codeLensProvider", json_pack("{s:b}", "resolveProvider", 0));
    json_object_set_new(caps, "executeCommandProvider", lsp_lens_commands());
    json_object_set_new(caps, "workspace",
                        json_pack("{s:{s:b, s:b}}", "workspaceFolders", "supported", 1,
                                  "changeNotifications", 1));
    return caps;
}

/* ---- The client's process --------------------------------------------------------- */

/* Watches process `pid` (slot 0: --clientProcessId, 1: initialize's processId); a pid
 * that cannot name one process (0, negative: a process group) is ignored. Only a server
 * reading a file descriptor watches: one reading a buffer (the fuzz target) never waits. */
static void watch_client(Server *s, int slot, int64_t pid)
{
    if (pid <= 0 || pid > INT_MAX) {
        if (pid != 0)
            lsp_log_message(s, "process id %lld cannot be watched; ignored", (long long)pid);
        return;
    }
    if (s->reader->fd < 0)
        return;
    s->client_pids[slot] = (long)pid;
    s->reader->wait_ms = LSP_CLIENT_CHECK_MS;
}

/* Whether a watched process has ended. kill(pid, 0) sends nothing: ESRCH means no such
 * process; EPERM, one that belongs to another user, is alive. */
static bool client_gone(Server *s)
{
    for (int i = 0; i < 2; i++) {
        pid_t pid = (pid_t)s->client_pids[i];
        if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
            lsp_log_message(s, "the client's process %ld has ended; stopping", (long)pid);
            return true;
        }
    }
    return false;
}

static json_t *handle_initialize(Server *s, json_t *params)
{
    if (!json_is_object(params))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "initialize needs parameters");
    json_t *caps = lsp_json_object_member(params, "capabilities");
    json_t *encodings = lsp_json_object_member(lsp_json_object_member(caps, "general"),
                                               "positionEncodings");
    s->encoding = string_in_array(encodings, "utf-8") ? ENCODING_UTF8 : ENCODING_UTF16;
    s->client_document_changes = flag_at(caps, "workspace", "workspaceEdit", "documentChanges");
    s->client_code_lens_refresh = flag_at(caps, "workspace", "codeLens", "refreshSupport");
    s->client_watch_files = flag_at(caps, "workspace", "didChangeWatchedFiles",
                                    "dynamicRegistration");
    json_t *hover = lsp_json_object_member(lsp_json_object_member(caps, "textDocument"), "hover");
    json_t *formats = lsp_json_object_member(hover, "contentFormat");
    s->client_markdown = prefers_markdown(formats);
    read_folding(s, lsp_json_object_member(lsp_json_object_member(caps, "textDocument"),
                                           "foldingRange"));
    read_lint_levels(s, lsp_json_object_member(params, "initializationOptions"));
    lsp_codes_options(s, lsp_json_object_member(params, "initializationOptions"));
    json_t *baseline = lsp_json_object_member(lsp_json_object_member(params, "initializationOptions"),
                                              "baseline");
    if (json_is_string(baseline) && json_string_length(baseline) > 0)
        s->baseline = xstrdup(json_string_value(baseline));
    else if (baseline)
        lsp_log_message(s, "initializationOptions.baseline: not a file name; ignored");
    int64_t pid;
    if (lsp_json_integer_member(params, "processId", &pid))
        watch_client(s, 1, pid);
    lsp_projects_init(s, params);
    s->initialized = true;
    return json_pack("{s:o, s:{s:s, s:s}}", "capabilities", server_capabilities(s),
                     "serverInfo", "name", "orbitc", "version", ORBIT_VERSION);
}

/* After `initialized`, ask to be told about .orbit files that change on disk. */
static json_t *handle_initialized(Server *s, json_t *params)
{
    if (!s->client_watch_files || s->options.memory_only)
        return NULL;
    json_t *watchers = json_pack("[{s:s}, {s:s}]", "globPattern", "**/*.orbit",
                                 "globPattern", "**/orbit.program");
    json_t *registration = json_pack("{s:s, s:s, s:{s:o}}", "id", "orbitc-watch-orbit-files",
                                     "method", "workspace/didChangeWatchedFiles",
                                     "registerOptions", "watchers", watchers);
    lsp_send_request(s, "client/registerCapability",
                     json_pack("{s:[o]}", "registrations", registration));
    return NULL;
}

static json_t *handle_shutdown(Server *s, json_t *params)
{
    s->shutdown = true;
    return json_null();
}

static json_t *handle_exit(Server *s, json_t *params)
{
    s->exited = true;
    return NULL;
}

static json_t *handle_ignored(Server *s, json_t *params)
{
    return NULL;
}

/* ---- Dispatch ----------------------------------------------------------------------- */

typedef json_t *(*Handler)(Server *s, json_t *params);

typedef struct Method {
    const char *name;
    Handler handler;
    bool request;
} Method;

static const Method METHODS[] = {
    { "initialize", handle_initialize, true },
    { "initialized", handle_initialized, false },
    { "shutdown", handle_shutdown, true },
    { "exit", handle_exit, false },
    { "$/cancelRequest", handle_ignored, false },   /* acted on when read (queue_cancel) */
    { "$/setTrace", handle_ignored, false },
    { "workspace/didChangeConfiguration", handle_ignored, false },
    { "textDocument/didOpen", lsp_handle_did_open, false },
    { "textDocument/didChange", lsp_handle_did_change, false },
    { "textDocument/didClose", lsp_handle_did_close, false },
    { "textDocument/didSave", lsp_handle_did_save, false },
    { "workspace/didChangeWatchedFiles", lsp_handle_did_change_watched_files, false },
    { "workspace/didChangeWorkspaceFolders", lsp_handle_did_change_workspace_folders, false },
    { "textDocument/codeAction", lsp_handle_code_action, true },
    { "textDocument/hover", lsp_handle_hover, true },
    { "textDocument/definition", lsp_handle_definition, true },
    { "textDocument/references", lsp_handle_references, true },
    { "textDocument/documentHighlight", lsp_handle_document_highlight, true },
    { "textDocument/prepareRename", lsp_handle_prepare_rename, true },
    { "textDocument/rename", lsp_handle_rename, true },
    { "textDocument/documentSymbol", lsp_handle_document_symbol, true },
    { "workspace/symbol", lsp_handle_workspace_symbol, true },
    { "textDocument/completion", lsp_handle_completion, true },
    { "textDocument/formatting", lsp_handle_formatting, true },
    { "textDocument/rangeFormatting", lsp_handle_range_formatting, true },
    { "textDocument/documentLink", lsp_handle_document_link, true },
    { "textDocument/signatureHelp", lsp_handle_signature_help, true },
    { "textDocument/prepareCallHierarchy", lsp_handle_prepare_call_hierarchy, true },
    { "callHierarchy/incomingCalls", lsp_handle_incoming_calls, true },
    { "callHierarchy/outgoingCalls", lsp_handle_outgoing_calls, true },
    { "textDocument/inlayHint", lsp_handle_inlay_hint, true },
    { "textDocument/foldingRange", lsp_handle_folding_range, true },
    { "textDocument/selectionRange", lsp_handle_selection_range, true },
    { "textDocument/semanticTokens/full", lsp_handle_semantic_tokens_full, true },
    { "textDocument/semanticTokens/full/delta", lsp_handle_semantic_tokens_delta, true },
    { "textDocument/semanticTokens/range", lsp_handle_semantic_tokens_range, true },
    { "textDocument/codeLens", lsp_handle_code_lens, true },
    { "workspace/executeCommand", lsp_handle_execute_command, true },
};

static Handler find_handler(const char *name, bool *request)
{
    for (size_t i = 0; i < sizeof METHODS / sizeof METHODS[0]; i++)
        if (strcmp(METHODS[i].name, name) == 0) {
            *request = METHODS[i].request;
            return METHODS[i].handler;
        }
    return NULL;
}

static bool valid_id(const json_t *id)
{
    return json_is_integer(id) || json_is_string(id);
}

static void handle_request(Server *s, json_t *id, const char *method, json_t *params,
                           bool cancelled)
{
    if (cancelled) {
        respond_error(s, id, LSP_REQUEST_CANCELLED, "the request was cancelled");
        return;
    }
    if (!s->initialized && strcmp(method, "initialize") != 0) {
        respond_error(s, id, LSP_SERVER_NOT_INITIALIZED, "the server is not initialized yet");
        return;
    }
    if (s->initialized && strcmp(method, "initialize") == 0) {
        respond_error(s, id, RPC_INVALID_REQUEST, "the server is already initialized");
        return;
    }
    if (s->shutdown) {
        respond_error(s, id, RPC_INVALID_REQUEST, "the server is shutting down");
        return;
    }
    bool request = false;
    Handler handler = find_handler(method, &request);
    if (!handler) {
        char text[300];
        snprintf(text, sizeof text, "unknown method `%.200s`", method);
        respond_error(s, id, RPC_METHOD_NOT_FOUND, text);
        return;
    }
    if (!request) {
        respond_error(s, id, RPC_INVALID_REQUEST, "this method is a notification: send it "
                                                  "without an id");
        return;
    }
    s->error_code = 0;
    json_t *result = handler(s, params);
    if (result)
        respond(s, id, result);
    else
        respond_error(s, id, s->error_code ? s->error_code : RPC_INTERNAL_ERROR,
                      s->error_code ? s->error_message : "internal error");
}

static void handle_notification(Server *s, const char *method, json_t *params)
{
    if (strcmp(method, "exit") == 0) {
        s->exited = true;
        return;
    }
    if (!s->initialized || s->shutdown)
        return;                  /* dropped, as the protocol asks */
    bool request = false;
    Handler handler = find_handler(method, &request);
    if (!handler || request)     /* unknown notifications ($/…) are ignored */
        return;
    s->error_code = 0;
    json_t *ignored = handler(s, params);
    json_decref(ignored);
    if (s->error_code)
        lsp_log_message(s, "%s: %s", method, s->error_message);
}

static void process(Server *s, Message *m)
{
    json_t *msg = m->json;
    if (!json_is_object(msg)) {
        respond_error(s, NULL, RPC_INVALID_REQUEST, "a message must be a JSON object");
        return;
    }
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    json_t *params = json_object_get(msg, "params");
    if (json_is_null(params))
        params = NULL;           /* sent by some clients for "no parameters" */
    if (!method) {
        if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
            return;              /* the answer to one of our requests */
        respond_error(s, valid_id(id) ? id : NULL, RPC_INVALID_REQUEST,
                      "a message without a method");
        return;
    }
    if (!json_is_string(method) || (id && !valid_id(id)) ||
        (params && !json_is_object(params) && !json_is_array(params))) {
        respond_error(s, valid_id(id) ? id : NULL, RPC_INVALID_REQUEST,
                      !json_is_string(method) ? "the method must be a string"
                      : id && !valid_id(id) ? "the id must be an integer or a string"
                                            : "params must be an object or an array");
        return;
    }
    if (id)
        handle_request(s, id, json_string_value(method), params, m->cancelled);
    else
        handle_notification(s, json_string_value(method), params);
}

/* ---- The queue of messages read ahead ---------------------------------------------- */

static bool same_id(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b))
        return json_integer_value(a) == json_integer_value(b);
    return json_is_string(a) && json_is_string(b) &&
           strcmp(json_string_value(a), json_string_value(b)) == 0;
}

/* $/cancelRequest: a request still in the queue is answered "cancelled" when its turn
 * comes; one already answered is not affected. */
static void queue_cancel(Server *s, const json_t *params)
{
    json_t *id = lsp_json_object_member(params, "id");
    for (uint32_t i = 0; i < s->queue_count; i++) {
        Message *m = &s->queue[s->queue_head + i];
        json_t *queued_id = lsp_json_object_member(m->json, "id");
        if (queued_id && json_object_get(m->json, "method") && same_id(queued_id, id))
            m->cancelled = true;
    }
}

static void queue_push(Server *s, json_t *json)
{
    if (s->queue_head > 0 && s->queue_head + s->queue_count == QUEUE_MAX) {
        memmove(s->queue, s->queue + s->queue_head, s->queue_count * sizeof *s->queue);
        s->queue_head = 0;
    }
    s->queue[s->queue_head + s->queue_count++] = (Message){ json, false };
}

static bool queue_pop(Server *s, Message *out)
{
    if (s->queue_count == 0)
        return false;
    *out = s->queue[s->queue_head++];
    if (--s->queue_count == 0)
        s->queue_head = 0;
    return true;
}

typedef enum ReadResult { READ_SOME, READ_NONE, READ_END } ReadResult;

/* Reads the messages that have arrived (with `wait`: at least one) into the queue. */
static ReadResult read_messages(Server *s, bool wait)
{
    ReadResult result = READ_NONE;
    if (s->input_ended)
        return READ_END;
    while (s->queue_count < QUEUE_MAX) {
        const char *body;
        size_t len;
        FrameStatus status = lsp_read_frame(s->reader, wait && result == READ_NONE,
                                            &body, &len);
        if (status == FRAME_PENDING)
            return result;
        if (status == FRAME_END || status == FRAME_BROKEN) {
            if (status == FRAME_BROKEN)
                lsp_log_message(s, "cannot read the message stream: %s; stopping",
                                s->reader->error);
            s->input_ended = true;
            return result == READ_SOME ? READ_SOME : READ_END;
        }
        result = READ_SOME;
        json_error_t error;
        json_t *json = json_loadb(body, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &error);
        if (!json) {
            char text[300];
            snprintf(text, sizeof text, "malformed JSON: %s (at byte %d)", error.text,
                     error.position);
            respond_error(s, NULL, RPC_PARSE_ERROR, text);
            continue;
        }
        const char *method = lsp_json_string_member(json, "method");
        if (method && strcmp(method, "$/cancelRequest") == 0 &&
            !json_object_get(json, "id")) {
            queue_cancel(s, json_object_get(json, "params"));
            json_decref(json);
            continue;
        }
        queue_push(s, json);
    }
    return result;
}

/* Whether a queued message changes what the project's files say: a check that started
 * before it has a stale result. */
static bool queue_changes_project(Server *s, uint32_t project)
{
    for (uint32_t i = 0; i < s->queue_count; i++) {
        json_t *m = s->queue[s->queue_head + i].json;
        const char *method = lsp_json_string_member(m, "method");
        if (!method || json_object_get(m, "id"))
            continue;
        if (strcmp(method, "textDocument/didChange") == 0 ||
            strcmp(method, "textDocument/didClose") == 0) {
            Document *d = lsp_document_find(s, lsp_params_uri(s, json_object_get(m, "params")));
            if (!d || d->project == project)
                return true;
        } else if (strcmp(method, "textDocument/didOpen") == 0 ||
                   strcmp(method, "workspace/didChangeWatchedFiles") == 0 ||
                   strcmp(method, "workspace/didChangeWorkspaceFolders") == 0) {
            return true;
        }
    }
    return false;
}

bool lsp_results_are_stale(Server *s, uint32_t project)
{
    read_messages(s, false);
    return queue_changes_project(s, project);
}

/* ---- The loop ----------------------------------------------------------------------- */

int lsp_serve(LspReader *reader, LspWrite write, void *write_context,
              const LspOptions *options)
{
    Server *s = xcalloc(1, sizeof *s);
    s->options = *options;
    s->reader = reader;
    s->write = write;
    s->write_context = write_context;
    s->queue = xmalloc(QUEUE_MAX * sizeof *s->queue);
    s->document_by_uri = json_object();
    watch_client(s, 0, options->client_process_id);
    bool ended = false;
    while (!s->exited && !s->output_lost) {
        Message m;
        if (queue_pop(s, &m)) {
            process(s, &m);
            json_decref(m.json);
            continue;
        }
        if (ended)
            break;
        ReadResult r = read_messages(s, false);
        if (r == READ_SOME)
            continue;
        if (r == READ_END) {
            ended = true;
            continue;
        }
        if (s->initialized && !s->shutdown && lsp_check_next_project(s))
            continue;
        if (client_gone(s)) {
            ended = true;          /* as the end of the stream */
            break;
        }
        if (read_messages(s, true) == READ_END)
            ended = true;
    }
    int status = s->exited && s->shutdown ? 0 : ended && s->shutdown ? 0 : 1;
    Message m;
    while (queue_pop(s, &m))
        json_decref(m.json);
    free(s->queue);
    lsp_projects_free(s);
    lsp_documents_free(s);
    lsp_codes_free(s);
    lsp_lens_free(s);
    free(s->baseline);
    free(s->baseline_problem);
    free(s);
    return status;
}
