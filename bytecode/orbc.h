/* liborbc: the .orbc bytecode format of Orbit workflows (specification: docs/bytecode.md).
 *
 * Three parts, usable by any C program (it depends on nothing of the compiler):
 *   - a builder that serializes a module into bytes, and an atomic file writer;
 *   - a loader that fully verifies a file before returning an in-memory module;
 *   - a disassembler that prints a module as stable, readable text.
 *
 * The in-memory module uses the same structs for writing and for reading: a runtime walks
 * OrbcModule, the compiler fills the same structs and hands them to the builder. All
 * references between tables are 32-bit indices; ORBC_NONE means "absent". */
#ifndef ORBC_H
#define ORBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    ORBC_MAJOR = 1,
    ORBC_MINOR = 0,
    ORBC_HEADER_SIZE = 16,
};

#define ORBC_NONE 0xFFFFFFFFu

/* Limits a loader enforces (docs/bytecode.md, "Limits"). The builder enforces them too. */
enum {
    ORBC_MAX_FILE_SIZE = 1 << 30,    /* 1 GiB (file_length is a u32) */
    ORBC_MAX_STRING_LEN = 1024 * 1024,
    ORBC_MAX_TABLE = 1 << 24,        /* strings, constants, types, code blocks */
    ORBC_MAX_LARGE = 1 << 24,        /* tasks, workflows, steps per workflow, dependencies
                                        of one step, positions per block */
    ORBC_MAX_COUNT = 65535,          /* record fields, non_retryable codes, LIST/RECORD
                                        element counts */
    ORBC_MAX_CODE_LEN = 16 * 1024 * 1024, /* bytes of one code block */
    ORBC_MAX_STACK = 4096,           /* operand stack depth of one code block */
    ORBC_MAX_ATTEMPTS = 1000,
};

/* Section ids, in the order they must appear. */
typedef enum OrbcSectionId {
    ORBC_SEC_STRINGS = 1,
    ORBC_SEC_CONSTS = 2,
    ORBC_SEC_TYPES = 3,
    ORBC_SEC_TASKS = 4,
    ORBC_SEC_CODE = 5,
    ORBC_SEC_WORKFLOWS = 6,
} OrbcSectionId;

/* ---- the module ---- */

typedef struct OrbcString {
    const char *text;    /* NUL-terminated copy (the string may contain NUL too) */
    uint32_t len;
} OrbcString;

/* The tag byte of a constant in the CONSTS section (docs/bytecode.md, section 3.2): a
 * fact of the file format, fixed by its version. Not the kinds of values (OrbcKind,
 * orbc_value.h), which also has lists and records, that no constant is: the scalar
 * kinds are given the same numbers, so that a constant's tag is its value's kind. */
typedef enum OrbcConstKind {
    ORBC_CONST_NULL = 0,
    ORBC_CONST_BOOL = 1,
    ORBC_CONST_INT = 2,
    ORBC_CONST_NUMBER = 3,
    ORBC_CONST_STRING = 4,
    ORBC_CONST_DURATION = 5,
} OrbcConstKind;

typedef struct OrbcConst {
    uint8_t kind;        /* OrbcConstKind */
    union {
        bool boolean;
        int64_t integer; /* INT; DURATION in milliseconds */
        double number;
        uint32_t string; /* string index */
    };
} OrbcConst;

typedef enum OrbcTypeKind {
    ORBC_TYPE_ANY = 0,
    ORBC_TYPE_NULL = 1,
    ORBC_TYPE_BOOL = 2,
    ORBC_TYPE_INT = 3,
    ORBC_TYPE_NUMBER = 4,
    ORBC_TYPE_STRING = 5,
    ORBC_TYPE_DURATION = 6,
    ORBC_TYPE_LIST = 7,      /* elem */
    ORBC_TYPE_OPTIONAL = 8,  /* elem: may be null (or absent, as a record field) */
    ORBC_TYPE_RECORD = 9,    /* name (ORBC_NONE when anonymous), fields in order */
} OrbcTypeKind;

typedef struct OrbcField {
    uint32_t name;       /* string index */
    uint32_t type;       /* type index */
    bool optional;       /* may be absent */
} OrbcField;

typedef struct OrbcType {
    uint8_t kind;        /* OrbcTypeKind */
    uint32_t elem;       /* LIST, OPTIONAL: a type index smaller than this type's own */
    uint32_t name;       /* RECORD: string index or ORBC_NONE */
    uint32_t field_count;
    OrbcField *fields;   /* RECORD: field types are smaller indices than this type's own */
} OrbcType;

