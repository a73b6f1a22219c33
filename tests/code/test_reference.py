#!/usr/bin/env python3
"""The language reference (docs/reference/) says what the normative page and the code say.

- Every table of the documentation page *Retries and timeouts* (kept verbatim in
  tests/code/reference/orbit-retries-and-timeouts.txt) is a table of the reference, the
  same header and the same rows in the same order, cell by cell as the reference renders
  (code spans and links shown as their text), and the page's sentences listed below are
  in the reference's text: a drift of either side fails.
- The tables that restate the code are the code's: the placement table is
  compiler/check/placement.c's MEMBERS (and the page's placement table and the one of
  diagnostics/explain/E0307.md agree with it),
  the keywords compiler/syntax/ast.c's, the operators' levels compiler/syntax/parser.y's
  precedence lines (spelt as compiler/syntax/lexer.re spells their tokens) and every
  operator of AST_OPERATORS (compiler/syntax/ast.h) with its instruction's symbol in
  bytecode/ops.def, the standard library's tables stdlib/orbit.orbit, and the index of
  diagnostics diagnostics/codes.def, in order, each linking its explanation.
- Every code the reference names is registered; every relative link resolves, and a
  link to a section of a Markdown page names a heading of that page (GitHub's anchors);
  the contents page links every page.

The examples are checked by tests/cli/test_explain.py --reference (they run orbitc).

    test_reference.py [SOURCE_ROOT]
ends with `N passed, N failed`.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(ROOT, 'docs', 'reference')
NORMATIVE = os.path.join(ROOT, 'tests', 'code', 'reference', 'orbit-retries-and-timeouts.txt')

# Sentences of the normative page that the reference states word for word (as rendered).
SENTENCES = [
    'A step without a retry block makes one attempt.',
    'Every value must be a literal: expressions such as attempts: input.n are rejected.',
    'The compiler reports every problem with a retry block as E0410:',
    'The delay before attempt n (attempt 2 is the first retry) is:',
    'The delay is a durable timer: a retry that is waiting survives a runtime restart, '
    'and the attempt starts when the timer fires.',
    'After an attempt fails, the runtime schedules another attempt only if all of these hold:',
    'the error is retryable,',
    'attempts remain (attempt < attempts),',
    'the workflow is not being aborted.',
    'Otherwise the step fails permanently. If the policy allowed more than one attempt and '
    'they were all used, the error message ends with (gave up after N attempts).',
    'Whether an error is retryable is decided by whoever reports it.',
    'Every retry reuses the input and idempotency key that were evaluated when the step was '
    'first scheduled.',
    'Redelivery after a lost worker is not a retry and does not use up an attempt',
    'timeout limits a single attempt, measured from the moment the task is dispatched to a '
    'worker until its result arrives:',
    'Timeouts are cooperative.',
    'If the timed-out attempt later reports success while the step is still unresolved, the '
    'runtime accepts that result, because the work did happen.',
    'On a workflow step, timeout limits how long the parent waits for the child. When it '
    'expires, the step fails with TIMEOUT (workflow steps cannot retry) and the child '
    'execution is cancelled.',
    'On an await step, timeout limits how long the step waits for its signal, from the '
    'moment it starts waiting. When it expires, the step fails with SIGNAL_TIMEOUT, which is '
    'never retried.',
    'queue_timeout limits how long an attempt may wait for a worker to pick it up:',
    'The workflow-level timeout limits the whole execution, measured from its creation, '
    'across all steps, retries, sleeps and waits for signals. When it passes, the runtime '
    'stops scheduling work, waits for in-flight attempts, runs compensations, and ends the '
    'execution as TIMED_OUT.',
    'await steps accept timeout only, and compute steps accept none of the three (E0307): a '
    'compute step is evaluated by the runtime and cannot time out or be retried.',
    'A child workflow is durable on its own. Put retries on the child\u2019s steps.',
    'Each attempt appears in the execution history.',
    '+ 705ms #20 StepFailed step=broken error=HTTP_ERROR request failed: io: Connection '
    'refused (os error 111) (gave up after 3 attempts)',
]

passed = failed = 0


def check(what, ok, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print('ok   ' + what)
    else:
        failed += 1
        print('FAIL ' + what + (':\n     ' + str(detail).replace('\n', '\n     ') if detail else ''))


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding='utf-8') as f:
        return f.read()


# ---- Markdown as it renders ------------------------------------------------------------

INLINE = re.compile(r'``\s(.*?)\s``|`([^`]*)`|\[([^\]]*)\]\([^)]*\)')


def rendered(text):
    """The text of Markdown inline markup: code spans and links as their text."""
    return INLINE.sub(lambda m: next(g for g in m.groups() if g is not None), text)


def split_row(line):
    """The cells of a table row (a `\\|` is a `|` inside a cell), leading and trailing
    `|` optional, as the normative page's text writes its rows."""
    line = line.strip()
    if line.startswith('|'):
        line = line[1:]
    if line.endswith('|') and not line.endswith('\\|'):
        line = line[:-1]
    return [cell.strip().replace('\\|', '|') for cell in re.split(r'(?<!\\)\|', line)]


