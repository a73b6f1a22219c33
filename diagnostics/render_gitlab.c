/* GitLab Code Quality report: one JSON array, an object per diagnostic (the Code Climate
 * issue format as GitLab reads it; docs/diagnostics.md):
 *
 *   {"type": "issue", "check_name": "E0410", "description": "…", "categories": [...],
 *    "severity": "major", "fingerprint": "…", "location": {"path": "…",
 *    "lines": {"begin": L, "end": L2}}}
 *
 * Errors are "major", warnings "minor". The path is relative to the source root (the
 * current directory): GitLab resolves it against the repository. Written with jansson.
 *
 * The format has no field for a run that did not complete, so a path the run could not
 * read (exit 2) is a "blocker" issue of its own, `orbitc-unread`, at line 1 of that
 * path: the report never looks complete when that file's issues are missing. */
#include <stdlib.h>

#include "render_machine.h"

static json_t *gitlab_location(const SpanPosition *pos, const char *root)
{
    char *relative = pos->located ? render_relative_path(root, pos->file) : NULL;
    json_t *location = json_object();
    json_object_set_new(location, "path",
                        diag_json_text0(relative ? relative : pos->located ? pos->file->path : ""));
    free(relative);
    json_t *lines = json_object();
    json_object_set_new(lines, "begin", json_integer(pos->located ? pos->line : 1));
    json_object_set_new(lines, "end", json_integer(pos->located ? pos->end_line : 1));
    json_object_set_new(location, "lines", lines);
    return location;
}

static json_t *gitlab_issue(ColumnCache *cache, const SourceMap *sources, const char *root,
                            const Diagnostic *d, const char *fingerprint)
{
    TextBuffer message = { 0 };
    render_full_message(&message, cache, sources, d, root);
    json_t *issue = json_object();
    json_object_set_new(issue, "type", json_string("issue"));
    json_object_set_new(issue, "check_name", json_string(diag_info(d->code)->code));
    json_object_set_new(issue, "description", diag_json_text0(message.data));
    json_object_set_new(issue, "categories", json_pack("[s]", "Bug Risk"));
    json_object_set_new(issue, "severity", json_string(d->severity == SEV_ERROR ? "major" : "minor"));
    json_object_set_new(issue, "fingerprint", json_string(fingerprint));
    SpanPosition pos = render_span_position(cache, sources, d->span);
    json_object_set_new(issue, "location", gitlab_location(&pos, root));
    text_free(&message);
    return issue;
}

/* "cannot read `x.orbit`: Permission denied", a blocker at line 1 of the path. */
static json_t *gitlab_unread(const char *root, const RenderUnread *u)
{
    SourceFile file = { .path = (char *)u->path };
    SpanPosition pos = { .located = true, .file = &file, .line = 1, .end_line = 1 };
    TextBuffer message = { 0 };
    text_printf(&message, "%s; its issues are missing from this report", u->message);
    TextBuffer fingerprint = { 0 };
    text_printf(&fingerprint, "%016llx", (unsigned long long)render_hash_text(u->path));
    json_t *issue = json_object();
    json_object_set_new(issue, "type", json_string("issue"));
    json_object_set_new(issue, "check_name", json_string("orbitc-unread"));
    json_object_set_new(issue, "description", diag_json_text0(message.data));
    json_object_set_new(issue, "categories", json_pack("[s]", "Bug Risk"));
    json_object_set_new(issue, "severity", json_string("blocker"));
    json_object_set_new(issue, "fingerprint", json_string(fingerprint.data));
    json_object_set_new(issue, "location", gitlab_location(&pos, root));
    text_free(&message);
    text_free(&fingerprint);
    return issue;
}

void render_gitlab(FILE *out, const DiagSink *sink, const SourceMap *sources,
                   const RenderOptions *options)
{
    char *root = render_source_root();
    char **fingerprints = render_fingerprints(sink, sources, root);
    ColumnCache cache;
    column_cache_init(&cache);
    json_t *issues = json_array();
    for (uint32_t i = 0; i < sink->count; i++)
        json_array_append_new(issues, gitlab_issue(&cache, sources, root, sink->items[i],
                                                   fingerprints[i]));
    for (uint32_t i = 0; i < options->unread_count; i++)
        json_array_append_new(issues, gitlab_unread(root, &options->unread[i]));
    diag_json_write(out, issues);
    render_fingerprints_free(fingerprints, sink->count);
    free(root);
}
