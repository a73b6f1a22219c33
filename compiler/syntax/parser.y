/* The grammar of Orbit, for bison (docs/architecture.md, "Parser"; what it decides where
 * the language's design is silent: docs/language.md, "Source and tokens").
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

/* A location is a byte range of the file: two offsets. Whether a token was invented or
 * already reported by the lexer (then a syntax error on it is not reported again) is
 * asked of the lexer (lexer_token_is_quiet). */
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

/* The members of a block being parsed: where they wait (parse_build.h) and the height of
 * the tallest value or body among them, which becomes the block's. */
typedef struct MemberList {
    uint32_t height;
    PendingMembers pending;
} MemberList;

/* A semantic value, 16 bytes: where its symbol starts and ends, and what it holds. The
 * parser keeps no stack of locations (no `%locations`): a token's place is set by yylex,
 * and bison copies $1 into $$ before every action, so a nonterminal starts where its
 * first symbol does (error recovery reads that, see the %destructor below). A rule that
 * needs where a nonterminal ends reads it from the node the nonterminal built: every
 * node's span is the text of its rule.
 *
 * The lexer writes its tokens into a value of the same type kept in the Parser, where a
 * string's text and length (`string`, 16 bytes) overlay the place: yylex hands the parser
 * the place and an 8-byte payload, a string already made its node. A list of members
 * needs no place (nothing reads where `members` starts), so it overlays it too. */
typedef struct Value {
    union {
        struct {
            Loc loc;
            union {
                int64_t integer;
                double number;
                const Name *name;
                Keyword keyword;
                Expr *expr;
                Member *member;
                Block *block;
                ExprList list;
            };
        };
        String string;
        MemberList members;
    };
} Value;
_Static_assert(sizeof(Value) == 16, "a semantic value is copied on every shift and reduction");
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

static int yylex(YYSTYPE *value, Parser *p)
{
    int kind = lexer_next(p->lx, &p->token, &value->loc);
    if (kind == STRING)
        value->expr = ast_string(p, p->token.string, value->loc);
    else
        value->integer = p->token.integer;   /* whichever 8-byte payload the lexer set */
    return kind;
}

static void yyerror(Parser *p, const char *message);

/* Bison's token `error` takes its place from what error recovery popped (as
 * `%locations` would): the value it shifts is the lookahead's, whose start this moves
 * back to the start of each symbol popped, the last (lowest) of them winning. */
static void popped(Parser *p, Loc loc)
{
    if (p->lookahead)
        p->lookahead->loc.start = loc.start;
}

/* Deep enough for AST_MAX_DEPTH brackets, each holding a run of AST_MAX_DEPTH unary
 * operators and a full ladder of pending binary operators. */
#define YYMAXDEPTH 200000
#define YYINITDEPTH 512
}

%define api.pure full
%define api.token.raw
%define api.value.type {Value}
%define parse.error custom
%define lr.default-reduction consistent

%param {Parser *p}
/* The lookahead token's value (yylex writes there), for what reads it after a call. */
%initial-action { $$ = (YYSTYPE){ .loc = { 0, 0 } }; p->lookahead = &$$; }
%expect 0

/* What error recovery can pop at the bottom of what it pops (the symbols that begin a
 * member or a declaration), and the `error` token itself. */
%destructor { popped(p, $<loc>$); } error IDENT attr_keyword
    T_WORKFLOW T_WORKER T_TYPE T_INPUT T_OUTPUT T_TIMEOUT T_STEP T_RETURN T_USING T_SLEEP
    T_AWAIT T_COMPUTE T_WITH T_WHEN T_FOR T_IDEMPOTENCY_KEY T_RETRY T_QUEUE_TIMEOUT
    T_COMPENSATE

%token END 0 "end of file"
%token <integer> INT "integer"
%token <number> NUMBER "number"
%token <expr> STRING "string"
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

%type <member> member clause
%type <members> members
%type <block> block other_block
%type <expr> expr
%type <list> args
%type <keyword> attr_keyword
%type <loc> skipped

%%

file
    : top
    ;

/* The declarations are spelled out here rather than reduced to a nonterminal of their
 * own first: one reduction fewer per declaration. */
