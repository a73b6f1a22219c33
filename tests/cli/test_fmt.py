#!/usr/bin/env python3
"""`orbitc fmt` (docs/style.md): the layout, its guarantees, and the command.

  properties  tools/fmt_props on every golden source, example, the standard library (LF
              and CRLF), programs of every shape of tools/gen_corpus.py (also CRLF, also
              with mistakes) and every fuzz regression input: idempotent, the same tokens,
              tree and comments, the layout's rules (tools/fmt_properties.h); and on 2,000
              layout mutations of the programs that parse (fuzz/mutate_fmt.py); the
              committed fuzz corpora are checked so by the opt-in suite `fuzz`
              (fuzz/replay.py --corpora --fmt-props)
  meaning     for each of those that checks clean, the program built from the formatted
              text disassembles exactly as the original's, positions aside; for the others,
              `check` reports the same diagnostics (code, severity, message: its spaces
              and separators aside) in the same order
  command     in place and atomically, only files that change, --check, --diff (applied
              with `patch -p0` it gives the formatted file), `-`, syntax errors, paths that
              cannot be read or written, permissions, symbolic links, directories; the
              hooks of .pre-commit-hooks.yaml

The golden cases of tests/golden/fmt/ (before and after) are tests/golden/golden.py's.

    test_fmt.py --orbitc PATH --fmt-props PATH [TEST...]    ends with `N passed, N failed`
"""
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import corpus_sample, expect, test  # noqa: F401
from support.cases import main as run_cases

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, 'tools', 'gen_corpus.py')
ORBITC = FMT_PROPS = None

# Generated programs: (name, gen_corpus.py arguments). `longexpr` of 2,000 terms is over
# the nesting limit (E0009): it must be refused, not formatted.
GENERATED = [
    ('realistic-1', ['--size', '40K', '--seed', '1']),
    ('realistic-2', ['--size', '40K', '--seed', '2']),
    ('realistic-crlf', ['--size', '40K', '--seed', '3', '--crlf']),
    ('errors', ['--size', '40K', '--seed', '4', '--errors', '8']),
    ('chain', ['--shape', 'chain', '--steps', '300']),
    ('longline', ['--shape', 'longline', '--size', '40K']),
    ('longline-crlf', ['--shape', 'longline', '--size', '40K', '--crlf']),
    ('deep', ['--shape', 'deep', '--size', '40K']),
    ('wide', ['--shape', 'wide', '--fields', '3000']),
    ('longexpr', ['--shape', 'longexpr', '--terms', '500']),
]
REFUSED = [('longexpr-too-long', ['--shape', 'longexpr', '--terms', '2000'])]


