#!/usr/bin/env python3
"""A sanitizer's report reaches the test that caused it (tests/support/sanitizers.py).

Under the sanitizers' build every harness runs our programs through support/sanitizers.py
or support/proc.py, which have the reports written into a directory of the run and add
them to the run's standard error. Without it a program that closes its standard error
before it exits, as orbitc does, lost LeakSanitizer's report: the test saw the status and
nothing else. Checked here on a small program compiled with the sanitizers that leaks,
closes its standard error and exits; and on one that reads past an array (a report
written while standard error is still open). gcc builds them, as it builds build-asan/.

    test_sanitizer_reports.py [-k NAME]    ends with `N passed, N failed`
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import proc, sanitizers  # noqa: E402
from support.cases import expect, main, test  # noqa: E402

TMP = None   # a temporary directory (support.cases)

LEAKS = r'''
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    void *volatile p = malloc(77);
    p = 0;
    fputs("closing stderr\n", stderr);
    fclose(stderr);
    return 0;
}
'''
OVERFLOWS = r'''
#include <stdlib.h>
int main(int argc, char **argv) {
    int *a = malloc(4 * sizeof *a);
    int v = a[argc + 3];
    free(a);
    return v;
}
'''



def program(name, source):
    """`source` built with gcc -fsanitize=address,undefined, once; its path."""
    exe = os.path.join(TMP, name)
    if not os.path.exists(exe):
        with open(exe + '.c', 'w') as f:
            f.write(source)
        p = subprocess.run(['gcc', '-g', '-fsanitize=address,undefined', exe + '.c', '-o', exe],
                           capture_output=True, text=True)
        expect(p.returncode == 0, 'gcc -fsanitize=address,undefined: %s' % p.stderr[-500:])
    return exe


@test
def a_leak_after_stderr_is_closed_is_shown_by_proc_run():
    status, _, err = proc.run([program('leaks', LEAKS)])
    expect(status == sanitizers.EXIT, 'exit %d' % status)
    expect(err.startswith('closing stderr\n'), err)
    expect('LeakSanitizer: detected memory leaks' in err, err)
    expect('Direct leak of 77 byte(s)' in err, err)


@test
def a_leak_is_shown_by_sanitizers_run_as_bytes_and_text():
    p = sanitizers.run([program('leaks', LEAKS)], capture_output=True)
    expect(p.returncode == sanitizers.EXIT, 'exit %d' % p.returncode)
    expect(b'Direct leak of 77 byte(s)' in p.stderr, p.stderr)
    p = sanitizers.run([program('leaks', LEAKS)], capture_output=True, text=True)
    expect('Direct leak of 77 byte(s)' in p.stderr, p.stderr)


@test
def an_overflow_is_shown():
    status, _, err = proc.run([program('overflows', OVERFLOWS)])
    expect(status == sanitizers.EXIT, 'exit %d' % status)
    expect('heap-buffer-overflow' in err, err)


@test
def a_clean_run_adds_nothing_and_leaves_no_directory():
    before = set(os.listdir(tempfile.gettempdir()))
    p = sanitizers.run(['true'], capture_output=True)
    expect(p.returncode == 0 and p.stderr == b'', p)
    left = {n for n in set(os.listdir(tempfile.gettempdir())) - before
            if n.startswith('orbit-sanitizers-')}
    expect(not left, left)


@test
def options_are_written_once():
    env = sanitizers.options('/x', quarantine_size_mb=0)
    expect(env['ASAN_OPTIONS'] == 'exitcode=86:detect_leaks=1:log_path=/x/asan:quarantine_size_mb=0',
           env)
    expect(env['UBSAN_OPTIONS'] == 'halt_on_error=1:print_stacktrace=1:exitcode=86:'
           'log_path=/x/ubsan', env)


if __name__ == '__main__':
    main(programs=())
