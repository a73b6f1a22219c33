#!/usr/bin/env python3
"""The TextMate grammar (editors/vscode/syntaxes/orbit.tmLanguage.json) and the language
configuration (editors/vscode/language-configuration.json) against the compiler.

  tokens       over every golden source, example, `orbit.program` and the standard
               library, tokenized by vscode-textmate + vscode-oniguruma (VS Code's own
               tokenizer, tests/editors/grammar_tokenize.cjs): each token of the compiler's lexer
               (tools/lex_dump) gets the scope of its kind (KIND_SCOPES below), a numeric
               literal the compiler reports as malformed (E0006, E0008) is invalid.illegal,
               and what lies between tokens is white space with no scope; the documented
               exceptions are counted and printed (docs/editors.md, "The TextMate grammar")
  lines        no line leaks a rule into the next: the rule stack at every line's end is
               the initial one, except inside a block comment, the one construct that
               spans lines, and exactly there
  samples      a few scopes written out: the example's declarations, a duration's unit, a
               suppression's code, an escape, a keyword used as a field name
  words        the configuration's wordPattern, as VS Code compiles it, selects exactly
               each identifier, keyword and literal token of those files
  indentation  the indentation rules, applied as VS Code applies them, give every line of
               every formatted source (`orbitc fmt` of each that parses) its indentation
  config       the comments, brackets and pairs are the lexer's, the folding markers match
               `// region` and `// endregion`

    test_grammar.py --orbitc PATH --lex-dump PATH --node-modules DIR

Without DIR/vscode-textmate (tools/install-npm.sh installs it) the test is skipped (77),
or fails when ORBIT_REQUIRE_NPM_TOOLS=1 (tools/test.sh sets it). Ends with
`N passed, N failed`.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cli'))
from test_fmt import ROOT, sources  # noqa: E402  every Orbit source of the repository
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.paths import npm_tool_missing  # noqa: E402

EDITOR = os.path.join(ROOT, 'editors', 'vscode')
GRAMMAR = os.path.join(EDITOR, 'syntaxes', 'orbit.tmLanguage.json')
CONFIGURATION = os.path.join(EDITOR, 'language-configuration.json')
TOKENIZE = os.path.join(ROOT, 'tests', 'editors', 'grammar_tokenize.cjs')

KEYWORDS = ('workflow worker type input output timeout step return using sleep await '
            'compute with when for in idempotency_key retry queue_timeout compensate '
            'true false null').split()
# Words of the standard library (builtin, error, function) and of orbit.program
# (program, lints), identifiers to the lexer, declarations to the grammar.
CONTEXTUAL = ('builtin', 'error', 'function', 'program', 'lints')
# What the first scope under source.orbit (meta.* aside) of each character of a token
# must start with, by the lexer's kind. Keywords and identifiers are checked apart.
KIND_SCOPES = {
    'COMMENT': ('comment.',),
    'STRING': ('string.quoted.',),
    'INT': ('constant.numeric.integer.',),
    'NUMBER': ('constant.numeric.float.',),
    'DURATION': ('constant.numeric.duration.',),
    'STRAY': ('invalid.illegal.character.',),
    'LBRACE': ('punctuation.section.block.begin.',),
    'RBRACE': ('punctuation.section.block.end.',),
    'LBRACK': ('punctuation.section.brackets.begin.',),
    'RBRACK': ('punctuation.section.brackets.end.',),
    'LPAREN': ('punctuation.section.parens.begin.',),
    'RPAREN': ('punctuation.section.parens.end.',),
    'COMMA': ('punctuation.separator.comma.',),
    'SEMI': ('punctuation.separator.semicolon.',),
    'COLON': ('punctuation.separator.key-value.',),
    'DOT': ('punctuation.accessor.',),
    'QQ': ('keyword.operator.coalesce.',),
    'OROR': ('keyword.operator.logical.',),
    'ANDAND': ('keyword.operator.logical.',),
    'BANG': ('keyword.operator.logical.',),
    'EQ': ('keyword.operator.comparison.',),
    'NE': ('keyword.operator.comparison.',),
    'LT': ('keyword.operator.comparison.',),
    'LE': ('keyword.operator.comparison.',),
    'GT': ('keyword.operator.comparison.',),
    'GE': ('keyword.operator.comparison.',),
    'PLUS': ('keyword.operator.arithmetic.',),
    'MINUS': ('keyword.operator.arithmetic.',),
    'STAR': ('keyword.operator.arithmetic.',),
    'SLASH': ('keyword.operator.arithmetic.',),
    'PERCENT': ('keyword.operator.arithmetic.',),
    'QUESTION': ('keyword.operator.optional.',),
    'ASSIGN': ('keyword.operator.assignment.',),
}
NAME_SCOPES = ('variable.other.', 'entity.name.', 'support.', 'constant.other.diagnostic-code.')
MALFORMED_LITERAL = ('E0006', 'E0008')
NUMERIC = ('INT', 'NUMBER', 'DURATION')
# Left to the lexer, which reports each and reads it as meant: `and`, `or`, `not` where an
# operator is expected, `if` before an operand (E0100). The grammar sees names there.
WORD_OPERATORS = {'and', 'or', 'not', 'if'}
# A closer that does not match the bracket open (`(a]`) is read as the one that does
# (E0102): the grammar sees the closer written.
CLOSERS = {'RBRACE': '}', 'RBRACK': ']', 'RPAREN': ')'}
# What the lexer drops after reporting it (a closer with nothing open, a separator after
# another): the grammar scopes it as the punctuation it is.
DROPPED = '}])],;'
FOREIGN_SPACE = re.compile('[\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]')
LINE_END = re.compile(r'\r\n|\r|\n')
# Files the lexer abandons (a fatal error): nothing after that point is compared.
ABANDONED = {'tests/golden/lex/nesting_too_deep.orbit'}

results = {'passed': 0, 'failed': 0}


def check(name, problems):
    if problems:
        results['failed'] += 1
        print(f'FAIL {name}')
        for p in problems[:40]:
            print(f'  {p}')
        if len(problems) > 40:
            print(f'  ... and {len(problems) - 40} more')
    else:
        results['passed'] += 1
        print(f'ok   {name}')


def npm_package_missing(node_modules, package):
    """None when the package is installed; else the exit status after saying so."""
    return npm_tool_missing(os.path.join(node_modules, package))


def all_sources():
    found = sources()
    found += sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', '**', 'orbit.program'), recursive=True))
    return found


def relative(path):
    return os.path.relpath(path, ROOT)


def lex_dump(tool, path):
    out = subprocess.run([tool, path], check=True, capture_output=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


def diagnostics(orbitc, paths):
    """The diagnostics of `orbitc check` on all the files, by file (the lexer's, which are
    the ones read here, do not depend on the program around a file)."""
    run = subprocess.run([orbitc, 'check', '--format', 'json', '--max-diagnostics', '0'] + paths,
                         capture_output=True)
    by_file = {}
    for line in run.stdout.decode().splitlines():
        if line.strip():
            d = json.loads(line)
            by_file.setdefault(d['file'], []).append(d)
    return by_file


class Document:
    """A source as an editor sees it: valid UTF-8 decoded, without its byte order mark,
    cut into lines at LF, CRLF and lone CR; byte offsets map to (line, UTF-16 column)."""

    def __init__(self, data):
        self.bom = 3 if data.startswith(b'\xef\xbb\xbf') else 0
        text = data[self.bom:].decode('utf-8')
        self.lines = []
        self.line_starts = []      # byte offset of each line in the file
        self.units = []            # per line: byte offset in line -> UTF-16 column
        at = self.bom
        pos = 0
        for m in list(LINE_END.finditer(text)) + [None]:
            end = m.start() if m else len(text)
            line = text[pos:end]
            self.lines.append(line)
            self.line_starts.append(at)
            table = {}
            b = u = 0
            for ch in line:
                table[b] = u
                b += len(ch.encode('utf-8'))
                u += 2 if ord(ch) > 0xFFFF else 1
            table[b] = u
            self.units.append(table)
            at += b + (len(m.group().encode()) if m else 0)
            pos = m.end() if m else end

    def line_of(self, offset):
        low, high = 0, len(self.line_starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if self.line_starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return low

    def segments(self, start, end):
        """[start, end) in bytes as (line, first column, end column) per line it touches."""
        out = []
        line = self.line_of(start)
        while True:
            line_start = self.line_starts[line]
            table = self.units[line]
            line_bytes = max(table)
            a = max(start - line_start, 0)
            b = min(end - line_start, line_bytes)
            if a <= line_bytes and b > a:
                out.append((line, table[a], table[b]))
            if line + 1 >= len(self.lines) or self.line_starts[line + 1] >= end:
                return out
            line += 1


def utf16_len(text):
    return len(text.encode('utf-16-le')) // 2


def first_scope(scopes):
    for s in scopes[1:]:
        if not s.startswith('meta.'):
            return s
    return scopes[0]


def column_scopes(tokens, length):
    """Per UTF-16 column of a line: the token's scopes."""
    columns = [None] * length
    for start, end, scopes in tokens:
        for c in range(start, min(end, length)):
            columns[c] = scopes
    return columns


