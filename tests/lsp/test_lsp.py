#!/usr/bin/env python3
"""`orbitc lsp` driven by a scripted client (tools/lsp_client.py: framing and JSON, standard
library only): every request and notification the server implements, and the protocol
errors of the base protocol and the lifecycle.

    test_lsp.py --orbitc build/cli/orbitc [-k NAME]

Each test starts its own server in its own temporary directory (the workspace folder).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import CORPUS_SAMPLE, corpus_sample, main as run_cases, test  # noqa: E402,F401
from support.lsp import Client, ProtocolError, file_uri, frame  # noqa: E402,F401

ORBITC = None



class Fail(AssertionError):
    pass


def check(cond, what, *context):
    if not cond:
        raise Fail(what + "".join("\n    " + json.dumps(c, ensure_ascii=False)[:2000]
                                  for c in context))


def eq(got, want, what):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


class Workspace:
    """A temporary folder with .orbit files, and a server whose workspace it is."""

    def __init__(self, files=None, capabilities=None, options=None, init=True, argv=None):
        self.dir = tempfile.mkdtemp(prefix="orbitc-lsp-")
        self.uri = file_uri(self.dir)
        for name, text in (files or {}).items():
            self.write(name, text)
        # the server writes a read-only copy of the standard library to the user's cache
        # directory: here, a directory of the test
        self.home = tempfile.mkdtemp(prefix="orbitc-lsp-home-")
        env = dict(os.environ, HOME=self.home, XDG_CACHE_HOME=os.path.join(self.home, "cache"))
        self.client = Client(argv or [ORBITC, "lsp"], cwd=self.dir, env=env)
        self.init_result = None
        if init:
            self.init_result = self.client.initialize(self.uri, capabilities or {},
                                                      options=options)

    def path(self, name):
        return os.path.join(self.dir, name)

    def file_uri(self, name):
        return file_uri(self.path(name))

    def write(self, name, text):
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def open(self, name, text=None, version=1):
        if text is None:
            with open(self.path(name), encoding="utf-8", newline="") as f:
                text = f.read()
        uri = self.file_uri(name)
        self.client.open(uri, text, version)
        return uri

    def close(self):
        self.client.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def codes(diags):
    return [d["code"] for d in diags]


def pos(line, character):
    return {"line": line, "character": character}


def rng(l1, c1, l2, c2):
    return {"start": pos(l1, c1), "end": pos(l2, c2)}


BAD = """worker "payments.charge" {
  input { amount: number }
}

