"""An .orbc writer in Python, from the JSON dump (`orbitc dis --format json`,
docs/orbc.schema.json) back to the bytes of docs/bytecode.md.

It is a second implementation of the format, written from the document: the opcode table
is read from docs/bytecode.md itself. tools/conformance.py uses it to check that the dump
loses nothing (encoding the dump of a file gives the file back, byte for byte) and to
make the malformed files of the conformance kit (a dump changed in one place, encoded).
"""
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NONE = 0xFFFFFFFF

CONST_KINDS = ['null', 'bool', 'int', 'number', 'string', 'duration']
TYPE_KINDS = ['any', 'null', 'bool', 'int', 'number', 'string', 'duration', 'list',
              'optional', 'record']
TASK_KINDS = ['worker', 'builtin']
STEP_KINDS = ['worker', 'builtin', 'workflow', 'sleep', 'await', 'compute']
BACKOFFS = ['fixed', 'exponential']
SECTIONS = {'STRINGS': 1, 'CONSTS': 2, 'TYPES': 3, 'TASKS': 4, 'CODE': 5, 'WORKFLOWS': 6}


def read_opcodes():
    """mnemonic -> (opcode, operand layout) from the table of docs/bytecode.md, section 4:
    'none', 'u8u8' (call), 'names' (record) or 'u32'."""
    with open(os.path.join(ROOT, 'docs', 'bytecode.md'), encoding='utf-8') as f:
        doc = f.read()
    ops = {}
    for m in re.finditer(r'^\| (0x[0-9A-F]{2}) \| `(\w+)` \|([^|]*)\|', doc, re.M):
        operands = m.group(3).strip()
        layout = ('none' if not operands else 'u8u8' if operands.startswith('u8')
                  else 'names' if '×' in operands else 'u32')
        ops[m.group(2)] = (int(m.group(1), 16), layout)
    return ops


OPCODES = read_opcodes()


def crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


CRC_TABLE = crc_table()


