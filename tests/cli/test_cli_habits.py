#!/usr/bin/env python3
"""The command-line habits users bring from other linters (docs/cli.md, "Where the diagnostics go"):
`--format concise`, `--statistics`, `--output-file`, `--exit-zero`, `--quiet`, `check`
without a path, `orbitc COMMAND --help`, and the warning of a SARIF log near GitHub's
limit of results.

    test_cli_habits.py --orbitc PATH        ends with `N passed, N failed`
"""
import json
import os
import re
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cli import expect, main, run, test, write

# An error (E0410, a misspelt retry setting) and two warnings of one code (W0001).
TWO_KINDS = ('worker "w" {}\n'
             'workflow x {\n'
             '  step s { worker "w"; retry { attempts: 1, non_retryable: ["E"] } }\n'
             '  step t { worker "w"; retry { attempts: 1, non_retryable: ["F"] } }\n'
             '  step u { worker "w"; retry { attempts: 3, backof: exponential } }\n'
             '}\n')
CLEAN = 'workflow x { step s { sleep 1s } }\n'


def tree(tmp, text=TWO_KINDS, name='a.orbit'):
    path = os.path.join(tmp, name)
    write(path, text)
    return path


def json_diagnostics(*args, cwd=None):
    status, out, err = run('check', '--format', 'json', *args, cwd=cwd)
    return status, [json.loads(line) for line in out.splitlines()], err


@test
def concise_is_one_line_per_diagnostic_as_json_says():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp)
        status, diags, _ = json_diagnostics(path)
        expect(status == 1 and len(diags) == 3, 'json: %d %s' % (status, diags))
        status, out, err = run('check', '--format', 'concise', path)
        lines = out.splitlines()
        expect(status == 1 and err == '', 'concise: status %d, stderr %r' % (status, err))
        expect(len(lines) == len(diags), 'one line each: %r' % out)
        for line, d in zip(lines, diags):
            start = d['span']['start'] if 'span' in d else d['spans'][0]['start'] \
                if 'spans' in d else None
            m = re.match(r'^(.*):(\d+):(\d+): (error|warning)\[([EW]\d{4})\]: (.*)$', line)
            expect(m, 'shape: %r' % line)
            expect(m.group(1) == path and m.group(4) == d['severity']
                   and m.group(5) == d['code'] and m.group(6) == d['message'].split('\n')[0],
                   '%r against %s' % (line, d))
        # the error is E0410 at line 5 (`backof`), in both formats
        expect(any(l.startswith(path + ':5:') and 'error[E0410]' in l for l in lines), out)


@test
def statistics_counts_each_code_most_frequent_first():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp)
        status, out, err = run('check', '--statistics', path)
        lines = out.splitlines()
        expect(status == 1, 'status %d (the same as without --statistics)' % status)
        expect(len(lines) == 2, 'two codes: %r' % out)
        expect(re.match(r'^2  W0001  \S', lines[0]) and re.match(r'^1  E0410  \S', lines[1]),
               'sorted by count: %r' % out)
        expect('-->' not in err and 'error[' not in err, 'no diagnostics: %r' % err)
        status, _, err = run('check', '--statistics', '--format', 'json', path)
        expect(status == 2 and '--statistics' in err, 'json refused: %d %r' % (status, err))
        status, out, _ = run('check', '--statistics', tree(tmp, CLEAN, 'clean.orbit'))
        expect(status == 0 and out == '', 'a clean run: %d %r' % (status, out))


@test
def output_file_is_written_whole_and_atomically():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp)
        report = os.path.join(tmp, 'report.sarif')
        write(report, 'old')
        os.chmod(report, 0o640)
        status, out, err = run('check', '--format', 'sarif', '--output-file', report, path)
        expect(status == 1 and out == '', 'status %d, stdout %r' % (status, out[:200]))
        with open(report, encoding='utf-8') as f:
            log = json.load(f)
        expect(len(log['runs'][0]['results']) == 3, 'three results')
        expect(os.stat(report).st_mode & 0o777 == 0o640, 'the mode is kept')
        expect(not [n for n in os.listdir(tmp) if n.endswith('.tmp')], 'no temporary file left')
        # the human format into a file: not coloured unless --color always, nothing on stderr
        human = os.path.join(tmp, 'human.txt')
        status, _, err = run('check', '--output-file', human, path,
                             env_extra={'FORCE_COLOR': '1'})
        text = open(human, encoding='utf-8').read()
        expect(status == 1 and err == '' and 'E0410' in text and '\x1b[' not in text,
               'human: %d %r %r' % (status, err, text[:100]))
        # statistics into the file
        status, out, _ = run('check', '--statistics', '--output-file', human, path)
        expect(status == 1 and out == '' and open(human).read().startswith('2  W0001'), 'stats')
        # refused: an input, a directory
        status, _, err = run('check', '--output-file', path, path)
        expect(status == 2 and 'refusing to overwrite' in err, 'input: %d %r' % (status, err))
        expect(open(path).read() == TWO_KINDS, 'the input is untouched')
        status, _, err = run('check', '--output-file', tmp, path)
        expect(status == 2 and 'cannot write' in err, 'directory: %d %r' % (status, err))
        status, _, err = run('build', '--output-file', report, path, '-o', os.path.join(tmp, 'x.orbc'))
        expect(status == 2 and 'takes no option `--output-file`' in err, 'build: %r' % err)


