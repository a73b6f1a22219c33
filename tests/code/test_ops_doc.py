#!/usr/bin/env python3
"""Every copy of bytecode/ops.def's facts says what it declares:

  - the instruction and function tables of docs/bytecode.md (section 4): the same opcodes,
    mnemonics and operands, the same functions with the same arity;
  - docs/orbc.schema.json: the mnemonics an instruction's `op` may be, in opcode order;
  - stdlib/orbit.orbit: a `function` declaration for each function, with as many
    parameters as its arity, and none other (the lowering finds a call's function by its
    name: a name ops.def does not know would be an internal error, not a message).

Prints each difference and exits 1 when there is one."""
import json
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
    mnemonics = [declared_ops[code][0] for code in sorted(declared_ops)]
    schema = json.loads(read('docs/orbc.schema.json'))
    in_schema = schema['$defs']['instruction']['properties']['op']['enum']
    if in_schema != mnemonics:
        problems.append('docs/orbc.schema.json: the instruction op lacks %s, has %s more, '
                        'and should list them in opcode order: %s'
                        % (sorted(set(mnemonics) - set(in_schema)) or 'nothing',
                           sorted(set(in_schema) - set(mnemonics)) or 'nothing',
                           ', '.join(mnemonics)))
    arities = dict(declared_funcs.values())
    declared_in_stdlib = {m.group(1): len(re.findall(r'\w+\s*:', m.group(2)))
                          for m in re.finditer(r'^function\s+(\w+)\s*\{\s*input\s*\{([^}]*)\}',
                                               read('stdlib/orbit.orbit'), re.M)}
    for name in sorted(set(arities) | set(declared_in_stdlib)):
        if arities.get(name) != declared_in_stdlib.get(name):
            problems.append('function %s: ops.def says arity %s, stdlib/orbit.orbit declares %s'
                            % (name, arities.get(name),
                               'it with %d parameters' % declared_in_stdlib[name]
                               if name in declared_in_stdlib else 'no such function'))
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
