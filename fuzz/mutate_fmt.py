#!/usr/bin/env python3
"""Layout mutations for the formatter's guarantees: valid programs with comments, blank
lines, spaces, separators and line breaks put between their tokens, lines joined,
repeated, dropped or re-indented, and line ends changed; each result is checked with
tools/fmt_props (tools/fmt_properties.h).

libFuzzer's byte mutations seldom keep a program parseable while moving its layout: in
280,000 runs, fuzz_fmt never wrote a block comment over two blank lines, which this found
in its first minute. The seeds are the programs that parse; about half of their
mutations still do, and fmt_props counts and skips the others.

    mutate_fmt.py --fmt-props build/tools/fmt_props [--seed N] [--count N] [--minutes M]
                  [--keep DIR]

--count N checks N mutations (default 1000) and is deterministic for a seed: the test
suite runs it so (tests/cli/test_fmt.py). --minutes M instead runs for M minutes, batch after
batch, for fuzzing on demand. A failing batch is kept in --keep DIR (default
fuzz/out/mutate_fmt/); exit 1 when a guarantee fails.
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, 'tools', 'gen_corpus.py')
BATCH = 200

COMMENTS = ['// c', '//', '// ' + 'w' * 96, '// x /* y */', '// \t',
            '/* c */', '/**/', '/*   */', '/*\t*/', '/* // */', '/* \u00fc */', '/* a */ /* b */',
            '/* ' + 'v' * 96 + ' */', '/* a\n   b */', '/*\n\n*/', '/*\n\n\n*/', '/*\n *\n */',
            '/* a\r\nb */', '/* long\n        indented\n  lines */', '/* a\rb */']
# a lone CR ends a line too (base/source.h)
SPACES = ['\n', '\n\n', '\n\n\n', ' ', '  ', '\t', '\r\n', '\r\n\r\n', '  \n', ' \n ', '\f', '\v',
          '\r', '\r\r', ' \r ']
SEPARATORS = [';', ',', ';;', ',,', '; ', ', ']
BREAKS = ['\n', '\n\n', '\n  ', ' // why\n', '\n/* k */\n']

AFTER_TOKEN = re.compile(r'(?<=[\w"\)\]\}\{\[\(,:;])(?=[ \n\)\]\}])|(?<=[ \n])')
AFTER_OPEN = re.compile(r'(?<=[\{\[\(,])')
AFTER_VALUE = re.compile(r'(?<=[\}\]\)\w"])(?=[ \n])')


def seed_texts(tmp, fmt_props):
    """Generated programs, and every repository source and expected formatting that
    parses (a mutation of a syntax error's golden would seldom parse)."""
    paths = []
    for seed in range(1, 21):
        path = os.path.join(tmp, 'gen-%d.orbit' % seed)
        args = ['--size', '3K', '--seed', str(seed)] + (['--crlf'] if seed % 5 == 0 else [])
        subprocess.run([sys.executable, GEN] + args + ['-o', path], check=True)
        paths.append(path)
    paths += sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', '**', '*.orbit'), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', 'fmt', '*.fmt')))
    paths += sorted(glob.glob(os.path.join(ROOT, 'examples', '*.orbit')))
    paths.append(os.path.join(ROOT, 'stdlib', 'orbit.orbit'))
    p = subprocess.run([fmt_props, '--must-parse'] + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    refused = set(re.findall(r'^FAIL (.*): does not parse$', p.stdout.decode('utf-8', 'replace'),
                             re.M))
    texts = []
    for path in paths:
        if path in refused:
            continue
        with open(path, 'rb') as f:
            texts.append(f.read().decode('utf-8', 'surrogateescape'))
    return texts


def insert_at(text, pattern, piece, rng):
    places = [m.start() for m in pattern.finditer(text)]
    if not places:
        return text
    i = rng.choice(places)
    return text[:i] + piece + text[i:]


def comment(rng):
    c = rng.choice(COMMENTS)
    if c.startswith('//'):
        c += rng.choice(['\n', '\r\n', '\n\n', '\r'])
    return rng.choice(['', ' ', '\n']) + c + rng.choice(['', ' ', '\n'])


def change_line(text, rng, others):
    lines = text.split('\n')
    i = rng.randrange(len(lines))
    what = rng.randrange(5)
    if what == 0:
        lines.insert(i, lines[i])                                  # repeated
    elif what == 1:
        lines.insert(i, '')                                        # a blank line
    elif what == 2:
        del lines[i]                                               # dropped
    elif what == 3:
        lines[i] = rng.choice(['', '\t', '        ', ' ', '\t\t  ']) + lines[i].lstrip()
    else:
        lines.insert(i, rng.choice(rng.choice(others).split('\n')))  # from another text
    return '\n'.join(lines)


def join_lines(text, rng):
    ends = [m.start() for m in re.finditer('\n', text)]
    if not ends:
        return text
    i = rng.choice(ends)
    return text[:i] + rng.choice([' ', '', '; ', ', ', '  ']) + text[i + 1:]


def mutate(text, rng, others):
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.35:
            text = insert_at(text, AFTER_TOKEN, comment(rng), rng)
        elif r < 0.50:
            text = insert_at(text, AFTER_TOKEN, rng.choice(SPACES), rng)
        elif r < 0.60:
            text = join_lines(text, rng)
        elif r < 0.68:
            text = insert_at(text, AFTER_OPEN, rng.choice(BREAKS), rng)
        elif r < 0.74:
            text = insert_at(text, AFTER_VALUE, rng.choice(SEPARATORS), rng)
        else:
            text = change_line(text, rng, others)
    r = rng.random()
    if r < 0.04:
        text = '\ufeff' + text
    elif r < 0.08:
        text = text.rstrip('\n')
    elif r < 0.11:
        text = text.replace('\n', '\r\n')
    elif r < 0.12:
        text = text.replace('\n', '\r')
    elif r < 0.14:
        text += '\n\n\n'
    elif r < 0.16:
        text = '\n\n' + text
    return text


def check_batch(fmt_props, texts, rng, batch_dir):
    """Writes one batch of mutations and checks it: (formatted, failure lines)."""
    paths = []
    for k in range(BATCH):
        path = os.path.join(batch_dir, 'm%03d.orbit' % k)
        with open(path, 'wb') as f:
            f.write(mutate(rng.choice(texts), rng, texts).encode('utf-8', 'surrogateescape'))
        paths.append(path)
    p = subprocess.run([fmt_props] + paths, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=600)
    out = p.stdout.decode('utf-8', 'replace')
    failures = [line for line in out.splitlines() if line.startswith('FAIL')]
    if p.returncode not in (0, 1):
        failures.append('fmt_props exited %d: %s' % (p.returncode, out[-2000:]))
    done = re.search(r'(\d+) formatted with every guarantee', out)
    return int(done.group(1)) if done else 0, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--fmt-props', required=True)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--minutes', type=float)
    ap.add_argument('--keep', default=os.path.join(ROOT, 'fuzz', 'out', 'mutate_fmt'))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    checked = formatted = batches = 0
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        texts = seed_texts(tmp, args.fmt_props)
        while (deadline and time.monotonic() < deadline) or (not deadline and checked < args.count):
            batch_dir = os.path.join(tmp, 'batch')
            os.makedirs(batch_dir)
            done, failures = check_batch(args.fmt_props, texts, rng, batch_dir)
            checked += BATCH
            formatted += done
            batches += 1
            if failures:
                failed = True
                keep = os.path.join(args.keep, 'seed%d-batch%d' % (args.seed, batches))
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(batch_dir, keep)
                print('\n'.join(failures))
                print('kept in %s' % keep)
            shutil.rmtree(batch_dir)
    print('mutate_fmt: seed %d: %d mutations, %d formatted with every guarantee, %s'
          % (args.seed, checked, formatted, 'guarantees broken' if failed else 'no failure'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