top
    : %empty
    | top T_WORKFLOW IDENT block
        { ast_add_decl(p, ast_decl(p, KW_WORKFLOW, $<loc>2, $3, $<loc>3, $4, $4->span.end)); }
    | top T_TYPE IDENT block
        { ast_add_decl(p, ast_decl(p, KW_TYPE, $<loc>2, $3, $<loc>3, $4, $4->span.end)); }
    | top T_WORKER STRING
        { ast_add_decl(p, ast_decl(p, KW_WORKER, $<loc>2, ast_string_name(p, $3), $<loc>3,
                                   NULL, ast_pos(p, $<loc>3.end))); }
    | top T_WORKER STRING block
        { ast_add_decl(p, ast_decl(p, KW_WORKER, $<loc>2, ast_string_name(p, $3), $<loc>3,
                                   $4, $4->span.end)); }
    | top IDENT IDENT block
        { ast_add_decl(p, ast_unknown_named(p, $2, $<loc>2, $3, $<loc>3, $4)); }
    | top IDENT STRING block
        { ast_add_decl(p, ast_unknown_named(p, $2, $<loc>2, ast_string_name(p, $3), $<loc>3,
                                            $4)); }
    | top T_WORKFLOW COLON IDENT block
        { ast_colon_after_keyword(p, KW_WORKFLOW, $<loc>3);
          ast_add_decl(p, ast_decl(p, KW_WORKFLOW, $<loc>2, $4, $<loc>4, $5, $5->span.end)); }
    | top T_TYPE COLON IDENT block
        { ast_colon_after_keyword(p, KW_TYPE, $<loc>3);
          ast_add_decl(p, ast_decl(p, KW_TYPE, $<loc>2, $4, $<loc>4, $5, $5->span.end)); }
    | top T_WORKER COLON STRING block
        { ast_colon_after_keyword(p, KW_WORKER, $<loc>3);
          ast_add_decl(p, ast_decl(p, KW_WORKER, $<loc>2, ast_string_name(p, $4), $<loc>4,
                                   $5, $5->span.end)); }
    | top NEWLINE
    | top COMMA
    | top SEMI
    | top skipped
    ;

/* A block's members wait on the parser's list until it closes (parse_build.h). The
 * separators around them are spelled out here rather than gathered in a list rule: one
 * reduction fewer per block, and one fewer for the separator that ends its last member.
 * The two usual shapes are spelled out in `expr` too (an object), one reduction fewer
 * per object; the others (`other_block`) are reduced to a block or an object. */
block
    : LBRACE members RBRACE                 { $$ = ast_block(p, $2, $<loc>1, $<loc>3); }
    | LBRACE members NEWLINE RBRACE         { $$ = ast_block(p, $2, $<loc>1, $<loc>4); }
    | other_block
    ;

other_block
    : LBRACE RBRACE                         { $$ = ast_block(p, (MemberList){ 0, { 0, 0 } }, $<loc>1, $<loc>2); }
    | LBRACE seps RBRACE                    { $$ = ast_block(p, (MemberList){ 0, { 0, 0 } }, $<loc>1, $<loc>3); }
    | LBRACE members COMMA RBRACE           { $$ = ast_block(p, $2, $<loc>1, $<loc>4); }
    | LBRACE members SEMI RBRACE            { $$ = ast_block(p, $2, $<loc>1, $<loc>4); }
    | LBRACE members seps NEWLINE RBRACE    { $$ = ast_block(p, $2, $<loc>1, $<loc>5); }
    | LBRACE members seps COMMA RBRACE      { $$ = ast_block(p, $2, $<loc>1, $<loc>5); }
    | LBRACE members seps SEMI RBRACE       { $$ = ast_block(p, $2, $<loc>1, $<loc>5); }
    | LBRACE seps members RBRACE            { $$ = ast_block(p, $3, $<loc>1, $<loc>4); }
    | LBRACE seps members NEWLINE RBRACE    { $$ = ast_block(p, $3, $<loc>1, $<loc>5); }
    | LBRACE seps members COMMA RBRACE      { $$ = ast_block(p, $3, $<loc>1, $<loc>5); }
    | LBRACE seps members SEMI RBRACE       { $$ = ast_block(p, $3, $<loc>1, $<loc>5); }
    | LBRACE seps members seps NEWLINE RBRACE   { $$ = ast_block(p, $3, $<loc>1, $<loc>6); }
    | LBRACE seps members seps COMMA RBRACE     { $$ = ast_block(p, $3, $<loc>1, $<loc>6); }
    | LBRACE seps members seps SEMI RBRACE      { $$ = ast_block(p, $3, $<loc>1, $<loc>6); }
    ;

