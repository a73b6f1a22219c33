#!/usr/bin/env python3
"""More of `orbitc lsp`, driven by the scripted client of tests/lsp/test_lsp.py (whose
Workspace and helpers it uses): the protocol's hygiene (the client's process watched,
hover as plain text, problems that reach the user), document links and diagnostic codes,
signature help and the call hierarchy (docs/editors.md).

    test_lsp_more.py --orbitc build/cli/orbitc [-k NAME]
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_lsp as base  # noqa: E402
from test_lsp import Workspace, at, check, eq, hover, pos, read, rng  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import test  # noqa: E402



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


# ==== Diagnostic codes: codeDescription, document links, hover, completion ==================


def explain(code=None):
    p = subprocess.run([base.ORBITC, "explain"] + ([code] if code else []),
                       capture_output=True, timeout=30)
    return p.stdout.decode("utf-8")


def warning_titles():
    """code -> title of every warning, from `orbitc explain` (the registry)."""
    titles = {}
    for line in explain().splitlines():
        code, kind, title = line.split(None, 2)
        if kind in ("warning", "lint"):
            titles[code] = title
    return titles


def position(text, index, encoding):
    """The LSP position of text[index] in the encoding's code units."""
    before = text[:index]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1:]
    return pos(line, len(column.encode("utf-16-le" if encoding == "utf-16" else "utf-8"))
               // (2 if encoding == "utf-16" else 1))


def span(text, needle, encoding, nth=0):
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return {"start": position(text, i, encoding), "end": position(text, i + len(needle), encoding)}


def encoding_caps(encoding, markdown=True):
    caps = {"general": {"positionEncodings": [encoding]}}
    if markdown:
        caps["textDocument"] = {"hover": {"contentFormat": ["markdown"]}}
    return caps


def file_text(uri):
    path = uri[len("file://"):]
    with open(path, encoding="utf-8") as f:
        return f.read()


ALLOWING = ('workflow w {\n'
            '  step s { worker "é😀"; retry { attempts: 3, initial_delay: 1s, max_delay: 2s } }'
            '  // orbit:allow(W0002, E0410, W9999)\n'
            '  step t { worker "x"; retry { attempts: 2 } } /* orbit:allow(w0007) */\n'
            '}\n')

CONFIGURATION = 'program app {\n  lints {\n    W0007: warn\n    W0002: allow\n  }\n}\n'


@test
def each_diagnostic_links_to_its_explanation():
    text = 'workflow w {\n  step s { worker "x"; retry { attempts: 1, backof: fixed } }\n}\n'
    with Workspace() as w:
        uri = w.open("a.orbit", text)
        diags = w.client.wait_diagnostics(uri)
        eq(base.codes(diags), ["E0410"], "the diagnostic")
        href = diags[0]["codeDescription"]["href"]
        check(href.startswith("file://" + w.home) and href.endswith("/explain/E0410.md"),
              "a file of the server's cache", href)
        eq(file_text(href), explain("E0410"), "holding what `orbitc explain E0410` prints")
        check(not os.access(href[len("file://"):], os.W_OK) or os.geteuid() == 0,
              "read-only", href)
        eq(w.client.stop(), 0, "exit status")
    # initializationOptions.explainUri: the address of a documentation site
    with Workspace(options={"explainUri": "https://docs.example/orbitc/{code}.html?c={code}"}) as w:
        uri = w.open("a.orbit", text)
        eq(w.client.wait_diagnostics(uri)[0]["codeDescription"],
           {"href": "https://docs.example/orbitc/E0410.html?c=E0410"}, "the option's address")
        eq(w.client.stop(), 0, "exit status")
    # without {code} the option is ignored (and said so)
    with Workspace(options={"explainUri": "https://docs.example/"}) as w:
        uri = w.open("a.orbit", text)
        href = w.client.wait_diagnostics(uri)[0]["codeDescription"]["href"]
        check(href.endswith("/explain/E0410.md"), "the cache's file", href)
        eq(w.client.stop(), 0, "exit status")
        check(any("explainUri" in line and "no {code}" in line for line in w.client.stderr_lines),
              "logged", w.client.stderr_lines)
    # never reading or writing a file: no codeDescription, unless an address is given
    with Workspace(argv=[base.ORBITC, "lsp", "--memory-only"]) as w:
        uri = w.open("a.orbit", text)
        check("codeDescription" not in w.client.wait_diagnostics(uri)[0], "memory-only")
        eq(w.client.request("textDocument/documentLink", {"textDocument": {"uri": uri}}), [],
           "no link without an address")
        eq(w.client.stop(), 0, "exit status")


@test
def document_links_on_codes_in_suppressions_and_configurations():
    for encoding in ("utf-16", "utf-8"):
        with Workspace(files={"app/orbit.program": CONFIGURATION, "app/a.orbit": ALLOWING},
                       capabilities=encoding_caps(encoding)) as w:
            eq(w.init_result["capabilities"]["documentLinkProvider"], {"resolveProvider": False},
               "the capability")
            uri = w.open("app/a.orbit")
            diags = w.client.wait_diagnostics(uri)
            links = w.client.request("textDocument/documentLink", {"textDocument": {"uri": uri}})
            base_href = diags[0]["codeDescription"]["href"].rsplit("/", 1)[0]
            eq([(l["range"], l["target"], l["tooltip"]) for l in links],
               [(span(ALLOWING, "W0002", encoding), base_href + "/W0002.md",
                 "orbitc explain W0002: `max_delay` with fixed backoff"),
                (span(ALLOWING, "E0410", encoding), base_href + "/E0410.md",
                 "orbitc explain E0410: invalid retry or timeout policy"),
                (span(ALLOWING, "w0007", encoding), base_href + "/W0007.md",
                 "orbitc explain W0007: retried task without an idempotency key")],
               encoding + ": every registered code of a directive (not W9999)")
            config = w.file_uri("app/orbit.program")     # not open: read from disk
            links = w.client.request("textDocument/documentLink",
                                     {"textDocument": {"uri": config}})
            eq([(l["range"], l["target"]) for l in links],
               [(span(CONFIGURATION, "W0007", encoding), base_href + "/W0007.md"),
                (span(CONFIGURATION, "W0002", encoding), base_href + "/W0002.md")],
               encoding + ": the lint levels of orbit.program")
            eq(w.client.stop(), 0, "exit status")


@test
def hover_on_a_code_shows_its_explanation():
    with Workspace(files={"app/orbit.program": CONFIGURATION, "app/a.orbit": ALLOWING},
                   capabilities=encoding_caps("utf-16")) as w:
        uri = w.open("app/a.orbit")
        w.client.wait_diagnostics(uri)
        for needle in ("W0002", "E0410", "w0007"):
            r = w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                        "position": at(ALLOWING, needle, delta=2)})
            eq(r, {"contents": {"kind": "markdown", "value": explain(needle.upper())},
                   "range": span(ALLOWING, needle, "utf-16")}, "hover on " + needle)
        eq(w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": at(ALLOWING, "W9999", delta=1)}),
           None, "no hover on a code that does not exist")
        config = w.file_uri("app/orbit.program")
        r = w.client.request("textDocument/hover", {"textDocument": {"uri": config},
                                                    "position": at(CONFIGURATION, "W0002")})
        eq(r["contents"]["value"], explain("W0002"), "in orbit.program")
        eq(w.client.request("textDocument/hover", {"textDocument": {"uri": config},
                                                   "position": at(CONFIGURATION, "allow")}),
           None, "nothing else of a configuration has a hover")
        eq(w.client.stop(), 0, "exit status")
    # plain text: the explanation without its marks
    with Workspace(files={"a.orbit": ALLOWING}, capabilities=encoding_caps("utf-8", False)) as w:
        uri = w.open("a.orbit")
        w.client.wait_diagnostics(uri)
        r = w.client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": position(ALLOWING,
                                                                         ALLOWING.index("W0002"),
                                                                         "utf-8")})
        value = r["contents"]["value"]
        eq(r["contents"]["kind"], "plaintext", "plain text")
        eq(value.split("\n")[0], "W0002: max_delay with fixed backoff", "the heading, unmarked")
        check("```" not in value and "`" not in value and "**" not in value, "no marks", value)
        check("    retry { attempts: 5, initial_delay: 1s, max_delay: 30s }" in value,
              "the examples' code kept", value)
        eq(w.client.stop(), 0, "exit status")