workflow checkout {
  timeout 1m
  step charge {
    worker "payments.charge"
    with { amount: 10 }
    retry { attempts: 3, backof: exponential }
  }
}
"""

GOOD = BAD.replace("backof", "backoff")

# ==== 1. Protocol ============================================================================


@test
def initialize_capabilities():
    with Workspace() as w:
        caps = w.init_result["capabilities"]
        eq(caps["positionEncoding"], "utf-16", "the default encoding")
        eq(caps["textDocumentSync"]["change"], 2, "incremental sync")
        check(caps["textDocumentSync"]["openClose"], "openClose")
        eq(w.init_result["serverInfo"]["name"], "orbitc", "serverInfo")
        eq(w.client.stop(), 0, "exit status after shutdown")


@test
def position_encoding_negotiated():
    for offered, want in ((["utf-16"], "utf-16"), (["utf-32", "utf-8"], "utf-8"),
                          (["utf-32"], "utf-16"), ([], "utf-16")):
        with Workspace(capabilities={"general": {"positionEncodings": offered}}) as w:
            eq(w.init_result["capabilities"]["positionEncoding"], want, "offered %r" % offered)


@test
def request_before_initialize():
    with Workspace(init=False) as w:
        m = w.client.request_full("textDocument/hover", {"textDocument": {"uri": "x"},
                                                         "position": pos(0, 0)})
        eq(m["error"]["code"], -32002, "request before initialize")
        # a notification before initialize is dropped: this document is never opened
        w.client.open(w.file_uri("early.orbit"), "workflow {")
        w.client.initialize(w.uri)
        m = w.client.request_full("shutdown")
        check("result" in m, "shutdown works after all", m)
        got = [m for m in w.client.drain(0.3) if m.get("method") == "textDocument/publishDiagnostics"]
        eq(got, [], "no diagnostics for a document opened before initialize")


@test
def unknown_methods():
    with Workspace() as w:
        m = w.client.request_full("textDocument/noSuchThing", {})
        eq(m["error"]["code"], -32601, "unknown request")
        w.client.notify("$/noSuchNotification", {})
        w.client.notify("noSuchNotification", {"x": 1})
        m = w.client.request_full("shutdown")
        check("result" in m, "the server answers after unknown notifications", m)
        eq([m for m in w.client.drain(0.2) if "id" in m], [], "notifications get no answer")


@test
def malformed_json_then_carry_on():
    with Workspace() as w:
        for body in (b"{", b"not json", b"\xff\xfe", b'{"jsonrpc": "2.0", "id": 1,'):
            w.client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            m = w.client.take(lambda m: "error" in m)
            eq(m["error"]["code"], -32700, "parse error for %r" % body)
            eq(m["id"], None, "a parse error has a null id")
        eq(w.client.stop(), 0, "the server carried on")


@test
def invalid_requests():
    with Workspace() as w:
        cases = [
            ([1, 2], None),                                               # a batch / not an object
            ("text", None),
            ({"jsonrpc": "2.0", "id": 7}, 7),                             # no method
            ({"jsonrpc": "2.0", "id": 8, "method": 5}, 8),                # method not a string
            ({"jsonrpc": "2.0", "id": [1], "method": "shutdown"}, None),  # bad id
            ({"jsonrpc": "2.0", "id": 9, "method": "shutdown", "params": 3}, 9),
            ({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {}}, 10),  # again
            ({"jsonrpc": "2.0", "id": 11, "method": "textDocument/didOpen", "params": {}}, 11),
        ]
        for message, id in cases:
            w.client.send(message)
            m = w.client.take(lambda m: "error" in m)
            eq(m["error"]["code"], -32600, "invalid request %r" % (message,))
            eq(m["id"], id, "the id of the answer to %r" % (message,))
        eq(w.client.stop(), 0, "the server carried on")


@test
def invalid_params():
    with Workspace(init=False) as w:
        m = w.client.request_full("initialize", [1])
        eq(m["error"]["code"], -32602, "initialize with params not an object")
        w.client.initialize(w.uri)
        eq(w.client.stop(), 0, "exit status")


@test
def shutdown_then_requests_fail():
    with Workspace() as w:
        w.client.request("shutdown")
        m = w.client.request_full("textDocument/hover", {})
        eq(m["error"]["code"], -32600, "a request after shutdown")
        w.client.notify("exit")
        eq(w.client.wait(), 0, "exit after shutdown")


@test
def exit_without_shutdown():
    with Workspace() as w:
        w.client.notify("exit")
        eq(w.client.wait(), 1, "exit without shutdown")


@test
def end_of_stream():
    with Workspace() as w:
        eq(w.client.wait(), 1, "the stream ends without shutdown")
    with Workspace() as w:
        w.client.request("shutdown")
        eq(w.client.wait(), 0, "the stream ends after shutdown")


@test
def broken_streams():
    broken = [
        b"Content-Length: 12\r\n\r\n{",                     # ends inside a body
        b"Content-Length: x\r\n\r\n{}",                     # not a number
        b"Content-Length: -1\r\n\r\n",
        b"Content-Length: 99999999999999999999\r\n\r\n",   # too large
        b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}",   # no length
        b"garbage without a colon\r\n\r\n",
        b"Content-Len",                                     # ends inside a header
        b"X: " + b"y" * 10000,                              # a header too long
    ]
    for data in broken:
        with Workspace() as w:
            w.client.send_raw(data)
            eq(w.client.wait(), 1, "exit status after %r" % data[:40])
            err = "".join(w.client.stderr_lines)
            check("orbitc lsp:" in err, "a message on stderr for %r: %r" % (data[:40], err))
            check("Sanitizer" not in err and "runtime error" not in err, "clean exit", err)


@test
def headers_accepted():
    with Workspace(init=False) as w:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"capabilities": {}}}).encode()
        w.client.send_raw(b"content-length: %d\r\nContent-Type: application/vscode-jsonrpc; "
                          b"charset=utf-8\r\n\r\n" % len(body) + body)
        m = w.client.response(1)
        check("result" in m, "headers in any case, Content-Type ignored", m)
        w.client.notify("initialized", {})
        eq(w.client.stop(), 0, "exit status")


@test
def cancel_queued_request():
    with Workspace() as w:
        # the request and its cancellation arrive together: the request is still queued
        w.client.send_raw(frame({"jsonrpc": "2.0", "id": "slow", "method": "shutdown"}) +
                          frame({"jsonrpc": "2.0", "method": "$/cancelRequest",
                                 "params": {"id": "slow"}}))
        m = w.client.response("slow")
        eq(m.get("error", {}).get("code"), -32800, "a cancelled request")
        # a cancellation of something already answered, or unknown, changes nothing
        w.client.notify("$/cancelRequest", {"id": 12345})
        eq(w.client.stop(), 0, "the server carried on")


@test
def server_requests_answered_by_client_are_ignored():
    with Workspace() as w:
        w.client.send({"jsonrpc": "2.0", "id": "orbitc-1", "result": None})
        w.client.send({"jsonrpc": "2.0", "id": "orbitc-2", "error": {"code": 1, "message": "no"}})
        eq(w.client.stop(), 0, "responses from the client")


@test
def watchers_registered_when_the_client_can():
    caps = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    with Workspace(capabilities=caps) as w:
        m = w.client.take(lambda m: m.get("method") == "client/registerCapability")
        reg = m["params"]["registrations"][0]
        eq(reg["method"], "workspace/didChangeWatchedFiles", "registration")
        w.client.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        eq(w.client.stop(), 0, "exit status")


# ==== 1. Text synchronisation and positions ===============================================

UNICODE = 'workflow w {\n  step s { worker "\U0001F600é"; retry { backof: fixed } }\n}\n'


def backof_range(diags):
    ranges = [d["range"] for d in diags if "backof" in d["message"]]
    check(len(ranges) == 1, "one diagnostic about backof", diags)
    return ranges[0]


@test
def utf16_and_utf8_columns():
    # the line: '  step s { worker "😀é"; retry { backof: fixed } }'
    # bytes before `backof`: 2+5+2+2+7+1+4+2+1+2+6+2 = 36 -> UTF-16: 36 - 4 + 2 - 2 + 1 = 33
    prefix = '  step s { worker "\U0001F600é"; retry { '
    utf16 = len(prefix.encode("utf-16-le")) // 2
    utf8 = len(prefix.encode("utf-8"))
    for encodings, col in ((["utf-16"], utf16), (["utf-8"], utf8)):
        with Workspace(capabilities={"general": {"positionEncodings": encodings}}) as w:
            uri = w.open("u.orbit", UNICODE)
            r = backof_range(w.client.wait_diagnostics(uri))
            eq(r, rng(1, col, 1, col + 6), "range in %s" % encodings[0])
            # an incremental edit at the same columns fixes it
            w.client.change(uri, 2, [{"range": rng(1, col, 1, col + 6), "text": "backoff"}])
            eq(w.client.wait_diagnostics(uri, 2), [], "after the edit in %s" % encodings[0])


@test
def line_ends():
    for eol in ("\n", "\r\n", "\r"):
        text = "workflow w {" + eol + "  step s { worker \"x\"; retry { backof: fixed } }" + eol + "}" + eol
        with Workspace() as w:
            uri = w.open("e.orbit", text)
            diags = w.client.wait_diagnostics(uri)
            # one rule of line ends for the protocol and Orbit (base/source.h)
            eq(backof_range(diags), rng(1, 31, 1, 37), "range with %r" % eol)
            w.client.change(uri, 2, [{"range": rng(1, 31, 1, 37), "text": "backoff"}])
            eq(w.client.wait_diagnostics(uri, 2), [], "after the edit with %r" % eol)


@test
def ranges_equal_the_command_lines():
    # a file whose lines end with a lone CR; the server publishes the ranges
    # of `orbitc check --format json`, line 1 character 19 for `bogus`
    for text in ("workflow w {\r  step s { compute bogus }\r}\r",
                 "workflow w {\r\n  step s { compute 1 + }\r  step t { compute x }\n}\r"):
        with Workspace({"c.orbit": text}) as w:
            uri = w.open("c.orbit", text)
            published = sorted((d["code"], json.dumps(d["range"], sort_keys=True))
                               for d in w.client.wait_diagnostics(uri))
            cli = subprocess.run([ORBITC, "check", "--format", "json", "c.orbit"], cwd=w.dir,
                                 capture_output=True)
            ranges = sorted((d["code"], json.dumps(d["range"], sort_keys=True))
                            for d in map(json.loads, cli.stdout.decode().splitlines()))
            check(published, "diagnostics published", text)
            eq(published, ranges, "ranges of %r" % text)
        if "bogus" in text:
            eq(json.loads(published[0][1]), rng(1, 19, 1, 24), "the range of `bogus`")


@test
def full_and_incremental_sync():
    with Workspace() as w:
        uri = w.open("s.orbit", GOOD)
        eq(w.client.wait_diagnostics(uri, 1), [], "clean")
        w.client.change(uri, 2, [{"text": BAD}])                     # whole text
        eq(codes(w.client.wait_diagnostics(uri, 2)), ["E0410"], "after a full change")
        lines = BAD.split("\n")
        row = next(i for i, l in enumerate(lines) if "backof" in l)
        col = lines[row].index("backof")
        # several changes in one notification, applied in order
        w.client.change(uri, 3, [
            {"range": rng(row, col, row, col + 6), "text": ""},
            {"range": rng(row, col, row, col), "text": "back"},
            {"range": rng(row, col + 4, row, col + 4), "text": "off"},
        ])
        eq(w.client.wait_diagnostics(uri, 3), [], "after three incremental changes")
        # a range past the end of a line or the text is clamped, as the protocol says
        w.client.change(uri, 4, [{"range": rng(999, 0, 999, 5), "text": "\nworkflow"}])
        diags = w.client.wait_diagnostics(uri, 4)
        check(len(diags) >= 1, "text appended at the end is checked", diags)
        eq(w.client.stop(), 0, "exit status")


@test
def bad_changes_are_reported_not_fatal():
    with Workspace() as w:
        uri = w.open("s.orbit", GOOD)
        w.client.wait_diagnostics(uri, 1)
        w.client.change("file:///not/open.orbit", 2, [{"text": "x"}])
        w.client.change(uri, 2, [{"range": rng(3, 0, 1, 0), "text": "x"}])   # end before start
        w.client.change(uri, 3, [{"range": {"start": 1}, "text": "x"}])
        w.client.notify("textDocument/didChange", {"textDocument": {"uri": uri}})
        w.client.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})
        w.client.notify("textDocument/didClose", {})
        eq(w.client.stop(), 0, "the server carried on")
        err = "".join(w.client.stderr_lines)
        check("cannot be applied" in err, "a log line for the change that failed", err)


@test
def stale_results_never_published():
    big = BAD * 2000       # a few hundred kilobytes: a check takes a while
    with Workspace() as w:
        uri = w.open("big.orbit", big)
        w.client.wait_diagnostics(uri, 1)
        for v in range(2, 12):
            w.client.change(uri, v, [{"range": rng(0, 0, 0, 0), "text": " "}])
        diags = w.client.wait_diagnostics(uri, 11)
        check(len(diags) > 0, "the last version is published")
        seen = [m["params"]["version"] for m in w.client.pending
                if m.get("method") == "textDocument/publishDiagnostics"]
        check(seen == sorted(seen), "versions only go up", seen)
        check(len(seen) < 10, "changes that arrived together are checked together", seen)
        eq(w.client.stop(), 0, "exit status")


# ==== 2. The program of a document ===========================================================

WORKER = 'worker "payments.charge" {\n  input { amount: number }\n}\n'
USES = ('workflow checkout {\n  step charge {\n    worker "payments.charge"\n'
        '    with { amount: 10 }\n  }\n}\n')


@test
def program_is_the_workspace_folder():
    files = {"decl/worker.orbit": WORKER, "flow.orbit": USES,
             "broken.orbit": "workflow broken { step s { sleep 1m; retry { attempts: 2 } } }\n",
             ".hidden/skip.orbit": "this is not orbit", "notes.txt": "nor this"}
    with Workspace(files) as w:
        uri = w.open("flow.orbit")
        eq(w.client.wait_diagnostics(uri), [], "the worker is declared in another file")
        broken = w.client.wait_diagnostics(w.file_uri("broken.orbit"))
        eq(codes(broken), ["E0307"], "a file that is not open is checked and published")
        # the open buffer, not the disk, is what is checked
        w.client.change(uri, 2, [{"text": USES.replace("amount: 10", "amount: \"ten\"")}])
        eq(codes(w.client.wait_diagnostics(uri, 2)), ["E0501"], "the buffer's text")
        eq(w.client.stop(), 0, "exit status")


@test
def nested_workspace_folders():
    files = {"w.orbit": WORKER.replace("number", "string"), "sub/f.orbit": USES,
             "sub/w.orbit": WORKER}
    with Workspace(files, init=False) as w:
        sub = file_uri(w.path("sub"))
        w.client.initialize(w.uri, folders=[{"uri": w.uri, "name": "outer"},
                                            {"uri": sub, "name": "inner"}])
        uri = w.open("sub/f.orbit")
        eq(w.client.wait_diagnostics(uri), [], "the inner folder is a program of its own")
        w.open("w.orbit")
        eq(w.client.stop(), 0, "exit status")
        got = [m["params"]["diagnostics"] for m in w.client.pending
               if m.get("method") == "textDocument/publishDiagnostics"
               and m["params"]["uri"] == uri]
        check(all(d == [] for d in got), "the outer program does not check the inner files",
              got)


@test
def program_roots():
    flow = 'workflow checkout { step s { worker "x"; retry { attempts: 3 } } }\n'
    files = {"payments/orbit.program": "program payments {\n  lints {\n    W0007: warn\n  }\n}\n",
             "payments/flow.orbit": flow,
             "shipping/orbit.program": "",
             "shipping/flow.orbit": flow,
             "shipping/deep/more.orbit": 'workflow more { step t { sleep 1s } }\n',
             "loose.orbit": 'workflow loose { step u { sleep 1s } }\n'}
    with Workspace(files) as w:
        pay = w.open("payments/flow.orbit")
        eq(codes(w.client.wait_diagnostics(pay)), ["W0007"],
           "each root is a program: `checkout` is not defined twice; payments warns W0007")
        ship = w.open("shipping/flow.orbit")
        eq(codes(w.client.wait_diagnostics(ship, 1)), [], "shipping has the default levels")
        # references and rename stay inside the program
        refs = w.client.request("textDocument/references", {
            "textDocument": {"uri": pay}, "position": pos(0, 10),
            "context": {"includeDeclaration": True}})
        eq([r["uri"] for r in refs], [pay], "the other `checkout` is another program's")
        found = w.client.request("workspace/symbol", {"query": "checkout"})
        eq(sorted(s["location"]["uri"] for s in found), sorted([pay, ship]), "both programs")
        # a mistake in a program's configuration is published for orbit.program
        w.write("payments/orbit.program", "program payments {\n  lints {\n    W0007: loud\n  }\n}\n")
        w.client.notify("workspace/didChangeWatchedFiles",
                        {"changes": [{"uri": w.file_uri("payments/orbit.program"), "type": 2}]})
        config = w.client.wait_diagnostics(w.file_uri("payments/orbit.program"))
        eq(codes(config), ["E0701"], "the configuration's mistake")
        eq(w.client.stop(), 0, "exit status")


@test
def open_buffer_overrides_disk_and_close_restores_it():
    with Workspace({"w.orbit": WORKER, "f.orbit": USES.replace("10", "\"ten\"")}) as w:
        uri = w.file_uri("f.orbit")
        w.open("f.orbit", USES)
        eq(w.client.wait_diagnostics(uri, 1), [], "the buffer is clean")
        w.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        eq(codes(w.client.wait_diagnostics(uri)), ["E0501"], "closed: the disk's text again")
        eq(w.client.stop(), 0, "exit status")


@test
def other_files_follow_a_change():
    with Workspace({"w.orbit": WORKER, "f.orbit": USES}) as w:
        worker_uri = w.open("w.orbit")
        flow_uri = w.file_uri("f.orbit")
        w.client.wait_diagnostics(worker_uri, 1)
        # a new contract breaks the file that uses it, which is not open
        w.client.change(worker_uri, 2, [{"text": WORKER.replace("number", "string")}])
        eq(codes(w.client.wait_diagnostics(flow_uri)), ["E0501"], "the other file")
        w.client.change(worker_uri, 3, [{"text": WORKER}])
        eq(w.client.wait_diagnostics(flow_uri), [], "and is cleared when fixed")
        eq(w.client.stop(), 0, "exit status")


@test
def disk_changes_picked_up():
    with Workspace({"w.orbit": WORKER, "f.orbit": USES}) as w:
        uri = w.open("f.orbit")
        eq(w.client.wait_diagnostics(uri, 1), [], "clean")
        # a file changed on disk, announced by the client's file watcher
        w.write("w.orbit", WORKER.replace("number", "string"))
        w.client.notify("workspace/didChangeWatchedFiles",
                        {"changes": [{"uri": w.file_uri("w.orbit"), "type": 2}]})
        eq(codes(w.client.wait_diagnostics(uri)), ["E0501"], "the new declaration is used")
        # a new file, announced
        w.write("new.orbit", "workflow fresh { step s { sleep 5 } }\n")
        w.client.notify("workspace/didChangeWatchedFiles",
                        {"changes": [{"uri": w.file_uri("new.orbit"), "type": 1}]})
        check(len(w.client.wait_diagnostics(w.file_uri("new.orbit"))) > 0, "a new file is checked")
        # a deleted file: its diagnostics are cleared
        os.remove(w.path("new.orbit"))
        w.client.notify("workspace/didChangeWatchedFiles",
                        {"changes": [{"uri": w.file_uri("new.orbit"), "type": 3}]})
        eq(w.client.wait_diagnostics(w.file_uri("new.orbit")), [], "a deleted file is cleared")
        # a change on disk without a notification is read at the next check
        w.write("w.orbit", WORKER)
        w.client.change(uri, 2, [{"range": rng(0, 0, 0, 0), "text": " "}])
        eq(w.client.wait_diagnostics(uri, 2), [], "re-read at the next check")
        eq(w.client.stop(), 0, "exit status")


@test
def document_outside_the_workspace():
    with Workspace() as w:
        other = tempfile.mkdtemp(prefix="orbitc-lsp-outside-")
        try:
            uri = file_uri(os.path.join(other, "alone.orbit"))
            w.client.open(uri, BAD)
            eq(codes(w.client.wait_diagnostics(uri)), ["E0410"], "a standalone document")
            w.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            eq(w.client.wait_diagnostics(uri), [], "closing it clears its diagnostics")
            untitled = "untitled:Untitled-1"
            w.client.open(untitled, BAD)
            eq(codes(w.client.wait_diagnostics(untitled)), ["E0410"], "a document not on disk")
        finally:
            shutil.rmtree(other)
        eq(w.client.stop(), 0, "exit status")


@test
def document_outside_the_workspace_in_a_program():
    with Workspace() as w:
        other = tempfile.mkdtemp(prefix="orbitc-lsp-root-")
        try:
            for name, text in (("orbit.program", ""), ("decl/w.orbit",
                               WORKER.replace("number", "string"))):
                os.makedirs(os.path.dirname(os.path.join(other, name)), exist_ok=True)
                with open(os.path.join(other, name), "w") as f:
                    f.write(text)
            uri = file_uri(os.path.join(other, "f.orbit"))
            w.client.open(uri, USES)
            eq(codes(w.client.wait_diagnostics(uri)), ["E0501"],
               "its program root's files are checked with it")
        finally:
            shutil.rmtree(other)
        eq(w.client.stop(), 0, "exit status")


@test
def workspace_folders_change():
    with Workspace() as w:
        other = tempfile.mkdtemp(prefix="orbitc-lsp-folder-")
        try:
            with open(os.path.join(other, "w.orbit"), "w") as f:
                f.write(WORKER.replace("number", "string"))
            uri = file_uri(os.path.join(other, "f.orbit"))
            w.client.open(uri, USES)
            eq(w.client.wait_diagnostics(uri), [], "alone: the worker's contract is unknown")
            w.client.notify("workspace/didChangeWorkspaceFolders", {"event": {
                "added": [{"uri": file_uri(other), "name": "other"}], "removed": []}})
            eq(codes(w.client.wait_diagnostics(uri)), ["E0501"], "in its folder: checked "
               "against the worker's contract")
            w.client.notify("workspace/didChangeWorkspaceFolders", {"event": {
                "added": [], "removed": [{"uri": file_uri(other), "name": "other"}]}})
            eq(w.client.wait_diagnostics(uri), [], "alone again")
        finally:
            shutil.rmtree(other)
        eq(w.client.stop(), 0, "exit status")


# ==== 3. Diagnostics ====================================================================


@test
def diagnostic_fields():
    text = ('workflow w {\n  timeout 1m\n'
            '  step s {\n    worker "x"\n'
            '    retry { attempts: 1, non_retryable: ["QUEUE_TIMEOUT"], max_delay: 5s }\n  }\n'
            '  step t { worker "y"; retry { attempts: 2, attempts: 3 } }\n}\n')
    with Workspace(options={"warn": ["W0007"]}) as w:
        uri = w.open("d.orbit", text)
        diags = w.client.wait_diagnostics(uri)
        by_code = {}
        for d in diags:
            by_code.setdefault(d["code"], d)
            eq(d["source"], "orbitc", "source")
            check(d["severity"] in (1, 2), "severity", d)
        check({"W0001", "W0002", "W0005", "E0410"} <= set(by_code), "codes", diags)
        eq(by_code["W0001"]["severity"], 2, "a warning")
        eq(by_code["W0001"].get("tags"), [1], "no effect: Unnecessary")
        eq(by_code["W0002"].get("tags"), [1], "no effect: Unnecessary")
        eq(by_code["E0410"]["severity"], 1, "an error")
        check("tags" not in by_code["E0410"], "errors are not Unnecessary")
        dup = by_code["E0410"]
        eq(dup["message"], "duplicate retry setting `attempts`", "message")
        related = dup["relatedInformation"]
        eq(related[0]["message"], "first set here", "a label as related information")
        eq(related[0]["location"]["uri"], uri, "its uri")
        eq(related[0]["location"]["range"]["start"]["line"], 6, "its line")
        check("\nnote: with `fixed` backoff" in by_code["W0002"]["message"],
              "notes folded into the message", by_code["W0002"])
        check("\nhelp: use `backoff: exponential`" in by_code["W0002"]["message"],
              "help folded into the message", by_code["W0002"])
        eq(w.client.stop(), 0, "exit status")


@test
def lint_levels_from_initialization_options():
    text = 'workflow w { step s { worker "x"; retry { attempts: 3 } } }\n'
    with Workspace(options={"warn": ["W0007"]}) as w:
        uri = w.open("l.orbit", text)
        eq(codes(w.client.wait_diagnostics(uri)), ["W0007"], "--warn W0007")
    with Workspace() as w:
        uri = w.open("l.orbit", text)
        eq(codes(w.client.wait_diagnostics(uri)), [], "off by default")
    with Workspace(options={"allow": ["W0002"], "warn": ["E0410", 7]}) as w:
        uri = w.open("l.orbit", "workflow w { step s { worker \"x\"; retry { max_delay: 5s } } }\n")
        eq(codes(w.client.wait_diagnostics(uri)), [], "--allow W0002")
        eq(w.client.stop(), 0, "exit status")
        check("not a warning code" in "".join(w.client.stderr_lines), "bad codes are logged")


# ==== 4. Code actions ======================================================================

FIXABLE = ('workflow w {\n'
           '  step s { worker "x"; retry { backof: exponential, atempts: 3 } }\n'
           '  step t { worker "x"; timeout 5 }\n'
           '}\n')


def at(text, needle, nth=0, delta=0):
    """The position of the nth occurrence of needle in text (plus delta characters)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += delta
    before = text[:i]
    return pos(before.count("\n"), len(before) - (before.rfind("\n") + 1))


