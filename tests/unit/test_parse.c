/* Unit tests of the parser: the tree it builds (precedence, clause shapes, spans), the
 * messages of syntax errors, recovery (N independent mistakes give N diagnostics), and
 * the limits on nesting. */
#include <check.h>

#include "front_fixture.h"

/* Parses text; returns the dump, and the diagnostics in *diags (both owned by f). */
static const char *parse(Fixture *f, const char *text, char *diags, size_t diags_size)
{
    fixture_open(f, text, strlen(text));
    const char *tree = fixture_parse(f, NULL);
    char *copy = strdup(tree);
    const char *found = fixture_diagnostics(f);
    size_t len = strlen(found);
    if (len >= diags_size)
        len = diags_size - 1;
    memcpy(diags, found, len);
    diags[len] = '\0';
    memcpy(f->out, copy, strlen(copy) + 1);
    free(copy);
    return f->out;
}

#define CHECK_PARSE(text, tree, diagnostics)                         \
    do {                                                             \
        Fixture *f_ = malloc(sizeof *f_);                            \
        char d_[8192];                                               \
        ck_assert_str_eq(parse(f_, text, d_, sizeof d_), tree);      \
        ck_assert_str_eq(d_, diagnostics);                           \
        fixture_close(f_);                                           \
        free(f_);                                                    \
    } while (0)

START_TEST(precedence)
{
    CHECK_PARSE("workflow w { a: 1 + 2 * 3 - -4 ?? x || y && !z == w < v }",
                "(workflow w {(a: (?? (- (+ 1 (* 2 3)) (- 4)) (|| x (&& y (== (! z) (< w v))))))})\n",
                "");
    CHECK_PARSE("workflow w { a: 1 - 2 - 3, b: 8 / 4 % 3, c: a < b == c > d, d: -a.b }",
                "(workflow w {(a: (- (- 1 2) 3)) (b: (% (/ 8 4) 3)) (c: (== (< a b) (> c d))) "
                "(d: (- (. a b)))})\n",
                "");
}
END_TEST

START_TEST(postfix_and_literals)
{
    CHECK_PARSE("workflow w { a: f(x, y,)[0].type, b: [string]?, c: { type: \"x\", step: 1 }, "
                "d: [], e: g(), f: (1 + 2) * 3, g: input.total.amount, h: true, i: null, j: 1.5 }",
                "(workflow w {(a: (. (index (call f x y) 0) type)) (b: (? [string])) "
                "(c: {(type: \"x\") (step: 1)}) (d: []) (e: (call g)) (f: (* (+ 1 2) 3)) "
                "(g: (. (. input total) amount)) (h: true) (i: null) (j: 1.5)})\n",
                "");
}
END_TEST

START_TEST(clauses)
{
    CHECK_PARSE("type Money { amount: number }\n"
                "worker \"pay.charge\" { input { id: string } output { ok: bool } }\n"
                "worker \"pay.refund\"\n"
                "workflow w {\n"
                "  input { n: int }; timeout 24h\n"
                "  step s { worker \"pay.charge\"; with { id: input.id }; for x in input.items\n"
                "    when x != null; idempotency_key \"k\" + x; retry { attempts: 3 }\n"
                "    timeout 10s, queue_timeout 2m\n"
                "    compensate { worker \"pay.refund\" } }\n"
                "  step t { using orbit.http.request }\n"
                "  step u { workflow child }\n"
                "  step v { sleep 10m }\n"
                "  step x { await \"sig\" }\n"
                "  step y { compute 1 }\n"
                "  return { ok: true }\n"
                "}\n",
                "(type Money {(amount: number)})\n"
                "(worker pay.charge {(input {(id: string)}) (output {(ok: bool)})})\n"
                "(worker pay.refund)\n"
                "(workflow w {(input {(n: int)}) (timeout 86400000ms) "
                "(step s {(worker \"pay.charge\") (with {(id: (. input id))}) "
                "(for x (. input items)) (when (!= x null)) (idempotency_key (+ \"k\" x)) "
                "(retry {(attempts: 3)}) (timeout 10000ms) (queue_timeout 120000ms) "
                "(compensate {(worker \"pay.refund\")})}) "
                "(step t {(using (. (. orbit http) request))}) (step u {(workflow child)}) "
                "(step v {(sleep 600000ms)}) (step x {(await \"sig\")}) (step y {(compute 1)}) "
                "(return {(ok: true)})})\n",
                "");
}
END_TEST

