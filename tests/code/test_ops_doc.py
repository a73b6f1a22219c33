#!/usr/bin/env python3
"""The instruction and function tables of docs/bytecode.md (section 4) say what
bytecode/ops.def declares: the same opcodes, mnemonics and operands, the same functions
with the same arity. Prints each difference and exits 1 when there is one."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# How the document writes each kind of operands (OrbcOperands in ops.def).
OPERANDS = {
    'NONE': '', 'CONST': 'u32 k', 'STEP': 'u32 s', 'STRING': 'str name', 'COUNT': 'u32 n',
    'NAMES': 'u32 n, n × str', 'CALL': 'u8 f, u8 argc', 'TARGET': 'u32 t',
}


def read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8') as f:
        return f.read()


def main():
    ops_def = read('bytecode/ops.def')
    doc = read('docs/bytecode.md')
    declared_ops = {}
    for m in re.finditer(r'^ORBC_OP\((\w+),\s*(0x[0-9A-Fa-f]+),\s*"(\w+)",\s*(\w+),', ops_def,
                         re.M):
        declared_ops[int(m.group(2), 16)] = (m.group(3), OPERANDS[m.group(4)])
    declared_funcs = {}
    for m in re.finditer(r'^ORBC_FUNC\((\w+),\s*(\d+),\s*"(\w+)",\s*(\d+)\)', ops_def, re.M):
        declared_funcs[int(m.group(2))] = (m.group(3), int(m.group(4)))
    documented_ops = {}
    for m in re.finditer(r'^\| (0x[0-9A-F]{2}) \| `(\w+)` \|([^|]*)\|', doc, re.M):
        documented_ops[int(m.group(1), 16)] = (m.group(2), m.group(3).strip())
    documented_funcs = {}
    for m in re.finditer(r'^\| (\d+) \| `(\w+)` \| (\d+) \|', doc, re.M):
        documented_funcs[int(m.group(1))] = (m.group(2), int(m.group(3)))
    problems = []
    for what, declared, documented in (('opcode', declared_ops, documented_ops),
                                       ('function', declared_funcs, documented_funcs)):
        if not declared:
            problems.append('no %s found in bytecode/ops.def' % what)
        for key in sorted(set(declared) | set(documented)):
            if declared.get(key) != documented.get(key):
                problems.append('%s %#x: ops.def says %s, docs/bytecode.md says %s'
                                % (what, key, declared.get(key), documented.get(key)))
    for p in problems:
        print(p)
    print('%d opcodes, %d functions, %d differences'
          % (len(declared_ops), len(declared_funcs), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
