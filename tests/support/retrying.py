"""The small project that the tests of `orbitc test` and `orbitc test --mutate`
(tests/cli/test_orbitc_test.py, test_orbitc_mutate.py) both run: one workflow whose one
step calls `w.call` with three attempts 100 ms apart, and a test of it that passes (two
BUSY failures, then the call succeeds), written as one.orbit and one.test.orbit.

    from support.retrying import PROGRAM, TESTS, project
"""
import os

from .text import write

PROGRAM = '''worker "w.call" {
  output { id: string }
}

workflow one {
  step call {
    worker "w.call"
    retry { attempts: 3, backoff: fixed, initial_delay: 100ms }
  }
  return { id: call.id }
}
'''

# Its second attempt at 105 ms (the first fails after 5 ms), its third at 205 ms.
TESTS = '''test "retries twice" {
  task "w.call" {
    attempts: [{ fail: { code: "BUSY" }, after: 5ms }, { fail: { code: "BUSY" } }, { succeed: { id: "x" } }]
  }
  expect {
    output: { id: "x" }
    step call { attempts: 3 }
    events: ["+ 105ms StepScheduled step=call attempt=2"]
  }
}
'''


def project(tmp, tests=TESTS, program=PROGRAM):
    """`program` as tmp/one.orbit and `tests` as tmp/one.test.orbit; returns `tmp`."""
    write(os.path.join(tmp, 'one.orbit'), program)
    write(os.path.join(tmp, 'one.test.orbit'), tests)
    return tmp