/* A member after a single separator, the common case, takes no reduction of `seps`:
 * the separator is part of the rule. An attribute keyed by an identifier, the most
 * common member, is spelled out here rather than reduced to `member` first: one
 * reduction fewer per attribute. So are the clauses (`clause`) where they are usually
 * written, first in their block or after a newline; after another separator they are
 * reduced to `clause` first. (A clause cannot be both spelled out and reached through
 * `clause` after the same separator: the two reductions would conflict.) */
members
    : member                { $$ = ast_members_first(p, $1); }
    | IDENT COLON expr
        { $$ = ast_members_first(p, ast_attr(p, ast_ident_name($1), $<loc>1, $<loc>2, $3)); }
    | T_STEP IDENT block
        { $$ = ast_members_first(p, ast_named_clause(p, KW_STEP, $<loc>1, $2, $<loc>2, $3)); }
    | T_FOR IDENT T_IN expr
        { $$ = ast_members_first(p, ast_for(p, $<loc>1, $2, $<loc>2, $4)); }
    | T_RETRY block
        { $$ = ast_members_first(p, ast_block_clause(p, KW_RETRY, $<loc>1, $2)); }
    | T_COMPENSATE block
        { $$ = ast_members_first(p, ast_block_clause(p, KW_COMPENSATE, $<loc>1, $2)); }
    | T_WORKFLOW expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_WORKFLOW, $<loc>1, $2)); }
    | T_WORKER expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_WORKER, $<loc>1, $2)); }
    | T_USING expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_USING, $<loc>1, $2)); }
    | T_SLEEP expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_SLEEP, $<loc>1, $2)); }
    | T_AWAIT expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_AWAIT, $<loc>1, $2)); }
    | T_COMPUTE expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_COMPUTE, $<loc>1, $2)); }
    | T_WITH expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_WITH, $<loc>1, $2)); }
    | T_WHEN expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_WHEN, $<loc>1, $2)); }
    | T_TIMEOUT expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_TIMEOUT, $<loc>1, $2)); }
    | T_QUEUE_TIMEOUT expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_QUEUE_TIMEOUT, $<loc>1, $2)); }
    | T_IDEMPOTENCY_KEY expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_IDEMPOTENCY_KEY, $<loc>1, $2)); }
    | T_INPUT expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_INPUT, $<loc>1, $2)); }
    | T_OUTPUT expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_OUTPUT, $<loc>1, $2)); }
    | T_RETURN expr
        { $$ = ast_members_first(p, ast_value_clause(p, KW_RETURN, $<loc>1, $2)); }
    | members NEWLINE member    { $$ = ast_members_add(p, $1, $3); }
    | members NEWLINE IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($3), $<loc>3, $<loc>4, $5)); }
    | members NEWLINE T_STEP IDENT other_block
        { $$ = ast_members_add(p, $1, ast_named_clause(p, KW_STEP, $<loc>3, $4, $<loc>4, $5)); }
    | members NEWLINE T_STEP IDENT LBRACE members RBRACE
        { $$ = ast_members_add(p, $1, ast_named_clause(p, KW_STEP, $<loc>3, $4, $<loc>4,
                                                       ast_block(p, $6, $<loc>5, $<loc>7))); }
    | members NEWLINE T_STEP IDENT LBRACE members NEWLINE RBRACE
        { $$ = ast_members_add(p, $1, ast_named_clause(p, KW_STEP, $<loc>3, $4, $<loc>4,
                                                       ast_block(p, $6, $<loc>5, $<loc>8))); }
    | members NEWLINE T_FOR IDENT T_IN expr
        { $$ = ast_members_add(p, $1, ast_for(p, $<loc>3, $4, $<loc>4, $6)); }
    | members NEWLINE T_RETRY other_block
        { $$ = ast_members_add(p, $1, ast_block_clause(p, KW_RETRY, $<loc>3, $4)); }
    | members NEWLINE T_RETRY LBRACE members RBRACE
        { $$ = ast_members_add(p, $1, ast_block_clause(p, KW_RETRY, $<loc>3,
                                                       ast_block(p, $5, $<loc>4, $<loc>6))); }
    | members NEWLINE T_RETRY LBRACE members NEWLINE RBRACE
        { $$ = ast_members_add(p, $1, ast_block_clause(p, KW_RETRY, $<loc>3,
                                                       ast_block(p, $5, $<loc>4, $<loc>7))); }
    | members NEWLINE T_COMPENSATE block
        { $$ = ast_members_add(p, $1, ast_block_clause(p, KW_COMPENSATE, $<loc>3, $4)); }
    | members NEWLINE T_WORKFLOW expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_WORKFLOW, $<loc>3, $4)); }
    | members NEWLINE T_WORKER expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_WORKER, $<loc>3, $4)); }
    | members NEWLINE T_USING expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_USING, $<loc>3, $4)); }
    | members NEWLINE T_SLEEP expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_SLEEP, $<loc>3, $4)); }
    | members NEWLINE T_AWAIT expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_AWAIT, $<loc>3, $4)); }
    | members NEWLINE T_COMPUTE expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_COMPUTE, $<loc>3, $4)); }
    | members NEWLINE T_WITH expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_WITH, $<loc>3, $4)); }
    | members NEWLINE T_WHEN expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_WHEN, $<loc>3, $4)); }
    | members NEWLINE T_TIMEOUT expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_TIMEOUT, $<loc>3, $4)); }
    | members NEWLINE T_QUEUE_TIMEOUT expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_QUEUE_TIMEOUT, $<loc>3, $4)); }
    | members NEWLINE T_IDEMPOTENCY_KEY expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_IDEMPOTENCY_KEY, $<loc>3, $4)); }
    | members NEWLINE T_INPUT expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_INPUT, $<loc>3, $4)); }
    | members NEWLINE T_OUTPUT expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_OUTPUT, $<loc>3, $4)); }
    | members NEWLINE T_RETURN expr
        { $$ = ast_members_add(p, $1, ast_value_clause(p, KW_RETURN, $<loc>3, $4)); }
    | members COMMA member      { $$ = ast_members_add(p, $1, $3); }
    | members COMMA clause      { $$ = ast_members_add(p, $1, $3); }
    | members COMMA IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($3), $<loc>3, $<loc>4, $5)); }
    | members SEMI member      { $$ = ast_members_add(p, $1, $3); }
    | members SEMI clause      { $$ = ast_members_add(p, $1, $3); }
    | members SEMI IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($3), $<loc>3, $<loc>4, $5)); }
    | members seps NEWLINE member   { $$ = ast_members_add(p, $1, $4); }
    | members seps NEWLINE clause   { $$ = ast_members_add(p, $1, $4); }
    | members seps NEWLINE IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($4), $<loc>4, $<loc>5, $6)); }
    | members seps COMMA member   { $$ = ast_members_add(p, $1, $4); }
    | members seps COMMA clause   { $$ = ast_members_add(p, $1, $4); }
    | members seps COMMA IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($4), $<loc>4, $<loc>5, $6)); }
    | members seps SEMI member   { $$ = ast_members_add(p, $1, $4); }
    | members seps SEMI clause   { $$ = ast_members_add(p, $1, $4); }
    | members seps SEMI IDENT COLON expr
        { $$ = ast_members_add(p, $1, ast_attr(p, ast_ident_name($4), $<loc>4, $<loc>5, $6)); }
    | members skipped       { $$ = $1; }
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

