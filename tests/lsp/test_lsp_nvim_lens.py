#!/usr/bin/env python3
"""A test run from its code lens in a real editor: Neovim's built-in LSP client, headless
(tests/lsp/lsp_nvim_lens.lua), on a copy of examples/ (the checkout and its tests).

    test_lsp_nvim_lens.py --orbitc build/cli/orbitc [--nvim nvim]

Neovim asks `orbitc lsp` for the code lenses of checkout.test.orbit: one `▶ Run test` on
the line of each `test "NAME"`. It runs the second through vim.lsp.codelens.run, which
sends workspace/executeCommand orbit.runTest itself; the message shown and the lens
after the run must be the test's result, the other lenses unchanged. HOME and the XDG
directories are temporary. Without Neovim (the Debian package `neovim`, installed by
tools/install-deps.sh) the test is skipped with exit status 77, saying so loudly.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orbitc", required=True)
    ap.add_argument("--nvim", default="nvim")
    args = ap.parse_args()
    nvim = shutil.which(args.nvim)
    if not nvim:
        print("=" * 72)
        print("SKIPPED: Neovim (`nvim`) is not installed, so the code lens of `orbitc lsp` was")
        print("NOT tested in a real editor. Install it with tools/install-deps.sh (`neovim`).")
        print("=" * 72)
        return 77
    tmp = tempfile.mkdtemp(prefix="orbitc-nvim-lens-")
    try:
        project = os.path.join(tmp, "project")
        home = os.path.join(tmp, "home")
        os.makedirs(project)
        os.makedirs(home)
        for name in ("checkout.orbit", "checkout.test.orbit"):
            shutil.copy(os.path.join(EXAMPLES, name), project)
        path = os.path.join(project, "checkout.test.orbit")
        with open(path, encoding="utf-8") as f:
            tests = [(i + 1, m.group(1)) for i, line in enumerate(f.read().split("\n"))
                     for m in [re.match(r'test "([^"]*)"', line)] if m]
        if len(tests) < 2:
            print("FAIL: examples/checkout.test.orbit has fewer than two tests: %r" % tests)
            return 1
        run_line, run_name = tests[1]
        result = os.path.join(tmp, "result.txt")
        env = dict(os.environ, HOME=home, ORBITC=os.path.abspath(args.orbitc),
                   ORBIT_FILE=path, RESULT=result, RUN_LINE=str(run_line))
        for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                         ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"),
                         ("XDG_RUNTIME_DIR", "runtime")):
            env[var] = os.path.join(home, sub)
            os.makedirs(env[var], mode=0o700)
        for var in ("VIMINIT", "NVIM_LOG_FILE", "MYVIMRC", "NVIM", "NVIM_LISTEN_ADDRESS"):
            env.pop(var, None)
        # what `orbitc test` says of the test: the lens must say the same
        p = subprocess.run([os.path.abspath(args.orbitc), "test", "--filter", run_name, "."], cwd=project,
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"^PASS .*\((\w+): (.+) at (\S+)\)$", p.stdout, re.M)
        if not m:
            print("FAIL: orbitc test does not pass %r:\n%s" % (run_name, p.stdout))
            return 1
        want_title = "✓ passed (%s at %s)" % (m.group(2), m.group(3))
        cmd = [nvim, "--headless", "--clean", "-n", "-i", "NONE", "-u", "NONE",
               "-c", "luafile " + os.path.join(HERE, "lsp_nvim_lens.lua")]
        try:
            p = subprocess.run(cmd, env=env, cwd=project, capture_output=True, text=True,
                               timeout=180, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            print("FAIL: Neovim did not finish within 180 seconds")
            return 1
        if not os.path.exists(result):
            print("FAIL: Neovim wrote no result (exit %d)\n%s\n%s" % (p.returncode, p.stdout,
                                                                      p.stderr))
            return 1
        with open(result, encoding="utf-8") as f:
            lines = f.read().splitlines()
        print("\n".join(lines))
        failures = []

        def expect(cond, what):
            if not cond:
                failures.append(what)
        kinds = {}
        for line in lines:
            kind, _, rest = line.partition(" ")
            kinds.setdefault(kind, []).append(rest)
        expect("error" not in kinds, "the script reported an error: %r" % kinds.get("error"))
        before = ["%d ▶ Run test" % line for line, _ in tests]
        expect(kinds.get("lens") == before, "a lens on each test's line: %r" % kinds.get("lens"))
        expect(kinds.get("message") == ['3 test "%s": %s' % (run_name, want_title)],
               "the message: %r" % kinds.get("message"))
        after = ["%d %s" % (line, want_title if line == run_line else "▶ Run test")
                 for line, _ in tests]
        expect(kinds.get("ran") == after, "the lenses after the run: %r" % kinds.get("ran"))
        expect(kinds.get("exit") == ["0"], "the server exits with 0: %r" % kinds.get("exit"))
        for f in failures:
            print("FAIL: " + f)
        print("FAILED" if failures else "ok: Neovim ran a test from its code lens, and the "
              "lens shows what orbitc test says")
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