@test
def exit_zero_turns_1_into_0_but_not_2():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp)
        status, _, err = run('check', '--exit-zero', path)
        expect(status == 0 and 'E0410' in err, 'errors: %d' % status)
        clean = tree(tmp, TWO_KINDS.replace('backof', 'backoff'), 'warn.orbit')
        status, _, _ = run('check', '--exit-zero', '--deny-warnings', clean)
        expect(status == 0, 'denied warnings: %d' % status)
        status, _, _ = run('check', '--exit-zero', path, os.path.join(tmp, 'missing.orbit'))
        expect(status == 2, 'a path not read: %d' % status)
        status, _, _ = run('fix', '--exit-zero', '--diff', path)
        expect(status == 0, 'fix: %d' % status)


@test
def quiet_prints_the_diagnostics_only():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp)
        _, _, loud = run('check', path)
        status, _, err = run('check', '-q', path)
        expect('emitted' in loud and 'orbitc explain' in loud, 'without -q: %r' % loud[-300:])
        expect(status == 1 and 'E0410' in err and 'emitted' not in err
               and 'orbitc explain' not in err, '-q: %d %r' % (status, err[-300:]))
        expect(loud.startswith(err.rstrip('\n')), 'the same diagnostics')
        status, _, err = run('fix', '--quiet', '--diff', path)
        expect('would fix' not in err and 'emitted' not in err, 'fix -q: %r' % err)
        status, _, err = run('fix', '--diff', path)
        expect('would fix' in err, 'fix: %r' % err)


@test
def check_without_a_path_checks_the_current_directory():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp)
        os.mkdir(os.path.join(tmp, 'sub'))
        tree(os.path.join(tmp, 'sub'), CLEAN, 'b.orbit')
        here = run('check', '--format', 'json', cwd=tmp)
        dot = run('check', '--format', 'json', '.', cwd=tmp)
        expect(here[0] == 1 and here[:2] == dot[:2] and here[1], 'no path = `.`: %s %s'
               % (here[:2], dot[:2]))
        status, _, err = run('build', cwd=tmp)
        expect(status == 2 and 'needs at least one file' in err, 'build still needs paths')


@test
def each_command_has_its_own_help():
    _, whole, _ = run('--help')
    for command, has, lacks in (('check', ['--statistics', '--exit-zero', '--deny-warnings'],
                                 ['--max-rounds', '--workflow', 'orbitc fmt']),
                                ('fmt', ['--check', '--diff'], ['--deny-warnings', '--output']),
                                ('fix', ['--max-rounds', '--exit-zero'], ['--statistics']),
                                ('graph', ['--workflow'], ['--max-rounds']),
                                ('explain', ['orbitc explain'], ['--format'])):
        for args in ([command, '--help'], ['help', command], [command, '-h', 'x.orbit']):
            status, out, err = run(*args)
            expect(status == 0 and err == '', '%s: %d %r' % (args, status, err))
            expect(all(h in out for h in has) and not any(l in out for l in lacks),
                   '%s: %r' % (args, out))
            expect(len(out) < len(whole) and out.startswith('orbitc '), '%s: shorter' % args)
    expect('--clientProcessId' in whole and 'orbitc graph' in whole, 'the whole help')
    status, out, _ = run('frobnicate', '--help')
    expect(status == 0 and out == whole, 'unknown command: the whole help')


