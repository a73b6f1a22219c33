/* The reports of `orbit-run simulate` (simulate.h): a table for people (each probability
 * with its 95% Wilson interval), the JSON contract (jansson), and an SVG picture of the
 * completion time's distribution by outcome with the workflow timeout marked
 * (docs/runtime.md, "Simulation"). */
#include "simulate.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orbc_value.h"
#include "sort.h"
#include "utf8.h"

static const char *const outcome_names[] = {"completed", "failed", "timed_out", "blocked"};

/* ---- statistics ---- */

typedef struct Durations {
    double mean;
    int64_t p50, p90, p99, max;
} Durations;

/* The nearest-rank percentile of sorted values: the smallest value with at least q of
 * them at or below it. */
static int64_t percentile(const int64_t *sorted, uint64_t n, double q)
{
    uint64_t rank = (uint64_t)ceil(q * (double)n);
    return sorted[rank ? rank - 1 : 0];
}

static Durations durations(const SimulateResult *r)
{
    Durations d = {0};
    if (r->runs == 0)
        return d;
    int64_t *sorted = xmalloc(r->runs * sizeof *sorted);
    memcpy(sorted, r->durations, r->runs * sizeof *sorted);
    sort_int64(sorted, r->runs);
    long double sum = 0;
    for (uint64_t i = 0; i < r->runs; i++)
        sum += sorted[i];
    d.mean = (double)(sum / r->runs);
    d.p50 = percentile(sorted, r->runs, 0.50);
    d.p90 = percentile(sorted, r->runs, 0.90);
    d.p99 = percentile(sorted, r->runs, 0.99);
    d.max = sorted[r->runs - 1];
    free(sorted);
    return d;
}

static double share(uint64_t count, uint64_t runs)
{
    return runs ? (double)count / (double)runs : 0;
}

/* The Wilson score interval of a proportion, 95% (z = 1.96). */
static void wilson(uint64_t count, uint64_t runs, double *low, double *high)
{
    const double z = 1.959963984540054;
    if (runs == 0) {
        *low = 0;
        *high = 1;
        return;
    }
    double n = (double)runs, p = (double)count / n, z2 = z * z;
    double center = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    *low = center - half < 0 ? 0 : center - half;
    *high = center + half > 1 ? 1 : center + half;
}

/* ---- text ---- */

static void print_share(FILE *out, uint64_t count, uint64_t runs)
{
    double low, high;
    wilson(count, runs, &low, &high);
    fprintf(out, " %7.3f%% [%6.3f, %6.3f]", 100 * share(count, runs), 100 * low, 100 * high);
}

enum { NAME_CELLS_MAX = 40 };   /* the widest the column of names gets */

/* Writes `text` as a cell of a table, `width` terminal cells wide, by display width (out
 * NULL: only measures): cut to fit at a character boundary, so that a combining mark
 * stays with its letter and a wide character that would straddle the edge is left out,
 * then padded with spaces. A character that would not show or would break the row (a
 * control, a line break, a tab, invalid UTF-8: utf8_is_unprintable) is written as
 * U+FFFD, one cell. Returns the cells of the text written, before the padding. */
static uint32_t put_cell(FILE *out, const char *text, uint32_t width)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text);
    uint32_t used = 0;
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode(s + i, len - i, &cp);
        bool shown = cp != '\t' && !utf8_is_unprintable(cp);
        uint32_t cells = shown ? utf8_cells(cp) : 1;
        if (cells > width - used)
            break;
        if (out && shown)
            fwrite(s + i, 1, n, out);
        else if (out)
            fputs("\xEF\xBF\xBD", out);
        used += cells;
        i += n;
    }
    for (uint32_t pad = used; out && pad < width; pad++)
        fputc(' ', out);
    return used;
}

/* The cells of the column of names: its widest step name or error code, at least
 * `least`, at most NAME_CELLS_MAX. */
static int name_width(const SimulateResult *r, uint32_t least)
{
    uint32_t width = least;
    for (uint32_t i = 0; i < r->step_count; i++) {
        uint32_t cells = put_cell(NULL, r->steps[i].name, NAME_CELLS_MAX);
        width = cells > width ? cells : width;
    }
    for (uint32_t i = 0; i < r->error_count; i++) {
        uint32_t cells = put_cell(NULL, r->errors[i].code, NAME_CELLS_MAX);
        width = cells > width ? cells : width;
    }
    return (int)width;
}

