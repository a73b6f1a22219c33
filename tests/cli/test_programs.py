#!/usr/bin/env python3
"""Program roots and their configuration (docs/cli.md, "Programs and their
configuration"), where the golden cases (tests/golden/programs/) cannot reach: building several
programs, the command line over a configuration, a root found from inside it, from a
single file and from standard input. Each test works in a copy of a golden case in a
temporary directory.

    test_programs.py --orbitc PATH
"""
import json
import os
import shutil
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test, write

GOLDEN = os.path.join(cli_harness.ROOT, 'tests', 'golden', 'programs')


def copy_case(name, tmp):
    target = os.path.join(tmp, name)
    shutil.copytree(os.path.join(GOLDEN, name + '.case'), target)
    return target


def codes(stdout):
    return [(d['code'], d['severity'], d['file']) for d in map(json.loads, stdout.splitlines())]


@test
def monorepo_checks_clean_and_builds_one_file_per_program():
    with tempfile.TemporaryDirectory() as tmp:
        repo = copy_case('monorepo', tmp)
        status, out, err = run('check', repo)
        expect((status, out, err) == (0, '', ''), 'check: %r' % ((status, out, err),))
        status, out, err = run('build', '.', '-o', 'out/', cwd=repo)
        expect(status == 0 and err == '', 'build: %d %s' % (status, err))
        expect(sorted(os.listdir(os.path.join(repo, 'out'))) == ['payments.orbc', 'shipping.orbc'],
               'outputs: %s' % os.listdir(os.path.join(repo, 'out')))
        for name, worker in (('payments', 'payments.charge'), ('shipping', 'shipping.label')):
            status, dis, err = run('dis', os.path.join(repo, 'out', name + '.orbc'))
            expect(status == 0 and worker in dis, '%s.orbc does not hold %s' % (name, worker))
            other = 'shipping.label' if name == 'payments' else 'payments.charge'
            expect(other not in dis, '%s.orbc holds the other program\'s %s' % (name, other))


@test
def several_programs_need_an_output_directory():
    with tempfile.TemporaryDirectory() as tmp:
        repo = copy_case('monorepo', tmp)
        status, out, err = run('build', repo, '-o', os.path.join(tmp, 'a.orbc'))
        expect(status == 2 and '2 programs need one output each' in err, 'got %d %s' % (status, err))
        expect(not os.path.exists(os.path.join(tmp, 'a.orbc')), 'a file was written')


@test
def one_failing_program_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        repo = copy_case('monorepo', tmp)
        write(os.path.join(repo, 'shipping', 'broken.orbit'), 'workflow broken { step a {} }\n')
        out_dir = os.path.join(tmp, 'out')
        os.mkdir(out_dir)
        status, out, err = run('build', repo, '-o', out_dir)
        expect(status == 1 and 'E0301' in err, 'got %d %s' % (status, err))
        expect(os.listdir(out_dir) == [], 'written: %s' % os.listdir(out_dir))


@test
def build_refuses_files_below_no_root_and_equal_names():
    with tempfile.TemporaryDirectory() as tmp:
        case = copy_case('rootless', tmp)
        status, out, err = run('build', case, '-o', os.path.join(tmp, 'out/'))
        expect(status == 2 and 'below no program root' in err, 'rootless: %d %s' % (status, err))
        repo = copy_case('monorepo', tmp)
        write(os.path.join(repo, 'shipping', 'orbit.program'), 'program payments {}\n')
        status, out, err = run('build', repo, '-o', os.path.join(tmp, 'out2/'))
        expect(status == 2 and 'both named `payments`' in err, 'names: %d %s' % (status, err))


