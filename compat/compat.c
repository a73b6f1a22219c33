/* compat: the entry (compat_compare), the table of rules and the list of changes. A change
 * that stops a place of a running execution is an error, whatever its rule's level. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compat_internal.h"
#include "memory.h"

static const CompatRuleInfo rules[COMPAT_RULE_COUNT] = {
#define COMPAT_RULE(id, name, level, kind, summary) \
    [COMPAT_##id] = { name, COMPAT_##level, COMPAT_##kind, summary },
#include "rules.def"
};

const CompatRuleInfo *compat_rule_info(uint32_t rule)
{
    return rule < COMPAT_RULE_COUNT ? &rules[rule] : NULL;
}

CompatRule compat_rule_named(const char *name)
{
    for (uint32_t i = 0; i < COMPAT_RULE_COUNT; i++) {
        if (strcmp(rules[i].name, name) == 0)
            return (CompatRule)i;
    }
    return COMPAT_RULE_COUNT;
}

const char *compat_level_name(uint32_t level)
{
    static const char *const names[] = { "info", "warning", "error" };
    return level < 3 ? names[level] : "?";
}

const char *compat_kind_name(uint32_t kind)
{
    static const char *const names[] = { "executions", "workers", "callers", "policy" };
    return kind < 4 ? names[kind] : "?";
}

const char *compat_state_name(uint32_t state)
{
    static const char *const names[] = { "queued", "backoff", "signal", "sleep", "child",
                                         "compensating" };
    return state < 6 ? names[state] : "?";
}

const char *compat_str(const OrbcModule *m, uint32_t index)
{
    return index < m->string_count ? m->strings[index].text : "";
}

uint32_t compat_lookup(const NameMap *map, const char *name)
{
    uint32_t value;
    return namemap_get(map, name, orbc_hash(name, strlen(name)), &value) ? value : ORBC_NONE;
}

static void map_names(NameMap *map, Arena *arena, const OrbcModule *m, bool tasks)
{
    uint32_t count = tasks ? m->task_count : m->workflow_count;
    namemap_init_text(map, arena, count);
    for (uint32_t i = 0; i < count; i++) {
        const char *name = compat_str(m, tasks ? m->tasks[i].name : m->workflows[i].name);
        namemap_put(map, arena, name, orbc_hash(name, strlen(name)), i);
    }
}

uint32_t compat_add_change(CompatRun *run, CompatRule rule, const char *workflow,
                           const CompatLoc *old_loc, const CompatLoc *new_loc,
                           const char *fmt, ...)
{
    CompatReport *r = run->report;
    if (r->change_count == run->change_cap) {
        run->change_cap = run->change_cap ? run->change_cap * 2 : 16;
        r->changes = xrealloc(r->changes, run->change_cap * sizeof *r->changes);
    }
    CompatChange *c = &r->changes[r->change_count];
    memset(c, 0, sizeof *c);
    c->rule = (uint8_t)rule;
    c->level = rules[rule].level;
    c->kind = rules[rule].kind;
    c->workflow = workflow;
    if (old_loc)
        c->old = *old_loc;
    if (new_loc)
        c->new = *new_loc;
    va_list ap;
    va_start(ap, fmt);
    c->message = arena_vprintf(run->arena, fmt, ap);
    va_end(ap);
    return r->change_count++;
}

void compat_add_effect(CompatRun *run, uint32_t change, uint32_t wf, uint32_t step,
                       CompatAspect aspect, uint32_t param)
{
    if (run->effect_count == run->effect_cap) {
        run->effect_cap = run->effect_cap ? run->effect_cap * 2 : 16;
        run->effects = xrealloc(run->effects, run->effect_cap * sizeof *run->effects);
    }
    run->effects[run->effect_count++] = (CompatEffect){ change, wf, step, (uint8_t)aspect, param };
}

bool compat_selected(const CompatRun *run, const char *name)
{
    const CompatOptions *o = run->options;
    if (!o || !o->workflows)
        return true;
    for (uint32_t i = 0; i < o->workflow_count; i++) {
        if (strcmp(o->workflows[i], name) == 0)
            return true;
    }
    return false;
}

static CompatLoc workflow_loc(const OrbcModule *m, const OrbcWorkflow *wf)
{
    return (CompatLoc){ compat_str(m, wf->file), wf->line, wf->column };
}

/* OLD's workflows in order, each compared with NEW's of its name; then NEW's new ones. */
static void compare_workflows(CompatRun *run)
{
    const OrbcModule *old = run->old, *new = run->new;
    for (uint32_t i = 0; i < old->workflow_count; i++) {
        const OrbcWorkflow *wf = &old->workflows[i];
        const char *name = compat_str(old, wf->name);
        CompatLoc at = workflow_loc(old, wf);
        uint32_t j = compat_lookup(&run->new_workflows, name);
        if (j == ORBC_NONE) {
            uint32_t c = compat_add_change(run, COMPAT_WORKFLOW_REMOVED, name, &at, NULL,
                                           "workflow `%s` was removed", name);
            compat_add_effect(run, c, i, ORBC_NONE, ASPECT_WORKFLOW, 0);
            continue;
        }
        compat_workflow_contracts(run, i, j);
        compat_compare_steps(run, i, j);
    }
    for (uint32_t j = 0; j < new->workflow_count; j++) {
        const OrbcWorkflow *wf = &new->workflows[j];
        const char *name = compat_str(new, wf->name);
        if (compat_lookup(&run->old_workflows, name) == ORBC_NONE && compat_selected(run, name)) {
            CompatLoc at = workflow_loc(new, wf);
            compat_add_change(run, COMPAT_WORKFLOW_ADDED, name, NULL, &at,
                              "workflow `%s` was added", name);
        }
    }
}

