#!/usr/bin/env python3
"""Generates pairs of Orbit programs (OLD, NEW) and scenarios of OLD, for the property test
that `orbitc compat` is sound against `orbit-run replay` (tests/compat/test_compat_sound.py,
docs/compat-soundness.md).

    gen_pairs.py --seed 7 --out DIR [--mutations 3]

writes DIR/old/prog.orbit, DIR/new-K/prog.orbit (K = 1..mutations, each with the changes
it made in DIR/new-K/changes.txt) and DIR/scenario-J.json. Both versions keep the one file
name, as a program deployed again does (the bytecode names its file: the messages of
expression errors do). The output is a pure function of the seed.

A program is a model (workers with contracts, a top-level workflow `main` of 2 to 6 steps
of every kind, a child workflow or two) rendered as Orbit source. Every expression is
made from the values in scope with their types, so the checker accepts every program:
after a mutation, `repair` rewrites the expressions a change left ill-typed or pointing at
a step that no longer runs before them, and fills the fields a contract now requires.
"""
import argparse
import copy
import json
import os
import random
import sys

TOP = "main"
SIGNALS = ["approved", "confirmed", "settled", "docs_uploaded", "reviewed"]
ERROR_CODES = ["CARD_DECLINED", "OUT_OF_STOCK", "NOT_FOUND"]
DELAYS = [100, 250, 500, 1000, 2000]
MAX_DELAYS = [4000, 10000, 30000]
TIMEOUTS = [2000, 5000, 10000, 30000]
QUEUE_TIMEOUTS = [60000, 120000]
SLEEPS = [1000, 30000, 60000, 600000]
AWAIT_TIMEOUTS = [60000, 3600000, 7200000]
CHILD_TIMEOUTS = [600000, 1800000]
VERBS = ["charge", "reserve", "score", "pack", "ship", "label", "notify", "audit", "verify",
         "settle", "sync", "index", "enrich", "render", "publish"]
DOMAINS = ["pay", "stock", "risk", "mail", "ledger", "crm"]
# field -> its type in a contract; a contract draws from it (the same name keeps its type
# until a mutation retypes it)
FIELD_POOL = {"order_id": "string", "sku": "string", "ref": "string", "note": "string",
              "qty": "int", "score": "int", "ok": "bool"}
RETYPE = {"string": "int", "int": "string", "bool": "string"}
TOP_INPUT = [("order_id", "string", False), ("items", "[string]", False),
             ("qty", "int", False), ("express", "bool", True)]


# ---------------------------------------------------------------- the model


def field(name, typ, optional=False):
    return {"name": name, "type": typ, "optional": optional}


def new_retry(rng, attempts=None):
    attempts = attempts or rng.choice([1, 2, 2, 3, 3, 4, 5])
    backoff = rng.choice(["fixed", "exponential"])
    r = {"attempts": attempts, "backoff": backoff,
         "initial_delay": rng.choice(DELAYS) if rng.random() < 0.8 else None,
         "max_delay": rng.choice(MAX_DELAYS) if backoff == "exponential" and rng.random() < 0.5 else None,
         "non_retryable": [rng.choice(ERROR_CODES)] if attempts > 1 and rng.random() < 0.4 else []}
    return r