def expected(kind, text, before, after, malformed):
    """A predicate on a scope for a token, and what it expects (for messages); None when
    the token is one of the documented exceptions."""
    if kind in NUMERIC and malformed:
        return lambda s: s.startswith('invalid.illegal.numeric.'), 'invalid.illegal.numeric'
    if kind in ('ANDAND', 'OROR', 'BANG', 'STRAY') and text in WORD_OPERATORS:
        return None
    if kind in CLOSERS and text != CLOSERS[kind]:
        return None
    if kind in KIND_SCOPES:
        prefixes = KIND_SCOPES[kind]
        return lambda s: s.startswith(prefixes), ' or '.join(prefixes)
    if kind == 'IDENT':
        contextual = f'storage.type.{text}.orbit'

        def name(s):
            return s.startswith(NAME_SCOPES) or (text in CONTEXTUAL and s == contextual)
        return name, 'a name: ' + ' or '.join(NAME_SCOPES)
    if kind.startswith('T_') and text in KEYWORDS:
        if before == 'DOT' or after == 'COLON':
            return lambda s: s == 'variable.other.property.orbit', 'variable.other.property.orbit'
        forms = {f'{family}.{text}.orbit' for family in
                 ('storage.type', 'keyword.control', 'keyword.other', 'constant.language')}
        if text == 'input':
            forms.add('variable.language.input.orbit')
        return lambda s: s in forms, f'a keyword scope ending in .{text}.orbit'
    return lambda s: False, f'no scope known for kind {kind}'


