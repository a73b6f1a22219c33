/* The syntax tree. The parser builds it generically: a block is a list of members, and a
 * member is either an attribute (`name: value`) or a clause (`keyword [name] [value]
 * [block]`). The checker decides which members a block may hold; that is what makes
 * "unknown retry setting `backof`" and E0307 possible without grammar special cases.
 *
 * Every node carries the byte range it covers. All nodes live in the compiler's arena. */
#ifndef ORBIT_AST_H
#define ORBIT_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "source.h"

typedef struct Expr Expr;
typedef struct Member Member;
typedef struct Block Block;

/* Reserved words (docs/language.md, "Keywords as names"). Words such as `attempts`,
 * `fixed` or `exponential` are ordinary identifiers that the checker interprets. */
typedef enum Keyword {
    KW_NONE = 0,
    KW_WORKFLOW, KW_WORKER, KW_TYPE,
    KW_INPUT, KW_OUTPUT, KW_TIMEOUT, KW_STEP, KW_RETURN,
    KW_USING, KW_SLEEP, KW_AWAIT, KW_COMPUTE,
    KW_WITH, KW_WHEN, KW_FOR, KW_IN, KW_IDEMPOTENCY_KEY,
    KW_RETRY, KW_QUEUE_TIMEOUT, KW_COMPENSATE,
    KW_TRUE, KW_FALSE, KW_NULL,
    KW_COUNT
} Keyword;

/* The keyword's spelling, e.g. "queue_timeout"; "" for KW_NONE. */
const char *keyword_text(Keyword kw);

/* Whether the keyword names a member of a block of clauses (`timeout`, `retry`,
 * `worker`…); false for `true`, `false`, `null`, `in` and `type`. Inline, as a bit set:
 * the checker asks it of every member it looks at. */
static inline bool keyword_is_member(Keyword kw)
{
    const uint32_t not_members = 1u << KW_NONE | 1u << KW_TRUE | 1u << KW_FALSE |
                                 1u << KW_NULL | 1u << KW_IN | 1u << KW_TYPE;
    _Static_assert(KW_COUNT <= 32, "keywords fit a 32-bit set");
    return (unsigned)kw < KW_COUNT && !((not_members >> kw) & 1);
}

typedef enum ExprKind {
    EXPR_ERROR,      /* stands in for an expression that failed to parse; already reported,
                        so later passes must accept it silently (no cascades) */
    EXPR_INT,        /* integer: .integer */
    EXPR_NUMBER,     /* floating point: .number */
    EXPR_STRING,     /* string literal, escapes decoded: .text, .len (UTF-8, may contain NUL) */
    EXPR_DURATION,   /* duration literal in milliseconds: .integer */
    EXPR_BOOL,       /* true/false: .boolean */
    EXPR_NULL,
    EXPR_NAME,       /* identifier, including `input`: .name */
    EXPR_LIST,       /* [a, b]: .elems, .count */
    EXPR_OBJECT,     /* { k: v, ... }: .block (members are attributes) */
    EXPR_UNARY,      /* .op (OP_NOT, OP_NEG), .left */
    EXPR_BINARY,     /* .op, .left, .right */
    EXPR_FIELD,      /* .left '.' .field (expr_field_span() is the name after the dot) */
    EXPR_INDEX,      /* .left '[' .right ']' */
    EXPR_CALL,       /* .left '(' .elems ')', .count arguments */
    EXPR_OPTIONAL,   /* .left '?' : type syntax, `bool?` */
} ExprKind;

/* The operators of expressions, one row each: the name of its Op and the instruction that
 * evaluates it (bytecode/ops.def, whose symbol is the operator's spelling in messages and
 * in the formatter): a plain one (pops its operands, pushes the result) or, for `??`, `||`
 * and `&&`, the conditional jump that skips the right operand. Binary operators from the
 * loosest, then the unary ones; what cannot be derived from here is the token (lexer.re),
 * the grammar rule with its precedence (parser.y) and the typing rule (check_types.c). */