def completion_items(w, uri, text, marker):
    """Completion where `marker` is in text (the marker removed from the document)."""
    index = text.index(marker)
    document = text.replace(marker, "", 1)
    w.client.change(uri, completion_items.version, [{"text": document}])
    completion_items.version += 1
    r = w.client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                     "position": position(document, index,
                                                                          "utf-16")})
    return r["items"]


completion_items.version = 2


@test
def completion_of_codes():
    titles = warning_titles()
    eq(sorted(titles), ["W%04d" % i for i in range(1, 13)], "the registry's warnings")
    with Workspace(files={"app/orbit.program": CONFIGURATION, "app/a.orbit": ALLOWING},
                   capabilities=encoding_caps("utf-16")) as w:
        uri = w.open("app/a.orbit")
        w.client.wait_diagnostics(uri)
        text = 'workflow w {\n  step s { sleep 1s }  // orbit:allow(W0006, W0|0 ok\n}\n'
        items = completion_items(w, uri, text, "|")
        line = text.index("W0|")
        eq([(i["label"], i["detail"], i["kind"]) for i in items],
           [(c, titles[c], 21) for c in sorted(titles) if c not in ("W0006", "W0008", "W0009")],
           "warnings that can be suppressed and are not listed yet, with their titles")
        eq(items[0]["textEdit"]["range"],
           {"start": position(text, line, "utf-16"), "end": position(text, line + 3, "utf-16")},
           "the code being typed is replaced (W00 without the marker)")
        text = '// é😀 before\nworkflow w { // orbit:allow(|)\n  step s { sleep 1s }\n}\n'
        items = completion_items(w, uri, text, "|")
        eq(len(items), len(titles) - 2, "an empty list: every warning but W0008, W0009")
        cursor = position(text.replace("|", ""), text.index("|"), "utf-16")
        eq(items[0]["textEdit"]["range"], {"start": cursor, "end": cursor}, "inserted")
        items = completion_items(w, uri, 'workflow w { // orbit: allow(|) }\n', "|")
        eq(items, [], "not a directive: an ordinary comment")
        items = completion_items(w, uri, 'workflow w {\n  st|\n}\n', "|")
        check("step" in [i["label"] for i in items], "elsewhere, the ordinary completion", items)
        # the configuration: every warning (W0008 and W0009 have levels too) not set yet
        config_uri = w.file_uri("app/orbit.program")
        w.client.open(config_uri, CONFIGURATION)
        items = completion_items(w, config_uri, CONFIGURATION.replace(
            "    W0002: allow\n", "    W0002: allow\n    W|\n"), "|")
        eq([i["label"] for i in items], [c for c in sorted(titles) if c not in ("W0002", "W0007")],
           "in lints { … }: the warnings not set yet")
        items = completion_items(w, config_uri, CONFIGURATION.replace("W0002: allow",
                                                                      "W0002: al|low"), "|")
        eq(items, [], "not where a level goes")
        eq(w.client.stop(), 0, "exit status")


