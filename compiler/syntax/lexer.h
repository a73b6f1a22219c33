/* The lexer: turns one source file into the tokens of parser.y, on demand.
 *
 * Besides cutting tokens it owns three jobs that need to see every token:
 *   - the newline rule: a newline is a separator token only where it can end a member
 *     (not inside ( ) or [ ], not after an operator, separator or opening bracket);
 *   - bracket matching: a stack of open brackets (at most AST_MAX_DEPTH deep) reports
 *     stray and unclosed delimiters and hands the parser balanced brackets, inventing
 *     "quiet" closers where some are missing;
 *   - error recovery: after a syntax error the parser asks the lexer to skip to the next
 *     member separator of the enclosing block, to that block's `}`, or, at top level, to
 *     the next declaration, jumping over nested brackets whole; it then hands out a
 *     RECOVERED token, and after it the token where skipping stopped. */
#ifndef ORBIT_LEXER_H
#define ORBIT_LEXER_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "parser.h"
#include "parse_build.h"

enum {
    LEXER_QUEUE_SIZE = AST_MAX_DEPTH + 2,   /* invented closers, then one real token */
    LEXER_MAX_ERRORS = 500,                 /* per file; then the file is abandoned */
};

typedef struct QueuedToken {
    int kind;
    Loc loc;
    YYSTYPE value;
} QueuedToken;

/* The state of one file's lexing, grouped by the job that owns it (as Lua's LexState):
 * the text and the cursor at the top, then the scanner, the bracket stack, the second
 * pass's indentation, the token stream and error recovery. */
typedef struct Lexer {
    Compiler *c;
    uint32_t file;
    uint32_t origin;             /* the position of the file's byte 0 (source.h) */
    const unsigned char *base;   /* the file text; base[len] == '\0' */
    const unsigned char *cur;
    const unsigned char *lim;    /* base + len */

    bool fatal;                  /* stop: hand out end of file from now on (lexer_stop) */
    bool attention;              /* the next token needs the general path (lexer.re) */
    bool too_deep;               /* the nesting limit was hit (E0009) */
    uint32_t errors;             /* diagnostics reported for this file */
    const Name *const *keyword_names;   /* the compiler's (Compiler.keyword_names) */

    /* The scanner (lexer.re, lexer_literals.c, lexer_strings.c): what it records and the
     * runs of mistakes it reports once. */
    struct {
        /* The last E0002 and E0001 reported, extended over runs of bad characters. */
        Diagnostic *stray;
        uint32_t stray_end;
        Diagnostic *bad_utf8;
        uint32_t bad_utf8_end;

        /* Literals reported as unreadable, by start offset in file order (lexer.re); set
         * by a literal's decoder while it is read. */
        uint32_t *bad_literals;
        uint32_t bad_literal_count, bad_literal_cap;
        bool literal_bad;

        /* The comments met so far, in order (parse.c moves them to the syntax tree).
         * Only a comment costs anything here: the scanner records it where it skips
         * it. */
        Comment *comments;
        uint32_t comment_count, comment_cap;

        char *scratch;           /* reusable buffer for decoding strings */
        uint32_t scratch_cap;
    } scan;

    /* Bracket matching (lexer_brackets.c): the open brackets, innermost last, and the
     * reports of those that do not balance. */
    struct {
        int open_kind[AST_MAX_DEPTH];        /* the bracket token kind */
        uint32_t open_at[AST_MAX_DEPTH];     /* its offset */
        bool open_clauses[AST_MAX_DEPTH];    /* a `{` whose members are clauses: the body
                                                of a workflow, step, worker, retry or
                                                compensate */
        uint32_t depth;
        uint32_t unclosed_at_end;    /* brackets still open when the file ended */
        uint32_t stray_closer_total; /* closing brackets with nothing open for them */
        uint32_t bracket_reports;    /* reports of brackets never closed (E0101 at the end
                                        of the file or by indentation) or closing nothing
                                        (E0102) */

        /* The last run of closing brackets with nothing open for them (E0102), reported
         * once: the diagnostic, where the run ends, how many and whether of one kind. */
        Diagnostic *stray_closers;
        uint32_t stray_closers_end;
        uint32_t stray_closer_count;
        int stray_closer_kind;       /* 0 once the run mixes kinds */

        /* The last separator that followed another one (an empty member, E0100),
         * extended over a run of them. */
        Diagnostic *extra_separator;
        uint32_t extra_separator_end;
    } brackets;

    /* Closing by indentation (lexer_brackets.c): the second pass over a file whose
     * brackets do not balance (parse.c) reads the indentation: how many brackets the
     * first pass left open (to close) and how many closers it found with nothing open
     * (to drop), the indentation of each open bracket's line, where that line starts and
     * whether the bracket ends it, and the line of the last token looked at (its start,
     * where its indentation ends, and its width). */
    struct {
        bool pass;               /* this is that second pass */
        uint32_t close_budget;
        uint32_t drop_budget;
        uint32_t open_indent[AST_MAX_DEPTH];
        uint32_t open_line[AST_MAX_DEPTH];
        bool open_ends_line[AST_MAX_DEPTH];
        uint32_t line_scanned;
        uint32_t line_start, line_indent_end, line_indent;
    } indent;

    /* The token stream (lexer.re): the last tokens handed out, where the current
     * top-level item starts, and the tokens queued to hand out before lexing more. */
    struct {
        int prev;                /* kind of the last token produced (0 at the start) */
        Loc prev_loc;
        YYSTYPE *value_out;      /* where lexer_next puts its values (the parser's
                                    lookahead): the same place on every call, noted by
                                    the general path, which hands out the first token */
        int prev2;               /* the token before it */
        Loc prev2_loc;
        int prev2_before;        /* and the one before that */
        uint32_t unary_run;      /* consecutive `!`/`-` tokens, when prev is one of them */

        /* The first token of the current top-level item, for E0104. */
        bool item_start;         /* the next top-level token starts an item */
        int decl_kind;
        Loc decl_loc;

        /* Tokens to hand out before lexing more (invented closers). */
        QueuedToken queue[LEXER_QUEUE_SIZE];
        uint32_t queue_head, queue_len;
    } stream;

    /* Error recovery (lexer_recovery.c): skip tokens until a separator at `skip_level`,
     * the closer that leaves it, or (level 0) a declaration keyword. */
    struct {
        bool skipping;
        uint32_t skip_level;
        bool recovered_pending;  /* hand out RECOVERED next */
        bool replay_pending;     /* then this token again */
        QueuedToken replay;
    } recovery;
} Lexer;