#define AST_OPERATORS(X)              \
    X(COALESCE, JUMP_IF_NOT_NULL)     \
    X(OR,       JUMP_IF_TRUE)         \
    X(AND,      JUMP_IF_FALSE)        \
    X(EQ,       EQ)                   \
    X(NE,       NE)                   \
    X(LT,       LT)                   \
    X(LE,       LE)                   \
    X(GT,       GT)                   \
    X(GE,       GE)                   \
    X(ADD,      ADD)                  \
    X(SUB,      SUB)                  \
    X(MUL,      MUL)                  \
    X(DIV,      DIV)                  \
    X(MOD,      MOD)                  \
    X(NOT,      NOT)                  \
    X(NEG,      NEG)

typedef enum Op {
    OP_NONE,
#define AST_OP_ENUM(name, instruction) OP_##name,
    AST_OPERATORS(AST_OP_ENUM)
#undef AST_OP_ENUM
} Op;

/* The instruction that evaluates the operator (AST_OPERATORS); 0, no instruction, for
 * OP_NONE. */
uint8_t ast_op_instruction(Op op);
/* The operator's spelling, e.g. "??": its instruction's symbol in ops.def. */
const char *ast_op_text(Op op);

/* The parser's view of a list or argument list under construction: its elements are
 * Parser.args[base, base + count) (parse_build.c). */
typedef struct ExprList {
    uint32_t base;
    uint32_t count;
} ExprList;

/* The same for the members of a block under construction: Parser.members[base, base +
 * count) (parse_build.h). */
typedef struct PendingMembers {
    uint32_t base;
    uint32_t count;
} PendingMembers;

typedef struct String {
    const char *text;  /* NUL-terminated, but may also contain NUL */
    uint32_t len;
} String;

/* 40 bytes, 32 for a leaf: the kind, operator, reference and height share one word; the
 * payloads of the kinds share a pointer-sized union (`right` included: only EXPR_BINARY
 * and EXPR_INDEX have a second operand) and a 32-bit one (a string's length, a list's
 * count, a name's reference index, a field name's start). A field access ends where its
 * field name ends, so only the name's start is kept (expr_field_span() rebuilds the
 * span). A call's reference index is kept on its callee, the EXPR_NAME in .left. Lists
 * and argument lists are arrays, so a node needs no link to a next element.
 *
 * The operand, .left, comes last, and a node of a kind without one (expr_has_left()
 * false: literals, names, lists, objects) is made without it, EXPR_LEAF_SIZE bytes: two
 * nodes in three are such leaves. Never read .left of a leaf; a walker tests the kind
 * first (the sanitizer build makes the missing field unreadable, parse_build.c). */
struct Expr {
    ExprKind kind : 8;   /* a whole byte, and the height two: read and written without
                            masking */
    Op op : 5;
    unsigned ref : 3;    /* checker: EXPR_NAME, EXPR_CALL: what the name refers to (ExprRef) */
    unsigned depth : 16; /* parser: height of this expression tree, at most
                            PARSE_MAX_EXPR_DEPTH + 1 (see parse_build.c) */
    Span span;           /* the whole expression */
    union {
        uint32_t len;              /* EXPR_STRING: bytes of .text */
        uint32_t count;            /* EXPR_LIST elements, EXPR_CALL arguments */
        uint32_t ref_index;        /* EXPR_NAME: checker: e.g. the step or built-in
                                      function the name refers to */
        uint32_t field_start;      /* EXPR_FIELD: where the field name starts; it ends
                                      with .span */
    };
    union {
        int64_t integer;           /* EXPR_INT, EXPR_DURATION (ms) */
        double number;             /* EXPR_NUMBER */
        bool boolean;              /* EXPR_BOOL */
        const char *text;          /* EXPR_STRING: NUL-terminated, but may contain NUL */
        Block *block;              /* EXPR_OBJECT */
        Expr **elems;              /* EXPR_LIST elements, EXPR_CALL arguments: .count */
        Expr *right;               /* EXPR_BINARY, EXPR_INDEX: second operand, index */
        const Name *name;          /* EXPR_NAME */
        const Name *field;         /* EXPR_FIELD */
    };
    /* Filled in by the checker (program.h defines the meanings): */
    const struct Type *type;   /* static type; NULL until checked */

    Expr *left;          /* operand, object, callee: only when expr_has_left(kind) */
};

/* The size of a node without .left. */
#define EXPR_LEAF_SIZE offsetof(Expr, left)