def tables(text, render):
    """[(header, [row])] of every table: a separator line `|---|…` under its header,
    then its rows, the lines that hold a `|`."""
    lines = text.split('\n')
    found = []
    for i, line in enumerate(lines):
        if i == 0 or not re.fullmatch(r'\|?(\s*-{3,}\s*\|)+\s*-*\s*\|?', line.strip()):
            continue
        header = split_row(lines[i - 1])
        rows = []
        for row in lines[i + 1:]:
            if '|' not in row:
                break
            rows.append(split_row(row))
        if render:
            header = [rendered(c) for c in header]
            rows = [[rendered(c) for c in r] for r in rows]
        found.append((header, rows))
    return found


def pages():
    return {name: read('docs', 'reference', name)
            for name in sorted(os.listdir(REFERENCE)) if name.endswith('.md')}


def outside_fences(text):
    """The text of a page without its fenced blocks."""
    return re.sub(r'^```.*?^```[^\n]*$', '', text, flags=re.M | re.S)


def table_with_header(text, first_cells):
    for header, rows in tables(text, render=False):
        if [rendered(c) for c in header[:len(first_cells)]] == first_cells:
            return header, rows
    return None, None


# ---- the normative page ----------------------------------------------------------------

def check_normative(reference):
    with open(NORMATIVE, encoding='utf-8') as f:
        normative = f.read()
    ours = [t for text in reference.values() for t in tables(text, render=True)]
    page_tables = tables(normative, render=False)
    check('the normative page has its eight tables', len(page_tables) == 8, len(page_tables))
    for header, rows in page_tables:
        same_header = [t for t in ours if t[0] == header]
        what = 'the normative table `%s` is in the reference exactly' % ' | '.join(header)
        if any(t[1] == rows for t in same_header):
            check(what, True)
        elif same_header:
            theirs = same_header[0][1]
            diffs = ['page:      %s\nreference: %s' % (' | '.join(a), ' | '.join(b))
                     for a, b in zip(rows, theirs) if a != b]
            if len(rows) != len(theirs):
                diffs.append('page: %d rows, reference: %d rows' % (len(rows), len(theirs)))
            check(what, False, '\n'.join(diffs))
        else:
            check(what, False, 'no table of the reference has this header')
    # Lines joined; the page's text breaks a line after an opening parenthesis.
    flat = lambda s: re.sub(r'\(\s+', '(', re.sub(r'\s+', ' ', s))  # noqa: E731
    page_text = flat(normative)
    our_text = flat(rendered(' '.join(outside_fences(t) for t in reference.values())))
    history = ' '.join(reference.values())  # the page's history is a block of the reference
    for sentence in SENTENCES:
        short = sentence if len(sentence) < 60 else sentence[:57] + '...'
        ours = flat(sentence) in (our_text if not sentence.startswith('+') else history)
        check('the page says, and the reference too: "%s"' % short,
              flat(sentence) in page_text and ours,
              'in the page: %s, in the reference: %s' % (flat(sentence) in page_text, ours))
    return page_tables


# ---- the code's tables -----------------------------------------------------------------

def keywords():
    """{KW_NAME: spelling}, in the order of compiler/syntax/ast.c."""
    return dict(re.findall(r'\[(KW_\w+)\]\s*=\s*"([^"]+)"', read('compiler', 'syntax', 'ast.c')))


def placement():
    """([place], [(keyword, {place: allowed})]) of compiler/check/placement.c, and the
    keywords that are actions."""
    places = re.findall(r'\bPLACE_(\w+)\b', read('compiler', 'check', 'placement.h'))
    places = [p for p in dict.fromkeys(places) if p not in ('COUNT', 'MEMBERS_MAX')]
    source = read('compiler', 'check', 'placement.c')
    rows = []
    for kw, cells in re.findall(r'\{\s*(KW_\w+),\s*\{([^}]*)\}\s*\}', source):
        values = [c.strip() == 'true' for c in cells.split(',')]
        rows.append((kw, dict(zip(places, values))))
    actions = set(re.findall(r'(KW_\w+):', source.split('place_of_action', 1)[1].split('}')[0]))
    return places, rows, actions


