#!/usr/bin/env python3
"""The man pages render cleanly and say what the programs say.

For each page: `groff -ww -z` (with the preprocessors man uses) prints no warning, and
`man -l` renders it. Then the pages cannot go stale: every option that `orbitc --help`
names appears in orbitc(1), every command of its usage lines is described under
COMMANDS, every environment variable it names under ENVIRONMENT, and every option of
`orbit-run --help` appears in orbit-run(1).

    test_manpages.py --orbitc PATH --orbit-run PATH PAGE...     ends with `N passed, N failed`
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                'tools'))
import cli_help  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.checklist import check, finish  # noqa: E402

def run(argv, env=None):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=env)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def render_checks(page):
    name = os.path.basename(page)
    status, _, err = run(['groff', '-k', '-t', '-ww', '-z', '-man', page])
    check('%s: groff -ww -z prints no warning' % name, status == 0 and err == '', err.strip())
    env = dict(os.environ, MANWIDTH='80', MANPAGER='cat', PAGER='cat', LC_ALL='C.UTF-8')
    status, out, err = run(['man', '--warnings', '-l', page], env=env)
    check('%s: man -l renders it' % name,
          status == 0 and err == '' and out.lstrip().startswith(name.rsplit('.', 1)[0])
          and '\nNAME\n' in out, 'status %d, stderr %r, %d bytes' % (status, err, len(out)))


def page_text(page):
    """The page as plain text, one paragraph a line (no line is broken inside a word)."""
    _, out, _ = run(['groff', '-k', '-t', '-man', '-Tutf8', '-P-cbou', '-rLL=1000n', page])
    return out


def section(text, title):
    m = re.search(r'^%s\n(.*?)(?=^\S|\Z)' % re.escape(title), text, re.M | re.S)
    return m.group(1) if m else ''


def mentions(text, word):
    return re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(word), text) is not None


def option_words(help_text):
    """Every option the help text names: -x, --name (not `-`, nor did-you-mean)."""
    found = []
    for word in re.findall(r'(?<![\w-])--?[A-Za-z][\w-]*', help_text):
        if word not in found:
            found.append(word)
    return found


def help_of(program):
    status, out, err = run([program, '--help'])
    if status != 0:
        sys.exit('%s --help: status %d %s' % (program, status, err))
    return out


def orbitc_checks(page, orbitc):
    text = page_text(page)
    help_text = help_of(orbitc)
    model = cli_help.parse(help_text)
    check('orbitc --help names commands and options', model.commands and model.options)
    for word in option_words(help_text):
        check('orbitc(1) names the option %s of orbitc --help' % word, mentions(text, word))
    commands = section(text, 'COMMANDS')
    for command in model.commands:
        check('orbitc(1) describes the command `%s` under COMMANDS' % command.name,
              re.search(r'^\s+%s\b' % re.escape(command.name), commands, re.M) is not None)
    for option in model.options:
        for choice in option.choices:
            check('orbitc(1) names the value %s of %s' % (choice, option.names[-1]),
                  mentions(text, choice))
    environment = section(text, 'ENVIRONMENT')
    for name in model.environment:
        check('orbitc(1) describes %s under ENVIRONMENT' % name, mentions(environment, name))
    statuses = section(text, 'EXIT STATUS')
    for status in ('0', '1', '2'):
        check('orbitc(1) gives exit status %s' % status,
              re.search(r'^\s+%s$' % status, statuses, re.M) is not None)


def orbit_run_checks(page, orbit_run):
    text = page_text(page)
    for word in option_words(help_of(orbit_run)):
        check('orbit-run(1) names the option %s of orbit-run --help' % word, mentions(text, word))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--orbit-run', required=True)
    ap.add_argument('pages', nargs='+')
    args = ap.parse_args()
    for page in args.pages:
        render_checks(page)
        name = os.path.basename(page)
        if name == 'orbitc.1':
            orbitc_checks(page, args.orbitc)
        elif name == 'orbit-run.1':
            orbit_run_checks(page, args.orbit_run)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
