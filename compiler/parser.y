/* The grammar of Orbit (design sections 3 to 5 and Appendix A), for bison.
 *
 * Blocks are generic: a block is a list of members, and a member is an attribute
 * (`name: value`) or a clause (`keyword [name] [value] [block]`); the checker decides
 * which members a block may hold. Expressions use precedence declarations rather than one
 * rule per level, so an operand reaches `expr` in one reduction.
 *
 * Error recovery has two halves. In the lexer, lexer_recover() skips to the next separator
 * of the block the error happened in (or to its `}`, or at top level to the next
 * declaration), jumping over nested brackets, and marks the place with a RECOVERED token.
 * Here, `member: error RECOVERED` and `top: top error RECOVERED` catch the failed member
 * or declaration: the parser drops every token up to RECOVERED, so what it reads next is
 * the resynchronisation point, and the next mistake is reported at once. */

%code requires {
#include <stdint.h>
#include "ast.h"

/* A location is a byte range of the file: two offsets, cheap to copy on the parser's
 * stack. Whether a token was invented or already reported by the lexer (then a syntax
 * error on it is not reported again) is asked of the lexer (lexer_token_is_quiet). */
typedef struct Loc {
    uint32_t start;
    uint32_t end;
} Loc;

typedef struct Parser Parser;

/* The key of an attribute: its keyword, if it is one, and its name. */
typedef struct KeyName {
    Keyword keyword;
    const Name *name;
} KeyName;
}

%code provides {
enum { PARSER_TOKEN_LIMIT = 512 };   /* above every token kind of this grammar */

int parser_parse(Parser *p);
}