def apply_edits(text, edits, encoding="utf-16"):
    """Applies LSP TextEdits to text, last first. Lines end at "\r\n", "\n" or "\r";
    characters count in `encoding` ("utf-16" or "utf-8"). The edits must not overlap."""
    starts = [0] + [m.end() for m in re.finditer("\r\n|\n|\r", text)]

    def offset(p):
        if p["line"] >= len(starts):
            return len(text)
        begin = starts[p["line"]]
        end = starts[p["line"] + 1] if p["line"] + 1 < len(starts) else len(text)
        line = text[begin:end].rstrip("\r\n")
        units = 0
        for k, ch in enumerate(line):
            if units >= p["character"]:
                return begin + k
            units += len(ch.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(ch.encode())
        return begin + len(line)
    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"])
                    for e in edits), reverse=True)
    for (start, end, _), (later, _, _) in zip(spans[1:], spans):
        check(end <= later, "edits do not overlap", edits)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def action_request(uri, start, end=None, only=None):
    context = {"diagnostics": []}
    if only:
        context["only"] = only
    return {"textDocument": {"uri": uri}, "range": {"start": start, "end": end or start},
            "context": context}


@test
def quick_fixes():
    caps = {"workspace": {"workspaceEdit": {"documentChanges": True}}}
    with Workspace(capabilities=caps) as w:
        uri = w.open("f.orbit", FIXABLE)
        diags = w.client.wait_diagnostics(uri)
        eq(len(diags), 3, "three problems")
        actions = w.client.request("textDocument/codeAction",
                                   action_request(uri, at(FIXABLE, "backof", delta=2)))
        quick = [a for a in actions if a["kind"] == "quickfix"]
        eq([a["title"] for a in quick], ["did you mean `backoff`?"], "the fix under the cursor")
        check(quick[0].get("isPreferred") is True, "machine-applicable: preferred", quick[0])
        eq(quick[0]["diagnostics"][0]["code"], "E0410", "the diagnostic it fixes")
        change = quick[0]["edit"]["documentChanges"][0]
        eq(change["textDocument"], {"uri": uri, "version": 1}, "versioned edit")
        fixed = apply_edits(FIXABLE, change["edits"])
        check("backoff: exponential" in fixed, "the edit", fixed)
        # a fix that may be wrong is offered, not preferred
        actions = w.client.request("textDocument/codeAction",
                                   action_request(uri, at(FIXABLE, "5 }")))
        maybe = [a for a in actions if a["kind"] == "quickfix"]
        eq([a["title"] for a in maybe], ["durations need a unit: `5s` or `5ms`?"], "maybe fix")
        check("isPreferred" not in maybe[0], "not preferred", maybe[0])
        # fix all in file: every machine-applicable fix at once
        all_ = [a for a in actions if a["kind"] == "source.fixAll.orbitc"]
        eq(len(all_), 1, "one fix-all action")
        edits = all_[0]["edit"]["documentChanges"][0]["edits"]
        eq(len(edits), 2, "both machine-applicable fixes, not the uncertain one")
        fixed = apply_edits(FIXABLE, edits)
        cli = subprocess.run([ORBITC, "fix", "-"], input=FIXABLE.encode(), capture_output=True)
        eq(fixed, cli.stdout.decode(), "the text `orbitc fix -` writes")
        w.client.change(uri, 2, [{"text": fixed}])
        eq(codes(w.client.wait_diagnostics(uri, 2)), ["E0410"], "only the uncertain one is left")
        # context.only filters by kind
        only = w.client.request("textDocument/codeAction",
                                action_request(uri, pos(0, 0), at(fixed, "}", 2), ["source"]))
        check(all(a["kind"].startswith("source") for a in only), "only source actions", only)
        eq(w.client.stop(), 0, "exit status")