/* Whether nodes of `kind` have an operand, .left (and are sizeof(Expr) bytes). */
static inline bool expr_has_left(ExprKind kind)
{
    return kind == EXPR_UNARY || kind == EXPR_BINARY || kind == EXPR_FIELD ||
           kind == EXPR_INDEX || kind == EXPR_CALL || kind == EXPR_OPTIONAL;
}

/* The sub-expressions of `e`, in source order: a call's callee then its arguments, a
 * list's elements, the operands of the other kinds with operands; none for leaves and
 * for objects, whose members are in .block. The one description of an expression's
 * children: every walker over expressions uses it (compiler/check/suppress.c,
 * lsp/query.c, lsp/actions.c, tools/fmt_properties.c). A child may be NULL. */
static inline uint32_t expr_child_count(const Expr *e)
{
    switch (e->kind) {
    case EXPR_LIST:
        return e->count;
    case EXPR_CALL:
        return e->count + 1;
    case EXPR_BINARY: case EXPR_INDEX:
        return 2;
    case EXPR_UNARY: case EXPR_FIELD: case EXPR_OPTIONAL:
        return 1;
    default:
        return 0;
    }
}

/* The child `i` (< expr_child_count(e)) of `e`. */
static inline Expr *expr_child(const Expr *e, uint32_t i)
{
    switch (e->kind) {
    case EXPR_LIST:
        return e->elems[i];
    case EXPR_CALL:
        return i == 0 ? e->left : e->elems[i - 1];
    case EXPR_BINARY: case EXPR_INDEX:
        return i == 0 ? e->left : e->right;
    default:
        return e->left;
    }
}

/* EXPR_STRING: the decoded value. */
static inline String expr_string(const Expr *e)
{
    String s = { e->text, e->len };
    return s;
}

/* EXPR_FIELD: the field name after the dot. */
static inline Span expr_field_span(const Expr *e)
{
    return span_make(e->field_start, e->span.end);
}

typedef enum MemberKind {
    MEMBER_ATTR,     /* name ':' value. `name` may be a keyword (then .keyword is set):
                        { type: "x" } is a valid object; in a step, `retry: {…}` or
                        `timeout: 5s` is a clause written with a colon, which the checker
                        reports (E0410 for retry/timeout/queue_timeout) and then checks as
                        the clause, so it does not cascade. */
    MEMBER_CLAUSE,   /* keyword [name] [value] [body], see the table below */
    MEMBER_ERROR,    /* a member that failed to parse; already reported */
} MemberKind;

/* Clause shapes produced by the parser:
 *
 *   keyword          name            value           body
 *   KW_WORKFLOW      NAME            -               block      top-level declaration
 *   KW_WORKFLOW      -               expr (NAME)     -          step action: workflow pack_items
 *   KW_WORKER        "dotted.name"   -               block/NULL top-level declaration
 *                                                               (name = string contents)
 *   KW_WORKER        -               expr (STRING)   -          step action
 *   KW_TYPE          NAME            -               block      top-level declaration
 *   KW_STEP          NAME            -               block
 *   KW_FOR           NAME (variable) expr            -          for NAME in EXPR
 *   KW_RETRY         -               -               block
 *   KW_COMPENSATE    -               -               block
 *   any other        -               expr            -          using, sleep, await, compute,
 *                                                               with, when, timeout,
 *                                                               queue_timeout,
 *                                                               idempotency_key, input,
 *                                                               output, return
 *   KW_NONE          NAME/"string"   -               block      an unknown word used like a
 *   KW_NONE          -               expr            -          clause: .key is the word.
 *       `workfow checkout { … }`, `retries { attempts: 3 }`, `timout 10s`, and the standard
 *       library's own declarations (`builtin "orbit.http.request" { … }`). The parser
 *       accepts them; the checker reports unknown words with a did-you-mean.
 */
/* 48 bytes: the spans inside a member are kept as positions (member_key_span() and
 * friends rebuild them; the key starts the member), the colon of an attribute shares
 * room with the unknown word of a clause, and the value and the body share one slot,
 * since no member has both (the table above): they are read with member_value() and
 * member_body(), written with member_set_value() and member_set_body(). A block's
 * members are an array (Block), so a member needs no link to the next one. */