class Gen:
    """The generator of one seed: programs, mutations, scenarios."""

    def __init__(self, seed):
        self.rng = random.Random("orbit-compat-pairs-%s" % seed)
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return "%s%d" % (stem, self.counter)

    # -- workers and contracts

    def contract(self, lo, hi):
        names = self.rng.sample(sorted(FIELD_POOL), self.rng.randint(lo, hi))
        return [field(n, FIELD_POOL[n], self.rng.random() < 0.15) for n in sorted(names)]

    def new_worker(self, prog, undo=False):
        while True:
            name = "%s.%s" % (self.rng.choice(DOMAINS), self.rng.choice(VERBS))
            if undo:
                name += "_undo"
            if name not in prog["workers"]:
                break
        out = self.contract(1, 2) if not undo else []
        if not undo and not any(not f["optional"] for f in out):
            out[0]["optional"] = False
        prog["workers"][name] = {"input": self.contract(1, 3), "output": out}
        return name

    # -- steps

    def new_step(self, prog, wf, kinds=None):
        rng = self.rng
        kind = rng.choice(kinds or ["task", "task", "task", "http", "sleep", "await",
                                    "child", "compute"])
        if kind == "child" and (wf["name"] != TOP or not self.child_names(prog)):
            kind = "task"
        s = {"name": self.fresh(rng.choice(VERBS) + "_"), "kind": kind, "with": None,
             "when": None, "for": None, "retry": None, "timeout": None,
             "queue_timeout": None, "idem": None, "compensate": None}
        if kind in ("task", "http"):
            if kind == "task":
                workers = [w for w in prog["workers"] if not w.endswith("_undo")]
                s["worker"] = (rng.choice(workers) if workers and rng.random() < 0.4
                               else self.new_worker(prog))
                s["with"] = None   # made by repair from the contract
            else:
                s["with"] = [("url", ("str", "https://hooks.example/" + s["name"])),
                             ("method", ("str", "POST"))]
            if rng.random() < 0.85:
                s["retry"] = new_retry(rng)
            if rng.random() < 0.5 or kind == "http":
                s["timeout"] = rng.choice(TIMEOUTS)
            if kind == "task" and rng.random() < 0.2:
                s["queue_timeout"] = rng.choice(QUEUE_TIMEOUTS)
            if rng.random() < 0.3:
                s["idem"] = ("concat", ("str", s["name"] + "-"), ("input", "order_id"))
            if kind == "task" and rng.random() < 0.4:
                undo = self.new_worker(prog, undo=True)
                s["compensate"] = {"worker": undo, "with": None,
                                   "retry": new_retry(rng) if rng.random() < 0.6 else None,
                                   "timeout": rng.choice(TIMEOUTS) if rng.random() < 0.3 else None}
            if wf["name"] == TOP and rng.random() < 0.2 and s["compensate"] is None:
                s["for"] = ("item", ("input", "items"))
        elif kind == "sleep":
            s["sleep"] = rng.choice(SLEEPS)
        elif kind == "await":
            s["signal"] = rng.choice(SIGNALS)
            s["timeout"] = rng.choice(AWAIT_TIMEOUTS) if rng.random() < 0.7 else None
        elif kind == "child":
            s["workflow"] = rng.choice(self.child_names(prog))
            if rng.random() < 0.5:
                s["for"] = ("item", ("input", "items"))
            if rng.random() < 0.5:
                s["timeout"] = rng.choice(CHILD_TIMEOUTS)
        elif kind == "compute":
            s["compute"] = None   # repair makes it
            s["compute_type"] = rng.choice(["int", "string"])
            if wf["name"] == TOP and rng.random() < 0.2:
                s["for"] = ("item", ("input", "items"))
        if kind != "http" and wf["name"] == TOP and rng.random() < 0.15:
            s["when"] = None
            s["has_when"] = True
        return s

    def child_names(self, prog):
        return [w["name"] for w in prog["workflows"] if w["name"] != TOP]

    def new_program(self):
        rng = self.rng
        prog = {"workers": {}, "workflows": [], "comments": rng.random() < 0.3}
        for _ in range(rng.randint(1, 2)):
            name = self.fresh("child_")
            wf = {"name": name, "input": [field("sku", "string")], "output": None,
                  "timeout": None, "steps": [], "ret": None}
            prog["workflows"].append(wf)
            for _ in range(rng.randint(1, 2)):
                wf["steps"].append(self.new_step(prog, wf, ["task", "task", "sleep"]))
        top = {"name": TOP, "input": [field(*f) for f in TOP_INPUT],
               "output": [field("ref", "string")] if rng.random() < 0.4 else None,
               "timeout": 30 * 86400000 if rng.random() < 0.3 else None, "steps": [],
               "ret": None}
        prog["workflows"].insert(0, top)
        for _ in range(rng.randint(2, 6)):
            top["steps"].append(self.new_step(prog, top))
        # every child workflow is started by a step of main (a change to one that nothing
        # starts would change no history), or is not declared
        for child in prog["workflows"][1:]:
            if any(s["kind"] == "child" and s["workflow"] == child["name"] for s in top["steps"]):
                continue
            if len(top["steps"]) < 6 and rng.random() < 0.6:
                s = self.new_step(prog, top, ["child"])
                s["workflow"] = child["name"]
                top["steps"].insert(rng.randint(0, len(top["steps"])), s)
            else:
                prog["workflows"].remove(child)
                for s in top["steps"]:
                    if s["kind"] == "child" and s["workflow"] == child["name"]:
                        s["workflow"] = None   # another child, chosen by repair
        repair(prog, rng)
        return prog

    # -- mutations: each changes the model in place and says what it did, or returns
    # None when it does not apply

    def mutate(self, prog, kind):
        return getattr(self, "m_" + kind)(prog)

    def pick_step(self, prog, pred=lambda s: True, top_only=False):
        cands = [(wf, i) for wf in prog["workflows"] if not top_only or wf["name"] == TOP
                 for i, s in enumerate(wf["steps"]) if pred(s)]
        return self.rng.choice(cands) if cands else (None, None)

    def m_none(self, prog):
        return "no change"

    def m_format(self, prog):
        prog["layout"] = self.rng.choice(["wide", "compact"])
        prog["comments"] = not prog.get("comments")
        return "format and comments only (%s)" % prog["layout"]

    def m_remove_step(self, prog):
        wf, i = self.pick_step(prog)
        if wf is None or len(wf["steps"]) < 2:
            return None
        s = wf["steps"].pop(i)
        return "removed step %s/%s" % (wf["name"], s["name"])

    def m_reorder(self, prog):
        wf = self.rng.choice([w for w in prog["workflows"]])
        if len(wf["steps"]) < 2:
            return None
        i, j = sorted(self.rng.sample(range(len(wf["steps"])), 2))
        wf["steps"][i], wf["steps"][j] = wf["steps"][j], wf["steps"][i]
        return "swapped %s/%s and %s" % (wf["name"], wf["steps"][j]["name"], wf["steps"][i]["name"])

    def m_insert_step(self, prog):
        wf = self.rng.choice(prog["workflows"])
        kinds = None if wf["name"] == TOP else ["task", "sleep"]
        s = self.new_step(prog, wf, kinds)
        i = self.rng.randint(0, len(wf["steps"]))
        wf["steps"].insert(i, s)
        return "inserted %s step %s/%s at %d" % (s["kind"], wf["name"], s["name"], i)

    def m_change_task(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "task")
        if wf is None:
            return None
        s = wf["steps"][i]
        old = s["worker"]
        if self.rng.random() < 0.5:   # a worker with the same contract under another name
            name = self.new_worker(prog)
            prog["workers"][name] = copy.deepcopy(prog["workers"][old])
        else:
            name = self.new_worker(prog)
        s["worker"] = name
        return "task of %s/%s: %s -> %s" % (wf["name"], s["name"], old, name)

    def m_change_with(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] in ("task", "child") and s["with"])
        if wf is None:
            return None
        s = wf["steps"][i]
        k = self.rng.randrange(len(s["with"]))
        name, expr = s["with"][k]
        env = scope(prog, wf, i, var=s["for"][0] if s["for"] else None)
        typ = type_of(expr, env)
        new = make_expr(typ, env, self.rng) if typ else None
        if new == expr and typ == "string":
            new = ("concat", ("str", "v2-"), expr)
        if new is None or new == expr:
            return None
        s["with"][k] = (name, new)
        return "with %s of %s/%s: %s -> %s" % (name, wf["name"], s["name"], render_expr(expr),
                                                render_expr(new))

    def _retry_step(self, prog, pred=lambda s: True):
        return self.pick_step(prog, lambda s: s["kind"] in ("task", "http") and pred(s))

    def m_attempts_up(self, prog):
        wf, i = self._retry_step(prog)
        if wf is None:
            return None
        s = wf["steps"][i]
        if s["retry"] is None:
            s["retry"] = new_retry(self.rng, 1)
        before = s["retry"]["attempts"]
        s["retry"]["attempts"] = before + self.rng.randint(1, 3)
        return "attempts of %s/%s: %d -> %d" % (wf["name"], s["name"], before, s["retry"]["attempts"])

    def m_attempts_down(self, prog):
        wf, i = self._retry_step(prog, lambda s: s["retry"] and s["retry"]["attempts"] > 1)
        if wf is None:
            return None
        s = wf["steps"][i]
        before = s["retry"]["attempts"]
        s["retry"]["attempts"] = self.rng.randint(1, before - 1)
        if s["retry"]["attempts"] == 1:
            s["retry"]["non_retryable"] = []
        return "attempts of %s/%s: %d -> %d" % (wf["name"], s["name"], before, s["retry"]["attempts"])

    def m_delay(self, prog):
        wf, i = self._retry_step(prog, lambda s: s["retry"] and s["retry"]["attempts"] > 1)
        if wf is None:
            return None
        r = wf["steps"][i]["retry"]
        before = r["initial_delay"]
        r["initial_delay"] = self.rng.choice([d for d in DELAYS if d != before])
        if r["max_delay"] is not None and r["max_delay"] < r["initial_delay"]:
            r["max_delay"] = None
        return "initial_delay of %s/%s: %s -> %s" % (wf["name"], wf["steps"][i]["name"], before,
                                                     r["initial_delay"])

    def m_backoff(self, prog):
        wf, i = self._retry_step(prog, lambda s: s["retry"] and s["retry"]["attempts"] > 2)
        if wf is None:
            return None
        r = wf["steps"][i]["retry"]
        r["backoff"] = "fixed" if r["backoff"] == "exponential" else "exponential"
        r["max_delay"] = None
        return "backoff of %s/%s -> %s" % (wf["name"], wf["steps"][i]["name"], r["backoff"])

    def m_non_retryable(self, prog):
        wf, i = self._retry_step(prog, lambda s: s["retry"] and s["retry"]["attempts"] > 1)
        if wf is None:
            return None
        r = wf["steps"][i]["retry"]
        before = list(r["non_retryable"])
        r["non_retryable"] = [] if before else [self.rng.choice(ERROR_CODES)]
        return "non_retryable of %s/%s: %s -> %s" % (wf["name"], wf["steps"][i]["name"], before,
                                                     r["non_retryable"])

    def m_timeout(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] in ("task", "http", "await", "child"))
        if wf is None:
            return None
        s = wf["steps"][i]
        pool = {"await": AWAIT_TIMEOUTS, "child": CHILD_TIMEOUTS}.get(s["kind"], TIMEOUTS)
        before = s["timeout"]
        choices = [t for t in pool if t != before] + ([None] if before and s["kind"] != "http" else [])
        s["timeout"] = self.rng.choice(choices)
        return "timeout of %s/%s: %s -> %s" % (wf["name"], s["name"], before, s["timeout"])

    def m_queue_timeout(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "task")
        if wf is None:
            return None
        s = wf["steps"][i]
        before = s["queue_timeout"]
        s["queue_timeout"] = self.rng.choice([t for t in QUEUE_TIMEOUTS + [None] if t != before])
        return "queue_timeout of %s/%s: %s -> %s" % (wf["name"], s["name"], before, s["queue_timeout"])

    def m_sleep(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "sleep")
        if wf is None:
            return None
        s = wf["steps"][i]
        before = s["sleep"]
        s["sleep"] = self.rng.choice([d for d in SLEEPS if d != before])
        return "sleep of %s/%s: %d -> %d" % (wf["name"], s["name"], before, s["sleep"])

    def m_signal(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "await")
        if wf is None:
            return None
        s = wf["steps"][i]
        before = s["signal"]
        s["signal"] = self.rng.choice([x for x in SIGNALS if x != before])
        return "signal of %s/%s: %s -> %s" % (wf["name"], s["name"], before, s["signal"])

    def m_when(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] != "http", top_only=True)
        if wf is None:
            return None
        s = wf["steps"][i]
        s["has_when"] = not s.get("has_when")
        s["when"] = None
        return "%s `when` on %s/%s" % ("added" if s["has_when"] else "removed", wf["name"], s["name"])

    def m_for(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] in ("task", "child", "compute")
                               and not s["compensate"], top_only=True)
        if wf is None:
            return None
        s = wf["steps"][i]
        s["for"] = None if s["for"] else ("item", ("input", "items"))
        return "%s `for` on %s/%s" % ("added" if s["for"] else "removed", wf["name"], s["name"])

    def m_idempotency_key(self, prog):
        wf, i = self._retry_step(prog)
        if wf is None:
            return None
        s = wf["steps"][i]
        before = s["idem"]
        s["idem"] = None if before else ("concat", ("str", "k-"), ("input", "order_id"))
        return "idempotency_key of %s/%s changed" % (wf["name"], s["name"])

    def _contract_of(self, prog):
        """A contract to change: (what, list of fields)."""
        choices = []
        for name, w in sorted(prog["workers"].items()):
            choices.append(("input of worker %s" % name, w["input"]))
            if not name.endswith("_undo"):
                choices.append(("output of worker %s" % name, w["output"]))
        for wf in prog["workflows"]:
            choices.append(("input of workflow %s" % wf["name"], wf["input"]))
            if wf["output"] is not None:
                choices.append(("output of workflow %s" % wf["name"], wf["output"]))
        return self.rng.choice(choices)

    def m_field_added(self, prog):
        what, fields = self._contract_of(prog)
        free = [n for n in sorted(FIELD_POOL) if n not in {f["name"] for f in fields}]
        if not free:
            return None
        f = field(self.rng.choice(free), None, self.rng.random() < 0.5)
        f["type"] = FIELD_POOL[f["name"]]
        fields.append(f)
        fields.sort(key=lambda f: f["name"])
        return "%s: field %s%s added" % (what, f["name"], "?" if f["optional"] else "")

    def m_field_removed(self, prog):
        what, fields = self._contract_of(prog)
        if len(fields) < 2:
            return None
        f = fields.pop(self.rng.randrange(len(fields)))
        return "%s: field %s removed" % (what, f["name"])

    def m_field_retyped(self, prog):
        what, fields = self._contract_of(prog)
        cands = [f for f in fields if f["type"] in RETYPE]
        if not cands:
            return None
        f = self.rng.choice(cands)
        before = f["type"]
        f["type"] = RETYPE[before]
        return "%s: field %s %s -> %s" % (what, f["name"], before, f["type"])

    def m_compensation(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "task" and not s["for"])
        if wf is None:
            return None
        s = wf["steps"][i]
        c = s["compensate"]
        choice = self.rng.choice(["remove", "worker", "retry"]) if c else "add"
        if choice == "remove":
            s["compensate"] = None
        elif choice == "add":
            s["compensate"] = {"worker": self.new_worker(prog, undo=True), "with": None,
                               "retry": None, "timeout": None}
        elif choice == "worker":
            c["worker"] = self.new_worker(prog, undo=True)
        else:
            before = c["retry"]["attempts"] if c["retry"] else 1
            c["retry"] = new_retry(self.rng, self.rng.choice([a for a in (1, 2, 3, 5) if a != before]))
        return "compensation of %s/%s: %s" % (wf["name"], s["name"], choice)

    def m_workflow_renamed(self, prog):
        wf = self.rng.choice(prog["workflows"])
        old = wf["name"]
        wf["name"] = self.fresh("renamed_") if old != TOP else "main_v2"
        for w in prog["workflows"]:
            for s in w["steps"]:
                if s["kind"] == "child" and s["workflow"] == old:
                    s["workflow"] = wf["name"]
        return "workflow %s renamed %s" % (old, wf["name"])

    def m_workflow_removed(self, prog):
        children = [w for w in prog["workflows"] if w["name"] != TOP]
        if not children:
            return None
        wf = self.rng.choice(children)
        prog["workflows"].remove(wf)
        for w in prog["workflows"]:   # the steps that started it now run another task
            for s in w["steps"]:
                if s["kind"] == "child" and s["workflow"] == wf["name"]:
                    others = self.child_names(prog)
                    if others:
                        s["workflow"] = self.rng.choice(others)
                    else:
                        s.update(kind="task", worker=self.new_worker(prog), timeout=None,
                                 **{"with": None})
        return "workflow %s removed" % wf["name"]

    def m_explicit_defaults(self, prog):
        """The same policies written out: `retry { attempts: 1, backoff: fixed }` where there
        was none, `initial_delay: 1s` where it was left out (a change of text only)."""
        wf, i = self._retry_step(prog, lambda s: s["retry"] is None or s["retry"]["initial_delay"] is None)
        if wf is None:
            return None
        s = wf["steps"][i]
        if s["retry"] is None:
            s["retry"] = {"attempts": 1, "backoff": "fixed", "initial_delay": None,
                          "max_delay": None, "non_retryable": []}
            return "retry { attempts: 1, backoff: fixed } written on %s/%s" % (wf["name"], s["name"])
        s["retry"]["initial_delay"] = 1000
        if s["retry"]["max_delay"] is not None and s["retry"]["max_delay"] < 1000:
            s["retry"]["max_delay"] = None
        return "initial_delay: 1s written on %s/%s" % (wf["name"], s["name"])

    def m_http_url(self, prog):
        wf, i = self.pick_step(prog, lambda s: s["kind"] == "http")
        if wf is None:
            return None
        s = wf["steps"][i]
        s["with"] = [("url", ("str", "https://hooks.example/v2/" + s["name"]))] + s["with"][1:]
        return "url of %s/%s changed" % (wf["name"], s["name"])

    def m_workflow_timeout(self, prog):
        top = prog["workflows"][0]
        before = top["timeout"]
        top["timeout"] = None if before else 30 * 86400000
        return "workflow timeout of main: %s -> %s" % (before, top["timeout"])

    def new_version(self, old, n_changes):
        """NEW from OLD: n_changes mutations drawn from MUTATIONS (0: unchanged)."""
        prog = copy.deepcopy(old)
        said = []
        if n_changes == 0:
            return prog, ["no change"]
        tries = 0
        while len(said) < n_changes and tries < 50:
            tries += 1
            kind = self.rng.choice(MUTATIONS)
            what = self.mutate(prog, kind)
            if what:
                repair(prog, self.rng)
                said.append("%s: %s" % (kind, what))
        return prog, said

    # -- scenarios

    def scenarios(self, prog, count):
        return [self.scenario(prog, j) for j in range(count)]

    def scenario(self, prog, j):
        """Scenario j of OLD: 0 every answer a success and every signal in time, 1 failures
        then success, 2 a final failure (compensations), 3 lost workers, silence and late
        signals; then random mixes."""
        rng = self.rng
        top = prog["workflows"][0]
        items = ["s-1", "s-2"] if j % 2 == 0 else ["s-1"]
        inp = {"order_id": "A%d" % j, "items": items, "qty": 2}
        if j != 1:
            inp["express"] = j % 3 == 0
        for f in top["input"]:   # fields a mutation of OLD's contract added
            if f["name"] not in inp and not f["optional"]:
                inp[f["name"]] = sample_value(f["type"], j)
        sc = {"workflow": TOP, "input": inp, "steps": {}, "signals": [], "max_events": 600}
        mode = j if j < 4 else rng.randrange(4)
        tasks = [(wf, s) for wf in prog["workflows"] for s in wf["steps"]
                 if s["kind"] in ("task", "http")]
        failing = None
        if tasks and mode == 2:   # a step after a compensated one, where there is one
            steps = top["steps"]
            comp = [i for i, s in enumerate(steps) if s["compensate"]]
            late = [(top, s) for s in steps[comp[0] + 1:] if s["kind"] in ("task", "http")] if comp else []
            failing = rng.choice(late or tasks)
        for wf, s in tasks:
            key = s["name"] if wf["name"] == TOP else "%s.%s" % (wf["name"], s["name"])
            attempts = s["retry"]["attempts"] if s["retry"] else 1
            outs = []
            if mode == 1 and attempts > 1:
                for k in range(rng.randint(1, attempts - 1)):
                    outs.append(self.failure(s, rng))
            if mode == 3 and s["kind"] == "task" and rng.random() < 0.6:
                outs.append({"lost_after_ms": rng.choice([5, 50])})
                if s["timeout"] and attempts > 1 and rng.random() < 0.5:
                    outs.append({"never_answers": True})
            if failing is not None and (wf, s) == failing:
                outs = [self.failure(s, rng, retryable=True) for _ in range(attempts)]
            else:
                outs.append(self.success(prog, s, rng))
            entry = {"attempts": outs}
            if s["kind"] == "task" and rng.random() < 0.3:
                entry["pickup_ms"] = rng.choice([1, 20])
            if s["compensate"]:
                c_attempts = s["compensate"]["retry"]["attempts"] if s["compensate"]["retry"] else 1
                c_outs = [{"after_ms": 7, "fail": {"code": "LOCKED", "message": "busy"}}
                          for _ in range(rng.randint(0, c_attempts - 1))]
                c_outs.append({"after_ms": 9, "succeed": {}})
                entry["compensate"] = {"attempts": c_outs}
            sc["steps"][key] = entry
        awaited = sorted({s["signal"] for wf in prog["workflows"] for s in wf["steps"]
                          if s["kind"] == "await"})
        for sig in awaited:
            if mode == 3 and rng.random() < 0.5:
                continue   # never comes: the await times out (or the run blocks)
            at = rng.choice([500, 5000, 90000, 4000000] if mode == 3 else [300, 2500, 40000])
            sc["signals"].append({"name": sig, "at_ms": at, "payload": {"by": "ann"}})
        if not sc["signals"]:
            del sc["signals"]
        return sc

    def failure(self, s, rng, retryable=None):
        if s["kind"] == "http":
            return {"after_ms": rng.choice([3, 40]), "status": 503}
        r = s["retry"]
        if retryable is None and r and r["non_retryable"] and rng.random() < 0.3:
            return {"after_ms": 15, "fail": {"code": r["non_retryable"][0], "message": "no"}}
        if s["timeout"] and rng.random() < 0.3:
            return {"never_answers": True}
        return {"after_ms": rng.choice([5, 60, 120]),
                "fail": {"code": "GATEWAY_DOWN", "message": "502 from gateway", "retryable": True}}

    def success(self, prog, s, rng):
        if s["kind"] == "http":
            return {"after_ms": 12, "status": 200, "body": {"ok": True}}
        out = {}
        for f in prog["workers"][s["worker"]]["output"]:
            if not f["optional"] or rng.random() < 0.5:
                out[f["name"]] = sample_value(f["type"], self.counter)
                self.counter += 1
        return {"after_ms": rng.choice([10, 30, 80]), "succeed": out}


