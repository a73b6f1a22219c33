#!/usr/bin/env python3
"""The map of docs/architecture.md holds: every `#include "..."` of product code is one
its folder may use, a `*_internal.h` header is included only from its own folder, only
the command lines (and the one out-of-memory policy) write to standard output or error,
and a folder whose row names its source files (`server.c`, or `check_*.c`) names them all:
that row is the one list of them (lsp/server.h points to it).

    test_layers.py [--root DIR]

The table is read from docs/architecture.md ("The layers": a row per folder, its last
column the folders it may include, each in backticks). A header belongs to the folder
that holds it; generated headers to the folder that generates them. Before the tree, the
test runs itself on a small tree of its own with an upward include, a foreign internal
header, a stray printf and a file its row does not name, and fails unless it finds each.
"""
import argparse
import fnmatch
import os
import re
import sys
import tempfile

# Folders of product code (installed or linked into orbitc and orbit-run).
PRODUCT = ["base", "bytecode", "diagnostics", "compiler/syntax", "compiler/check",
           "compiler/lower", "format", "workspace", "lsp", "cli", "engine", "runtime",
           "testing", "playground", "compat"]
# Headers made at build time, by the folder whose meson.build makes them.
GENERATED = {"parser.h": "compiler/syntax", "version.h": "base"}
# The only product files that may write to standard output or standard error.
MAY_PRINT_FOLDERS = ["cli"]
MAY_PRINT_FILES = ["lsp/transport.c", "runtime/main.c", "base/memory.c"]
SOURCE_SUFFIXES = (".c", ".h", ".re", ".y", ".def")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRINTS = re.compile(r'\b(stdout|stderr)\b|(?<![\w.>])(printf|puts|putchar|perror|vprintf)\s*\(')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def read_map(root):
    """folder -> (set of folders it may include, the names and patterns of source files in
    backticks in what it owns), from docs/architecture.md."""
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    allowed = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4:
            continue
        folder = re.fullmatch(r"`([\w/]+)/`", cells[0])
        if not folder or folder.group(1) not in PRODUCT:
            continue
        allowed[folder.group(1)] = (set(re.findall(r"`([\w/]+)/`", cells[-1])),
                                    re.findall(r"`([\w*]+\.(?:c|re|y))`", cells[2]))
    return allowed


def sources(root, folder):
    base = os.path.join(root, folder)
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name)
        if os.path.isfile(path) and name.endswith(SOURCE_SUFFIXES):
            yield name, path


def owners(root):
    """header name -> the folder holding it."""
    owner = dict(GENERATED)
    for folder in PRODUCT:
        for name, _ in sources(root, folder):
            if name.endswith((".h", ".def")):
                owner.setdefault(name, folder)
    return owner


def may_print(folder, name):
    return folder in MAY_PRINT_FOLDERS or "%s/%s" % (folder, name) in MAY_PRINT_FILES


def problems(root):
    found = []
    rows = read_map(root)
    allowed = {folder: row[0] for folder, row in rows.items()}
    named = {folder: row[1] for folder, row in rows.items()}
    for folder in PRODUCT:
        if folder not in allowed:
            found.append("docs/architecture.md has no row for `%s/`" % folder)
    owner = owners(root)
    for folder in PRODUCT:
        if not os.path.isdir(os.path.join(root, folder)):
            found.append("%s/: no such folder" % folder)
            continue
        for name, path in sources(root, folder):
            text = open(path, encoding="utf-8", errors="replace").read()
            where = "%s/%s" % (folder, name)
            for m in INCLUDE.finditer(text):
                header = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                home = owner.get(os.path.basename(header))
                if home is None:
                    found.append("%s:%d: includes `%s`, which no product folder holds"
                                 % (where, line, header))
                elif home != folder and header.endswith("_internal.h"):
                    found.append("%s:%d: includes `%s`, internal to %s/"
                                 % (where, line, header, home))
                elif home != folder and home not in allowed.get(folder, set()):
                    found.append("%s:%d: includes `%s` of %s/, which %s/ may not use "
                                 "(docs/architecture.md)" % (where, line, header, home, folder))
            if not may_print(folder, name):
                code = STRING.sub('""', COMMENT.sub(" ", text))
                for m in PRINTS.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    found.append("%s:%d: writes to standard output or error (`%s`): only "
                                 "the command lines print" % (where, line, m.group(0).strip("( ")))
            if (named.get(folder) and name.endswith((".c", ".re", ".y"))
                    and not any(fnmatch.fnmatchcase(name, n) for n in named[folder])):
                found.append("%s: not named in the row of %s/ in docs/architecture.md, which "
                             "names its files" % (where, folder))
    return found


def self_test():
    """The test on a tree of its own must find an upward include, a foreign internal
    header, a stray print and a file its folder's row does not name, and nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        rows = ["| folder | library | owns | may include |", "|---|---|---|---|"]
        for folder in PRODUCT:
            below = PRODUCT[:PRODUCT.index(folder)]
            owns = "`ok.c`" if folder == "compiler/check" else "y"
            rows.append("| `%s/` | x | %s | %s |"
                        % (folder, owns, ", ".join("`%s/`" % b for b in below)))
            os.makedirs(os.path.join(tmp, folder))
            stem = folder.replace("/", "_")
            with open(os.path.join(tmp, folder, stem + ".h"), "w") as f:
                f.write("/* %s */\n" % stem)
            with open(os.path.join(tmp, folder, stem + "_internal.h"), "w") as f:
                f.write("\n")
        with open(os.path.join(tmp, "docs", "architecture.md"), "w") as f:
            f.write("\n".join(rows) + "\n")
        with open(os.path.join(tmp, "compiler/check", "ok.c"), "w") as f:
            f.write('#include "compiler_syntax.h"\n#include "compiler_check_internal.h"\n'
                    '/* printf(stderr) in a comment */\nstatic const char *s = "stdout";\n')
        with open(os.path.join(tmp, "compiler/check", "up.c"), "w") as f:
            f.write('#include "cli.h"\n#include "compiler_syntax_internal.h"\n'
                    'void f(void) { fprintf(stderr, "x"); }\n')
        found = problems(tmp)
    expected = ["compiler/check/up.c:1: includes `cli.h` of cli/",
                "compiler/check/up.c:2: includes `compiler_syntax_internal.h`, internal",
                "compiler/check/up.c:3: writes to standard output or error (`stderr`)",
                "compiler/check/up.c: not named in the row of compiler/check/"]
    ok = len(found) == len(expected) and all(f.startswith(e) for f, e in zip(found, expected))
    if not ok:
        print("test_layers: the self-test did not find exactly what it planted:")
        for f in found:
            print("  " + f)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = ap.parse_args()
    if not self_test():
        return 1
    found = problems(args.root)
    for f in found:
        print(f)
    files = sum(1 for folder in PRODUCT if os.path.isdir(os.path.join(args.root, folder))
                for _ in sources(args.root, folder))
    if found:
        print("test_layers: %d problems" % len(found))
        return 1
    print("test_layers: %d product files of %d folders keep to docs/architecture.md"
          % (files, len(PRODUCT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
