#!/usr/bin/env python3
"""The engine core (engine/, docs/engine.md) keeps no global state and does no I/O: in
every object of its library, the writable data sections (.data, .bss, thread-local ones;
not .data.rel.ro, which is read-only once relocated) are empty, and no function that
reads a clock, the environment, randomness or a file, or writes anywhere, is called.

    test_engine_state.py --objdump OBJDUMP --nm NM liborbit_engine.a

Before the library, the test runs its two checks on made-up tool output with a static
counter and a call of fprintf, and fails unless it finds both.
"""
import argparse
import re
import subprocess
import sys

# Functions a state machine without a clock, I/O or global state has no use for.
FORBIDDEN = {
    'fopen', 'fclose', 'fread', 'fwrite', 'fprintf', 'vfprintf', 'printf', 'vprintf',
    'puts', 'fputs', 'fputc', 'putc', 'putchar', 'perror', 'fflush', 'open', 'close',
    'read', 'write', 'time', 'clock', 'clock_gettime', 'gettimeofday', 'getenv', 'rand',
    'srand', 'random', 'srandom', 'stdin', 'stdout', 'stderr', 'exit', 'abort',
}
WRITABLE = re.compile(r'^\.(data|bss|tdata|tbss)(\.|$)')


def writable_sections(objdump_h):
    """[(object, section, size)] of writable data sections that are not empty."""
    found = []
    obj = '?'
    for line in objdump_h.splitlines():
        m = re.match(r'^(\S+):\s+file format', line)
        if m:
            obj = m.group(1)
            continue
        cells = line.split()
        if len(cells) >= 3 and cells[0].isdigit():
            name, size = cells[1], int(cells[2], 16)
            if WRITABLE.match(name) and not name.startswith('.data.rel.ro') and size:
                found.append((obj, name, size))
    return found


def forbidden_calls(nm_u):
    """[(object, symbol)] of undefined symbols the core must not use."""
    found = []
    obj = '?'
    for line in nm_u.splitlines():
        if line.endswith(':'):
            obj = line[:-1]
            continue
        cells = line.split()
        if len(cells) == 2 and cells[0] in ('U', 'w') and cells[1].split('@')[0] in FORBIDDEN:
            found.append((obj, cells[1]))
    return found


def self_test():
    sample_h = ('counter.o:     file format elf64-x86-64\n\nSections:\n'
                'Idx Name          Size      VMA               LMA               File off  Algn\n'
                '  0 .text         00000010  0000000000000000  0000000000000000  00000040  2**4\n'
                '  1 .data         00000000  0000000000000000  0000000000000000  00000050  2**0\n'
                '  2 .bss          00000004  0000000000000000  0000000000000000  00000050  2**2\n'
                '  3 .data.rel.ro.local 00000010  0000000000000000  0000000000000000  00000050  2**3\n')
    sample_u = 'counter.o:\n                 U fprintf\n                 U memcpy\n'
    return (writable_sections(sample_h) == [('counter.o', '.bss', 4)] and
            forbidden_calls(sample_u) == [('counter.o', 'fprintf')])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--objdump', required=True)
    parser.add_argument('--nm', required=True)
    parser.add_argument('library')
    args = parser.parse_args()
    if not self_test():
        print('test_engine_state: the checks miss a static counter or a call of fprintf')
        return 1
    sections = subprocess.run([args.objdump, '-h', args.library], capture_output=True,
                              text=True, check=True).stdout
    undefined = subprocess.run([args.nm, '-u', args.library], capture_output=True,
                               text=True, check=True).stdout
    if 'engine.c.o' not in sections:
        print('test_engine_state: %s holds no engine.c object' % args.library)
        return 1
    problems = ['%s: %d bytes of writable data in %s' % (obj, size, name)
                for obj, name, size in writable_sections(sections)]
    problems += ['%s: calls %s' % p for p in forbidden_calls(undefined)]
    for p in problems:
        print(p)
    print('test_engine_state: %d problems' % len(problems))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
