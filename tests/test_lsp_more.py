#!/usr/bin/env python3
"""More of `orbitc lsp`, driven by the scripted client of tests/test_lsp.py (whose
Workspace and helpers it uses): the protocol's hygiene (the client's process watched,
hover as plain text, problems that reach the user), document links and diagnostic codes,
signature help and the call hierarchy (docs/editors.md).

    test_lsp_more.py --orbitc build/cli/orbitc [-k NAME]
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_lsp as base  # noqa: E402
from test_lsp import Workspace, at, check, eq, hover, pos, read, rng  # noqa: E402

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# ==== Protocol hygiene ======================================================================

# The server looks at the client's process every 500 ms while it waits; a bounded wait.
EXIT_WAIT = 10.0


def parent():
    """A process standing for the editor: `sleep`, ended by the test."""
    return subprocess.Popen(["sleep", "300"])


def end(process):
    """Kills and reaps it (a zombie still answers kill(pid, 0))."""
    process.kill()
    process.wait()


def exits_within(w, seconds):
    """The server's exit status once it has exited by itself, or None."""
    try:
        return w.client.proc.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


@test
def exits_when_the_client_process_given_on_the_command_line_ends():
    for spelling in ("separate", "joined"):
        editor = parent()
        pid = str(editor.pid)
        flag = ["--clientProcessId", pid] if spelling == "separate" else ["--clientProcessId=" + pid]
        with Workspace(argv=[base.ORBITC, "lsp"] + flag) as w:
            uri = w.open("a.orbit", "workflow w {\n  step s { sleep 1s }\n}\n")
            w.client.wait_diagnostics(uri)
            eq(exits_within(w, 1.5), None, spelling + ": running while the editor runs")
            end(editor)
            status = exits_within(w, EXIT_WAIT)
            eq(status, 1, spelling + ": exit status without shutdown, soon after the editor ended")
            w.client.stderr_thread.join(5)
            check(any("the client's process %s has ended; stopping" % pid in line
                      for line in w.client.stderr_lines), "the log says why",
                  w.client.stderr_lines)


@test
def exits_when_the_initialize_process_id_ends():
    editor = parent()
    with Workspace(init=False) as w:
        w.client.request("initialize", {"processId": editor.pid, "rootUri": w.uri,
                                        "capabilities": {}})
        w.client.notify("initialized", {})
        eq(exits_within(w, 1.5), None, "running while the editor runs")
        end(editor)
        eq(exits_within(w, EXIT_WAIT), 1, "exit status without shutdown")


@test
def exit_status_0_when_the_client_ends_after_shutdown():
    editor = parent()
    with Workspace(argv=[base.ORBITC, "lsp", "--clientProcessId", str(editor.pid)]) as w:
        w.client.request("shutdown")
        end(editor)
        eq(exits_within(w, EXIT_WAIT), 0, "shutdown was asked for")


