"""Texts compared with a readable diff, and files written whole."""
import difflib


def diff(expected, actual, name='text', context=3, limit=80):
    """A unified diff of two texts, `limit` lines at most; '' when they are equal."""
    if expected == actual:
        return ''
    lines = list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                      'expected ' + name, 'actual ' + name, n=context))
    if not lines:  # the same lines: a difference in the last line's end
        return '%s: the texts differ only in their last line\'s end' % name
    more = len(lines) - limit
    text = ''.join(l if l.endswith('\n') else l + '\n\\ No newline at end of file\n'
                   for l in lines[:limit])
    return text + ('... %d more lines\n' % more if more > 0 else '')


def same(expected, actual, name='text'):
    """Fails, with the diff, when the two texts differ."""
    d = diff(expected, actual, name)
    if d:
        raise AssertionError('%s differs:\n%s' % (name, d))


def write(path, text):
    """Writes `text` (UTF-8, line ends as given) to `path`, a file of the test's own
    temporary directory: plainly, as a user's editor would (a test of links and special
    files writes through them on purpose)."""
    with open(path, 'w', encoding='utf-8', newline='') as f:
        f.write(text)
