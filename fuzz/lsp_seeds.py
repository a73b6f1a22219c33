#!/usr/bin/env python3
"""Seed sessions for the fuzz_lsp target: each file is one language server session, a
sequence of framed JSON-RPC messages (fuzz/run.sh seeds the working corpus with
them; the committed corpus fuzz/corpus/fuzz_lsp grew from them).

    lsp_seeds.py --out DIR [--count N]

A session initializes (UTF-8 or UTF-16, with or without a workspace folder), opens one
or two programs (examples/ and tests/golden/), asks every request the server answers at
positions spread over the text (inlay hints over ranges of it; semantic tokens whole,
by ranges and, after an edit, as deltas), formats it (whole, by ranges, with options, laid out
badly first, in CRLF), edits them by ranges and whole (except one session in four: a
check whose program has a change queued after it is not published, and the whole
session is read at once), formats the edited text (which may not parse), cancels,
sends a few malformed messages, and shuts down. Shorter sessions (format-NNN, each at
most 4 KB, for runs with -max_len=4096) open one small program of tests/golden/fmt/, laid
out badly or not, and format it whole and by ranges, before and after edits.
"""
import argparse
import glob
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FOLDER = "file:///fuzz"


def frame(message):
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Session:
    def __init__(self):
        self.out = []
        self.id = 0

    def request(self, method, params):
        self.id += 1
        self.out.append(frame({"jsonrpc": "2.0", "id": self.id, "method": method,
                               "params": params}))
        return self.id

    def notify(self, method, params):
        self.out.append(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def raw(self, data):
        self.out.append(data)

    def bytes(self):
        return b"".join(self.out)


def positions(text, count):
    lines = text.split("\n")
    step = max(1, len(lines) // count)
    for i in range(0, len(lines), step):
        line = lines[i]
        for ch in (line.find(w) for w in ("step", "retry", "worker", "input", ".", "attempts")):
            if ch >= 0:
                yield {"line": i, "character": ch + 1}
        yield {"line": i, "character": len(line) // 2}


def badly_laid_out(text, variant):
    """The text with its layout spoilt: lines indented by a varying amount, spaces around
    braces and colons dropped or doubled, blank lines added; CRLF line ends in one
    variant of three."""
    lines = []
    for k, line in enumerate(text.split("\n")):
        line = " " * ((k * 3 + variant) % 7) + line.strip()
        line = line.replace(": ", ":" if k % 2 else ":   ").replace("{ ", "{" if k % 3 else "{  ")
        lines.append(line + ("   " if k % 5 == 0 else ""))
        if k % 11 == 5:
            lines.append("")
    return ("\r\n" if variant % 3 == 2 else "\n").join(lines)


def formatting(s, uri, text, variant):
    """The document formatted whole and by ranges; then laid out badly and formatted
    again (edits from one answer are not applied: the session does not read answers)."""
    doc = {"uri": uri}
    options = {"tabSize": 4, "insertSpaces": variant % 2 == 0, "trimTrailingWhitespace": True}
    s.request("textDocument/formatting", {"textDocument": doc, "options": options})
    lines = text.count("\n")
    for first, last in ((0, 0), (lines // 3, lines // 2), (lines, lines + 5), (lines // 2, 1)):
        s.request("textDocument/rangeFormatting", {
            "textDocument": doc, "options": options,
            "range": {"start": {"line": first, "character": 2},
                      "end": {"line": last, "character": 0}}})
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 50},
                                        "contentChanges": [{"text": badly_laid_out(text, variant)}]})
    s.request("textDocument/formatting", {"textDocument": doc, "options": options})
    s.request("textDocument/rangeFormatting", {
        "textDocument": doc, "options": options,
        "range": {"start": {"line": lines // 2, "character": 0},
                  "end": {"line": lines // 2 + 3, "character": 1}}})
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 51},
                                        "contentChanges": [{"text": text}]})


def hint_requests(s, doc, text):
    """Inlay hints of the whole text, of ranges inside it (one reversed, one past its
    end), and of one line; folding ranges; selection ranges at positions spread over it
    and past its end."""
    lines = text.count("\n")
    s.request("textDocument/foldingRange", {"textDocument": doc})
    s.request("textDocument/selectionRange", {"textDocument": doc, "positions": list(
        positions(text, 4))[:16] + [{"line": lines + 2, "character": 0}]})
    for first, last in ((0, lines + 1), (lines // 3, lines // 2), (lines // 2, 1),
                        (lines, lines + 9), (lines // 2, lines // 2)):
        s.request("textDocument/inlayHint", {
            "textDocument": doc, "range": {"start": {"line": first, "character": 0},
                                           "end": {"line": last, "character": 3}}})


def codes_requests(s, doc, text):
    """Document links, and hover and completion on the codes of a suppression (when the
    text has one) and at its start; the code lenses of the tests, and the commands that
    run them (every test, a name no test has, arguments of the wrong shape)."""
    s.request("textDocument/documentLink", {"textDocument": doc})
    s.request("textDocument/codeLens", {"textDocument": doc})
    for command, arguments in (("orbit.runTests", [doc["uri"]]),
                               ("orbit.runTest", [doc["uri"], "no such test"]),
                               ("orbit.runTest", [doc["uri"]])):
        s.request("workspace/executeCommand", {"command": command, "arguments": arguments})
    lines = text.split("\n")
    after = [(i, k + 1) for i, line in enumerate(lines) for k, c in enumerate(line) if c in "(,"]
    for i, ch in after[:8]:               # signature help after the first `(` and `,`
        s.request("textDocument/signatureHelp", {"textDocument": doc, "position": {
            "line": i, "character": ch}})
    for i, line in enumerate(lines):      # the call hierarchy of the first workflows
        ch = line.find("workflow ")
        if ch >= 0 and i < 200:
            at = {"line": i, "character": ch + 10}
            s.request("textDocument/prepareCallHierarchy", {"textDocument": doc, "position": at})
            item = {"uri": doc["uri"], "name": "w", "kind": 12,
                    "range": {"start": at, "end": at}, "selectionRange": {"start": at, "end": at}}
            s.request("callHierarchy/incomingCalls", {"item": item})
            s.request("callHierarchy/outgoingCalls", {"item": item})
    for i, line in enumerate(lines):
        ch = line.find("orbit:allow(")
        if ch >= 0:
            for delta in (12, 14, len(line) - ch):
                at = {"textDocument": doc, "position": {"line": i, "character": ch + delta}}
                s.request("textDocument/hover", at)
                s.request("textDocument/completion", at)
            break


def semantic_tokens_requests(s, doc, text, edited):
    """Semantic tokens: the whole document and ranges; after an edit, deltas from the
    first result (resultIds count from 1 in a session) and from one the server never
    gave."""
    lines = text.count("\n")
    if not edited:
        s.request("textDocument/semanticTokens/full", {"textDocument": doc})
    else:
        for previous in ("1", "no-such-result"):
            s.request("textDocument/semanticTokens/full/delta",
                      {"textDocument": doc, "previousResultId": previous})
    for start, end in ((0, lines + 1), (lines // 2, lines // 2 + 3), (lines + 5, 0)):
        s.request("textDocument/semanticTokens/range", {"textDocument": doc, "range": {
            "start": {"line": start, "character": 1}, "end": {"line": end, "character": 0}}})


def session(texts, utf8, folder, variant):
    s = Session()
    caps = {"workspace": {"workspaceEdit": {"documentChanges": variant % 2 == 0}},
            "textDocument": {"hover": {"contentFormat": ["plaintext"] if variant % 5 == 2
                                                         else ["markdown"]}}}
    if utf8:
        caps["general"] = {"positionEncodings": ["utf-8", "utf-16"]}
    params = {"processId": None, "capabilities": caps, "rootUri": FOLDER if folder else None}
    if folder:
        params["workspaceFolders"] = [{"uri": FOLDER, "name": "fuzz"}]
    if variant % 3 == 0:
        params["initializationOptions"] = {"warn": ["W0007"], "allow": ["W0002"],
                                           "explainUri": "https://docs.example/{code}"}
    s.request("initialize", params)
    s.notify("initialized", {})
    uris = []
    for k, text in enumerate(texts):
        uri = "%s/f%d.orbit" % (FOLDER if folder else "file:///elsewhere", k)
        uris.append(uri)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "orbit",
                                                           "version": 1, "text": text}})
    uri, text = uris[0], texts[0]
    doc = {"uri": uri}
    for p in list(positions(text, 6))[:12]:
        at = {"textDocument": doc, "position": p}
        s.request("textDocument/hover", at)
        s.request("textDocument/completion", at)
        s.request("textDocument/definition", at)
        s.request("textDocument/references", dict(at, context={"includeDeclaration": True}))
        s.request("textDocument/documentHighlight", at)
        s.request("textDocument/prepareRename", at)
        s.request("textDocument/rename", dict(at, newName="renamed"))
        s.request("textDocument/codeAction", {"textDocument": doc,
                                              "range": {"start": p, "end": p},
                                              "context": {"diagnostics": []}})
    codes_requests(s, doc, text)
    semantic_tokens_requests(s, doc, text, False)
    s.request("textDocument/documentSymbol", {"textDocument": doc})
    s.request("workspace/symbol", {"query": "a"})
    hint_requests(s, doc, text)
    formatting(s, uri, text, variant)
    if variant % 4 == 1:     # no change queued: the diagnostics are published
        s.request("shutdown", None)
        s.notify("exit", None)
        return s.bytes()
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                        "contentChanges": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}},
         "text": "wor"},
        {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 2, "character": 0}},
         "text": "  step x { sleep 1s }\n"}]})
    semantic_tokens_requests(s, doc, text, True)
    if variant % 2:
        s.request("textDocument/hover", {"textDocument": doc,
                                         "position": {"line": 1, "character": 8}})
        s.notify("$/cancelRequest", {"id": s.id})
        s.raw(b"Content-Length: 5\r\n\r\n{oops")
        s.request("textDocument/noSuchMethod", {})
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                        "contentChanges": [{"text": text}]})
    s.request("textDocument/completion", {"textDocument": doc,
                                          "position": {"line": 2, "character": 4}})
    hint_requests(s, doc, text)
    s.request("textDocument/formatting", {"textDocument": doc, "options": {}})
    s.notify("textDocument/didClose", {"textDocument": doc})
    s.request("shutdown", None)
    s.notify("exit", None)
    return s.bytes()


