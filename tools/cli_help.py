"""Reads the help text of `orbitc --help` (or `orbit-run --help`) into a model of the
command line: its commands, its options (with the commands they belong to and the kind
of value they take) and the environment variables it names. The shell completions
(tools/gen_completions.py) are generated from it and the man-page test
(tests/install/test_manpages.py) checks the pages against it, so the help text, written once in
cli/main.c, is the one list of the command line.

The shape it reads:
    "  orbitc COMMAND ARGS...     what it does"      in the usage lines: a command
    "Options:"                                        options of every command
    "Options of check and build:"                     options of the commands named
    "  -o, --output FILE   text"  an option: its names, then its value, if any

A value is `a|b|c` (one of these words) or a placeholder whose meaning is fixed here:
PATH a source file (.orbit) or a directory, FILE a bytecode file (.orbc), CODE a
diagnostic code (of an option: a warning code), N a number, NAME a name.
"""
import re
from dataclasses import dataclass, field

# What a placeholder stands for, as a kind of completion.
PLACEHOLDER_KINDS = {
    'PATH': 'orbit',       # .orbit files and directories
    'FILE': 'orbc',        # bytecode files
    'FILE.orbc': 'orbc',
    'CODE': 'code',
    'N': 'none',
    'NAME': 'none',
}

_OPTION = re.compile(r'^  (?P<names>-[-\w]+(?:, -[-\w]+)*)(?:[ =](?P<value>[^\s,]+))?'
                     r'(?:\s{2,}(?P<text>.*))?$')
_COMMAND = re.compile(r'^  (?P<program>[\w-]+) (?P<name>[a-z][\w-]*)\b(?P<args>.*?)(?:\s{2,}(?P<text>.*))?$')
_ENV = re.compile(r'\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|TERM)\b')


@dataclass
class Option:
    names: list          # e.g. ['-o', '--output']
    value: str           # '' for a flag, else the placeholder or 'a|b'
    text: str
    commands: list       # the commands it belongs to; empty: every command

    @property
    def choices(self):
        return self.value.split('|') if '|' in self.value else []

    @property
    def kind(self):
        """'flag', 'choice', or a placeholder kind ('orbit', 'orbc', 'code', 'none', 'any')."""
        if not self.value:
            return 'flag'
        if self.choices:
            return 'choice'
        return PLACEHOLDER_KINDS.get(self.value, 'any')


@dataclass
class Command:
    name: str
    args: str            # the usage line's arguments, e.g. "[OPTIONS] PATH... -o FILE"
    text: str

    @property
    def operand(self):
        """The kind of the command's operands: the first placeholder that is not an option's."""
        words = re.sub(r'-[-\w]+ \S+', ' ', self.args.replace('[OPTIONS]', ' '))
        for word in re.findall(r'[A-Z][\w.]*', words):
            return PLACEHOLDER_KINDS.get(word.rstrip('.'), 'any')
        return 'none'


@dataclass
class Help:
    program: str = ''
    commands: list = field(default_factory=list)
    options: list = field(default_factory=list)
    environment: list = field(default_factory=list)

    def options_of(self, command):
        return [o for o in self.options if not o.commands or command in o.commands]

    def option_names(self):
        return [n for o in self.options for n in o.names]


def parse(text):
    help = Help()
    lines = text.splitlines()
    section_commands = None     # None: not in an options section
    for line in lines:
        if line and not line.startswith(' '):
            section_commands = None
            if line.startswith('Options'):
                named = re.findall(r'[a-z][\w-]*', line[len('Options'):])
                section_commands = [c for c in named if c in {c.name for c in help.commands}]
            continue
        m = _COMMAND.match(line)
        if m and section_commands is None and not line.lstrip().startswith('-'):
            if not help.program:
                help.program = m.group('program')
            if m.group('program') == help.program:
                help.commands.append(Command(m.group('name'), m.group('args').strip(),
                                             m.group('text') or ''))
            continue
        m = _OPTION.match(line)
        if m and section_commands is not None:
            help.options.append(Option(m.group('names').split(', '), m.group('value') or '',
                                       m.group('text') or '', list(section_commands)))
            continue
        if line.startswith('      ') and help.options and section_commands is not None:
            help.options[-1].text = (help.options[-1].text + ' ' + line.strip()).strip()
    seen = set()
    for name in _ENV.findall(text):
        if name not in seen:
            seen.add(name)
            help.environment.append(name)
    return help