def run(*args, stdin=None, input=None, cwd=None):
    """orbitc ARGS: (status, stdout bytes, stderr text)."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    p = subprocess.run([ORBITC] + list(args), stdin=stdin, input=input, cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def fmt_text(data):
    return run('fmt', '-', input=data)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode('utf-8'))


def sources():
    """Every Orbit source of the repository (golden inputs, examples, standard library)."""
    found = sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', '**', '*.orbit'), recursive=True))
    found += sorted(glob.glob(os.path.join(ROOT, 'examples', '*.orbit')))
    found.append(os.path.join(ROOT, 'stdlib', 'orbit.orbit'))
    return found


def generate(tmp, cases):
    paths = []
    for name, args in cases:
        path = os.path.join(tmp, name + '.orbit')
        subprocess.run([sys.executable, GEN] + args + ['-o', path], check=True,
                       stderr=subprocess.DEVNULL)
        paths.append(path)
    return paths


def fuzz_regressions():
    """The fuzz regression inputs that are sources (the corpora: fuzz/replay.py --corpora)."""
    return sorted(glob.glob(os.path.join(ROOT, 'fuzz', 'regressions', '*', '*.orbit')))


def props(paths, *flags):
    """Runs fmt_props over the paths (in batches); returns its failure lines."""
    failures = []
    for i in range(0, len(paths), 500):
        p = subprocess.run([FMT_PROPS] + list(flags) + paths[i:i + 500],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        out = p.stdout.decode('utf-8', 'replace')
        failures += [line for line in out.splitlines() if line.startswith('FAIL')]
        if p.returncode not in (0, 1):
            failures.append('fmt_props exited %d: %s' % (p.returncode, out[-2000:]))
    return failures


# ---- the guarantees ----

@test
def properties_of_repository_sources():
    failures = props(corpus_sample(sources()), '--crlf', '--cr')
    expect(not failures, '\n  '.join(failures))


@test
def properties_of_layout_mutations():
    """2,000 layout mutations of the programs that parse (fuzz/mutate_fmt.py, seed
    1: the same ones on every run; 667 under the sanitizers, corpus_sample)."""
    count = len(corpus_sample(range(2000)))
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(ROOT, 'fuzz', 'mutate_fmt.py')
        p = subprocess.run([sys.executable, script, '--fmt-props', FMT_PROPS, '--seed', '1',
                            '--count', str(count), '--keep', tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        out = p.stdout.decode('utf-8', 'replace')
        expect(p.returncode == 0, 'a guarantee fails (fuzz/mutate_fmt.py --fmt-props '
               'FMT_PROPS --seed 1 --count %d keeps the inputs):\n' % count + out[-3000:])
        formatted = re.search(r'(\d+) formatted with every guarantee', out)
        expect(formatted and int(formatted.group(1)) >= count // 4,
               'too few mutations parse to test anything: ' + out[-500:])


@test
def examples_and_stdlib_parse_and_are_formatted():
    # The repository's own programs, as a user would keep them: the examples, the standard
    # library, and the planted bugs of `orbitc test --explore` (tests/explore/, read as
    # programs a person wrote; the golden cases keep their layouts on purpose).
    files = sorted(glob.glob(os.path.join(ROOT, 'examples', '*.orbit')))
    files.append(os.path.join(ROOT, 'stdlib', 'orbit.orbit'))
    explore = sorted(glob.glob(os.path.join(ROOT, 'tests', 'explore', '*', '*.orbit')))
    expect(explore, 'no program in tests/explore/')
    files += explore
    failures = props(files, '--must-parse')
    expect(not failures, '\n  '.join(failures))
    status, out, err = run('fmt', '--check', *files)
    expect(status == 0 and out == b'', 'not formatted: %r %s' % (out, err))


@test
def properties_of_generated_programs():
    with tempfile.TemporaryDirectory() as tmp:
        failures = props(generate(tmp, GENERATED), '--crlf', '--must-parse')
        expect(not failures, '\n  '.join(failures))
        for path in generate(tmp, REFUSED):
            status, out, err = fmt_text(read(path))
            expect(status == 1 and out == b'' and 'E0009' in err,
                   '%s: expected E0009 and nothing formatted, got %d' % (path, status))


@test
def properties_of_fuzz_regressions():
    inputs = fuzz_regressions()
    expect(inputs, 'no fuzz regression found')
    failures = props(inputs, '--crlf', '--cr')
    expect(not failures, '\n  '.join(failures))


# ---- the meaning ----

POSITION = re.compile(rb'\b\d+:\d+\b')


def layout_free(message):
    """A message without its spaces, line ends and separators `,` `;`: a message may
    quote an expression as written (source_text in compiler/check/check_types.c), which
    fmt respaces (as tools/fmt_properties.c compares them)."""
    return re.sub(r'[ \t\r\n\f\v,;]', '', message)


def program_of(diagnostic):
    """The program (its root directory's name, programs() below) a JSON diagnostic is in."""
    return diagnostic.get('file', '').split('/')[0]


def diagnostics_by_program(side):
    """{program: [(code, severity, message without layout)]} of one `orbitc check` of
    every program of `side` (programs(): the same relative paths on both sides)."""
    names = sorted(os.listdir(side))
    status, out, err = run('check', '--format=json', '--max-diagnostics=0', *names, cwd=side)
    expect(status in (0, 1), 'check of %s: exit %d: %s' % (side, status, err[-2000:]))
    found = {name: [] for name in names}
    for d in map(json.loads, out.decode('utf-8').splitlines()):
        found[program_of(d)].append((d['code'], d['severity'], layout_free(d['message'])))
    return found


def build_programs(side, names, out_dir):
    """`orbitc build` of the programs `names` of `side` at once (one bytecode file each in
    out_dir, docs/cli.md "Building several programs"); the programs that do not build
    (a limit of the bytecode format, E06xx, which check does not see) are left out and the
    others built again. Returns the names that did not build."""
    failed = []
    while names:
        os.makedirs(out_dir, exist_ok=True)
        output = os.path.join(out_dir, names[0] + '.orbc') if len(names) == 1 else out_dir + '/'
        status, out, err = run('build', '--format=json', *names, '-o', output, cwd=side)
        if status == 0:
            return failed
        bad = {program_of(d) for d in map(json.loads, out.decode('utf-8').splitlines())
               if d['severity'] == 'error'}
        expect(status == 1 and bad and bad <= set(names),
               'build of %s: exit %d: %s' % (side, status, err[-2000:]))
        failed += sorted(bad)
        names = [n for n in names if n not in bad]
    return failed


def disassembly(path):
    status, text, err = run('dis', path)
    expect(status == 0, 'dis failed: %s' % err)
    return re.sub(rb'[ \t]+', b' ', POSITION.sub(b'L:C', text))   # columns pad positions


def programs(tmp, paths, formatted):
    """Each path copied alone to a program of its own on each side, tmp/original/N/ and
    tmp/formatted/N/ (an empty orbit.program: the default settings, whatever root the
    source lies below in the repository), so that orbitc takes every one in a run; those
    of the formatted side then formatted by one `orbitc fmt` (a file it cannot parse is
    left as it is). Returns {N: the source's path}."""
    names = {}
    for i, path in enumerate(paths):
        name = '%03d' % i
        names[name] = path
        for side in ('original', 'formatted'):
            directory = os.path.join(tmp, side, name)
            os.makedirs(directory)
            write(os.path.join(directory, 'orbit.program'), b'')
            write(os.path.join(directory, os.path.basename(path)), read(path))
    status, _, err = run('fmt', formatted)
    expect(status in (0, 1), 'fmt of the copies: exit %d: %s' % (status, err[-2000:]))
    return names


@test
def meaning_is_kept():
    """For each source: the program built from its formatted text disassembles as the
    original's, positions aside; one that does not build (errors, or a limit of the
    bytecode format) gives the same diagnostics. Each step takes every program in one run
    (orbitc under the sanitizers costs a process start each) but `dis`, one per file."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        gen_dir = os.path.join(tmp, 'gen')
        os.makedirs(gen_dir)
        paths = corpus_sample(sources()) + generate(gen_dir, GENERATED[:4] + GENERATED[5:6])
        original, formatted = os.path.join(tmp, 'original'), os.path.join(tmp, 'formatted')
        names = programs(tmp, paths, formatted)
        before, after = diagnostics_by_program(original), diagnostics_by_program(formatted)
        clean = [n for n in sorted(names) if not any(d[1] == 'error' for d in before[n])]
        unbuilt = build_programs(original, clean, os.path.join(tmp, 'out-original'))
        built = [n for n in clean if n not in unbuilt]
        for name in build_programs(formatted, built, os.path.join(tmp, 'out-formatted')):
            problems.append('%s: the formatted program does not build' % names[name])
            built.remove(name)
        for name in sorted(names):
            where = os.path.relpath(names[name], ROOT)
            if name in built:
                if (disassembly(os.path.join(tmp, 'out-original', name + '.orbc'))
                        != disassembly(os.path.join(tmp, 'out-formatted', name + '.orbc'))):
                    problems.append('%s: the disassembly differs' % where)
            elif before[name] != after[name]:
                problems.append('%s: diagnostics differ: %r / %r'
                                % (where, before[name][:3], after[name][:3]))
    print('%d programs: %d built and disassembled, the others compared by their diagnostics'
          % (len(names), len(built)))
    expect(len(built) >= 40, 'only %d programs built' % len(built))
    expect(not problems, '\n  '.join(problems))


# ---- the command ----

MESSY = b'workflow w {\n    step a {   sleep 1s }\n}\n'
TIDY = b'workflow w {\n  step a { sleep 1s }\n}\n'
BROKEN = b'workflow w {\n  step a { sleep 1s \n'


def tree(tmp, files):
    for name, data in files.items():
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write(path, data)


@test
def rewrites_in_place_only_what_changes():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'a.orbit': MESSY, 'b.orbit': TIDY, 'sub/c.orbit': MESSY, 'notes.txt': MESSY})
        os.chmod(os.path.join(tmp, 'a.orbit'), 0o640)
        before = os.stat(os.path.join(tmp, 'b.orbit'))
        status, out, err = run('fmt', tmp)
        expect(status == 0 and out == b'' and err == '', 'status %d %r %s' % (status, out, err))
        expect(read(os.path.join(tmp, 'a.orbit')) == TIDY, 'a.orbit not formatted')
        expect(read(os.path.join(tmp, 'sub/c.orbit')) == TIDY, 'sub/c.orbit not formatted')
        expect(read(os.path.join(tmp, 'notes.txt')) == MESSY, 'a .txt file was touched')
        expect(stat.S_IMODE(os.stat(os.path.join(tmp, 'a.orbit')).st_mode) == 0o640,
               'permissions not kept')
        after = os.stat(os.path.join(tmp, 'b.orbit'))
        expect((before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns),
               'a formatted file was rewritten')
        expect(not [n for n in os.listdir(tmp) if n.startswith('.')], 'a temporary file was left')


@test
def no_path_means_the_current_directory():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'a.orbit': MESSY})
        status, _, err = run('fmt', cwd=tmp)
        expect(status == 0 and read(os.path.join(tmp, 'a.orbit')) == TIDY, err)


@test
def check_lists_files_and_changes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'a.orbit': MESSY, 'b.orbit': TIDY, 'c.orbit': MESSY})
        status, out, _ = run('fmt', '--check', tmp)
        expect(status == 1, 'exit %d' % status)
        names = sorted(os.path.basename(l) for l in out.decode().splitlines())
        expect(names == ['a.orbit', 'c.orbit'], 'listed %r' % names)
        expect(read(os.path.join(tmp, 'a.orbit')) == MESSY, '--check changed a file')
        status, out, _ = run('fmt', '--check', os.path.join(tmp, 'b.orbit'))
        expect(status == 0 and out == b'', 'a formatted file: exit %d %r' % (status, out))


@test
def diff_applies_with_patch():
    with tempfile.TemporaryDirectory() as tmp:
        big = read(os.path.join(ROOT, 'tests', 'golden', 'fmt', 'steps.orbit'))
        tree(tmp, {'a.orbit': MESSY, 'b.orbit': big, 'c.orbit': TIDY, 'd.orbit': b'type T {}'})
        status, out, _ = run('fmt', '--diff', 'a.orbit', 'b.orbit', 'c.orbit', 'd.orbit', cwd=tmp)
        expect(status == 1, 'exit %d' % status)
        text = out.decode()
        expect(text.startswith('--- a.orbit\n+++ a.orbit\n@@ -1,3 +1,3 @@\n'), text[:200])
        expect('c.orbit' not in text, 'a formatted file has a diff')
        expect('\\ No newline at end of file' in text, 'the missing line end is not shown')
        expect(read(os.path.join(tmp, 'a.orbit')) == MESSY, '--diff changed a file')
        if shutil.which('patch'):
            p = subprocess.run(['patch', '-p0', '-s'], input=out, cwd=tmp)
            expect(p.returncode == 0, 'patch failed')
            for name in ('a.orbit', 'b.orbit', 'd.orbit'):
                expect(run('fmt', '--check', name, cwd=tmp)[0] == 0, name + ' after patch')


@test
def diff_lines_end_as_everywhere():
    """--diff splits lines by base/source.h's rule, so a file whose lines end
    with a lone CR has a hunk line for each line, with its bytes exactly; a file of LF
    and CRLF lines still applies with patch (diff_applies_with_patch)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'cr.orbit': b'type T {a:int}\rtype U {b: int}\r'})
        status, out, _ = run('fmt', '--diff', 'cr.orbit', cwd=tmp)
        expect(status == 1, 'exit %d' % status)
        expect(out.startswith(b'--- cr.orbit\n+++ cr.orbit\n@@ -1,2 +1,2 @@\n'
                              b'-type T {a:int}\r\n\\ No newline at end of file\n'
                              b'-type U {b: int}\r\n'), out)
        tree(tmp, {'m.orbit': b'type T {a:int}\r\ntype U {b: int}\ntype V {c:int}\r\n'})
        status, out, _ = run('fmt', '--diff', 'm.orbit', cwd=tmp)
        expect(b'@@ -1,3 +1,3 @@\n-type T {a:int}\r\n-type U {b: int}\n' in out, out)
        if shutil.which('patch'):
            p = subprocess.run(['patch', '-p0', '-s', '--binary'], input=out, cwd=tmp)
            expect(p.returncode == 0, 'patch failed')
            expect(read(os.path.join(tmp, 'm.orbit'))
                   == b'type T { a: int }\r\ntype U { b: int }\r\ntype V { c: int }\r\n',
                   read(os.path.join(tmp, 'm.orbit')))