/* The members that are not spelled out in `members`: attributes keyed or written
 * otherwise, unknown words, and what error recovery skipped. */
member
    : IDENT ASSIGN expr
        { $$ = ast_assign_attr(p, ast_ident_name($1), $<loc>1, $<loc>2, $3); }
    | attr_keyword COLON expr
        { $$ = ast_attr(p, ast_keyword_name(p, $1), $<loc>1, $<loc>2, $3); }
    | attr_keyword ASSIGN expr
        { $$ = ast_assign_attr(p, ast_keyword_name(p, $1), $<loc>1, $<loc>2, $3); }
    | T_STEP attr_keyword block
        /* A keyword is accepted as a name here so that the checker can say why it is
         * not allowed (E0207) instead of a bare syntax error. */
        { $$ = ast_named_clause(p, KW_STEP, $<loc>1, ast_keyword_name(p, $2).name, $<loc>2, $3); }
    | IDENT expr
        { $$ = ast_unknown_clause(p, $1, $<loc>1, $2); }
    | IDENT
        /* Read before the separator or `}` after it (yychar, the lookahead). */
        { $$ = ast_bare_word(p, $1, $<loc>1, yychar, yylval.loc); }
    | IDENT IDENT block
        { $$ = ast_unknown_named(p, $1, $<loc>1, $2, $<loc>2, $3); }
    | IDENT STRING block
        { $$ = ast_unknown_named(p, $1, $<loc>1, ast_string_name(p, $2), $<loc>2, $3); }
    | skipped               { $$ = ast_error_member(p, $1); }
    ;

