#!/usr/bin/env python3
"""The command line as a user meets it: exit statuses, usage errors and their
did-you-mean, options a command does not take, directories, lint levels, colour, `explain`,
atomic `build`, `dis` of a bad file, and the file-size limit (E0010, with a sparse file
larger than the limit). Files, devices, FIFOs and lost output: test_cli_files.py.

    test_cli.py --orbitc PATH        ends with `N passed, N failed`
"""
import json
import os
import re
import resource
import shutil
import subprocess
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cli import EXAMPLE, expect, main, run, test, write

WARNS_W0001 = ('worker "w" {}\nworkflow x {\n  step s { worker "w"\n'
               '    retry { attempts: 1, non_retryable: ["E"] } }\n}\n')
LINTS_W0007 = 'worker "w" {}\nworkflow x {\n  step s { worker "w"; retry { attempts: 3 } }\n}\n'


@test
def help_and_version():
    status, out, _ = run('--help')
    expect(status == 0 and 'orbitc check' in out and 'Exit status' in out, 'help: %r' % out[:200])
    status, out, _ = run('--version')
    expect(status == 0 and out.startswith('orbitc '), 'version: %r' % out)
    status, _, err = run()
    expect(status == 2 and 'Usage' in err, 'no arguments: %d %r' % (status, err[:200]))


@test
def usage_errors_exit_2():
    for args, needle in ((['frobnicate'], 'unknown command `frobnicate`'),
                         (['build'], 'needs at least one file'),
                         (['check', '--format', 'xml', EXAMPLE], 'invalid value `xml` for --format'),
                         (['check', '--bogus', EXAMPLE], 'unknown option `--bogus`'),
                         (['check', '/nonexistent/x.orbit'], 'cannot read `/nonexistent/x.orbit`'),
                         (['check', '--allow', 'E0410', EXAMPLE], 'is not a warning code'),
                         (['build', EXAMPLE], 'needs an output file'),
                         (['explain', 'E9999'], 'no diagnostic code `E9999`')):
        status, out, err = run(*args)
        expect(status == 2, '%s: exit %d, expected 2' % (args, status))
        expect(needle in err, '%s: %r does not say %r' % (args, err, needle))


@test
def directories_sorted_and_deduplicated():
    with tempfile.TemporaryDirectory() as tmp:
        status, _, err = run('check', tmp)
        expect(status == 2 and 'no .orbit files in directory' in err, 'empty dir: %r' % err)
        os.makedirs(os.path.join(tmp, 'b'))
        write(os.path.join(tmp, 'b', 'two.orbit'), 'workflow two { step s { sleep 1s } }\n')
        write(os.path.join(tmp, 'a.orbit'), 'workflow one { step s { sleep 1s } }\n')
        write(os.path.join(tmp, 'notes.txt'), 'not orbit')
        # The same file through the directory and by name is read once: no duplicate error.
        status, out, err = run('check', '--format=json', tmp, os.path.join(tmp, 'a.orbit'))
        expect(status == 0 and out == '', 'dir + file: %d %r %r' % (status, out, err))
        # Files are read in sorted path order: the first declaration is in a.orbit.
        write(os.path.join(tmp, 'b', 'dup.orbit'), 'workflow one { step s { sleep 1s } }\n')
        status, out, err = run('check', '--format=json', tmp)
        diags = [json.loads(l) for l in out.splitlines()]
        expect(status == 1 and len(diags) == 1, 'duplicate: %r' % out)
        expect(diags[0]['file'].endswith('b/dup.orbit'), 'reported in the later file: %r' % diags[0])


@test
def explain_prints_the_explanation():
    status, out, _ = run('explain', 'E0410')
    expect(status == 0 and out.startswith('# E0410') and '```orbit' in out, 'explain: %r' % out[:200])
    status, out2, _ = run('explain', 'e0410')
    expect(status == 0 and out2 == out, 'explain is case-insensitive')
    status, out, _ = run('explain')
    expect(status == 0 and 'E0410' in out and 'W0007' in out, 'code list: %r' % out[:300])