/* Source position of the instructions from `offset` up to the next entry's offset. */
typedef struct OrbcPos {
    uint32_t offset;
    uint32_t line;       /* 1-based */
    uint32_t column;     /* 1-based */
} OrbcPos;

typedef struct OrbcCode {
    uint32_t file;       /* string index: the source path as given to the compiler */
    uint32_t pos_count;  /* at least 1; the first entry has offset 0 */
    OrbcPos *pos;
    uint32_t len;        /* bytes of code */
    uint8_t *code;
    uint32_t max_stack;  /* computed by the loader (the builder ignores it) */
    /* Filled by the loader's verifier: */
    uint32_t max_step;   /* highest step index loaded by STEP, or ORBC_NONE */
    bool uses_item;      /* contains ITEM */
} OrbcCode;

typedef enum OrbcBackoff { ORBC_BACKOFF_FIXED = 0, ORBC_BACKOFF_EXPONENTIAL = 1 } OrbcBackoff;

/* The defaults of a retry policy (docs/bytecode.md, section 3.6: attempts 1, fixed, 1s,
 * 60s).
 * A step that cannot retry carries exactly the default policy. */
enum {
    ORBC_DEFAULT_INITIAL_DELAY_MS = 1000,
    ORBC_DEFAULT_MAX_DELAY_MS = 60000,
};

/* An effective retry policy: every default already resolved. */
typedef struct OrbcPolicy {
    uint32_t attempts;          /* 1..1000 */
    uint8_t backoff;            /* OrbcBackoff */
    int64_t initial_delay_ms;   /* >= 0 */
    int64_t max_delay_ms;       /* >= initial_delay_ms */
    uint32_t non_retryable_count;
    uint32_t *non_retryable;    /* string indices */
} OrbcPolicy;

/* The delay before attempt `attempt` (>= 2; 0 for the first) of a policy with this
 * backoff, initial and maximum delay (docs/bytecode.md, section 3.6): `initial_ms`
 * (fixed), or min(initial_ms × 2^(attempt−2), max_ms) (exponential), without overflow.
 * The one formula: the engine core waits it, the checker and `orbitc compat` reason
 * with it. */
int64_t orbc_retry_delay(OrbcBackoff backoff, int64_t initial_ms, int64_t max_ms,
                         uint32_t attempt);

typedef enum OrbcTaskKind { ORBC_TASK_WORKER = 0, ORBC_TASK_BUILTIN = 1 } OrbcTaskKind;

/* A declared worker or a built-in task, with its contract. */
typedef struct OrbcTask {
    uint32_t name;              /* "payments.charge", "orbit.http.request" */
    uint8_t kind;               /* OrbcTaskKind */
    uint32_t input_type;
    uint32_t output_type;
    int64_t default_timeout_ms; /* 0 = none (orbit.http.request: 30000) */
} OrbcTask;

typedef struct OrbcCompensate {
    uint32_t task;              /* task index */
    uint32_t line, column;
    uint32_t with_code;         /* code index or ORBC_NONE */
    uint32_t key_code;          /* idempotency_key, code index or ORBC_NONE */
    OrbcPolicy policy;
    int64_t timeout_ms;         /* effective; 0 = none */
    int64_t queue_timeout_ms;   /* 0 = none */
} OrbcCompensate;

typedef enum OrbcStepKind {
    ORBC_STEP_WORKER = 0,       /* target: task index (kind WORKER) */
    ORBC_STEP_BUILTIN = 1,      /* target: task index (kind BUILTIN) */
    ORBC_STEP_WORKFLOW = 2,     /* target: workflow index */
    ORBC_STEP_SLEEP = 3,        /* target: ORBC_NONE; value_code: the duration */
    ORBC_STEP_AWAIT = 4,        /* target: string index of the signal name */
    ORBC_STEP_COMPUTE = 5,      /* target: ORBC_NONE; value_code: the value */
} OrbcStepKind;

