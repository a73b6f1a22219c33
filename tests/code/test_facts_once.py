#!/usr/bin/env python3
"""Each fact is written once (docs/architecture.md): a definition the
product code shares must not grow a second copy. Each check names a pattern that may
match in one file of the product code at most (or in none: a name that is gone); the
test prints every file beyond that and exits 1.

    test_facts_once.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# The folders of the product code (not tests/, tools/, the fuzz targets).
PRODUCT = ('base', 'bytecode', 'cli', 'compiler', 'diagnostics', 'format', 'lsp',
           'runtime', 'workspace')

# (what, pattern, the files that may hold it: None = none at all)
CHECKS = [
    ('the FNV-1a offset basis', r'0xcbf29ce484222325|14695981039346656037',
     {'base/hash.h'}),
    ('the FNV-1a prime', r'0x100000001b3|1099511628211|FNV_PRIME', {'base/hash.h'}),
    ('the compiler\'s "no index"', r'\bNO_INDEX\s*=|define\s+NO_INDEX\b',
     {'base/no_index.h'}),
    ('the old name of "no index"', r'\bPROGRAM_NONE\b', None),
    ('a growable text buffer', r'typedef struct \w*Buffer\s*{', {'base/textbuf.h'}),
    ('the server\'s old text buffer', r'\blsp_buffer_\w+', None),
    ('where each member is allowed (a row of bools)',
     r'KW_RETRY\b[^\n]*\b(true|false),\s*(true|false)\b', {'compiler/check/placement.c'}),
    ('a list of the members a place holds', r'"worker",\s*"using"|"idempotency_key",\s*"retry"',
     None),
    ('the old member lists', r'\b(STEP|COMPENSATE|BODY)_MEMBERS\b', None),
    ('the type Place (a place in a workflow)', r'typedef\s+(enum|struct)\s+Place\b',
     {'compiler/check/placement.h'}),
    ('the old name of a span\'s lines and columns', r'\brender_place\b', None),
    ('the kinds of values (liborbc\'s ORBC_KIND_*)',
     r'\bV_(NULL|BOOL|INT|NUMBER|STRING|DURATION|LIST|RECORD)\b|\bValueKind\b', None),
    ('JSON string text from text with invalid UTF-8', r'json_stringn',
     {'diagnostics/json_text.c'}),
    ('our functions in jansson\'s namespace', r'\bjson_(text|write)\s*\(', None),
    ('the server\'s old JSON string text', r'\blsp_json_text', None),
]


def product_files(root):
    for folder in PRODUCT:
        for path in sorted((root / folder).rglob('*')):
            if path.suffix in ('.c', '.h', '.re', '.y', '.def') and path.is_file():
                yield path


def main():
    root = pathlib.Path(sys.argv[1])
    texts = {str(p.relative_to(root)): p.read_text(errors='replace')
             for p in product_files(root)}
    failures = 0
    for what, pattern, allowed in CHECKS:
        found = sorted(name for name, text in texts.items() if re.search(pattern, text))
        extra = [name for name in found if allowed is None or name not in allowed]
        for name in extra:
            print('%s written again in %s (allowed: %s)'
                  % (what, name, ', '.join(sorted(allowed)) if allowed else 'nowhere'))
        failures += len(extra)
    print('%d checks over %d files, %d copies too many' % (len(CHECKS), len(texts), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
