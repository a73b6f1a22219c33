#!/usr/bin/env python3
"""Generates repositories of Orbit programs from tools/gen_corpus.py's realistic programs,
for `--jobs` and the cache of `orbitc check` (tests/cli/test_jobs.py, tools/bench_repo.py).

    gen_repo.py roots DIR [--count 1000] [--size 20K] [--errors-every 10]
        COUNT program roots DIR/pNNNN/ (each an orbit.program and main.orbit of about
        SIZE); every ERRORS-EVERY-th program has a few typical mistakes (0: none)
    gen_repo.py files DIR [--count 10000] [--size 2K]
        one program of COUNT files of about SIZE each: one realistic program of
        COUNT x SIZE bytes split between its top-level declarations

The output is a pure function of the arguments.
"""
import argparse
import io
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_corpus  # noqa: E402


def program_text(size, seed, errors=0):
    """A realistic program of about `size` bytes, with `errors` mistakes."""
    buf = io.BytesIO()
    out = gen_corpus.Out(buf, False, False)
    args = argparse.Namespace(seed=seed, shape="realistic", crlf=False, errors=errors)
    gen_corpus.Generator(args, out).realistic(size)
    out.finish()
    text = buf.getvalue().decode("utf-8")
    if errors:
        text, _ = gen_corpus.inject_errors(text, errors, random.Random(seed + 7919))
    return text


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def make_roots(directory, count, size, errors_every=10):
    """COUNT program roots below `directory`; returns their directories."""
    roots = []
    for i in range(count):
        root = os.path.join(directory, "p%04d" % i)
        errors = 3 if errors_every and i % errors_every == errors_every - 1 else 0
        write(os.path.join(root, "orbit.program"), "program p%04d {}\n" % i)
        write(os.path.join(root, "main.orbit"), program_text(size, i + 1, errors))
        roots.append(root)
    return roots


def split_declarations(text):
    """The top-level declarations of a program (each with the comments above it)."""
    parts, current = [], []
    for line in text.splitlines(keepends=True):
        starts = line[:1] not in ("", " ", "\t", "\n", "}") and not line.startswith("//")
        if starts and current and any(l.strip() and not l.startswith("//") for l in current):
            parts.append("".join(current))
            current = []
        current.append(line)
    if current:
        parts.append("".join(current))
    return parts


def make_files(directory, count, size):
    """One program of COUNT files below `directory` (no root: all files are one program)."""
    parts = split_declarations(program_text(count * size, 1))
    total = sum(len(part) for part in parts)
    files = []
    at = written = 0
    for i in range(count):
        # The declarations in order, each file taking them until it reaches its share of
        # the bytes: at least one each, while enough are left for the files after it.
        end = at + 1
        written += len(parts[at]) if at < len(parts) else 0
        while (end < len(parts) - (count - i - 1)
               and written + len(parts[end]) <= (i + 1) * total // count):
            written += len(parts[end])
            end += 1
        chunk = parts[at:end] if i < count - 1 else parts[at:]
        at = end
        path = os.path.join(directory, "f%02d" % (i // 1000), "m%05d.orbit" % i)
        write(path, "".join(chunk))
        files.append(path)
    return files


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=("roots", "files"))
    p.add_argument("directory")
    p.add_argument("--count", type=int)
    p.add_argument("--size")
    p.add_argument("--errors-every", type=int, default=10)
    args = p.parse_args()
    if args.kind == "roots":
        make_roots(args.directory, args.count or 1000,
                   gen_corpus.parse_size(args.size or "20K"), args.errors_every)
    else:
        make_files(args.directory, args.count or 10000, gen_corpus.parse_size(args.size or "2K"))


if __name__ == "__main__":
    main()
