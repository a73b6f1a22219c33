#!/usr/bin/env python3
"""Inlay hints, folding ranges and selection ranges of `orbitc lsp` (docs/editors.md), by
the scripted client of tests/lsp/test_lsp.py: on every golden and example each retry schedule
equals the hover's, and equals what `orbit-run` actually waits on the same policy; exact
hints on the example; defaults only where omitted; the requested range; UTF-8, UTF-16,
CRLF. Folding and selection: exact on a small program, and their invariants on every
golden (each parent holds its child, every range in the file).

    test_lsp_hints.py --orbitc build/cli/orbitc --orbit-run build/runtime/orbit-run [-k NAME]
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_lsp as L  # noqa: E402  (its Workspace, checks and runner)
from test_lsp import Workspace, at, check, eq, hover, pos, read  # noqa: E402

test = L.test
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ORBIT_RUN = None
WHOLE = {"start": pos(0, 0), "end": pos(1 << 30, 0)}
UNITS = {"d": 86400000, "h": 3600000, "m": 60000, "s": 1000, "ms": 1}


def ms(text):
    """Milliseconds of a duration as orbitc writes it: "1m30s500ms"."""
    parts = re.findall(r"(\d+)(ms|d|h|m|s)", text)
    check(parts and "".join(n + u for n, u in parts) == text, "a duration: %r" % text)
    return sum(int(n) * UNITS[u] for n, u in parts)


def hints(w, uri, rng=None):
    return w.client.request("textDocument/inlayHint",
                            {"textDocument": {"uri": uri}, "range": rng or WHOLE})


def schedule(label):
    """'⟶ 500ms, 1s · worst case 3s' -> ('500ms, 1s', '3s'); worst case None: unbounded."""
    m = re.fullmatch(r"⟶ (.*) · worst case (?:(\S+)|unbounded: no timeout)", label)
    check(m, "a schedule hint: %r" % label)
    return m.group(1), m.group(2)


def key(p):
    return (p["line"], p["character"])


def inside(p, r):
    return key(r["start"]) < key(p) <= key(r["end"])


def shown(text, hs):
    """Each hint as (line, the line's text up to it, label): readable expectations."""
    lines = text.split("\n")
    return [(h["position"]["line"] + 1, lines[h["position"]["line"]][:h["position"]["character"]],
             h["label"]) for h in hs]


@test
def checkout_hints():
    text = read(L.CHECKOUT_PATH)
    with Workspace() as w:
        uri = w.open("checkout.orbit", text)
        got = shown(text, hints(w, uri))
        eq(got, [
            (28, "    }", "⟶ 500ms, 1s, 2s, 4s · worst case 57s500ms"),
            (34, "      retry { attempts: 10, backoff: exponential", "initial_delay: 1s"),
            (34, "      retry { attempts: 10, backoff: exponential", "max_delay: 1m"),
            (34, "      retry { attempts: 10, backoff: exponential }",
             "⟶ 1s, 2s, 4s, 8s, 16s, 32s, 1m, 1m, 1m · worst case unbounded: no timeout"),
            (42, "    retry { attempts: 3, backoff: exponential, initial_delay: 100ms",
             "max_delay: 1m"),
            (42, "    retry { attempts: 3, backoff: exponential, initial_delay: 100ms }",
             "⟶ 100ms, 200ms · worst case 1m30s300ms"),
            (61, "  step pick", "1 attempt"),
        ], "the hints of examples/checkout.orbit")
        hs = hints(w, uri)
        eq([h["kind"] for h in hs], [1, 2, 2, 1, 2, 1, 1], "kinds: Type, Parameter for defaults")
        check(all(h["paddingLeft"] and not h["paddingRight"] for h in hs), "padding", hs)
        eq(hs[0]["tooltip"], {"kind": "plaintext", "value":
           "delays before attempts 2–5: 500ms, 1s, 2s, 4s\nworst case: 5 attempts × 10s + "
           "7s500ms of delays = 57s500ms"}, "the tooltip: the reckoning, in plain text")
        eq(hs[1]["tooltip"]["value"], "initial_delay is not written: its default applies "
           "(1s).\n\nThe delay before the first retry.", "the tooltip of a default")
        eq(w.client.stop(), 0, "exit status")


@test
def defaults_only_where_omitted():
    text = ('workflow w {\n'
            '  step a { worker "x"; retry { attempts: 3 } }\n'
            '  step b { worker "x"; retry {} }\n'
            '  step c { worker "x"; retry { attempts: 4, backoff: exponential, initial_delay: 2m } }\n'
            '  step d { worker "x"; retry { attempts: 2, backoff: fixed, initial_delay: 5s, max_delay: 9s } }\n'
            '  step e { worker "x"; retry { attempts: 1 } }\n'
            '  step f { worker "x"; compensate { worker "y" } }\n'
            '  step g { sleep 1s }\n'
            '  step h { compute 1 }\n'
            '}\n')
    with Workspace() as w:
        uri = w.open("d.orbit", text)
        got = [(line, label) for line, _, label in shown(text, hints(w, uri))]
        eq(got, [
            (2, "backoff: fixed"), (2, "initial_delay: 1s"),
            (2, "⟶ 1s, 1s · worst case unbounded: no timeout"),
            (3, "attempts: 1"), (3, "⟶ 1 attempt · worst case unbounded: no timeout"),
            (4, "max_delay: 2m"), (4, "⟶ 2m, 2m, 2m · worst case unbounded: no timeout"),
            (5, "⟶ 5s · worst case unbounded: no timeout"),
            (6, "⟶ 1 attempt · worst case unbounded: no timeout"),
            (7, "1 attempt"), (7, "1 attempt"),
        ], "defaults where omitted, `1 attempt` on tasks without retry")
        # `retry {}`: after its `{`; the compensate block's before its `{`
        hs = hints(w, uri)
        eq(hs[3]["position"], at(text, "retry {}", delta=7), "in an empty block")
        eq(hs[-1]["position"], at(text, "{ worker \"y\""), "before the compensate block")
        check(hs[-1]["paddingRight"] and not hs[-1]["paddingLeft"], "padded on the right")
        eq(w.client.stop(), 0, "exit status")


@test
def requested_range_is_respected():
    text = read(L.CHECKOUT_PATH)
    with Workspace() as w:
        uri = w.open("checkout.orbit", text)
        every = hints(w, uri)
        for split in range(0, text.count("\n") + 2, 7):
            first = hints(w, uri, {"start": pos(0, 0), "end": pos(split, 0)})
            rest = hints(w, uri, {"start": pos(split, 0), "end": pos(1 << 30, 0)})
            check(all(key(h["position"]) <= (split, 0) for h in first), "within the range")
            check(all(key(h["position"]) >= (split, 0) for h in rest), "within the range")
            both = first + [h for h in rest if h not in first]
            eq(both, every, "the two halves split at line %d" % split)
        eq(hints(w, uri, {"start": pos(60, 0), "end": pos(60, 20)}),
           [h for h in every if h["position"]["line"] == 60], "one line")
        eq(w.client.stop(), 0, "exit status")


@test
def positions_in_utf16_utf8_and_crlf():
    text = ('// é\n'
            'workflow w {\n'
            '  step s { worker "x"; with { note: "é✓𝄞" }; retry { attempts: 2 } }\n'
            '  step t { worker "x" }\n'
            '}\n')
    line = text.split("\n")[2]
    end = line.index("} }") + 1
    for encoding in ("utf-16", "utf-8"):
        for newline in ("\n", "\r\n"):
            caps = {"general": {"positionEncodings": [encoding]}}
            with Workspace(capabilities=caps) as w:
                uri = w.open("u.orbit", text.replace("\n", newline))
                hs = hints(w, uri)
                unit = (lambda s: len(s.encode("utf-16-le")) // 2) if encoding == "utf-16" \
                    else (lambda s: len(s.encode()))
                eq([(h["position"], h["label"]) for h in hs], [
                    (pos(2, unit(line[:line.index("retry {") + 7] + " attempts: 2")),
                     "backoff: fixed"),
                    (pos(2, unit(line[:line.index("retry {") + 7] + " attempts: 2")),
                     "initial_delay: 1s"),
                    (pos(2, unit(line[:end])), "⟶ 1s · worst case unbounded: no timeout"),
                    (pos(3, len("  step t")), "1 attempt")],
                   "%s positions, lines ending %r" % (encoding, newline))
                eq(w.client.stop(), 0, "exit status")


# ---- Against the hover, on every golden and example ---------------------------------------


def sources():
    return sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "**", "*.orbit"), recursive=True) +
                  glob.glob(os.path.join(ROOT, "examples", "*.orbit")))