def compare_tokens(rel, doc, data, tokens, lines_out, malformed_starts, counts):
    problems = []
    columns = [column_scopes(t, utf16_len(doc.lines[i])) for i, (t, _, _) in enumerate(lines_out)]
    covered = [bytearray(utf16_len(line)) for line in doc.lines]
    stop = None
    if rel in ABANDONED:
        stop = tokens[-1]['end'] if tokens else 0
    for i, tok in enumerate(tokens):
        start, end, kind = tok['start'], tok['end'], tok['kind']
        text = data[start:end].decode('utf-8', 'replace')
        before = tokens[i - 1]['kind'] if i > 0 else None
        after = tokens[i + 1]['kind'] if i + 1 < len(tokens) else None
        rule = expected(kind, text, before, after, start in malformed_starts)
        counts['tokens'] += 1
        for line, a, b in doc.segments(start, end):
            for c in range(a, b):
                covered[line][c] = 1
        if rule is None:
            counts['exceptions'][f'{kind} `{text}`'] = counts['exceptions'].get(f'{kind} `{text}`', 0) + 1
            continue
        accept, wanted = rule
        for line, a, b in doc.segments(start, end):
            bad = [c for c in range(a, b) if columns[line][c] is None
                   or not accept(first_scope(columns[line][c]))]
            if bad:
                got = columns[line][bad[0]]
                problems.append(f'{rel}:{line + 1}:{bad[0] + 1}: {kind} `{text}`: '
                                f'expected {wanted}, got {got}')
                break
    for line, text in enumerate(doc.lines):
        if stop is not None and line >= doc.line_of(stop):
            break
        column = 0
        for ch in text:
            c = column
            column += 2 if ord(ch) > 0xFFFF else 1
            if covered[line][c] or columns[line][c] is None:
                continue
            scopes = columns[line][c]
            if ch in ' \t\f\v' and scopes == ['source.orbit']:
                continue
            if FOREIGN_SPACE.match(ch) and first_scope(scopes) == 'invalid.illegal.whitespace.orbit':
                continue
            if ch in DROPPED and first_scope(scopes).startswith('punctuation.'):
                counts['dropped'] += 1
                continue
            problems.append(f'{rel}:{line + 1}:{c + 1}: {ch!r} is no token of the lexer, '
                            f'but the grammar gives it {scopes}')
            break
    return problems


