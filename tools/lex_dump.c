/* lex_dump: the tokens of the compiler's own lexer (compiler/syntax/lexer.re), as the
 * parser receives them, and the comments the lexer skips, for tests and for the tools
 * that must agree with the lexer (the TextMate grammar's test, the semantic tokens'
 * test: docs/editors.md).
 *
 *   build/tools/lex_dump FILE...
 *
 * prints one JSON object a line (JSON Lines), in source order:
 *
 *   {"start": 0, "end": 8, "kind": "T_WORKFLOW"}
 *
 * `start` and `end` are byte offsets into the file, [start, end); `kind` is the name
 * parser.y gives the token kind (`IDENT`, `STRING`, `DURATION`, `T_STEP`, `LBRACE` ...,
 * from the generated parser.h by tools/token_names.py), or `COMMENT` for a comment (line
 * or block; a `#` comment, an error, too). Left out: the NEWLINE separators (white
 * space to an editor; a newline inside a block comment is part of the comment) and the
 * tokens the lexer invents of zero width (closers it adds for unbalanced brackets, the
 * end of file). A file with lexical errors still gives every token read; the errors
 * themselves are `orbitc check`'s to print. Of several files, each is read apart (a
 * compiler of its own, as in a run of its own) and its tokens follow a line that names
 * it, {"file": "PATH"} (a process for many: the tests run it under the sanitizers).
 * Exit status: 0, or 2 when a file cannot be read (the others are still printed). A
 * developer tool, not installed. */
#include <jansson.h>
#include <stdio.h>

#include "memory.h"
#include "token_walk.h"
#include "workspace.h"

static void print_token(void *context, uint32_t start, uint32_t end, const char *kind)
{
    json_t *token = json_pack("{s:I, s:I, s:s}", "start", (json_int_t)start,
                              "end", (json_int_t)end, "kind", kind);
    if (!token)
        out_of_memory();
    json_dumpf(token, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(token);
}

static int dump(const char *path)
{
    Compiler c;
    compiler_init(&c);
    const char *error = NULL;
    if (!workspace_add_file(&c, path, &error)) {
        fprintf(stderr, "lex_dump: cannot read `%s`: %s\n", path, error);
        compiler_free(&c);
        return 2;
    }
    token_walk(&c, c.sources.count - 1, print_token, NULL);
    compiler_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lex_dump FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            fprintf(stderr, "usage: lex_dump FILE...\n");
            return 2;
        }
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (argc > 2) {
            json_t *name = json_pack("{s:s}", "file", argv[i]);
            if (!name) {   /* a path that is not UTF-8 */
                fprintf(stderr, "lex_dump: cannot name `%s` in JSON\n", argv[i]);
                status = 2;
                continue;
            }
            json_dumpf(name, stdout, JSON_COMPACT);
            fputc('\n', stdout);
            json_decref(name);
        }
        if (dump(argv[i]) != 0)
            status = 2;
    }
    return fflush(stdout) == 0 ? status : 2;
}
