"""Where things are: the repository, and the built programs a test runs.

A program is found from its environment variable (meson sets them: ORBITC, ORBIT_RUN,
LEX_DUMP, FMT_PROPS), else in the build directory (build_dir), the same way for every
test."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, 'examples', 'checkout.orbit')

# variable -> the program's path inside a build directory
PROGRAMS = {
    'ORBITC': os.path.join('cli', 'orbitc'),
    'ORBIT_RUN': os.path.join('runtime', 'orbit-run'),
    'LEX_DUMP': os.path.join('tools', 'lex_dump'),
    'FMT_PROPS': os.path.join('tools', 'fmt_props'),
}


def flag(variable):
    """The option that names a program on a command line: ORBIT_RUN, --orbit-run."""
    return '--' + variable.lower().replace('_', '-')


def build_dir():
    """ORBIT_BUILD; else the build whose orbitc ORBITC names (so that a test given only
    --orbitc of build-asan finds the other programs there too); else build/."""
    if os.environ.get('ORBIT_BUILD'):
        return os.path.abspath(os.environ['ORBIT_BUILD'])
    if os.environ.get('ORBITC'):
        return os.path.dirname(os.path.dirname(os.path.abspath(os.environ['ORBITC'])))
    return os.path.join(ROOT, 'build')


def program(variable):
    """The absolute path of the program that `variable` (a key of PROGRAMS) names."""
    given = os.environ.get(variable)
    path = given or os.path.join(build_dir(), PROGRAMS[variable])
    if not os.path.exists(path):
        raise FileNotFoundError('%s: %s does not exist (build first, or set %s)'
                                % (variable, path, variable))
    return os.path.abspath(path)


def npm_tool_missing(path):
    """None when `path` (an npm package's folder or program, installed by
    tools/install-npm.sh) exists; else, having said so, the exit status of a test that
    cannot run without it: skipped (77), or failed (1) when ORBIT_REQUIRE_NPM_TOOLS=1
    (tools/test.sh sets it)."""
    if os.path.exists(path):
        return None
    message = '%s is missing: run tools/install-npm.sh' % path
    if os.environ.get('ORBIT_REQUIRE_NPM_TOOLS') == '1':
        print('FAIL ' + message)
        print('0 passed, 1 failed')
        return 1
    print('SKIP ' + message)
    return 77