def compare_lines(rel, doc, data, tokens, lines_out):
    """The rule stack at a line's end is the initial one exactly when no block comment of
    the lexer runs past that end (one left open runs to the end of the file)."""
    problems = []
    open_after = set()
    for tok in tokens:
        text = data[tok['start']:tok['end']]
        if tok['kind'] != 'COMMENT' or not text.startswith(b'/*'):
            continue
        first = doc.line_of(tok['start'])
        last = doc.line_of(tok['end'] - 1)
        if len(text) < 4 or not text.endswith(b'*/'):
            last = len(doc.lines)     # open to the end of the file
        open_after.update(range(first, last))
    for line, (_, initial, top) in enumerate(lines_out):
        inside = line in open_after
        if initial == inside or (not initial and not (top or '').startswith('comment.block.')):
            problems.append(f'{rel}:{line + 1}: rule stack at the line end: '
                            f'{"initial" if initial else top}, but the lexer '
                            f'{"is" if inside else "is not"} inside a block comment there')
    return problems


def tokenize(node_modules, documents):
    run = subprocess.run(['node', TOKENIZE, node_modules, GRAMMAR],
                         input=json.dumps(documents).encode(), capture_output=True)
    if run.returncode != 0:
        sys.exit('grammar_tokenize.cjs failed:\n' + run.stderr.decode())
    return json.loads(run.stdout)


def load_corpus(args):
    corpus = []
    skipped = []
    paths = all_sources()
    diags_of = diagnostics(args.orbitc, paths)
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        rel = relative(path)
        try:
            doc = Document(data)
        except UnicodeDecodeError:
            skipped.append(f'{rel} (not UTF-8)')
            continue
        diags = diags_of.get(path, [])
        if any(d['code'] == 'E0012' for d in diags):
            skipped.append(f'{rel} (not a source file: E0012)')
            continue
        malformed = {d['byte_start'] for d in diags if d['code'] in MALFORMED_LITERAL}
        corpus.append((rel, data, doc, lex_dump(args.lex_dump, path), malformed))
    return corpus, skipped


