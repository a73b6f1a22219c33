#!/usr/bin/env python3
"""Test of the corpus generator against the real checker: generated programs must check
clean (exit 0, no diagnostic at all), the same seed must give the same bytes, and a
program with injected mistakes must fail with at least one error per mistake. And the
adversarial shapes, each of which once took quadratic time or memory somewhere (a
chain of record types, a long string concatenation, misspelt fields of a wide record
type and misspelt workflows among many: did-you-mean; child workflows each starting the
next twice: the worst-case analysis) scale: 10x the input takes at most
11x the instructions (callgrind, when valgrind is installed) and 11x the peak memory;
`dis --format json` of a large module takes memory of the order of the file.

    test_gen_corpus.py --orbitc build/cli/orbitc
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import sanitizers  # noqa: E402

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gen_corpus.py")


def generate(path, *args):
    subprocess.run([sys.executable, GEN, "-o", path] + list(args), check=True)
    with open(path, "rb") as f:
        return f.read()


def check(orbitc, path):
    p = subprocess.run([orbitc, "check", "--format=json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    diags = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    return p.returncode, diags


# name, the command's words (FILE: the generated program; ORBC: it built), the generator's
# arguments for the small input, the same for ten times that input.
SCALING = [
    ("a chain of record types", ["build", "FILE", "-o", "ORBC"],
     ["--shape", "typechain", "--types", "3000"], ["--shape", "typechain", "--types", "30000"]),
    ("a long string concatenation", ["build", "FILE", "-o", "ORBC"],
     ["--shape", "strconcat", "--terms", "100"], ["--shape", "strconcat", "--terms", "1000"]),
    ("misspelt fields of a wide type (a did-you-mean each)", ["check", "FILE"],
     ["--shape", "badfields", "--fields", "300"], ["--shape", "badfields", "--fields", "3000"]),
    ("misspelt workflows among many (a did-you-mean each)", ["check", "FILE"],
     ["--shape", "badworkflows", "--workflows", "300"],
     ["--shape", "badworkflows", "--workflows", "3000"]),
    ("child workflows, each starting the next twice (the worst-case analysis)",
     ["check", "FILE"], ["--shape", "childdag", "--workflows", "3000"],
     ["--shape", "childdag", "--workflows", "30000"]),
]
SLACK = 11.0


def measure(orbitc, words, gen_args, tmp):
    """(instructions or None, peak RSS in KiB) of one run on a generated program."""
    src, orbc = os.path.join(tmp, "scale.orbit"), os.path.join(tmp, "scale.orbc")
    generate(src, *gen_args)
    if "dis" in words:
        subprocess.run([orbitc, "build", src, "-o", orbc], check=True)
    cmd = [orbitc] + [src if w == "FILE" else orbc if w == "ORBC" else w for w in words]
    rss_file = os.path.join(tmp, "rss")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    rss = int(open(rss_file).read().split()[-1])
    instructions = None
    if shutil.which("valgrind"):
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                           + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=600)
        m = re.search(r"Collected : (\d+)", p.stderr.decode())
        instructions = int(m.group(1)) if m else None
    return instructions, rss


def scaling(orbitc, tmp):
    failures = []
    for name, words, small, big in SCALING:
        (i1, r1), (i10, r10) = (measure(orbitc, words, small, tmp),
                                measure(orbitc, words, big, tmp))
        print("%s: instructions %s -> %s, peak RSS %d -> %d KiB" % (name, i1, i10, r1, r10))
        if i1 and i10 and i10 > SLACK * i1:
            failures.append("%s: 10x the input takes %.1fx the instructions" % (name, i10 / i1))
        if r10 > SLACK * r1:
            failures.append("%s: 10x the input takes %.1fx the peak memory" % (name, r10 / r1))
    return failures


def dis_json_memory(orbitc, tmp):
    """`dis --format json` writes its document piece by piece: its peak memory is the
    loaded module's, a few times the file, not the whole JSON tree's (58x the file)."""
    src, orbc = os.path.join(tmp, "dis.orbit"), os.path.join(tmp, "dis.orbc")
    generate(src, "--shape", "chain", "--steps", "30000")
    subprocess.run([orbitc, "build", src, "-o", orbc], check=True)
    rss_file = os.path.join(tmp, "rss")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, orbitc, "dis", "--format",
                    "json", orbc], stdout=subprocess.DEVNULL, check=True, timeout=300)
    rss = int(open(rss_file).read().split()[-1]) * 1024
    size = os.path.getsize(orbc)
    print("dis --format json: peak RSS %.1f MB for a %.1f MB file" % (rss / 1e6, size / 1e6))
    if sanitizers.built_with(orbitc):
        return []   # AddressSanitizer's shadow memory and quarantine: no absolute bound
    if rss > 8 * size + (16 << 20):
        return ["dis --format json: peak RSS %.0fx the file" % (rss / size)]
    return []


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
            ("typechain", ["--shape", "typechain", "--types", "2000"]),
            ("strconcat", ["--shape", "strconcat", "--terms", "1000"]),
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
        if os.access("/usr/bin/time", os.X_OK):
            failures += scaling(args.orbitc, tmp)
            failures += dis_json_memory(args.orbitc, tmp)
    for f in failures:
        print("FAIL " + f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