def steps_of(symbols):
    for s in symbols:
        for c in s.get("children", []):
            if s.get("detail") == "workflow":
                yield c


def compare_step(w, uri, step, hs):
    """The schedules among the hints of a step equal the hover's (its own policy and its
    compensate block's), and its worst case is the hover's."""
    h = hover(w, uri, step["selectionRange"]["start"]) or ""
    mine = [x for x in hs if inside(x["position"], step["range"])]
    delays = sorted(schedule(x["label"])[0] for x in mine if x["label"].startswith("⟶ ")
                    and x["label"] != "⟶ 1 attempt" and not x["label"].startswith("⟶ 1 attempt "))
    eq(delays, sorted(re.findall(r"delays before attempts 2–\d+: (.*)", h)),
       "the schedules of step %s (hover:\n%s)" % (step["name"], h))
    worst = re.search(r"- worst case: (?:.*= )?\*\*(\S+)\*\*|- worst case: (no limit)", h)
    own = [schedule(x["label"])[1] or "no limit" for x in mine if x["label"].startswith("⟶ ")]
    after_name = [x for x in mine if x["position"] == step["selectionRange"]["end"]]
    if worst and own and not after_name:     # a retry block of its own
        check((worst.group(1) or worst.group(2)) in own, "the worst case of step %s: %r in %r"
              % (step["name"], worst.group(0), own))
    if after_name:
        eq([x["label"] for x in after_name], ["1 attempt"], "after the name of " + step["name"])
        check("`attempts`: 1 (default): no retries" in h, "the hover of %s: one attempt"
              % step["name"], h)
    return len(mine)