@test
def file_size_limit_e0010():
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, 'big.orbit')
        with open(big, 'wb') as f:      # sparse: costs no disk and is never read
            f.truncate(300 * 1024 * 1024)
        status, out, err = run('check', '--format=json', big)
        diags = [json.loads(l) for l in out.splitlines()]
        expect(status == 1 and [d['code'] for d in diags] == ['E0010'], 'E0010: %r %r' % (out, err))
        expect('too large' in diags[0]['message'], diags[0]['message'])


@test
def warnings_levels_and_deny():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'w.orbit')
        write(src, WARNS_W0001)
        status, out, _ = run('check', '--format=json', src)
        codes = [json.loads(l)['code'] for l in out.splitlines()]
        expect(status == 0 and codes == ['W0001'], 'warning alone exits 0: %d %r' % (status, codes))
        status, _, _ = run('check', '--deny-warnings', src)
        expect(status == 1, '--deny-warnings exits 1')
        status, out, _ = run('check', '--format=json', '--allow', 'W0001', src)
        expect(status == 0 and out == '', '--allow silences: %r' % out)
        write(src, LINTS_W0007)
        status, out, _ = run('check', '--format=json', src)
        expect(out == '', 'W0007 is off by default: %r' % out)
        status, out, _ = run('check', '--format=json', '--warn', 'W0007', src)
        expect([json.loads(l)['code'] for l in out.splitlines()] == ['W0007'], '--warn: %r' % out)


@test
def colour_only_when_asked():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'e.orbit')
        write(src, 'workflow x { step s { sleep 1s; retry { attempts: 2 } } }\n')
        _, _, plain = run('check', src)                       # stderr is a pipe: no colour
        expect('\x1b[' not in plain, 'auto colour on a pipe')
        _, _, coloured = run('check', '--color=always', src)
        expect('\x1b[' in coloured, '--color=always')
        _, _, none = run('check', '--color=always', src, env_extra={'NO_COLOR': '1'})
        expect('\x1b[' in none, '--color=always wins over NO_COLOR')
        _, _, never = run('check', '--color', 'never', src)
        expect(never == plain, '--color never')


@test
def max_diagnostics():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'many.orbit')
        write(src, ''.join('workflow w%d { step s { sleep 1s; retry {} } }\n' % i for i in range(30)))
        status, _, err = run('check', '--max-diagnostics', '5', src)
        expect(status == 1 and err.count('error[E0307]') == 5, 'five shown')
        expect('25 more diagnostics not shown' in err, 'summary of the rest: %r' % err[-300:])
        expect('30 errors emitted' in err, 'the count covers all: %r' % err[-300:])
        status, out, _ = run('check', '--format=json', '--max-diagnostics=5', src)
        expect(len(out.splitlines()) == 30, 'JSON is never cut')


@test
def build_is_atomic_and_deterministic():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.orbc')
        status, _, err = run('build', EXAMPLE, '-o', out)
        expect(status == 0 and err == '', 'build: %d %r' % (status, err))
        first = open(out, 'rb').read()
        status, _, _ = run('build', EXAMPLE, '-o', out)
        expect(open(out, 'rb').read() == first, 'two builds give identical bytes')
        bad = os.path.join(tmp, 'bad.orbit')
        write(bad, 'workflow x { step s { sleep 1s; retry { attempts: 0 } } }\n')
        status, _, err = run('build', bad, '-o', out)
        expect(status == 1 and 'E0307' in err, 'errors: exit 1: %r' % err)
        expect(open(out, 'rb').read() == first, 'a failed build leaves the old output intact')
        expect(sorted(os.listdir(tmp)) == ['bad.orbit', 'out.orbc'], 'no temporary files left: %r'
               % os.listdir(tmp))
        status, _, err = run('build', EXAMPLE, '-o', os.path.join(tmp, 'missing', 'x.orbc'))
        expect(status == 2 and 'cannot write' in err, 'unwritable output: %d %r' % (status, err))


TESTS_OF_CHECKOUT = '''test "a declined card fails the checkout" {
  workflow checkout
  input { order_id: "A1", total: { amount: 42.5, currency: "EUR" }, items: ["sku-1"] }
  task "payments.charge" { attempts: [{ fail: { code: "CARD_DECLINED", retryable: false } }] }
  child pack_items { step pick { attempts: [{ succeed: { sku: "sku-9" } }] } }
  signal "manager_approved" { at: 5s, payload: { by: "ann" } }
  expect { status: failed, error: "CARD_DECLINED", step charge { attempts: 1 } }
}
'''


