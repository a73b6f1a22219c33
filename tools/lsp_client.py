"""A minimal Language Server Protocol client over a child process's stdin and stdout,
standard library only: Content-Length framing and JSON. Used by tests/lsp/test_lsp.py and
tools/lsp_bench.py.

    client = Client([orbitc, "lsp"])
    client.initialize(root_uri)
    client.open(uri, text)
    diags = client.wait_diagnostics(uri)
    result = client.request("textDocument/hover", {...})
    client.stop()
"""
import json
import os
import queue
import subprocess
import threading
import time
import urllib.parse

TIMEOUT = 30.0


def file_uri(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def frame(obj):
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class ProtocolError(Exception):
    pass


class Client:
    def __init__(self, argv, cwd=None, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.incoming = queue.Queue()
        self.stderr_lines = []
        self.pending = []          # messages read but not yet taken
        self.next_id = 0
        self.frames_ok = True      # every frame the server wrote was well formed
        threading.Thread(target=self._read_stdout, daemon=True).start()
        self.stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_thread.start()

    # --- reading ---

    def _read_stdout(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.incoming.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if not line.endswith(b"\r\n"):
                    self.frames_ok = False
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                self.frames_ok = False
                self.incoming.put(None)
                return
            body = out.read(length)
            try:
                self.incoming.put(json.loads(body.decode("utf-8")))
            except (UnicodeDecodeError, json.JSONDecodeError):
                self.frames_ok = False
                self.incoming.put({"_undecodable": body})

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.decode("utf-8", "replace"))

    def take(self, predicate, timeout=TIMEOUT):
        """The first message (already read or still to come) that satisfies predicate."""
        for i, m in enumerate(self.pending):
            if predicate(m):
                return self.pending.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("timed out waiting for a message; pending: %r; stderr: %s"
                                    % (self.pending[-5:], "".join(self.stderr_lines[-10:])))
            try:
                m = self.incoming.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                raise ProtocolError("the server closed its output; stderr: %s"
                                    % "".join(self.stderr_lines[-10:]))
            if predicate(m):
                return m
            self.pending.append(m)

    def drain(self, seconds=0.2):
        """Everything that arrives within `seconds` (and what was pending)."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                m = self.incoming.get(timeout=left)
            except queue.Empty:
                break
            if m is None:
                break
            self.pending.append(m)
        got, self.pending = self.pending, []
        return got

    # --- writing ---

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw(frame(obj))

    def notify(self, method, params=None):
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)

    def request_async(self, method, params=None):
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return self.next_id

    def response(self, id, timeout=TIMEOUT):
        return self.take(lambda m: m.get("id") == id and "method" not in m, timeout)

    def request_full(self, method, params=None, timeout=TIMEOUT):
        """The whole response message (result or error)."""
        return self.response(self.request_async(method, params), timeout)

    def request(self, method, params=None, timeout=TIMEOUT):
        m = self.request_full(method, params, timeout)
        if "error" in m:
            raise ProtocolError("%s failed: %r" % (method, m["error"]))
        return m["result"]

    # --- the usual conversation ---

    def initialize(self, root_uri=None, capabilities=None, folders=None, options=None):
        params = {"processId": os.getpid(), "rootUri": root_uri,
                  "capabilities": capabilities or {}}
        if folders is not None:
            params["workspaceFolders"] = folders
        if options is not None:
            params["initializationOptions"] = options
        result = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "orbit", "version": version, "text": text}})

    def change(self, uri, version, changes):
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    def wait_diagnostics(self, uri, version=None, timeout=TIMEOUT):
        def wanted(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.take(wanted, timeout)["params"]["diagnostics"]

    def stop(self, timeout=TIMEOUT):
        """shutdown, exit; returns the exit status."""
        self.request("shutdown")
        self.notify("exit")
        return self.wait(timeout)

    def wait(self, timeout=TIMEOUT):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise ProtocolError("the server did not exit")
        self.stderr_thread.join(timeout)    # every line it wrote is in stderr_lines
        return status

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
