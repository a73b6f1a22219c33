#!/usr/bin/env python3
"""Malformed input never crashes orbitc: each case is generated here (nothing large is
committed), checked with `orbitc check --format=json`, and must end with exit 1, at least
one diagnostic of the expected codes, no sanitizer report, within a time limit. Run by
the suite on both the plain and the sanitizer build.

    test_malformed.py --orbitc PATH        ends with `N passed, N failed`
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import sanitizers  # noqa: E402

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       'examples', 'checkout.orbit')
SANITIZER_EXIT = sanitizers.EXIT


def cases():
    example = open(EXAMPLE, 'rb').read()
    rng = random.Random(20261129)
    step = b'workflow w {\n  step s { compute %s }\n}\n'
    yield 'invalid UTF-8', b'workflow w\xff\xfe {\n  step s\xc3 { sleep 1s }\n}\n', {'E0001'}
    yield 'overlong and surrogate UTF-8', b'// \xc0\xaf \xed\xa0\x80\nworkflow w { step s { sleep 1s } }\n', {'E0001'}
    yield 'NUL bytes', b'workflow w {\x00\n  step s { sleep 1s }\x00\n}\n', {'E0002'}
    yield 'only NUL bytes', b'\x00' * 100000, {'E0012'}
    for cut in (1, 100, 333, 700, len(example) - 2):
        yield 'truncated at byte %d' % cut, example[:cut], None
    for opener, closer in ((b'[', b']'), (b'{', b'}'), (b'(', b')')):
        yield '200,000 nested %s' % opener.decode(), step % (opener * 200000), {'E0009'}
        yield '200,000 nested %s closed' % opener.decode(), \
            step % (opener * 200000 + b'1' + closer * 200000), {'E0009'}
    yield '10 MB single line', b'workflow w { step s { compute "' + b'x' * (10 << 20) + b' } }', None
    yield '10 MB line of tokens', b'workflow w { step s { compute 1 ' + b'+ ' * (5 << 20) + b'} }', None
    yield 'unterminated comment', example + b'\n/* never closed', {'E0005'}
    yield 'unterminated string', b'workflow w { step s { await "never closed } }\n', {'E0003'}
    yield 'random bytes', bytes(rng.randrange(256) for _ in range(200000)), None
    yield 'random tokens', b' '.join(rng.choice(
        [b'{', b'}', b'[', b']', b'(', b')', b':', b',', b'step', b'workflow', b'retry',
         b'"s"', b'5s', b'1.5', b'x', b'\n', b'??', b'.', b'worker', b'with']) for _ in range(200000)), None
    yield 'example with bytes flipped', bytes(b ^ 0x20 if rng.random() < 0.02 else b for b in example), None


def counted_cases():
    """Input that is one mistake, or not source at all: (name, data, codes, at most this
    many diagnostics)."""
    rng = random.Random(20260311)
    noise = bytes(rng.randrange(256) for _ in range(65536))
    yield '64 KB of random bytes', noise, {'E0012'}, 3
    yield '64 KB of random bytes without NUL', noise.replace(b'\x00', b'\x01'), {'E0012'}, 3
    yield 'a bytecode file', b'ORBC\x01\x00\x00\x00' + noise[:2000], {'E0012'}, 1
    yield '10,000 `}`', b'}' * 10000, {'E0102'}, 1
    yield '10,000 `}` on their own lines', b'workflow w { step s { sleep 1s } }\n' + b'}\n' * 10000, {'E0102'}, 1


def check(orbitc, name, data, codes, tmp, at_most=None):
    path = os.path.join(tmp, 'case.orbit')
    with open(path, 'wb') as f:
        f.write(data)
    start = time.monotonic()
    p = sanitizers.run([orbitc, 'check', '--format=json', path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    elapsed = time.monotonic() - start
    err = p.stderr.decode('utf-8', 'replace')
    if p.returncode != 1:
        return 'exit %d, expected 1: %s' % (p.returncode, err[-2000:])
    if 'Sanitizer' in err or 'runtime error:' in err:
        return 'sanitizer report: ' + err[-2000:]
    diags = [json.loads(line) for line in p.stdout.decode('utf-8').splitlines()]
    if not diags or not any(d['severity'] == 'error' for d in diags):
        return 'exit 1 without an error diagnostic'
    if codes and not codes & {d['code'] for d in diags}:
        return 'expected one of %s, got %s' % (sorted(codes), sorted({d['code'] for d in diags}))
    if at_most is not None and len(diags) > at_most:
        return '%d diagnostics, expected at most %d' % (len(diags), at_most)
    limit = 60 if 'asan' in orbitc else 10
    if elapsed > limit:
        return 'took %.1f s (limit %d s)' % (elapsed, limit)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    orbitc = os.path.abspath(ap.parse_args().orbitc)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        every = [case + (None,) for case in cases()] + list(counted_cases())
        for name, data, codes, at_most in every:
            try:
                problem = check(orbitc, name, data, codes, tmp, at_most)
            except subprocess.TimeoutExpired:
                problem = 'timed out'
            if problem:
                failed += 1
                print('FAIL %s: %s' % (name, problem))
            else:
                passed += 1
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
