#!/usr/bin/env python3
"""Generates the shell completions of orbitc (bash, zsh, fish) at build time.

    gen_completions.py SHELL HELP.txt CODES.def TEMPLATE OUT

The command line comes from the help text of `orbitc --help` (read by tools/cli_help.py:
commands, options, the commands each option belongs to, the kind of each value) and the
diagnostic codes from diagnostics/codes.def, so a new command, option, `--format` value
or code needs no edit here. The shell logic is written by hand in completions/*.in; this
script replaces the line `@DATA@` of the template with the data, written in that shell.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_help  # noqa: E402


def read_codes(path):
    """[(code, severity, title)] in registry order."""
    codes = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'\s*DIAG\((\w+),\s*(\w+),\s*"((?:[^"\\]|\\.)*)"\)', line)
            if m:
                title = re.sub(r'\\(.)', r'\1', m.group(3))
                codes.append((m.group(1), m.group(2), title))
    if not codes:
        sys.exit('gen_completions: no DIAG(...) line in %s' % path)
    return codes


def value_kind(option):
    """The completion of an option's value: '@orbit', '@orbc', '@code', '@warning',
    '@any', '@none', a space-separated list of words, or '' for a flag."""
    kind = option.kind
    if kind == 'flag':
        return ''
    if kind == 'choice':
        return ' '.join(option.choices)
    if kind == 'code':
        return '@warning'     # --warn and --allow take warning codes
    return '@' + kind


def operand_kind(command):
    return '@' + command.operand


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def case_function(name, comment, arms, default=None):
    """A shell function (the same text in bash and zsh) that prints, for its arguments
    "$*", the value of the first arm whose patterns match."""
    lines = ['# %s' % comment, '%s()' % name, '{', '    case "$*" in']
    for patterns, value in arms:
        lines.append('        %s) echo %s ;;' % ('|'.join(sh_quote(p) for p in patterns),
                                                 sh_quote(value)))
    if default is not None:
        lines.append('        *) echo %s ;;' % sh_quote(default))
    lines += ['    esac', '}']
    return '\n'.join(lines)


def grouped(pairs):
    """[(pattern, value)] -> [([patterns], value)], values in first-seen order."""
    groups = {}
    for pattern, value in pairs:
        groups.setdefault(value, []).append(pattern)
    return [(patterns, value) for value, patterns in groups.items()]


def shared_functions(help):
    """_orbitc_value, _orbitc_operand: the same text in bash and zsh."""
    # An option of some commands only: its value after those commands.
    own = []
    for command in help.commands:
        for option in help.options_of(command.name):
            if option.commands and value_kind(option):
                own += [('%s %s' % (command.name, n), value_kind(option)) for n in option.names]
    # Any other place (an option of every command, before the command, after a command
    # orbitc does not have): the value of the first option of that name. "$*" is then
    # "COMMAND OPTION" or " OPTION".
    anywhere, seen = [], set()
    for option in help.options:
        for name in option.names:
            if value_kind(option) and name not in seen:
                seen.add(name)
                anywhere.append(('* %s' % name, value_kind(option)))
    value = case_function('_orbitc_value',
                          'COMMAND OPTION: what the value of OPTION is (nothing: OPTION is a flag)',
                          grouped(own) + grouped(anywhere))
    # A pattern with `*` must not be quoted whole.
    value = re.sub(r"'\* (-[-\w]+)'", r"*' \1'", value)
    operand = case_function('_orbitc_operand', 'COMMAND: what its operands are',
                            grouped([(c.name, operand_kind(c)) for c in help.commands]),
                            default='@none')
    return value + '\n\n' + operand


def bash_data(help, codes):
    options = [(c.name, ' '.join(n for o in help.options_of(c.name) for n in o.names))
               for c in help.commands]
    return '\n'.join([
        '_orbitc_commands=%s' % sh_quote(' '.join(c.name for c in help.commands)),
        '_orbitc_codes=%s' % sh_quote(' '.join(c for c, _, _ in codes)),
        '_orbitc_warning_codes=%s' % sh_quote(' '.join(c for c, s, _ in codes if s != 'ERROR')),
        '',
        case_function('_orbitc_options', 'COMMAND: the options it takes (no COMMAND: every option)',
                      grouped([(name, value) for name, value in options]),
                      default=' '.join(help.option_names())),
        '',
        shared_functions(help),
    ])


def zsh_described(name, entry):
    return sh_quote(name.replace(':', '\\:') + ':' + entry)


def zsh_data(help, codes):
    def array(name, items):
        return '%s=(\n%s\n)' % (name, '\n'.join('    ' + i for i in items))

    def described_options(options):
        return ' '.join(zsh_described(n, o.text) for o in options for n in o.names)
    arms = grouped([(c.name, described_options(help.options_of(c.name))) for c in help.commands])
    lines = ['        %s) reply=(%s) ;;' % ('|'.join(sh_quote(p) for p in patterns), value)
             for patterns, value in arms]
    lines.append('        *) reply=(%s) ;;' % described_options(help.options))
    return '\n'.join([
        array('_orbitc_commands', [zsh_described(c.name, c.text) for c in help.commands]),
        array('_orbitc_codes', [zsh_described(c, t) for c, _, t in codes]),
        array('_orbitc_warning_codes', [zsh_described(c, t) for c, s, t in codes if s != 'ERROR']),
        '',
        '# COMMAND: sets reply to its options, "NAME:description" (no COMMAND: every option)',
        '_orbitc_options()', '{', '    case "$1" in'] + lines + ['    esac', '}', '',
        shared_functions(help),
    ])


def fish_quote(text):
    return "'" + text.replace('\\', '\\\\').replace("'", "\\'") + "'"


def fish_data(help, codes):
    out = []
    for function, shown in (('__orbitc_codes', codes),
                            ('__orbitc_warning_codes', [c for c in codes if c[1] != 'ERROR'])):
        out.append('function %s' % function)
        out.append("    printf '%s\\t%s\\n' \\")
        out += ['        %s %s \\' % (fish_quote(c), fish_quote(t)) for c, _, t in shown]
        out[-1] = out[-1][:-2]
        out += ['end', '']
    names = ' '.join(c.name for c in help.commands)
    out.append('complete -c orbitc -f')
    for command in help.commands:
        out.append('complete -c orbitc -n "not __fish_seen_subcommand_from %s" -a %s -d %s'
                   % (names, command.name, fish_quote(command.text)))
    arguments = {
        '@orbit': "-k -a '(__orbitc_files .orbit)'",
        '@orbc': "-k -a '(__orbitc_files .orbc)'",
        '@code': "-x -a '(__orbitc_codes)'",
        '@warning': "-x -a '(__orbitc_warning_codes)'",
        '@any': '-F',
        '@none': '',
    }
    option_arguments = dict(arguments, **{'@orbit': '-x ' + arguments['@orbit'],
                                          '@orbc': '-x ' + arguments['@orbc'],
                                          '@any': '-r -F', '@none': '-x'})
    for option in help.options:
        condition = ('-n "__fish_seen_subcommand_from %s" ' % ' '.join(option.commands)
                     if option.commands else '')
        flags = ' '.join('-s %s' % n[1:] if not n.startswith('--') else '-l %s' % n[2:]
                         for n in option.names)
        kind = value_kind(option)
        if not kind:
            value = ''
        elif kind.startswith('@'):
            value = option_arguments[kind]
        else:
            value = '-x -a %s' % fish_quote(kind)
        out.append(re.sub(' +', ' ', 'complete -c orbitc %s%s %s -d %s'
                          % (condition, flags, value, fish_quote(option.text))))
    for command in help.commands:
        argument = arguments[operand_kind(command)]
        if argument:
            out.append('complete -c orbitc -n "__fish_seen_subcommand_from %s" %s'
                       % (command.name, argument))
    return '\n'.join(out)


GENERATORS = {'bash': bash_data, 'zsh': zsh_data, 'fish': fish_data}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in GENERATORS:
        sys.exit(__doc__)
    shell, help_path, codes_path, template_path, out_path = sys.argv[1:]
    with open(help_path, encoding='utf-8') as f:
        help = cli_help.parse(f.read())
    if not help.commands or not help.options:
        sys.exit('gen_completions: no commands or no options in %s' % help_path)
    data = GENERATORS[shell](help, read_codes(codes_path))
    with open(template_path, encoding='utf-8') as f:
        template = f.read()
    if template.count('@DATA@\n') != 1:
        sys.exit('gen_completions: %s needs one line @DATA@' % template_path)
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write(template.replace('@DATA@\n', data + '\n'))


if __name__ == '__main__':
    main()