/* Each clause keyword with its value is a rule of its own rather than going through a
 * rule for the keyword: one reduction fewer per clause. The same rules are spelled out
 * in `members`. */
clause
    : T_STEP IDENT block
        { $$ = ast_named_clause(p, KW_STEP, $<loc>1, $2, $<loc>2, $3); }
    | T_FOR IDENT T_IN expr
        { $$ = ast_for(p, $<loc>1, $2, $<loc>2, $4); }
    | T_RETRY block
        { $$ = ast_block_clause(p, KW_RETRY, $<loc>1, $2); }
    | T_COMPENSATE block
        { $$ = ast_block_clause(p, KW_COMPENSATE, $<loc>1, $2); }
    | T_WORKFLOW expr        { $$ = ast_value_clause(p, KW_WORKFLOW, $<loc>1, $2); }
    | T_WORKER expr          { $$ = ast_value_clause(p, KW_WORKER, $<loc>1, $2); }
    | T_USING expr           { $$ = ast_value_clause(p, KW_USING, $<loc>1, $2); }
    | T_SLEEP expr           { $$ = ast_value_clause(p, KW_SLEEP, $<loc>1, $2); }
    | T_AWAIT expr           { $$ = ast_value_clause(p, KW_AWAIT, $<loc>1, $2); }
    | T_COMPUTE expr         { $$ = ast_value_clause(p, KW_COMPUTE, $<loc>1, $2); }
    | T_WITH expr            { $$ = ast_value_clause(p, KW_WITH, $<loc>1, $2); }
    | T_WHEN expr            { $$ = ast_value_clause(p, KW_WHEN, $<loc>1, $2); }
    | T_TIMEOUT expr         { $$ = ast_value_clause(p, KW_TIMEOUT, $<loc>1, $2); }
    | T_QUEUE_TIMEOUT expr   { $$ = ast_value_clause(p, KW_QUEUE_TIMEOUT, $<loc>1, $2); }
    | T_IDEMPOTENCY_KEY expr { $$ = ast_value_clause(p, KW_IDEMPOTENCY_KEY, $<loc>1, $2); }
    | T_INPUT expr           { $$ = ast_value_clause(p, KW_INPUT, $<loc>1, $2); }
    | T_OUTPUT expr          { $$ = ast_value_clause(p, KW_OUTPUT, $<loc>1, $2); }
    | T_RETURN expr          { $$ = ast_value_clause(p, KW_RETURN, $<loc>1, $2); }
    ;

/* What error recovery skipped: from where the failed member or declaration started (or
 * the token that failed, see popped()) to the lexer's RECOVERED token. */
skipped
    : error RECOVERED       { yyerrok; $$ = (Loc){ $<loc>1.start, $<loc>2.end }; }
    ;

/* A keyword as an attribute or field name (`{ type: "x" }`, `x.input`); identifiers
 * are spelled out in the rules that take a name, one reduction fewer per name. (Bison
 * copies the keyword's place into $$ already; saying so names the token's value, which
 * bison wants used since the token has a destructor.) */
