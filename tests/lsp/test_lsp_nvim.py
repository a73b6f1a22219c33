#!/usr/bin/env python3
"""`orbitc lsp` in a real editor: Neovim's built-in LSP client, headless (tests/lsp/lsp_nvim.lua).

    test_lsp_nvim.py --orbitc build/cli/orbitc [--nvim nvim]

Neovim opens a program with mistakes, waits for the diagnostics, requests the code
actions at a diagnostic, applies the preferred quick fix through its own workspace-edit
code, and reports the buffer and the diagnostics after it. This test checks the buffer
text and that the diagnostic went away. Then Neovim writes two badly laid out files (one
with LF line ends and text outside ASCII, one with CRLF) with format on save
(`vim.lsp.buf.format`, or `formatting_sync` in Neovim 0.7, from a BufWritePre
autocommand): the buffers and the files written must be what `orbitc fmt` makes of them.
Last, Neovim formats a range (`vim.lsp.buf.format` with a range, or `range_formatting`)
of a file of three declarations: the one the range touches is formatted, the others
are left as they are. HOME and the XDG directories are temporary, so
nothing of the real home directory is read or written (Neovim's LSP log included).

Without Neovim (the Debian package `neovim`, installed by tools/install-deps.sh) the
test is skipped with exit status 77, saying so loudly.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

PROGRAM = """worker "payments.charge" {
  input { amount: number }
}