%code {
#include <stdio.h>
#include <string.h>

#include "lexer.h"
#include "parse_build.h"

static int yylex(YYSTYPE *value, Loc *loc, Parser *p)
{
    return lexer_next(p->lx, value, loc);
}

static void yyerror(Loc *loc, Parser *p, const char *message);

#define YYLLOC_DEFAULT(Cur, Rhs, N)                              \
    do {                                                         \
        if (N) {                                                 \
            (Cur).start = YYRHSLOC(Rhs, 1).start;                \
            (Cur).end = YYRHSLOC(Rhs, N).end;                    \
        } else {                                                 \
            (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end;      \
        }                                                        \
    } while (0)

/* Deep enough for AST_MAX_DEPTH brackets, each holding a run of AST_MAX_DEPTH unary
 * operators and a full ladder of pending binary operators. */
#define YYMAXDEPTH 200000
#define YYINITDEPTH 512
}

%define api.pure full
%define api.location.type {Loc}
%define parse.error custom
%define lr.default-reduction consistent

%locations
%param {Parser *p}
%expect 0

%union {
    int64_t integer;
    double number;
    String string;
    const Name *name;
    KeyName key;
    Keyword keyword;
    Expr *expr;
    Member *member;
    Block *block;
    ExprList list;
    PendingMembers members;
}

%token END 0 "end of file"
%token <integer> INT "integer"
%token <number> NUMBER "number"
%token <string> STRING "string"
%token <integer> DURATION "duration"
%token <name> IDENT "identifier"
%token NEWLINE "a newline"
%token COMMA "`,`"
%token SEMI "`;`"
%token COLON "`:`"
%token DOT "`.`"
%token LBRACE "`{`"
%token RBRACE "`}`"
%token LBRACK "`[`"
%token RBRACK "`]`"
%token LPAREN "`(`"
%token RPAREN "`)`"
%token QUESTION "`?`"
%token QQ "`??`"
%token OROR "`||`"
%token ANDAND "`&&`"
%token EQ "`==`"
%token NE "`!=`"
%token LT "`<`"
%token LE "`<=`"
%token GT "`>`"
%token GE "`>=`"
%token PLUS "`+`"
%token MINUS "`-`"
%token STAR "`*`"
%token SLASH "`/`"
%token PERCENT "`%`"
%token BANG "`!`"
%token ASSIGN "`=`"
%token STRAY "unexpected character"
%token RECOVERED "the end of skipped text"  /* from the lexer, after a syntax error */
%token T_WORKFLOW "`workflow`"
%token T_WORKER "`worker`"
%token T_TYPE "`type`"
%token T_INPUT "`input`"
%token T_OUTPUT "`output`"
%token T_TIMEOUT "`timeout`"
%token T_STEP "`step`"
%token T_RETURN "`return`"
%token T_USING "`using`"
%token T_SLEEP "`sleep`"
%token T_AWAIT "`await`"
%token T_COMPUTE "`compute`"
%token T_WITH "`with`"
%token T_WHEN "`when`"
%token T_FOR "`for`"
%token T_IN "`in`"
%token T_IDEMPOTENCY_KEY "`idempotency_key`"
%token T_RETRY "`retry`"
%token T_QUEUE_TIMEOUT "`queue_timeout`"
%token T_COMPENSATE "`compensate`"
%token T_TRUE "`true`"
%token T_FALSE "`false`"
%token T_NULL "`null`"

%left QQ
%left OROR
%left ANDAND
%left EQ NE
%left LT LE GT GE
%left PLUS MINUS
%left STAR SLASH PERCENT
%precedence BANG UMINUS
%precedence DOT LBRACK LPAREN QUESTION

%type <member> decl member
%type <members> members member_list
%type <block> block
%type <expr> expr
%type <list> args
%type <key> attr_keyword

%%

file
    : top
    ;

top
    : %empty
    | top decl          { build_add_decl(p, $2); }
    | top NEWLINE
    | top COMMA
    | top SEMI
    | top error RECOVERED   { yyerrok; }
    ;

decl
    : T_WORKFLOW IDENT block
        { $$ = build_decl(p, KW_WORKFLOW, @1, $2, @2, $3, @$); }
    | T_TYPE IDENT block
        { $$ = build_decl(p, KW_TYPE, @1, $2, @2, $3, @$); }
    | T_WORKER STRING
        { $$ = build_decl(p, KW_WORKER, @1, build_string_name(p, $2), @2, NULL, @$); }
    | T_WORKER STRING block
        { $$ = build_decl(p, KW_WORKER, @1, build_string_name(p, $2), @2, $3, @$); }
    | IDENT IDENT block
        { $$ = build_unknown_named(p, $1, @1, $2, @2, $3, @$); }
    | IDENT STRING block
        { $$ = build_unknown_named(p, $1, @1, build_string_name(p, $2), @2, $3, @$); }
    | T_WORKFLOW COLON IDENT block
        { build_colon_after_keyword(p, KW_WORKFLOW, @2);
          $$ = build_decl(p, KW_WORKFLOW, @1, $3, @3, $4, @$); }
    | T_TYPE COLON IDENT block
        { build_colon_after_keyword(p, KW_TYPE, @2);
          $$ = build_decl(p, KW_TYPE, @1, $3, @3, $4, @$); }
    | T_WORKER COLON STRING block
        { build_colon_after_keyword(p, KW_WORKER, @2);
          $$ = build_decl(p, KW_WORKER, @1, build_string_name(p, $3), @3, $4, @$); }
    ;

block
    : LBRACE member_list RBRACE     { $$ = build_block(p, $2, @$); }
    ;

member_list
    : %empty                { $$ = (PendingMembers){ 0, 0 }; }
    | seps                  { $$ = (PendingMembers){ 0, 0 }; }
    | members               { $$ = $1; }
    | members seps          { $$ = $1; }
    | seps members          { $$ = $2; }
    | seps members seps     { $$ = $2; }
    ;

/* A member after a single separator, the common case, takes no reduction of `seps`:
 * the separator is part of the rule. */
members
    : member                { $$ = build_members_first(p, $1); }
    | members NEWLINE member    { $$ = build_members_add(p, $1, $3); }
    | members COMMA member      { $$ = build_members_add(p, $1, $3); }
    | members SEMI member       { $$ = build_members_add(p, $1, $3); }
    | members seps NEWLINE member   { $$ = build_members_add(p, $1, $4); }
    | members seps COMMA member     { $$ = build_members_add(p, $1, $4); }
    | members seps SEMI member      { $$ = build_members_add(p, $1, $4); }
    | members error RECOVERED   { yyerrok; $$ = $1; }
    ;

/* Separators are spelled out rather than going through a `sep` rule: one reduction
 * fewer per separator. */
seps
    : NEWLINE
    | COMMA
    | SEMI
    | seps NEWLINE
    | seps COMMA
    | seps SEMI
    ;

member
    /* An attribute keyed by an identifier, and each clause keyword with its value, are
     * rules of their own rather than going through a rule for the name or the keyword:
     * one reduction fewer per member. */
    : IDENT COLON expr
        { $$ = build_attr(p, build_ident_name($1), @1, @2, $3, @$); }
    | IDENT ASSIGN expr
        { $$ = build_assign_attr(p, build_ident_name($1), @1, @2, $3, @$); }
    | attr_keyword COLON expr
        { $$ = build_attr(p, $1, @1, @2, $3, @$); }
    | attr_keyword ASSIGN expr
        { $$ = build_assign_attr(p, $1, @1, @2, $3, @$); }
    | T_STEP IDENT block
        { $$ = build_named_clause(p, KW_STEP, @1, $2, @2, $3, @$); }
    | T_STEP attr_keyword block
        /* A keyword is accepted as a name here so that the checker can say why it is
         * not allowed (E0207) instead of a bare syntax error. */
        { $$ = build_named_clause(p, KW_STEP, @1, $2.name, @2, $3, @$); }
    | T_FOR IDENT T_IN expr
        { $$ = build_for(p, @1, $2, @2, $4, @$); }
    | T_RETRY block
        { $$ = build_block_clause(p, KW_RETRY, @1, $2, @$); }
    | T_COMPENSATE block
        { $$ = build_block_clause(p, KW_COMPENSATE, @1, $2, @$); }
    | T_WORKFLOW expr       { $$ = build_value_clause(p, KW_WORKFLOW, @1, $2, @$); }
    | T_WORKER expr         { $$ = build_value_clause(p, KW_WORKER, @1, $2, @$); }
    | T_USING expr          { $$ = build_value_clause(p, KW_USING, @1, $2, @$); }
    | T_SLEEP expr          { $$ = build_value_clause(p, KW_SLEEP, @1, $2, @$); }
    | T_AWAIT expr          { $$ = build_value_clause(p, KW_AWAIT, @1, $2, @$); }
    | T_COMPUTE expr        { $$ = build_value_clause(p, KW_COMPUTE, @1, $2, @$); }
    | T_WITH expr           { $$ = build_value_clause(p, KW_WITH, @1, $2, @$); }
    | T_WHEN expr           { $$ = build_value_clause(p, KW_WHEN, @1, $2, @$); }
    | T_TIMEOUT expr        { $$ = build_value_clause(p, KW_TIMEOUT, @1, $2, @$); }
    | T_QUEUE_TIMEOUT expr  { $$ = build_value_clause(p, KW_QUEUE_TIMEOUT, @1, $2, @$); }
    | T_IDEMPOTENCY_KEY expr
                            { $$ = build_value_clause(p, KW_IDEMPOTENCY_KEY, @1, $2, @$); }
    | T_INPUT expr          { $$ = build_value_clause(p, KW_INPUT, @1, $2, @$); }
    | T_OUTPUT expr         { $$ = build_value_clause(p, KW_OUTPUT, @1, $2, @$); }
    | T_RETURN expr         { $$ = build_value_clause(p, KW_RETURN, @1, $2, @$); }
    | IDENT expr
        { $$ = build_unknown_clause(p, $1, @1, $2, @$); }
    | IDENT
        /* Read before the separator or `}` after it (yychar, yylloc). */
        { $$ = build_bare_word(p, $1, @1, yychar, yylloc); }
    | IDENT IDENT block
        { $$ = build_unknown_named(p, $1, @1, $2, @2, $3, @$); }
    | IDENT STRING block
        { $$ = build_unknown_named(p, $1, @1, build_string_name(p, $2), @2, $3, @$); }
    | error RECOVERED
        { yyerrok; $$ = build_error_member(p, @$); }
    ;

/* A keyword as an attribute or field name (`{ type: "x" }`, `x.input`); identifiers
 * are spelled out in the rules that take a name, one reduction fewer per name. */
attr_keyword
    : T_WORKFLOW            { $$ = build_keyword_name(p, KW_WORKFLOW); }
    | T_WORKER              { $$ = build_keyword_name(p, KW_WORKER); }
    | T_TYPE                { $$ = build_keyword_name(p, KW_TYPE); }
    | T_INPUT               { $$ = build_keyword_name(p, KW_INPUT); }
    | T_OUTPUT              { $$ = build_keyword_name(p, KW_OUTPUT); }
    | T_TIMEOUT             { $$ = build_keyword_name(p, KW_TIMEOUT); }
    | T_STEP                { $$ = build_keyword_name(p, KW_STEP); }
    | T_RETURN              { $$ = build_keyword_name(p, KW_RETURN); }
    | T_USING               { $$ = build_keyword_name(p, KW_USING); }
    | T_SLEEP               { $$ = build_keyword_name(p, KW_SLEEP); }
    | T_AWAIT               { $$ = build_keyword_name(p, KW_AWAIT); }
    | T_COMPUTE             { $$ = build_keyword_name(p, KW_COMPUTE); }
    | T_WITH                { $$ = build_keyword_name(p, KW_WITH); }
    | T_WHEN                { $$ = build_keyword_name(p, KW_WHEN); }
    | T_FOR                 { $$ = build_keyword_name(p, KW_FOR); }
    | T_IN                  { $$ = build_keyword_name(p, KW_IN); }
    | T_IDEMPOTENCY_KEY     { $$ = build_keyword_name(p, KW_IDEMPOTENCY_KEY); }
    | T_RETRY               { $$ = build_keyword_name(p, KW_RETRY); }
    | T_QUEUE_TIMEOUT       { $$ = build_keyword_name(p, KW_QUEUE_TIMEOUT); }
    | T_COMPENSATE          { $$ = build_keyword_name(p, KW_COMPENSATE); }
    | T_TRUE                { $$ = build_keyword_name(p, KW_TRUE); }
    | T_FALSE               { $$ = build_keyword_name(p, KW_FALSE); }
    | T_NULL                { $$ = build_keyword_name(p, KW_NULL); }
    ;

expr
    : expr QQ expr              { $$ = build_binary(p, OP_COALESCE, $1, $3); if (!$$) YYABORT; }
    | expr OROR expr            { $$ = build_binary(p, OP_OR, $1, $3); if (!$$) YYABORT; }
    | expr ANDAND expr          { $$ = build_binary(p, OP_AND, $1, $3); if (!$$) YYABORT; }
    | expr EQ expr              { $$ = build_binary(p, OP_EQ, $1, $3); if (!$$) YYABORT; }
    | expr NE expr              { $$ = build_binary(p, OP_NE, $1, $3); if (!$$) YYABORT; }
    | expr LT expr              { $$ = build_binary(p, OP_LT, $1, $3); if (!$$) YYABORT; }
    | expr LE expr              { $$ = build_binary(p, OP_LE, $1, $3); if (!$$) YYABORT; }
    | expr GT expr              { $$ = build_binary(p, OP_GT, $1, $3); if (!$$) YYABORT; }
    | expr GE expr              { $$ = build_binary(p, OP_GE, $1, $3); if (!$$) YYABORT; }
    | expr PLUS expr            { $$ = build_binary(p, OP_ADD, $1, $3); if (!$$) YYABORT; }
    | expr MINUS expr           { $$ = build_binary(p, OP_SUB, $1, $3); if (!$$) YYABORT; }
    | expr STAR expr            { $$ = build_binary(p, OP_MUL, $1, $3); if (!$$) YYABORT; }
    | expr SLASH expr           { $$ = build_binary(p, OP_DIV, $1, $3); if (!$$) YYABORT; }
    | expr PERCENT expr         { $$ = build_binary(p, OP_MOD, $1, $3); if (!$$) YYABORT; }
    | BANG expr                 { $$ = build_unary(p, OP_NOT, $2, @$); if (!$$) YYABORT; }
    | MINUS expr %prec UMINUS   { $$ = build_unary(p, OP_NEG, $2, @$); if (!$$) YYABORT; }
    | expr DOT IDENT            { $$ = build_field(p, $1, $3, @3, @$); if (!$$) YYABORT; }
    | expr DOT attr_keyword     { $$ = build_field(p, $1, $3.name, @3, @$); if (!$$) YYABORT; }
    | expr LBRACK expr RBRACK   { $$ = build_index(p, $1, $3, @$); if (!$$) YYABORT; }
    | expr LPAREN RPAREN        { $$ = build_call(p, $1, (ExprList){ 0, 0 }, @$); if (!$$) YYABORT; }
    | expr LPAREN args RPAREN   { $$ = build_call(p, $1, $3, @$); if (!$$) YYABORT; }
    | expr LPAREN args COMMA RPAREN
                                { $$ = build_call(p, $1, $3, @$); if (!$$) YYABORT; }
    | expr QUESTION             { $$ = build_optional(p, $1, @$); if (!$$) YYABORT; }
    /* Operands are alternatives of `expr` itself (no `primary` rule): one reduction fewer
     * per operand. */
    | INT                       { $$ = build_int(p, EXPR_INT, $1, @1); }
    | DURATION                  { $$ = build_int(p, EXPR_DURATION, $1, @1); }
    | NUMBER                    { $$ = build_number(p, $1, @1); }
    | STRING                    { $$ = build_string(p, $1, @1); }
    | T_TRUE                    { $$ = build_bool(p, true, @1); }
    | T_FALSE                   { $$ = build_bool(p, false, @1); }
    | T_NULL                    { $$ = build_null(p, @1); }
    | IDENT                     { $$ = build_name(p, $1, @1); }
    | T_INPUT                   { $$ = build_name(p, build_keyword_name(p, KW_INPUT).name, @1); }
    | LPAREN expr RPAREN        { $$ = $2; $$->span = build_span(p, @$); }
    | LBRACK RBRACK             { $$ = build_list(p, (ExprList){ 0, 0 }, @$); }
    | LBRACK args RBRACK        { $$ = build_list(p, $2, @$); if (!$$) YYABORT; }
    | LBRACK args COMMA RBRACK  { $$ = build_list(p, $2, @$); if (!$$) YYABORT; }
    | block                     { $$ = build_object(p, $1); if (!$$) YYABORT; }
    ;

/* Arguments and list elements, gathered on the parser's stack of elements until their
 * list closes (parse_build.c). */
args
    : expr                      { $$ = build_args_first(p, $1); }
    | args COMMA expr           { $$ = build_args_add(p, $1, $3); }
    ;

%%

static void yyerror(Loc *loc, Parser *p, const char *message)
{
    /* Only "memory exhausted" reaches here (syntax errors go to yyreport_syntax_error). */
    build_report_exhausted(p, *loc, message);
}

/* The token kind (parser.h) of a grammar symbol, for the messages of syntax_error.c. */
static int token_of_symbol(yysymbol_kind_t symbol)
{
    static int table[YYNTOKENS];
    static bool ready;
    if (!ready) {
        for (int t = 0; t <= YYMAXUTOK; t++) {
            yysymbol_kind_t s = YYTRANSLATE(t);
            if (s > YYSYMBOL_YYUNDEF && s < YYNTOKENS && table[s] == 0)
                table[s] = t;
        }
        ready = true;
    }
    if (symbol < 0 || symbol >= YYNTOKENS)
        return END;
    return table[symbol];
}

static int yyreport_syntax_error(const yypcontext_t *ctx, Parser *p)
{
    yysymbol_kind_t expected[YYNTOKENS];
    int count = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
    bool want[PARSER_TOKEN_LIMIT] = { false };
    for (int i = 0; i < count; i++) {
        int token = token_of_symbol(expected[i]);
        if (token >= 0 && token < PARSER_TOKEN_LIMIT)
            want[token] = true;
    }
    SyntaxError error = {
        .found = token_of_symbol(yypcontext_token(ctx)),
        .loc = *yypcontext_location(ctx),
        .want = want,
    };
    report_syntax_error(p, &error);
    lexer_recover(p->lx);
    return 0;
}

int parser_parse(Parser *p)
{
    return yyparse(p);
}