def format_session(text, utf8, variant):
    """A short session about formatting one small document."""
    s = Session()
    caps = {"general": {"positionEncodings": ["utf-8"]}} if utf8 else {}
    s.request("initialize", {"processId": None, "capabilities": caps, "rootUri": None})
    s.notify("initialized", {})
    uri = "untitled:f.orbit"
    doc = {"uri": uri}
    if variant % 2:
        text = badly_laid_out(text, variant)
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "orbit",
                                                       "version": 1, "text": text}})
    options = {"tabSize": 2, "insertSpaces": True}
    s.request("textDocument/formatting", {"textDocument": doc, "options": options})
    lines = text.count("\n")
    s.request("textDocument/rangeFormatting", {
        "textDocument": doc, "options": options,
        "range": {"start": {"line": lines // 2, "character": 1},
                  "end": {"line": lines // 2 + variant % 3, "character": 4}}})
    s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                        "contentChanges": [
        {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
         "text": "  \u00e9\U0001F600 " if variant % 4 == 0 else "\r\n   "}]})
    s.request("textDocument/formatting", {"textDocument": doc, "options": options})
    s.request("textDocument/rangeFormatting", {
        "textDocument": doc, "options": options,
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}})
    s.request("shutdown", None)
    s.notify("exit", None)
    return s.bytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=48)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.orbit")) +
                   glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.orbit")))
    texts = []
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        if len(data) <= 8192:
            texts.append(data.decode("utf-8", "replace"))
    step = max(1, len(texts) // args.count)
    for n, i in enumerate(range(0, len(texts), step)):
        pair = [texts[i]] + ([texts[(i + 1) % len(texts)]] if n % 3 == 1 else [])
        data = session(pair, utf8=n % 2 == 1, folder=n % 4 != 3, variant=n)
        with open(os.path.join(args.out, "session-%03d" % n), "wb") as f:
            f.write(data)
    n = 0
    for f in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "fmt", "*.orbit"))):
        with open(f, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
        for variant in range(4):
            data = format_session(text, utf8=variant >= 2, variant=variant)
            if len(data) <= 4096:
                with open(os.path.join(args.out, "format-%03d" % n), "wb") as out:
                    out.write(data)
                n += 1


if __name__ == "__main__":
    main()