@test
def sarif_warns_near_githubs_limit_of_results():
    with tempfile.TemporaryDirectory() as tmp:
        # 20,000 W0001 warnings, in steps of one workflow
        steps = ''.join('  step s%d { worker "w"; retry { attempts: 1, non_retryable: ["E"] } }\n'
                        % i for i in range(20000))
        path = tree(tmp, 'worker "w" {}\nworkflow x {\n' + steps + '}\n')
        report = os.path.join(tmp, 'r.sarif')
        status, _, err = run('check', '--format', 'sarif', '--output-file', report, path,
                             timeout=300)
        results = json.load(open(report))['runs'][0]['results']
        expect(len(results) == 20000, '%d results' % len(results))
        expect(status == 0 and 'the SARIF log holds 20000 results' in err
               and '25000' in err and 'over the limit' not in err, '%d %r' % (status, err))
        status, _, err = run('check', '--format', 'json', path, timeout=300)
        expect('SARIF' not in err, 'json: no warning')
        small = tree(tmp, TWO_KINDS, 'small.orbit')
        status, _, err = run('check', '--format', 'sarif', small)
        expect('SARIF' not in err, 'small: no warning: %r' % err)


BIDI = ('workflow x {\n'
        '  step s { worker "pay\u202eyap" }\n'
        '  // orbit:allow(W0011)\n'
        '  step t { worker "a\u2066b\u2069" }\n'
        '}\n')


