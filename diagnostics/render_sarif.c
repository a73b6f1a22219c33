/* SARIF 2.1.0: one log for the run, for GitHub code scanning and other SARIF viewers
 * (docs/diagnostics.md). Written with jansson.
 *
 * - tool.driver: name, version, informationUri (only when the build sets meson's
 *   `homepage` option), and one rule per registered code (id, a
 *   Pascal-case name made from its title, the title as short description, the explanation's first
 *   paragraph as full description, the whole explanation as help in text and Markdown,
 *   the default level, and `enabled: false` for a lint that is off by default).
 * - One result per diagnostic: ruleId and ruleIndex, level, the message with notes and
 *   help, the primary location (its label as the location's message), labels as
 *   relatedLocations, fixes (each one replacement), and a partial fingerprint.
 * - Paths are relative to the base %SRCROOT% (originalUriBaseIds: the current directory);
 *   a file outside it gets an absolute file URI, the standard library `orbit:stdlib/…`.
 * - Columns are UTF-16 code units (columnKind), 1-based; end columns are exclusive. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "render_machine.h"
#include "version.h"

#ifndef ORBIT_HOMEPAGE
#define ORBIT_HOMEPAGE ""   /* meson's `homepage` option: none by default */
#endif

static const char sarif_schema[] =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
static const char root_base_id[] = "%SRCROOT%";

/* --- URIs --- */

static bool is_unreserved(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
}

/* `prefix` followed by `path` with every byte but the unreserved ones (and `/`)
 * percent-encoded, as RFC 3986 asks of a path. */
static json_t *uri_of(const char *prefix, const char *path)
{
    TextBuffer uri = { 0 };
    text_append_str(&uri, prefix);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (is_unreserved(*p))
            text_append(&uri, (const char *)p, 1);
        else
            text_printf(&uri, "%%%02X", *p);
    }
    json_t *string = diag_json_text0(uri.data);
    text_free(&uri);
    return string;
}

static json_t *artifact_location(const SourceFile *file, const char *root)
{
    json_t *location = json_object();
    char *relative = render_relative_path(root, file);
    if (relative) {
        json_object_set_new(location, "uri", uri_of("", relative));
        json_object_set_new(location, "uriBaseId", json_string(root_base_id));
    } else if (file->is_stdlib) {
        json_object_set_new(location, "uri", uri_of("orbit:stdlib/", "orbit.orbit"));
    } else {
        char *absolute = render_relative_path("/", file);
        json_object_set_new(location, "uri", uri_of("file:///", absolute ? absolute : ""));
        free(absolute);
    }
    free(relative);
    return location;
}

/* The base URI of %SRCROOT%: the root as a file URI that ends with a slash. */
static json_t *root_base(const char *root)
{
    TextBuffer dir = { 0 };
    text_append_str(&dir, root[1] ? root + 1 : "");
    if (dir.len > 0)
        text_append(&dir, "/", 1);
    json_t *base = json_object();
    json_object_set_new(base, "uri", uri_of("file:///", dir.data));
    text_free(&dir);
    json_t *bases = json_object();
    json_object_set_new(bases, root_base_id, base);
    return bases;
}

/* --- rules --- */

static json_t *message_of(const char *text)
{
    json_t *message = json_object();
    json_object_set_new(message, "text", diag_json_text0(text));
    return message;
}

static bool is_article(const char *word, size_t len)
{
    return (len == 1 && word[0] == 'a') || (len == 2 && strncmp(word, "an", 2) == 0)
        || (len == 3 && strncmp(word, "the", 3) == 0);
}

/* A Pascal-case name made of the title's words, articles left out:
 * "invalid UTF-8 in source" -> "InvalidUtf8InSource". */
static json_t *rule_name(const char *title)
{
    TextBuffer name = { 0 };
    text_append(&name, "", 0);
    for (const char *p = title; *p;) {
        size_t len = 0;
        while (isalnum((unsigned char)p[len]))
            len++;
        if (len > 0 && !is_article(p, len)) {
            for (size_t i = 0; i < len; i++) {
                int c = (unsigned char)p[i];
                char out = (char)(i == 0 ? toupper(c) : tolower(c));
                text_append(&name, &out, 1);
            }
        }
        p += len ? len : 1;
    }
    json_t *string = diag_json_text0(name.data);
    text_free(&name);
    return string;
}

/* Markdown's code spans in double backticks (``use `:` here``: a span holding a
 * backtick) as plain text: the span in double quotes, "use `:` here"; a viewer shows
 * `text` as it is, so the doubled backticks showed. Single-backtick spans stay, as in
 * the messages. */
