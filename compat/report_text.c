/* compat: the reports for people (rustc's and oasdiff's shape: one block per change, its
 * places in both sources, the places it stops), and for CI systems: GitHub Actions
 * annotations, SARIF 2.1.0, JUnit XML (each change and each place a test case). */
#include <jansson.h>
#include <stdlib.h>

#include "compat.h"
#include "memory.h"
#include "version.h"

enum { LISTED_PLACES = 5 };

static const char *paint(bool color, uint8_t level)
{
    static const char *const colors[] = { "\033[1;36m", "\033[1;33m", "\033[1;31m" };
    return color ? colors[level] : "";
}

/* The first LISTED_PLACES places each change stops, in one pass over the places:
 * shown[change * LISTED_PLACES + k], `count` of each. */
static void first_blocked(const CompatReport *r, uint32_t *shown, uint32_t *count)
{
    for (uint32_t i = 0; i < r->place_count; i++) {
        const CompatPlace *p = &r->places[i];
        for (uint32_t k = 0; k < p->change_count; k++) {
            uint32_t c = p->changes[k];
            if (count[c] < LISTED_PLACES)
                shown[c * LISTED_PLACES + count[c]++] = i;
        }
    }
}

static void blocked_places(const CompatReport *r, uint32_t change, const uint32_t *shown,
                           uint32_t count, TextBuffer *out)
{
    const CompatChange *c = &r->changes[change];
    if (c->blocks == 0)
        return;
    text_printf(out, "  = blocks %u place%s:", c->blocks, c->blocks == 1 ? "" : "s");
    for (uint32_t k = 0; k < count; k++)
        text_printf(out, "%s %s", k ? "," : "", r->places[shown[change * LISTED_PLACES + k]].id);
    if (c->blocks > count)
        text_printf(out, ", and %u more", c->blocks - count);
    text_append_str(out, "\n");
}

void compat_write_human(const CompatReport *r, const char *old_label, const char *new_label,
                        bool color, TextBuffer *out)
{
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    uint32_t *shown = xcalloc((size_t)r->change_count * LISTED_PLACES + 1, sizeof *shown);
    uint32_t *count = xcalloc((size_t)r->change_count + 1, sizeof *count);
    first_blocked(r, shown, count);
    for (uint32_t i = 0; i < r->change_count; i++) {
        const CompatChange *c = &r->changes[i];
        text_printf(out, "%s%s[%s]%s%s: %s%s\n", paint(color, c->level), compat_level_name(c->level),
                    compat_rule_info(c->rule)->name, reset, bold, c->message, reset);
        if (c->old.file)
            text_printf(out, "  --> %s:%u:%u (old)\n", c->old.file, c->old.line, c->old.column);
        if (c->new.file)
            text_printf(out, "  --> %s:%u:%u (new)\n", c->new.file, c->new.line, c->new.column);
        blocked_places(r, i, shown, count[i], out);
        text_append_str(out, "\n");
    }
    free(shown);
    free(count);
    text_printf(out, "%s%s%s → %s: %u error%s, %u warning%s, %u info%s; %u of %u place%s "
                "cannot continue%s\n", bold, old_label, "", new_label, r->errors,
                r->errors == 1 ? "" : "s", r->warnings, r->warnings == 1 ? "" : "s", r->infos,
                r->infos == 1 ? "" : "s", r->places_blocked, r->place_count,
                r->place_count == 1 ? "" : "s", reset);
}

/* ---- GitHub Actions ---- */

static const CompatLoc *where(const CompatChange *c)
{
    return c->new.file ? &c->new : c->old.file ? &c->old : NULL;
}

void compat_write_github(const CompatReport *r, TextBuffer *out)
{
    static const char *const commands[] = { "notice", "warning", "error" };
    for (uint32_t i = 0; i < r->change_count; i++) {
        const CompatChange *c = &r->changes[i];
        const CompatLoc *at = where(c);
        text_printf(out, "::%s ", commands[c->level]);
        if (at) {
            text_append_str(out, "file=");
            text_github(out, at->file, true);
            text_printf(out, ",line=%u,col=%u,", at->line, at->column);
        }
        text_append_str(out, "title=");
        text_github(out, compat_rule_info(c->rule)->name, true);
        text_append_str(out, "::");
        text_github(out, c->message, false);
        if (c->blocks)
            text_printf(out, " (it stops %u place%s of running executions)", c->blocks,
                        c->blocks == 1 ? "" : "s");
        text_append_str(out, "\n");
    }
}

/* ---- SARIF 2.1.0 ---- */

static json_t *sarif_location(const CompatLoc *at)
{
    return json_pack("{s:{s:{s:s}, s:{s:I, s:I}}}", "physicalLocation", "artifactLocation",
                     "uri", at->file, "region", "startLine", (json_int_t)at->line,
                     "startColumn", (json_int_t)(at->column ? at->column : 1));
}