attr_keyword
    : T_WORKFLOW            { $$ = KW_WORKFLOW; $<loc>$ = $<loc>1; }
    | T_WORKER              { $$ = KW_WORKER; $<loc>$ = $<loc>1; }
    | T_TYPE                { $$ = KW_TYPE; $<loc>$ = $<loc>1; }
    | T_INPUT               { $$ = KW_INPUT; $<loc>$ = $<loc>1; }
    | T_OUTPUT              { $$ = KW_OUTPUT; $<loc>$ = $<loc>1; }
    | T_TIMEOUT             { $$ = KW_TIMEOUT; $<loc>$ = $<loc>1; }
    | T_STEP                { $$ = KW_STEP; $<loc>$ = $<loc>1; }
    | T_RETURN              { $$ = KW_RETURN; $<loc>$ = $<loc>1; }
    | T_USING               { $$ = KW_USING; $<loc>$ = $<loc>1; }
    | T_SLEEP               { $$ = KW_SLEEP; $<loc>$ = $<loc>1; }
    | T_AWAIT               { $$ = KW_AWAIT; $<loc>$ = $<loc>1; }
    | T_COMPUTE             { $$ = KW_COMPUTE; $<loc>$ = $<loc>1; }
    | T_WITH                { $$ = KW_WITH; $<loc>$ = $<loc>1; }
    | T_WHEN                { $$ = KW_WHEN; $<loc>$ = $<loc>1; }
    | T_FOR                 { $$ = KW_FOR; $<loc>$ = $<loc>1; }
    | T_IN                  { $$ = KW_IN; $<loc>$ = $<loc>1; }
    | T_IDEMPOTENCY_KEY     { $$ = KW_IDEMPOTENCY_KEY; $<loc>$ = $<loc>1; }
    | T_RETRY               { $$ = KW_RETRY; $<loc>$ = $<loc>1; }
    | T_QUEUE_TIMEOUT       { $$ = KW_QUEUE_TIMEOUT; $<loc>$ = $<loc>1; }
    | T_COMPENSATE          { $$ = KW_COMPENSATE; $<loc>$ = $<loc>1; }
    | T_TRUE                { $$ = KW_TRUE; $<loc>$ = $<loc>1; }
    | T_FALSE               { $$ = KW_FALSE; $<loc>$ = $<loc>1; }
    | T_NULL                { $$ = KW_NULL; $<loc>$ = $<loc>1; }
    ;

expr
    : expr QQ expr              { $$ = ast_binary(p, OP_COALESCE, $1, $3); if (!$$) YYABORT; }
    | expr OROR expr            { $$ = ast_binary(p, OP_OR, $1, $3); if (!$$) YYABORT; }
    | expr ANDAND expr          { $$ = ast_binary(p, OP_AND, $1, $3); if (!$$) YYABORT; }
    | expr EQ expr              { $$ = ast_binary(p, OP_EQ, $1, $3); if (!$$) YYABORT; }
    | expr NE expr              { $$ = ast_binary(p, OP_NE, $1, $3); if (!$$) YYABORT; }
    | expr LT expr              { $$ = ast_binary(p, OP_LT, $1, $3); if (!$$) YYABORT; }
    | expr LE expr              { $$ = ast_binary(p, OP_LE, $1, $3); if (!$$) YYABORT; }
    | expr GT expr              { $$ = ast_binary(p, OP_GT, $1, $3); if (!$$) YYABORT; }
    | expr GE expr              { $$ = ast_binary(p, OP_GE, $1, $3); if (!$$) YYABORT; }
    | expr PLUS expr            { $$ = ast_binary(p, OP_ADD, $1, $3); if (!$$) YYABORT; }
    | expr MINUS expr           { $$ = ast_binary(p, OP_SUB, $1, $3); if (!$$) YYABORT; }
    | expr STAR expr            { $$ = ast_binary(p, OP_MUL, $1, $3); if (!$$) YYABORT; }
    | expr SLASH expr           { $$ = ast_binary(p, OP_DIV, $1, $3); if (!$$) YYABORT; }
    | expr PERCENT expr         { $$ = ast_binary(p, OP_MOD, $1, $3); if (!$$) YYABORT; }
    | BANG expr                 { $$ = ast_unary(p, OP_NOT, $<loc>1, $2); if (!$$) YYABORT; }
    | MINUS expr %prec UMINUS   { $$ = ast_unary(p, OP_NEG, $<loc>1, $2); if (!$$) YYABORT; }
    | expr DOT IDENT            { $$ = ast_field(p, $1, $3, $<loc>3); if (!$$) YYABORT; }
    | expr DOT attr_keyword     { $$ = ast_field(p, $1, ast_keyword_name(p, $3).name, $<loc>3); if (!$$) YYABORT; }
    | expr LBRACK expr RBRACK   { $$ = ast_index(p, $1, $3, $<loc>4); if (!$$) YYABORT; }
    | expr LPAREN RPAREN        { $$ = ast_call(p, $1, (ExprList){ 0, 0 }, $<loc>3); if (!$$) YYABORT; }
    | expr LPAREN args RPAREN   { $$ = ast_call(p, $1, $3, $<loc>4); if (!$$) YYABORT; }
    | expr LPAREN args COMMA RPAREN
                                { $$ = ast_call(p, $1, $3, $<loc>5); if (!$$) YYABORT; }
    | expr QUESTION             { $$ = ast_optional(p, $1, $<loc>2); if (!$$) YYABORT; }
    /* Operands are alternatives of `expr` itself (no `primary` rule): one reduction fewer
     * per operand. */
    | INT                       { $$ = ast_int(p, EXPR_INT, $1, $<loc>1); }
    | DURATION                  { $$ = ast_int(p, EXPR_DURATION, $1, $<loc>1); }
    | NUMBER                    { $$ = ast_number(p, $1, $<loc>1); }
    | STRING                    /* made its node by yylex */
    | T_TRUE                    { $$ = ast_bool(p, true, $<loc>1); }
    | T_FALSE                   { $$ = ast_bool(p, false, $<loc>1); }
    | T_NULL                    { $$ = ast_null(p, $<loc>1); }
    | IDENT                     { $$ = ast_name(p, $1, $<loc>1); }
    | T_INPUT                   { $$ = ast_name(p, ast_keyword_name(p, KW_INPUT).name, $<loc>1); }
    | LPAREN expr RPAREN        { $$ = $2; $$->span = ast_span(p, (Loc){ $<loc>1.start, $<loc>3.end }); }
    | LBRACK RBRACK             { $$ = ast_list(p, (ExprList){ 0, 0 }, $<loc>1, $<loc>2); }
    | LBRACK args RBRACK        { $$ = ast_list(p, $2, $<loc>1, $<loc>3); if (!$$) YYABORT; }
    | LBRACK args COMMA RBRACK  { $$ = ast_list(p, $2, $<loc>1, $<loc>4); if (!$$) YYABORT; }
    | LBRACE members RBRACE
        { $$ = ast_object(p, ast_block(p, $2, $<loc>1, $<loc>3)); if (!$$) YYABORT; }
    | LBRACE members NEWLINE RBRACE
        { $$ = ast_object(p, ast_block(p, $2, $<loc>1, $<loc>4)); if (!$$) YYABORT; }
    | other_block               { $$ = ast_object(p, $1); if (!$$) YYABORT; }
    ;

