"""The checks of one test script and its closing line, shared by the install tests
(test_manpages.py, test_completions.py, test_install.py)."""

RESULTS = []


def check(what, ok, detail=''):
    """Records one check; prints what failed, and why, when it did."""
    RESULTS.append(bool(ok))
    if not ok:
        print('FAIL: %s%s' % (what, ('\n  ' + str(detail)) if detail else ''))


def finish():
    """Prints `N passed, N failed` and returns the exit status (1 also when nothing ran)."""
    failed = RESULTS.count(False)
    print('%d passed, %d failed' % (len(RESULTS) - failed, failed))
    return 1 if failed or not RESULTS else 0