def test_tokens_and_lines(corpus, outputs):
    counts = {'tokens': 0, 'exceptions': {}, 'dropped': 0}
    token_problems, line_problems = [], []
    for (rel, data, doc, tokens, malformed), lines_out in zip(corpus, outputs):
        token_problems += compare_tokens(rel, doc, data, tokens, lines_out, malformed, counts)
        line_problems += compare_lines(rel, doc, data, tokens, lines_out)
    lines = sum(len(doc.lines) for _, _, doc, _, _ in corpus)
    print(f'     {len(corpus)} files, {lines} lines, {counts["tokens"]} tokens of the lexer; '
          f'{counts["dropped"]} dropped closers or separators scoped as punctuation')
    for what, n in sorted(counts['exceptions'].items()):
        print(f'     exception: {what} x{n} (the lexer reads it as another token, after reporting it)')
    check('tokens: every token of the lexer gets the scope of its kind', token_problems)
    check('lines: no rule leaks past a line end, except inside a block comment', line_problems)


def scopes_at(lines_out, doc, line, needle, nth=0):
    text = doc.lines[line]
    col = -1
    for _ in range(nth + 1):
        col = text.index(needle, col + 1)
    for start, end, scopes in lines_out[line][0]:
        if start <= col < end:
            return scopes
    return None


def test_samples(node_modules):
    sample = ('// orbit:allow(W0002, w0004): why\n'
              'type Money { type: string }\n'
              'workflow pay {\n'
              '  step charge { worker "a\\n\\u{1F600}"; timeout 1h30m }\n'
              '  return input.type ?? charge\n'
              '}\n')
    doc = Document(sample.encode())
    out = tokenize(node_modules, [doc.lines])[0]
    wanted = [
        (0, 'orbit:allow', 'keyword.other.directive.allow.orbit'),
        (0, 'W0002', 'constant.other.diagnostic-code.orbit'),
        (0, 'w0004', 'constant.other.diagnostic-code.orbit'),
        (0, 'why', 'comment.line.double-slash.orbit'),
        (1, 'type', 'storage.type.type.orbit'),
        (1, 'Money', 'entity.name.type.orbit'),
        (2, 'pay', 'entity.name.function.workflow.orbit'),
        (3, 'step', 'storage.type.step.orbit'),
        (3, 'charge', 'entity.name.function.step.orbit'),
        (3, 'worker', 'storage.type.worker.orbit'),
        (3, '\\n', 'constant.character.escape.orbit'),
        (3, '\\u{1F600}', 'constant.character.escape.unicode.orbit'),
        (3, 'timeout', 'keyword.other.timeout.orbit'),
        (3, '1h30m', 'constant.numeric.duration.orbit'),
        (3, 'h30m', 'keyword.other.unit.orbit'),
        (4, 'return', 'keyword.control.return.orbit'),
        (4, 'input', 'variable.language.input.orbit'),
        (4, 'type', 'variable.other.property.orbit'),
        (4, '??', 'keyword.operator.coalesce.orbit'),
    ]
    problems = []
    for line, needle, scope in wanted:
        scopes = scopes_at(out, doc, line, needle)
        if not scopes or scope not in scopes:
            problems.append(f'line {line + 1} `{needle}`: expected {scope}, got {scopes}')
    # The type's field named `type` is a field, not a declaration.
    scopes = scopes_at(out, doc, 1, 'type', 1)
    if not scopes or 'variable.other.property.orbit' not in scopes:
        problems.append(f'line 2 second `type`: expected variable.other.property.orbit, got {scopes}')
    check('samples: scopes written out', problems)


def js_regex_matches(pattern, flags, texts):
    """For each (line, column) in texts, what the pattern matches there (sticky), as VS
    Code compiles a wordPattern: in JavaScript, with the global flag added."""
    script = ('const [p, f] = JSON.parse(process.argv[1]);'
              'const re = new RegExp(p, f.includes("g") ? f : f + "g");'
              'const items = JSON.parse(require("fs").readFileSync(0, "utf8"));'
              'process.stdout.write(JSON.stringify(items.map(([t, c]) => {'
              '  re.lastIndex = 0; let m; while ((m = re.exec(t)) !== null) {'
              '    if (m.index === c) return m[0]; if (m.index > c) return null;'
              '    if (m[0] === "") re.lastIndex++; } return null; })));')
    run = subprocess.run(['node', '-e', script, json.dumps([pattern, flags])],
                         input=json.dumps(texts).encode(), capture_output=True, check=True)
    return json.loads(run.stdout)


