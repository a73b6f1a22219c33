#!/usr/bin/env python3
"""The export list of the WebAssembly build, read from the C: every function declared
with the mark WASM_EXPORT (base/attributes.h) in the C files and headers of the folders
given (tools/playground_wasm.py passes those of the libraries it links; the
facts-once test reads them too). Each name once, sorted.

    wasm_exports.py FOLDER...     prints the names, one a line
"""
import pathlib
import re
import sys

# WASM_EXPORT, the return type, the name, its parenthesis (over lines: a declaration may wrap).
MARK = re.compile(r'^\s*WASM_EXPORT\s+[^;{()]*?\b([A-Za-z_]\w*)\s*\(', re.M)


def marked(folders):
    names = set()
    for folder in folders:
        for path in sorted(pathlib.Path(folder).glob('*.[ch]')):
            names.update(MARK.findall(path.read_text(encoding='utf-8', errors='replace')))
    return sorted(names)


if __name__ == '__main__':
    for name in marked(sys.argv[1:]):
        print(name)