typedef struct OrbcStep {
    uint32_t name;              /* string index */
    uint8_t kind;               /* OrbcStepKind */
    uint32_t line, column;      /* of the `step` keyword, in the workflow's file */
    uint32_t target;
    uint32_t for_var;           /* string index of the for variable, or ORBC_NONE */
    uint32_t for_code;          /* code indices or ORBC_NONE */
    uint32_t when_code;
    uint32_t with_code;
    uint32_t key_code;
    uint32_t value_code;
    OrbcPolicy policy;
    int64_t timeout_ms;         /* effective; 0 = none */
    int64_t queue_timeout_ms;   /* 0 = none */
    uint32_t dep_count;         /* earlier steps whose results this step reads */
    uint32_t *deps;             /* strictly increasing step indices < this step's */
    bool has_compensate;
    OrbcCompensate compensate;
} OrbcStep;

typedef struct OrbcWorkflow {
    uint32_t name;              /* string index */
    uint32_t file;              /* string index: source path */
    uint32_t line, column;
    uint32_t input_type;        /* type index */
    uint32_t output_type;       /* type index */
    int64_t timeout_ms;         /* 0 = none */
    uint32_t return_code;       /* code index or ORBC_NONE (result null) */
    uint32_t step_count;
    OrbcStep *steps;
} OrbcWorkflow;

typedef struct OrbcModule {
    uint16_t major, minor;
    uint32_t string_count;
    OrbcString *strings;
    uint32_t const_count;
    OrbcConst *consts;
    uint32_t type_count;
    OrbcType *types;
    uint32_t task_count;
    OrbcTask *tasks;
    uint32_t code_count;
    OrbcCode *codes;
    uint32_t workflow_count;
    OrbcWorkflow *workflows;
    void *memory;               /* the loader's allocations (NULL in a builder's input) */
} OrbcModule;

/* ---- the expression machine ---- */

/* Opcodes: one byte, then fixed little-endian operands (docs/bytecode.md, "Instructions");
 * every fact about them is in ops.def. */
typedef enum OrbcOp {
#define ORBC_OP(name, code, mnemonic, operands, pops, pushes, flow, symbol) \
    ORBC_OP_##name = code,
#include "ops.def"
} OrbcOp;

/* Built-in functions called by ORBC_OP_CALL (ops.def). */
typedef enum OrbcFunc {
#define ORBC_FUNC(name, index, text, arity) ORBC_FN_##name = index,
#include "ops.def"
    ORBC_FN_COUNT
} OrbcFunc;

/* What follows an opcode byte. */
typedef enum OrbcOperands {
    ORBC_OPERANDS_NONE,
    ORBC_OPERANDS_CONST,     /* u32 constant index */
    ORBC_OPERANDS_STEP,      /* u32 step index */
    ORBC_OPERANDS_STRING,    /* u32 string index (a field name) */
    ORBC_OPERANDS_COUNT,     /* u32 n: the number of values popped */
    ORBC_OPERANDS_NAMES,     /* u32 n, then n u32 string indices: n values popped, their names */
    ORBC_OPERANDS_CALL,      /* u8 function (OrbcFunc), u8 argc: argc values popped */
    ORBC_OPERANDS_TARGET,    /* u32 jump target: a byte offset in the block, forward */
} OrbcOperands;

/* Where execution continues after an instruction. */
typedef enum OrbcFlow {
    ORBC_FLOW_NEXT,          /* at the next instruction */
    ORBC_FLOW_JUMP,          /* at the target */
    ORBC_FLOW_BRANCH,        /* at the target, the value on top kept; or, that value
                                popped, at the next instruction */
    ORBC_FLOW_RETURN,        /* nowhere: the value on top is the block's result */
} OrbcFlow;

/* `pops` of an instruction that pops as many values as its count operand says. */
#define ORBC_POPS_COUNT 0xFF

/* One row of ops.def. */
typedef struct OrbcOpInfo {
    const char *name;        /* mnemonic: "const", "jump_if_false", ... */
    uint8_t operands;        /* OrbcOperands */
    uint8_t pops;            /* values popped (a BRANCH: when it falls through), or
                                ORBC_POPS_COUNT */
    uint8_t pushes;
    uint8_t flow;            /* OrbcFlow */
    const char *symbol;      /* the operator it evaluates, for messages ("+", "&&"), or "" */
} OrbcOpInfo;

/* The row of an opcode; NULL for an unknown opcode. */
const OrbcOpInfo *orbc_op_info(uint8_t op);
/* "const", "jump_if_false", ...; NULL for an unknown opcode. */
const char *orbc_op_name(uint8_t op);
/* Size of the instruction that starts at code[0] (opcode + operands), or 0 when the opcode
 * is unknown, its operands do not fit in `avail` bytes, or a `record` names more than
 * ORBC_MAX_COUNT fields. */