MUTATIONS = ["none", "format", "remove_step", "reorder", "insert_step", "insert_step",
             "change_task", "change_with", "attempts_up", "attempts_down", "delay", "backoff",
             "non_retryable", "timeout", "queue_timeout", "sleep", "signal", "when", "for",
             "idempotency_key", "field_added", "field_removed", "field_retyped",
             "compensation", "workflow_renamed", "workflow_removed", "workflow_timeout",
             "explicit_defaults", "http_url"]


def sample_value(typ, k):
    return {"string": "v%d" % k, "int": k % 7 + 1, "bool": k % 2 == 0,
            "[string]": ["v%d" % k]}[typ]


# ---------------------------------------------------------------- types and repair


def step_value(wf_steps, upto, prog):
    """name -> the type of each step value usable by a step at index `upto`: a record of
    fields (dict) for a task, a type name for a compute. Steps with `when` or `for` are
    left out (their values are optional or lists)."""
    env = {}
    for s in wf_steps[:upto]:
        if s.get("has_when") or s["for"]:
            continue
        if s["kind"] == "task" and s["worker"] in prog["workers"]:
            env[s["name"]] = {f["name"]: f["type"] for f in prog["workers"][s["worker"]]["output"]
                              if not f["optional"]}
        elif s["kind"] == "compute":
            env[s["name"]] = s["compute_type"]
    return env