static json_t *plain_of_markdown(const char *markdown)
{
    TextBuffer text = { 0 };
    text_append(&text, "", 0);
    for (const char *p = markdown; *p;) {
        const char *close = strncmp(p, "``", 2) == 0 ? strstr(p + 2, "``") : NULL;
        if (!close) {
            text_append(&text, p, 1);
            p++;
            continue;
        }
        const char *start = p + 2, *end = close;
        if (*start == ' ' && end > start + 1)   /* the padding beside a backtick */
            start++;
        if (end > start && end[-1] == ' ')
            end--;
        text_append(&text, "\"", 1);
        text_append(&text, start, (size_t)(end - start));
        text_append(&text, "\"", 1);
        p = close + 2;
    }
    json_t *string = diag_json_text0(text.data);
    text_free(&text);
    return string;
}

/* The first paragraph after the explanation's heading, its lines joined by spaces, as
 * SARIF's fullDescription: plain `text` and the `markdown` it was written in. */
static json_t *first_paragraph(const char *explanation, const char *fallback)
{
    const char *p = explanation ? explanation : "";
    if (*p == '#')
        p += strcspn(p, "\n");
    while (*p == '\n')
        p++;
    TextBuffer text = { 0 };
    text_append(&text, "", 0);
    while (*p && *p != '\n') {
        size_t len = strcspn(p, "\n");
        if (text.len > 0)
            text_append(&text, " ", 1);
        text_append(&text, p, len);
        p += len;
        if (*p == '\n')
            p++;
    }
    const char *markdown = text.len > 0 ? text.data : fallback;
    json_t *description = json_object();
    json_object_set_new(description, "text", plain_of_markdown(markdown));
    json_object_set_new(description, "markdown", diag_json_text0(markdown));
    text_free(&text);
    return description;
}

static json_t *sarif_rule(DiagCode code)
{
    const DiagInfo *info = diag_info(code);
    const char *explanation = diag_explanation(code);
    json_t *rule = json_object();
    json_object_set_new(rule, "id", json_string(info->code));
    json_object_set_new(rule, "name", rule_name(info->title));
    json_object_set_new(rule, "shortDescription", message_of(info->title));
    json_object_set_new(rule, "fullDescription", first_paragraph(explanation, info->title));
    json_t *help = json_object();
    json_object_set_new(help, "text", diag_json_text0(explanation));
    json_object_set_new(help, "markdown", diag_json_text0(explanation));
    json_object_set_new(rule, "help", help);
    json_t *configuration = json_object();
    json_object_set_new(configuration, "level",
                        json_string(info->severity == SEV_ERROR ? "error" : "warning"));
    if (!info->default_on)
        json_object_set_new(configuration, "enabled", json_false());
    json_object_set_new(rule, "defaultConfiguration", configuration);
    return rule;
}

static json_t *sarif_driver(void)
{
    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("orbitc"));
    json_object_set_new(driver, "version", json_string(ORBIT_VERSION));
    json_object_set_new(driver, "semanticVersion", json_string(ORBIT_VERSION));
    if (ORBIT_HOMEPAGE[0] != '\0')   /* a made-up address would send users nowhere */
        json_object_set_new(driver, "informationUri", json_string(ORBIT_HOMEPAGE));
    json_t *rules = json_array();
    for (int code = 0; code < DIAG_CODE_COUNT; code++)
        json_array_append_new(rules, sarif_rule((DiagCode)code));
    json_object_set_new(driver, "rules", rules);
    json_t *tool = json_object();
    json_object_set_new(tool, "driver", driver);
    return tool;
}

/* --- results --- */

typedef struct SarifContext {
    ColumnCache cache;
    const SourceMap *sources;
    const char *root;
} SarifContext;

static json_t *region_of(const SpanPosition *pos)
{
    json_t *region = json_object();
    json_object_set_new(region, "startLine", json_integer(pos->line));
    json_object_set_new(region, "startColumn", json_integer(pos->utf16_column));
    json_object_set_new(region, "endLine", json_integer(pos->end_line));
    json_object_set_new(region, "endColumn", json_integer(pos->end_utf16_column));
    return region;
}

/* A location, or NULL when there are no sources to point into. */
static json_t *location_of(SarifContext *context, Span span, const char *message)
{
    SpanPosition pos = render_span_position(&context->cache, context->sources, span);
    if (!pos.located)
        return NULL;
    json_t *physical = json_object();
    json_object_set_new(physical, "artifactLocation", artifact_location(pos.file, context->root));
    json_object_set_new(physical, "region", region_of(&pos));
    json_t *location = json_object();
    json_object_set_new(location, "physicalLocation", physical);
    if (message)
        json_object_set_new(location, "message", message_of(message));
    return location;
}

static json_t *related_locations(SarifContext *context, const Diagnostic *d)
{
    json_t *related = json_array();
    int id = 1;
    for (const DiagLabel *l = d->labels; l; l = l->next) {
        json_t *location = location_of(context, l->span, l->message ? l->message : "");
        if (!location)
            continue;
        json_object_set_new(location, "id", json_integer(id++));
        json_array_append_new(related, location);
    }
    return related;
}

