#!/usr/bin/env python3
"""Test of the corpus generator against the real checker: generated programs must check
clean (exit 0, no diagnostic at all), the same seed must give the same bytes, and a
program with injected mistakes must fail with at least one error per mistake.

    test_gen_corpus.py --orbitc build/cli/orbitc
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_corpus.py")


def generate(path, *args):
    subprocess.run([sys.executable, GEN, "-o", path] + list(args), check=True)
    with open(path, "rb") as f:
        return f.read()


def check(orbitc, path):
    p = subprocess.run([orbitc, "check", "--format=json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    diags = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    return p.returncode, diags


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--orbitc", required=True)
    args = p.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = [
            ("seed 1", ["--size", "200K", "--seed", "1"]),
            ("seed 2, CRLF", ["--size", "200K", "--seed", "2", "--crlf"]),
            ("one line", ["--shape", "longline", "--size", "100K", "--seed", "3"]),
            ("chain", ["--shape", "chain", "--steps", "2000"]),
            ("deep", ["--shape", "deep", "--size", "20K"]),
            ("wide", ["--shape", "wide", "--fields", "5000"]),
            ("longexpr", ["--shape", "longexpr", "--terms", "1000"]),
        ]
        for name, gen_args in clean:
            path = os.path.join(tmp, "clean.orbit")
            generate(path, *gen_args)
            status, diags = check(args.orbitc, path)
            if status != 0 or diags:
                first = diags[0] if diags else {}
                failures.append("%s: exit %d, %d diagnostics; first: %s:%s %s %s" % (
                    name, status, len(diags), first.get("line"), first.get("column"),
                    first.get("code"), first.get("message")))

        a = generate(os.path.join(tmp, "a.orbit"), "--size", "50K", "--seed", "9")
        b = generate(os.path.join(tmp, "b.orbit"), "--size", "50K", "--seed", "9")
        c = generate(os.path.join(tmp, "c.orbit"), "--size", "50K", "--seed", "10")
        if a != b:
            failures.append("the same seed gave different programs")
        if a == c:
            failures.append("different seeds gave the same program")

        path = os.path.join(tmp, "errors.orbit")
        p = subprocess.run([sys.executable, GEN, "-o", path, "--size", "100K", "--seed", "4",
                            "--errors", "20", "--stats"], stderr=subprocess.PIPE, check=True)
        injected = [int(l.split()[3].rstrip(":")) for l in p.stderr.decode().splitlines()
                    if l.startswith("mistake at line")]
        status, diags = check(args.orbitc, path)
        error_lines = {d.get("line") for d in diags if d.get("severity") == "error"}
        missed = [n for n in injected if n not in error_lines]
        if status != 1 or len(injected) != 20 or missed:
            failures.append("--errors 20: exit %d, %d mistakes injected, no error on lines %s"
                            % (status, len(injected), missed))
    for f in failures:
        print("FAIL " + f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