START_TEST(unknown_words)
{
    CHECK_PARSE("workfow checkout { retries { attempts: 3 }\n timout 10s\n retry: { a: 1 } }\n"
                "builtin \"orbit.http.request\" { }\n",
                "(workfow checkout {(retries {(attempts: 3)}) (timout 10000ms) "
                "(retry: {(a: 1)})})\n"
                "(builtin orbit.http.request {})\n",
                "");
}
END_TEST

START_TEST(spans)
{
    Fixture *f = malloc(sizeof *f);
    const char *text = "workflow w {\n  step s { x: a + b.c }\n}\n";
    fixture_open(f, text, strlen(text));
    SourceAst *ast;
    fixture_parse(f, &ast);
    uint32_t o = source_file(&f->c.sources, f->file)->origin;   /* spans are positions */
    const Member *w = &ast->decls[0];
    ck_assert_int_eq(w->span.start - o, 0);
    ck_assert_int_eq(w->span.end - o, 38);
    ck_assert_int_eq(member_name_span(w).start - o, 9);
    ck_assert_int_eq(member_body(w)->span.start - o, 11);
    const Member *s = &member_body(w)->members[0];
    ck_assert_int_eq(s->span.start - o, 15);
    ck_assert_int_eq(s->span.end - o, 36);
    ck_assert_int_eq(member_key_span(s).end - o, 19);
    const Member *x = &member_body(s)->members[0];
    ck_assert_int_eq(member_key_span(x).start - o, 24);
    ck_assert_int_eq(member_colon_span(x).start - o, 25);
    ck_assert_int_eq(member_value(x)->span.start - o, 27);
    ck_assert_int_eq(member_value(x)->span.end - o, 34);
    ck_assert_int_eq(expr_field_span(member_value(x)->right).start - o, 33);
    ck_assert_int_eq(source_file_at(&f->c.sources, member_value(x)->span.start), f->file);
    fixture_close(f);
    free(f);
}
END_TEST

START_TEST(syntax_messages)
{
    CHECK_PARSE("type T {\n  amount\n}\n",
                "(type T {ERROR})\n",
                "E0100@2:9 expected `:` after field name `amount`, found a newline\n");
    /* In a block of clauses a word alone is an unknown clause, for the checker (E0303). */
    CHECK_PARSE("workflow w {\n  step s {\n    amount\n  }\n}\n",
                "(workflow w {(step s {(amount)})})\n",
                "");
    CHECK_PARSE("workflow w { a: }",
                "(workflow w {ERROR})\n",
                "E0100@1:17 expected an expression, found `}`\n");
    CHECK_PARSE("workflow w { a: 1 b }",
                "(workflow w {ERROR})\n",
                "E0100@1:19 expected `,`, `;`, a newline or `}` after this member, "
                "found identifier `b`\n");
    /* A member that certainly starts (`name:`, a clause keyword) gets its separator. */
    CHECK_PARSE("workflow w { a: 1 b: 2 }",
                "(workflow w {(a: 1) (b: 2)})\n",
                "E0100@1:19 missing `,` before `b`\n");
    CHECK_PARSE("workflow w { step { } }",
                "(workflow w {ERROR})\n",
                "E0100@1:19 expected a step name after `step`, found `{`\n");
    CHECK_PARSE("workflow w { a: [1 2] }",
                "(workflow w {ERROR})\n",
                "E0100@1:20 expected `,` or `]`, found integer `2`\n");
    CHECK_PARSE("workflow w { timeout }",
                "(workflow w {ERROR})\n",
                "E0100@1:22 expected an expression after `timeout`, found `}`\n");
    CHECK_PARSE("workflow w { retry 3 }",
                "(workflow w {ERROR})\n",
                "E0100@1:20 expected `{` after `retry`, found integer `3`\n");
    CHECK_PARSE("workflow w\n{ }\nworkflow v {}",
                "(workflow v {})\n",
                "E0100@1:11 expected `{`, found a newline\n");
}
END_TEST

START_TEST(top_level)
{
    CHECK_PARSE("x: 1\nworkflow a {}\n5\nstep s {}\nworkflow: b {}\n",
                "(workflow a {})\n(workflow b {})\n",
                "E0104@1:1 expected `workflow`, `worker`, `type` or `test`, found identifier `x`\n"
                "E0104@3:1 expected `workflow`, `worker`, `type` or `test`, found integer `5`\n"
                "E0104@4:1 expected `workflow`, `worker`, `type` or `test`, found keyword `step`\n"
                "E0103@5:9 unexpected `:` after keyword `workflow`\n");
}
END_TEST

