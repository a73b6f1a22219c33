/* Facts about instructions and built-in functions shared by the writer, the verifier and
 * the disassembler, plus the CRC-32C checksum of the file format. */
#include "orbc.h"

typedef struct OpInfo {
    const char *name;
    uint32_t operand_size;   /* fixed operand bytes after the opcode (RECORD: more) */
} OpInfo;

static const OpInfo *op_info(uint8_t op)
{
    static const OpInfo consts = { "const", 4 }, input = { "input", 0 },
        step = { "step", 4 }, item = { "item", 0 }, field = { "field", 4 },
        field_opt = { "field_opt", 4 }, index = { "index", 0 }, list = { "list", 4 },
        record = { "record", 4 }, call = { "call", 2 }, not_ = { "not", 0 },
        neg = { "neg", 0 }, add = { "add", 0 }, sub = { "sub", 0 }, mul = { "mul", 0 },
        div = { "div", 0 }, mod = { "mod", 0 }, eq = { "eq", 0 }, ne = { "ne", 0 },
        lt = { "lt", 0 }, le = { "le", 0 }, gt = { "gt", 0 }, ge = { "ge", 0 },
        jump = { "jump", 4 }, jump_if_false = { "jump_if_false", 4 },
        jump_if_true = { "jump_if_true", 4 }, jump_if_not_null = { "jump_if_not_null", 4 },
        ret = { "return", 0 };
    switch ((OrbcOp)op) {
    case ORBC_OP_CONST: return &consts;
    case ORBC_OP_INPUT: return &input;
    case ORBC_OP_STEP: return &step;
    case ORBC_OP_ITEM: return &item;
    case ORBC_OP_FIELD: return &field;
    case ORBC_OP_FIELD_OPT: return &field_opt;
    case ORBC_OP_INDEX: return &index;
    case ORBC_OP_LIST: return &list;
    case ORBC_OP_RECORD: return &record;
    case ORBC_OP_CALL: return &call;
    case ORBC_OP_NOT: return &not_;
    case ORBC_OP_NEG: return &neg;
    case ORBC_OP_ADD: return &add;
    case ORBC_OP_SUB: return &sub;
    case ORBC_OP_MUL: return &mul;
    case ORBC_OP_DIV: return &div;
    case ORBC_OP_MOD: return &mod;
    case ORBC_OP_EQ: return &eq;
    case ORBC_OP_NE: return &ne;
    case ORBC_OP_LT: return &lt;
    case ORBC_OP_LE: return &le;
    case ORBC_OP_GT: return &gt;
    case ORBC_OP_GE: return &ge;
    case ORBC_OP_JUMP: return &jump;
    case ORBC_OP_JUMP_IF_FALSE: return &jump_if_false;
    case ORBC_OP_JUMP_IF_TRUE: return &jump_if_true;
    case ORBC_OP_JUMP_IF_NOT_NULL: return &jump_if_not_null;
    case ORBC_OP_RETURN: return &ret;
    }
    return NULL;
}

const char *orbc_op_name(uint8_t op)
{
    const OpInfo *info = op_info(op);
    return info ? info->name : NULL;
}

uint32_t orbc_instr_size(const uint8_t *code, uint32_t avail)
{
    if (avail == 0)
        return 0;
    const OpInfo *info = op_info(code[0]);
    if (!info || avail - 1 < info->operand_size)
        return 0;
    uint32_t size = 1 + info->operand_size;
    if (code[0] == ORBC_OP_RECORD) {
        uint64_t count = orbc_u32(code + 1);
        uint64_t total = (uint64_t)size + count * 4;
        if (count > ORBC_MAX_COUNT || total > avail)
            return 0;
        size = (uint32_t)total;
    }
    return size;
}

static const struct {
    const char *name;
    int arity;
} funcs[ORBC_FN_COUNT] = {
    [ORBC_FN_LEN] = { "len", 1 },
    [ORBC_FN_STR] = { "str", 1 },
    [ORBC_FN_LOWER] = { "lower", 1 },
    [ORBC_FN_UPPER] = { "upper", 1 },
    [ORBC_FN_CONTAINS] = { "contains", 2 },
};

const char *orbc_func_name(uint32_t func)
{
    return func < ORBC_FN_COUNT ? funcs[func].name : NULL;
}

int orbc_func_arity(uint32_t func)
{
    return func < ORBC_FN_COUNT ? funcs[func].arity : -1;
}

const OrbcPos *orbc_pos_at(const OrbcCode *code, uint32_t offset)
{
    /* Binary search for the last entry with entry.offset <= offset. */
    uint32_t lo = 0, hi = code->pos_count;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (code->pos[mid].offset <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return &code->pos[lo];
}

uint32_t orbc_crc32c(const uint8_t *bytes, size_t len)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++)
        crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

void orbc_seal(uint8_t *bytes, size_t len)
{
    if (len < ORBC_HEADER_SIZE)
        return;
    uint32_t crc = orbc_crc32c(bytes + 12, len - 12);
    for (int i = 0; i < 4; i++)
        bytes[8 + i] = (uint8_t)(crc >> (8 * i));
}