# ==== Signature help =========================================================================

SIGNATURE_PROGRAM = ('workflow w {\n  input { items: [string], name: string }\n'
                     '  step a { compute %s }\n}\n')

LEN = "len(value: any) -> int"
CONTAINS = "contains(haystack: any, needle: any) -> bool"
UPPER = "upper(text: string) -> string"


def signature_help(w, uri, text, marker, encoding="utf-16", version=[2]):
    index = text.index(marker)
    document = text.replace(marker, "", 1)
    w.client.change(uri, version[0], [{"text": document}])
    version[0] += 1
    return w.client.request("textDocument/signatureHelp", {
        "textDocument": {"uri": uri}, "position": position(document, index, encoding)})


def parameters(label):
    inside = label[label.index("(") + 1:label.index(")")]
    return [{"label": p} for p in inside.split(", ")] if inside else []


# The comments of stdlib/orbit.orbit's declarations, on their lines (none for contains).
DOCUMENTATION = {LEN: "length of a string or list", UPPER: "upper case", CONTAINS: None}


def signature(label):
    s = {"label": label, "parameters": parameters(label)}
    if DOCUMENTATION.get(label):
        s["documentation"] = DOCUMENTATION[label]
    return s


@test
def signature_help_for_standard_library_functions():
    cases = [("len(|input.items)", LEN, 0),
             ("len(input.items|)", LEN, 0),
             ("len(|", LEN, 0),                         # the `)` is not typed yet
             ("1 + len(|", LEN, 0),
             ("contains(|", CONTAINS, 0),
             ("contains(input.items,| input.name)", CONTAINS, 1),
             ("contains(input.items, |", CONTAINS, 1),
             ("contains(input.items, upper(|))", UPPER, 0),       # the innermost call
             ("contains(input.items, upper(input.name)|)", CONTAINS, 1),
             ('contains(["é😀", "x"], |)', CONTAINS, 1),
             ('contains(["(|"], "")', CONTAINS, 0),               # in a string argument
             ("contains(input.items, input.name, |)", CONTAINS, 2)]   # one too many: said so
    for encoding in ("utf-16", "utf-8"):
        with Workspace(capabilities=encoding_caps(encoding)) as w:
            eq(w.init_result["capabilities"]["signatureHelpProvider"],
               {"triggerCharacters": ["(", ","]}, "the capability")
            uri = w.open("a.orbit", SIGNATURE_PROGRAM % "1")
            w.client.wait_diagnostics(uri)
            for expression, label, active in cases:
                r = signature_help(w, uri, SIGNATURE_PROGRAM % expression, "|", encoding)
                eq(r, {"signatures": [signature(label)],
                       "activeSignature": 0, "activeParameter": active},
                   "%s: %s" % (encoding, expression))
            for expression in ("len(input.items)|", "|len(input.items)", "le|n(input.items)",
                               "input.name|"):
                eq(signature_help(w, uri, SIGNATURE_PROGRAM % expression, "|", encoding), None,
                   "%s: no call around the cursor in %s" % (encoding, expression))
            eq(w.client.stop(), 0, "exit status")