@test
def no_preferred_guess_while_part_of_the_program_is_unread():
    """Past the nesting limit the rest of the file is not read, and may
    declare the name a did-you-mean would replace: the quick fix is offered, not
    preferred, and fix-all leaves it."""
    text = ('workflow refund_orders {\n  step t { sleep 1s }\n}\n'
            'workflow main {\n  step a { workflow refund_order }\n}\n'
            'workflow deep {\n  step b { compute ' + '(' * 300 + '1' + ')' * 300 + ' }\n}\n'
            'workflow refund_order {\n  step t { sleep 2s }\n}\n')
    with Workspace() as w:
        uri = w.open("f.orbit", text)
        w.client.wait_diagnostics(uri)
        actions = w.client.request("textDocument/codeAction",
                                   action_request(uri, at(text, "refund_order }", delta=2)))
        quick = [a for a in actions if a["kind"] == "quickfix"]
        eq([a["title"] for a in quick], ["did you mean `refund_orders`?"], "the guess")
        check("isPreferred" not in quick[0], "not preferred", quick[0])
        check(not [a for a in actions if a["kind"] == "source.fixAll.orbitc"],
              "no fix-all of a guess", actions)
        eq(w.client.stop(), 0, "exit status")


@test
def quick_fix_without_document_changes():
    with Workspace() as w:
        uri = w.open("f.orbit", FIXABLE)
        w.client.wait_diagnostics(uri)
        actions = w.client.request("textDocument/codeAction",
                                   action_request(uri, at(FIXABLE, "atempts")))
        quick = [a for a in actions if a["kind"] == "quickfix"]
        eq(list(quick[0]["edit"].keys()), ["changes"], "plain changes for this client")
        fixed = apply_edits(FIXABLE, quick[0]["edit"]["changes"][uri])
        check("attempts: 3" in fixed, "the edit", fixed)
        eq(w.client.stop(), 0, "exit status")


@test
def suppress_a_warning_here():
    text = ('workflow w {\n  step s {\n    worker "x"\n'
            '    retry { attempts: 3, max_delay: 5s }\n  }\n'
            '  step t { worker "y"; retry { attempts: 3, non_retryable: [\n'
            '      "A",\n      "A"\n    ] } }\n}\n')
    with Workspace() as w:
        uri = w.open("s.orbit", text)
        diags = w.client.wait_diagnostics(uri)
        eq(codes(diags), ["W0002", "W0004"], "two warnings")
        version = 1
        for d, line, comment in ((diags[0], 3, "    // orbit:allow(W0002)"),
                                 (diags[1], 5, "  // orbit:allow(W0004)")):
            version += 1                        # back to the text with both warnings
            w.client.change(uri, version, [{"text": text}])
            w.client.wait_diagnostics(uri, version)
            actions = w.client.request("textDocument/codeAction",
                                       action_request(uri, d["range"]["start"]))
            suppress = [a for a in actions if a["title"] == "Suppress %s here" % d["code"]]
            eq(len(suppress), 1, "a suppression for %s" % d["code"])
            check("isPreferred" not in suppress[0], "not preferred", suppress[0])
            fixed = apply_edits(text, suppress[0]["edit"]["changes"][uri])
            eq(fixed.split("\n")[line], comment, "the comment before the member, indented")
            version += 1
            w.client.change(uri, version, [{"text": fixed}])
            left = codes(w.client.wait_diagnostics(uri, version))
            eq(left, [c for c in ("W0002", "W0004") if c != d["code"]],
               "%s silenced, and the comment is used (no W0009)" % d["code"])
        # an unused suppression is shown faded, and its fix removes it
        unused = "// orbit:allow(W0001)\n" + text
        w.client.change(uri, version + 1, [{"text": unused}])
        w0009 = [d for d in w.client.wait_diagnostics(uri, version + 1) if d["code"] == "W0009"]
        eq([d.get("tags") for d in w0009], [[1]], "W0009 is Unnecessary")
        version += 1
        # errors cannot be suppressed
        bad = text.replace("attempts: 3, max", "attempts: 0, max")
        w.client.change(uri, version + 1, [{"text": bad}])
        err = [d for d in w.client.wait_diagnostics(uri, version + 1) if d["code"] == "E0410"][0]
        actions = w.client.request("textDocument/codeAction",
                                   action_request(uri, err["range"]["start"]))
        eq([a["title"] for a in actions if a["title"].startswith("Suppress")], [],
           "no suppression of an error")
        eq(w.client.stop(), 0, "exit status")


# ==== 5. Hover ==============================================================================

CHECKOUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                             "checkout.orbit")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# A client that shows hover in Markdown (without it, hover is plain text:
# tests/lsp/test_lsp_more.py).
MARKDOWN = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}


def hover(w, uri, position):
    r = w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                "position": position})
    return r and r["contents"]["value"]


@test
def hover_on_a_step_shows_its_policy():
    text = read(CHECKOUT_PATH)
    caps = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}
    with Workspace(capabilities=caps) as w:
        uri = w.open("checkout.orbit", text)
        w.client.wait_diagnostics(uri)
        r = w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": at(text, "step charge", delta=6)})
        eq(r["contents"]["kind"], "markdown", "markdown for a client that takes it")
        h = r["contents"]["value"]
        for want in ["**step `charge`** — task step, worker `\"payments.charge\"`",
                     "`attempts`: 5", "`backoff`: exponential, `initial_delay` 500ms, `max_delay` 10s",
                     "delays before attempts 2–5: 500ms, 1s, 2s, 4s",
                     '`non_retryable`: "CARD_DECLINED", "INSUFFICIENT_FUNDS"',
                     "`timeout`: 10s per attempt", "`queue_timeout`: 2m",
                     "worst case: 5 attempts × 10s + 7s500ms of delays = **57s500ms**",
                     "fits in the workflow timeout of 1d",
                     "**Compensate**, worker `\"payments.refund\"`",
                     "`initial_delay` 1s (default), `max_delay` 1m (default)",
                     "delays before attempts 2–10: 1s, 2s, 4s, 8s, 16s, 32s, 1m, 1m, 1m"]:
            check(want in h, "hover has %r" % want, h)
        eq(r["range"], {"start": at(text, "step charge", delta=5),
                        "end": at(text, "step charge", delta=11)}, "the step's name")
        # the same from a use of the step's name
        h2 = hover(w, uri, at(text, "charge.charge_id", delta=1))
        eq(h2, h, "hover on a use of the step")
        eq(w.client.stop(), 0, "exit status")