@test
def standard_input_to_standard_output():
    status, out, err = run('fmt', '-', input=MESSY)
    expect(status == 0 and out == TIDY and err == '', 'status %d %r %s' % (status, out, err))
    status, out, _ = run('fmt', '--check', '-', input=MESSY)
    expect(status == 1 and out == b'<stdin>\n', '--check -: %d %r' % (status, out))
    status, out, _ = run('fmt', '--check', '-', input=TIDY)
    expect(status == 0 and out == b'', '--check - on tidy text: %d %r' % (status, out))


@test
def syntax_errors_leave_the_file_alone():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'bad.orbit': BROKEN, 'good.orbit': MESSY})
        status, out, err = run('fmt', '--color=never', tmp)
        expect(status == 1, 'exit %d' % status)
        expect('error[E0101]' in err and 'bad.orbit' in err, err)
        expect(read(os.path.join(tmp, 'bad.orbit')) == BROKEN, 'a file with errors was changed')
        expect(read(os.path.join(tmp, 'good.orbit')) == TIDY, 'the other file was not formatted')
        status, out, err = run('fmt', '-', input=BROKEN)
        expect(status == 1 and out == b'', 'stdin with errors: %d %r' % (status, out))


@test
def checker_errors_do_not_stop_formatting():
    status, out, _ = run('fmt', '-', input=b'workflow w { step s {   timout 10s } }\n')
    expect(status == 0 and out == b'workflow w {\n  step s { timout 10s }\n}\n', repr(out))


