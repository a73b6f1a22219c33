/* GitLab Code Quality report: one JSON array, an object per diagnostic (the Code Climate
 * issue format as GitLab reads it; docs/diagnostics.md):
 *
 *   {"type": "issue", "check_name": "E0410", "description": "…", "categories": [...],
 *    "severity": "major", "fingerprint": "…", "location": {"path": "…",
 *    "lines": {"begin": L, "end": L2}}}
 *
 * Errors are "major", warnings "minor". The path is relative to the source root (the
 * current directory): GitLab resolves it against the repository. Written with jansson. */
#include <stdlib.h>

#include "render_machine.h"

static json_t *gitlab_location(const Place *place, const char *root)
{
    char *relative = place->located ? render_relative_path(root, place->file) : NULL;
    json_t *location = json_object();
    json_object_set_new(location, "path",
                        json_text(relative ? relative : place->located ? place->file->path : ""));
    free(relative);
    json_t *lines = json_object();
    json_object_set_new(lines, "begin", json_integer(place->located ? place->line : 1));
    json_object_set_new(lines, "end", json_integer(place->located ? place->end_line : 1));
    json_object_set_new(location, "lines", lines);
    return location;
}

static json_t *gitlab_issue(ColumnCache *cache, const SourceMap *sources, const char *root,
                            const Diagnostic *d, const char *fingerprint)
{
    TextBuffer message = { 0 };
    render_full_message(&message, cache, sources, d, true);
    json_t *issue = json_object();
    json_object_set_new(issue, "type", json_string("issue"));
    json_object_set_new(issue, "check_name", json_string(diag_info(d->code)->code));
    json_object_set_new(issue, "description", json_text(message.data));
    json_object_set_new(issue, "categories", json_pack("[s]", "Bug Risk"));
    json_object_set_new(issue, "severity", json_string(d->severity == SEV_ERROR ? "major" : "minor"));
    json_object_set_new(issue, "fingerprint", json_string(fingerprint));
    Place place = render_place(cache, sources, d->span);
    json_object_set_new(issue, "location", gitlab_location(&place, root));
    text_free(&message);
    return issue;
}

void render_gitlab(FILE *out, const DiagSink *sink, const SourceMap *sources,
                   const RenderOptions *options)
{
    (void)options;
    char *root = render_source_root();
    char **fingerprints = render_fingerprints(sink, sources, root);
    ColumnCache cache;
    column_cache_init(&cache);
    json_t *issues = json_array();
    for (uint32_t i = 0; i < sink->count; i++)
        json_array_append_new(issues, gitlab_issue(&cache, sources, root, sink->items[i],
                                                   fingerprints[i]));
    json_write(out, issues);
    render_fingerprints_free(fingerprints, sink->count);
    free(root);
}