@test
def tests_leave_the_bytecode_as_it_is():
    """`orbitc build` leaves tests out (docs/testing.md): a program's bytecode is the same
    byte for byte with its tests, in a file before or after its own, as without them."""
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, 'checkout.orbit')
        shutil.copyfile(EXAMPLE, program)
        before, after = os.path.join(tmp, 'a.test.orbit'), os.path.join(tmp, 'z.test.orbit')
        write(before, TESTS_OF_CHECKOUT)
        write(after, TESTS_OF_CHECKOUT.replace('a declined', 'another declined'))
        outputs = []
        for files in ([program], [before, program, after]):
            out = os.path.join(tmp, '%d.orbc' % len(outputs))
            status, _, err = run('build', *files, '-o', out)
            expect(status == 0 and err == '', 'build %s: %d %r' % (files, status, err))
            outputs.append(open(out, 'rb').read())
        expect(outputs[0] == outputs[1], 'the tests changed the bytecode (%d bytes, then %d)'
               % (len(outputs[0]), len(outputs[1])))


@test
def build_refuses_what_the_format_cannot_hold_e0601():
    """Programs that check clean but pass a limit of the .orbc format (too big for a golden
    file): build exits 1 with E0601 and leaves the old output as it was."""
    n = 65536
    big_type = ('type Big {\n' + ''.join('  f%d: int\n' % i for i in range(n)) + '}\n'
                'workflow w {\n  input Big\n  step s { compute 1 }\n}\n')
    codes = ', '.join('"E%d"' % i for i in range(n))
    big_policy = ('workflow w {\n  step s {\n    worker "a.b"\n    idempotency_key "k"\n'
                  '    retry { attempts: 3, non_retryable: [%s] }\n  }\n}\n' % codes)
    chain = 'a' + '.b' * 1000   # 2 bytes of source for each 5-byte FIELD instruction
    big_code = ('workflow w {\n  step a { worker "a.b" }\n  step c {\n    compute [\n' +
                ''.join('      %s,\n' % chain for _ in range(3400)) + '    ]\n  }\n}\n')
    cases = ((big_type, 'record type too large to build: 65536 fields, the limit is 65535',
              '1:6'),
             (big_policy, 'retry policy too large to build: 65536 `non_retryable` codes, the '
                          'limit is 65535', '5:5'),
             (big_code, 'expression too large to build: its code takes 17017006 bytes, the '
                        'limit is 16777216', '4:13'))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.orbc')
        status, _, _ = run('build', EXAMPLE, '-o', out)
        first = open(out, 'rb').read()
        for text, message, where in cases:
            src = os.path.join(tmp, 'big.orbit')
            write(src, text)
            status, _, err = run('check', '--color=never', src)
            expect(status == 0 and err == '', 'it checks clean: %d %r' % (status, err[:300]))
            status, _, err = run('build', '--color=never', src, '-o', out)
            expect(status == 1 and 'error[E0601]: ' + message in err and
                   'big.orbit:' + where in err and err.count('error[') == 1,
                   'E0601: %d %r' % (status, err[:500]))
            expect(open(out, 'rb').read() == first, 'the old output is intact')


@test
def large_records_stay_linear():
    """Records of 60,000 fields: field accesses, a comparison of two such records, a `with`
    missing every field and one giving 60,000 unknown ones. Each was quadratic (a field
    looked for one by one, the list of missing fields formatted again for each one, every
    field a did-you-mean candidate of every unknown one): seconds to hours. Now each
    check takes a fraction of a second; the time limit only catches a quadratic return."""
    n = 60000
    fields = ''.join('  f%d: int\n' % i for i in range(n))
    header = 'type T1 {\n' + fields + '}\ntype T2 {\n' + fields + '}\n'
    cases = (
        ('worker "a.x" { output T1 }\nworker "b.y" { input T2 }\nworkflow w {\n'
         '  step a { worker "a.x" }\n  step b {\n    worker "b.y"\n    with a\n  }\n'
         '  step c {\n    compute [\n' +
         ''.join('      a.f%d,\n' % (n - 1 - i) for i in range(n)) + '    ]\n  }\n}\n', ''),
        ('worker "b.y" { input T2 }\nworkflow w {\n  step b {\n    worker "b.y"\n'
         '    with {}\n  }\n}\n', 'error[E0502]: missing fields `f0`, `f1`,'),
        ('worker "b.y" { input T2 }\nworkflow w {\n  step b {\n    worker "b.y"\n'
         '    with {\n' + ''.join('      g%d: 1\n' % i for i in range(n)) + '    }\n  }\n}\n',
         'error[E0503]: unknown field `g0` in `T2`'),
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'big.orbit')
        for text, first_error in cases:   # (an error among the first reported)
            write(src, header + text)
            status, _, err = run('check', '--color=never', src, timeout=60)
            expect(status == (1 if first_error else 0) and first_error in err,
                   'check: %d %r' % (status, err[:300]))