START_TEST(assign_for_colon)
{
    CHECK_PARSE("workflow w { a = 1, b: x = y }",
                "(workflow w {(a: 1) ERROR})\n",
                "E0002@1:16 unexpected character `=`\n"
                "E0002@1:26 unexpected character `=`\n");
}
END_TEST

START_TEST(five_mistakes)
{
    const char *text =
        "workflow one {\n"             /* 1 */
        "  step a { worker \"x\" ] }\n" /* 2: stray `]` */
        "  step b { timeout: }\n"      /* 3: missing value */
        "  step c { with { k: 1 2 } }\n" /* 4: missing separator */
        "}\n"                          /* 5 */
        "workflow two {\n"             /* 6 */
        "  step d { sleep 1.5s }\n"    /* 7: fractional duration */
        "  step e { when a +* b }\n"   /* 8: operator without operand */
        "  step f { compute 1 }\n"     /* 9: fine */
        "}\n";
    Fixture *f = malloc(sizeof *f);
    fixture_open(f, text, strlen(text));
    fixture_parse(f, NULL);
    ck_assert_str_eq(fixture_diagnostics(f),
                     "E0102@2:23 unexpected closing delimiter `]`\n"
                     "E0100@3:21 expected an expression, found `}`\n"
                     "E0100@4:24 expected `,`, `;`, a newline or `}` after this member, "
                     "found integer `2`\n"
                     "E0006@7:18 duration `1.5s` has a fraction\n"
                     "E0100@8:20 expected an expression, found `*`\n");
    fixture_close(f);
    free(f);
}
END_TEST

START_TEST(recovery_keeps_what_parsed)
{
    CHECK_PARSE("workflow w {\n a: 1\n b: (2 +)\n c: 3\n}\nworkflow v { d: [}\n",
                "(workflow w {(a: 1) ERROR (c: 3)})\n(workflow v {(d: [])})\n",
                "E0100@3:9 expected an expression, found `)`\n"
                "E0101@6:18 expected `]`, found `}`\n");
}
END_TEST

/* Elements wait on the parser's stack until their list closes: a member dropped inside a
 * nested object leaves its unfinished list there, and the enclosing list still gets
 * exactly its own elements, in order. */
START_TEST(lists_keep_their_elements_across_recovery)
{
    CHECK_PARSE("workflow w { a: [1, { b: [2, 3 4], c: 5 }, 6], d: f(7, [8, 9], 10) }\n",
                "(workflow w {(a: [1 {ERROR (c: 5)} 6]) (d: (call f 7 [8 9] 10))})\n",
                "E0100@1:32 expected `,` or `]`, found integer `4`\n");
}
END_TEST

START_TEST(unclosed_block_reports_once)
{
    CHECK_PARSE("workflow w {\n step s {\n  a: 1 +\n",
                "(workflow w {(step s {ERROR})})\n",
                "E0101@4:1 expected `}`, found end of file\n");
}
END_TEST

/* The names under `e` that expr_child reaches, in the order it gives them. */
static void child_names(const Expr *e, char *out)
{
    if (!e)
        return;
    if (e->kind == EXPR_NAME) {
        strcat(out, e->name->text);
        strcat(out, " ");
    }
    for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
        child_names(expr_child(e, i), out);
}

START_TEST(children_in_source_order)
{
    Fixture *f = malloc(sizeof *f);
    const char *text = "workflow w { x: f(a, -b)[c].d + [e, { g: h }, i?] ?? !j }\n";
    fixture_open(f, text, strlen(text));
    SourceAst *ast;
    fixture_parse(f, &ast);
    const Expr *x = member_value(&member_body(&ast->decls[0])->members[0]);
    char names[64] = "";
    child_names(x, names);
    ck_assert_str_eq(names, "f a b c e i j ");   /* an object's members are not children */
    ck_assert_int_eq(expr_child_count(x), 2);
    ck_assert_int_eq(expr_child_count(expr_child(expr_child(x, 0), 1)), 3);
    fixture_close(f);
    free(f);
}
END_TEST

static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *text = malloc(hl + ul * n + tl + 1);
    memcpy(text, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(text + hl + i * ul, unit, ul);
    memcpy(text + hl + ul * n, tail, tl + 1);
    return text;
}

