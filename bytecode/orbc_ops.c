/* Facts about instructions and built-in functions shared by the writer, the verifier and
 * the disassembler, plus the CRC-32C checksum of the file format. */
#include <stdbool.h>

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

/* CRC-32C: the SSE4.2 instruction when the CPU has it, else table-driven slicing-by-8
 * (eight bytes per step through eight 256-entry tables, built on first use). */

static uint32_t crc_tables[8][256];
static int crc_tables_ready;

static void build_crc_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_tables[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tables[t][i] = (crc_tables[t - 1][i] >> 8) ^
                               crc_tables[0][crc_tables[t - 1][i] & 0xFF];
    __atomic_store_n(&crc_tables_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc_by_table(uint32_t crc, const uint8_t *p, size_t len)
{
    if (!__atomic_load_n(&crc_tables_ready, __ATOMIC_ACQUIRE))
        build_crc_tables();
    while (len >= 8) {
        uint32_t lo = crc ^ orbc_u32(p), hi = orbc_u32(p + 4);
        crc = crc_tables[7][lo & 0xFF] ^ crc_tables[6][(lo >> 8) & 0xFF] ^
              crc_tables[5][(lo >> 16) & 0xFF] ^ crc_tables[4][lo >> 24] ^
              crc_tables[3][hi & 0xFF] ^ crc_tables[2][(hi >> 8) & 0xFF] ^
              crc_tables[1][(hi >> 16) & 0xFF] ^ crc_tables[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = crc_tables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2")))
static uint32_t crc_by_instruction(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;
    while (len >= 8) {
        uint64_t word = (uint64_t)orbc_u32(p) | (uint64_t)orbc_u32(p + 4) << 32;
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        len -= 8;
    }
    crc = (uint32_t)c;
    while (len--)
        crc = __builtin_ia32_crc32qi(crc, *p++);
    return crc;
}

static bool has_crc_instruction(void)
{
    return __builtin_cpu_supports("sse4.2");
}
#else
static uint32_t crc_by_instruction(uint32_t crc, const uint8_t *p, size_t len)
{
    return crc_by_table(crc, p, len);
}

static bool has_crc_instruction(void)
{
    return false;
}
#endif

uint32_t orbc_crc32c(const uint8_t *bytes, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    crc = has_crc_instruction() ? crc_by_instruction(crc, bytes, len)
                                : crc_by_table(crc, bytes, len);
    return crc ^ 0xFFFFFFFFu;
}

/* The portable path, for tests that compare it with the instruction. */
uint32_t orbc_crc32c_portable(const uint8_t *bytes, size_t len)
{
    return crc_by_table(0xFFFFFFFFu, bytes, len) ^ 0xFFFFFFFFu;
}

void orbc_seal(uint8_t *bytes, size_t len)
{
    if (len < ORBC_HEADER_SIZE)
        return;
    uint32_t crc = orbc_crc32c(bytes + 12, len - 12);
    for (int i = 0; i < 4; i++)
        bytes[8 + i] = (uint8_t)(crc >> (8 * i));
}