def yes(cell):
    return cell.startswith('yes')


def check_placement(reference, page_tables):
    places, rows, actions = placement()
    spell = keywords()
    columns = ['TASK', 'WORKFLOW_STEP', 'SLEEP', 'AWAIT', 'COMPUTE', 'COMPENSATE', 'WORKFLOW_BODY']
    check('placement.h has the places the table shows', all(p in places for p in columns), places)
    header, table = table_with_header(reference['04-steps.md'], ['member', 'task'])
    check('04-steps.md has the placement table', header is not None)
    if header is None:
        return
    want = [(spell[kw], [yes_ for yes_ in (allowed[p] for p in columns)])
            for kw, allowed in rows if kw not in actions]
    got = [(rendered(r[0]), [yes(c) for c in r[1:]]) for r in table]
    check('the placement table is placement.c\'s MEMBERS (the members that are not actions, '
          'in its order)', got == want,
          '\n'.join('placement.c: %s %s\nreference:   %s %s' % (a[0], a[1], b[0], b[1])
                    for a, b in zip(want + [('', [])] * len(got), got + [('', [])] * len(want))
                    if a != b))
    # The explanation of E0307 shows rows of the same table.
    _, explained = table_with_header(read('diagnostics', 'explain', 'E0307.md'), ['member', 'task'])
    by_kw = {spell[kw]: allowed for kw, allowed in rows}
    wrong = [r for r in explained or []
             if rendered(r[0]) not in by_kw
             or [yes(c) for c in r[1:]] != [by_kw[rendered(r[0])][p] for p in columns]]
    check('the placement table of diagnostics/explain/E0307.md agrees with placement.c',
          explained and not wrong, wrong or 'no table')
    # The normative page's own placement table agrees with the code.
    page = next((rows_ for h, rows_ in page_tables if h[:2] == ['Setting', 'Task step']), [])
    by_name = {spell[kw]: allowed for kw, allowed in rows}
    page_columns = ['TASK', 'WORKFLOW_STEP', 'SLEEP', 'COMPENSATE']
    disagree = [r for r in page
                if [yes(c) for c in r[1:]] != [by_name[r[0]][p] for p in page_columns]]
    check('the normative placement table agrees with placement.c', page and not disagree,
          disagree)


def check_keywords(reference):
    text = reference['01-lexical.md']
    m = re.search(r'These words are keywords:\n\n(.*?)\n\n', text, re.S)
    listed = re.findall(r'`([^`]+)`', m.group(1)) if m else []
    check('01-lexical.md lists the keywords of ast.c, in its order',
          listed == list(keywords().values()), 'listed %s\nast.c   %s'
          % (listed, list(keywords().values())))


def check_operators(reference):
    lexer = read('compiler', 'syntax', 'lexer.re')
    spelling = {tok: text for text, tok in
                re.findall(r'"([^"\w]+)"\s*\{\s*return finish\([^)]*,\s*(\w+)\)', lexer)}
    spelling['UMINUS'] = spelling.get('MINUS')
    levels = []
    for kind, tokens in re.findall(r'^%(left|precedence)\s+(.*)$', read('compiler', 'syntax',
                                                                        'parser.y'), re.M):
        if tokens.split()[0] == 'DOT':
            break  # postfix: field, index, call, `?`
        levels.append([spelling.get(t, t) for t in tokens.split()])
    header, rows = table_with_header(reference['07-expressions.md'], ['level', 'operators'])
    got = [re.findall(r'`([^`]+)`', r[1].replace('\\|', '|')) for r in rows or []]
    check('the operators\' levels of 07-expressions.md are parser.y\'s, lowest first',
          got[:len(levels)] == levels, 'reference %s\nparser.y  %s' % (got, levels))
    ops = dict(re.findall(r'ORBC_OP\((\w+),[^"]*"[^"]*",[^"]*"([^"]*)"\)', read('bytecode',
                                                                               'ops.def')))
    operators = re.search(r'#define AST_OPERATORS\(X\)(.*?)\n\n', read('compiler', 'syntax',
                                                                     'ast.h'), re.S).group(1)
    symbols = sorted(ops[instr] for _, instr in re.findall(r'X\((\w+),\s*(\w+)\)', operators))
    check('every operator of AST_OPERATORS is in the levels, spelt as ops.def spells it',
          sorted(s for level in got[:len(levels)] for s in level) == symbols,
          'levels %s\nops.def %s' % (sorted(s for level in got for s in level), symbols))