def type_of(e, env):
    """The type of expression `e` in env (see `scope`), or None when ill-typed."""
    op = e[0]
    if op == "str":
        return "string"
    if op == "int":
        return "int"
    if op == "input":
        return env["input"].get(e[1])
    if op == "var":
        return env.get("var:" + e[1])
    if op == "step":
        v = env["steps"].get(e[1])
        return v.get(e[2]) if isinstance(v, dict) else None
    if op == "val":
        v = env["steps"].get(e[1])
        return v if isinstance(v, str) else None
    if op == "concat":
        return "string" if type_of(e[1], env) == "string" and type_of(e[2], env) == "string" else None
    if op in ("add", "mul"):
        return "int" if type_of(e[1], env) == "int" and type_of(e[2], env) == "int" else None
    if op == "len":
        t = type_of(e[1], env)
        return "int" if t and t.startswith("[") else None
    if op == "gt":
        return "bool" if type_of(e[1], env) == "int" and type_of(e[2], env) == "int" else None
    if op == "flag":
        return "bool" if env["input_opt"].get(e[1]) == "bool" else None
    if op == "bool":
        return "bool"
    return None


def expr_is_string(e):
    return e[0] in ("str", "concat", "input", "step", "var")


def scope(prog, wf, i, own=None, var=None):
    env = {"input": {f["name"]: f["type"] for f in wf["input"] if not f["optional"]},
           "input_opt": {f["name"]: f["type"] for f in wf["input"] if f["optional"]},
           "steps": step_value(wf["steps"], i, prog)}
    if own is not None:   # a compensate block sees its own step's output
        env["steps"][own["name"]] = {f["name"]: f["type"]
                                     for f in prog["workers"][own["worker"]]["output"]
                                     if not f["optional"]}
    if var:
        env["var:" + var] = "string"
    return env