def crc32c(data):
    """CRC-32C (Castagnoli), as docs/bytecode.md section 2 defines it."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


class Writer:
    def __init__(self):
        self.out = bytearray()

    def u8(self, v):
        self.out += struct.pack('<B', v)

    def u32(self, v):
        self.out += struct.pack('<I', v)

    def i64(self, v):
        self.out += struct.pack('<q', v)

    def index(self, v):
        self.u32(NONE if v is None else v)


def strings_payload(doc):
    w = Writer()
    w.u32(len(doc['strings']))
    for s in doc['strings']:
        data = s.encode('utf-8')
        w.u32(len(data))
        w.out += data
    return w.out


def consts_payload(doc):
    w = Writer()
    w.u32(len(doc['constants']))
    for c in doc['constants']:
        kind, value = c['kind'], c['value']
        w.u8(CONST_KINDS.index(kind))
        if kind == 'null':
            w.i64(0)
        elif kind == 'bool':
            w.i64(1 if value else 0)
        elif kind in ('int', 'duration'):
            w.i64(value)
        elif kind == 'number':
            w.out += struct.pack('<Q', int(value['bits'], 16))
        else:
            w.u32(value)
            w.u32(0)
    return w.out


def types_payload(doc):
    w = Writer()
    w.u32(len(doc['types']))
    for t in doc['types']:
        w.u8(TYPE_KINDS.index(t['kind']))
        if t['kind'] in ('list', 'optional'):
            w.u32(t['elem'])
        elif t['kind'] == 'record':
            w.index(t['name'])
            w.u32(len(t['fields']))
            for f in t['fields']:
                w.u32(f['name'])
                w.u32(f['type'])
                w.u8(1 if f['optional'] else 0)
    return w.out


def tasks_payload(doc):
    w = Writer()
    w.u32(len(doc['tasks']))
    for t in doc['tasks']:
        w.u32(t['name'])
        w.u8(TASK_KINDS.index(t['kind']))
        w.u32(t['input'])
        w.u32(t['output'])
        w.i64(t['default_timeout_ms'])
    return w.out


def instruction_bytes(ins):
    opcode, layout = OPCODES[ins['op']]
    w = Writer()
    w.u8(opcode)
    if layout == 'u8u8':
        for v in ins['operands']:
            w.u8(v)
    else:
        for v in ins['operands']:
            w.u32(v)
    return w.out


def code_payload(doc):
    w = Writer()
    w.u32(len(doc['code']))
    for c in doc['code']:
        w.u32(c['file'])
        w.u32(len(c['positions']))
        for p in c['positions']:
            w.u32(p['offset'])
            w.u32(p['line'])
            w.u32(p['column'])
        code = b''.join(instruction_bytes(ins) for ins in c['instructions'])
        w.u32(len(code))
        w.out += code
    return w.out


def policy(w, p):
    w.u32(p['attempts'])
    w.u8(BACKOFFS.index(p['backoff']))
    w.i64(p['initial_delay_ms'])
    w.i64(p['max_delay_ms'])
    w.u32(len(p['non_retryable']))
    for s in p['non_retryable']:
        w.u32(s)


def step(w, s):
    w.u32(s['name'])
    w.u8(STEP_KINDS.index(s['kind']))
    w.u32(s['line'])
    w.u32(s['column'])
    for key in ('target', 'for_var', 'for', 'when', 'with', 'idempotency_key', 'value'):
        w.index(s[key])
    policy(w, s['policy'])
    w.i64(s['timeout_ms'])
    w.i64(s['queue_timeout_ms'])
    w.u32(len(s['dependencies']))
    for d in s['dependencies']:
        w.u32(d)
    c = s['compensate']
    w.u8(0 if c is None else 1)
    if c is not None:
        w.u32(c['task'])
        w.u32(c['line'])
        w.u32(c['column'])
        w.index(c['with'])
        w.index(c['idempotency_key'])
        policy(w, c['policy'])
        w.i64(c['timeout_ms'])
        w.i64(c['queue_timeout_ms'])


def workflows_payload(doc):
    w = Writer()
    w.u32(len(doc['workflows']))
    for f in doc['workflows']:
        for key in ('name', 'file', 'line', 'column', 'input', 'output'):
            w.u32(f[key])
        w.i64(f['timeout_ms'])
        w.index(f['return'])
        w.u32(len(f['steps']))
        for s in f['steps']:
            step(w, s)
    return w.out


PAYLOADS = {1: strings_payload, 2: consts_payload, 3: types_payload, 4: tasks_payload,
            5: code_payload, 6: workflows_payload}


def encode(doc):
    """The bytes of the file the dump describes; the checksum, the file length and the
    sections' offsets and lengths are computed, not taken from the dump."""
    body = bytearray()
    for section in doc['sections']:
        known = PAYLOADS.get(section['id']) if section['name'] is not None else None
        payload = known(doc) if known else bytes.fromhex(section['payload'])
        body += struct.pack('<II', section['id'], len(payload)) + payload
    length = 16 + len(body)
    tail = struct.pack('<I', length) + body
    return (b'ORBC' + struct.pack('<HHI', doc['major'], doc['minor'], crc32c(tail)) + tail)


def seal(data):
    """`data` with its checksum recomputed (after a change to the bytes)."""
    data = bytearray(data)
    data[8:12] = struct.pack('<I', crc32c(bytes(data[12:])))
    return bytes(data)


SCHEMA = os.path.join(ROOT, 'docs', 'orbc.schema.json')


def load_schema():
    """(schema, validator) for docs/orbc.schema.json, or None without python3-jsonschema."""
    try:
        import validate_json
        return validate_json.load_validator(SCHEMA)
    except ImportError:
        return None


def check_dump(orbitc, path, schema=None, cwd=None):
    """Runs `orbitc dis --format json PATH`; returns (the dump's text or None, problems):
    the dump must match the schema (when `schema` is given, from load_schema) and encode
    back to the file's bytes exactly."""
    import json
    import subprocess
    p = subprocess.run([orbitc, 'dis', '--format', 'json', path], cwd=cwd,
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        return None, ['dis --format json failed (exit %d): %s'
                      % (p.returncode, p.stderr.decode('utf-8', 'replace')[-3000:])]
    text = p.stdout.decode('utf-8')
    doc = json.loads(text)
    problems = []
    if schema:
        import validate_json
        problem = validate_json.value_problem(doc, schema[1], schema[0])
        if problem:
            problems.append('the JSON dump does not match docs/orbc.schema.json: ' + problem)
    with open(path if cwd is None else os.path.join(cwd, path), 'rb') as f:
        if encode(doc) != f.read():
            problems.append('the JSON dump does not encode back to the same bytes')
    return text, problems