@test
def every_golden_and_example_agrees_with_the_hover():
    caps = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}
    with Workspace(init=False) as w:
        w.client.initialize(None, caps)
        count = checked = 0
        for path in sources():
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                text = f.read()
            uri = L.file_uri(path)
            w.client.open(uri, text)
            hs = hints(w, uri)
            check(all(x["position"]["line"] <= text.count("\n") + text.count("\r")
                      for x in hs), "within the file", path)
            check([key(x["position"]) for x in hs] == sorted(key(x["position"]) for x in hs),
                  "in order", path)
            symbols = w.client.request("textDocument/documentSymbol",
                                       {"textDocument": {"uri": uri}}) or []
            for step in steps_of(symbols):
                count += compare_step(w, uri, step, hs)
            checked += 1
            w.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        check(count > 100, "hints on the goldens: %d" % count)
        print("  %d files, %d hints compared with the hover" % (checked, count))
        eq(w.client.stop(), 0, "exit status")


# ---- Against orbit-run: the delays it waits, the worst case it takes ----------------------

POLICIES = [
    "attempts: 5, backoff: exponential, initial_delay: 500ms, max_delay: 10s",
    "attempts: 3",
    "attempts: 4, backoff: exponential, initial_delay: 2m",
    "attempts: 7, backoff: exponential, initial_delay: 333ms, max_delay: 1s500ms",
    "attempts: 9, initial_delay: 1h1m1s1ms",
    "attempts: 14, backoff: exponential, initial_delay: 10ms",
    "attempts: 1",
]