def test_words(corpus, config):
    word = config['wordPattern']
    items, wanted = [], []
    for rel, data, doc, tokens, malformed in corpus:
        for tok in tokens:
            kind = tok['kind']
            text = data[tok['start']:tok['end']].decode('utf-8')
            if not (kind == 'IDENT' or kind in NUMERIC or
                    (kind.startswith('T_') and text in KEYWORDS)):
                continue
            if tok['start'] in malformed or '-' in text:   # malformed, or `send-email`
                continue
            [(line, a, _)] = doc.segments(tok['start'], tok['end'])
            items.append([doc.lines[line], a])
            wanted.append((rel, line, text))
    got = js_regex_matches(word['pattern'], word.get('flags', ''), items)
    problems = [f'{rel}:{line + 1}: the word at `{text}` is {g!r}'
                for (rel, line, text), g in zip(wanted, got) if g != text]
    print(f'     {len(items)} identifiers, keywords and literals')
    check('words: the wordPattern selects exactly each word token', problems)


def formatted_sources(orbitc, corpus):
    for rel, data, doc, tokens, malformed in corpus:
        run = subprocess.run([orbitc, 'fmt', '-'], input=data, capture_output=True)
        if run.returncode == 0:
            yield rel, run.stdout.decode('utf-8')


def test_indentation(args, config):
    """VS Code's rule: a line's indentation is the previous non-blank line's, one unit more
    when that line matches increaseIndentPattern, one unit less when this line matches
    decreaseIndentPattern. Compared on the lines orbitc fmt indents by their depth in
    brackets (two spaces a level) after such a line; not on a continuation of an
    expression (fmt indents it by four), nor after a line that closes, past its start, a
    bracket opened on an earlier line (`backoff: fixed } // why`): regular expressions on
    one line cannot see those. Lines inside block comments are left as written."""
    rules = config['indentationRules']
    pairs = []
    skipped = 0
    sources_checked = 0
    for rel, text in formatted_sources(args.orbitc, args.corpus):
        sources_checked += 1
        previous = None
        in_comment = False
        depth = 0
        for n, line in enumerate(LINE_END.split(text)):
            starts_in_comment = in_comment
            in_comment, leading, net, lowest = scan_brackets(line, in_comment)
            line_depth = depth - leading
            depth += net
            if not line.strip() or starts_in_comment:
                continue
            indent = len(line) - len(line.lstrip(' '))
            regular = indent == 2 * line_depth
            closes_inside = lowest < -leading
            if previous is not None and regular and previous[2]:
                pairs.append((rel, n, previous[0], previous[1], line, indent))
            elif previous is not None:
                skipped += 1
            previous = (line, indent, regular and not closes_inside)
    script = ('const [inc, dec] = JSON.parse(process.argv[1]).map((p) => new RegExp(p));'
              'const items = JSON.parse(require("fs").readFileSync(0, "utf8"));'
              'process.stdout.write(JSON.stringify(items.map(([a, b]) => [inc.test(a), dec.test(b)])));')
    run = subprocess.run(['node', '-e', script, json.dumps([rules['increaseIndentPattern'],
                                                            rules['decreaseIndentPattern']])],
                         input=json.dumps([[p, line] for _, _, p, _, line, _ in pairs]).encode(),
                         capture_output=True, check=True)
    problems = []
    for (rel, n, prev, prev_indent, line, indent), (inc, dec) in zip(pairs, json.loads(run.stdout)):
        want = prev_indent + (2 if inc else 0) - (2 if dec else 0)
        if want != indent:
            problems.append(f'{rel}:{n + 1}: the rules indent by {want}, orbitc fmt by {indent}: '
                            f'{line.strip()[:60]!r} after {prev.strip()[:60]!r}')
    print(f'     {sources_checked} formatted sources, {len(pairs)} lines compared, {skipped} '
          'continuations or lines after a bracket closed inside a line not compared')
    check('indentation: the rules agree with orbitc fmt', problems)


