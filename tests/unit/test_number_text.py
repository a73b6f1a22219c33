#!/usr/bin/env python3
"""liborbc's number text is the algorithm of docs/bytecode.md section 4.1, exactly.

  test_number_text.py PROGRAM

PROGRAM (tests/unit/number_text.c) prints liborbc's text of each number it reads. This test
feeds it the cases of the document's table, the extremes, every power of two and many
random doubles (a fixed seed), and compares each text with es_text below: the document's
algorithm written in Python, with the shortest round-trip digits taken from repr() (the
shortest digits that read back, the closest to the value). Prints each difference and
exits 1 when there is one.
"""
import math
import random
import struct
import subprocess
import sys

# The examples of docs/bytecode.md, section 4.1 (kept equal to its table by hand).
DOCUMENTED = [
    (0.0, '0'), (-0.0, '0'), (1.0, '1'), (-1.5, '-1.5'), (100.0, '100'), (213.0, '213'),
    (0.1, '0.1'), (0.1 + 0.2, '0.30000000000000004'), (1e21, '1e+21'),
    (1e20, '100000000000000000000'), (123456789012345680000.0, '123456789012345680000'),
    (1e-6, '0.000001'), (1e-7, '1e-7'), (-1.25e-7, '-1.25e-7'), (1.5e300, '1.5e+300'),
    (5e-324, '5e-324'), (1.7976931348623157e308, '1.7976931348623157e+308'),
    (2.0 ** 53 + 2, '9007199254740994'), (float('nan'), 'NaN'), (float('inf'), 'Infinity'),
    (float('-inf'), '-Infinity'),
]


def es_text(x):
    """The text of a number by docs/bytecode.md section 4.1 (ECMAScript's Number::toString)."""
    if math.isnan(x):
        return 'NaN'
    if x == 0:
        return '0'
    if x < 0:
        return '-' + es_text(-x)
    if math.isinf(x):
        return 'Infinity'
    mantissa, _, exponent = repr(x).partition('e')
    whole, _, fraction = mantissa.partition('.')
    all_digits = whole + fraction
    digits = all_digits.lstrip('0')
    n = len(whole) + int(exponent or 0) - (len(all_digits) - len(digits))
    digits = digits.rstrip('0')
    k = len(digits)
    if k <= n <= 21:
        return digits + '0' * (n - k)
    if 0 < n <= 21:
        return digits[:n] + '.' + digits[n:]
    if -6 < n <= 0:
        return '0.' + '0' * -n + digits
    e = n - 1
    return (digits[0] + ('.' + digits[1:] if k > 1 else '') + 'e' + ('+' if e >= 0 else '-')
            + str(abs(e)))


def bits(x):
    return '%016x' % struct.unpack('<Q', struct.pack('<d', x))[0]


def numbers():
    values = [x for x, _ in DOCUMENTED]
    values += [math.ldexp(1.0, e) for e in range(-1074, 1024)]
    values += [math.nextafter(math.ldexp(1.0, e), 0) for e in range(-1073, 1024)]
    rnd = random.Random(20261130)
    for _ in range(60000):
        x = struct.unpack('<d', struct.pack('<Q', rnd.getrandbits(64)))[0]
        if not math.isnan(x):
            values.append(x)
    for _ in range(20000):
        values.append(float(rnd.randint(-10 ** 22, 10 ** 22)))
        values.append(round(rnd.uniform(-1e6, 1e6), rnd.randint(0, 6)))
        values.append(rnd.random() * 10.0 ** rnd.randint(-30, 30))
    return values


def main():
    problems = []
    for x, text in DOCUMENTED:
        if es_text(x) != text:
            problems.append('the documented example %r gives %s here, %s in the document'
                            % (x, es_text(x), text))
    values = numbers()
    p = subprocess.run([sys.argv[1]], input=''.join(bits(x) + '\n' for x in values),
                       capture_output=True, text=True, timeout=300)
    got = p.stdout.splitlines()
    if p.returncode != 0 or len(got) != len(values):
        problems.append('%s failed (exit %d, %d lines for %d numbers)'
                        % (sys.argv[1], p.returncode, len(got), len(values)))
    else:
        for x, text in zip(values, got):
            if text != es_text(x) and len(problems) < 20:
                problems.append('%s (%r): liborbc gives %s, the document %s'
                                % (bits(x), x, text, es_text(x)))
    for line in problems:
        print(line)
    print('%d numbers, %d differences' % (len(values), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