/* 6083069 ms -> "1h 41m 23s". */
static void print_human(FILE *out, int64_t ms)
{
    char text[64];
    int64_t s = ms / 1000;
    if (ms < 1000)
        snprintf(text, sizeof text, "%" PRId64 "ms", ms);
    else if (s < 60)
        snprintf(text, sizeof text, "%.1fs", (double)ms / 1000);
    else if (s < 3600)
        snprintf(text, sizeof text, "%" PRId64 "m %" PRId64 "s", s / 60, s % 60);
    else
        snprintf(text, sizeof text, "%" PRId64 "h %" PRId64 "m %" PRId64 "s", s / 3600,
                 s / 60 % 60, s % 60);
    fprintf(out, " %12s", text);
}

static void text_durations(const SimulateResult *r, FILE *out, int w)
{
    Durations d = durations(r);
    fprintf(out, "\n%-*s %12s %12s %12s %12s %12s\n", w, "duration", "mean", "p50", "p90",
            "p99", "max");
    fprintf(out, "%-*s %12.1f %12" PRId64 " %12" PRId64 " %12" PRId64 " %12" PRId64 "\n", w,
            "ms", d.mean, d.p50, d.p90, d.p99, d.max);
    fprintf(out, "%-*s", w, "");
    int64_t values[] = {(int64_t)llround(d.mean), d.p50, d.p90, d.p99, d.max};
    for (int i = 0; i < 5; i++)
        print_human(out, values[i]);
    fputc('\n', out);
}

/* Per step: attempts and backoff per run that scheduled it ("-": no attempts, as for an
 * await), how often it gave up and how often a limit of it passed. */
static void text_steps(const SimulateResult *r, FILE *out, int w)
{
    fprintf(out, "\n%-*s %9s %10s  %-26s %s\n", w, "step", "attempts", "backoff ms",
            "gave up [95% CI]", "timed out [95% CI]");
    for (uint32_t i = 0; i < r->step_count; i++) {
        const StepStats *s = &r->steps[i];
        put_cell(out, s->name, (uint32_t)w);
        fputc(' ', out);
        if (s->runs)
            fprintf(out, "%9.3f %10.1f ", (double)s->attempts / s->runs,
                    (double)s->backoff_ms / s->runs);
        else
            fprintf(out, "%9s %10s ", "-", "-");
        print_share(out, s->gave_up, r->runs);
        print_share(out, s->timed_out, r->runs);
        fputc('\n', out);
    }
}

static void report_text(const SimulateResult *r, FILE *out)
{
    int w = name_width(r, 12);
    fprintf(out, "workflow %s: %" PRIu64 " runs, seed %" PRIu64, r->workflow, r->runs, r->seed);
    if (r->timeout_ms) {
        char limit[ORBC_DURATION_TEXT_SIZE];
        orbc_format_duration(limit, r->timeout_ms);
        fprintf(out, ", workflow timeout %s", limit);
    }
    fprintf(out, "\n\n%-*s  %s\n", w, "outcome", "share [95% CI]");
    for (int k = 0; k < 4; k++) {
        fprintf(out, "%-*s", w, outcome_names[k]);
        print_share(out, r->outcomes[k], r->runs);
        fputc('\n', out);
    }
    if (r->error_count) {
        fprintf(out, "\n%-*s  %s\n", w, "final error", "share [95% CI]");
        for (uint32_t i = 0; i < r->error_count; i++) {
            put_cell(out, r->errors[i].code, (uint32_t)w);
            print_share(out, r->errors[i].runs, r->runs);
            fputc('\n', out);
        }
    }
    text_durations(r, out, w);
    if (r->step_count)
        text_steps(r, out, w);
}

/* ---- JSON ---- */

static json_t *number(double x)
{
    return json_real(x);
}