@test
def bidi_controls_follow_the_levels_of_their_program():
    """W0011 is made while the files are read; --allow, orbit.program's allow and deny
    and an inline suppression still apply to it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp, BIDI)
        status, out, _ = run('check', '--format', 'concise', path)
        expect(status == 0 and out.count('W0011') == 1 and ':2:' in out, 'default: %r' % out)
        status, out, _ = run('check', '--format', 'concise', '--allow', 'w0011', path)
        expect(status == 0 and out == '', '--allow: %r' % out)
        config = os.path.join(tmp, 'orbit.program')
        write(config, 'program p { lints { W0011: deny } }\n')
        status, out, _ = run('check', '--format', 'concise', tmp)
        expect(status == 1 and out.count('error[W0011]') == 1, 'deny: %d %r' % (status, out))
        write(config, 'program p { lints { W0011: allow } }\n')
        status, out, _ = run('check', '--format', 'concise', tmp)
        expect(status == 0 and out == '', 'allow: %d %r' % (status, out))
        # another program beside it keeps its own level
        os.mkdir(os.path.join(tmp, 'other'))
        tree(os.path.join(tmp, 'other'), BIDI, 'b.orbit')
        write(os.path.join(tmp, 'other', 'orbit.program'), 'program q {}\n')
        status, out, _ = run('check', '--format', 'concise', tmp)
        expect(status == 0 and out.count('W0011') == 1 and 'other' in out, 'two: %r' % out)
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp, BIDI)
        # fixed: the escape is seen and the string is the same
        status, _, err = run('fix', path)
        text = open(path, encoding='utf-8').read()
        expect(status == 0 and '"pay\\u{202E}yap"' in text and '\u202e' not in text,
               'fix: %d %r %r' % (status, err, text))
        status, out, _ = run('check', '--format', 'concise', path)
        expect(out == '', 'after the fix: %r' % out)


# W0001 twice, W0002 once, W0004 once, W0007 (off by default) twice
MANY = ('worker "w" {}\n'
        'workflow x {\n'
        '  step s { worker "w"; retry { attempts: 1, non_retryable: ["E"] } }\n'
        '  step t { worker "w"; retry { attempts: 3, max_delay: 5s, non_retryable: ["A", "A"] } }\n'
        '  step u { worker "w"; retry { attempts: 1, non_retryable: ["F"] } }\n'
        '}\n')


def codes(*args):
    status, out, err = run('check', '--format', 'concise', *args)
    return status, sorted(re.findall(r'\[([EW]\d{4})\]', out)), err


@test
def select_and_ignore_by_code_and_prefix():
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp, MANY)
        expect(codes(path)[1] == ['W0001', 'W0001', 'W0002', 'W0004'], 'default: %s' % (codes(path),))
        # --select: only these; a prefix names every code it starts
        expect(codes('--select', 'W0002', path)[1] == ['W0002'], 'select one')
        expect(codes('--select', 'w000', path)[1] == ['W0001', 'W0001', 'W0002', 'W0004', 'W0007'],
               'select a prefix turns a lint on too: %s' % (codes('--select', 'w000', path),))
        # the longer wins; at the same length --ignore
        expect(codes('--select', 'W00', '--ignore', 'W0001', path)[1]
               == ['W0002', 'W0004', 'W0007'], 'select W00, ignore W0001')
        expect(codes('--ignore', 'W00', '--select', 'W0004', path)[1] == ['W0004'],
               'the longer select wins over a shorter ignore')
        expect(codes('--select', 'W0004', '--ignore', 'W0004', path)[1] == [], 'ignore wins a tie')
        expect(codes('--ignore', 'W000', path)[1] == [], 'ignore a prefix')
        # --warn and --allow apply after, in order, and take prefixes too
        expect(codes('--select', 'W0002', '--warn', 'W0004', path)[1] == ['W0002', 'W0004'], 'warn after')
        expect(codes('--allow', 'W000', '--warn', 'W0001', path)[1] == ['W0001', 'W0001'], 'order')
        # refused: an error code or prefix, a prefix of nothing
        for bad in ('E0410', 'E04', 'X', 'W9'):
            status, _, err = codes('--select', bad, path)
            expect(status == 2 and 'is not a warning code, nor the start of one' in err,
                   '%s: %d %r' % (bad, status, err))
        # the command line overrides the configuration
        write(os.path.join(tmp, 'orbit.program'), 'program p { lints { W0001: deny } }\n')
        status, found, _ = codes('--select', 'W0002', tmp)
        expect(status == 0 and found == ['W0002'], 'over the configuration: %d %s' % (status, found))


@test
def configuration_prefixes_and_files_blocks_are_checked():
    with tempfile.TemporaryDirectory() as tmp:
        tree(tmp, MANY)
        config = os.path.join(tmp, 'orbit.program')
        for text, needle in (
                ('program p { lints { W00: allow, w00: warn } }', '`w00` is given a level twice'),
                ('program p { lints { E04: allow } }', 'unknown warning code `E04`'),
                ('program p { files { lints { W0001: allow } } }', '`files` takes a pattern'),
                ('program p { files "a/**" { lint { W0001: allow } } }',
                 'unknown setting `lint` in `files`'),
                ('program p { file "x" { } }', 'unknown setting `file` in `program`')):
            write(config, text + '\n')
            status, out, err = run('check', '--format', 'concise', tmp)
            expect(status == 1 and 'E0701' in out and needle in out,
                   '%r: %d %r' % (text, status, out))
        # W0001 allowed everywhere but in one file
        os.mkdir(os.path.join(tmp, 'new'))
        tree(os.path.join(tmp, 'new'),
             MANY.replace('worker "w" {}\n', '').replace('workflow x', 'workflow y'), 'b.orbit')
        write(config, 'program p {\n  lints { W0001: allow }\n'
                      '  files "new/*.orbit" { lints { W0001: deny } }\n}\n')
        status, out, _ = run('check', '--format', 'concise', tmp)
        w0001 = [l for l in out.splitlines() if 'W0001' in l]
        expect(status == 1 and len(w0001) == 2
               and all('new/b.orbit' in l and 'error[W0001]' in l for l in w0001),
               'per file: %d %r' % (status, out))
        status, _, _ = run('check', '--allow', 'W0001', tmp)
        expect(status == 0, 'the command line wins over a files block')


FLOW = 'workflow w%d { step s { sleep 1s } }\n'
UGLY = 'workflow   u%d {}\n'


def files_checked(cwd, *args):
    status, out, err = run('fmt', '--check', *args, cwd=cwd)
    return sorted(l[2:] if l.startswith('./') else l for l in out.splitlines())


@test
def gitignore_and_exclude_when_walking_directories():
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, 'repo')
        for d in ('.git', 'sub/gen', 'sub/keep', 'build'):
            os.makedirs(os.path.join(repo, d))
        names = ['a.orbit', 'sub/b.orbit', 'sub/gen/c.orbit', 'sub/gen/important.orbit',
                 'sub/keep/d.orbit', 'build/e.orbit']
        for i, name in enumerate(names):
            write(os.path.join(repo, name), UGLY % i)
        write(os.path.join(repo, '.gitignore'), '# generated\nbuild/\ngen/\n\n')
        write(os.path.join(repo, 'sub', '.gitignore'), '!gen/\ngen/*.orbit\n!important.orbit\n')
        everything = sorted(names)
        kept = ['a.orbit', 'sub/b.orbit', 'sub/gen/important.orbit', 'sub/keep/d.orbit']
        expect(files_checked(repo, '.') == kept, 'gitignored: %s' % files_checked(repo, '.'))
        expect(files_checked(repo, '--no-ignore', '.') == everything, '--no-ignore')
        # from a subdirectory, the parents' .gitignore up to the top of the repository count
        sub = os.path.join(repo, 'sub')
        expect(files_checked(sub, '.') == ['b.orbit', 'gen/important.orbit', 'keep/d.orbit'],
               'in sub: %s' % files_checked(sub, '.'))
        # a file named on the command line is always taken
        expect(files_checked(repo, 'build/e.orbit') == ['build/e.orbit'], 'named')
        # --exclude: a .gitignore line at the top of the walk, after the others
        expect(files_checked(repo, '--exclude', 'keep/', '--exclude', '*.orbit',
                             '--exclude', '!a.orbit', '.') == ['a.orbit'], '--exclude')
        expect(files_checked(repo, '--no-ignore', '--exclude', 'sub', '.')
               == ['a.orbit', 'build/e.orbit'], '--exclude with --no-ignore')
        # check, fix and build walk the same way
        status, out, _ = run('check', '--format', 'json', '--exclude', 'a.orbit', cwd=repo)
        expect(status == 0, 'check: %d %r' % (status, out))
        # outside any repository only the walked directories' own .gitignore files count
        plain = os.path.join(tmp, 'plain')
        os.makedirs(os.path.join(plain, 'x'))
        write(os.path.join(plain, 'x', 'f.orbit'), UGLY % 9)
        write(os.path.join(plain, 'g.orbit'), UGLY % 8)
        write(os.path.join(tmp, '.gitignore'), '*.orbit\n')   # above: not a repository's
        expect(files_checked(plain, '.') == ['g.orbit', 'x/f.orbit'], 'no repository')
        # nothing left to check is the same error as an empty directory
        status, _, err = run('check', '--exclude', '*.orbit', '.', cwd=plain)
        expect(status == 2 and 'no .orbit files' in err, 'all excluded: %d %r' % (status, err))


@test
def fmt_stdin_filename_and_coloured_diffs():
    status, out, _ = run('fmt', '--diff', '--stdin-filename', 'src/x.orbit', '-',
                         input=b'workflow   x {}\n')
    expect(status == 1 and out.startswith('--- src/x.orbit\n+++ src/x.orbit\n'), repr(out))
    status, _, err = run('fmt', '--stdin-filename', 'src/x.orbit', '-', input=b'workflow x {\n')
    expect(status == 1 and '--> src/x.orbit:1:' in err, 'errors named: %r' % err)
    status, _, err = run('fmt', '--stdin-filename', 'src/x.orbit')
    expect(status == 2 and 'add `-` to the paths' in err, 'without -: %r' % err)
    status, out, _ = run('fmt', '--diff', '--color', 'always', '-', input=b'workflow   x {}\n')
    expect('\x1b[1m--- <stdin>' in out and '\x1b[36m@@ -1,1 +1,1 @@\x1b[m' in out
           and '\x1b[31m-workflow   x {}\x1b[m\n' in out and '\x1b[32m+workflow x {}\x1b[m\n' in out,
           'coloured: %r' % out)
    status, plain, _ = run('fmt', '--diff', '-', input=b'workflow   x {}\n')
    expect('\x1b' not in plain, 'not a terminal: no colour')
    status, never, _ = run('fmt', '--diff', '--color', 'never', '-', input=b'workflow   x {}\n',
                           env_extra={'FORCE_COLOR': '1'})
    expect(never == plain, '--color never')
    with tempfile.TemporaryDirectory() as tmp:
        path = tree(tmp, TWO_KINDS)
        status, out, _ = run('fix', '--diff', '--color', 'always', path)
        expect('\x1b[32m+' in out and '\x1b[31m-' in out, 'fix --diff: %r' % out)


@test
def fix_unsafe_fixes_and_show_fixes():
    with tempfile.TemporaryDirectory() as tmp:
        # W0011 in a comment: removing the character is offered as maybe-incorrect
        text = ('worker "w" {}\nworkflow x {\n  // a \u2066 b\n'
                '  step s { worker "w"; retry { atempts: 2 } }\n}\n')
        path = tree(tmp, text)
        status, _, err = run('fix', '--show-fixes', path)
        after = open(path, encoding='utf-8').read()
        expect('\u2066' in after and 'attempts: 2' in after, 'safe only: %r' % after)
        expect(re.search(r'orbitc: fix .*a\.orbit:4:\d+: E0410: did you mean `attempts`\?', err),
               'shown: %r' % err)
        status, _, err = run('fix', '--unsafe-fixes', '--show-fixes', path)
        after = open(path, encoding='utf-8').read()
        expect(status == 0 and '\u2066' not in after and '// a  b' in after,
               'unsafe: %d %r %r' % (status, after, err))
        expect('W0011: remove it from the comment' in err, 'shown: %r' % err)
        status, _, err = run('check', '--unsafe-fixes', path)
        expect(status == 2 and 'takes no option `--unsafe-fixes`' in err, 'check refuses it')


if __name__ == '__main__':
    main()
