"""What the command-line tests share: orbitc run with a bound on its time, the example
program, files written, and the cases with their runners (support.cases).

    from support.cli import EXAMPLE, expect, main, run, test, write

`ORBITC` is the orbitc under test (support.paths: --orbitc, the variable ORBITC, or
build/cli/orbitc)."""
from . import cases as _cases
from . import proc
from .cases import expect, test  # noqa: F401
from .paths import EXAMPLE, ROOT, program  # noqa: F401
from .text import write  # noqa: F401


def __getattr__(name):
    if name == 'ORBITC':
        return program('ORBITC')
    raise AttributeError(name)


def run(*args, **kwargs):
    """Runs orbitc with `args`; returns (status, stdout text, stderr text) (proc.run)."""
    return proc.run([program('ORBITC')] + list(args), **kwargs)


def main(module='__main__'):
    """The script's runner: --orbitc PATH [-k NAME]; ends with `N passed, N failed`."""
    _cases.main(module=module)