workflow checkout {
  timeout 1m
  step charge {
    worker "payments.charge"
    with { amount: 10 }
    retry { attempts: 3, backof: exponential }
  }
  step pause { sleep 10s; retry { attempts: 2 } }
}
"""

# Formatted on save (names and contents).
UGLY = {
    "ugly.orbit": ('worker "pay.é" {input {amount:number}}\n'
                   'workflow checkout { timeout 1m\n'
                   '    step charge { worker "pay.é"; with {amount:10}; retry {attempts:3,backoff:exponential} }\n'
                   '  // the pause 😀\n'
                   '      step pause {sleep 10s}   \n'
                   '\n\n\n'
                   '}\n'),
    "ugly_crlf.orbit": ('type Money {amount:number,currency:string}\r\n'
                        'workflow refund {\r\n'
                        '        step back {worker "pay.refund"\r\n'
                        '  with {amount: 1}}}\r\n'),
}

# Range formatting: lines 2 and 3 of RANGE touch the workflow alone.
RANGE_DECLS = ['type A {a:int}\n',
               'workflow w {step s {sleep 1s}\n   step t {sleep 2s}}\n',
               'type  B {b:int}\n']
RANGE = "".join(RANGE_DECLS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orbitc", required=True)
    ap.add_argument("--nvim", default="nvim")
    args = ap.parse_args()
    nvim = shutil.which(args.nvim)
    if not nvim:
        print("=" * 72)
        print("SKIPPED: Neovim (`nvim`) is not installed, so `orbitc lsp` was NOT tested in a")
        print("real editor. Install it with tools/install-deps.sh (Debian package `neovim`).")
        print("=" * 72)
        return 77
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout
    print(version.split("\n")[0])
    tmp = tempfile.mkdtemp(prefix="orbitc-nvim-")
    try:
        project = os.path.join(tmp, "project")
        home = os.path.join(tmp, "home")
        os.makedirs(project)
        os.makedirs(home)
        path = os.path.join(project, "checkout.orbit")
        with open(path, "w") as f:
            f.write(PROGRAM)
        result = os.path.join(tmp, "result.txt")
        formatted = {}
        for name, text in UGLY.items():
            with open(os.path.join(project, name), "w", newline="") as f:
                f.write(text)
            formatted[name] = orbitc_fmt(args.orbitc, text)
        env = dict(os.environ, HOME=home, ORBITC=os.path.abspath(args.orbitc),
                   ORBIT_FILE=path, RESULT=result,
                   FORMAT_FILES=":".join(os.path.join(project, name) for name in UGLY),
                   RANGE_FILE=os.path.join(project, "range.orbit"), RANGE_FIRST="2",
                   RANGE_LAST="3")
        with open(env["RANGE_FILE"], "w") as f:
            f.write(RANGE)
        range_want = (RANGE_DECLS[0] + orbitc_fmt(args.orbitc, RANGE_DECLS[1]) +
                      RANGE_DECLS[2])
        for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                         ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"),
                         ("XDG_RUNTIME_DIR", "runtime")):
            env[var] = os.path.join(home, sub)
            os.makedirs(env[var], mode=0o700)
        for var in ("VIMINIT", "NVIM_LOG_FILE", "MYVIMRC", "NVIM", "NVIM_LISTEN_ADDRESS"):
            env.pop(var, None)
        cmd = [nvim, "--headless", "--clean", "-n", "-i", "NONE", "-u", "NONE",
               "-c", "luafile " + os.path.join(HERE, "lsp_nvim.lua")]
        try:
            p = subprocess.run(cmd, env=env, cwd=project, capture_output=True, text=True,
                               timeout=120, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            print("FAIL: Neovim did not finish within 120 seconds")
            return 1
        if not os.path.exists(result):
            print("FAIL: Neovim wrote no result (exit %d)\n%s\n%s" % (p.returncode, p.stdout,
                                                                      p.stderr))
            return 1
        with open(result) as f:
            lines = f.read().splitlines()
        print("\n".join(lines))
        on_disk = {}
        for name in UGLY:
            with open(os.path.join(project, name), newline="") as f:
                on_disk[name] = f.read()
        return check(lines, formatted, on_disk, range_want)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def orbitc_fmt(orbitc, text):
    p = subprocess.run([orbitc, "fmt", "-"], input=text.encode(), capture_output=True,
                       check=True)
    return p.stdout.decode()


def formatted_buffers(lines):
    """{name: (fileformat, changed, [buffer lines])} from the `formatted` and `fline`
    lines of the result."""
    buffers = {}
    current = None
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == "formatted":
            name, fileformat, changed = rest.split(" ")
            current = buffers[name] = (fileformat, changed, [])
        elif kind == "fline" and current:
            current[2].append(rest)
    return buffers


def check(lines, formatted, on_disk, range_want):
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)
    kinds = {}
    for line in lines:
        kind, _, rest = line.partition(" ")
        kinds.setdefault(kind, []).append(rest)
    expect("error" not in kinds, "the script reported an error: %r" % kinds.get("error"))
    before = kinds.get("diagnostic", [])
    expect("10:26 E0410 unknown retry setting `backof`" in before,
           "the E0410 diagnostic, at line 10 column 26: %r" % before)
    expect("12:27 E0307 `retry` is not allowed on a sleep step" in before,
           "the E0307 diagnostic: %r" % before)
    expect(kinds.get("action") == ["did you mean `backoff`?"],
           "the preferred quick fix: %r" % kinds.get("action"))
    text = [l for l in kinds.get("line", [])]
    expect("    retry { attempts: 3, backoff: exponential }" in text,
           "the buffer after the fix: %r" % text)
    expect(len(text) == PROGRAM.count("\n"), "no line lost or added")
    after = kinds.get("after", [])
    expect(after == ["12:27 E0307 `retry` is not allowed on a sleep step"],
           "after the fix only E0307 is left: %r" % after)
    buffers = formatted_buffers(lines)
    for name, want in formatted.items():
        expect(want != UGLY[name], "%s needs formatting" % name)
        fileformat, changed, text = buffers.get(name, ("?", "?", []))
        eol = "\r\n" if "\r\n" in UGLY[name] else "\n"
        expect(fileformat == ("dos" if eol == "\r\n" else "unix"), "%s read as %s" % (name, fileformat))
        expect(changed == "true", "%s: the buffer changed" % name)
        expect(text == want.split(eol)[:-1], "%s: the buffer is what orbitc fmt makes of it:\n%s"
               % (name, "\n".join(text)))
        expect(on_disk[name] == want, "%s: the file written is what orbitc fmt makes of it: %r"
               % (name, on_disk[name]))
    expect(range_want != RANGE, "the workflow needs formatting")
    expect(kinds.get("rline") == range_want.split("\n")[:-1],
           "range formatting formats the workflow alone: %r" % kinds.get("rline"))
    expect(kinds.get("exit") == ["0"], "the server exits with 0: %r" % kinds.get("exit"))
    for f in failures:
        print("FAIL: " + f)
    print("FAILED" if failures else "ok: Neovim applied the quick fix and the diagnostic went "
          "away; format on save wrote what orbitc fmt writes; a range was formatted")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