static json_t *report_json_value(const SimulateResult *r)
{
    json_t *root = json_object();
    json_object_set_new(root, "workflow", json_string(r->workflow));
    json_object_set_new(root, "runs", json_integer((json_int_t)r->runs));
    json_object_set_new(root, "seed", json_integer((json_int_t)r->seed));
    json_t *outcomes = json_object();
    for (int k = 0; k < 4; k++)
        json_object_set_new(outcomes, outcome_names[k], number(share(r->outcomes[k], r->runs)));
    json_object_set_new(root, "outcomes", outcomes);
    json_t *errors = json_object();
    for (uint32_t i = 0; i < r->error_count; i++)
        json_object_set_new(errors, r->errors[i].code, number(share(r->errors[i].runs, r->runs)));
    json_object_set_new(root, "errors", errors);
    Durations d = durations(r);
    json_t *duration = json_object();
    json_object_set_new(duration, "mean", number(d.mean));
    json_object_set_new(duration, "p50", json_integer(d.p50));
    json_object_set_new(duration, "p90", json_integer(d.p90));
    json_object_set_new(duration, "p99", json_integer(d.p99));
    json_object_set_new(duration, "max", json_integer(d.max));
    json_object_set_new(root, "duration_ms", duration);
    json_t *steps = json_object();
    for (uint32_t i = 0; i < r->step_count; i++) {
        const StepStats *s = &r->steps[i];
        json_t *step = json_object();
        json_object_set_new(step, "attempts_mean",
                            number(s->runs ? (double)s->attempts / s->runs : 0));
        json_object_set_new(step, "gave_up", number(share(s->gave_up, r->runs)));
        json_object_set_new(step, "timed_out", number(share(s->timed_out, r->runs)));
        json_object_set_new(step, "backoff_ms_mean",
                            number(s->runs ? (double)s->backoff_ms / s->runs : 0));
        json_object_set_new(steps, s->name, step);
    }
    json_object_set_new(root, "steps", steps);
    return root;
}

static bool report_json(const SimulateResult *r, FILE *out)
{
    json_t *root = report_json_value(r);
    int failed = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    fputc('\n', out);
    return failed == 0;
}

/* ---- SVG ---- */

enum { SVG_W = 760, SVG_H = 440, LEFT = 70, RIGHT = 180, TOP = 50, BOTTOM = 60,
       MAX_POINTS = 500 };

static const char *const outcome_colors[] = {"#2e7d32", "#c62828", "#ef6c00", "#6a1b9a"};

/* Text in an SVG element: &, <, > and quotes escaped. */
static void svg_text(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if ((unsigned char)*c >= 0x20 || *c == '\t')
                fputc(*c, out);
        }
    }
}

typedef struct Plot {
    double xmax;             /* ms */
    uint64_t runs;
    double unit;             /* ms per unit of the axis */
    const char *unit_name;
    double tick;             /* ms between ticks */
} Plot;

/* The axis in ms, s, min or h, whichever keeps its numbers small, with ticks at 1, 2 or 5
 * times a power of ten of that unit. */
static void choose_axis(Plot *p)
{
    static const struct { double ms; const char *name; } units[] = {
        {3600000, "h"}, {60000, "min"}, {1000, "s"}, {1, "ms"},
    };
    int u = 0;
    while (u < 3 && p->xmax < 2 * units[u].ms)
        u++;
    p->unit = units[u].ms;
    p->unit_name = units[u].name;
    double raw = p->xmax / p->unit / 5, power = pow(10, floor(log10(raw)));
    double step = raw / power <= 1 ? 1 : raw / power <= 2 ? 2 : raw / power <= 5 ? 5 : 10;
    p->tick = step * power * p->unit;
}

static double px(const Plot *p, double ms)
{
    return LEFT + (SVG_W - LEFT - RIGHT) * ms / p->xmax;
}

static double py(double fraction)
{
    return TOP + (SVG_H - TOP - BOTTOM) * (1 - fraction);
}

