#!/usr/bin/env python3
"""The worked example of docs/bytecode.md must match what orbitc really writes.

  test_orbc_example.py --orbitc PATH          build the example's source (the ```orbit
                                              block of section 8) and compare the bytes
                                              with the annotated hex dump there
  test_orbc_example.py --dump FILE.orbc       print an annotated hex dump of a file (used
                                              to write the section)

The dumper reads the file from the format description alone (it is a small independent
reader of docs/bytecode.md), so it doubles as a check that the document is complete.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, 'docs', 'bytecode.md')
NONE = 0xFFFFFFFF
# How the instruction table of section 4 writes each kind of operands, and how the dumper
# reads them: a u32; a u32 count, then that many u32 names; two u8.
OPERANDS = {'': '', 'u32 k': 'u32', 'u32 s': 'u32', 'str name': 'u32', 'u32 n': 'u32',
            'u32 t': 'u32', 'u32 n, n × str': 'rec', 'u8 f, u8 argc': 'u8u8'}


def instructions_from_doc():
    """opcode -> (mnemonic, operands) from the instruction table of docs/bytecode.md
    (which tests/code/test_ops_doc.py keeps equal to bytecode/ops.def)."""
    text = open(DOC, encoding='utf-8').read()
    ops = {int(m.group(1), 16): (m.group(2), OPERANDS[m.group(3).strip()])
           for m in re.finditer(r'^\| (0x[0-9A-F]{2}) \| `(\w+)` \|([^|]*)\|', text, re.M)}
    if not ops:
        raise ValueError('no instruction table in %s' % DOC)
    return ops


OPS = instructions_from_doc()


class Dumper:
    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.lines = []
        self.strings = []

    def take(self, n, note):
        chunk = self.data[self.pos:self.pos + n]
        if len(chunk) != n:
            raise ValueError('truncated at %d' % self.pos)
        self.lines.append((self.pos, chunk, note))
        self.pos += n
        return chunk

    def u8(self, note):
        return self.take(1, note)[0]

    def u16(self, note):
        return struct.unpack('<H', self.take(2, note))[0]

    def u32(self, note):
        return struct.unpack('<I', self.take(4, note))[0]

    def i64(self, note):
        return struct.unpack('<q', self.take(8, note))[0]

    def ref(self, note, names=None):
        """A u32 whose note names what it refers to."""
        value = struct.unpack('<I', self.data[self.pos:self.pos + 4])[0]
        if value == NONE:
            shown = 'NONE'
        elif names is not None and value < len(names):
            shown = '%d = %s' % (value, names[value])
        else:
            shown = str(value)
        return self.u32('%s: %s' % (note, shown))

    def s(self, note):
        return self.ref(note, ['"%s"' % t for t in self.strings])

    def dump(self):
        self.take(4, 'magic "ORBC"')
        self.u16('major 1')
        self.u16('minor 0')
        self.u32('checksum: CRC-32C of bytes 12..end')
        self.u32('file_length')
        while self.pos < len(self.data):
            ident = struct.unpack('<I', self.data[self.pos:self.pos + 4])[0]
            names = {1: 'STRINGS', 2: 'CONSTS', 3: 'TYPES', 4: 'TASKS', 5: 'CODE',
                     6: 'WORKFLOWS'}
            self.u32('section id %d: %s' % (ident, names.get(ident, 'unknown')))
            length = self.u32('section length')
            end = self.pos + length
            getattr(self, 'sec_' + names.get(ident, 'skip').lower())(end)
            if self.pos != end:
                raise ValueError('section %d not consumed' % ident)
        return self.lines

    def sec_skip(self, end):
        self.take(end - self.pos, 'unknown section payload')

    def sec_strings(self, end):
        for i in range(self.u32('string count')):
            n = self.u32('string %d length' % i)
            text = self.data[self.pos:self.pos + n].decode('utf-8')
            self.take(n, 's%d "%s"' % (i, text))
            self.strings.append(text)

    def sec_consts(self, end):
        for i in range(self.u32('constant count')):
            kind = self.u8('k%d kind' % i)
            self.take(8, 'k%d payload' % i)

    def sec_types(self, end):
        kinds = ['any', 'null', 'bool', 'int', 'number', 'string', 'duration', 'list',
                 'optional', 'record']
        for i in range(self.u32('type count')):
            kind = self.u8('t%d kind %s' % (i, kinds[self.data[self.pos]]))
            if kind in (7, 8):
                self.u32('element type')
            elif kind == 9:
                self.s('record name')
                for f in range(self.u32('field count')):
                    self.s('field %d name' % f)
                    self.u32('field %d type' % f)
                    self.u8('field %d flags' % f)

    def sec_tasks(self, end):
        for i in range(self.u32('task count')):
            self.s('task%d name' % i)
            self.u8('kind (0 worker, 1 built-in)')
            self.u32('input type')
            self.u32('output type')
            self.i64('default_timeout_ms')

    def sec_code(self, end):
        for i in range(self.u32('code block count')):
            self.s('code %d file' % i)
            for p in range(self.u32('position count')):
                self.u32('position %d offset' % p)
                self.u32('line')
                self.u32('column')
            n = self.u32('code length')
            stop = self.pos + n
            while self.pos < stop:
                op = self.data[self.pos]
                name, operands = OPS[op]
                arg = struct.unpack('<I', self.data[self.pos + 1:self.pos + 5])[0] \
                    if operands in ('u32', 'rec') else 0
                if operands == 'u32':
                    self.take(5, '%s %d' % (name, arg))
                elif operands == 'u8u8':
                    self.take(3, 'call %d/%d' % (self.data[self.pos + 1], self.data[self.pos + 2]))
                elif operands == 'rec':
                    self.take(5 + 4 * arg, 'record %d, names %s' % (arg, ' '.join(
                        str(struct.unpack('<I', self.data[self.pos + 5 + 4 * k:self.pos + 9 + 4 * k])[0])
                        for k in range(arg))))
                else:
                    self.take(1, name)

    def policy(self):
        self.u32('attempts')
        self.u8('backoff (0 fixed, 1 exponential)')
        self.i64('initial_delay_ms')
        self.i64('max_delay_ms')
        for c in range(self.u32('non_retryable count')):
            self.s('code %d' % c)

    def sec_workflows(self, end):
        for w in range(self.u32('workflow count')):
            self.s('workflow %d name' % w)
            self.s('file')
            self.u32('line')
            self.u32('column')
            self.u32('input type')
            self.u32('output type')
            self.i64('timeout_ms')
            self.ref('return code')
            for i in range(self.u32('step count')):
                self.s('step %d name' % i)
                self.u8('kind')
                self.u32('line')
                self.u32('column')
                self.ref('target')
                self.s('for_var')
                for part in ('for', 'when', 'with', 'idempotency_key', 'value'):
                    self.ref(part + ' code')
                self.policy()
                self.i64('timeout_ms')
                self.i64('queue_timeout_ms')
                for d in range(self.u32('dependency count')):
                    self.u32('dependency %d' % d)
                if self.u8('has_compensate'):
                    self.u32('compensate task')
                    self.u32('line')
                    self.u32('column')
                    self.ref('with code')
                    self.ref('idempotency_key code')
                    self.policy()
                    self.i64('timeout_ms')
                    self.i64('queue_timeout_ms')


def format_dump(data):
    out = []
    for offset, chunk, note in Dumper(data).dump():
        hexes = chunk.hex(' ')
        # long strings and code wrap at 16 bytes per line; the note goes on the first
        for k in range(0, max(len(chunk), 1), 16):
            part = chunk[k:k + 16].hex(' ')
            out.append('%04x  %-47s  %s' % (offset + k, part, note if k == 0 else ''))
        del hexes
    return '\n'.join(line.rstrip() for line in out) + '\n'


def example_from_doc():
    text = open(DOC, encoding='utf-8').read()
    section = text[text.index('## 8. Worked example'):]
    source = re.search(r'```orbit\n(.*?)```', section, re.S).group(1)
    dump = re.search(r'```text\n(.*?)```', section, re.S).group(1)
    data = bytearray()
    for line in dump.splitlines():
        m = re.match(r'^([0-9a-f]{4})  ((?:[0-9a-f]{2} ?)+)', line)
        if m:
            if int(m.group(1), 16) != len(data):
                raise SystemExit('docs/bytecode.md: dump line %s out of sequence' % m.group(1))
            data += bytes.fromhex(m.group(2))
    return source, bytes(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc')
    ap.add_argument('--dump')
    args = ap.parse_args()
    if args.dump:
        sys.stdout.write(format_dump(open(args.dump, 'rb').read()))
        return 0
    source, expected = example_from_doc()
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'example.orbit'), 'w', encoding='utf-8') as f:
            f.write(source)
        out = os.path.join(tmp, 'example.orbc')
        r = subprocess.run([os.path.abspath(args.orbitc), 'build', 'example.orbit', '-o', out], cwd=tmp,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print('build failed:', r.stderr)
            return 1
        actual = open(out, 'rb').read()
    if actual != expected:
        print('docs/bytecode.md worked example differs from orbitc build output')
        print(format_dump(actual))
        return 1
    print('worked example matches (%d bytes)' % len(actual))
    return 0


if __name__ == '__main__':
    sys.exit(main())