@test
def a_chain_of_record_types_builds():
    """Deep recursion on user input: `type Ti { v: int, next: Ti+1? }` for 200,000 types, used by a
    workflow. Lowering a type lowered its parts by recursion, one C stack frame per type:
    build died of a stack overflow (signal 11) under an 8 MiB stack."""
    n = 200000
    text = ''.join('type T%d { v: int, next: T%d? }\n' % (i, i + 1) for i in range(n - 1))
    text += ('type T%d { v: int }\nworkflow w {\n  input { t: T0 }\n'
             '  step s { compute input.t.v }\n}\n' % (n - 1))
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    limit = 8 << 20 if hard == resource.RLIM_INFINITY else min(8 << 20, hard)
    resource.setrlimit(resource.RLIMIT_STACK, (limit, hard))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, 'chain.orbit'), os.path.join(tmp, 'chain.orbc')
            write(src, text)
            status, _, err = run('build', src, '-o', out, timeout=120)
            expect(status == 0 and err == '' and os.path.getsize(out) > 0,
                   'build: %d %r' % (status, err[:300]))
    finally:
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


@test
def named_types_sharing_parts_compare_in_linear_time():
    """A comparison exponential in the depth of shared parts: `type T0 { a: T1, b: T1 }`, … 40 deep, given where a
    copy of it, U0, is expected. Each pair of types was compared once per path to it,
    2^40 times: check never finished. A difference at the bottom is still found."""
    n = 40
    def chain(prefix, last):
        return ''.join('type %s%d { a: %s, b: %s }\n' % ((prefix, i) + (
            '%s%d' % (prefix, i + 1) if i + 1 < n else last,) * 2) for i in range(n))
    use = ('worker "x.y" { input T0 }\nworkflow w {\n  input { u: U0 }\n'
           '  step s { worker "x.y"; with input.u }\n}\n')
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'pairs.orbit')
        for last, want in (('int', 0), ('string', 1)):
            write(src, chain('T', 'int') + chain('U', last) + use)
            status, _, err = run('check', '--color=never', src, timeout=20)
            expect(status == want and (want == 0 or
                   'expected `T0` for the input of worker `x.y`, found `U0`' in err),
                   'U%d ends in %s: %d %r' % (n - 1, last, status, err[:300]))


@test
def dis_rejects_bad_files():
    with tempfile.TemporaryDirectory() as tmp:
        junk = os.path.join(tmp, 'junk.orbc')
        with open(junk, 'wb') as f:
            f.write(b'not bytecode at all')
        status, out, err = run('dis', junk)
        expect(status == 1 and out == '' and 'not a valid bytecode file' in err, 'junk: %r' % err)
        status, _, err = run('dis', os.path.join(tmp, 'none.orbc'))
        expect(status == 2 and 'cannot read' in err, 'missing: %r' % err)


# --- the command line: did-you-mean, lint codes, options a command does not take ---

