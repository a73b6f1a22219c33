"""pytest over the tests of tests/ (docs/test-suite.md): each case a test of its own.

- A case is a function marked by support.cases.test (`@test`), collected under its own
  name: `pytest tests/cli/test_cli.py -k help_and_version`. A function that pytest itself
  parametrizes (test_* with `pytest.mark`) is collected as pytest does; no other function
  is (helpers named test_*, the imported decorator `test`).
- --orbitc, --orbit-run, --lex-dump and --fmt-props set ORBITC, ORBIT_RUN, LEX_DUMP and
  FMT_PROPS, which support.paths reads (meson passes them); without them the programs
  are those of build/.
- A test module's globals ORBITC, ORBIT_RUN, LEX_DUMP, FMT_PROPS left None (its script's
  main would set them) are set to those programs, and TMP to a temporary directory."""
import inspect
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import cases, paths  # noqa: E402



def pytest_addoption(parser):
    for variable in paths.PROGRAMS:
        parser.addoption(paths.flag(variable), dest=variable, default=None,
                         help='the program under test (else $%s, else build/)' % variable)


def pytest_configure(config):
    for variable in paths.PROGRAMS:
        value = config.getoption(variable)
        if value:
            os.environ[variable] = os.path.abspath(value)


def pytest_pycollect_makeitem(collector, name, obj):
    if not inspect.isfunction(obj):
        return None
    if getattr(obj, cases.MARK, False) and obj.__module__ == collector.obj.__name__:
        return [pytest.Function.from_parent(collector, name=name)]
    if name.startswith('test_') and hasattr(obj, 'pytestmark'):
        return None
    return []


@pytest.fixture(autouse=True)
def _programs_and_tmp(tmp_path_factory):
    """The globals a script's main would set, in every test module loaded."""
    cases.fill_globals(lambda name: str(tmp_path_factory.mktemp(name)))
    yield