static json_t *sarif_fix(SarifContext *context, const DiagFix *fix)
{
    SpanPosition pos = render_span_position(&context->cache, context->sources, fix->span);
    json_t *inserted = json_object();
    json_object_set_new(inserted, "text", diag_json_text0(fix->replacement));
    json_t *replacement = json_object();
    json_object_set_new(replacement, "deletedRegion", region_of(&pos));
    json_object_set_new(replacement, "insertedContent", inserted);
    json_t *change = json_object();
    json_object_set_new(change, "artifactLocation", artifact_location(pos.file, context->root));
    json_object_set_new(change, "replacements", json_pack("[o]", replacement));
    json_t *result = json_object();
    json_object_set_new(result, "description", message_of(fix->message));
    json_object_set_new(result, "artifactChanges", json_pack("[o]", change));
    json_object_set_new(result, "properties",
                        json_pack("{s:s}", "applicability",
                                  fix->applicability == FIX_MACHINE_APPLICABLE
                                      ? "machine-applicable" : "maybe-incorrect"));
    return result;
}

static json_t *sarif_result(SarifContext *context, const Diagnostic *d, const char *fingerprint)
{
    TextBuffer message = { 0 };
    render_full_message(&message, &context->cache, context->sources, d, NULL);
    json_t *result = json_object();
    json_object_set_new(result, "ruleId", json_string(diag_info(d->code)->code));
    json_object_set_new(result, "ruleIndex", json_integer((json_int_t)d->code));
    json_object_set_new(result, "level", json_string(d->severity == SEV_ERROR ? "error" : "warning"));
    json_object_set_new(result, "message", message_of(message.data));
    text_free(&message);
    json_t *location = location_of(context, d->span, d->label);
    if (location)
        json_object_set_new(result, "locations", json_pack("[o]", location));
    json_t *related = related_locations(context, d);
    if (json_array_size(related) > 0)
        json_object_set_new(result, "relatedLocations", related);
    else
        json_decref(related);
    bool located = location != NULL;
    if (d->fixes && located) {
        json_t *fixes = json_array();
        for (const DiagFix *f = d->fixes; f; f = f->next)
            json_array_append_new(fixes, sarif_fix(context, f));
        json_object_set_new(result, "fixes", fixes);
    }
    json_object_set_new(result, "partialFingerprints",
                        json_pack("{s:s}", "primaryLocationLineHash", fingerprint));
    return result;
}

/* The artifact location of a path that was never read into the source map. */
static json_t *sarif_path_location(const SarifContext *context, const char *path)
{
    SourceFile file = { .path = (char *)path };
    return artifact_location(&file, context->root);
}

/* The run's invocation: successful unless a path could not be read; a notification
 * for each such path (its results are missing from the log). */
static json_t *sarif_invocation(const SarifContext *context, const RenderOptions *options)
{
    json_t *invocation = json_object();
    json_object_set_new(invocation, "executionSuccessful",
                        json_boolean(options->unread_count == 0));
    if (options->unread_count == 0)
        return json_pack("[o]", invocation);
    json_t *notifications = json_array();
    for (uint32_t i = 0; i < options->unread_count; i++) {
        const RenderUnread *u = &options->unread[i];
        json_t *location = json_pack("{s:{s:o}}", "physicalLocation", "artifactLocation",
                                     sarif_path_location(context, u->path));
        json_array_append_new(notifications,
                              json_pack("{s:s, s:{s:o}, s:[o]}", "level", "error", "message",
                                        "text", diag_json_text0(u->message), "locations", location));
    }
    json_object_set_new(invocation, "toolExecutionNotifications", notifications);
    return json_pack("[o]", invocation);
}

void render_sarif(FILE *out, const DiagSink *sink, const SourceMap *sources,
                  const RenderOptions *options)
{
    char *root = render_source_root();
    char **fingerprints = render_fingerprints(sink, sources, root);
    SarifContext context = { .sources = sources, .root = root };
    column_cache_init(&context.cache);
    json_t *results = json_array();
    for (uint32_t i = 0; i < sink->count; i++)
        json_array_append_new(results, sarif_result(&context, sink->items[i], fingerprints[i]));

    json_t *run = json_object();
    json_object_set_new(run, "tool", sarif_driver());
    json_object_set_new(run, "invocations", sarif_invocation(&context, options));
    json_object_set_new(run, "originalUriBaseIds", root_base(root));
    json_object_set_new(run, "columnKind", json_string("utf16CodeUnits"));
    json_object_set_new(run, "results", results);
    json_t *log = json_object();
    json_object_set_new(log, "$schema", json_string(sarif_schema));
    json_object_set_new(log, "version", json_string("2.1.0"));
    json_object_set_new(log, "runs", json_pack("[o]", run));
    diag_json_write(out, log);
    render_fingerprints_free(fingerprints, sink->count);
    free(root);
}
