/* Spellings of keywords and operators (those from ops.def), for messages and the checker. */
#include "ast.h"

#include "orbc.h"

static const char *const keyword_spellings[KW_COUNT] = {
    [KW_NONE] = "",
    [KW_WORKFLOW] = "workflow",
    [KW_WORKER] = "worker",
    [KW_TYPE] = "type",
    [KW_INPUT] = "input",
    [KW_OUTPUT] = "output",
    [KW_TIMEOUT] = "timeout",
    [KW_STEP] = "step",
    [KW_RETURN] = "return",
    [KW_USING] = "using",
    [KW_SLEEP] = "sleep",
    [KW_AWAIT] = "await",
    [KW_COMPUTE] = "compute",
    [KW_WITH] = "with",
    [KW_WHEN] = "when",
    [KW_FOR] = "for",
    [KW_IN] = "in",
    [KW_IDEMPOTENCY_KEY] = "idempotency_key",
    [KW_RETRY] = "retry",
    [KW_QUEUE_TIMEOUT] = "queue_timeout",
    [KW_COMPENSATE] = "compensate",
    [KW_TRUE] = "true",
    [KW_FALSE] = "false",
    [KW_NULL] = "null",
};

const char *keyword_text(Keyword kw)
{
    if ((unsigned)kw >= KW_COUNT)
        return "";
    return keyword_spellings[kw];
}

uint8_t ast_op_instruction(Op op)
{
    static const uint8_t instructions[] = {
        [OP_NONE] = 0,
#define AST_OP_INSTRUCTION(name, instruction) [OP_##name] = ORBC_OP_##instruction,
        AST_OPERATORS(AST_OP_INSTRUCTION)
#undef AST_OP_INSTRUCTION
    };
    return (unsigned)op < sizeof instructions ? instructions[op] : 0;
}

const char *ast_op_text(Op op)
{
    const OrbcOpInfo *info = orbc_op_info(ast_op_instruction(op));
    return info ? info->symbol : "";
}