@test
def hover_budget_against_workflow_timeout():
    text = ('workflow w {\n  timeout 30s\n'
            '  step s { worker "x"; timeout 10s\n'
            '    retry { attempts: 6, backoff: exponential, initial_delay: 1s, max_delay: 10s } }\n'
            '  step u { worker "x"; retry { attempts: 3 } }\n}\n')
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("b.orbit", text)
        diags = w.client.wait_diagnostics(uri)
        w0006 = [d for d in diags if d["code"] == "W0006"]
        h = hover(w, uri, at(text, "step s", delta=5))
        check("delays before attempts 2–6: 1s, 2s, 4s, 8s, 10s" in h, "the schedule", h)
        check("worst case: 6 attempts × 10s + 25s of delays = **1m25s**" in h, "worst case", h)
        check("does not fit in the workflow timeout of 30s: attempt 4 and later can never run"
              in h, "against the workflow timeout", h)
        check(len(w0006) == 1 and "10s timeout + 25s of backoff delays (1s + 2s + 4s + 8s + "
              "10s) = 1m25s" in w0006[0]["message"], "the same figure as W0006", w0006)
        h = hover(w, uri, at(text, "step u", delta=5))
        check("worst case: no limit: without a `timeout` an attempt may run forever (the "
              "delays alone add up to 2s)" in h, "no timeout", h)
        eq(w.client.stop(), 0, "exit status")


@test
def hover_on_settings_and_timeouts():
    text = read(CHECKOUT_PATH)
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("checkout.orbit", text)
        w.client.wait_diagnostics(uri)
        h = hover(w, uri, at(text, "attempts: 5"))
        for want in ["**`attempts`** — retry setting",
                     "Total number of attempts, including the first. 1 means no retries.",
                     "Type: integer literal, 1 to 1000", "Default: 1", "Here: 5"]:
            check(want in h, "attempts hover has %r" % want, h)
        h = hover(w, uri, at(text, "max_delay"))
        check("Default: 1m, or `initial_delay` if that is longer" in h, "max_delay default", h)
        h = hover(w, uri, at(text, "initial_delay: 500ms"))
        check("The delay before the first retry." in h and "Here: 500ms" in h, "initial_delay", h)
        h = hover(w, uri, at(text, "timeout 10s"))
        check("limits a single attempt" in h and "`TIMEOUT`, which is retryable" in h and
              "Here: 10s." in h, "step timeout", h)
        h = hover(w, uri, at(text, "queue_timeout 2m"))
        check("`QUEUE_TIMEOUT`, which is never retried" in h and "Here: 2m." in h,
              "queue timeout", h)
        h = hover(w, uri, at(text, "timeout 24h"))
        check("limits the whole execution" in h and "Here: 1d." in h, "workflow timeout", h)
        h = hover(w, uri, at(text, "retry {", 1))
        check("the retry policy of this compensate block" in h and "`attempts`: 10" in h,
              "retry of a compensate block", h)
        eq(w.client.stop(), 0, "exit status")


@test
def hover_on_names_and_contracts():
    text = read(CHECKOUT_PATH)
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("checkout.orbit", text)
        w.client.wait_diagnostics(uri)
        cases = [
            (at(text, '"payments.charge"', 1, 2), ["**worker `\"payments.charge\"`**",
             "input: `{ order_id: string, amount: number, currency: string }`",
             "output: `{ charge_id: string }`"]),
            (at(text, "orbit.http.request", 0, 3), ["**built-in task `orbit.http.request`**",
                                                    "Default timeout: 30s"]),
            (at(text, "pack_items", 0, 2), ["**workflow `pack_items`**", "input: `{ sku: string }`"]),
            (at(text, "Money", 1), ["**type `Money`**", "`{ amount: number, currency: string }`"]),
            (at(text, "input.order_id"), ["**`input`** — the input of workflow `checkout`"]),
            (at(text, "input.order_id", 0, 7), ["**field `order_id`**: `string`"]),
            (at(text, "input.total.amount", 0, 13), ["**field `amount`**: `number` of `Money`"]),
            (at(text, "sku: item", 0, 6), ["**`item`**: `string` — each element of the `for` of step `pack`"]),
            (at(text, "step cool_off", 0, 6), ["**step `cool_off`** — sleep step", "Sleeps 10m"]),
            (at(text, "step approval", 0, 6), ["await step, signal `\"manager_approved\"`",
                                               "`timeout`: 12h"]),
        ]
        for position, wants in cases:
            h = hover(w, uri, position)
            for want in wants:
                check(h and want in h, "hover at %r has %r" % (position, want), h)
        eq(hover(w, uri, pos(0, 1)), None, "nothing in a comment")
        m = w.client.request_full("textDocument/hover", {"textDocument": {"uri": uri}})
        eq(m["error"]["code"], -32602, "hover without a position")
        m = w.client.request_full("textDocument/hover", {"textDocument": {"uri": "file:///elsewhere.orbit"},
                                                         "position": pos(0, 0)})
        eq(m["error"]["code"], -32803, "hover in a document of no program")
        eq(w.client.stop(), 0, "exit status")


@test
def hover_on_stdlib_names():
    text = ('workflow w {\n  input { xs: [string] }\n'
            '  step s { worker "x"; retry { attempts: 2, non_retryable: ["QUEUE_TIMEOUT", "X"] } }\n'
            '  step n { compute len(input.xs) }\n}\n')
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("s.orbit", text)
        w.client.wait_diagnostics(uri)
        h = hover(w, uri, at(text, "QUEUE_TIMEOUT", 0, 2))
        check("**`QUEUE_TIMEOUT`** — runtime error code, never retried" in h and
              "no worker picked the task up in time" in h, "error code", h)
        h = hover(w, uri, at(text, "len("))
        check("function len(any) -> int" in h and "length of a string or list" in h,
              "function", h)
        eq(w.client.stop(), 0, "exit status")


# ==== 6. Navigation =========================================================================

TWO_FILES = {
    "types.orbit": 'type Money { amount: number, currency: string }\n'
                   'worker "pay" { input { total: Money } }\n',
    "flow.orbit": ('workflow flow {\n  input { total: Money, items: [string] }\n'
                   '  step charge { worker "pay"; with { total: input.total } }\n'
                   '  step each { compute charge; for it in input.items }\n'
                   '  step sub { workflow child; with { n: len(input.items) } }\n'
                   '  return { done: charge, n: input.total.amount }\n}\n'
                   'workflow child { input { n: int } step go { sleep 1s } }\n'),
}


def location(w, name, text, needle, nth=0, length=None):
    start = at(text, needle, nth)
    return {"uri": w.file_uri(name),
            "range": {"start": start, "end": pos(start["line"], start["character"] +
                                                  (length or len(needle)))}}


def definition(w, uri, position):
    return w.client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                         "position": position})


@test
def go_to_definition():
    flow, types = TWO_FILES["flow.orbit"], TWO_FILES["types.orbit"]
    with Workspace(TWO_FILES) as w:
        uri = w.open("flow.orbit")
        w.client.wait_diagnostics(uri)
        cases = [
            (at(flow, "compute charge", 0, 9), location(w, "flow.orbit", flow, "charge")),
            (at(flow, "done: charge", 0, 7), location(w, "flow.orbit", flow, "charge")),
            (at(flow, '"pay"', 0, 2), location(w, "types.orbit", types, '"pay"')),
            (at(flow, "total: Money", 0, 8), location(w, "types.orbit", types, "Money")),
            (at(flow, "workflow child", 0, 10), location(w, "flow.orbit", flow, "child", 1)),
            (at(flow, "input.items", 0, 2), location(w, "flow.orbit", flow, "input")),
            (at(flow, "input.total.amount", 0, 14), location(w, "types.orbit", types, "amount")),
            (at(flow, "input.total", 0, 7), location(w, "flow.orbit", flow, "total")),
            (at(flow, "{ total: input", 0, 3), location(w, "types.orbit", types, "total")),
        ]
        for position, want in cases:
            eq(definition(w, uri, position), want, "definition at %r" % (position,))
        eq(definition(w, uri, at(flow, "for it", 0, 4)),
           location(w, "flow.orbit", flow, "it in", length=2), "a for variable")
        eq(definition(w, uri, pos(0, 0)), None, "a keyword has no definition")
        # into the standard library, a read-only copy in the cache directory
        d = definition(w, uri, at(flow, "len(", 0, 1))
        check(d and d["uri"].startswith("file://" + w.home) and d["uri"].endswith("/orbit.orbit"),
              "len is in the standard library's copy", d)
        path = d["uri"][len("file://"):]
        check(not os.access(path, os.W_OK) or os.getuid() == 0, "read-only")
        eq(os.stat(path).st_mode & 0o777, 0o444, "mode 0444")
        stdlib = read(path)
        eq(stdlib.split("\n")[d["range"]["start"]["line"]][d["range"]["start"]["character"]:][:3],
           "len", "the declaration of len")
        # opening that copy does not make it a program of its own
        w.client.open(d["uri"], stdlib)
        eq(w.client.stop(), 0, "exit status")
        got = [m for m in w.client.pending if m.get("method") == "textDocument/publishDiagnostics"
               and m["params"]["uri"] == d["uri"]]
        eq(got, [], "no diagnostics for the standard library")