def check_stdlib(reference):
    stdlib = read('stdlib', 'orbit.orbit')
    text = reference['08-stdlib.md']
    flat = lambda s: re.sub(r'\s+', ' ', s.strip())  # noqa: E731
    builtins = [(name, flat(inp), flat(out), timeout) for name, inp, out, timeout in re.findall(
        r'^builtin "([^"]+)" \{\s*input (\{[^}]*\})\s*output (\{[^}]*\})\s*timeout (\w+)',
        stdlib, re.M)]
    _, rows = table_with_header(text, ['task', 'input'])
    got = [tuple(rendered(c) for c in r) for r in rows or []]
    check('8.1 lists the built-in tasks of stdlib/orbit.orbit', builtins and got == builtins,
          'reference %s\nstdlib    %s' % (got, builtins))
    errors = re.findall(r'^error (\w+) \{ retryable: (\w+) \}', stdlib, re.M)
    _, rows = table_with_header(text, ['code', 'retryable'])
    got = [(rendered(r[0]), r[1]) for r in rows or []]
    check('8.2 lists the error codes of stdlib/orbit.orbit with their retryability',
          errors and got == errors, 'reference %s\nstdlib    %s' % (got, errors))
    functions = [(name, flat(params), out) for name, params, out in re.findall(
        r'^function (\w+) \{ input \{ ([^}]*) \}; output (\S+) \}', stdlib, re.M)]
    _, rows = table_with_header(text, ['function', 'parameters'])
    got = [tuple(rendered(c) for c in r[:3]) for r in rows or []]
    check('8.3 lists the functions of stdlib/orbit.orbit with their types',
          functions and got == functions, 'reference %s\nstdlib    %s' % (got, functions))


def check_diagnostics(reference):
    codes = re.findall(r'^\s*DIAG\((\w+),\s*(\w+),\s*"(.*)"\)', read('diagnostics', 'codes.def'),
                       re.M)
    severity = {'ERROR': 'error', 'WARNING': 'warning', 'LINT': 'lint (off by default)'}
    want = [('[%s](../../diagnostics/explain/%s.md)' % (c, c), severity[s], t)
            for c, s, t in codes]
    _, rows = table_with_header(reference['10-diagnostics.md'], ['code', 'severity'])
    got = [tuple(r) for r in rows or []]
    check('the index of diagnostics is codes.def, in its order, each code linking its '
          'explanation', got == want,
          '\n'.join('codes.def: %s\nreference: %s' % (' | '.join(a), ' | '.join(b))
                    for a, b in zip(want + [()] * len(got), got + [()] * len(want)) if a != b))
    registered = {c for c, _, _ in codes}
    named = {c for text in reference.values() for c in re.findall(r'\b[EW]\d{4}\b', text)}
    check('every code the reference names is registered', named <= registered,
          sorted(named - registered))


# ---- links -----------------------------------------------------------------------------

def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    with open(path, encoding='utf-8') as f:
        text = outside_fences(f.read())
    found = set()
    for heading in re.findall(r'^#{1,6}\s+(.*?)\s*#*$', text, re.M):
        slug = re.sub(r'[^\w\- ]', '', rendered(heading).lower()).replace(' ', '-')
        found.add(slug)
    return found


def check_links(reference):
    broken = []
    for name, text in reference.items():
        for target in re.findall(r'\]\(([^)\s]+)\)', outside_fences(text)):
            if re.match(r'[a-z]+:', target):
                continue
            path, _, anchor = target.partition('#')
            full = os.path.normpath(os.path.join(REFERENCE, path)) if path else \
                os.path.join(REFERENCE, name)
            if not os.path.exists(full):
                broken.append('%s: %s (no such file)' % (name, target))
            elif anchor and full.endswith('.md') and anchor not in anchors(full):
                broken.append('%s: %s (no such heading)' % (name, target))
    check('every relative link of the reference resolves, with its section', not broken,
          '\n'.join(broken))
    linked = set(re.findall(r'\]\(([\w.-]+\.md)', reference['README.md']))
    check('the contents page links every page',
          linked >= set(reference) - {'README.md'}, sorted(set(reference) - linked))


def main():
    reference = pages()
    page_tables = check_normative(reference)
    check_placement(reference, page_tables)
    check_keywords(reference)
    check_operators(reference)
    check_stdlib(reference)
    check_diagnostics(reference)
    check_links(reference)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