@test
def did_you_mean_for_commands_and_options():
    for args, wrong, meant in ((['chek', EXAMPLE], 'unknown command `chek`', '`check`'),
                               (['check', '--fromat', 'json', EXAMPLE],
                                'unknown option `--fromat`', '`--format`'),
                               (['check', '--fromat=json', EXAMPLE],
                                'unknown option `--fromat`', '`--format`'),
                               (['biuld', EXAMPLE], 'unknown command `biuld`', '`build`'),
                               (['check', '--deny-warning', EXAMPLE],
                                'unknown option `--deny-warning`', '`--deny-warnings`')):
        status, _, err = run(*args)
        expect(status == 2 and wrong in err and 'did you mean %s?' % meant in err,
               '%s: %d %r' % (args, status, err))
    status, _, err = run('check', '--zzzzzzzz', EXAMPLE)
    expect(status == 2 and 'did you mean' not in err, 'no suggestion when none is close: %r' % err)
    status, _, err = run(EXAMPLE)
    expect(status == 2 and 'orbitc check %s' % EXAMPLE in err, 'a path as command: %r' % err)


def warning_codes(*args):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'w.orbit')
        write(src, LINTS_W0007)
        status, out, err = run('check', '--format=json', *args, src)
        expect(status == 0, '%s: %d %r' % (args, status, err))
        return [json.loads(l)['code'] for l in out.splitlines()]


@test
def lint_codes_any_case_and_the_later_option_wins():
    expect(warning_codes('--warn', 'w0007') == ['W0007'], '--warn w0007')
    expect(warning_codes('--warn', 'W0007', '--allow', 'w0007') == [], '--warn then --allow')
    expect(warning_codes('--allow', 'W0007', '--warn', 'W0007') == ['W0007'], '--allow then --warn')
    status, _, err = run('check', '--allow', 'e0410', EXAMPLE)
    expect(status == 2 and 'is not a warning code' in err, 'an error code: %r' % err)


@test
def deny_warnings_says_so_in_the_summary():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'w.orbit')
        write(src, WARNS_W0001)
        status, _, err = run('check', '--color=never', src)
        expect(status == 0 and err.rstrip().endswith('warning: 1 warning emitted'), err)
        status, _, err = run('check', '--color=never', '--deny-warnings', src)
        expect(status == 1 and 'error: 1 warning emitted (warnings denied by `--deny-warnings`)'
               in err, 'denied: %r' % err[-300:])


@test
def options_a_command_does_not_take_are_errors():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.orbc')
        status, _, _ = run('build', EXAMPLE, '-o', out)
        expect(status == 0, 'build')
        for args, needle in ((['check', '-o', out, EXAMPLE], '`orbitc check` takes no option `-o`'),
                             (['check', '--output=' + out, EXAMPLE],
                              '`orbitc check` takes no option `--output`'),
                             (['dis', '--color', 'never', out], '`orbitc dis` takes no option `--color`'),
                             (['dis', '--format', 'sarif', out],
                              '`orbitc dis` prints text or JSON'),
                             (['dis', '--deny-warnings', out],
                              '`orbitc dis` takes no option `--deny-warnings`'),
                             (['explain', '--max-diagnostics', '3', 'E0410'],
                              '`orbitc explain` takes no option `--max-diagnostics`'),
                             (['check', '--stdin-filename', 'x.orbit', EXAMPLE],
                              'add `-` to the paths'),
                             (['check', '--deny-warnings=yes', EXAMPLE], 'takes no value')):
            status, stdout, err = run(*args)
            expect(status == 2 and needle in err and stdout == '',
                   '%s: %d %r' % (args, status, err))


@test
def dis_format_json_prints_one_document():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.orbc')
        run('build', EXAMPLE, '-o', out)
        status, stdout, err = run('dis', '--format', 'json', out)
        doc = json.loads(stdout) if status == 0 else {}
        expect(status == 0 and err == '' and doc.get('major') == 1 and doc.get('workflows'),
               '%d %r' % (status, err))


@test
def dis_on_a_directory_says_so():
    with tempfile.TemporaryDirectory() as tmp:
        status, _, err = run('dis', tmp)
        expect(status == 2 and 'cannot read `%s`: is a directory' % tmp in err, err)


@test
def help_example_codes_exist():
    _, out, _ = run('--help')
    codes = re.findall(r'\b[EW]\d{4}\b', out)
    expect(codes, 'the help names a code')
    for code in codes:
        status, _, err = run('explain', code)
        expect(status == 0, 'help names %s: %r' % (code, err))