@test
def signature_help_parameters_come_from_the_standard_library():
    """Every function of stdlib/orbit.orbit, its parameters' names and types as declared."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib",
                           "orbit.orbit"), encoding="utf-8") as f:
        stdlib = f.read()
    functions = re.findall(r"^function (\w+) \{ input \{ ([^}]*) \}; output (\w+) \}"
                           r"(?: *// (.*))?$", stdlib, re.M)
    check(len(functions) >= 5, "the standard library's functions", functions)
    with Workspace() as w:
        uri = w.open("a.orbit", SIGNATURE_PROGRAM % "1")
        w.client.wait_diagnostics(uri)
        for name, params, result, comment in functions:
            label = "%s(%s) -> %s" % (name, params, result)
            want = {"label": label, "parameters": parameters(label)}
            if comment:
                want["documentation"] = comment
            r = signature_help(w, uri, SIGNATURE_PROGRAM % ("%s(|)" % name), "|")
            eq(r["signatures"], [want], name)
        eq(w.client.stop(), 0, "exit status")


# ==== Call hierarchy =========================================================================

CALLER = ('workflow checkout {\n'
          '  step emballé { workflow pack_items; with { sku: "x" } }\n'
          '  step ship { workflow shipping }\n'
          '  step again { workflow pack_items; with { sku: "y" } }\n'
          '}\n')
CALLEES = ('/* é😀 */ workflow pack_items {\n'
           '  input { sku: string }\n'
           '  step label { workflow shipping }\n'
           '}\n'
           '\n'
           'workflow shipping {\n'
           '  step s { sleep 1s }\n'
           '}\n')


def declaration_range(text, name, encoding):
    start = text.index("workflow %s {" % name)
    end = text.index("\n}\n", start) + 2
    return {"start": position(text, start, encoding), "end": position(text, end, encoding)}


def item(w, file, text, name, steps, encoding):
    """The CallHierarchyItem of a workflow (its name: the declaration's)."""
    name_at = text.index("workflow %s {" % name) + len("workflow ")
    return {"name": name, "kind": 12, "detail": "workflow, %d step%s" % (steps, "s" * (steps != 1)),
            "uri": w.file_uri(file), "range": declaration_range(text, name, encoding),
            "selectionRange": {"start": position(text, name_at, encoding),
                               "end": position(text, name_at + len(name), encoding)},
            "data": {"workflow": name}}


@test
def call_hierarchy_of_child_workflows():
    for encoding in ("utf-16", "utf-8"):
        with Workspace(files={"a.orbit": CALLER, "b.orbit": CALLEES},
                       capabilities=encoding_caps(encoding)) as w:
            eq(w.init_result["capabilities"]["callHierarchyProvider"], True, "the capability")
            uri = w.open("a.orbit")
            eq(w.client.wait_diagnostics(uri), [], "a clean program")
            checkout = item(w, "a.orbit", CALLER, "checkout", 3, encoding)
            pack = item(w, "b.orbit", CALLEES, "pack_items", 1, encoding)
            shipping = item(w, "b.orbit", CALLEES, "shipping", 1, encoding)

            def prepare(file, text, needle, nth=0, delta=1):
                i = -1
                for _ in range(nth + 1):
                    i = text.index(needle, i + 1)
                return w.client.request("textDocument/prepareCallHierarchy", {
                    "textDocument": {"uri": w.file_uri(file)},
                    "position": position(text, i + delta, encoding)})
            eq(prepare("a.orbit", CALLER, "pack_items"), [pack], "a child workflow's use")
            eq(prepare("a.orbit", CALLER, "emballé", delta=6), [pack],
               "a step that starts a child workflow")
            eq(prepare("a.orbit", CALLER, "checkout"), [checkout], "a declaration")
            eq(prepare("b.orbit", CALLEES, "shipping", nth=1), [shipping], "in another file")
            eq(prepare("a.orbit", CALLER, "sku"), None, "not a workflow")

            def calls(method, it):
                return w.client.request("callHierarchy/" + method, {"item": it})
            eq(calls("incomingCalls", pack),
               [{"from": checkout, "fromRanges": [span(CALLER, "pack_items", encoding, 0),
                                                  span(CALLER, "pack_items", encoding, 1)]}],
               encoding + ": who starts pack_items")
            eq(calls("incomingCalls", shipping),
               [{"from": checkout, "fromRanges": [span(CALLER, "shipping", encoding)]},
                {"from": pack, "fromRanges": [span(CALLEES, "shipping", encoding)]}],
               encoding + ": from two files")
            eq(calls("incomingCalls", checkout), [], "nobody starts checkout")
            eq(calls("outgoingCalls", checkout),
               [{"to": pack, "fromRanges": [span(CALLER, "pack_items", encoding, 0),
                                            span(CALLER, "pack_items", encoding, 1)]},
                {"to": shipping, "fromRanges": [span(CALLER, "shipping", encoding)]}],
               encoding + ": what checkout starts")
            eq(calls("outgoingCalls", pack),
               [{"to": shipping, "fromRanges": [span(CALLEES, "shipping", encoding)]}],
               encoding + ": what pack_items starts")
            eq(calls("outgoingCalls", shipping), [], "a leaf")
            # an item that no longer names its workflow (renamed since): no calls
            w.client.change(uri, 2, [{"text": CALLER.replace("checkout", "order")}])
            eq(calls("outgoingCalls", checkout), [], "a stale item")
            eq(w.client.stop(), 0, "exit status")


if __name__ == "__main__":
    base.main()
