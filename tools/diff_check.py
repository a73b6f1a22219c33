#!/usr/bin/env python3
"""Differential check of two orbitc binaries: `orbitc check` of many inputs, human and
JSON output and exit status, must be the same for both.

    tools/diff_check.py OLD_ORBITC NEW_ORBITC [MUTATIONS_PER_GOLDEN]

For changes that must not change any diagnostic (performance work on the lexer, parser
or checker): build the binary of the commit before the change (OLD) and after it (NEW).
The inputs are the committed fuzz corpora of fuzz_check, fuzz_build and fuzz_fmt, the
fuzz regressions, every golden, example and conformance source, and mutations of the
golden sources (text deleted, repeated, or punctuation, keywords and bad bytes inserted;
6 per golden by default, most of them with syntax errors). Prints the first differences
and a count; exits 1 when there is one.

Environment: ROOT, the checkout whose inputs are read (default: the one holding this
script); MUT_DIR, where the mutations are written (default: a temporary directory,
removed afterwards unless a mutation differs); SEED, the mutations' random seed (default 17). A run reads about
7,500 inputs and takes some minutes.
"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

INPUTS = ["fuzz/corpus/fuzz_check/*", "fuzz/corpus/fuzz_build/*",
          "fuzz/corpus/fuzz_fmt/*", "fuzz/regressions/*/*.orbit",
          "tests/golden/**/*.orbit", "examples/**/*.orbit", "tests/conformance/**/*.orbit"]

PIECES = [b"{", b"}", b"(", b")", b"[", b"]", b",", b";", b":", b"\n", b"=", b".", b"-",
          b"!", b"and ", b"not ", b"if ", b"\"", b"'", b"1x", b"2 min", b"step",
          b"workflow", b"type ", b"retry", b"#", b"/*", b"&", b"|", b"?", b"??", b"\xff",
          b"\xe2\x80\x9c", b"input", b"a-b"]


def mutate(data, rng):
    d = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(3)
        i = rng.randrange(len(d) + 1)
        if op == 0 and len(d) > 1:
            del d[i:min(len(d), i + rng.randint(1, 12))]
        elif op == 1:
            d[i:i] = rng.choice(PIECES)
        else:
            d[i:i] = d[i:min(len(d), i + rng.randint(1, 30))]
    return bytes(d)


def mutations(root, out_dir, per_golden, rng):
    paths = []
    sources = sorted(glob.glob(os.path.join(root, "tests/golden/**/*.orbit"), recursive=True))
    for src in sources:
        with open(src, "rb") as f:
            data = f.read()
        if not data:
            continue
        for _ in range(per_golden):
            path = os.path.join(out_dir, "m%05d.orbit" % len(paths))
            with open(path, "wb") as f:
                f.write(mutate(data, rng))
            paths.append(path)
    return paths


def check(binary, path, fmt):
    r = subprocess.run([binary, "check", "--format", fmt, path], capture_output=True,
                       timeout=60)
    return r.returncode, r.stdout, r.stderr


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    per_golden = int(sys.argv[3]) if len(sys.argv) == 4 else 6
    root = os.environ.get("ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rng = random.Random(int(os.environ.get("SEED", "17")))
    out_dir = os.environ.get("MUT_DIR") or tempfile.mkdtemp(prefix="diff_check_")
    os.makedirs(out_dir, exist_ok=True)
    inputs = []
    for pattern in INPUTS:
        inputs += sorted(glob.glob(os.path.join(root, pattern), recursive=True))
    inputs += mutations(root, out_dir, per_golden, rng)
    differences = 0
    for path in inputs:
        for fmt in ("human", "json"):
            if check(old, path, fmt) != check(new, path, fmt):
                differences += 1
                if differences <= 10:
                    print("differs:", fmt, path)
    print(len(inputs), "inputs,", differences, "differences")
    if differences:
        print("the mutated inputs are kept in", out_dir)
        sys.exit(1)
    if not os.environ.get("MUT_DIR"):
        shutil.rmtree(out_dir, ignore_errors=True)

if __name__ == "__main__":
    main()
