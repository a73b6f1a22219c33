#!/usr/bin/env python3
"""Each fact is written once (docs/architecture.md): a definition the
product code shares must not grow a second copy. Each check names a pattern that may
match in one file of the product code at most (or in none: a name that is gone), in its
C or in its JavaScript; the test prints every file beyond that and exits 1.

The C/JavaScript boundary (engine/, hosts/, playground/): the numbers of engine.h that
JavaScript passes (generated into hosts/wasm/engine-enums.js), the one wrapper that
copies bytes in and out of the WebAssembly module, its export list (the functions the C
marks WASM_EXPORT, tools/wasm_exports.py: the wrapper calls no other; the history
events the JavaScript reads by name are events the engine records, and those the engine
records are the list of bytecode/history_events.def that the compiler reads), the order of
timer ties (engine/timers.c, which no JavaScript host may restate), the XML escaping
and the duration units of the playground's pictures.

    test_facts_once.py SOURCE_ROOT
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'tools'))
from wasm_exports import marked  # noqa: E402

# The folders of the product code (not tests/, tools/, the fuzz targets).
PRODUCT = ('base', 'bytecode', 'cli', 'compiler', 'diagnostics', 'engine', 'format',
           'hosts', 'lsp', 'playground', 'runtime', 'workspace')
C = ('.c', '.h', '.re', '.y', '.def')
JS = ('.js', '.mjs')
# Never product code: installed packages, build output.
SKIP = ('node_modules', 'build')
# The one JavaScript wrapper of the WebAssembly build, and the numbers it passes.
WRAPPER = 'hosts/wasm/orbit-api.js'
ENUMS = 'hosts/wasm/engine-enums.js'

# (what, pattern, the files that may hold it: None = none at all[, the suffixes: C when
# not given])
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
    ('an operator\'s spelling (its instruction\'s symbol in ops.def)',
     r'case OP_\w+:\s*return\s+"', None),
    ('an operator\'s instruction (ast.h\'s AST_OPERATORS)',
     r'case OP_\w+:\s*return\s+ORBC_OP_|\bOP_\w+\s*\?\s*ORBC_OP_', None),
    # ---- the C/JavaScript boundary ----
    ('the name of each EngineStatus', r'"TIMED_OUT"', {'engine/engine.c'}),
    ('the numbers of engine.h\'s answer and event kinds',
     r'\b(OUTPUT|FAIL|HTTP_RESPONSE|NETWORK_ERROR|TIMER_FIRED|PICKED_UP|ANSWERED|WORKER_LOST'
     r'|NO_WORKER|IDLE)\s*:\s*\d', {ENUMS}, JS),
    ('a copy of bytes in or out of the WebAssembly heap', r'\bHEAPU8\b|\b_malloc\b',
     {WRAPPER}, JS),
    ('a load of the WebAssembly module', r'\bcreateOrbit\w*\s*\(|\bccall\b|\bcwrap\b',
     {WRAPPER}, JS),
    ('a list of the functions the WebAssembly build exports',
     r'[\'"]_?(wasm|orbit_pg)_\w+[\'"]\s*,\s*[\'"]_?(wasm|orbit_pg)_\w+', None, C + JS),
    ('the old wrapper of the engine core', r'engine\.mjs\b|orbit_engine\.(cjs|wasm)', None, JS),
    ('the order of timer ties (engine/timers.c: time, limits last, then the order set)',
     r'lim\w*\s*(!==?|-)[^\n]*\bseq\b', None, JS),
    ('the XML escaping of the playground\'s pictures', r'&amp;', {'playground/src/xml.js'}, JS),
    ('the sizes of the duration units (liborbc\'s orbc_duration_units)',
     r'\b(3600000|86400000)\b', {'playground/src/policies.js'}, JS),
]


def product_files(root):
    for folder in PRODUCT:
        for path in sorted((root / folder).rglob('*')):
            parts = path.relative_to(root).parts
            if path.suffix in C + JS and path.is_file() and not any(p in SKIP for p in parts):
                yield path


def unexported_calls(root, texts):
    """The functions of the WebAssembly module the wrapper calls that the C does not mark
    WASM_EXPORT (the build exports only those)."""
    exported = set(marked([root / 'hosts' / 'wasm', root / 'playground', root / 'compat']))
    text = texts.get(WRAPPER, '')
    # module._NAME(...), call('NAME', ...), and the toolchain's toolchain('NAME')/json('NAME')
    names = set(re.findall(r'\b_((?:wasm|orbit_pg)_\w+)\b', text))
    names.update(re.findall(r'\bcall\(\s*\'(\w+[^_\W])\'', text))
    names.update('orbit_pg_' + n for n in re.findall(r'\b(?:toolchain|json)\(\s*\'(\w+)\'', text))
    if not exported or not names:
        return ['%s calls no function of the module, or the C marks none' % WRAPPER]
    return ['%s calls %s, which the C does not mark WASM_EXPORT' % (WRAPPER, name)
            for name in sorted(names - exported)]


def unknown_events(texts):
    """The history events the JavaScript reads by name (`case 'StepScheduled':`,
    `event === 'WorkflowStarted'`) that the engine core never records: a name that
    changed in C and not in the JavaScript that reads it."""
    recorded = ''.join(text for name, text in texts.items() if name.startswith('engine/'))
    problems = []
    for name, text in sorted(texts.items()):
        if not name.endswith(JS):
            continue
        for event in sorted(set(re.findall(r"(?:case\s+|event\s*===?\s*)'([A-Z][a-z]+[A-Z]\w*)'", text))):
            if '"%s"' % event not in recorded:
                problems.append('%s reads the history event %s, which engine/ never records'
                                % (name, event))
    return problems


def event_table(root, texts):
    """The names of history events that bytecode/history_events.def lists (the compiler
    checks a test's `events` against it) and the names engine/ records differ: an event
    renamed, added or removed on one side only."""
    table = re.findall(r'^HISTORY_EVENT\((\w+)\)',
                       (root / 'bytecode' / 'history_events.def').read_text(), re.M)
    recorded = set()
    for name, text in texts.items():
        if name.startswith('engine/') and name.endswith(C):
            recorded.update(re.findall(r'"([A-Z][a-z]+[A-Z]\w*)"', text))
    problems = ['engine/ records the history event %s, which bytecode/history_events.def '
                'does not list' % event for event in sorted(recorded - set(table))]
    problems += ['bytecode/history_events.def lists the history event %s, which engine/ '
                 'never records' % event for event in sorted(set(table) - recorded)]
    if len(set(table)) != len(table):
        problems.append('bytecode/history_events.def lists an event twice')
    return problems


def main():
    root = pathlib.Path(sys.argv[1])
    texts = {p.relative_to(root).as_posix(): p.read_text(errors='replace')
             for p in product_files(root)}
    failures = 0
    for check in CHECKS:
        what, pattern, allowed = check[:3]
        suffixes = check[3] if len(check) > 3 else C
        found = sorted(name for name, text in texts.items()
                       if name.endswith(suffixes) and re.search(pattern, text))
        extra = [name for name in found if allowed is None or name not in allowed]
        for name in extra:
            print('%s written again in %s (allowed: %s)'
                  % (what, name, ', '.join(sorted(allowed)) if allowed else 'nowhere'))
        failures += len(extra)
    for problem in unexported_calls(root, texts) + unknown_events(texts) + event_table(root, texts):
        print(problem)
        failures += 1
    print('%d checks over %d files, %d copies too many' % (len(CHECKS) + 3, len(texts), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