@test
def unreadable_and_unwritable_paths():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'ro/a.orbit': MESSY, 'ok.orbit': MESSY})
        status, _, err = run('fmt', os.path.join(tmp, 'missing.orbit'), os.path.join(tmp, 'ok.orbit'))
        expect(status == 2 and 'missing.orbit' in err, 'missing path: %d %s' % (status, err))
        expect(read(os.path.join(tmp, 'ok.orbit')) == TIDY, 'the readable file was not formatted')
        if os.geteuid() != 0:   # root may write anywhere
            os.chmod(os.path.join(tmp, 'ro'), 0o555)
            status, _, err = run('fmt', os.path.join(tmp, 'ro', 'a.orbit'))
            os.chmod(os.path.join(tmp, 'ro'), 0o755)
            expect(status == 2 and 'cannot write' in err, 'read-only dir: %d %s' % (status, err))
            expect(read(os.path.join(tmp, 'ro', 'a.orbit')) == MESSY, 'changed anyway')


@test
def symbolic_links_are_followed():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, {'real.orbit': MESSY})
        os.symlink('real.orbit', os.path.join(tmp, 'link.orbit'))
        status, _, err = run('fmt', os.path.join(tmp, 'link.orbit'))
        expect(status == 0, err)
        expect(os.path.islink(os.path.join(tmp, 'link.orbit')), 'the link was replaced')
        expect(read(os.path.join(tmp, 'real.orbit')) == TIDY, 'the target was not formatted')