static void expect_only(const char *text, const char *code, bool fatal)
{
    Fixture *f = malloc(sizeof *f);
    fixture_open(f, text, strlen(text));
    SourceAst *ast;
    fixture_parse(f, &ast);
    ck_assert_int_eq(f->c.diags.count, 1);
    ck_assert_int_eq(fixture_count(f, code), 1);
    ck_assert_int_eq(ast->fatal, fatal);
    fixture_close(f);
    free(f);
}

START_TEST(deep_nesting)
{
    const char *openers[] = { "[", "{", "(" };
    for (int i = 0; i < 3; i++) {
        char *text = repeat("workflow w { a: ", openers[i], 200000, "");
        expect_only(text, "E0009", true);
        free(text);
    }
    char *text = repeat("workflow w { a: ", "!", 100000, "x }");
    expect_only(text, "E0009", true);
    free(text);
    text = repeat("workflow w { a: x", ".y", 100000, " }");
    expect_only(text, "E0009", true);
    free(text);
    text = repeat("workflow w { a: x", " + 1", 100000, " }");
    expect_only(text, "E0009", true);
    free(text);
}
END_TEST

START_TEST(nesting_at_the_limit_is_fine)
{
    char *text = repeat("workflow w { a: ", "[", 255, "");
    char *full = repeat(text, "]", 255, " }");
    Fixture *f = malloc(sizeof *f);
    fixture_open(f, full, strlen(full));
    SourceAst *ast;
    fixture_parse(f, &ast);
    ck_assert_int_eq(f->c.diags.count, 0);
    ck_assert(!ast->fatal);
    fixture_close(f);
    free(f);
    free(text);
    free(full);
}
END_TEST

/* Every comment is kept beside the tree, in order, with its exact span: a line comment
 * without its line end (LF or CRLF), a block comment whole, one never closed to the end
 * of the file, and comments in text skipped by error recovery. */
static const char *comment_dump(Fixture *f, const char *text)
{
    fixture_open(f, text, strlen(text));
    SourceAst *ast = parse_source(&f->c, f->file);
    uint32_t origin = source_file(&f->c.sources, f->file)->origin;
    f->used = 0;
    f->out[0] = '\0';
    for (uint32_t i = 0; i < ast->comment_count; i++) {
        const Comment *c = &ast->comments[i];
        uint32_t len = c->span.end - c->span.start;
        ck_assert_ptr_eq(c->text, source_file(&f->c.sources, f->file)->text + c->span.start - origin);
        out(f, "%c%u-%u[%.*s]\n", c->block ? 'B' : 'L', c->span.start - origin,
            c->span.end - origin, (int)len, c->text);
    }
    return f->out;
}

START_TEST(comments_are_kept)
{
    Fixture *f = malloc(sizeof *f);
    ck_assert_str_eq(comment_dump(f, "// head\r\nworkflow w { /* a */ a: 1 // tail\n"
                                     "  b: /* x\ny */ 2 }\n//"),
                     "L0-7[// head]\nB22-29[/* a */]\nL35-42[// tail]\nB48-57[/* x\ny */]\n"
                     "L62-64[//]\n");
    fixture_close(f);
    ck_assert_str_eq(comment_dump(f, "workflow w { a: = // lost?\n b: 1 } /* open"),
                     "L18-26[// lost?]\nB35-42[/* open]\n");
    fixture_close(f);
    ck_assert_str_eq(comment_dump(f, "workflow w {}"), "");
    fixture_close(f);
    free(f);
}
END_TEST

static Suite *parser_suite(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("parser");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, precedence);
    tcase_add_test(tc, comments_are_kept);
    tcase_add_test(tc, postfix_and_literals);
    tcase_add_test(tc, clauses);
    tcase_add_test(tc, unknown_words);
    tcase_add_test(tc, spans);
    tcase_add_test(tc, syntax_messages);
    tcase_add_test(tc, top_level);
    tcase_add_test(tc, assign_for_colon);
    tcase_add_test(tc, five_mistakes);
    tcase_add_test(tc, recovery_keeps_what_parsed);
    tcase_add_test(tc, lists_keep_their_elements_across_recovery);
    tcase_add_test(tc, unclosed_block_reports_once);
    tcase_add_test(tc, children_in_source_order);
    tcase_add_test(tc, deep_nesting);
    tcase_add_test(tc, nesting_at_the_limit_is_fine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(parser_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