# A test of examples/checkout.orbit in a file of its own (docs/testing.md).
CHECKOUT_TEST = (
    'test "a declined card" {\n'
    '  workflow checkout\n'
    '  input { order_id: "A1", total: { amount: 42.5, currency: "EUR" }, items: ["sku-1"] }\n'
    '  task "payments.charge" { attempts: [{ fail: { code: "CARD_DECLINED" } }] }\n'
    '  task "warehouse.pick" { pickup: 1s }\n'
    '  step notify { attempts: [{ status: 503 }] }\n'
    '  child pack_items { step pick { pickup: 2s } }\n'
    '  signal "manager_approved" { at: 5s }\n'
    '  expect { status: failed, step charge { attempts: 1 } }\n'
    '}\n')


@test
def names_in_tests_are_occurrences():
    """Go to definition, hover and references of the names a test writes: its workflow,
    tasks, steps, child workflow and its steps, signals."""
    program, tests = read(CHECKOUT_PATH), CHECKOUT_TEST
    with Workspace({"checkout.orbit": program, "checkout.test.orbit": tests},
                   capabilities=MARKDOWN) as w:
        uri = w.open("checkout.test.orbit")
        diags = w.client.wait_diagnostics(uri)
        eq(codes(diags), [], "the test checks clean")
        cases = [
            (at(tests, "workflow checkout", 0, 10), location(w, "checkout.orbit", program, "checkout", 1)),
            (at(tests, '"payments.charge"', 0, 3),
             location(w, "checkout.orbit", program, '"payments.charge"')),
            (at(tests, "step notify", 0, 6),
             location(w, "checkout.orbit", program, "notify {", length=6)),
            (at(tests, "child pack_items", 0, 7),
             location(w, "checkout.orbit", program, "pack_items", 1)),
            (at(tests, "step pick", 0, 6), location(w, "checkout.orbit", program, "pick {", length=4)),
            (at(tests, "step charge", 0, 6),
             location(w, "checkout.orbit", program, "charge {", length=6)),
            (at(tests, '"manager_approved"', 0, 3),
             location(w, "checkout.orbit", program, '"manager_approved"')),
        ]
        for position, want in cases:
            eq(definition(w, uri, position), want, "definition at %r" % (position,))
        eq(definition(w, uri, at(tests, '"warehouse.pick"', 0, 3)), None,
           "an undeclared worker has no declaration")
        check("**worker `\"warehouse.pick\"`**" in hover(w, uri, at(tests, '"warehouse.pick"', 0, 3)),
              "hover on an undeclared worker")
        check("**workflow `checkout`**" in hover(w, uri, at(tests, "workflow checkout", 0, 10)),
              "hover on the tested workflow")
        check("step `charge`" in hover(w, uri, at(tests, "step charge", 0, 6)),
              "hover on an expected step", hover(w, uri, at(tests, "step charge", 0, 6)))
        eq(hover(w, uri, at(tests, '"manager_approved"', 0, 3)),
           '**signal `"manager_approved"`** — awaited by step `approval` of workflow `checkout`\n',
           "hover on a signal")
        params = {"textDocument": {"uri": w.file_uri("checkout.orbit")},
                  "position": at(program, "step charge", 0, 6),
                  "context": {"includeDeclaration": False}}
        refs = w.client.request("textDocument/references", params)
        check({"uri": w.file_uri("checkout.test.orbit"),
               "range": location(w, "checkout.test.orbit", tests, "charge {", length=6)["range"]} in refs,
              "a step's references include the test's", refs)
        r = w.client.request_full("textDocument/rename", {
            "textDocument": {"uri": uri}, "position": at(tests, "step charge", 0, 6),
            "newName": "pay"})["result"]
        new_tests = apply_edits(tests, r["changes"][uri])
        new_program = apply_edits(program, r["changes"][w.file_uri("checkout.orbit")])
        check("step pay {" in new_tests and "step pay {" in new_program and
              "charge.charge_id" not in new_program, "a step renamed from a test, everywhere",
              new_tests)
        eq(w.client.stop(), 0, "exit status")


@test
def completion_in_tests():
    program = read(CHECKOUT_PATH)
    with Workspace({"checkout.orbit": program}) as w:
        uri = w.open("checkout.test.orbit", CHECKOUT_TEST)
        w.client.wait_diagnostics(uri)

        def labels(text):
            return [i["label"] for i in completion_labels(w, uri, text)]
        t = CHECKOUT_TEST
        cases = [
            ("workflows", t.replace("workflow checkout", "workflow |"), ["checkout", "pack_items"]),
            ("steps that answer a script", t.replace("step notify", "step |"),
             ["charge", "notify", "pack"]),
            ("steps in expect", t.replace("step charge", "step |"),
             ["charge", "notify", "pack", "approval", "cool_off", "total_cents"]),
            ("the steps of a child", t.replace("step pick", "step |"), ["pick"]),
            ("child workflows", t.replace("child pack_items", "child |"), ["checkout", "pack_items"]),
            ("tasks, quoted", t.replace('task "warehouse.pick"', "task |"),
             ['"payments.charge"', '"payments.refund"', '"warehouse.pick"', '"orbit.http.request"']),
            ("tasks in the quotes", t.replace('task "warehouse.pick"', 'task "wa|'),
             ["payments.charge", "payments.refund", "warehouse.pick", "orbit.http.request"]),
            ("signals", t.replace('signal "manager_approved"', "signal |"), ['"manager_approved"']),
            ("the workflow named, not the only one",
             t.replace("workflow checkout", "workflow pack_items").replace("step notify", "step |"),
             ["pick"]),
        ]
        for what, text, want in cases:
            eq(labels(text), want, what)
        eq(w.client.stop(), 0, "exit status")


@test
def references_and_highlights():
    flow = TWO_FILES["flow.orbit"]
    with Workspace(TWO_FILES) as w:
        uri = w.open("flow.orbit")
        w.client.wait_diagnostics(uri)
        params = {"textDocument": {"uri": uri}, "position": at(flow, "step charge", 0, 6),
                  "context": {"includeDeclaration": True}}
        refs = w.client.request("textDocument/references", params)
        eq(len(refs), 3, "the declaration and two uses of charge")
        params["context"]["includeDeclaration"] = False
        eq(len(w.client.request("textDocument/references", params)), 2, "uses only")
        params = {"textDocument": {"uri": uri}, "position": at(flow, "Money"),
                  "context": {"includeDeclaration": True}}
        refs = w.client.request("textDocument/references", params)
        eq(sorted(r["uri"].rsplit("/", 1)[1] for r in refs),
           ["flow.orbit", "types.orbit", "types.orbit"], "Money in both files")
        hl = w.client.request("textDocument/documentHighlight",
                              {"textDocument": {"uri": uri}, "position": at(flow, "items", 1)})
        eq([h["kind"] for h in hl], [3, 2, 2], "items: declared once, read twice")
        eq(w.client.stop(), 0, "exit status")


@test
def rename():
    flow, types = TWO_FILES["flow.orbit"], TWO_FILES["types.orbit"]
    with Workspace(TWO_FILES) as w:
        uri = w.open("flow.orbit")
        w.client.wait_diagnostics(uri)

        def ren(position, name):
            return w.client.request_full("textDocument/rename", {
                "textDocument": {"uri": uri}, "position": position, "newName": name})
        p = w.client.request("textDocument/prepareRename",
                             {"textDocument": {"uri": uri}, "position": at(flow, "charge", 1, 2)})
        eq(p["placeholder"], "charge", "prepareRename of a step")
        eq(w.client.request("textDocument/prepareRename",
                            {"textDocument": {"uri": uri}, "position": at(flow, "items")}), None,
           "a field cannot be renamed")
        r = ren(at(flow, "charge", 1, 2), "pay_step")["result"]
        new_flow = apply_edits(flow, r["changes"][uri])
        eq(new_flow.count("pay_step"), 3, "every use of the step")
        check("charge" not in new_flow, "nothing left", new_flow)
        r = ren(at(flow, "Money"), "Cash")["result"]
        new_types = apply_edits(types, r["changes"][w.file_uri("types.orbit")])
        new_flow = apply_edits(flow, r["changes"][uri])
        eq((new_types.count("Cash"), new_flow.count("Cash")), (2, 1), "a type in both files")
        r = ren(at(flow, "child"), "kid")["result"]
        eq(apply_edits(flow, r["changes"][uri]).count("kid"), 2, "a workflow")
        for position, name, why in [
                (at(flow, "step each", 0, 5), "charge", "another step of this workflow"),
                (at(flow, "step each", 0, 5), "it", "a `for` variable"),
                (at(flow, "step each", 0, 5), "len", "a built-in function"),
                (at(flow, "step each", 0, 5), "9lives", "not an identifier"),
                (at(flow, "step each", 0, 5), "retry", "a keyword"),
                (at(flow, "Money"), "string", "a built-in type"),
                (at(flow, "workflow flow", 0, 9), "child", "another workflow")]:
            m = ren(position, name)
            check("error" in m and why in m["error"]["message"], "refused: %s" % why, m)
        m = ren(at(flow, "input"), "x")
        eq(m.get("error", {}).get("code"), -32803, "input cannot be renamed")
        eq(w.client.stop(), 0, "exit status")