def stderr_on_a_terminal(args, env):
    """Runs orbitc with stderr on a pseudo-terminal; returns what it wrote there."""
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, 'wb', closefd=True) as term:
            run(*args, stderr=term, env_extra=env)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:        # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b''.join(chunks).decode('utf-8', 'replace')
    finally:
        os.close(master)


@test
def colour_from_the_environment():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'e.orbit')
        write(src, 'workflow x { step s { sleep 1s; retry { attempts: 2 } } }\n')
        on_terminal = stderr_on_a_terminal(['check', src], {'TERM': 'xterm'})
        expect('\x1b[' in on_terminal, 'a terminal gets colour: %r' % on_terminal[:200])
        dumb = stderr_on_a_terminal(['check', src], {'TERM': 'dumb'})
        expect('E0307' in dumb and '\x1b[' not in dumb, 'TERM=dumb: no colour: %r' % dumb[:200])
        forced = stderr_on_a_terminal(['check', '--color=always', src], {'TERM': 'dumb'})
        expect('\x1b[' in forced, '--color=always wins over TERM=dumb')
        for env, coloured in (({'FORCE_COLOR': '1'}, True), ({'CLICOLOR_FORCE': '1'}, True),
                              ({'FORCE_COLOR': '0'}, False), ({'FORCE_COLOR': ''}, False),
                              ({'FORCE_COLOR': '1', 'NO_COLOR': '1'}, True),
                              ({'CLICOLOR_FORCE': '1', 'TERM': 'dumb'}, True)):
            _, _, err = run('check', src, env_extra=env)       # stderr is a pipe
            expect(('\x1b[' in err) == coloured, '%s: colour %s' % (env, not coloured))
        _, _, err = run('check', '--color=never', src, env_extra={'FORCE_COLOR': '1'})
        expect('\x1b[' not in err, '--color=never wins over FORCE_COLOR')



@test
def ci_reports_of_a_run_that_could_not_read_a_path():
    """A path that cannot be read (exit 2) left SARIF saying
    `executionSuccessful: true` and the GitLab report looking complete; code scanning
    would close that file's alerts. The SARIF log must still match the official schema."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    'tests', 'golden', 'harness'))
    import formats as golden_formats
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'ok.orbit'), 'workflow w { step s { sleep 1h } }\n')
        status, out, err = run('check', '--format=sarif', 'ok.orbit', 'gone.orbit', cwd=tmp)
        expect(status == 2, 'exit %d' % status)
        log = json.loads(out)
        invocation = log['runs'][0]['invocations'][0]
        expect(invocation['executionSuccessful'] is False, invocation)
        notes = invocation.get('toolExecutionNotifications', [])
        expect(len(notes) == 1 and notes[0]['level'] == 'error'
               and notes[0]['message']['text'].startswith('cannot read `gone.orbit`: ')
               and notes[0]['locations'][0]['physicalLocation']['artifactLocation']['uri']
               == 'gone.orbit', notes)
        validator = golden_formats.load_sarif_validator()
        if validator is not None:
            errors = [e.message for e in validator.iter_errors(log)]
            expect(not errors, 'schema: %s' % errors[:3])
        status, out, err = run('check', '--format=sarif', 'ok.orbit', cwd=tmp)
        expect(json.loads(out)['runs'][0]['invocations'] == [{'executionSuccessful': True}],
               out[:300])
        status, out, err = run('check', '--format=gitlab', 'ok.orbit', 'gone.orbit', cwd=tmp)
        issues = json.loads(out)
        expect(status == 2 and len(issues) == 1 and issues[0]['check_name'] == 'orbitc-unread'
               and issues[0]['severity'] == 'blocker'
               and issues[0]['location']['path'] == 'gone.orbit', issues)


@test
def message_lines_and_sarif_descriptions():
    """A message's later lines are indented under its first; SARIF's
    fullDescription is plain text (no doubled backticks) and names no made-up
    informationUri; GitHub's secondary-label paths are normalised like `file=`."""
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'w.orbit'),
              'workflow w {\n  step s { worker "x"; retry { attempts: 3, '
              'non_retryable: ["A\\nB", "A\\nB"] } }\n}\n')
        status, out, err = run('check', '--color=never', 'w.orbit', cwd=tmp)
        expect('warning[W0004]: error code `A\n                B` is listed twice' in err, err)
        status, out, err = run('check', '--format=sarif', 'w.orbit', cwd=tmp)
        driver = json.loads(out)['runs'][0]['tool']['driver']
        expect('informationUri' not in driver or 'orbit.invalid' not in driver['informationUri'],
               driver.get('informationUri'))
        texts = [r['fullDescription']['text'] for r in driver['rules']]
        expect(not [t for t in texts if '``' in t], [t for t in texts if '``' in t][:1])
        write(os.path.join(tmp, 'a.orbit'), 'workflow d { step a { sleep 1s } }\n')
        write(os.path.join(tmp, 'b.orbit'), 'workflow d { step b { sleep 1s } }\n')
        status, out, err = run('check', '--format=github', './a.orbit', './b.orbit', cwd=tmp)
        expect('file=b.orbit,' in out and '%0Aa.orbit:1:10: first defined here' in out, out)