struct Member {
    MemberKind kind : 8;
    Keyword keyword : 8; /* the clause keyword, or the attribute's name if it is a keyword */
    bool assign : 1;     /* MEMBER_ATTR written `name = value` (already reported, E0002) */
    bool has_body : 1;   /* .held is a body, else a value (or nothing) */
    Span span;           /* the whole member */
    uint32_t key_end;    /* the keyword, or the attribute name, starts the member and
                            ends here */
    uint32_t name_start, name_end;   /* the declared name, step name, for variable; for
                                        an attribute, its name */
    union {
        struct {                     /* MEMBER_ATTR: the ':' */
            uint32_t colon_start, colon_end;
        };
        const Name *key;             /* MEMBER_CLAUSE with KW_NONE: the unknown word (at
                                        the key span); NULL otherwise */
    };
    const Name *name;    /* attribute name; declared name; step name; for variable */
    union {
        Expr *value;     /* an attribute's value, a clause's expression */
        Block *body;     /* a clause's block: when .has_body */
    } held;
};

/* The member's value, or NULL (a member with a body has none). */
static inline Expr *member_value(const Member *m)
{
    return m->has_body ? NULL : m->held.value;
}

/* The member's body, or NULL (a member with a value has none). */
static inline Block *member_body(const Member *m)
{
    return m->has_body ? m->held.body : NULL;
}

/* Gives the member the value `value` (NULL: none) in place of its value or body. */
static inline void member_set_value(Member *m, Expr *value)
{
    m->has_body = false;
    m->held.value = value;
}

/* Gives the member the body `body` (NULL: none) in place of its value or body. */
static inline void member_set_body(Member *m, Block *body)
{
    m->has_body = body != NULL;
    m->held.body = body;
}

static inline Span member_key_span(const Member *m)
{
    return span_make(m->span.start, m->key_end);
}

static inline Span member_name_span(const Member *m)
{
    return span_make(m->name_start, m->name_end);
}

static inline Span member_colon_span(const Member *m)
{
    return span_make(m->colon_start, m->colon_end);
}

/* 24 bytes. */
struct Block {
    Span span;           /* from '{' to '}' inclusive */
    Member *members;     /* .count members in source order; NULL when there are none */
    uint32_t count;
    uint32_t depth;      /* parser: height of the tree below this block */
};

/* A block's members, walked as
 *     for (Member *m = block_first(b), *end = block_end(b); m != end; m++)
 * A NULL block has none. */
static inline Member *block_first(const Block *b)
{
    return b ? b->members : NULL;
}

static inline Member *block_end(const Block *b)
{
    return b && b->count ? b->members + b->count : block_first(b);
}

/* A comment of the source, as written: a line comment from its `//` up to the end of its
 * line (the line end, LF or CRLF, is not part of it; a `#` comment, reported as an error,
 * is kept the same way), or a block comment from its opening to its closing delimiter
 * (to the end of the file when it is never closed). Comments are kept
 * beside the tree, in source order, for the tools that need them (the formatter, inline
 * suppressions); the checker and lowering never look at them. */
typedef struct Comment {
    Span span;
    const char *text;    /* the comment's bytes in the source text: span.end - span.start */
    bool block;          /* a block comment rather than a line comment */
} Comment;

/* One parsed source file. Its top-level members are clauses KW_WORKFLOW, KW_WORKER and
 * KW_TYPE (anything else at top level is reported by the parser and dropped). */
typedef struct SourceAst {
    uint32_t file;
    Member *decls;       /* .count declarations in source order */
    uint32_t count;
    Comment *comments;   /* every comment of the file, in source order */
    uint32_t comment_count;
    bool fatal;          /* parsing stopped early (nesting limit, file limits); the tree
                            holds what was read before that */
} SourceAst;

/* A file's declarations, walked as
 *     for (Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
 * A NULL tree has none. */
static inline Member *ast_first(const SourceAst *ast)
{
    return ast ? ast->decls : NULL;
}

static inline Member *ast_end(const SourceAst *ast)
{
    return ast && ast->count ? ast->decls + ast->count : ast_first(ast);
}

enum {
    /* Deepest nesting of brackets and blocks; deeper input is rejected with a diagnostic,
     * so every pass may recurse over the tree without risking the C stack. */
    AST_MAX_DEPTH = 256,
};

#endif