def int_leaves(env):
    out = [("input", f) for f, t in sorted(env["input"].items()) if t == "int"]
    for name, v in sorted(env["steps"].items()):
        if isinstance(v, dict):
            out += [("step", name, f) for f, t in sorted(v.items()) if t == "int"]
        elif v == "int":
            out.append(("val", name))
    return out


def make_expr(typ, env, rng):
    """A random expression of type `typ` from what env has in scope."""
    leaves = []
    for f, t in sorted(env["input"].items()):
        if t == typ:
            leaves.append(("input", f))
    for name, v in sorted(env["steps"].items()):
        if isinstance(v, dict):
            leaves += [("step", name, f) for f, t in sorted(v.items()) if t == typ]
        elif v == typ:
            leaves.append(("val", name))
    for k, t in sorted(env.items()):
        if k.startswith("var:") and t == typ:
            leaves.append(("var", k[4:]))
    if typ == "string":
        leaves += [("str", rng.choice(["x", "eu", "gold"]))]
        e = rng.choice(leaves)
        return ("concat", ("str", "p-"), e) if rng.random() < 0.3 and e[0] != "str" else e
    if typ == "int":
        lists = [("input", f) for f, t in sorted(env["input"].items()) if t.startswith("[")]
        leaves += [("int", rng.randint(1, 9))] + [("len", x) for x in lists]
        e = rng.choice(leaves)
        return ("add", e, ("int", rng.randint(1, 5))) if rng.random() < 0.3 else e
    if typ == "bool":
        opts = [("bool", rng.random() < 0.5)] + leaves
        opts += [("flag", f) for f, t in sorted(env["input_opt"].items()) if t == "bool"]
        opts += [("gt", x, ("int", 1)) for x in int_leaves(env)]
        return rng.choice(opts)
    if typ == "[string]":
        lists = [("input", f) for f, t in sorted(env["input"].items()) if t == "[string]"]
        return rng.choice(lists) if lists else None
    raise ValueError(typ)


