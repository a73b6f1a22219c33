#!/usr/bin/env python3
"""No text of the repository cites a numbered issue (the word, then a number: "issue",
"issues" or "issue #", each followed by digits) instead of giving the reason: the tracker those numbers point to is not in
the repository, so a reader cannot follow them. Code, comments, docs and tests say why
(docs/code-style.md, "Reasons, not issue numbers"). Prints each citation as FILE:LINE: TEXT
and exits 1 when there is one.

    test_issue_citations.py SOURCE_ROOT

Reads the files git tracks (every file under SOURCE_ROOT outside a git checkout), but
the data: the fuzz corpora, whose inputs are bytes that happen to spell anything, and
binary files.
"""
import os
import re
import subprocess
import sys

CITATION = re.compile(r'\bissues?\s+#?\d+', re.IGNORECASE)
# Data, not text anyone wrote.
DATA = ('fuzz/corpus/',)
# Folders never read outside a git checkout.
SKIPPED_DIRS = {'.git', 'node_modules', '__pycache__'}


def tracked_files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True,
                             check=True).stdout.decode()
        return sorted(name for name in out.split('\0') if name)
    except (OSError, subprocess.CalledProcessError):
        names = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith('build')]
            names += [os.path.relpath(os.path.join(folder, f), root) for f in files]
        return sorted(names)


def citations(root, name):
    try:
        with open(os.path.join(root, name), 'rb') as f:
            data = f.read()
    except OSError:   # a symbolic link to a folder, a file git knows but the tree lacks
        return []
    if b'\0' in data:
        return []
    text = data.decode('utf-8', errors='replace')
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)
            if CITATION.search(line)]


def main():
    root = os.path.abspath(sys.argv[1])
    found = 0
    for name in tracked_files(root):
        if name.startswith(DATA):
            continue
        for number, line in citations(root, name):
            print(f'{name}:{number}: {line[:160]}')
            found += 1
    if found:
        print(f'FAIL {found} citation(s) of an issue number: write the reason instead')
        return 1
    print('ok   no citation of an issue number')
    return 0


if __name__ == '__main__':
    sys.exit(main())
