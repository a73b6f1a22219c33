#!/usr/bin/env python3
"""tools/lex_dump against the sources it reads: over every golden source, the examples
and the standard library, its tokens and comments are in source order, never overlap,
lie inside the file, and cover every byte that is not white space; a keyword token spells
its keyword, an identifier is a word, a string starts with a quote, a comment with `//`,
`/*` or `#`. The semantic tokens' test (test_lsp_tokens.py) and the TextMate grammar's
test compare against lex_dump, so it must be right first.

    test_lex_dump.py --lex-dump build/tools/lex_dump
"""
import argparse
import json
import os
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cli'))
from test_fmt import ROOT, sources  # noqa: E402  every Orbit source of the repository

WHITE = b' \t\f\v\r\n'
# What the lexer reads without handing it to the parser, each reported: a closing bracket
# with nothing open for it, a separator after another one (an empty member).
DROPPED = b'}])],;'
# Files the lexer abandons (a fatal error): nothing is read after the point of abandon.
ABANDONED = {'tests/golden/lex/nesting_too_deep.orbit'}
PUNCTUATION = {
    'COMMA': b',', 'SEMI': b';', 'COLON': b':', 'DOT': b'.', 'LBRACE': b'{', 'RBRACE': b'}',
    'LBRACK': b'[', 'RBRACK': b']', 'LPAREN': b'(', 'RPAREN': b')', 'QUESTION': b'?',
    'QQ': b'??', 'EQ': b'==', 'NE': b'!=', 'LT': b'<', 'LE': b'<=', 'GT': b'>', 'GE': b'>=',
    'PLUS': b'+', 'MINUS': b'-', 'STAR': b'*', 'SLASH': b'/', 'PERCENT': b'%', 'ASSIGN': b'=',
}
# Operators the lexer also reads from a word or a single character (reported).
SPELLINGS = {'OROR': (b'||', b'|', b'or'), 'ANDAND': (b'&&', b'&', b'and'),
             'BANG': (b'!', b'not')}


def lex_dump(tool, path):
    out = subprocess.run([tool, path], check=True, capture_output=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


def lex_dump_all(tool, paths):
    """{path: its tokens} of one lex_dump of every path (each file's tokens after a line
    {"file": PATH}: a process for all, which the sanitizers' run starts once; also
    tests/lsp/test_lsp_tokens.py's)."""
    if len(paths) == 1:   # no line names a lone file
        return {paths[0]: lex_dump(tool, paths[0])}
    out = subprocess.run([tool] + paths, check=True, capture_output=True).stdout
    tokens = {}
    for line in out.decode().splitlines():
        token = json.loads(line)
        if 'file' in token:
            current = tokens.setdefault(token['file'], [])
        else:
            current.append(token)
    assert sorted(tokens) == sorted(paths), 'lex_dump named other files than it was given'
    return tokens


def unread(text, start, end):
    """What in text[start, end) should have been a token: not white space, a dropped
    closer or separator, the byte order mark or an invisible character (each reported
    and skipped as white space)."""
    gap = bytes(b for b in text[start:end] if b not in WHITE + DROPPED)
    if start == 0:
        gap = gap.removeprefix(b'\xef\xbb\xbf')
    return [c for c in gap.decode('utf-8', 'replace')
            if unicodedata.category(c) not in ('Zs', 'Cf', 'Zl', 'Zp')]


def problems(path, tokens):
    with open(path, 'rb') as f:
        text = f.read()
    found = []
    at = 0
    for t in tokens:
        start, end, kind = t['start'], t['end'], t['kind']
        piece = text[start:end]
        if not (at <= start < end <= len(text)):
            found.append(f'{kind} [{start}, {end}) out of order or outside the file')
            continue
        gap = unread(text, at, start)
        if gap:
            found.append(f'{"".join(gap[:20])!r} before {start} belongs to no token')
        at = end
        if kind.startswith('T_'):
            ok = piece == kind[2:].lower().encode()
        elif kind in ('RPAREN', 'RBRACK', 'RBRACE'):
            ok = piece in (b')', b']', b'}')   # a mismatched closer, read as the expected one
        elif kind in PUNCTUATION:
            ok = piece == PUNCTUATION[kind]
        elif kind in SPELLINGS:
            ok = piece in SPELLINGS[kind]
        elif kind == 'IDENT':
            ok = not piece[:1].isdigit() and not any(b in WHITE for b in piece)
        elif kind == 'STRING':
            ok = piece[:1] in (b'"', b"'")
        elif kind == 'COMMENT':
            ok = piece.startswith((b'//', b'/*', b'#'))
        elif kind in ('INT', 'NUMBER', 'DURATION'):
            ok = piece[:1].isdigit()
        else:
            ok = kind == 'STRAY'
        if not ok:
            found.append(f'{kind} [{start}, {end}) spells {piece[:40]!r}')
    if unread(text, at, len(text)) and os.path.relpath(path, ROOT) not in ABANDONED:
        found.append(f'bytes after {at} belong to no token')
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lex-dump', required=True)
    args = ap.parse_args()
    failed = 0
    paths = sources()
    tokens = lex_dump_all(args.lex_dump, paths)
    for path in paths:
        found = problems(path, tokens[path])
        if found:
            failed += 1
            print(f'FAIL {os.path.relpath(path, ROOT)}:')
            for p in found[:5]:
                print('   ', p)
    kinds = {t['kind'] for t in lex_dump(args.lex_dump, os.path.join(ROOT, 'examples', 'checkout.orbit'))}
    for want in ('T_WORKFLOW', 'T_STEP', 'T_RETRY', 'IDENT', 'STRING', 'DURATION', 'COMMENT'):
        if want not in kinds:
            failed += 1
            print(f'FAIL examples/checkout.orbit has no {want} token')
    print(f'{len(paths)} sources, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