@test
def an_option_of_one_value_given_twice():
    """Two different values of an option that keeps one are refused (exit 2,
    naming the option and both values); the same value twice is accepted (docs/cli.md)."""
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'w.orbit'), 'workflow w { step s { sleep 1s } }\n')
        for args, needle in (
                (['build', 'w.orbit', '-o', 'a.orbc', '-o', 'b.orbc'],
                 '--output/-o is given twice, as `a.orbc` and as `b.orbc`'),
                (['build', 'w.orbit', '--output=a.orbc', '-o', 'b.orbc'],
                 '--output/-o is given twice, as `a.orbc` and as `b.orbc`'),
                (['check', '--format', 'json', '--format=human', 'w.orbit'],
                 '--format is given twice, as `json` and as `human`'),
                (['check', '--color', 'never', '--colour', 'always', 'w.orbit'],
                 '--color/--colour is given twice, as `never` and as `always`'),
                (['check', '--max-diagnostics', '10', '--max-diagnostics', '010', 'w.orbit'],
                 '--max-diagnostics is given twice'),
                (['fix', '--max-rounds', '1', '--max-rounds', '2', 'w.orbit'],
                 '--max-rounds is given twice'),
                (['check', '-', '--stdin-filename', 'a', '--stdin-filename', 'b'],
                 '--stdin-filename is given twice')):
            status, out, err = run(*args, cwd=tmp)
            expect(status == 2 and needle in err, '%s: %d %r' % (args, status, err))
            expect(not os.path.exists(os.path.join(tmp, 'a.orbc'))
                   and not os.path.exists(os.path.join(tmp, 'b.orbc')), '%s wrote' % args)
        status, out, err = run('build', 'w.orbit', '-o', 'a.orbc', '--output=a.orbc',
                               '--format', 'json', '--format=json', '--warn', 'W0007',
                               '--allow', 'W0007', '--deny-warnings', '--deny-warnings', cwd=tmp)
        expect(status == 0 and os.path.exists(os.path.join(tmp, 'a.orbc')),
               'the same value twice: %d %r' % (status, err))


