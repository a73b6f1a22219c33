/* Spellings of keywords and operators, for messages and the checker. */
#include "ast.h"

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

const char *ast_op_text(Op op)
{
    switch (op) {
    case OP_NONE: return "";
    case OP_COALESCE: return "??";
    case OP_OR: return "||";
    case OP_AND: return "&&";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_MOD: return "%";
    case OP_NOT: return "!";
    case OP_NEG: return "-";
    }
    return "";
}
