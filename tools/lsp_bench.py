#!/usr/bin/env python3
"""Benchmark of `orbitc lsp` (docs/performance.md, "Language server"); not a test.

    tools/lsp_bench.py [--orbitc build/cli/orbitc] [--edits 200] [--rss-edits 10000]
                       [--big-size 1M] [--big-rss-edits 1000]
    tools/lsp_bench.py --tokens N [--orbitc ...] [--big-size 1M]
    tools/lsp_bench.py --hints N [--big-size 1M]

For each program (examples/ as a workspace folder, and a generated program of
--big-size in one file), it opens the program, then makes --edits edits one at a time
(a character typed, then removed: every other version has the original text), each a
textDocument/didChange, and measures the time until the publishDiagnostics of that
version arrives: p50, p95 and the maximum; and the server's CPU time per edit beside
that of `orbitc check` on the same file (CPU time depends less on the machine's load
than wall time does). Then it makes --rss-edits more edits
(--big-rss-edits for the big program) and reports the server's resident memory
(VmRSS and VmHWM from /proc) after every tenth of them, to show whether memory grows
with the number of edits.

With --tokens N it measures only the semantic tokens of the generated program: the
server's CPU time per /full, /full/delta (after an edit) and /range request.
With --hints N it measures inlay hints only: N requests of 1,000-line viewports spread
over the generated program, the server's CPU time per request and the time to each
answer, then the whole file once.

Run it on an optimised build on a quiet machine.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from lsp_client import Client, file_uri  # noqa: E402


def rss_kb(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


def cpu_seconds(pid):
    """CPU time of a process so far (/proc/PID/schedstat: nanoseconds on a CPU)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0]) / 1e9


def check_cpu_seconds(orbitc, path, runs=5):
    """The least CPU time of `orbitc check PATH` over a few runs."""
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([orbitc, "check", path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = t if best is None else min(best, t)
    return best


def percentile(values, p):
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * (len(values) - 1)))))
    return values[k]


class Session:
    def __init__(self, orbitc, folder, path):
        self.tmp = tempfile.mkdtemp(prefix="orbitc-lsp-bench-")
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        self.client = Client([orbitc, "lsp"], env=env)
        self.client.initialize(file_uri(folder))
        self.uri = file_uri(path)
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.version = 1
        start = time.monotonic()
        self.client.open(self.uri, self.text, self.version)
        self.client.wait_diagnostics(self.uri, self.version, timeout=600)
        self.open_time = time.monotonic() - start
        # where the edits go: the start of the second line
        self.line = 1 if "\n" in self.text else 0

    def edit(self):
        """One edit, and the time until its diagnostics arrive."""
        self.version += 1
        if self.version % 2 == 0:
            change = {"range": {"start": {"line": self.line, "character": 0},
                                "end": {"line": self.line, "character": 0}}, "text": " "}
        else:
            change = {"range": {"start": {"line": self.line, "character": 0},
                                "end": {"line": self.line, "character": 1}}, "text": ""}
        start = time.monotonic()
        self.client.change(self.uri, self.version, [change])
        self.client.wait_diagnostics(self.uri, self.version, timeout=600)
        self.client.pending.clear()
        return time.monotonic() - start

    def close(self):
        status = self.client.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)
        return status


def run(name, orbitc, folder, path, edits, rss_edits):
    size = os.path.getsize(path)
    s = Session(orbitc, folder, path)
    cpu_before = cpu_seconds(s.client.proc.pid)
    latencies = [s.edit() for _ in range(edits)]
    cpu_per_edit = (cpu_seconds(s.client.proc.pid) - cpu_before) / edits
    ms = [t * 1000 for t in latencies]
    print("%s (%s, %d bytes)" % (name, os.path.relpath(path, ROOT) if path.startswith(ROOT)
                                 else os.path.basename(path), size))
    print("  open until the first diagnostics: %.1f ms" % (s.open_time * 1000))
    print("  didChange -> publishDiagnostics over %d edits: p50 %.1f ms, p95 %.1f ms, "
          "max %.1f ms" % (edits, percentile(ms, 50), percentile(ms, 95), max(ms)))
    print("  server CPU time per edit: %.1f ms (`orbitc check` of the file: %.1f ms, least of "
          "5 runs, process start included)" % (cpu_per_edit * 1000,
                                                check_cpu_seconds(orbitc, path) * 1000))
    pid = s.client.proc.pid
    rss, hwm = rss_kb(pid)
    print("  resident memory after %d edits: %.1f MB (peak %.1f MB)"
          % (edits, rss / 1024, hwm / 1024))
    step = max(1, rss_edits // 10)
    done = edits
    for k in range(1, rss_edits + 1):
        s.edit()
        if k % step == 0:
            rss, hwm = rss_kb(pid)
            print("  after %6d edits: resident %.1f MB, peak %.1f MB"
                  % (done + k, rss / 1024, hwm / 1024))
    status = s.close()
    print("  exit status %d" % status)


def generate_big(work, size):
    """The generated program of `size` (gen_corpus.py, seed 1), alone in a folder."""
    big_dir = os.path.join(work, "big")
    os.makedirs(big_dir)
    big = os.path.join(big_dir, "big.orbit")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_corpus.py"), "--size", size,
                    "--seed", "1", "-o", big], check=True)
    return big_dir, big