/* Arguments and list elements, gathered on the parser's stack of elements until their
 * list closes (parse_build.c). */
args
    : expr                      { $$ = ast_args_first(p, $1); }
    | args COMMA expr           { $$ = ast_args_add(p, $1, $3); }
    ;

%%

static void yyerror(Parser *p, const char *message)
{
    /* Only "memory exhausted" reaches here (syntax errors go to yyreport_syntax_error). */
    ast_report_exhausted(p, p->lookahead ? p->lookahead->loc : (Loc){ 0, 0 }, message);
}

/* The token kind (parser.h) of each grammar symbol, for the messages of syntax_error.c:
 * built on the stack for each syntax error (a few hundred steps), so that parsers on
 * several threads share no table. */
static void token_table(int table[YYNTOKENS])
{
    memset(table, 0, YYNTOKENS * sizeof *table);
    for (int t = 0; t <= YYMAXUTOK; t++) {
        yysymbol_kind_t s = YYTRANSLATE(t);
        if (s > YYSYMBOL_YYUNDEF && s < YYNTOKENS && table[s] == 0)
            table[s] = t;
    }
}

static int token_of_symbol(const int table[YYNTOKENS], yysymbol_kind_t symbol)
{
    if (symbol < 0 || symbol >= YYNTOKENS)
        return END;
    return table[symbol];
}

static int yyreport_syntax_error(const yypcontext_t *ctx, Parser *p)
{
    yysymbol_kind_t expected[YYNTOKENS];
    int table[YYNTOKENS];
    token_table(table);
    int count = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
    bool want[PARSER_TOKEN_LIMIT] = { false };
    for (int i = 0; i < count; i++) {
        int token = token_of_symbol(table, expected[i]);
        if (token >= 0 && token < PARSER_TOKEN_LIMIT)
            want[token] = true;
    }
    SyntaxError error = {
        .found = token_of_symbol(table, yypcontext_token(ctx)),
        .loc = p->lookahead->loc,
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