def fix_with(pairs, contract, env, rng):
    """`with` fields for `contract`: kept where still well-typed, made where required and
    missing or broken, dropped where the contract has no such field. `pairs` None: a new
    `with`, which gives some optional fields a value too."""
    by = {f["name"]: f for f in contract}
    out = []
    have = {}
    fresh = pairs is None
    for name, e in pairs or []:
        if name in by and type_of(e, env) == by[name]["type"]:
            have[name] = e
    for f in contract:
        if f["name"] in have:
            out.append((f["name"], have[f["name"]]))
        elif not f["optional"] or (fresh and rng.random() < 0.3):
            e = make_expr(f["type"], env, rng)
            if e is not None:
                out.append((f["name"], e))
    return out


def repair(prog, rng):
    """Makes every expression of the program well-typed in its scope (see module doc)."""
    names = {w["name"] for w in prog["workflows"]}
    for wf in prog["workflows"]:
        for i, s in enumerate(wf["steps"]):
            var = s["for"][0] if s["for"] else None
            env = scope(prog, wf, i, var=var)
            if s["for"] and type_of(s["for"][1], env) != "[string]":
                lst = make_expr("[string]", env, rng)
                s["for"] = (s["for"][0], lst) if lst else None
                if lst is None:
                    env = scope(prog, wf, i)
            wenv = scope(prog, wf, i)   # `when` is evaluated before `for`
            if s.get("has_when") and (s["when"] is None or type_of(s["when"], wenv) != "bool"):
                s["when"] = make_expr("bool", wenv, rng)
            if not s.get("has_when"):
                s["when"] = None
            if s["idem"] is not None and type_of(s["idem"], env) != "string":
                s["idem"] = make_expr("string", env, rng)
            if s["kind"] == "task":
                if s["worker"] not in prog["workers"]:
                    s["worker"] = sorted(w for w in prog["workers"] if not w.endswith("_undo"))[0]
                s["with"] = fix_with(s["with"], prog["workers"][s["worker"]]["input"], env, rng)
                c = s["compensate"]
                if c is not None:
                    if s["for"] or s.get("has_when"):
                        s["compensate"] = None
                    else:
                        cenv = scope(prog, wf, i, own=s)
                        c["with"] = fix_with(c["with"], prog["workers"][c["worker"]]["input"], cenv, rng)
            elif s["kind"] == "child":
                if s["workflow"] not in names or s["workflow"] == wf["name"]:
                    s["workflow"] = sorted(n for n in names if n != TOP and n != wf["name"])[0]
                child = next(w for w in prog["workflows"] if w["name"] == s["workflow"])
                s["with"] = fix_with(s["with"], child["input"], env, rng)
            elif s["kind"] == "compute":
                if s["compute"] is None or type_of(s["compute"], env) != s["compute_type"]:
                    s["compute"] = make_expr(s["compute_type"], env, rng)
        if wf["output"] is not None:
            env = scope(prog, wf, len(wf["steps"]))
            wf["ret"] = fix_with(wf["ret"], wf["output"], env, rng)