def run_history(orbc, workflow, scenario):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    try:
        out = subprocess.run([ORBIT_RUN, orbc, "--workflow", workflow, "--scenario", f.name,
                              "--format", "json"], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def waits(events, step):
    """The time between each failed attempt and the next, and when the step failed."""
    failed = [e["time_ms"] for e in events if e.get("step") == step and
              e.get("event") == "StepAttemptFailed"]
    scheduled = [e["time_ms"] for e in events if e.get("step") == step and
                 e.get("event") == "StepScheduled"]
    end = [e["time_ms"] for e in events if e.get("step") == step and e.get("event") == "StepFailed"]
    return [b - a for a, b in zip(failed, scheduled[1:])], end[0] if end else None


@test
def schedules_are_what_orbit_run_waits():
    text = "".join('workflow w%d {\n  step s { worker "x"; timeout 7s; retry { %s } }\n}\n'
                   % (i, p) for i, p in enumerate(POLICIES))
    with Workspace() as w:
        w.write("r.orbit", text)
        uri = w.open("r.orbit")
        hs = [x for x in hints(w, uri) if x["label"].startswith("⟶ ")]
        eq(len(hs), len(POLICIES), "one schedule per policy")
        orbc = w.path("r.orbc")
        subprocess.run([L.ORBITC, "build", w.path("r.orbit"), "-o", orbc], check=True,
                       capture_output=True)
        for i, (policy, x) in enumerate(zip(POLICIES, hs)):
            delays, worst = schedule(x["label"])
            events = run_history(orbc, "w%d" % i, {"workers": {"x": {
                "pickup_ms": 0, "attempts": [{"never_answers": True}] * 20}}})
            waited, failed_at = waits(events, "s")
            shown_delays = [] if delays == "1 attempt" else delays.split(", ")
            if "… (" in delays:       # "1s, …, … (13 delays in all), 1m": the start and the end
                head, tail = delays.split(", … (")
                count = int(tail.split(" ")[0])
                eq(len(waited), count, "%s: the count of delays" % policy)
                heads = head.split(", ")
                eq([ms(d) for d in heads], waited[:len(heads)], "%s: the first delays" % policy)
                eq(ms(tail.split("), ")[1]), waited[-1], "%s: the last delay" % policy)
            else:
                eq([ms(d) for d in shown_delays], waited, "%s: every delay" % policy)
            eq(ms(worst), failed_at, "%s: the worst case is when orbit-run gives up" % policy)
        eq(w.client.stop(), 0, "exit status")


@test
def checkout_charge_is_what_orbit_run_waits():
    text = read(L.CHECKOUT_PATH)
    with Workspace() as w:
        uri = w.open("checkout.orbit", text)
        label = hints(w, uri)[0]["label"]
        orbc = w.path("checkout.orbc")
        subprocess.run([L.ORBITC, "build", L.CHECKOUT_PATH, "-o", orbc], check=True,
                       capture_output=True)
        events = run_history(orbc, "checkout", {
            "input": {"order_id": "A1", "total": {"amount": 1, "currency": "EUR"}, "items": []},
            "workers": {"payments.charge": {"pickup_ms": 0, "attempts": [{"never_answers": True}] * 5}}})
        waited, failed_at = waits(events, "charge")
        delays, worst = schedule(label)
        eq(delays, "500ms, 1s, 2s, 4s", "the hint of charge")
        eq([ms(d) for d in delays.split(", ")], waited, "what orbit-run waits")
        eq(ms(worst), failed_at, "charge gives up at the worst case")
        eq(w.client.stop(), 0, "exit status")


# ---- Folding ranges and selection ranges ----------------------------------------------------

SMALL = ('// a program\n'                                   # 0
         '// in two lines\n'                                # 1
         '// region steps\n'                                # 2
         'workflow w {\n'                                   # 3
         '  input { a: number }\n'                          # 4
         '  /* a block\n'                                   # 5
         '     comment */\n'                                # 6
         '  step s { worker "x"; with { n: [\n'             # 7
         '      input.a + 1,\n'                             # 8
         '      2] }\n'                                     # 9
         '    retry { attempts: 2 }\n'                      # 10
         '  }\n'                                            # 11
         '}\n'                                              # 12
         '// endregion\n'                                   # 13
         'type T {\n'                                       # 14
         '  x: string }\n')                                 # 15


def folding(w, uri):
    return w.client.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})