@test
def pre_commit_hooks_run():
    """Each formatting hook of .pre-commit-hooks.yaml, run as pre-commit runs it: its entry, then the
    staged file names that match its `files` pattern (its entry is `orbitc-hook fmt ...`, which
    runs the npm package's orbitc: here the orbitc under test; the hooks themselves run on
    the packages in tests/install/test_npm.py)."""
    text = read(os.path.join(ROOT, '.pre-commit-hooks.yaml')).decode()
    hooks = re.findall(r'^- id: (\S+)\n(?:  .*\n)*?  entry: (.+)\n(?:  .*\n)*?  files: (.+)$',
                       text, re.M)
    hooks = [h for h in hooks if h[1].startswith('orbitc-hook fmt')]   # the formatting hooks
    expect(sorted(h[0] for h in hooks) == ['orbitc-fmt', 'orbitc-fmt-check'], repr(hooks))
    for name, entry, pattern in hooks:
        with tempfile.TemporaryDirectory() as tmp:
            tree(tmp, {'a.orbit': MESSY, 'b.orbit': TIDY})
            files = [f for f in ('a.orbit', 'b.orbit') if re.search(pattern, f)]
            expect(files == ['a.orbit', 'b.orbit'], '%s: files %r' % (name, files))
            status, out, _ = run(*entry.split()[1:], *files, cwd=tmp)
            rewrites = name == 'orbitc-fmt'   # pre-commit fails it by the file it changed
            expect(status == (0 if rewrites else 1), '%s: exit %d' % (name, status))
            fixed = read(os.path.join(tmp, 'a.orbit')) == TIDY
            expect(fixed == rewrites, '%s: a.orbit fixed: %s' % (name, fixed))
            status, _, _ = run(*entry.split()[1:], 'b.orbit', cwd=tmp)
            expect(status == 0, '%s: a formatted file fails' % name)


@test
def options_of_other_commands_are_refused():
    status, _, err = run('fmt', '--format=json', '-', input=TIDY)
    expect(status == 2 and 'takes no option' in err, err)
    status, _, err = run('check', '--check', os.path.join(ROOT, 'examples', 'checkout.orbit'))
    expect(status == 2 and 'takes no option' in err, err)


def main():
    """The script's runner (support.cases): --orbitc PATH --fmt-props PATH [-k NAME]."""
    run_cases(('ORBITC', 'FMT_PROPS'))


if __name__ == '__main__':
    main()
