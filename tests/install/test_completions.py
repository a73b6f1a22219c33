#!/usr/bin/env python3
"""The shell completions complete what orbitc has, in a real shell each.

bash: the file registers `complete -F _orbitc orbitc`, and its function, called as bash
calls it (COMP_WORDS, COMP_CWORD) in a `bash -c`, completes `orbitc ex<TAB>`,
`orbitc explain E04<TAB>`, option values, warning codes and files by extension. fish:
`complete -C` on the same lines. zsh: an interactive zsh in a pseudo-terminal (zpty)
with the completion on its fpath, one TAB per line, its listing read back. What is
expected comes from diagnostics/codes.def and `orbitc --help`, not from the completion
files.

    test_completions.py --orbitc PATH --codes codes.def [--bash F] [--zsh F] [--fish F]
ends with `N passed, N failed`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                'tools'))
import cli_help  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.checklist import check, finish  # noqa: E402
from gen_completions import read_codes  # noqa: E402

def make_tree(root):
    """a.orbc, b.orbit, c.txt, sub/ and sub/d.orbit: what files by extension see."""
    for name in ('a.orbc', 'b.orbit', 'c.txt'):
        open(os.path.join(root, name), 'w').close()
    os.mkdir(os.path.join(root, 'sub'))
    open(os.path.join(root, 'sub', 'd.orbit'), 'w').close()


def cases(help_text, codes):
    """(words typed, the completions expected: exactly these, as a set)."""
    model = cli_help.parse(help_text)
    commands = [c.name for c in model.commands]
    e04 = {c for c, _, _ in codes if c.startswith('E04')}
    warnings = {c for c, s, _ in codes if s != 'ERROR'}
    format_values = next(o.choices for o in model.options if '--format' in o.names)
    return [
        (['orbitc', 'ex'], {c for c in commands if c.startswith('ex')}),
        (['orbitc', 'explain', 'E04'], e04),
        (['orbitc', 'explain', 'e04'], e04),
        (['orbitc', ''], set(commands)),
        (['orbitc', 'check', '--format', ''], set(format_values)),
        (['orbitc', 'check', '--allow', 'W'], warnings),
        (['orbitc', 'check', '--deny-warnings', ''], {'b.orbit', 'sub/'}),
        (['orbitc', 'build', 'b.orbit', '-o', ''], {'a.orbc', 'sub/'}),
        (['orbitc', 'dis', ''], {'a.orbc', 'sub/'}),
        (['orbitc', 'check', 'sub/'], {'sub/d.orbit'}),
        (['orbitc', 'check', '--deny-w'], {'--deny-warnings'}),
        (['orbitc', 'check', '--write-b'], {'--write-baseline'}),
        (['orbitc', 'check', '--add-s'], {'--add-suppressions'}),
        (['orbitc', 'check', '--baseline', ''], {'a.orbc', 'b.orbit', 'c.txt', 'sub/'}),
        # the flags users bring from other linters: check's own, check and fix's, and a format value
        (['orbitc', 'check', '--exit-z'], {'--exit-zero'}),
        (['orbitc', 'check', '--stat'], {'--statistics'}),
        (['orbitc', 'check', '--select', 'W'], warnings),
        (['orbitc', 'check', '--wat'], {'--watch'}),
        (['orbitc', 'fix', '--unsafe'], {'--unsafe-fixes'}),
        (['orbitc', 'fmt', '--no-ig'], {'--no-ignore'}),
        (['orbitc', 'check', '--format', 'con'], {'concise'}),
        (['orbitc', 'check', '--output-file', ''], {'a.orbc', 'b.orbit', 'c.txt', 'sub/'}),
    ]


BASH_DRIVER = r'''
source "$1"
complete -p orbitc
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
_orbitc orbitc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''


def bash_complete(script, words, cwd):
    p = subprocess.run(['bash', '--norc', '--noprofile', '-c', BASH_DRIVER, 'bash', script] + words,
                       cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    lines = p.stdout.decode().splitlines()
    registered = lines[0] if lines else ''
    # compopt -o filenames adds the slash of a directory when bash shows it: add it here.
    found = {w + '/' if os.path.isdir(os.path.join(cwd, w)) else w for w in lines[1:] if w}
    return registered, found, p.stderr.decode()


def run_bash(script, all_cases, cwd):
    registered, _, err = bash_complete(script, ['orbitc', ''], cwd)
    check('bash: the file registers `complete -F _orbitc orbitc`',
          registered == 'complete -F _orbitc orbitc' and not err, repr(registered) + err)
    for words, expected in all_cases:
        _, found, err = bash_complete(script, words, cwd)
        check('bash: %r completes to %s' % (' '.join(words), sorted(expected)),
              found == expected and not err, 'got %s %s' % (sorted(found), err))
    # --format=<TAB>: bash splits at `=`
    _, found, _ = bash_complete(script, ['orbitc', 'check', '--format', '='], cwd)
    expected = all_cases[4][1]
    check('bash: `orbitc check --format=` completes the values', found == expected, sorted(found))


def run_fish(script, all_cases, cwd):
    for words, expected in all_cases:
        line = ' '.join(words)
        p = subprocess.run(['fish', '--no-config', '-c', 'source $argv[1]; complete -C $argv[2]',
                            script, line], cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        found = {l.split('\t')[0] for l in p.stdout.decode().splitlines()}
        check('fish: %r completes to %s' % (line, sorted(expected)),
              found == expected and not p.stderr, 'got %s %s' % (sorted(found), p.stderr.decode()))


ZSH_DRIVER = r'''
zmodload zsh/zpty || exit 3
fpath_dir=$1 line=$2 buffer_file=$3
zpty z zsh -f -i
# Ctrl-X Ctrl-D writes the line being edited to $buffer_file.
zpty -w z "dump_buffer() { print -r -- \$BUFFER > $buffer_file }; zle -N dump_buffer; bindkey '^X^D' dump_buffer"
# The marker is written RE''ADY so that the echo of this line does not contain it. It is
# printed by zle-line-init, once the line editor has the terminal again (raw): a line
# typed while zsh still runs a command goes to the terminal in its cooked mode, where
# Ctrl-D is an end of file the line discipline takes (seen as no answer on a loaded machine).
zpty -w z "PS1='%% '; fpath=($fpath_dir \$fpath); autoload -U compinit; compinit -u -D; unsetopt list_beep list_ambiguous; zstyle ':completion:*' list-prompt ''; LISTMAX=10000; zle-line-init() { print -rn -- RE''ADY }; zle -N zle-line-init"
# The deadlines only matter when something is wrong: a loaded machine (the suites run beside
# the sanitizer builds) has taken several seconds to start an interactive zsh.
out= deadline=$(( SECONDS + 60 ))
while (( SECONDS < deadline )) && [[ $out != *READY* ]]; do zpty -r -t z chunk && out+=$chunk || sleep 0.05; done
[[ $out == *READY* ]] || print -u2 "the interactive zsh was not ready after 60 s"
zpty -w -n z "$line"$'\t'$'\C-x\C-d'
# Everything the TAB makes the terminal show, until it has been quiet for 0.5 s.
out= quiet=0 deadline=$(( SECONDS + 60 ))
while (( SECONDS < deadline )) && { (( quiet < 10 )) || [[ ! -s $buffer_file ]] }; do
    if zpty -r -t z chunk; then out+=$chunk; quiet=0; else sleep 0.05; (( quiet++ )); fi
done
[[ -s $buffer_file ]] || print -u2 "no answer to TAB after 60 s"
zpty -d z
print -r -- "$out"
'''


def zsh_complete(fpath_dir, words, cwd):
    """The words zsh offers after a TAB: the listing when there are several, else the
    word completed on the line."""
    buffer_file = os.path.join(cwd, '.zsh-buffer')
    if os.path.exists(buffer_file):
        os.unlink(buffer_file)
    p = subprocess.run(['zsh', '-f', '-c', ZSH_DRIVER, 'zsh', fpath_dir, ' '.join(words),
                        buffer_file], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=180)
    screen = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|[\r\x07]|.\x08', '', p.stdout.decode())
    try:
        with open(buffer_file, encoding='utf-8') as f:
            line = f.read().split('\n')[0]
    except OSError:
        line = ''
    listed = set()
    for row in screen.split('\n')[1:]:          # rows below the prompt's line
        if not row.startswith(('%', '#')):
            listed |= set(row.split())
    return line, listed, p.stderr.decode().strip()


def run_zsh(script, all_cases, cwd):
    fpath_dir = os.path.join(cwd, '.zfunc')
    os.mkdir(fpath_dir)
    shutil.copy(script, os.path.join(fpath_dir, '_orbitc'))
    p = subprocess.run(['zsh', '-n', script], stderr=subprocess.PIPE, timeout=60)
    check('zsh: the file parses', p.returncode == 0, p.stderr.decode())
    for words, expected in all_cases:
        line, listed, trouble = zsh_complete(fpath_dir, words, cwd)
        if 'after 60 s' in trouble:
            # The interactive zsh did not answer at all (seen on a machine loaded with
            # two builds and a fuzzer): ask once more; a wrong answer is never retried.
            line, listed, trouble = zsh_complete(fpath_dir, words, cwd)
        typed = ' '.join(words)
        if len(expected) == 1:
            # one completion: zsh puts it on the line
            ok = line.split(' ')[len(words) - 1:] in ([next(iter(expected))],
                                                      [next(iter(expected)), ''])
            found = line
        else:
            # several: zsh lists them (directories with their slash)
            ok = expected <= listed
            found = sorted(listed)
        check('zsh: %r offers %s' % (typed, sorted(expected)), ok, 'line %r, listed %s%s'
              % (line, found, '; the driver: ' + trouble if trouble else ''))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--codes', required=True)
    ap.add_argument('--bash')
    ap.add_argument('--zsh')
    ap.add_argument('--fish')
    args = ap.parse_args()
    help_text = subprocess.run([args.orbitc, '--help'], stdout=subprocess.PIPE,
                               check=True, timeout=60).stdout.decode()
    all_cases = cases(help_text, read_codes(args.codes))
    with tempfile.TemporaryDirectory() as cwd:
        make_tree(cwd)
        if args.bash:
            run_bash(os.path.abspath(args.bash), all_cases, cwd)
        if args.fish:
            run_fish(os.path.abspath(args.fish), all_cases, cwd)
        if args.zsh:
            run_zsh(os.path.abspath(args.zsh), all_cases, cwd)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