@test
def process_ids_that_name_no_process_are_refused_or_ignored():
    for bad in ("0", "-3", "12x", "", "99999999999"):
        p = subprocess.run([base.ORBITC, "lsp", "--clientProcessId=" + bad],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        eq(p.returncode, 2, "--clientProcessId=%r is refused" % bad)
        check(b"is not a process id" in p.stderr, "the reason", p.stderr.decode())
    p = subprocess.run([base.ORBITC, "lsp", "--clientProcessId"], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=30)
    eq(p.returncode, 2, "--clientProcessId without a value")
    # initialize's processId null, 0 or negative: nothing is watched (never a process group)
    for pid in (None, 0, -1):
        with Workspace(init=False) as w:
            w.client.request("initialize", {"processId": pid, "capabilities": {}})
            eq(exits_within(w, 1.2), None, "processId %r: still running" % pid)
            eq(w.client.stop(), 0, "then stops as asked")


CHECKOUT = read(base.CHECKOUT_PATH)

MARKDOWN_STEP = """\
**step `charge`** — task step, worker `"payments.charge"`

Result: `{ charge_id: string }`

**Retry policy**
- `attempts`: 5
- `backoff`: exponential, `initial_delay` 500ms, `max_delay` 10s
- delays before attempts 2–5: 500ms, 1s, 2s, 4s
- `non_retryable`: "CARD_DECLINED", "INSUFFICIENT_FUNDS"
- `timeout`: 10s per attempt
- `queue_timeout`: 2m
- worst case: 5 attempts × 10s + 7s500ms of delays = **57s500ms**
- each attempt may also wait up to 2m for a worker (`queue_timeout`, not counted above)
- fits in the workflow timeout of 1d

**Compensate**, worker `"payments.refund"`
- `attempts`: 10
- `backoff`: exponential, `initial_delay` 1s (default), `max_delay` 1m (default)
- delays before attempts 2–10: 1s, 2s, 4s, 8s, 16s, 32s, 1m, 1m, 1m
- `timeout`: no limit per attempt
"""

PLAIN_STEP = """\
step charge — task step, worker "payments.charge"

Result: { charge_id: string }

Retry policy
  attempts: 5
  backoff: exponential, initial_delay 500ms, max_delay 10s
  delays before attempts 2–5: 500ms, 1s, 2s, 4s
  non_retryable: "CARD_DECLINED", "INSUFFICIENT_FUNDS"
  timeout: 10s per attempt
  queue_timeout: 2m
  worst case: 5 attempts × 10s + 7s500ms of delays = 57s500ms
  each attempt may also wait up to 2m for a worker (queue_timeout, not counted above)
  fits in the workflow timeout of 1d

Compensate, worker "payments.refund"
  attempts: 10
  backoff: exponential, initial_delay 1s (default), max_delay 1m (default)
  delays before attempts 2–10: 1s, 2s, 4s, 8s, 16s, 32s, 1m, 1m, 1m
  timeout: no limit per attempt
"""


def hover_contents(formats, text, position, name="checkout.orbit"):
    caps = {"textDocument": {"hover": {"contentFormat": formats}}} if formats is not None else {}
    with Workspace(capabilities=caps) as w:
        uri = w.open(name, text)
        w.client.wait_diagnostics(uri)
        r = w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": position})
        return r["contents"]


@test
def hover_is_plain_text_for_a_client_without_markdown():
    where = at(CHECKOUT, "step charge", delta=6)
    for formats, kind, value in ((["markdown", "plaintext"], "markdown", MARKDOWN_STEP),
                                 (["markdown"], "markdown", MARKDOWN_STEP),
                                 (["plaintext"], "plaintext", PLAIN_STEP),
                                 (["plaintext", "markdown"], "plaintext", PLAIN_STEP),
                                 (None, "plaintext", PLAIN_STEP)):
        eq(hover_contents(formats, CHECKOUT, where), {"kind": kind, "value": value},
           "hover for contentFormat %r" % formats)


@test
def plain_text_hover_of_code_keeps_the_code():
    text = CHECKOUT.replace("compute input.total.amount * 100", "compute len(input.items)")
    where = at(text, "len(")
    eq(hover_contents(["markdown"], text, where)["value"],
       "```orbit\nfunction len(any) -> int\n```\n\nlength of a string or list\n", "markdown")
    eq(hover_contents(["plaintext"], text, where)["value"],
       "function len(any) -> int\n\nlength of a string or list\n", "plain: no fence")


def show_messages(w, seconds=1.0):
    return [m["params"] for m in w.client.drain(seconds)
            if m.get("method") == "window/showMessage"]


@test
def an_unreadable_program_configuration_reaches_the_user():
    files = {"a/x.orbit": "workflow wa {\n  step s { sleep 1s }\n}\n",
             "b/y.orbit": "workflow wb {\n  step s { sleep 1s }\n}\n"}
    with Workspace(files=files) as w:
        os.mkdir(w.path("a/orbit.program"))       # a directory where the file should be
        uri = w.open("a/x.orbit")
        w.client.wait_diagnostics(uri)
        shown = show_messages(w)
        eq(shown, [{"type": 1, "message": "cannot read `%s`: is a directory"
                    % w.path("a/orbit.program")}], "shown as an error")
        w.client.change(uri, 2, [{"text": "workflow wa {\n  step t { sleep 2s }\n}\n"}])
        w.client.wait_diagnostics(uri, version=2)
        eq(show_messages(w), [], "shown once, not at every change")
        eq(w.client.stop(), 0, "exit status")
    # invalid UTF-8 in orbit.program: a diagnostic on that file
    with Workspace(files=files) as w:
        with open(w.path("b/orbit.program"), "wb") as f:
            f.write(b"program {\n  name: \"b\xff\"\n}\n")
        w.open("b/y.orbit")
        diags = w.client.wait_diagnostics(w.file_uri("b/orbit.program"))
        check("E0001" in base.codes(diags), "invalid UTF-8 reported on orbit.program", diags)
        eq(w.client.stop(), 0, "exit status")
    if os.geteuid() == 0:
        print("     (root reads a file without read permission: that case is not run)")
        return
    with Workspace(files=files) as w:
        w.write("a/orbit.program", "program { name: \"a\" }\n")
        os.chmod(w.path("a/orbit.program"), 0)
        uri = w.open("a/x.orbit")
        w.client.wait_diagnostics(uri)
        eq(show_messages(w), [{"type": 1, "message": "cannot read `%s`: Permission denied"
                               % w.path("a/orbit.program")}], "permissions")
        eq(w.client.stop(), 0, "exit status")


if __name__ == "__main__":
    sys.exit(base.main(TESTS))