/* The span of the file's bytes [start, end). */
static inline Span lexer_span(const Lexer *lx, uint32_t start, uint32_t end)
{
    return span_make(lx->origin + start, lx->origin + end);
}

void lexer_init(Lexer *lx, Compiler *c, uint32_t file);
void lexer_free(Lexer *lx);

/* Makes this the second pass over a file whose brackets did not balance: close up to
 * `close_budget` brackets and drop up to `drop_budget` closers by indentation. */
void lexer_read_indentation(Lexer *lx, uint32_t close_budget, uint32_t drop_budget);

/* The next token for the parser (a parser.h token kind; END at the end). `value` is the
 * same place on every call (lexer_recover reads the last value there). */
int lexer_next(Lexer *lx, YYSTYPE *value, Loc *loc);

/* Called by the parser when it reports a syntax error on the last token handed out: from
 * now on, skip to the recovery point (see the top of this file). */
void lexer_recover(Lexer *lx);

/* Whether a syntax error on this token handed out is not to be reported: the lexer
 * invented it (a closer, a newline, the end of skipped text: all of zero width) or
 * already reported it (a stray character, a literal it could not read, a mismatched
 * closer read as the expected one, `and`, `or`, `not` read as operators), or the file
 * was abandoned. */
bool lexer_token_is_quiet(const Lexer *lx, int kind, Loc loc);

/* Whether the literal token starting at this offset could not be read (reported; it
 * becomes EXPR_ERROR). */
bool lexer_literal_is_bad(const Lexer *lx, uint32_t start);

/* Whether the last token handed out sits at top level (outside every bracket). */
bool lexer_at_top_level(const Lexer *lx);

/* Whether the last token handed out sits directly in a block of clauses (a workflow,
 * step, worker, retry or compensate body) rather than in an object or a schema. */
bool lexer_in_clause_block(const Lexer *lx);

/* Abandons the file: from now on the lexer hands out end of file. */
void lexer_stop(Lexer *lx);

/* Counts a front-end diagnostic; false once the file has too many (it is then fatal). */
bool lexer_count_error(Lexer *lx);

/* ---- the tokens of a text, for editors and tools (lexer_tokens.c) ---- */

enum {
    LEXER_COMMENT = PARSER_TOKEN_LIMIT,   /* the kind lexer_tokens gives a comment */
};

/* Receives one token of lexer_tokens: bytes [start, end) of the text and its kind (a
 * parser.h token kind, or LEXER_COMMENT). */
typedef void (*LexerTokenVisitor)(void *user, uint32_t start, uint32_t end, int kind);

/* Lexes text[0, len) on a compiler of its own (its diagnostics are dropped) and calls
 * `visit` for each token the parser would receive and each comment, in source order.
 * Left out: the NEWLINE separators (a newline inside a block comment is the comment's)
 * and the tokens the lexer invents (of zero width: closers of unbalanced brackets, the
 * end of file); also what the lexer reads and drops, reported (a closer with nothing open
 * for it, a separator after another one). A text the lexer abandons (E0009) gives the
 * tokens read before. */
void lexer_tokens(const char *text, uint32_t len, LexerTokenVisitor visit, void *user);
/* The same for file `file` of `c`, whose diagnostics get the lexer's reports. */
void lexer_tokens_of(Compiler *c, uint32_t file, LexerTokenVisitor visit, void *user);

/* The keyword spelled by text[0..len), or KW_NONE. */
Keyword lexer_keyword_lookup(const char *text, uint32_t len);

#endif