/* With --workflow: the changes of the workflows named, the changes that stop one of
 * their places (a child's) and the tasks'; the places' indices renumbered. */
static void keep_selected(CompatRun *run)
{
    CompatReport *r = run->report;
    if (!run->options || !run->options->workflows)
        return;
    uint32_t *renumber = xmalloc((r->change_count + 1) * sizeof *renumber), kept = 0;
    for (uint32_t i = 0; i < r->change_count; i++) {
        const CompatChange *c = &r->changes[i];
        bool keep = !c->workflow || c->blocks > 0 || compat_selected(run, c->workflow);
        renumber[i] = keep ? kept : ORBC_NONE;
        if (keep)
            r->changes[kept++] = *c;
    }
    r->change_count = kept;
    for (uint32_t i = 0; i < r->place_count; i++) {
        CompatPlace *p = &r->places[i];
        for (uint32_t k = 0; k < p->change_count; k++)
            p->changes[k] = renumber[p->changes[k]];
    }
    free(renumber);
}

static void count_levels(CompatReport *r)
{
    for (uint32_t i = 0; i < r->change_count; i++) {
        CompatChange *c = &r->changes[i];
        if (c->blocks > 0)
            c->level = COMPAT_ERROR;
        r->errors += c->level == COMPAT_ERROR;
        r->warnings += c->level == COMPAT_WARNING;
        r->infos += c->level == COMPAT_INFO;
    }
    for (uint32_t i = 0; i < r->place_count; i++)
        r->places_blocked += !r->places[i].can_continue;
}

void compat_compare(const OrbcModule *old_module, const OrbcModule *new_module,
                    const CompatOptions *options, CompatReport *report)
{
    memset(report, 0, sizeof *report);
    arena_init(&report->arena);
    CompatRun run = { .old = old_module, .new = new_module, .options = options,
                      .report = report, .arena = &report->arena };
    map_names(&run.new_workflows, run.arena, new_module, false);
    map_names(&run.new_tasks, run.arena, new_module, true);
    map_names(&run.old_tasks, run.arena, old_module, true);
    map_names(&run.old_workflows, run.arena, old_module, false);
    compare_workflows(&run);
    compat_task_contracts(&run);
    compat_places(&run);
    keep_selected(&run);
    count_levels(report);
    free(run.effects);
}

void compat_report_free(CompatReport *report)
{
    free(report->changes);
    free(report->places);
    arena_free(&report->arena);
    memset(report, 0, sizeof *report);
}

bool compat_fails(const CompatReport *report, CompatLevel fail_on)
{
    for (uint32_t i = 0; i < report->change_count; i++) {
        if (report->changes[i].level >= fail_on)
            return true;
    }
    return false;
}
