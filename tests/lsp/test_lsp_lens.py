#!/usr/bin/env python3
"""Running tests from the editor (docs/editors.md, "Code lens: running a test"): the code
lenses of `orbitc lsp` on each `test "NAME"`, and the commands orbit.runTest and
orbit.runTests through workspace/executeCommand, driven by the scripted client of
tests/lsp/test_lsp.py: the lenses before and after a run, the message shown, the failed
expectation as a diagnostic at its place, and the errors of a program that cannot run,
an unknown test and bad arguments (answered, the server still serving).

    test_lsp_lens.py --orbitc build/cli/orbitc [-k NAME]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_lsp import Workspace, check, eq, pos  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import test  # noqa: E402

PROGRAM = '''worker "payments" {}

workflow pay {
  step charge {
    worker "payments"
    timeout 10s
    retry { attempts: 5 }
  }
}

test "charge passes" {
  expect { status: completed }
}

test "charge retries" {
  step charge {
    attempts: [{ fail: { code: "X", retryable: true }, times: 3 }]
  }
  expect {
    status: completed
    step charge { status: completed, attempts: 5 }
  }
}
'''
REFRESH = {"workspace": {"codeLens": {"refreshSupport": True}}}


def lenses(w, uri):
    got = w.client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    return [(x["range"], x["command"]["title"], x["command"]["command"],
             x["command"]["arguments"]) for x in got]


def run(w, *arguments, command="orbit.runTest"):
    return w.client.request_full("workspace/executeCommand",
                                 {"command": command, "arguments": list(arguments)})


def shown(w):
    return w.client.take(lambda m: m.get("method") == "window/showMessage")["params"]


def rng(line, start, end):
    return {"start": pos(line, start), "end": pos(line, end)}


def diagnostics(w, uri):
    m = w.client.take(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri)
    return m["params"]["diagnostics"]


@test
def lenses_of_a_file_with_two_tests():
    with Workspace({"p.orbit": PROGRAM}) as w:
        uri = w.open("p.orbit")
        eq(w.init_result["capabilities"]["executeCommandProvider"],
           {"commands": ["orbit.runTest", "orbit.runTests"]}, "the commands")
        check("codeLensProvider" in w.init_result["capabilities"], "the code lens capability")
        eq(lenses(w, uri),
           [(rng(10, 0, 4), "▶ Run test", "orbit.runTest", [uri, "charge passes"]),
            (rng(14, 0, 4), "▶ Run test", "orbit.runTest", [uri, "charge retries"])],
           "the lenses before any run")


@test
def run_a_test_that_passes():
    with Workspace({"p.orbit": PROGRAM}, capabilities=REFRESH) as w:
        uri = w.open("p.orbit")
        eq(diagnostics(w, uri), [], "a clean program")
        m = run(w, uri, "charge passes")
        eq(m.get("result", m), None, "the answer")
        eq(shown(w), {"type": 3, "message": 'test "charge passes": ✓ passed (completed at 10ms)'},
           "the message")
        w.client.take(lambda m: m.get("method") == "workspace/codeLens/refresh")
        eq([t for _, t, _, _ in lenses(w, uri)],
           ["✓ passed (completed at 10ms)", "▶ Run test"], "the lenses after the run")
        eq(w.client.stop(), 0, "exit status")


@test
def run_a_test_that_fails_then_change_the_document():
    with Workspace({"p.orbit": PROGRAM}) as w:
        uri = w.open("p.orbit")
        eq(diagnostics(w, uri), [], "a clean program")
        m = run(w, uri, "charge retries")
        eq(m.get("result", m), None, "the answer")
        eq(shown(w), {"type": 1, "message": 'test "charge retries": ✗ failed: step charge: attempts'},
           "the message")
        eq(diagnostics(w, uri),
           [{"range": rng(20, 37, 48), "severity": 1, "source": "orbitc test",
             "message": "step charge: attempts: expected 5, actual 4"}],
           "the failed expectation, at `attempts: 5`")
        eq([t for _, t, _, _ in lenses(w, uri)],
           ["▶ Run test", "✗ failed: step charge: attempts"], "the lenses after the run")
        # the document changes: the failure goes, the lens keeps the last result
        w.client.change(uri, 2, [{"text": PROGRAM + "\n"}])
        eq(diagnostics(w, uri), [], "no failure once the document changed")
        eq([t for _, t, _, _ in lenses(w, uri)],
           ["▶ Run test", "✗ failed: step charge: attempts"], "the lenses after the change")
        # fixed, run again: it passes and nothing is left
        fixed = PROGRAM.replace("attempts: 5 }\n  }\n}\n", "attempts: 4 }\n  }\n}\n")
        check(fixed != PROGRAM, "the fix applies")
        w.client.change(uri, 3, [{"text": fixed}])
        run(w, uri, "charge retries")
        eq(shown(w)["message"], 'test "charge retries": ✓ passed (completed at 3s10ms)',
           "the message")
        eq(run(w, uri, command="orbit.runTests").get("result", 1), None, "every test")
        eq(shown(w), {"type": 3, "message": "2 passed, 0 failed, 0 could not run\n"
                      'test "charge passes": ✓ passed (completed at 10ms)\n'
                      'test "charge retries": ✓ passed (completed at 3s10ms)'},
           "the message of the file's tests")
        eq(w.client.stop(), 0, "exit status")


@test
def a_program_with_an_error_runs_nothing():
    with Workspace({"p.orbit": PROGRAM.replace("timeout 10s", "timeout 10 s")}) as w:
        uri = w.open("p.orbit")
        check(diagnostics(w, uri), "the error is published")
        m = run(w, uri, "charge passes")
        eq(m.get("error", {}).get("message"),
           "the program has errors: no test runs until they are fixed", "the answer")
        w.client.drain()
        check(not [x for x in w.client.pending if x.get("method") == "window/showMessage"],
              "nothing shown", w.client.pending)
        eq([t for _, t, _, _ in lenses(w, uri)], ["▶ Run test", "▶ Run test"],
           "the lenses are unchanged")
        eq(w.client.stop(), 0, "exit status")


@test
def unknown_test_and_bad_arguments_are_errors():
    with Workspace({"p.orbit": PROGRAM}) as w:
        uri = w.open("p.orbit")
        for arguments, command, code, message in [
                ([uri, "no such test"], "orbit.runTest", -32602,
                 'no test "no such test" in ' + uri),
                ([uri], "orbit.runTest", -32602, "orbit.runTest takes [uri, test name]"),
                ([uri, 5], "orbit.runTest", -32602, "orbit.runTest takes [uri, test name]"),
                ([], "orbit.runTests", -32602, "orbit.runTests takes [uri]"),
                ([uri, "charge passes"], "orbit.runTests", -32602, "orbit.runTests takes [uri]"),
                ([uri], "orbit.unknown", -32602, "unknown command `orbit.unknown`")]:
            m = run(w, *arguments, command=command)
            eq(m.get("error", {}).get("code"), code, "the error of %r %r" % (command, arguments))
            eq(m["error"]["message"], message, "its message")
        m = w.client.request_full("workspace/executeCommand", {"command": "orbit.runTest",
                                                               "arguments": "p.orbit"})
        eq(m.get("error", {}).get("code"), -32602, "arguments that are not a list")
        m = w.client.request_full("workspace/executeCommand", None)
        eq(m.get("error", {}).get("code"), -32602, "no parameters")
        m = run(w, w.file_uri("other.orbit"), "charge passes")
        check("error" in m, "a file of no program", m)
        eq(len(lenses(w, uri)), 2, "still serving")
        eq(w.client.stop(), 0, "exit status")


if __name__ == "__main__":
    import test_lsp
    test_lsp.main()