# ---------------------------------------------------------------- rendering

UNITS = [("d", 86400000), ("h", 3600000), ("m", 60000), ("s", 1000), ("ms", 1)]


def duration(ms):
    out = ""
    for unit, size in UNITS:
        if ms >= size:
            out += "%d%s" % (ms // size, unit)
            ms %= size
    return out or "0ms"


PREC = {"concat": 5, "add": 5, "mul": 6, "gt": 4}


def render_expr(e):
    op = e[0]
    if op == "str":
        return json.dumps(e[1])
    if op == "int":
        return str(e[1])
    if op == "bool":
        return "true" if e[1] else "false"
    if op == "input":
        return "input." + e[1]
    if op == "var":
        return e[1]
    if op == "step":
        return "%s.%s" % (e[1], e[2])
    if op == "val":
        return e[1]
    if op in ("concat", "add"):
        return "%s + %s" % (render_expr(e[1]), render_expr(e[2]))
    if op == "mul":
        return "%s * %s" % (render_expr(e[1]), render_expr(e[2]))
    if op == "gt":
        return "%s > %s" % (render_expr(e[1]), render_expr(e[2]))
    if op == "len":
        return "len(%s)" % render_expr(e[1])
    if op == "flag":
        return "(input.%s ?? false)" % e[1]
    return "<%s>" % op


def render_record(pairs):
    return "{ " + ", ".join("%s: %s" % (n, render_expr(e)) for n, e in pairs) + " }" if pairs else "{}"


def render_contract(fields):
    return "{ " + ", ".join("%s: %s%s" % (f["name"], f["type"], "?" if f["optional"] else "")
                            for f in fields) + " }" if fields else "{}"


def render_retry(r):
    parts = ["attempts: %d" % r["attempts"], "backoff: %s" % r["backoff"]]
    if r["initial_delay"] is not None:
        parts.append("initial_delay: %s" % duration(r["initial_delay"]))
    if r["max_delay"] is not None and r["backoff"] == "exponential":
        parts.append("max_delay: %s" % duration(max(r["max_delay"], r["initial_delay"] or 1000)))
    if r["non_retryable"] and r["attempts"] > 1:
        parts.append("non_retryable: [%s]" % ", ".join(json.dumps(c) for c in r["non_retryable"]))
    return parts


def step_members(s):
    m = []
    k = s["kind"]
    if k == "task":
        m.append('worker "%s"' % s["worker"])
    elif k == "http":
        m.append("using orbit.http.request")
    elif k == "sleep":
        m.append("sleep %s" % duration(s["sleep"]))
    elif k == "await":
        m.append('await "%s"' % s["signal"])
    elif k == "child":
        m.append("workflow %s" % s["workflow"])
    elif k == "compute":
        m.append("compute %s" % render_expr(s["compute"]))
    if s["for"]:
        m.append("for %s in %s" % (s["for"][0], render_expr(s["for"][1])))
    if s["with"] is not None and k in ("task", "http", "child"):
        m.append("with " + render_record(s["with"]))
    if s["when"] is not None:
        m.append("when " + render_expr(s["when"]))
    if s["idem"] is not None and k in ("task", "http"):
        m.append("idempotency_key " + render_expr(s["idem"]))
    if s["retry"] is not None and k in ("task", "http"):
        m.append(("retry", render_retry(s["retry"])))
    if s["timeout"] is not None:
        m.append("timeout %s" % duration(s["timeout"]))
    if s["queue_timeout"] is not None and k == "task":
        m.append("queue_timeout %s" % duration(s["queue_timeout"]))
    if s["compensate"] is not None and k == "task":
        c = s["compensate"]
        inner = ['worker "%s"' % c["worker"], "with " + render_record(c["with"])]
        if c["retry"] is not None:
            inner.append(("retry", render_retry(c["retry"])))
        if c["timeout"] is not None:
            inner.append("timeout %s" % duration(c["timeout"]))
        m.append(("compensate", inner))
    return m


def render(prog):
    """The program's source. prog["layout"] (a format-only change): "wide" one member a
    line, "compact" short steps on one line with `;`; prog["comments"] adds comments."""
    layout = prog.get("layout", "normal")
    comments = prog.get("comments", False)
    out = []
    if comments:
        out.append("// generated by tests/compat/gen_pairs.py")
    for name, w in sorted(prog["workers"].items()):
        if comments:
            out.append("")
            out.append("/* the contract of %s */" % name)
        body = []
        if w["input"]:
            body.append("input " + render_contract(w["input"]))
        if w["output"]:
            body.append("output " + render_contract(w["output"]))
        if layout == "wide" or not body:
            out.append('worker "%s" {' % name)
            out += ["  " + b for b in body]
            out.append("}")
        else:
            out.append('worker "%s" { %s }' % (name, "; ".join(body)))
    for wf in prog["workflows"]:
        out.append("")
        if comments:
            out.append("// workflow %s: %d steps" % (wf["name"], len(wf["steps"])))
        out.append("workflow %s {" % wf["name"])
        if wf["input"]:
            out.append("  input " + render_contract(wf["input"]))
        if wf["output"] is not None:
            out.append("  output " + render_contract(wf["output"]))
        if wf["timeout"] is not None:
            out.append("  timeout %s" % duration(wf["timeout"]))
        for s in wf["steps"]:
            if layout == "wide":
                out.append("")
            members = step_members(s)
            simple = all(isinstance(m, str) for m in members)
            if layout == "compact" and simple:
                out.append("  step %s { %s }" % (s["name"], "; ".join(members)))
                continue
            out.append("  step %s {" % s["name"])
            if comments:
                out.append("    // %s" % s["kind"])
            for m in members:
                if isinstance(m, str):
                    out.append("    " + m)
                elif m[0] == "retry":
                    if layout == "wide":
                        out.append("    retry {")
                        out += ["      " + p for p in m[1]]
                        out.append("    }")
                    else:
                        out.append("    retry { %s }" % ", ".join(m[1]))
                else:
                    out.append("    compensate {")
                    for x in m[1]:
                        if isinstance(x, str):
                            out.append("      " + x)
                        else:
                            out.append("      retry { %s }" % ", ".join(x[1]))
                    out.append("    }")
            out.append("  }")
        if wf["output"] is not None:
            out.append("")
            out.append("  return " + render_record(wf["ret"]))
        out.append("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the command


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def generate(seed, out, mutations=3, scenarios=4):
    """Writes one OLD, `mutations` NEWs and `scenarios` scenarios of OLD into `out`;
    returns their paths: {"old": path, "new": [(path, [changes])], "scenarios": [path]}."""
    g = Gen(seed)
    old = g.new_program()
    os.makedirs(out, exist_ok=True)
    made = {"old": os.path.join(out, "old", "prog.orbit"), "new": [], "scenarios": []}
    os.makedirs(os.path.dirname(made["old"]), exist_ok=True)
    write(made["old"], render(old))
    for k in range(1, mutations + 1):
        # the first NEW of every fourth OLD is unchanged, of the next a format-only change
        if k == 1 and seed % 4 == 0:
            new, said = copy.deepcopy(old), ["none: no change"]
        elif k == 1 and seed % 4 == 1:
            new = copy.deepcopy(old)
            said = ["format: " + g.m_format(new)]
        else:
            new, said = g.new_version(old, g.rng.choice([1, 1, 1, 2, 3]))
        path = os.path.join(out, "new-%d" % k, "prog.orbit")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write(path, render(new))
        write(os.path.join(os.path.dirname(path), "changes.txt"), "\n".join(said) + "\n")
        made["new"].append((path, said))
    for j in range(scenarios):
        path = os.path.join(out, "scenario-%d.json" % j)
        write(path, json.dumps(g.scenario(old, j), indent=1, sort_keys=True) + "\n")
        made["scenarios"].append(path)
    return made


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mutations", type=int, default=3)
    ap.add_argument("--scenarios", type=int, default=4)
    a = ap.parse_args(argv)
    made = generate(a.seed, a.out, a.mutations, a.scenarios)
    print(json.dumps(made, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