uint32_t orbc_instr_size(const uint8_t *code, uint32_t avail);
/* Values the instruction at code[0] (complete: see orbc_instr_size) pops. */
uint32_t orbc_instr_pops(const uint8_t *code);
/* "len", "str", ...; NULL for an unknown index. */
const char *orbc_func_name(uint32_t func);
/* Number of arguments of a built-in function; -1 for an unknown index. */
int orbc_func_arity(uint32_t func);

static inline uint32_t orbc_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The source position of the instruction at `offset` in a verified code block. */
const OrbcPos *orbc_pos_at(const OrbcCode *code, uint32_t offset);

/* ---- errors ---- */

typedef struct OrbcError {
    size_t offset;       /* byte offset in the file where the problem was found */
    char text[256];      /* "orbc: bad checksum (offset 8)" */
} OrbcError;

/* ---- loading ---- */

/* Verifies `bytes` completely and builds a module that owns copies of everything (the
 * bytes may be freed afterwards). On failure returns false, fills `err` and leaves
 * `module` empty. Never reads outside `bytes`, never allocates more than a small multiple
 * of `len`. */
bool orbc_load(const uint8_t *bytes, size_t len, OrbcModule *module, OrbcError *err);
void orbc_module_free(OrbcModule *module);

/* A hash of `len` bytes for hash tables (not stable across versions, never stored): 8
 * bytes a step, so hashing a name costs a few multiplications. */
uint32_t orbc_hash(const void *bytes, size_t len);

/* CRC-32C (Castagnoli) of `len` bytes, as stored at offset 8 of a file for bytes 12..end. */
uint32_t orbc_crc32c(const uint8_t *bytes, size_t len);
/* The same without the CPU's CRC instruction (tests compare the two). */
uint32_t orbc_crc32c_portable(const uint8_t *bytes, size_t len);
/* Recomputes and stores the checksum of a complete file (for tests and tools). */
void orbc_seal(uint8_t *bytes, size_t len);

/* ---- writing ---- */

/* Serializes a module. Strings, constants and types are written exactly as given (the
 * caller interns them: see OrbcBuilder). The module's own data is not verified beyond
 * the limits; load the result to verify it. Returns false with `err` filled when a limit
 * is exceeded. `*bytes` is malloc'd; the caller frees it. */
bool orbc_serialize(const OrbcModule *module, uint8_t **bytes, size_t *len, OrbcError *err);

/* A builder collects the tables of a module in deterministic first-use order: equal
 * strings, constants and types get the same index. Code blocks are emitted one at a time
 * (begin, emit..., end). The result is a module to serialize (orbc_builder_module). */
typedef struct OrbcBuilder OrbcBuilder;

OrbcBuilder *orbc_builder_new(void);
/* A builder that writes each code block and workflow step into the file's bytes as soon
 * as it is complete, instead of keeping them as structs: the same bytes with less memory,
 * but orbc_builder_module shows no code blocks or workflows, and orbc_builder_workflow
 * returns NULL. */
OrbcBuilder *orbc_builder_new_streaming(void);
void orbc_builder_free(OrbcBuilder *b);

uint32_t orbc_add_string(OrbcBuilder *b, const char *text, size_t len);
uint32_t orbc_add_cstring(OrbcBuilder *b, const char *text);
uint32_t orbc_add_const(OrbcBuilder *b, OrbcConst value);
uint32_t orbc_const_int(OrbcBuilder *b, int64_t value);
uint32_t orbc_const_number(OrbcBuilder *b, double value);
uint32_t orbc_const_string(OrbcBuilder *b, const char *text, size_t len);
uint32_t orbc_const_duration(OrbcBuilder *b, int64_t ms);
uint32_t orbc_const_bool(OrbcBuilder *b, bool value);
uint32_t orbc_const_null(OrbcBuilder *b);

/* Types. Element and field types must have been added before. */
uint32_t orbc_type_simple(OrbcBuilder *b, OrbcTypeKind kind);
uint32_t orbc_type_list(OrbcBuilder *b, uint32_t elem);
uint32_t orbc_type_optional(OrbcBuilder *b, uint32_t elem);
uint32_t orbc_type_record(OrbcBuilder *b, uint32_t name, uint32_t field_count,
                          const OrbcField *fields);

/* Tasks and workflows are appended in call order; the builder copies the structs and
 * the arrays they point to. Workflow steps may name workflows added later by index. */
