/* The disassembler: prints a loaded (verified) module as stable, readable text
 * (docs/bytecode.md, section 7). Types print by reference (`t5`) unless they are simple,
 * so the output stays linear in the size of the file. */
#include <inttypes.h>
#include <stdlib.h>

#include "orbc_internal.h"
#include "orbc_value.h"

static void print_string(FILE *out, const OrbcString *s)
{
    fputc('"', out);
    for (uint32_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->text[i];
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (c < 0x20 || c == 0x7F)
                fprintf(out, "\\u{%X}", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

static void print_str(FILE *out, const OrbcModule *m, uint32_t index)
{
    print_string(out, &m->strings[index]);
}

/* A file path printed bare unless it holds spaces, quotes, colons or control bytes. */
static void print_path(FILE *out, const OrbcModule *m, uint32_t index)
{
    const OrbcString *s = &m->strings[index];
    bool plain = s->len > 0;
    for (uint32_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->text[i];
        if (c <= ' ' || c == '"' || c == ':' || c == '\\' || c == 0x7F)
            plain = false;
    }
    if (plain)
        fwrite(s->text, 1, s->len, out);
    else
        print_string(out, s);
}

/* A name printed bare when it is a plain identifier, quoted otherwise. */
static void print_name(FILE *out, const OrbcModule *m, uint32_t index)
{
    const OrbcString *s = &m->strings[index];
    bool plain = s->len > 0;
    for (uint32_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->text[i];
        if (!(c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && c >= '0' && c <= '9')))
            plain = false;
    }
    if (plain)
        fwrite(s->text, 1, s->len, out);
    else
        print_string(out, s);
}

static void print_duration(FILE *out, int64_t ms)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(text, ms);
    fputs(text, out);
}

static void print_timeout(FILE *out, const char *label, int64_t ms)
{
    fprintf(out, "%s ", label);
    if (ms == 0)
        fputs("none", out);
    else
        print_duration(out, ms);
    fputc('\n', out);
}

static void print_const(FILE *out, const OrbcModule *m, const OrbcConst *c)
{
    switch ((OrbcConstKind)c->kind) {
    case ORBC_CONST_NULL: fputs("null", out); return;
    case ORBC_CONST_BOOL: fputs(c->boolean ? "true" : "false", out); return;
    case ORBC_CONST_INT: fprintf(out, "%" PRId64, c->integer); return;
    case ORBC_CONST_NUMBER: {
        char text[ORBC_NUMBER_TEXT_SIZE];
        fwrite(text, 1, orbc_format_number(text, c->number), out);
        return;
    }
    case ORBC_CONST_STRING: print_str(out, m, c->string); return;
    case ORBC_CONST_DURATION: print_duration(out, c->integer); return;
    }
}

static const char *const_kind_name(uint8_t kind)
{
    static const char *names[] = { "null", "bool", "int", "number", "string", "duration" };
    return kind < 6 ? names[kind] : "?";
}

static const char *simple_type_name(uint8_t kind)
{
    static const char *names[] = { "any", "null", "bool", "int", "number", "string",
                                   "duration" };
    return kind <= ORBC_TYPE_DURATION ? names[kind] : NULL;
}

static void print_type_ref(FILE *out, const OrbcModule *m, uint32_t index)
{
    const char *simple = simple_type_name(m->types[index].kind);
    if (simple)
        fputs(simple, out);
    else
        fprintf(out, "t%u", index);
}

static void print_type(FILE *out, const OrbcModule *m, const OrbcType *t)
{
    if (t->kind == ORBC_TYPE_LIST) {
        fputc('[', out);
        print_type_ref(out, m, t->elem);
        fputc(']', out);
    } else if (t->kind == ORBC_TYPE_OPTIONAL) {
        print_type_ref(out, m, t->elem);
        fputc('?', out);
    } else if (t->kind == ORBC_TYPE_RECORD) {
        if (t->name != ORBC_NONE) {
            print_name(out, m, t->name);
            fputc(' ', out);
        }
        fputs(t->field_count ? "{ " : "{", out);
        for (uint32_t i = 0; i < t->field_count; i++) {
            if (i)
                fputs(", ", out);
            print_name(out, m, t->fields[i].name);
            fputs(t->fields[i].optional ? "?: " : ": ", out);
            print_type_ref(out, m, t->fields[i].type);
        }
        fputs(" }", out);
    } else {
        fputs(simple_type_name(t->kind), out);
    }
}

static void print_tables(FILE *out, const OrbcModule *m)
{
    fprintf(out, "strings %u\n", m->string_count);
    for (uint32_t i = 0; i < m->string_count; i++) {
        fprintf(out, "  s%u ", i);
        print_str(out, m, i);
        fputc('\n', out);
    }
    fprintf(out, "constants %u\n", m->const_count);
    for (uint32_t i = 0; i < m->const_count; i++) {
        fprintf(out, "  k%u %s ", i, const_kind_name(m->consts[i].kind));
        print_const(out, m, &m->consts[i]);
        fputc('\n', out);
    }
    fprintf(out, "types %u\n", m->type_count);
    for (uint32_t i = 0; i < m->type_count; i++) {
        fprintf(out, "  t%u ", i);
        print_type(out, m, &m->types[i]);
        fputc('\n', out);
    }
    fprintf(out, "tasks %u\n", m->task_count);
    for (uint32_t i = 0; i < m->task_count; i++) {
        const OrbcTask *t = &m->tasks[i];
        fprintf(out, "  task%u %s ", i, t->kind == ORBC_TASK_BUILTIN ? "builtin" : "worker");
        print_str(out, m, t->name);
        fputs(" input ", out);
        print_type_ref(out, m, t->input_type);
        fputs(" output ", out);
        print_type_ref(out, m, t->output_type);
        if (t->default_timeout_ms) {
            fputs(" default_timeout ", out);
            print_duration(out, t->default_timeout_ms);
        }
        fputc('\n', out);
    }
}

/* ---- code ---- */

static void print_operands(FILE *out, const OrbcModule *m, const uint8_t *code)
{
    uint32_t arg;
    switch ((OrbcOperands)orbc_op_info(code[0])->operands) {
    case ORBC_OPERANDS_NONE:
        return;
    case ORBC_OPERANDS_CONST:
        arg = orbc_u32(code + 1);
        fprintf(out, " k%u (%s ", arg, const_kind_name(m->consts[arg].kind));
        print_const(out, m, &m->consts[arg]);
        fputc(')', out);
        return;
    case ORBC_OPERANDS_STEP:
    case ORBC_OPERANDS_COUNT:
        fprintf(out, " %u", orbc_u32(code + 1));
        return;
    case ORBC_OPERANDS_STRING:
        fputc(' ', out);
        print_str(out, m, orbc_u32(code + 1));
        return;
    case ORBC_OPERANDS_NAMES:
        arg = orbc_u32(code + 1);
        fprintf(out, " %u", arg);
        for (uint32_t i = 0; i < arg; i++) {
            fputc(' ', out);
            print_str(out, m, orbc_u32(code + 5 + 4 * i));
        }
        return;
    case ORBC_OPERANDS_CALL:
        fprintf(out, " %s/%u", orbc_func_name(code[1]), code[2]);
        return;
    case ORBC_OPERANDS_TARGET:
        fprintf(out, " %04x", orbc_u32(code + 1));
        return;
    }
}

static void print_code(FILE *out, const OrbcModule *m, const char *label, uint32_t index,
                       const char *indent)
{
    if (index == ORBC_NONE)
        return;
    const OrbcCode *c = &m->codes[index];
    fprintf(out, "%s%s: code %u, ", indent, label, index);
    print_path(out, m, c->file);
    fprintf(out, ", max stack %u\n", c->max_stack);
    uint32_t next_pos = 0;
    for (uint32_t o = 0; o < c->len;) {
        uint32_t size = orbc_instr_size(c->code + o, c->len - o);
        if (size == 0)
            break;   /* not reached for a verified module */
        fprintf(out, "%s  %04x  ", indent, o);
        if (next_pos < c->pos_count && c->pos[next_pos].offset == o) {
            char at[32];
            snprintf(at, sizeof at, "%u:%u", c->pos[next_pos].line, c->pos[next_pos].column);
            fprintf(out, "%-8s ", at);   /* a long position still gets its space */
            next_pos++;
        } else {
            fputs("         ", out);
        }
        fputs(orbc_op_name(c->code[o]), out);
        print_operands(out, m, c->code + o);
        fputc('\n', out);
        o += size;
    }
}

/* ---- workflows ---- */

static void print_policy(FILE *out, const OrbcModule *m, const OrbcPolicy *p,
                         const char *indent)
{
    fprintf(out, "%sretry attempts=%u backoff=%s initial_delay=", indent, p->attempts,
            p->backoff == ORBC_BACKOFF_EXPONENTIAL ? "exponential" : "fixed");
    print_duration(out, p->initial_delay_ms);
    fputs(" max_delay=", out);
    print_duration(out, p->max_delay_ms);
    fputs(" non_retryable=[", out);
    for (uint32_t i = 0; i < p->non_retryable_count; i++) {
        if (i)
            fputs(", ", out);
        print_str(out, m, p->non_retryable[i]);
    }
    fputs("]\n", out);
}

static void print_task_target(FILE *out, const OrbcModule *m, uint32_t task)
{
    const OrbcTask *t = &m->tasks[task];
    fputs(t->kind == ORBC_TASK_BUILTIN ? "using " : "worker ", out);
    print_str(out, m, t->name);
    fprintf(out, " (task%u)", task);
}

static void print_target(FILE *out, const OrbcModule *m, const OrbcStep *s)
{
    switch (s->kind) {
    case ORBC_STEP_WORKER:
    case ORBC_STEP_BUILTIN:
        print_task_target(out, m, s->target);
        return;
    case ORBC_STEP_WORKFLOW:
        fputs("workflow ", out);
        print_name(out, m, m->workflows[s->target].name);
        fprintf(out, " (w%u)", s->target);
        return;
    case ORBC_STEP_SLEEP: fputs("sleep", out); return;
    case ORBC_STEP_AWAIT:
        fputs("await ", out);
        print_str(out, m, s->target);
        return;
    case ORBC_STEP_COMPUTE: fputs("compute", out); return;
    }
}

static bool step_is_task(const OrbcStep *s)
{
    return s->kind == ORBC_STEP_WORKER || s->kind == ORBC_STEP_BUILTIN;
}

static void print_compensate(FILE *out, const OrbcModule *m, const OrbcWorkflow *w,
                             const OrbcCompensate *c)
{
    fputs("    compensate at ", out);
    print_path(out, m, w->file);
    fprintf(out, ":%u:%u\n      ", c->line, c->column);
    print_task_target(out, m, c->task);
    fputc('\n', out);
    print_policy(out, m, &c->policy, "      ");
    print_timeout(out, "      timeout", c->timeout_ms);
    print_timeout(out, "      queue_timeout", c->queue_timeout_ms);
    print_code(out, m, "with", c->with_code, "      ");
    print_code(out, m, "idempotency_key", c->key_code, "      ");
}

static void print_step(FILE *out, const OrbcModule *m, const OrbcWorkflow *w, uint32_t i)
{
    const OrbcStep *s = &w->steps[i];
    fprintf(out, "  step %u ", i);
    print_name(out, m, s->name);
    fputs(" at ", out);
    print_path(out, m, w->file);
    fprintf(out, ":%u:%u\n    ", s->line, s->column);
    print_target(out, m, s);
    fputc('\n', out);
    if (step_is_task(s))
        print_policy(out, m, &s->policy, "    ");
    if (s->kind != ORBC_STEP_SLEEP && s->kind != ORBC_STEP_COMPUTE)
        print_timeout(out, "    timeout", s->timeout_ms);
    if (step_is_task(s))
        print_timeout(out, "    queue_timeout", s->queue_timeout_ms);
    fputs("    depends_on", out);
    if (s->dep_count == 0)
        fputs(" none", out);
    for (uint32_t d = 0; d < s->dep_count; d++) {
        fputc(' ', out);
        print_name(out, m, w->steps[s->deps[d]].name);
    }
    fputc('\n', out);
    if (s->for_var != ORBC_NONE) {
        fputs("    for ", out);
        print_name(out, m, s->for_var);
        fputc('\n', out);
    }
    print_code(out, m, "when", s->when_code, "    ");
    print_code(out, m, "for", s->for_code, "    ");
    print_code(out, m, "with", s->with_code, "    ");
    print_code(out, m, "idempotency_key", s->key_code, "    ");
    print_code(out, m, s->kind == ORBC_STEP_SLEEP ? "sleep" : "compute", s->value_code, "    ");
    if (s->has_compensate)
        print_compensate(out, m, w, &s->compensate);
}

static void print_workflow(FILE *out, const OrbcModule *m, uint32_t index)
{
    const OrbcWorkflow *w = &m->workflows[index];
    fprintf(out, "\nworkflow %u ", index);
    print_name(out, m, w->name);
    fputs(" at ", out);
    print_path(out, m, w->file);
    fprintf(out, ":%u:%u\n  input ", w->line, w->column);
    print_type_ref(out, m, w->input_type);
    fputs("\n  output ", out);
    print_type_ref(out, m, w->output_type);
    fputc('\n', out);
    print_timeout(out, "  timeout", w->timeout_ms);
    for (uint32_t i = 0; i < w->step_count; i++)
        print_step(out, m, w, i);
    if (w->return_code == ORBC_NONE)
        fputs("  return null\n", out);
    else
        print_code(out, m, "return", w->return_code, "  ");
}

void orbc_disassemble(const OrbcModule *m, FILE *out)
{
    fprintf(out, "orbc %u.%u\n", m->major, m->minor);
    print_tables(out, m);
    for (uint32_t i = 0; i < m->workflow_count; i++)
        print_workflow(out, m, i);
}