def token_requests(orbitc, folder, path, requests):
    """--tokens: the server's CPU time per semantic tokens request on the big program,
    its analysis ready (the check a request may wait for is the edit's, measured above):
    /full, /full/delta after a one-character edit, and /range of a 100-line viewport."""
    s = Session(orbitc, folder, path)
    pid = s.client.proc.pid
    doc = {"uri": s.uri}

    def cpu_ms(method, params):
        before = cpu_seconds(pid)
        result = s.client.request(method, params, timeout=600)
        return (cpu_seconds(pid) - before) * 1000, result

    full = [cpu_ms("textDocument/semanticTokens/full", {"textDocument": doc})
            for _ in range(requests)]
    count = len(full[-1][1]["data"]) // 5
    deltas = []
    previous = full[-1][1]["resultId"]
    for _ in range(requests):
        s.edit()
        ms, result = cpu_ms("textDocument/semanticTokens/full/delta",
                            {"textDocument": doc, "previousResultId": previous})
        previous = result["resultId"]
        deltas.append(ms)
    middle = s.text.count("\n") // 2
    viewport = {"start": {"line": middle, "character": 0},
                "end": {"line": middle + 100, "character": 0}}
    ranges = [cpu_ms("textDocument/semanticTokens/range", {"textDocument": doc,
                                                            "range": viewport})[0]
              for _ in range(requests)]
    print("semantic tokens of the generated program (%d bytes, %d tokens), server CPU per "
          "request over %d requests:" % (os.path.getsize(path), count, requests))
    for name, values in (("full", [ms for ms, _ in full]), ("full/delta after an edit", deltas),
                         ("range of 100 lines", ranges)):
        print("  %-26s p50 %.1f ms, max %.1f ms" % (name, percentile(values, 50), max(values)))
    print("  (for scale: `orbitc check` of the file, least of 5 runs: %.1f ms)"
          % (check_cpu_seconds(orbitc, path) * 1000))
def hints_bench(orbitc, folder, path, requests):
    """textDocument/inlayHint of 1,000-line viewports spread over the file, one at a time
    (the program is checked before the first): the server's CPU time per request, and the
    time to the answer."""
    s = Session(orbitc, folder, path)
    lines = s.text.count("\n") + 1
    pid = s.client.proc.pid
    tops = [(k * max(1, lines - 1000)) // max(1, requests - 1) for k in range(requests)]
    latencies, counts = [], []
    cpu_before = cpu_seconds(pid)
    for top in tops:
        start = time.monotonic()
        hints = s.client.request("textDocument/inlayHint", {
            "textDocument": {"uri": s.uri},
            "range": {"start": {"line": top, "character": 0},
                      "end": {"line": top + 1000, "character": 0}}})
        latencies.append((time.monotonic() - start) * 1000)
        counts.append(len(hints))
    cpu_per_request = (cpu_seconds(pid) - cpu_before) / requests
    start = time.monotonic()
    whole = s.client.request("textDocument/inlayHint", {
        "textDocument": {"uri": s.uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}})
    whole_ms = (time.monotonic() - start) * 1000
    print("inlay hints (%s, %d bytes, %d lines)" % (os.path.basename(path), len(s.text), lines))
    print("  %d viewports of 1,000 lines: %d to %d hints each; server CPU time per request "
          "%.2f ms; request -> answer p50 %.2f ms, p95 %.2f ms, max %.2f ms"
          % (requests, min(counts), max(counts), cpu_per_request * 1000,
             percentile(latencies, 50), percentile(latencies, 95), max(latencies)))
    print("  the whole file: %d hints in %.1f ms" % (len(whole), whole_ms))
    print("  exit status %d" % s.close())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orbitc", default=os.path.join(ROOT, "build", "compiler", "orbitc"))
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--rss-edits", type=int, default=10000)
    ap.add_argument("--big-size", default="1M")
    ap.add_argument("--big-rss-edits", type=int, default=1000)
    ap.add_argument("--tokens", type=int, default=0, metavar="N",
                    help="only the semantic tokens of the big program, N requests of each kind")
    ap.add_argument("--hints", type=int, default=0, metavar="N",
                    help="only inlay hints: N requests of 1,000-line viewports of the "
                         "generated program")
    args = ap.parse_args()
    orbitc = os.path.abspath(args.orbitc)
    work = tempfile.mkdtemp(prefix="orbitc-lsp-bench-")
    try:
        if args.tokens:
            big_dir, big = generate_big(work, args.big_size)
            token_requests(orbitc, big_dir, big, args.tokens)
            return
        if args.hints:
            big = os.path.join(work, "big.orbit")
            subprocess.run([sys.executable, os.path.join(HERE, "gen_corpus.py"), "--size",
                            args.big_size, "--seed", "1", "-o", big], check=True)
            hints_bench(orbitc, work, big, args.hints)
            return
        examples = os.path.join(work, "examples")
        shutil.copytree(os.path.join(ROOT, "examples"), examples)
        run("examples/", orbitc, examples, os.path.join(examples, "checkout.orbit"),
            args.edits, args.rss_edits)
        big_dir, big = generate_big(work, args.big_size)
        run("generated program", orbitc, big_dir, big, args.edits, args.big_rss_edits)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