def selection(w, uri, positions):
    return w.client.request("textDocument/selectionRange",
                            {"textDocument": {"uri": uri}, "positions": positions})


def chain(sel):
    """A SelectionRange as its ranges, innermost first: (line, character, line, character)."""
    out = []
    while sel:
        r = sel["range"]
        out.append((r["start"]["line"], r["start"]["character"], r["end"]["line"],
                    r["end"]["character"]))
        sel = sel.get("parent")
    return out


@test
def folding_ranges_of_a_small_program():
    with Workspace() as w:
        uri = w.open("s.orbit", SMALL)
        eq(folding(w, uri), [
            {"startLine": 0, "endLine": 1, "kind": "comment"},
            {"startLine": 2, "endLine": 13, "kind": "region"},
            {"startLine": 3, "startCharacter": 12, "endLine": 12, "endCharacter": 0},
            {"startLine": 5, "endLine": 6, "kind": "comment"},
            {"startLine": 7, "startCharacter": 10, "endLine": 11, "endCharacter": 2},
            {"startLine": 7, "startCharacter": 29, "endLine": 9, "endCharacter": 9},
            {"startLine": 7, "startCharacter": 34, "endLine": 9, "endCharacter": 7},
            {"startLine": 14, "startCharacter": 8, "endLine": 15, "endCharacter": 12},
        ], "folding ranges with characters")
        eq(w.client.stop(), 0, "exit status")
    caps = {"textDocument": {"foldingRange": {"lineFoldingOnly": True, "rangeLimit": 5}}}
    with Workspace(capabilities=caps) as w:
        uri = w.open("s.orbit", SMALL.replace("\n", "\r\n"))
        eq(folding(w, uri), [
            {"startLine": 0, "endLine": 1, "kind": "comment"},
            {"startLine": 2, "endLine": 13, "kind": "region"},
            {"startLine": 3, "endLine": 11},         # the `}` of line 12 stays visible
            {"startLine": 5, "endLine": 6, "kind": "comment"},
            {"startLine": 7, "endLine": 10},         # one range per first line, the outer
        ], "whole lines, CRLF, at most rangeLimit ranges")
        eq(w.client.stop(), 0, "exit status")


@test
def selection_ranges_of_a_small_program():
    with Workspace() as w:
        uri = w.open("s.orbit", SMALL)
        got = [chain(x) for x in selection(w, uri, [pos(8, 8), pos(10, 14), pos(5, 6),
                                                    pos(15, 2), pos(99, 0)])]
        workflow = [(7, 2, 11, 3), (3, 11, 12, 1), (3, 0, 12, 1), (0, 0, 16, 0)]
        eq(got[0], [(8, 6, 8, 11), (8, 6, 8, 13), (8, 6, 8, 17), (7, 33, 9, 8),
                    (7, 30, 9, 8), (7, 28, 9, 10), (7, 23, 9, 10), (7, 9, 11, 3)] + workflow,
           "input → input.a → input.a + 1 → the list → its member → the object → `with` → "
           "the step's block → the step → the workflow's block → the workflow → the file")
        eq(got[1], [(10, 12, 10, 20), (10, 12, 10, 23), (10, 10, 10, 25), (10, 4, 10, 25),
                    (7, 9, 11, 3)] + workflow, "a retry setting's name and up")
        eq(got[2], [(5, 2, 6, 15), (3, 11, 12, 1), (3, 0, 12, 1), (0, 0, 16, 0)], "a comment")
        eq(got[3], [(15, 2, 15, 3), (15, 2, 15, 11), (14, 7, 15, 13), (14, 0, 15, 13),
                    (0, 0, 16, 0)], "a field of a type")
        eq(got[4], [(0, 0, 16, 0)], "past the end: the file")
        eq(w.client.stop(), 0, "exit status")