@test
def document_and_workspace_symbols():
    with Workspace(TWO_FILES) as w:
        uri = w.open("flow.orbit")
        w.client.wait_diagnostics(uri)
        syms = w.client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        eq([(s["name"], s["kind"]) for s in syms], [("flow", 5), ("child", 5)], "workflows")
        eq([c["name"] for c in syms[0]["children"]], ["charge", "each", "sub"], "steps")
        eq(syms[0]["children"][0]["detail"], "task", "step kind")
        syms = w.client.request("textDocument/documentSymbol",
                                {"textDocument": {"uri": w.file_uri("types.orbit")}})
        eq([(s["name"], s["kind"]) for s in syms], [("Money", 23), ("pay", 11)],
           "a type and a worker in a file that is not open")
        eq([c["name"] for c in syms[0]["children"]], ["amount", "currency"], "fields")
        found = w.client.request("workspace/symbol", {"query": "chrg"})
        eq([(s["name"], s.get("containerName")) for s in found], [("charge", "flow")], "fuzzy")
        found = w.client.request("workspace/symbol", {"query": ""})
        eq(len(found), 8, "everything: 2 workflows, 4 steps, a worker and a type")
        eq(w.client.stop(), 0, "exit status")


# ==== 7. Completion =========================================================================


@test
def lone_cr_in_actions_and_completion():
    # a lone CR ends a line (base/source.h) for "Suppress here", which finds
    # the member's line and ends the comment as the file does, and for completion, where
    # a line comment ends at it
    text = ('workflow w {\r  step s {\r    worker "x"\r'
            '    retry { attempts: 3, max_delay: 5s }\r  }\r}\r')
    with Workspace() as w:
        uri = w.open("s.orbit", text)
        d = w.client.wait_diagnostics(uri)
        eq(codes(d), ["W0002"], "the warning")
        actions = w.client.request("textDocument/codeAction", action_request(uri, d[0]["range"]["start"]))
        suppress = [a for a in actions if a["title"] == "Suppress W0002 here"]
        eq(len(suppress), 1, "a suppression")
        fixed = apply_edits(text, suppress[0]["edit"]["changes"][uri])
        eq(fixed.split("\r")[3], "    // orbit:allow(W0002)", "the comment, on its own line")
        w.client.change(uri, 2, [{"text": fixed}])
        eq(codes(w.client.wait_diagnostics(uri, 2)), [], "silenced")
        body = "// a note\rworkflow w {\r  step s { sleep 1s }\r  \r}\r"
        w.client.change(uri, 3, [{"text": body}])
        r = w.client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                          "position": pos(3, 2)})
        labels = [i["label"] for i in r["items"]]
        check("step" in labels, "completion after a comment ended by a lone CR", labels)
        eq(w.client.stop(), 0, "exit status")


def completion_labels(w, uri, text, marker="|", version=[100]):
    i = text.index(marker)
    body = text.replace(marker, "", 1)
    version[0] += 1
    w.client.change(uri, version[0], [{"text": body}])
    before = body[:i]
    position = pos(before.count("\n"), len(before) - before.rfind("\n") - 1)
    r = w.client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                      "position": position})
    return r["items"]


@test
def completion():
    base = read(CHECKOUT_PATH)
    with Workspace() as w:
        uri = w.open("c.orbit", base)
        w.client.wait_diagnostics(uri)

        def labels(text):
            return [i["label"] for i in completion_labels(w, uri, text)]
        cases = [
            ("top level", base + "\nwor|", ["workflow", "worker", "type"]),
            ("workflow body: members not given yet", base.replace("  timeout 24h\n", "  timeout 24h\n  |\n"),
             ["step", "return"]),
            ("no retry on a sleep step", base.replace("{ sleep 10m }", "{ sleep 10m; | }"), ["when"]),
            ("a task step: what is allowed and not given",
             base.replace("    queue_timeout 2m\n", "    queue_timeout 2m\n    |\n"),
             ["when", "for", "compensate"]),
            ("retry settings not given yet", base.replace("      backoff: exponential\n", "      |\n"),
             ["backoff", "initial_delay", "max_delay", "non_retryable"]),
            ("backoff values", base.replace("backoff: exponential\n", "backoff: |\n"),
             ["fixed", "exponential"]),
            ("worker names, quoted", base.replace('worker "warehouse.pick"', 'worker |'),
             ['"payments.charge"', '"payments.refund"']),
            ("built-in tasks", base.replace("using orbit.http.request", "using orbit.h|"),
             ["orbit.http.request"]),
            ("child workflows", base.replace("workflow pack_items\n", "workflow |\n"),
             ["checkout", "pack_items"]),
            ("error codes in non_retryable",
             base.replace('["CARD_DECLINED", "INSUFFICIENT_FUNDS"]', '["|"]'),
             ["TIMEOUT", "HTTP_ERROR", "QUEUE_TIMEOUT", "INPUT_CONTRACT_VIOLATION",
              "OUTPUT_CONTRACT_VIOLATION", "EXPRESSION_ERROR", "ADAPTER_DISABLED",
              "SIGNAL_TIMEOUT"]),
            ("names in an expression", base.replace("when input.express ?? false", "when |"),
             ["input", "charge", "len", "str", "lower", "upper", "contains", "true", "false", "null"]),
            ("fields after a dot", base.replace("when input.express ?? false", "when input.total.|"),
             ["amount", "currency"]),
            ("fields of a step's result", base.replace("when input.express ?? false", "when charge.|"),
             ["charge_id"]),
            ("the fields of the target's input", base.replace("with { sku: item }", "with { | }"),
             ["sku"]),
            ("types in a contract", base.replace("order_id: string, total", "order_id: |, total"),
             ["string", "int", "number", "bool", "duration", "any", "Money"]),
            ("the for variable", base.replace("with { sku: item }", "with { sku: | }"),
             ["input", "charge", "notify", "item", "len", "str", "lower", "upper", "contains",
              "true", "false", "null"]),
            ("nothing in a comment", base.replace("// checkout.orbit", "// check|out.orbit"), []),
        ]
        for what, text, want in cases:
            eq(labels(text), want, what)
        items = completion_labels(w, uri, base.replace("      backoff: exponential\n", "      |\n"))
        bo = [i for i in items if i["label"] == "backoff"][0]
        eq(bo["insertText"], "backoff: ", "a setting is inserted with its colon")
        eq(bo["documentation"], "How the delay between attempts grows.", "its meaning")
        eq(bo["detail"], "`fixed` or `exponential`, default fixed", "its type and default")
        items = completion_labels(w, uri, base.replace('worker "warehouse.pick"', 'worker "pay|"'))
        eq([(i["label"], i["textEdit"]["newText"]) for i in items],
           [("payments.charge", "payments.charge"), ("payments.refund", "payments.refund")],
           "inside the quotes: the name alone")
        eq(w.client.stop(), 0, "exit status")


# ==== 8. Formatting =========================================================================


def orbitc_fmt(text):
    """`orbitc fmt -` of text (None when it has syntax errors)."""
    p = subprocess.run([ORBITC, "fmt", "-"], input=text.encode(), capture_output=True)
    return p.stdout.decode() if p.returncode == 0 else None


def orbitc_fmt_all(texts):
    """orbitc_fmt of each text, in one `orbitc fmt` of them all (a file each, formatted in
    place; orbitc under the sanitizers costs a process start each): None for a file that
    it refused, the file an error's `-->` line names."""
    with tempfile.TemporaryDirectory() as tmp:
        names = ["%04d.orbit" % k for k in range(len(texts))]
        for name, text in zip(names, texts):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(text.encode())
        p = subprocess.run([ORBITC, "fmt", "--color=never"] + names, cwd=tmp, capture_output=True)
        check(p.returncode in (0, 1), "orbitc fmt exit status", p.returncode, p.stderr.decode()[-2000:])
        refused, lines = set(), p.stderr.decode().splitlines()
        for k, line in enumerate(lines[:-1]):
            if line.startswith("error["):
                where = re.match(r" *--> (\d{4}\.orbit):", lines[k + 1])
                check(where, "the file of an error of orbitc fmt", lines[k:k + 2])
                refused.add(where.group(1))
        formatted = []
        for name in names:
            with open(os.path.join(tmp, name), "rb") as f:
                formatted.append(None if name in refused else f.read().decode())
        return formatted


def formatting(w, uri, options=None):
    return w.client.request("textDocument/formatting", {
        "textDocument": {"uri": uri},
        "options": options or {"tabSize": 2, "insertSpaces": True}})


def range_formatting(w, uri, r):
    return w.client.request("textDocument/rangeFormatting", {
        "textDocument": {"uri": uri}, "range": r,
        "options": {"tabSize": 2, "insertSpaces": True}})


def only_layout(edits):
    """Whether every edit replaces white space and separators by white space and
    separators (the formatter's edits are that small)."""
    return all(re.fullmatch(r"[ \t\r\n,;]*", e["newText"]) for e in edits)


# Badly laid out, with text outside ASCII before the edits of a line (an emoji is two
# UTF-16 units and four UTF-8 bytes).
UGLY = ('worker "pay.é" {input {amount:number}}\n'
        'workflow checkout { timeout 1m\n'
        '    step charge { worker "pay.é"; with {amount:10}; retry {attempts:3,backoff:exponential} }\n'
        '  // the pause 😀\n'
        '      step pause {sleep 10s}   \n'
        '\n\n\n'
        '}')


@test
def formatting_capabilities():
    with Workspace() as w:
        caps = w.init_result["capabilities"]
        eq(caps.get("documentFormattingProvider"), True, "formatting")
        eq(caps.get("documentRangeFormattingProvider"), True, "range formatting")
        check("documentOnTypeFormattingProvider" not in caps, "no formatting as you type", caps)
        eq(w.client.stop(), 0, "exit status")