static void svg_axes(FILE *out, const Plot *p)
{
    fprintf(out, "<g stroke=\"#999\" stroke-width=\"1\" font-size=\"11\" fill=\"#333\">\n");
    for (int i = 0; i * p->tick <= p->xmax && i <= 20; i++) {
        double x = px(p, i * p->tick);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n", x, TOP,
                x, SVG_H - BOTTOM);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" stroke=\"none\">%g</text>\n",
                x, SVG_H - BOTTOM + 16, i * p->tick / p->unit);
    }
    for (int i = 0; i <= 5; i++) {
        double y = py(i / 5.0);
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n", LEFT, y,
                SVG_W - RIGHT, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\">%d%%</text>\n",
                LEFT - 6, y + 4, i * 20);
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\"/>\n", LEFT, TOP,
            SVG_W - LEFT - RIGHT, SVG_H - TOP - BOTTOM);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" stroke=\"none\">completion time "
            "(%s)</text>\n", LEFT + (SVG_W - LEFT - RIGHT) / 2, SVG_H - 20, p->unit_name);
    fprintf(out, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\" "
            "stroke=\"none\">runs finished (cumulative)</text>\n", TOP + (SVG_H - TOP - BOTTOM) / 2);
    fprintf(out, "</g>\n");
}

/* The cumulative share of all runs that ended with outcome `k` by each time: a step line
 * through at most MAX_POINTS of its sorted durations. */
static void svg_curve(FILE *out, const Plot *p, const int64_t *sorted, uint64_t n, int k)
{
    uint64_t stride = n / MAX_POINTS + 1;
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%.1f,%.1f",
            outcome_colors[k], px(p, 0), py(0));
    for (uint64_t i = 0; i < n; i += stride) {
        double x = px(p, (double)sorted[i]);
        fprintf(out, " %.1f,%.1f %.1f,%.1f", x, py((double)i / p->runs), x,
                py((double)(i + 1) / p->runs));
    }
    double x = px(p, (double)sorted[n - 1]);
    fprintf(out, " %.1f,%.1f %.1f,%.1f\"/>\n", x, py((double)n / p->runs), px(p, p->xmax),
            py((double)n / p->runs));
}

static void svg_legend(FILE *out, const SimulateResult *r, int k, int row)
{
    int y = TOP + 10 + row * 20;
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
            SVG_W - RIGHT + 14, y, SVG_W - RIGHT + 34, y, outcome_colors[k]);
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s %.2f%%</text>\n", SVG_W - RIGHT + 40,
            y + 4, outcome_names[k], 100 * share(r->outcomes[k], r->runs));
}

static void report_svg(const SimulateResult *r, FILE *out)
{
    int64_t *sorted = xmalloc((r->runs + 1) * sizeof *sorted);
    int64_t longest = 0;
    for (uint64_t i = 0; i < r->runs; i++)
        longest = r->durations[i] > longest ? r->durations[i] : longest;
    Plot p = {.runs = r->runs ? r->runs : 1};
    p.xmax = (double)(r->timeout_ms > longest ? r->timeout_ms : longest) * 1.05;
    if (p.xmax < 1)
        p.xmax = 1;
    choose_axis(&p);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n", SVG_W, SVG_H, SVG_W, SVG_H);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(out, "<text x=\"%d\" y=\"28\" font-size=\"15\">", LEFT);
    svg_text(out, r->workflow);
    fprintf(out, ": completion time by outcome (%" PRIu64 " runs, seed %" PRIu64 ")</text>\n",
            r->runs, r->seed);
    svg_axes(out, &p);
    int row = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < r->runs; i++)
            if (r->status[i] == k)
                sorted[n++] = r->durations[i];
        if (n == 0)
            continue;
        sort_int64(sorted, n);
        svg_curve(out, &p, sorted, n, k);
        svg_legend(out, r, k, row++);
    }
    if (r->timeout_ms) {
        char limit[ORBC_DURATION_TEXT_SIZE];
        orbc_format_duration(limit, r->timeout_ms);
        double x = px(&p, (double)r->timeout_ms);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                "stroke-dasharray=\"6 4\"/>\n", x, TOP - 6, x, SVG_H - BOTTOM);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">workflow "
                "timeout %s</text>\n", x - 4, TOP - 8, limit);
    }
    fprintf(out, "</svg>\n");
    free(sorted);
}

bool simulate_report(const SimulateResult *r, SimulateFormat format, FILE *out)
{
    bool ok = true;
    if (format == SIMULATE_JSON)
        ok = report_json(r, out);
    else if (format == SIMULATE_SVG)
        report_svg(r, out);
    else
        report_text(r, out);
    return ok && fflush(out) == 0 && !ferror(out);
}
