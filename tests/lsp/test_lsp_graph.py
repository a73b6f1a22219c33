#!/usr/bin/env python3
"""The worst case of a workflow in `orbitc lsp`'s hover (docs/editors.md, "Hover";
compiler/check/worst_path.h), driven by the scripted client of tests/lsp/test_lsp.py: the
figures and the reasons are W0010's, on the design's checkout example and on small
programs whose arithmetic is worked out below.

    test_lsp_graph.py --orbitc build/cli/orbitc [-k NAME]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_lsp as base  # noqa: E402
from test_lsp import MARKDOWN, Workspace, at, check, eq, hover, read  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import test  # noqa: E402



@test
def hover_on_checkout_shows_its_worst_case():
    # charge 5 × (2m + 10s) + (500ms + 1s + 2s + 4s) = 10m57s500ms; notify 3 × 30s (the
    # default timeout of orbit.http.request) + 100ms + 200ms = 1m30s300ms; pack: its
    # `timeout` 30m (pack_items has no bound); approval 12h; cool_off 10m.
    text = read(base.CHECKOUT_PATH)
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("checkout.orbit", text)
        w.client.wait_diagnostics(uri)
        h = hover(w, uri, at(text, "workflow checkout", delta=10))
        for want in ["**Worst case**",
                     "- the steps, one after another: **12h52m27s800ms** (`charge` 10m57s500ms"
                     " + `notify` 1m30s300ms + `pack` 30m + `approval` 12h + `cool_off` 10m"
                     " = 12h52m27s800ms)",
                     "- fits in the workflow timeout of 1d",
                     "- the workflow at its worst (its timeout, then the compensations of a "
                     "failure): unbounded: the compensate block of step `charge` has no "
                     "`timeout`"]:
            check(want in h, "hover has %r" % want, h)
        h = hover(w, uri, at(text, "workflow pack_items", delta=10))
        check("- the steps: **unbounded**: step `pick` has no `timeout`" in h,
              "the reason of pack_items", h)
        eq(w.client.stop(), 0, "exit status")


@test
def hover_worst_case_against_the_timeout():
    # a: 2 × (1m queue + 5m) + 1s = 12m1s; b: child c, whose steps take 20m + 20m = 40m,
    # cut by its timeout 10m + the 20m attempt that may still run = 30m; sleep 1h: the
    # steps take 1h42m1s > 1h. The workflow itself: its timeout 1h + the longest attempt
    # that may still run (a's 5m) = 1h5m, and no compensation.
    text = ('worker "x" {}\n'
            'workflow w {\n  timeout 1h\n'
            '  step a { worker "x"; timeout 5m; queue_timeout 1m; retry { attempts: 2 } }\n'
            '  step b { workflow c }\n'
            '  step nap { sleep 1h }\n}\n'
            'workflow c {\n  timeout 10m\n  step t { worker "x"; timeout 20m }\n'
            '  step u { worker "x"; timeout 20m }\n}\n')
    with Workspace(capabilities=MARKDOWN) as w:
        uri = w.open("w.orbit", text)
        diags = w.client.wait_diagnostics(uri)
        h = hover(w, uri, at(text, "workflow w", delta=9))
        for want in ["- the steps, one after another: **1h42m1s** (`a` 12m1s + `b` 30m + "
                     "`nap` 1h = 1h42m1s)",
                     "- ⚠ longer than the workflow timeout of 1h (W0010)",
                     "(its timeout, then the compensations of a failure): **1h5m**"]:
            check(want in h, "hover has %r" % want, h)
        w0010 = [d for d in diags if d["code"] == "W0010" and "workflow `w`" in d["message"]]
        check(len(w0010) == 1 and "`a` 12m1s + `b` 30m + `nap` 1h = 1h42m1s"
              in w0010[0]["message"], "the same figure as W0010", w0010)
        h = hover(w, uri, at(text, "workflow c", delta=9))
        check("- ⚠ longer than the workflow timeout of 10m (W0010)" in h, "the child", h)
        eq(w.client.stop(), 0, "exit status")


if __name__ == "__main__":
    base.main()