@test
def command_line_overrides_the_configuration():
    with tempfile.TemporaryDirectory() as tmp:
        case = copy_case('levels', tmp)
        status, out, err = run('check', '--format=json', case)
        strict = [c for c in codes(out) if '/strict/' in c[2]]
        expect(('W0002', 'error', strict[1][2]) in strict and status == 1, 'deny: %s' % strict)
        status, out, err = run('check', '--format=json', '--warn', 'W0002', '--allow', 'W0007', case)
        strict = [c for c in codes(out) if '/strict/' in c[2]]
        expect(strict == [('W0002', 'warning', strict[0][2])] and status == 0,
               '--warn W0002 --allow W0007: %s (exit %d)' % (strict, status))


@test
def root_found_from_inside_from_a_file_and_from_stdin():
    with tempfile.TemporaryDirectory() as tmp:
        case = copy_case('levels', tmp)
        strict = os.path.join(case, 'strict')
        status, out, err = run('check', '--format=json', 'flow.orbit', cwd=strict)
        expect([c[:2] for c in codes(out)] == [('W0007', 'warning'), ('W0002', 'error')],
               'inside the root: %s' % codes(out))
        expect(all(c[2] == 'flow.orbit' for c in codes(out)), 'paths: %s' % codes(out))
        status, out2, err = run('check', '--format=json', os.path.join(strict, 'flow.orbit'))
        expect([c[:2] for c in codes(out2)] == [c[:2] for c in codes(out)], 'a file: %s' % out2)
        with open(os.path.join(strict, 'flow.orbit'), 'rb') as f:
            source = f.read()
        status, out3, err = run('check', '--format=json', '--stdin-filename', 'strict/new.orbit',
                                '-', cwd=case, input=source)
        expect([c[:2] for c in codes(out3)] == [c[:2] for c in codes(out)],
               'stdin named into the root: %s %s' % (out3, err))


@test
def configuration_paths_are_shown_relative():
    with tempfile.TemporaryDirectory() as tmp:
        case = copy_case('bad_config', tmp)
        status, out, err = run('check', '--format=json', 'app', cwd=case)
        files = {c[2] for c in codes(out)}
        expect(files == {'app/orbit.program', 'app/flow.orbit'}, 'files: %s' % files)
        status, out, err = run('check', '--format=json', '.', cwd=os.path.join(case, 'app'))
        files = {c[2] for c in codes(out)}
        expect(files == {'orbit.program', './flow.orbit'}, 'files from the root: %s' % files)


@test
def an_unreadable_configuration_is_reported():
    with tempfile.TemporaryDirectory() as tmp:
        case = copy_case('monorepo', tmp)
        config = os.path.join(case, 'payments', 'orbit.program')
        os.remove(config)
        os.mkfifo(config)   # a marker all the same, but never read (no writer would come)
        status, out, err = run('check', case)
        expect(status == 2 and 'payments/orbit.program' in err, 'got %d %s' % (status, err))



@test
def a_configuration_that_is_no_readable_file_is_an_error():
    """A dangling or looping symbolic link, or a directory, named
    orbit.program made no root, so the root's deny levels were silently not applied
    (exit 0); like a FIFO or an unreadable file it is an error naming it (exit 2)."""
    makers = {
        'dangling': lambda config: os.symlink('missing.program', config),
        'looping': lambda config: os.symlink('orbit.program', config),
        'directory': lambda config: os.mkdir(config),
    }
    for kind, make in makers.items():
        with tempfile.TemporaryDirectory() as tmp:
            case = copy_case('monorepo', tmp)
            config = os.path.join(case, 'payments', 'orbit.program')
            os.remove(config)
            make(config)
            status, out, err = run('check', case)
            expect(status == 2 and 'cannot read' in err and 'payments/orbit.program' in err,
                   '%s: got %d %s' % (kind, status, err))
    with tempfile.TemporaryDirectory() as tmp:   # a link to a file is read as that file
        case = copy_case('monorepo', tmp)
        config = os.path.join(case, 'payments', 'orbit.program')
        os.rename(config, config + '.real')
        os.symlink('orbit.program.real', config)
        expect(run('check', case)[0] == 0, 'a symbolic link to a configuration')

if __name__ == '__main__':
    cli_harness.main()