static json_t *sarif_rules(void)
{
    json_t *rules = json_array();
    for (uint32_t i = 0; i < COMPAT_RULE_COUNT; i++) {
        const CompatRuleInfo *info = compat_rule_info(i);
        static const char *const levels[] = { "note", "warning", "error" };
        json_array_append_new(rules, json_pack("{s:s, s:{s:s}, s:{s:s}}", "id", info->name,
                                               "shortDescription", "text", info->summary,
                                               "defaultConfiguration", "level",
                                               levels[info->level]));
    }
    return rules;
}

void compat_write_sarif(const CompatReport *r, TextBuffer *out)
{
    static const char *const levels[] = { "note", "warning", "error" };
    json_t *results = json_array();
    for (uint32_t i = 0; i < r->change_count; i++) {
        const CompatChange *c = &r->changes[i];
        json_t *result = json_pack("{s:s, s:I, s:s, s:{s:s}}", "ruleId",
                                   compat_rule_info(c->rule)->name, "ruleIndex",
                                   (json_int_t)c->rule, "level", levels[c->level], "message",
                                   "text", c->message);
        const CompatLoc *at = where(c);
        if (at)
            json_object_set_new(result, "locations", json_pack("[o]", sarif_location(at)));
        json_array_append_new(results, result);
    }
    json_t *log = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, s:o}]}",
                            "$schema", "https://json.schemastore.org/sarif-2.1.0.json",
                            "version", "2.1.0", "runs", "tool", "driver", "name", "orbitc compat",
                            "version", ORBIT_VERSION, "rules", sarif_rules(), "results", results);
    char *text = json_dumps(log, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text) {
        text_append_str(out, text);
        text_append_str(out, "\n");
    }
    free(text);
    json_decref(log);
}

/* ---- JUnit XML ---- */

static void junit_change(const CompatChange *c, TextBuffer *out)
{
    const CompatLoc *at = where(c);
    text_append_str(out, "    <testcase");
    text_xml_attribute(out, "name", c->message);
    text_xml_attribute(out, "classname", compat_rule_info(c->rule)->name);
    if (at) {
        text_xml_attribute(out, "file", at->file);
        text_printf(out, " line=\"%u\"", at->line);
    }
    if (c->level != COMPAT_ERROR) {
        text_append_str(out, "/>\n");
        return;
    }
    text_append_str(out, ">\n      <failure");
    text_xml_attribute(out, "message", c->message);
    text_xml_attribute(out, "type", compat_rule_info(c->rule)->name);
    text_append_str(out, "/>\n    </testcase>\n");
}

static void junit_place(const CompatReport *r, const CompatPlace *p, TextBuffer *out)
{
    text_append_str(out, "    <testcase");
    text_xml_attribute(out, "name", p->id);
    text_xml_attribute(out, "classname", p->workflow);
    if (p->can_continue) {
        text_append_str(out, "/>\n");
        return;
    }
    TextBuffer why = { 0 };
    for (uint32_t k = 0; k < p->change_count; k++)
        text_printf(&why, "%s%s", k ? "; " : "", r->changes[p->changes[k]].message);
    text_append_str(out, ">\n      <failure");
    text_xml_attribute(out, "message", why.data);
    text_xml_attribute(out, "type", "cannot-continue");
    text_append_str(out, "/>\n    </testcase>\n");
    text_free(&why);
}

void compat_write_junit(const CompatReport *r, const char *old_label, const char *new_label,
                        TextBuffer *out)
{
    uint32_t failing = r->errors;
    text_append_str(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    text_xml_attribute(out, "name", "orbitc compat");
    text_printf(out, " tests=\"%u\" failures=\"%u\" errors=\"0\" time=\"0.000\">\n",
                r->change_count + r->place_count, failing + r->places_blocked);
    TextBuffer name = { 0 };
    text_printf(&name, "changes from %s to %s", old_label, new_label);
    text_append_str(out, "  <testsuite");
    text_xml_attribute(out, "name", name.data);
    text_printf(out, " tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n",
                r->change_count, failing);
    for (uint32_t i = 0; i < r->change_count; i++)
        junit_change(&r->changes[i], out);
    text_append_str(out, "  </testsuite>\n  <testsuite");
    text_xml_attribute(out, "name", "places of running executions");
    text_printf(out, " tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n",
                r->place_count, r->places_blocked);
    for (uint32_t i = 0; i < r->place_count; i++)
        junit_place(r, &r->places[i], out);
    text_append_str(out, "  </testsuite>\n</testsuites>\n");
    text_free(&name);
}