@test
def a_program_configuration():
    config = ("// the program\n"
              "program payments {\n"
              "  lints {\n"
              "    W0007: warn\n"
              "  }\n"
              "}\n")
    with Workspace({"orbit.program": config,
                    "a.orbit": 'workflow w { step s { worker "x" } }\n'}) as w:
        uri = w.open("orbit.program")
        eq(hints(w, uri), [], "no hints in a configuration")
        eq(folding(w, uri), [
            {"startLine": 1, "startCharacter": 18, "endLine": 5, "endCharacter": 0},
            {"startLine": 2, "startCharacter": 9, "endLine": 4, "endCharacter": 2}],
           "its blocks fold")
        eq(chain(selection(w, uri, [pos(3, 5)])[0]),
           [(3, 4, 3, 9), (3, 4, 3, 15), (2, 8, 4, 3), (2, 2, 4, 3), (1, 17, 5, 1),
            (1, 0, 5, 1), (0, 0, 6, 0)], "a selection in it")
        eq(w.client.stop(), 0, "exit status")


def spread(text, per_line=2):
    lines = text.split("\n")
    for n, line in enumerate(lines):
        for k in range(per_line):
            yield pos(n, (len(line) * k) // per_line)
    yield pos(len(lines), 3)


@test
def structure_invariants_on_every_golden():
    for encoding, line_only in (("utf-16", False), ("utf-8", True)):
        caps = {"general": {"positionEncodings": [encoding]},
                "textDocument": {"foldingRange": {"lineFoldingOnly": line_only}}}
        with Workspace(init=False) as w:
            w.client.initialize(None, caps)
            folds = chains = 0
            for path in sources():
                with open(path, encoding="utf-8", errors="replace", newline="") as f:
                    text = f.read()
                last = len(re.split(r"\r\n|\r|\n", text)) - 1
                uri = L.file_uri(path)
                w.client.open(uri, text)
                fs = folding(w, uri)
                starts = [(x["startLine"], -x["endLine"]) for x in fs]
                check(starts == sorted(starts), "folds in order", path)
                for x in fs:
                    check(0 <= x["startLine"] < x["endLine"] <= last, "a fold in the file",
                          path, x)
                    check(x.get("kind") in (None, "comment", "region"), "a kind", path, x)
                    check(("startCharacter" in x) == (not line_only and "kind" not in x),
                          "characters unless lines only", path, x)
                if line_only:
                    check(len({x["startLine"] for x in fs}) == len(fs), "one per line", path)
                folds += len(fs)
                positions = list(spread(text))
                for p, sel in zip(positions, selection(w, uri, positions)):
                    c = chain(sel)
                    check(c[-1][:2] == (0, 0) and c[-1][2] == last, "the file last", path, c)
                    for inner, outer in zip(c, c[1:]):
                        check(outer[:2] <= inner[:2] and inner[2:] <= outer[2:] and
                              inner != outer, "each parent holds its child", path, p, c)
                    check(c[0][:2] <= (p["line"], p["character"]) or c[0] == c[-1],
                          "the innermost range starts at or before the position", path, p, c)
                    chains += 1
                w.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            check(folds > 300 and chains > 10000, "ranges checked: %d folds, %d chains"
                  % (folds, chains))
            print("  %s: %d folding ranges, %d selection chains" % (encoding, folds, chains))
            eq(w.client.stop(), 0, "exit status")


def main():
    L.main(('ORBITC', 'ORBIT_RUN'))


if __name__ == "__main__":
    main()