@test
def formatting_is_orbitc_fmt():
    want = orbitc_fmt(UGLY)
    check(want and want != UGLY, "the text needs formatting", want)
    for encoding in ("utf-16", "utf-8"):
        caps = {"general": {"positionEncodings": [encoding]}}
        with Workspace(capabilities=caps) as w:
            uri = w.open("ugly.orbit", UGLY)
            # the options are not read: the layout is one for everybody
            edits = formatting(w, uri, {"tabSize": 8, "insertSpaces": False})
            eq(apply_edits(UGLY, edits, encoding), want, "the formatted text in " + encoding)
            check(len(edits) > 10 and only_layout(edits), "small edits, not one of the whole "
                  "text", edits)
            line = UGLY.split("\n")[2]
            after_emoji = [e for e in edits if e["range"]["start"]["line"] == 2]
            check(after_emoji, "edits on the line with é", edits)
            col = line.index("with") - 1       # the space before `with`: kept
            units = len(line[:col].encode("utf-16-le")) // 2 if encoding == "utf-16" \
                else len(line[:col].encode())
            check(any(e["range"]["start"]["character"] > units for e in after_emoji),
                  "positions after é counted in " + encoding, after_emoji)
            w.client.change(uri, 2, [{"text": want}])
            eq(formatting(w, uri), [], "a formatted document: no edits")
            eq(w.client.stop(), 0, "exit status")


@test
def a_program_configuration_is_not_formatted():
    """An orbit.program is a program's configuration, not a source: `orbitc fmt` refuses
    it, and the server answers its formatting with null, as for a document it cannot
    format; the program's sources are formatted as ever."""
    config = "program   app {\n      lints { W0007: warn }\n}\n"
    with Workspace(files={"app/orbit.program": config, "app/flow.orbit": UGLY}) as w:
        uri = w.open("app/orbit.program")
        eq(formatting(w, uri), None, "formatting of orbit.program")
        eq(range_formatting(w, uri, rng(0, 0, 2, 1)), None, "range formatting of orbit.program")
        flow = w.open("app/flow.orbit")
        check(formatting(w, flow), "the program's source is formatted")
        eq(w.client.stop(), 0, "exit status")


@test
def formatting_every_golden_source():
    """Every golden source, example and the standard library (LF and CRLF), formatted
    through the server in both encodings: the edits give exactly what `orbitc fmt`
    gives, and a source with syntax errors gets null."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    sources = corpus_sample(sorted(glob.glob(os.path.join(root, "tests", "golden", "*", "*.orbit")) +
                                   glob.glob(os.path.join(root, "examples", "*.orbit")) +
                                   glob.glob(os.path.join(root, "stdlib", "*.orbit"))))
    cases = []
    for path in sources:
        with open(path, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue                  # not UTF-8: no editor sends it (tests/golden/lex)
        for t in (text, text.replace("\r\n", "\n").replace("\n", "\r\n")):
            cases.append((os.path.relpath(path, root), t))
    cases = [(name, text, want) for (name, text), want
             in zip(cases, orbitc_fmt_all([text for _, text in cases]))]
    formatted = sum(1 for c in cases if c[2] is not None)
    check(formatted > 150 // CORPUS_SAMPLE and len(cases) - formatted > 20 // CORPUS_SAMPLE,
          "sources with and without syntax errors", formatted, len(cases))
    for encoding in ("utf-16", "utf-8"):
        caps = {"general": {"positionEncodings": [encoding]}}
        with Workspace(capabilities=caps, argv=[ORBITC, "lsp", "--memory-only"]) as w:
            for k, (name, text, want) in enumerate(cases):
                uri = "untitled:t%d.orbit" % k
                w.client.open(uri, text)
                edits = w.client.request("textDocument/formatting",
                                         {"textDocument": {"uri": uri}, "options": {}})
                if want is None:
                    eq(edits, None, name + ": syntax errors, not formatted")
                else:
                    eq(apply_edits(text, edits, encoding), want, name + " in " + encoding)
                w.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            eq(w.client.stop(), 0, "exit status")


@test
def formatting_many_changes_at_most_1000_edits():
    # 3 changes a line: beyond 1,000, neighbouring changes are merged into one edit
    text = "".join("type T%d {a:int}\n" % k for k in range(1200))
    with Workspace(argv=[ORBITC, "lsp", "--memory-only"]) as w:
        w.client.open("untitled:many.orbit", text)
        edits = w.client.request("textDocument/formatting",
                                 {"textDocument": {"uri": "untitled:many.orbit"}, "options": {}})
        eq(len(edits), 900, "3,600 changes as 900 edits of 4")
        eq(apply_edits(text, edits), orbitc_fmt(text), "the formatted text")
        eq(w.client.stop(), 0, "exit status")


@test
def formatting_crlf_documents():
    # the first line's line end is kept for every line (docs/style.md): a mixed document
    # becomes all CRLF or all LF, and no edit splits a "\r\n"
    for text in ("type A {a:int}\r\ntype B {\r\n b:int }\r\n",
                 "type A {a:int}\r\ntype B {\n b:int }\ntype C {c:int}\n",
                 "type A {a:int}\ntype B {\r\n b:int }\r\ntype C { c: int }\r\n"):
        want = orbitc_fmt(text)
        crlf = text.split("\n")[0].endswith("\r")
        eq(want.count("\r\n"), want.count("\n") if crlf else 0,
           "orbitc fmt gives every line the first line's line end")
        for encoding in ("utf-16", "utf-8"):
            caps = {"general": {"positionEncodings": [encoding]}}
            with Workspace(capabilities=caps) as w:
                uri = w.open("crlf.orbit", text)
                edits = formatting(w, uri)
                eq(apply_edits(text, edits, encoding), want, "%r in %s" % (text, encoding))
                check(only_layout(edits), "small edits", edits)
                eq(w.client.stop(), 0, "exit status")


THREE = ("type A {a:int}\n"
         "\n"
         "type B {b:int}   // b\n"
         "  type C { c: int }\n")


@test
def range_formatting_formats_the_declarations_it_touches():
    with Workspace() as w:
        uri = w.open("three.orbit", THREE)
        edits = range_formatting(w, uri, rng(2, 5, 2, 6))             # inside B
        eq(apply_edits(THREE, edits),
           "type A {a:int}\n\ntype B { b: int }   // b\n  type C { c: int }\n", "B alone")
        check(all(e["range"]["start"]["line"] == 2 for e in edits), "edits on B's line", edits)
        edits = range_formatting(w, uri, rng(0, 3, 3, 2))             # all three
        eq(apply_edits(THREE, edits), orbitc_fmt(THREE), "all three, as orbitc fmt")
        eq(range_formatting(w, uri, rng(1, 0, 1, 0)), [], "the blank line touches nothing")
        edits = range_formatting(w, uri, rng(3, 9, 2, 5))             # end before start
        eq(apply_edits(THREE, edits),
           "type A {a:int}\n\ntype B { b: int } // b\ntype C { c: int }\n", "B and C")
        w.client.change(uri, 2, [{"text": THREE + "type D {"}])
        eq(range_formatting(w, uri, rng(0, 0, 0, 1)), None, "syntax errors: no edits")
        m = w.client.request_full("textDocument/rangeFormatting",
                                  {"textDocument": {"uri": uri}, "options": {}})
        eq(m.get("error", {}).get("code"), -32602, "a range is needed")
        eq(w.client.stop(), 0, "exit status")


@test
def formatting_refused_for_syntax_errors():
    broken = UGLY.replace("sleep 10s}", "sleep 10s")
    with Workspace() as w:
        uri = w.open("broken.orbit", broken)
        eq(formatting(w, uri), None, "syntax errors: null, not an error or a broken edit")
        # errors of the checker do not stop formatting (docs/style.md)
        w.client.change(uri, 2, [{"text": BAD.replace("    with", "with")}])
        eq(apply_edits(BAD.replace("    with", "with"), formatting(w, uri)), orbitc_fmt(BAD),
           "a program with a mistake of the checker is formatted")
        m = w.client.request_full("textDocument/formatting",
                                  {"textDocument": {"uri": w.file_uri("closed.orbit")}})
        eq(m.get("error", {}).get("code"), -32803, "a document that is not open")
        m = w.client.request_full("textDocument/formatting", {"options": {}})
        eq(m.get("error", {}).get("code"), -32602, "no textDocument")
        eq(w.client.stop(), 0, "exit status")
        check(any("syntax errors" in line for line in w.client.stderr_lines),
              "a line on stderr for the document not formatted", w.client.stderr_lines)


@test
def formatting_answers_for_the_text_the_editor_had():
    with Workspace() as w:
        uri = w.open("v.orbit", GOOD)
        # a change and the request sent together: the request sees the change
        w.client.change(uri, 2, [{"text": UGLY}])
        edits = formatting(w, uri)
        eq(apply_edits(UGLY, edits), orbitc_fmt(UGLY), "formatted against version 2")
        # the request, then a change before the answer: the answer is for the text the
        # editor had when it asked, never for an older one
        id = w.client.request_async("textDocument/formatting",
                                    {"textDocument": {"uri": uri}, "options": {}})
        w.client.change(uri, 3, [{"text": THREE}])
        edits = w.client.response(id)["result"]
        eq(apply_edits(UGLY, edits), orbitc_fmt(UGLY), "the answer is for version 2")
        eq(apply_edits(THREE, formatting(w, uri)), orbitc_fmt(THREE), "then version 3")
        eq(w.client.stop(), 0, "exit status")


# ==== Runner ================================================================================


def main(programs=('ORBITC',)):
    """The script's runner (support.cases): --orbitc PATH [-k NAME], and the options of
    the other programs a file that imports this one needs."""
    run_cases(programs)


if __name__ == "__main__":
    main()