def applies(diff, cwd, tool):
    """Whether `patch -p0 --dry-run` or `git apply -p0 --check` (in a git repository at
    cwd) takes `diff` from cwd; returns (ok, what the tool said)."""
    if tool == 'patch':
        args = ['patch', '-p0', '--dry-run', '--batch']
    else:
        args = ['git', 'apply', '-p0', '--check']
    p = subprocess.run(args, cwd=cwd, input=diff.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode == 0, p.stdout.decode('utf-8', 'replace')


@test
def diffs_apply_with_patch_and_git_from_the_current_directory():
    """`fmt --diff` and `fix --diff` name a file relative to the current
    directory, whether it was given relative, with `./` or absolute, so that `patch -p0`
    and `git apply -p0` take the diff from there (docs/cli.md, "Diffs")."""
    if not shutil.which('patch') or not shutil.which('git'):
        raise AssertionError('patch and git are needed by this test')
    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        subprocess.run(['git', 'init', '-q', tmp], check=True)
        os.makedirs(os.path.join(tmp, 'dir'))
        path = os.path.join(tmp, 'dir', 'x.orbit')
        write(path, 'workflow   w {\n  step s { worker "w"; retry { attemps: 3 } }\n}\n')
        for command in (['fmt', '--diff'], ['fix', '--diff', '--color=never']):
            for given in ('dir/x.orbit', './dir/x.orbit', path):
                status, out, err = run(*command, given, cwd=tmp)
                expect(out.startswith('--- dir/x.orbit\n+++ dir/x.orbit\n@@ '),
                       '%s %s: %d %r %r' % (command, given, status, out[:200], err))
                for tool in ('patch', 'git'):
                    ok, said = applies(out, tmp, tool)
                    expect(ok, '%s %s: %s refuses the diff: %s' % (command, given, tool, said))
            # from the file's own directory, an absolute path is the file's name
            status, out, err = run(*command, path, cwd=os.path.join(tmp, 'dir'))
            expect(out.startswith('--- x.orbit\n+++ x.orbit\n'), '%s: %r' % (command, out[:100]))


@test
def a_program_configuration_is_no_source_path():
    """An orbit.program named as a path is refused by check, build, fix and fmt (exit 2,
    saying it is a program configuration), as a walk of its directory never takes it;
    the other paths go on (docs/cli.md, "Programs and their configuration")."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'app'))
        config = 'program   app {}\n'
        write(os.path.join(tmp, 'app', 'orbit.program'), config)
        write(os.path.join(tmp, 'app', 'flow.orbit'), 'workflow w { step s { sleep 1s } }\n')
        needle = ('`app/orbit.program` is a program configuration, not a source file: '
                  'give its directory')
        for command in (['check'], ['build', '-o', 'out.orbc'], ['fix'], ['fix', '--diff'],
                        ['fmt'], ['fmt', '--check'], ['fmt', '--diff']):
            status, out, err = run(*command, 'app/orbit.program', cwd=tmp)
            expect(status == 2 and needle in err, '%s: %d %r %r' % (command, status, out, err))
            expect(open(os.path.join(tmp, 'app', 'orbit.program')).read() == config,
                   '%s changed the configuration' % command)
            expect(not os.path.exists(os.path.join(tmp, 'out.orbc')), '%s wrote' % command)
        status, out, err = run('fmt', '--check', 'app', cwd=tmp)
        expect(status == 1 and out == 'app/flow.orbit\n' and err == '',
               'fmt of the directory: %d %r %r' % (status, out, err))
        status, out, err = run('check', 'app/orbit.program', 'app/flow.orbit', cwd=tmp)
        expect(status == 2 and needle in err, 'with a source: %d %r' % (status, err))


@test
def a_lone_cr_ends_a_line():
    """LF, CRLF and a lone CR each end one line (base/source.h), in every
    output: the JSON range is LSP's, line 1 character 19 here, as the server's."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'cr.orbit'), 'wb') as f:
            f.write(b'workflow w {\r  step s { compute bogus }\r}\r')
        status, out, err = run('check', '--format=json', 'cr.orbit', cwd=tmp)
        d = json.loads(out)
        expect(d['range']['start'] == {'line': 1, 'character': 19}
               and (d['line'], d['column']) == (2, 20), out)
        status, out, err = run('check', '--color=never', 'cr.orbit', cwd=tmp)
        expect('--> cr.orbit:2:20' in err, err)
        status, out, err = run('check', '--format=github', 'cr.orbit', cwd=tmp)
        expect('line=2,col=20' in out, out)
        status, out, err = run('check', '--format=sarif', 'cr.orbit', cwd=tmp)
        region = json.loads(out)['runs'][0]['results'][0]['locations'][0]['physicalLocation']['region']
        expect((region['startLine'], region['startColumn']) == (2, 20), region)
        status, out, err = run('check', '--format=gitlab', 'cr.orbit', cwd=tmp)
        expect(json.loads(out)[0]['location']['lines']['begin'] == 2, out)
        # the end of a file that ends with a lone CR is shown at the end of its last line
        with open(os.path.join(tmp, 'eof.orbit'), 'wb') as f:
            f.write(b'workflow w {\r  step s { sleep 1s }\r')
        status, out, err = run('check', '--color=never', 'eof.orbit', cwd=tmp)
        expect('--> eof.orbit:2:22' in err and ' 3 |' not in err, err)

if __name__ == '__main__':
    main()
