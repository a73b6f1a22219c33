"""How a test runs our programs under AddressSanitizer and UndefinedBehaviorSanitizer (the
build-asan/ tree of tools/test.sh), written once for every harness.

A report makes the program exit with EXIT, a status of its own. The report is written
into a file of a directory of the run (`log_path`), not to standard error: orbitc closes
its standard error before LeakSanitizer reports at exit, so a leak showed as nothing but
the status. `Reports` makes that directory and gives back what was written in it, which
the harness adds to the run's standard error (proc.run, the golden harness). In the plain
build these settings are read by nothing."""
import os
import shutil
import subprocess
import tempfile

EXIT = 86


def built_with(program):
    """True if `program` carries AddressSanitizer's runtime (build-asan/ links it into each
    executable, meson.build `exe_link_args`): what a test whose bound is absolute (memory)
    asks, whether or not the run set ASAN_OPTIONS."""
    with open(program, 'rb') as f:
        return b'AddressSanitizer' in f.read()


def options(log_dir=None, **asan_extra):
    """The variables ASAN_OPTIONS and UBSAN_OPTIONS of a run, as a dict; reports into
    `log_dir` when given; `asan_extra` adds AddressSanitizer options (quarantine_size_mb=0)."""
    asan = {'exitcode': EXIT, 'detect_leaks': 1}
    ubsan = {'halt_on_error': 1, 'print_stacktrace': 1, 'exitcode': EXIT}
    if log_dir:
        asan['log_path'] = os.path.join(log_dir, 'asan')
        ubsan['log_path'] = os.path.join(log_dir, 'ubsan')
    asan.update(asan_extra)
    join = lambda opts: ':'.join('%s=%s' % kv for kv in opts.items())
    return {'ASAN_OPTIONS': join(asan), 'UBSAN_OPTIONS': join(ubsan)}


def environment(base=None, log_dir=None, **asan_extra):
    """`base` (os.environ when None) with the sanitizers' options of a run."""
    env = dict(os.environ if base is None else base)
    env.update(options(log_dir, **asan_extra))
    return env


class Reports:
    """A directory for the reports of one run: `with Reports() as r:` run with
    environment(log_dir=r.dir), then r.text() is every report written, '' when none."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix='orbit-sanitizers-')
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)

    def text(self):
        reports = []
        for name in sorted(os.listdir(self.dir)):
            with open(os.path.join(self.dir, name), encoding='utf-8', errors='replace') as f:
                reports.append('[%s]\n%s' % (name.split('.')[0], f.read()))
        return ''.join(reports)


def run(argv, env=None, quarantine_size_mb=None, **kwargs):
    """subprocess.run(argv, **kwargs) with the sanitizers' options over `env` (os.environ
    when None); a report written ends the run's stderr (bytes, or text with `text=True`).
    `quarantine_size_mb=0`: AddressSanitizer uses freed memory again at once (a run whose
    peak memory is measured)."""
    extra = {} if quarantine_size_mb is None else {'quarantine_size_mb': quarantine_size_mb}
    with Reports() as reports:
        if kwargs.get('user') is not None:
            os.chmod(reports.dir, 0o1777)   # the user the run becomes writes its report
        p = subprocess.run(argv, env=environment(env, log_dir=reports.dir, **extra), **kwargs)
        report = reports.text()
    if report:
        text = kwargs.get('text') or kwargs.get('universal_newlines')
        p.stderr = (p.stderr or ('' if text else b'')) + (report if text else report.encode())
    return p
