/* The tables of ops.def as functions (every instruction and built-in function, for the
 * writer, the verifier, the disassembler and any runtime), the hash of hash tables, and
 * the CRC-32C checksum of the file format. */
#include <stdbool.h>
#include <string.h>

#include "orbc_internal.h"

/* POPS in ops.def: a number, or COUNT (ORBC_POPS_COUNT). */
enum { ORBC_POPS_0 = 0, ORBC_POPS_1 = 1, ORBC_POPS_2 = 2 };

static const OrbcOpInfo ops[256] = {
#define ORBC_OP(name, code, mnemonic, operands, pops, pushes, flow, symbol)                 \
    [code] = { mnemonic, ORBC_OPERANDS_##operands, ORBC_POPS_##pops, pushes,                \
               ORBC_FLOW_##flow, symbol },
#include "ops.def"
};

const OrbcOpInfo *orbc_op_info(uint8_t op)
{
    return ops[op].name ? &ops[op] : NULL;
}

const char *orbc_op_name(uint8_t op)
{
    return ops[op].name;
}

/* Operand bytes after the opcode (NAMES: before the names). */
static uint32_t operand_size(uint8_t operands)
{
    switch ((OrbcOperands)operands) {
    case ORBC_OPERANDS_NONE: return 0;
    case ORBC_OPERANDS_CALL: return 2;
    case ORBC_OPERANDS_CONST: case ORBC_OPERANDS_STEP: case ORBC_OPERANDS_STRING:
    case ORBC_OPERANDS_COUNT: case ORBC_OPERANDS_NAMES: case ORBC_OPERANDS_TARGET:
        return 4;
    }
    return 0;
}

uint32_t orbc_instr_size(const uint8_t *code, uint32_t avail)
{
    if (avail == 0)
        return 0;
    const OrbcOpInfo *info = orbc_op_info(code[0]);
    if (!info || avail - 1 < operand_size(info->operands))
        return 0;
    uint32_t size = 1 + operand_size(info->operands);
    if (info->operands == ORBC_OPERANDS_NAMES) {
        uint64_t count = orbc_u32(code + 1);
        uint64_t total = (uint64_t)size + count * 4;
        if (count > ORBC_MAX_COUNT || total > avail)
            return 0;
        size = (uint32_t)total;
    }
    return size;
}

uint32_t orbc_instr_pops(const uint8_t *code)
{
    const OrbcOpInfo *info = orbc_op_info(code[0]);
    if (!info)
        return 0;
    if (info->pops != ORBC_POPS_COUNT)
        return info->pops;
    return info->operands == ORBC_OPERANDS_CALL ? code[2] : orbc_u32(code + 1);
}

static const struct {
    const char *name;
    int arity;
} funcs[ORBC_FN_COUNT] = {
#define ORBC_FUNC(name, index, text, arity) [index] = { text, arity },
#include "ops.def"
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

/* ---- hashing ---- */

/* The last 0..7 bytes as a number: two overlapping 4-byte loads, or the first, middle and
 * last byte (the length is hashed separately, so overlaps do no harm). A loop or memcpy
 * of a variable length would cost more than the rest of the hash. */
static inline uint64_t tail_bytes(const uint8_t *p, size_t len)
{
    if (len >= 4) {
        uint32_t first, last;
        memcpy(&first, p, 4);
        memcpy(&last, p + len - 4, 4);
        return (uint64_t)first << 32 | last;
    }
    if (len == 0)
        return 0;
    return (uint64_t)p[0] << 16 | (uint64_t)p[len / 2] << 8 | p[len - 1];
}

/* A multiplicative hash over 8 bytes at a time; the final shifts mix the high bits down. */
uint32_t orbc_hash(const void *bytes, size_t len)
{
    const uint64_t K = 0x9E3779B97F4A7C15ull;
    const uint8_t *p = bytes;
    uint64_t h = (uint64_t)len * K;
    while (len >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = (h ^ word) * K;
        h ^= h >> 32;
        p += 8;
        len -= 8;
    }
    h = (h ^ tail_bytes(p, len)) * K;
    h ^= h >> 29;
    h *= K;
    return (uint32_t)(h >> 32);
}

/* ---- CRC-32C ---- */

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
/* The little-endian word at p. */
static inline uint64_t crc_word(const uint8_t *p)
{
    return (uint64_t)orbc_u32(p) | (uint64_t)orbc_u32(p + 4) << 32;
}

__attribute__((target("sse4.2")))
static uint32_t crc_by_instruction(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;
    while (len >= 32) {   /* four words an iteration: a quarter of the loop's own work */
        c = __builtin_ia32_crc32di(c, crc_word(p));
        c = __builtin_ia32_crc32di(c, crc_word(p + 8));
        c = __builtin_ia32_crc32di(c, crc_word(p + 16));
        c = __builtin_ia32_crc32di(c, crc_word(p + 24));
        p += 32;
        len -= 32;
    }
    while (len >= 8) {
        c = __builtin_ia32_crc32di(c, crc_word(p));
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

uint32_t orbc_crc32c_extend(uint32_t crc, const uint8_t *bytes, size_t len)
{
    return has_crc_instruction() ? crc_by_instruction(crc, bytes, len)
                                 : crc_by_table(crc, bytes, len);
}

uint32_t orbc_crc32c(const uint8_t *bytes, size_t len)
{
    return orbc_crc32c_extend(0xFFFFFFFFu, bytes, len) ^ 0xFFFFFFFFu;
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