def scan_brackets(line, in_comment):
    """Reads a line of a formatted source outside strings and comments: whether a block
    comment is open at its end, how many closers start it, the net change of bracket
    depth, and the lowest depth reached (relative to its start)."""
    leading = net = lowest = 0
    at_start = True
    in_string = False
    i = 0
    while i < len(line):
        ch, two = line[i], line[i:i + 2]
        step = 1
        if in_comment:
            if two == '*/':
                in_comment, step = False, 2
        elif in_string:
            if ch == '\\':
                step = 2
            elif ch == '"':
                in_string = False
        elif two == '//':
            break
        elif two == '/*':
            in_comment, step = True, 2
        elif ch == '"':
            in_string = True
        elif ch in '{[(':
            net += 1
        elif ch in '}])':
            net -= 1
            lowest = min(lowest, net)
            if at_start:
                leading += 1
        if not in_comment and ch not in ' \t}])':
            at_start = False
        i += step
    return in_comment, leading, net, lowest


def test_config(config):
    problems = []
    if config['comments'] != {'lineComment': '//', 'blockComment': ['/*', '*/']}:
        problems.append(f'comments: {config["comments"]}')
    # The lexer's brackets (LBRACE/RBRACE, LBRACK/RBRACK, LPAREN/RPAREN).
    if sorted(map(tuple, config['brackets'])) != [('(', ')'), ('[', ']'), ('{', '}')]:
        problems.append(f'brackets: {config["brackets"]}')
    pairs = {(p['open'], p['close']) for p in config['autoClosingPairs']}
    for pair in [('{', '}'), ('[', ']'), ('(', ')'), ('"', '"')]:
        if pair not in pairs:
            problems.append(f'autoClosingPairs lacks {pair}')
    for pair in config['surroundingPairs']:
        if tuple(pair) not in pairs:
            problems.append(f'surroundingPairs {pair} is not an auto-closing pair')
    markers = config['folding']['markers']
    script = ('const [s, e] = JSON.parse(process.argv[1]).map((p) => new RegExp(p));'
              'process.stdout.write(JSON.stringify([s.test("  // region retries"), '
              'e.test("  // endregion"), s.test("  // endregion"), e.test("step x {}")]));')
    run = subprocess.run(['node', '-e', script, json.dumps([markers['start'], markers['end']])],
                         capture_output=True, check=True)
    if json.loads(run.stdout) != [True, True, False, False]:
        problems.append(f'folding markers: {json.loads(run.stdout)} for '
                        '[start, end, start on endregion, end on code]')
    check('config: comments, brackets, pairs and folding markers', problems)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--orbitc', required=True)
    parser.add_argument('--lex-dump', required=True)
    parser.add_argument('--node-modules', required=True)
    args = parser.parse_args()
    args.node_modules = os.path.abspath(args.node_modules)
    missing = npm_package_missing(args.node_modules, 'vscode-textmate')
    if missing is not None:
        return missing
    with open(CONFIGURATION, encoding='utf-8') as f:
        config = json.load(f)
    args.corpus, skipped = load_corpus(args)
    for s in skipped:
        print(f'     not compared: {s}')
    outputs = tokenize(args.node_modules, [doc.lines for _, _, doc, _, _ in args.corpus])
    test_tokens_and_lines(args.corpus, outputs)
    test_samples(args.node_modules)
    test_words(args.corpus, config)
    test_indentation(args, config)
    test_config(config)
    print(f'{results["passed"]} passed, {results["failed"]} failed')
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