uint32_t orbc_add_task(OrbcBuilder *b, const OrbcTask *task);
uint32_t orbc_add_workflow(OrbcBuilder *b, const OrbcWorkflow *workflow);
/* The same one step at a time: the header (its `steps` are ignored, `step_count` steps
 * must follow), each step, then the code index of its return value. */
uint32_t orbc_workflow_begin(OrbcBuilder *b, const OrbcWorkflow *header);
void orbc_workflow_step(OrbcBuilder *b, const OrbcStep *step);
void orbc_workflow_end(OrbcBuilder *b, uint32_t return_code);
/* The workflow at `index`, to fill in after its steps' code has been emitted. */
OrbcWorkflow *orbc_builder_workflow(OrbcBuilder *b, uint32_t index);

/* Code: one block at a time. */
void orbc_code_begin(OrbcBuilder *b, uint32_t file);
void orbc_code_pos(OrbcBuilder *b, uint32_t line, uint32_t column); /* for what follows */
void orbc_emit(OrbcBuilder *b, OrbcOp op);
void orbc_emit_u32(OrbcBuilder *b, OrbcOp op, uint32_t operand);
void orbc_emit_call(OrbcBuilder *b, OrbcFunc func, uint8_t argc);
void orbc_emit_record(OrbcBuilder *b, uint32_t count, const uint32_t *names);
/* Emits a jump with a target to patch; returns the site to pass to orbc_patch_jump. */
uint32_t orbc_emit_jump(OrbcBuilder *b, OrbcOp op);
/* Sets the jump at `site` to the current end of the block. */
void orbc_patch_jump(OrbcBuilder *b, uint32_t site);
/* The deepest operand stack of the current block so far. A block deeper than
 * ORBC_MAX_STACK (or a LIST, RECORD or CALL of more than ORBC_MAX_COUNT values) makes
 * orbc_builder_finish fail: the loader would reject the module. */
uint32_t orbc_code_max_stack(const OrbcBuilder *b);
/* Whether the current block, once ended with its RETURN, fits the format's limits on one
 * block: at most ORBC_MAX_CODE_LEN bytes of code (and ORBC_MAX_LARGE positions). Sets
 * *length to its length in bytes, RETURN included. A block that does not fit makes
 * orbc_builder_finish fail. */
bool orbc_code_fits(const OrbcBuilder *b, uint64_t *length);
/* Ends the block with RETURN and returns its code index. */
uint32_t orbc_code_end(OrbcBuilder *b);

/* The module built so far (owned by the builder), and its bytes (malloc'd). */
const OrbcModule *orbc_builder_module(OrbcBuilder *b);
bool orbc_builder_finish(OrbcBuilder *b, uint8_t **bytes, size_t *len, OrbcError *err);

/* The bytes of a file kept in the pieces a streaming builder wrote them in (liborbc 1.1):
 * writing them copies nothing, where orbc_builder_finish's one buffer costs a copy of
 * the code and workflows, and their memory a second time. */
typedef struct OrbcOutput OrbcOutput;

/* As orbc_builder_finish (the same bytes, the same failures), the bytes left in pieces:
 * *out is the caller's to free with orbc_output_free, or NULL on failure. */
bool orbc_builder_finish_output(OrbcBuilder *b, OrbcOutput **out, OrbcError *err);
/* The length of the file in bytes. */
size_t orbc_output_len(const OrbcOutput *out);
/* Writes the file as orbc_write_file writes bytes (atomically, the same failures). */
bool orbc_output_write_file(const OrbcOutput *out, const char *path, OrbcError *err);
void orbc_output_free(OrbcOutput *out);

/* Writes a file. A regular file (or none yet) is replaced atomically: a temporary file in
 * the same directory, fsync, rename; the file replaced keeps its permissions. A symbolic
 * link is followed to its final target, which is replaced the same way in its own
 * directory. A character device, FIFO or socket is written to directly, never replaced; a
 * directory is refused. On failure the old file (if any) is untouched, no temporary file
 * is left and err->text is the reason alone ("No space left on device", "is a
 * directory"): the caller names the path. */
bool orbc_write_file(const char *path, const uint8_t *bytes, size_t len, OrbcError *err);

/* ---- disassembly ---- */

/* Prints every table, workflow, step and code block of a loaded module. */
void orbc_disassemble(const OrbcModule *module, FILE *out);

#endif
