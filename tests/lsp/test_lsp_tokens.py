#!/usr/bin/env python3
"""Semantic tokens of `orbitc lsp` (docs/editors.md, "Semantic tokens"), by the scripted
client, against the compiler's own lexer (tools/lex_dump) and the server's resolved names:

- over every golden source, the examples and the standard library, in UTF-16 and UTF-8:
  each lexer token gets exactly one semantic token, at its place, of a type its kind
  allows (punctuation and stray characters none, as documented); a comment one token a
  line, less the diagnostic codes of `orbit:allow(…)`; nothing else is coloured;
- the resolved names: each name coloured as a step, workflow, parameter, type or field
  that is not a declaration goes to a declaration coloured the same (definition);
- CRLF, lone CR and non-ASCII text; a file with syntax errors;
- /full/delta applied to the previous data equals /full; /range equals /full restricted
  to the range;
- examples/checkout.orbit: `step`, `retry`, `workflow` are keywords, `charge` (declared)
  a declaration, `"payments.charge"` a string with the modifier `worker`.

    test_lsp_tokens.py --orbitc build/cli/orbitc --lex-dump build/tools/lex_dump
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cli'))
import test_lsp  # noqa: E402
from test_fmt import ROOT, sources  # noqa: E402
from test_lsp import Workspace, check, eq  # noqa: E402
sys.path.insert(0, os.path.join(HERE, '..', 'editors'))
from test_lex_dump import lex_dump_all  # noqa: E402
from support.cases import CORPUS_SAMPLE, corpus_sample  # noqa: E402
from support.lsp import file_uri  # noqa: E402

LEX_DUMP = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import test  # noqa: E402

PUNCTUATION = {'COMMA', 'SEMI', 'COLON', 'DOT', 'LBRACE', 'RBRACE', 'LBRACK', 'RBRACK',
               'LPAREN', 'RPAREN', 'STRAY'}
OPERATORS = {'QUESTION', 'QQ', 'OROR', 'ANDAND', 'EQ', 'NE', 'LT', 'LE', 'GT', 'GE', 'PLUS',
             'MINUS', 'STAR', 'SLASH', 'PERCENT', 'BANG', 'ASSIGN'}
NAMES = {'variable', 'parameter', 'function', 'type', 'property', 'enumMember'}
# What a token of each lexer kind may be coloured: a keyword that is a name (`input` in
# an expression, a field called `timeout`) takes the name's colour.
ALLOWED = {'IDENT': NAMES, 'STRING': {'string', 'enumMember'}, 'INT': {'number'},
           'NUMBER': {'number'}, 'DURATION': {'number'}}



# ---- positions, decoding ---------------------------------------------------------------

def line_starts(text: bytes):
    """Where each line starts: "\\n", "\\r\\n" and a lone "\\r" end lines (LSP)."""
    starts = [0]
    i = 0
    while i < len(text):
        if text[i:i + 2] == b'\r\n':
            i += 2
            starts.append(i)
            continue
        if text[i] in b'\r\n':
            starts.append(i + 1)
        i += 1
    return starts


class Positions:
    def __init__(self, text: bytes, encoding):
        self.text = text
        self.starts = line_starts(text)
        self.encoding = encoding

    def units(self, data: bytes):
        if self.encoding == 'utf-8':
            return len(data)
        return len(data.decode('utf-8', 'replace').encode('utf-16-le')) // 2

    def position(self, offset):
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo, self.units(self.text[self.starts[lo]:offset])

    def offset(self, line, character):
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        for i in range(start, end + 1):
            if i < end and 0x80 <= self.text[i] < 0xC0:
                continue   # inside a character
            if self.units(self.text[start:i]) >= character:
                return i
        return end


def decode(data, legend):
    """The semantic tokens as (line, character, length, type, {modifiers})."""
    tokens = []
    line = character = 0
    for i in range(0, len(data), 5):
        dl, dc, length, t, m = data[i:i + 5]
        line += dl
        character = character + dc if dl == 0 else dc
        mods = {legend['tokenModifiers'][b] for b in range(len(legend['tokenModifiers']))
                if m >> b & 1}
        tokens.append((line, character, length, legend['tokenTypes'][t], frozenset(mods)))
    return tokens


def lex_dump(path):
    out = subprocess.run([LEX_DUMP, path], check=True, capture_output=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


def expected_pieces(text: bytes, lexed, at: Positions):
    """Where the lexer's tokens must be coloured: (line, character, length, kind) for
    each, a comment cut at its line ends."""
    pieces = []
    for t in lexed:
        if t['kind'] in PUNCTUATION:
            continue
        start, end = t['start'], t['end']
        for k, line_start in enumerate(at.starts):
            line_end = at.starts[k + 1] if k + 1 < len(at.starts) else len(text)
            if line_end <= start or line_start >= end:
                continue
            a = max(start, line_start)
            b = min(end, line_end)
            while b > a and text[b - 1] in b'\r\n':
                b -= 1
            if b > a:
                line, character = at.position(a)
                pieces.append((line, character, at.units(text[a:b]), t['kind']))
    return pieces


def compare_with_lexer(name, text: bytes, lexed, tokens, at: Positions):
    """Each expected piece has exactly its semantic token (a comment's may be split by
    diagnostic codes); nothing else is coloured. Returns the problems."""
    problems = []
    by_place = {(t[0], t[1]): t for t in tokens}
    if len(by_place) != len(tokens):
        problems.append('two tokens at one place')
    used = set()
    for line, character, length, kind in expected_pieces(text, lexed, at):
        if kind == 'COMMENT':
            # the comment's pieces: comment and diagnosticCode tokens tiling it
            c, covered = character, []
            while c < character + length and (line, c) in by_place:
                t = by_place[(line, c)]
                covered.append(t)
                c += t[2]
            if c != character + length or not covered or \
                    any(t[3] not in ('comment', 'diagnosticCode') for t in covered):
                problems.append(f'comment at {line}:{character} ({length}) coloured {covered}')
            used.update((t[0], t[1]) for t in covered)
            continue
        t = by_place.get((line, character))
        if not t or t[2] != length:
            problems.append(f'{kind} at {line}:{character} ({length}): got {t}')
            continue
        used.add((line, character))
        if kind.startswith('T_'):
            ok = t[3] == 'keyword' or t[3] in NAMES
        elif kind in OPERATORS:
            ok = t[3] == 'operator'
        else:
            ok = t[3] in ALLOWED.get(kind, ())
        if kind == 'DURATION':
            ok = ok and 'duration' in t[4]
        if 'worker' in t[4]:
            ok = (kind, t[3]) in (('STRING', 'string'), ('IDENT', 'function'))
        if not ok:
            problems.append(f'{kind} at {line}:{character} coloured {t[3]} {sorted(t[4])}')
    extra = [t for t in tokens if (t[0], t[1]) not in used]
    if extra:
        problems.append(f'tokens of no lexer token: {extra[:3]}')
    return [f'{name}: {p}' for p in problems]


class Server:
    """One server with no workspace folder: each document opened is a program alone."""

    def __init__(self, encoding='utf-16'):
        caps = {'general': {'positionEncodings': [encoding]}}
        self.w = Workspace(init=False)
        self.w.init_result = self.w.client.initialize(None, caps)
        self.legend = self.w.init_result['capabilities']['semanticTokensProvider']['legend']
        self.encoding = self.w.init_result['capabilities']['positionEncoding']
        self.version = 1

    def open(self, name, text: bytes):
        path = self.w.path(name)
        with open(path, 'wb') as f:
            f.write(text)
        uri = file_uri(path)
        self.w.client.open(uri, text.decode('utf-8', 'surrogateescape')
                           .encode('utf-8', 'replace').decode('utf-8'))
        return uri

    def full(self, uri):
        return self.w.client.request('textDocument/semanticTokens/full',
                                     {'textDocument': {'uri': uri}})

    def close_document(self, uri):
        self.w.client.notify('textDocument/didClose', {'textDocument': {'uri': uri}})

    def close(self):
        self.w.close()


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def valid_utf8(text: bytes):
    try:
        text.decode('utf-8')
        return True
    except UnicodeDecodeError:
        return False


LEXED = {}


def check_sources(encoding):
    if not LEXED:   # lex_dump once, of every source, for both encodings
        LEXED.update(lex_dump_all(LEX_DUMP, corpus_sample(sources())))
    server = Server(encoding)
    problems = []
    try:
        count = 0
        for path in corpus_sample(sources()):
            text = read(path)
            if not valid_utf8(text):
                continue   # a client sends text, never bytes that are not UTF-8
            uri = server.open('doc.orbit', text)
            result = server.full(uri)
            tokens = decode(result['data'], server.legend)
            problems += compare_with_lexer(os.path.relpath(path, ROOT), text, LEXED[path],
                                           tokens, Positions(text, server.encoding))
            server.close_document(uri)
            count += 1
        check(count > 200 // CORPUS_SAMPLE, f'{count} sources compared')
    finally:
        server.close()
    check(not problems, f'{len(problems)} differences with the lexer ({encoding})',
          *problems[:10])


@test
def every_source_against_the_lexer_utf16():
    check_sources('utf-16')


@test
def every_source_against_the_lexer_utf8():
    check_sources('utf-8')


# Declarations whose keyword is misspelt (`workfow checkout`): the checker recovers the
# declaration (go to definition finds it), hover's walk (lsp/query.c) does not visit it,
# so its name is coloured as an unknown name.
MISSPELT_DECLARATIONS = {'tests/golden/names/declarations.orbit'}


def token_at(tokens, line, character):
    for t in tokens:
        if t[0] == line and t[1] <= character < t[1] + t[2]:
            return t
    return None


@test
def names_go_to_declarations_coloured_the_same():
    """Every use of a resolved name, coloured as one, has its definition at a token of
    the same type with the `declaration` modifier (the examples and the goldens of
    checking, sampled)."""
    server = Server()
    problems = []
    tried = 0
    try:
        for path in sources()[::3]:
            text = read(path)
            if not valid_utf8(text):
                continue
            uri = server.open('doc.orbit', text)
            tokens = decode(server.full(uri)['data'], server.legend)
            at = Positions(text, server.encoding)
            uses = [t for t in tokens if t[3] in ('variable', 'parameter', 'function', 'type',
                                                  'property')
                    and 'declaration' not in t[4] and 'defaultLibrary' not in t[4]]
            input_clauses = [t for t in tokens
                             if t[3] == 'keyword' and spelled(text, at, t) == 'input']
            for t in uses[:25]:
                got = server.w.client.request('textDocument/definition', {
                    'textDocument': {'uri': uri}, 'position': {'line': t[0], 'character': t[1]}})
                if not got:
                    if (t[3] == 'parameter' and spelled(text, at, t) == 'input' and
                            not input_clauses):
                        continue   # the input of a workflow without an `input` clause
                    if t[3] not in ('variable', 'property') and 'worker' not in t[4]:
                        # an unresolved name, a key, a worker never declared
                        problems.append(f'{path}: {t} has no definition')
                    continue
                loc = got[0] if isinstance(got, list) else got
                if loc['uri'] != uri:
                    continue
                start = loc['range']['start']
                d = token_at(tokens, start['line'], start['character'])
                tried += 1
                if d and t[3] == 'parameter' and spelled(text, at, t) == 'input':
                    ok = d[3] == 'keyword' and spelled(text, at, d) == 'input'   # the clause
                elif d and 'worker' in t[4]:
                    # a worker named by words (`worker payments.charge`, reported) goes to
                    # its declaration by a string
                    ok = 'worker' in d[4] and 'declaration' in d[4]
                elif d == t:
                    ok = t[3] == 'property'   # a key of an object whose type it makes
                else:
                    ok = d and d[3] == t[3] and 'declaration' in d[4]
                    ok = ok or os.path.relpath(path, ROOT) in MISSPELT_DECLARATIONS
                if not ok:
                    problems.append(f'{os.path.relpath(path, ROOT)}: {t} is defined at {d}')
            server.close_document(uri)
    finally:
        server.close()
    check(tried > 100, f'only {tried} names followed')
    check(not problems, f'{len(problems)} names coloured unlike their declarations',
          *problems[:10])


CHECKOUT = os.path.join(ROOT, 'examples', 'checkout.orbit')


def spelled(text: bytes, at: Positions, t):
    start = at.offset(t[0], t[1])
    return text[start:at.offset(t[0], t[1] + t[2])].decode('utf-8', 'replace')


@test
def checkout_example():
    server = Server()
    try:
        text = read(CHECKOUT)
        tokens = decode(server.full(server.open('checkout.orbit', text))['data'], server.legend)
        at = Positions(text, server.encoding)
        words = [(spelled(text, at, t), t[3], t[4]) for t in tokens]
        for word in ('step', 'retry', 'workflow'):
            check(any(w == word and ty == 'keyword' for w, ty, _ in words), f'`{word}` a keyword')
        check(('charge', 'variable', frozenset({'declaration', 'readonly'})) in words,
              '`step charge` declares charge', [w for w in words if w[0] == 'charge'])
        check(('"payments.charge"', 'string', frozenset({'worker'})) in words,
              '"payments.charge" is a worker string',
              [w for w in words if 'payments' in w[0]])
        check(('24h', 'number', frozenset({'duration'})) in words, '24h is a duration')
        check(('exponential', 'enumMember', frozenset()) in words, 'a backoff is an enumMember')
        check(('input', 'parameter', frozenset({'readonly'})) in words, '`input` a parameter')
        check(('orbit', 'function', frozenset({'worker', 'defaultLibrary'})) in words,
              'a built-in task')
        check(('string', 'type', frozenset({'defaultLibrary'})) in words, 'a built-in type')
        check(('Money', 'type', frozenset({'declaration'})) in words, 'a type declared')
        check(('// checkout.orbit', 'comment', frozenset()) in words, 'a comment')
    finally:
        server.close()


ODD = ('// orbit:allow(W0006, W0002): a reason\n'
       '/* a block comment\r\n   on two lines, é and 𝄞 */\r'
       'workflow café {\r\n'
       '  step x { compute "naïve 𝄞" + "z" }  // orbit:allow(W0001)\r\n'
       '  step y { compute x }\n'
       '}\n')


@test
def crlf_lone_cr_and_non_ascii():
    for encoding in ('utf-16', 'utf-8'):
        server = Server(encoding)
        try:
            text = ODD.encode()
            path = server.w.path('odd.orbit')
            uri = server.open('odd.orbit', text)
            tokens = decode(server.full(uri)['data'], server.legend)
            at = Positions(text, server.encoding)
            problems = compare_with_lexer('odd', text, lex_dump(path), tokens, at)
            check(not problems, f'differences ({encoding})', *problems)
            words = [(spelled(text, at, t), t[3]) for t in tokens]
            for want in (('W0006', 'diagnosticCode'), ('W0002', 'diagnosticCode'),
                         ('W0001', 'diagnosticCode'), ('"naïve 𝄞"', 'string'),
                         ('café', 'function'), ('x', 'variable'),
                         ('   on two lines, é and 𝄞 */', 'comment')):
                check(want in words, f'{want} ({encoding})', words)
        finally:
            server.close()


@test
def syntax_errors_still_coloured():
    text = (b'workflow broken {\n  step a { compute 1 + }\n  step b { sleep 5s \n'
            b'workflow next { step c { compute "s" } }\n')
    server = Server()
    try:
        uri = server.open('broken.orbit', text)
        path = server.w.path('broken.orbit')
        tokens = decode(server.full(uri)['data'], server.legend)
        at = Positions(text, server.encoding)
        problems = compare_with_lexer('broken', text, lex_dump(path), tokens, at)
        check(not problems, 'differences', *problems)
        words = [(spelled(text, at, t), t[3]) for t in tokens]
        check(('workflow', 'keyword') in words and ('"s"', 'string') in words and
              ('5s', 'number') in words, 'what was read after the errors', words)
    finally:
        server.close()


def apply_edits(data, edits):
    data = list(data)
    for e in sorted(edits, key=lambda e: e['start'], reverse=True):
        data[e['start']:e['start'] + e['deleteCount']] = e.get('data', [])
    return data


@test
def delta_applied_equals_full():
    server = Server()
    try:
        text = read(CHECKOUT).decode()
        uri = server.open('checkout.orbit', text.encode())
        client = server.w.client
        first = server.full(uri)
        changes = [
            # a rename in the middle, a line added at the top, a comment at the end, none
            lambda t: t.replace('step pack {', 'step pack_all {'),
            lambda t: '// a new first line\n' + t,
            lambda t: t + '\n/* the end\n */\n',
            lambda t: t,
            lambda t: t.replace('retry {', 'retry { // orbit:allow(W0006)', 1),
            lambda t: '',
            lambda t: text,
        ]
        previous = first
        version = 1
        current = text
        for change in changes:
            current = change(current)
            version += 1
            client.change(uri, version, [{'text': current}])
            delta = client.request('textDocument/semanticTokens/full/delta', {
                'textDocument': {'uri': uri}, 'previousResultId': previous['resultId']})
            full = server.full(uri)
            check('edits' in delta, 'a delta answers with edits', delta)
            eq(apply_edits(previous['data'], delta['edits']), full['data'],
               f'delta applied (version {version})')
            check(len(delta['edits']) <= 1, 'one edit at most')
            check(delta['resultId'] != previous['resultId'], 'a new resultId')
            # the delta's own resultId is the base of the next one: ask again from it
            again = client.request('textDocument/semanticTokens/full/delta', {
                'textDocument': {'uri': uri}, 'previousResultId': full['resultId']})
            eq(again.get('edits'), [], 'nothing changed: no edit')
            previous = {'resultId': again['resultId'], 'data': full['data']}
        stale = client.request('textDocument/semanticTokens/full/delta', {
            'textDocument': {'uri': uri}, 'previousResultId': 'no such result'})
        eq(stale.get('data'), server.full(uri)['data'], 'an unknown resultId: the whole data')
    finally:
        server.close()


@test
def range_equals_full_restricted():
    server = Server()
    try:
        text = (read(CHECKOUT) + ODD.encode())
        uri = server.open('checkout.orbit', text)
        full = decode(server.full(uri)['data'], server.legend)
        at = Positions(text, server.encoding)
        last = len(at.starts) - 1
        for (l1, c1, l2, c2) in ((0, 0, last + 1, 0), (17, 0, 35, 0), (19, 21, 19, 40),
                                 (0, 0, 0, 0), (60, 3, 64, 0), (5, 0, 200, 0)):
            got = server.w.client.request('textDocument/semanticTokens/range', {
                'textDocument': {'uri': uri},
                'range': {'start': {'line': l1, 'character': c1},
                          'end': {'line': l2, 'character': c2}}})
            want = [t for t in full if (l1, c1) <= (t[0], t[1]) < (l2, c2)]
            eq(decode(got['data'], server.legend), want, f'range {l1}:{c1}-{l2}:{c2}')
            check('resultId' not in got or got['resultId'], 'range result')
    finally:
        server.close()


@test
def document_not_open():
    """A file of the workspace folder that the client has not opened (or has closed):
    its tokens are those of the open document, and asking twice gives the same data."""
    text = read(CHECKOUT).decode()
    with Workspace({'checkout.orbit': text}) as w:
        uri = w.file_uri('checkout.orbit')
        ask = lambda: w.client.request('textDocument/semanticTokens/full',
                                       {'textDocument': {'uri': uri}})
        closed = ask()
        check(len(closed['data']) > 0 and len(closed['data']) % 5 == 0, 'tokens', closed)
        eq(ask()['data'], closed['data'], 'the same data again')
        w.open('checkout.orbit')
        eq(ask()['data'], closed['data'], 'the same data once open')
        w.client.notify('textDocument/didClose', {'textDocument': {'uri': uri}})
        eq(ask()['data'], closed['data'], 'the same data once closed')


@test
def legend_and_errors():
    server = Server()
    try:
        provider = server.w.init_result['capabilities']['semanticTokensProvider']
        eq(provider['full'], {'delta': True}, 'full with delta')
        eq(provider['range'], True, 'range')
        for t in ('keyword', 'function', 'variable', 'parameter', 'type', 'property',
                  'string', 'number', 'operator', 'comment'):
            check(t in provider['legend']['tokenTypes'], f'standard type {t}')
        m = server.w.client.request_full('textDocument/semanticTokens/full',
                                         {'textDocument': {'uri': 'file:///nowhere/x.orbit'}})
        check('error' in m, 'a document of no program fails', m)
        m = server.w.client.request_full('textDocument/semanticTokens/range',
                                         {'textDocument': {'uri': server.open('a.orbit', b'')}})
        eq(m.get('error', {}).get('code'), -32602, 'a range request without a range')
        eq(server.w.client.stop(), 0, 'the server carried on')
    finally:
        server.close()


def main():
    """test_lsp.py's runner (--orbitc, -k) over these tests, given --lex-dump."""
    test_lsp.main(('ORBITC', 'LEX_DUMP'))


if __name__ == '__main__':
    main()
