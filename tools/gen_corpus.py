#!/usr/bin/env python3
"""Generates Orbit programs for benchmarks and fuzzing: realistic programs of a requested
size that check clean, the same with N typical mistakes, and adversarial shapes.

    gen_corpus.py --size 10M --seed 1 -o big.orbit
    gen_corpus.py --size 100K --errors 20 > broken.orbit
    gen_corpus.py --size 20K --warnings 5 > old.orbit
    gen_corpus.py --shape chain|longline|deep|wide|longexpr|badfields|badworkflows|typechain|strconcat \
        -o shape.orbit

The output is a pure function of the arguments (same seed, same bytes).
"""

import argparse
import io
import random
import sys

# Words the language reserves (compiler/syntax/ast.h, Keyword) and the standard library's
# functions: never used as generated names.
RESERVED = {
    "workflow", "worker", "type", "input", "output", "timeout", "step", "return",
    "using", "sleep", "await", "compute", "with", "when", "for", "in",
    "idempotency_key", "retry", "queue_timeout", "compensate", "true", "false", "null",
    "len", "str", "lower", "upper", "contains", "any", "string", "int", "number", "bool",
    "duration",
}

RUNTIME_CODES = ["TIMEOUT", "HTTP_ERROR", "QUEUE_TIMEOUT", "INPUT_CONTRACT_VIOLATION",
                 "OUTPUT_CONTRACT_VIOLATION", "EXPRESSION_ERROR", "ADAPTER_DISABLED",
                 "SIGNAL_TIMEOUT"]

DOMAINS = ["payments", "billing", "orders", "shipping", "inventory", "accounts", "risk",
           "notify", "crm", "support", "ledger", "search", "media", "identity", "catalog"]
VERBS = ["charge", "refund", "validate", "enrich", "score", "reserve", "release", "pack",
         "ship", "label", "archive", "index", "sync", "render", "publish", "verify",
         "allocate", "settle", "audit", "resize", "translate", "classify", "approve"]
NOUNS = ["order", "invoice", "shipment", "payment", "customer", "ticket", "report",
         "account", "parcel", "refund", "image", "document", "lead", "batch", "quote"]
ERROR_CODES = ["CARD_DECLINED", "INSUFFICIENT_FUNDS", "NOT_FOUND", "INVALID_ADDRESS",
               "OUT_OF_STOCK", "ACCOUNT_LOCKED", "FRAUD_SUSPECTED", "LIMIT_EXCEEDED",
               "DUPLICATE_REQUEST", "UNSUPPORTED_CURRENCY", "BAD_FORMAT"]
SIGNALS = ["manager_approved", "customer_confirmed", "payment_settled", "docs_uploaded",
           "review_done", "stock_arrived"]
WORDS = ["alpha", "north", "express", "standard", "gold", "eu-west", "retail", "café",
         "priority", "bulk", "night", "sample", "übung", "東京", "fallback"]
URLS = ["https://hooks.example/paid", "https://api.example.com/v1/events",
        "https://crm.example.org/contacts", "https://status.example.net/ping"]
COMMENTS = ["retries are idempotent thanks to the key", "see the runbook for escalation",
            "keep this in sync with the worker's contract", "TODO: tighten the timeout",
            "charged in minor units", "the partner API is slow on Mondays",
            "ünïcödé in comments is fine", "fan out over every line item"]

# Field pool: name -> primitive type. Record fields and contracts draw from it, so the
# same name always has the same type (which keeps generated programs consistent).
FIELDS = {
    "order_id": "string", "customer_id": "string", "email": "string", "currency": "string",
    "sku": "string", "region": "string", "tier": "string", "reference": "string",
    "note": "string", "status_text": "string", "locale": "string", "channel": "string",
    "amount": "number", "weight": "number", "score": "number", "rate": "number",
    "quantity": "int", "priority": "int", "attempt_count": "int", "line_count": "int",
    "express": "bool", "verified": "bool", "gift": "bool", "flagged": "bool",
    "grace": "duration",
}
FIELDS_BY_TYPE = {}
for _f, _t in FIELDS.items():
    FIELDS_BY_TYPE.setdefault(_t, []).append(_f)
FIELD_NAMES = list(FIELDS)

SCALARS = ("string", "int", "number", "bool")


def parse_size(text):
    """'10M' -> 10485760; accepts K, M, G suffixes (binary) and plain bytes."""
    text = text.strip().upper().rstrip("B")
    scale = 1
    for suffix, factor in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)):
        if text.endswith(suffix):
            scale, text = factor, text[:-1]
    return int(float(text) * scale)


class Out:
    """Collects lines (without line ends, with indentation) and writes them out, as
    separate lines or joined into one line for the `longline` shape."""

    def __init__(self, stream, crlf=False, one_line=False):
        self.stream = stream
        self.newline = "\r\n" if crlf else "\n"
        self.one_line = one_line
        self.lines = []
        self.written = 0
        self.prev_opens = True   # one-line mode: the previous line ended with '{'

    def line(self, text=""):
        self.lines.append(text)

    def flush(self):
        if self.one_line:
            chunk = self._join_one_line()
        else:
            chunk = self.newline.join(self.lines) + self.newline
        self.lines = []
        data = chunk.encode("utf-8")
        self.stream.write(data)
        self.written += len(data)

    def _join_one_line(self):
        parts = []
        for raw in self.lines:
            text = raw.strip()
            if not text:
                continue
            if text.startswith("//"):
                text = "/* " + text[2:].strip() + " */"
            if text.startswith("/*") and text.endswith("*/"):
                # A comment is not a member: no separator around it (`;;` would leave
                # an empty member, a syntax error).
                parts.append(" " + text)
                continue
            if not self.prev_opens and not text.startswith("}"):
                parts.append("; ")
            elif parts or self.written:
                parts.append(" ")
            parts.append(text)
            self.prev_opens = text.endswith("{")
        return "".join(parts)

    def finish(self):
        if self.one_line:
            self.stream.write(self.newline.encode())
            self.written += len(self.newline)


class Scope:
    """Expressions available at a point in a workflow, by type: what `with`, `when`,
    `compute` and `return` may use. Optional values are kept apart (they need `??`)."""

    def __init__(self):
        self.by_type = {}
        self.optional = {}
        self.lists = []   # (expr, element type)

    def copy(self):
        s = Scope()
        s.by_type = {k: list(v) for k, v in self.by_type.items()}
        s.optional = {k: list(v) for k, v in self.optional.items()}
        s.lists = list(self.lists)
        return s

    def add(self, expr, typ, records, depth=0):
        if typ.endswith("?"):
            base = typ[:-1]
            if base in SCALARS:
                self.optional.setdefault(base, []).append(expr)
            return
        if typ.startswith("["):
            self.lists.append((expr, typ[1:-1]))
            self.by_type.setdefault(typ, []).append(expr)
            return
        if typ in records:
            self.by_type.setdefault(typ, []).append(expr)
            if depth < 2:
                for fname, ftype in records[typ]:
                    self.add(expr + "." + fname, ftype, records, depth + 1)
            return
        self.by_type.setdefault(typ, []).append(expr)


class Generator:
    def __init__(self, args, out):
        self.rng = random.Random(args.seed)
        self.args = args
        self.out = out
        self.records = {}        # type name -> [(field, type)]
        self.workers = {}        # worker name -> (input fields, output fields or None)
        self.mistakes = []       # descriptions of injected errors
        self.steps_written = 0

    # ---- small helpers -------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self.rng.random() * len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def duration(self, lo_ms, hi_ms):
        ms = self.rng.randint(lo_ms, hi_ms)
        if ms >= 86400000 and ms % 86400000 == 0:
            return "%dd" % (ms // 86400000), ms
        for unit, size in (("h", 3600000), ("m", 60000), ("s", 1000)):
            if ms >= size:
                ms = (ms // size) * size
                return "%d%s" % (ms // size, unit), ms
        return "%dms" % ms, ms

    def string_lit(self):
        return '"%s-%d"' % (self.pick(WORDS), self.rng.randint(1, 999))

    def literal(self, typ):
        if typ == "string":
            return self.string_lit()
        if typ == "int":
            n = self.rng.randint(0, 20000)
            return "{:_}".format(n) if n >= 1000 and self.chance(0.3) else str(n)
        if typ == "number":
            return "%d.%d" % (self.rng.randint(0, 999), self.rng.randint(0, 99))
        if typ == "bool":
            return self.pick(("true", "false"))
        if typ == "duration":
            return self.duration(1000, 3600000)[0]
        return self.string_lit()

    # ---- expressions ---------------------------------------------------------------
    def expr(self, typ, scope, depth=0):
        """An expression of type `typ` built from what is in scope, or literals."""
        if typ.endswith("?"):
            return self.expr(typ[:-1], scope, depth)
        if typ.startswith("["):
            elem = typ[1:-1]
            have = scope.by_type.get(typ)
            if have and self.chance(0.8):
                return self.pick(have)
            return "[%s]" % ", ".join(self.expr(elem, scope, depth + 1)
                                      for _ in range(self.rng.randint(1, 3)))
        if typ in self.records:
            have = scope.by_type.get(typ)
            if have and (depth > 1 or self.chance(0.7)):
                return self.pick(have)
            return self.object_for(self.records[typ], scope, depth + 1)
        if typ == "any":
            return self.any_value(scope, depth)
        have = scope.by_type.get(typ, [])
        if typ == "number":
            have = have + scope.by_type.get("int", [])
        opt = scope.optional.get(typ)
        r = self.rng.random()
        if opt and r < 0.15:
            e = "%s ?? %s" % (self.pick(opt), self.literal(typ))
            return "(%s)" % e if depth > 0 else e
        if not have or r > 0.85 or depth > 3:
            return self.derived(typ, scope, depth) if depth < 3 and r > 0.93 \
                else self.literal(typ)
        e = self.pick(have)
        if depth < 2 and self.chance(0.25):
            return self.decorate(typ, e, scope, depth)
        return e

    def decorate(self, typ, e, scope, depth):
        if typ == "string":
            k = self.rng.randint(0, 2)
            if k == 0:
                return "upper(%s)" % e
            if k == 1:
                return "lower(%s)" % e
            return '%s + "-" + %s' % (e, self.expr("string", scope, depth + 1))
        if typ == "number":
            return "%s * %d" % (e, self.rng.randint(2, 100))
        if typ == "int":
            return "%s + %d" % (e, self.rng.randint(1, 9))
        if typ == "bool":
            return "!%s" % e
        return e

    def derived(self, typ, scope, depth):
        """An expression that changes type: len, str, comparisons."""
        if typ == "int" and scope.lists:
            return "len(%s)" % self.pick(scope.lists)[0]
        if typ == "string":
            src = scope.by_type.get("int") or scope.by_type.get("number")
            if src:
                return "str(%s)" % self.pick(src)
        if typ == "bool":
            nums = scope.by_type.get("number") or scope.by_type.get("int")
            if nums and self.chance(0.5):
                return "%s > %s" % (self.pick(nums), self.rng.randint(0, 500))
            strs = scope.by_type.get("string")
            if strs:
                return '%s == %s' % (self.pick(strs), self.string_lit())
        return self.literal(typ)

    def any_value(self, scope, depth):
        if depth > 2:
            return self.literal(self.pick(SCALARS))
        fields = self.rng.sample(FIELD_NAMES, self.rng.randint(1, 3))
        return "{ %s }" % ", ".join("%s: %s" % (f, self.expr(FIELDS[f], scope, depth + 1))
                                   for f in fields)

    def object_for(self, fields, scope, depth=0):
        parts = []
        for fname, ftype in fields:
            if ftype.endswith("?") and self.chance(0.4):
                continue
            parts.append("%s: %s" % (fname, self.expr(ftype, scope, depth)))
        return "{ %s }" % ", ".join(parts)

    def bool_expr(self, scope):
        opt = scope.optional.get("bool")
        if opt and self.chance(0.5):
            return "%s ?? false" % self.pick(opt)
        return self.derived("bool", scope, 0)

    # ---- declarations --------------------------------------------------------------
    def field_list(self, n, allow_records, allow_optional=True):
        names = self.rng.sample(FIELD_NAMES, n)
        fields = []
        for name in names:
            typ = FIELDS[name]
            if allow_optional and self.chance(0.12):
                typ += "?"
            fields.append((name, typ))
        if allow_records and self.records and self.chance(0.6):
            rec = self.pick(allow_records)
            fields.append((rec.lower() + "_info", rec))
        if allow_records is not None and self.chance(0.25):
            fields.append(("tags", "[string]"))
        return fields

    def schema(self, fields):
        return "{ %s }" % ", ".join("%s: %s" % f for f in fields)

    def emit_types(self, module):
        names = []
        for k in range(self.rng.randint(1, 3)):
            name = "%s%s%d" % (self.pick(NOUNS).capitalize(),
                               self.pick(("Info", "Details", "Summary", "Ref")),
                               module * 4 + k)
            fields = self.field_list(self.rng.randint(2, 5), None, allow_optional=True)
            self.records[name] = fields
            names.append(name)
            self.out.line("type %s %s" % (name, self.schema(fields)))
            self.out.line()
        return names

    def emit_workers(self, module, types):
        names = []
        domain = self.pick(DOMAINS)
        for k in range(self.rng.randint(3, 7)):
            name = "%s%d.%s_%s%d" % (domain, module, self.pick(VERBS), self.pick(NOUNS), k)
            inputs = self.field_list(self.rng.randint(1, 4), types)
            outputs = self.field_list(self.rng.randint(1, 4), types,
                                      allow_optional=False) if self.chance(0.85) else None
            self.workers[name] = (inputs, outputs)
            names.append(name)
            if self.chance(0.3):
                self.out.line("// " + self.pick(COMMENTS))
            self.out.line('worker "%s" {' % name)
            self.out.line("  input  %s" % self.schema(inputs))
            if outputs is not None:
                self.out.line("  output %s" % self.schema(outputs))
            self.out.line("}")
            self.out.line()
        return names

    def workflow_signature(self, types):
        inputs = self.field_list(self.rng.randint(2, 5), types)
        if not any(t == "[string]" for _, t in inputs) and self.chance(0.5):
            inputs.append(("items", "[string]"))
        outputs = self.field_list(self.rng.randint(1, 3), types, allow_optional=False) \
            if self.chance(0.7) else None
        return inputs, outputs

    # ---- steps ---------------------------------------------------------------------
    def retry_block(self, indent):
        """A retry block with attempts >= 2 (so that every other setting has an effect);
        returns its lines and its worst-case total delay."""
        attempts = self.rng.randint(2, 8)
        settings = [("attempts", str(attempts))]
        exponential = self.chance(0.6)
        if exponential or self.chance(0.5):
            settings.append(("backoff", "exponential" if exponential else "fixed"))
        initial_text, initial = self.duration(100, 5000)
        initial_ms = 1000
        if self.chance(0.7):
            settings.append(("initial_delay", initial_text))
            initial_ms = initial
        max_ms = max(60000, initial_ms)
        if exponential and self.chance(0.5):
            text, ms = self.duration(initial_ms, initial_ms * 20)
            if ms >= initial_ms:
                settings.append(("max_delay", text))
                max_ms = ms
        if self.chance(0.4):
            codes = self.rng.sample(ERROR_CODES, self.rng.randint(1, 3))
            settings.append(("non_retryable", "[%s]" % ", ".join('"%s"' % c for c in codes)))
        self.rng.shuffle(settings)
        delay = 0
        for n in range(2, attempts + 1):
            delay += min(initial_ms * (2 ** (n - 2)), max_ms) if exponential else initial_ms
        pad = " " * indent
        if self.chance(0.4):
            sep = self.pick((", ", "; "))
            lines = [pad + "retry { %s }" % sep.join("%s: %s" % s for s in settings)]
        else:
            lines = [pad + "retry {"] + [pad + "  %s: %s" % s for s in settings] + [pad + "}"]
        return lines, attempts, delay

    def task_policies(self, lines, indent, key_expr, is_http):
        """retry / timeout / queue_timeout / idempotency_key of a task; returns the
        worst-case duration of the task (for choosing the workflow timeout)."""
        pad = " " * indent
        attempts, delay = 1, 0
        if self.chance(0.65):
            retry, attempts, delay = self.retry_block(indent)
            lines.append(pad + "idempotency_key %s" % key_expr)
            lines.extend(retry)
        timeout_ms = 30000 if is_http else 0
        if self.chance(0.6):
            text, timeout_ms = self.duration(1000, 600000)
            lines.append(pad + "timeout %s" % text)
        queue_ms = 0
        if not is_http and self.chance(0.3):
            text, queue_ms = self.duration(10000, 1800000)
            lines.append(pad + "queue_timeout %s" % text)
        return attempts * (timeout_ms + queue_ms) + delay

    def key_expr(self, scope, step):
        strs = scope.by_type.get("string")
        if strs:
            return '"%s-" + %s' % (step, self.pick(strs))
        return '"%s-%d"' % (step, self.rng.randint(1, 10 ** 6))

    def task_step(self, name, scope, workers, lines, for_list=None):
        worker = self.pick(workers)
        inputs, outputs = self.workers[worker]
        inner = scope
        if for_list is not None:
            var = "each_" + name
            inner = scope.copy()
            inner.add(var, for_list[1], self.records)
            lines.append("    for %s in %s" % (var, for_list[0]))
        lines.append('    worker "%s"' % worker)
        lines.append("    with %s" % self.object_for(inputs, inner))
        when = for_list is None and self.chance(0.12)
        if when:
            lines.append("    when %s" % self.bool_expr(scope))
        cost = self.task_policies(lines, 4, self.key_expr(inner, name), False)
        if for_list is None and self.chance(0.2):
            # A step with `when` may be skipped: the checker types its value as optional,
            # also inside its own compensate block, so that block does not use it.
            cost += self.compensate(name, None if when else outputs, scope, workers, lines)
        if outputs is not None and for_list is None and not when:
            for fname, ftype in outputs:
                scope.add(name + "." + fname, ftype, self.records, 1)
        return cost

    def compensate(self, name, outputs, scope, workers, lines):
        inner = scope.copy()
        if outputs is not None:
            for fname, ftype in outputs:
                inner.add(name + "." + fname, ftype, self.records, 1)
        worker = self.pick(workers)
        inputs, _ = self.workers[worker]
        lines.append("    compensate {")
        lines.append('      worker "%s"' % worker)
        lines.append("      with %s" % self.object_for(inputs, inner))
        cost = self.task_policies(lines, 6, self.key_expr(inner, "undo-" + name), False)
        lines.append("    }")
        return cost

    def http_step(self, name, scope, lines):
        lines.append("    using orbit.http.request")
        body = self.any_value(scope, 0)
        method = self.pick(('"POST"', '"PUT"', '"GET"'))
        lines.append('    with { url: "%s", method: %s, body: %s }'
                     % (self.pick(URLS), method, body))
        when = self.chance(0.2)
        if when:
            lines.append("    when %s" % self.bool_expr(scope))
        cost = self.task_policies(lines, 4, self.key_expr(scope, name), True)
        if not when:
            scope.add(name + ".status", "int", self.records)
        return cost

    def child_step(self, name, scope, child, lines):
        cname, (cin, cout) = child
        lists = [l for l in scope.lists if l[1] == "string"]
        fan_out = lists and self.chance(0.3)
        inner = scope
        if fan_out:
            src = self.pick(lists)
            var = "each_" + name
            inner = scope.copy()
            inner.add(var, "string", self.records)
            lines.append("    workflow %s" % cname)
            lines.append("    for %s in %s" % (var, src[0]))
        else:
            lines.append("    workflow %s" % cname)
        lines.append("    with %s" % self.object_for(cin, inner))
        cost = 0
        if self.chance(0.6):
            text, cost = self.duration(60000, 7200000)
            lines.append("    timeout %s" % text)
        else:   # the child's own worst case counts (emit_module adds it)
            self.untimed_children.append(cname)
        if cout is not None and not fan_out:
            for fname, ftype in cout:
                scope.add(name + "." + fname, ftype, self.records, 1)
        return cost

    def compute_step(self, name, scope, lines):
        typ = self.pick(("number", "string", "int", "bool"))
        if typ == "number" and scope.by_type.get("number"):
            e = "%s * %d" % (self.pick(scope.by_type["number"]), self.rng.randint(2, 1000))
        elif typ == "bool":
            e = self.bool_expr(scope)
        else:
            e = self.expr(typ, scope, 1)
        if self.chance(0.4):
            lines.append("    compute %s" % e)
        else:
            lines[-1] = lines[-1] + " compute %s }" % e
            return 0, typ, True
        return 0, typ, False

    def emit_step(self, name, kind, scope, workers, child, out_lines):
        lines = ["  step %s {" % name]
        closed = False
        cost = 0
        if kind == "task":
            cost = self.task_step(name, scope, workers, lines)
        elif kind == "for" and scope.lists:
            cost = self.task_step(name, scope, workers, lines, self.pick(scope.lists))
        elif kind == "http" or kind == "for":
            cost = self.http_step(name, scope, lines)
        elif kind == "child" and child is not None:
            cost = self.child_step(name, scope, child, lines)
        elif kind == "sleep" or kind == "child":
            text, cost = self.duration(1000, 3600000)
            lines[-1] += " sleep %s }" % text
            closed = True
        elif kind == "await":
            text, cost = self.duration(60000, 86400000 * 3)
            lines[-1] += ' await "%s"; timeout %s }' % (self.pick(SIGNALS), text)
            closed = True
        else:
            cost, typ, closed = self.compute_step(name, scope, lines)
            scope.add(name, typ, self.records)
        if not closed:
            lines.append("  }")
        if self.chance(0.1):
            out_lines.append("  // " + self.pick(COMMENTS))
        elif self.chance(0.03):
            out_lines.append("  /* " + self.pick(COMMENTS) + " */")
        out_lines.extend(lines)
        self.steps_written += 1
        return cost

    STEP_KINDS = ["task"] * 9 + ["http"] * 2 + ["child"] * 2 + ["sleep", "await"] + \
        ["compute"] * 3 + ["for"] * 2

    def emit_workflow(self, name, signature, workers, children, steps):
        """The text of a workflow, with None for its timeout line (emit_module fills it
        in once the worst case of its children is known), its own worst case and the
        children it starts without a step timeout."""
        inputs, outputs = signature
        scope = Scope()
        for fname, ftype in inputs:
            scope.add("input." + fname, ftype, self.records)
        body = []
        total = 0
        used = set()
        self.untimed_children = []
        for i in range(steps):
            step = "%s_%s%d" % (self.pick(VERBS), self.pick(NOUNS), i)
            while step in used:
                step += "x"
            used.add(step)
            kind = self.pick(self.STEP_KINDS)
            child = self.pick(children) if children else None
            total += self.emit_step(step, kind, scope, workers, child, body)
            if self.chance(0.5):
                body.append("")
        text = ["workflow %s {" % name, "  input  %s" % self.schema(inputs)]
        if outputs is not None:
            text.append("  output %s" % self.schema(outputs))
        if self.chance(0.7):
            text.append(None)
        text.append("")
        text.extend(body)
        if outputs is not None:
            text.append("")
            text.append("  return %s" % self.object_for(outputs, scope))
        text.append("}")
        text.append("")
        return {"text": text, "total": total, "children": self.untimed_children}

    @staticmethod
    def timeout_line(total):
        """A workflow timeout of twice the worst case, in whole hours or days."""
        hours = max(1, (2 * total) // 3600000 + 1)
        return "  timeout %s" % ("%dd" % (hours // 24 + 1) if hours > 48 else "%dh" % hours)

    def emit_module(self, module):
        if self.chance(0.5):
            self.out.line("// module %d: %s" % (module, self.pick(COMMENTS)))
        types = self.emit_types(module)
        workers = self.emit_workers(module, types)
        count = self.rng.randint(2, 5)
        names = ["%s_%s_flow%d_%d" % (self.pick(NOUNS), self.pick(VERBS), module, k)
                 for k in range(count)]
        sigs = [self.workflow_signature(types) for _ in names]
        flows = []
        for k, name in enumerate(names):
            children = list(zip(names[k + 1:], sigs[k + 1:]))
            flows.append(self.emit_workflow(name, sigs[k], workers, children,
                                            self.rng.randint(3, 14)))
        # A workflow starts only the ones after it: their worst cases are known first.
        totals = {}
        for name, flow in reversed(list(zip(names, flows))):
            totals[name] = flow["total"] + sum(totals[c] for c in flow["children"])
        for name, flow in zip(names, flows):
            for line in flow["text"]:
                self.out.line(self.timeout_line(totals[name]) if line is None else line)
        self.out.flush()

    def realistic(self, size):
        module = 0
        while self.out.written < size or module == 0:
            self.emit_module(module)
            module += 1


# ---- mistakes (--errors) -------------------------------------------------------------
# Each rewrites one line of a clean program into a typical mistake; every rule produces
# at least one error. Applied to the text after generation, at lines chosen by the seed.
def indent_of(line):
    return line[:len(line) - len(line.lstrip())]


def inject_errors(text, count, rng):
    lines = text.split("\n")
    # (what the line must start with after its indentation, how to rewrite it)
    rules = [
        ("attempts: ", lambda l: indent_of(l) + "attempts: %d" % rng.choice((0, 1001, 5000))),
        ("backoff: exponential", lambda l: l.replace("backoff:", "backof:", 1)),
        ("backoff: fixed", lambda l: l.replace("backoff: fixed", "backoff: linear", 1)),
        ("timeout ", lambda l: indent_of(l) + "timeout 0s"),
        ("initial_delay: ", lambda l: indent_of(l) + "initial_delay: 1.5s"),
        ("queue_timeout ", lambda l: indent_of(l) + "timout 10s"),
        ("step ", lambda l: l.replace(" }", "; retry { attempts: 3 } }", 1)
         if " sleep " in l else None),
        ("with { ", lambda l: l.replace("with { ", "with { unknown_field: 1, ", 1)),
        ('worker "', lambda l: l.replace('worker "', 'wroker "', 1)
         if l.startswith(" ") else None),
        ("compute ", lambda l: l.replace("compute ", "compute no_such_step + ", 1)),
    ]
    # At most one mistake per step (an undeclared worker would hide a wrong `with`).
    step_of = []
    step = -1
    for i, l in enumerate(lines):
        if l.lstrip().startswith("step ") or not l.startswith(" "):
            step = i
        step_of.append(step)
    candidates = []
    for i, l in enumerate(lines):
        stripped = l.lstrip()
        for r, (start, _) in enumerate(rules):
            if stripped.startswith(start):
                candidates.append((i, r))
    rng.shuffle(candidates)
    done, used = [], set()
    for i, r in candidates:
        if len(done) == count:
            break
        if step_of[i] in used:
            continue
        changed = rules[r][1](lines[i])
        if changed is None or changed == lines[i]:
            continue
        used.add(step_of[i])
        lines[i] = changed
        done.append((i + 1, changed.strip()))
    return "\n".join(lines), sorted(done)


def inject_warnings(text, count, rng):
    """`count` warnings, each of its own retry block: `max_delay` with fixed backoff
    (W0002) or an error code listed twice in `non_retryable` (W0004)."""
    lines = text.split("\n")
    candidates = [i for i, l in enumerate(lines)
                  if "backoff: fixed" in l or "non_retryable: [" in l]
    rng.shuffle(candidates)
    done, used = [], set()
    for i in candidates:
        if len(done) == count:
            break
        block = i
        while block > 0 and "retry {" not in lines[block]:
            block -= 1
        if block in used:
            continue
        line = lines[i]
        if "non_retryable: [" in line:
            first = line.split("non_retryable: [", 1)[1].split(",")[0].split("]")[0]
            changed = line.replace("non_retryable: [", "non_retryable: [%s, " % first, 1)
        else:
            changed = line.replace("backoff: fixed", "backoff: fixed, max_delay: 1m", 1)
        used.add(block)
        lines[i] = changed
        done.append((i + 1, changed.strip()))
    return "\n".join(lines), sorted(done)


# ---- adversarial shapes --------------------------------------------------------------
def shape_chain(out, steps):
    out.line("// one workflow whose every step uses the previous step's output")
    out.line('worker "chain.inc" {')
    out.line("  input  { n: int, tag: string }")
    out.line("  output { n: int, tag: string }")
    out.line("}")
    out.line()
    out.line("workflow chain {")
    out.line("  input  { n: int, tag: string }")
    out.line("  output { n: int }")
    out.line("  step s0 { compute input.n + 1 }")
    prev_task = "input"
    for i in range(1, steps):
        if i % 2:
            out.line('  step s%d { worker "chain.inc"; with { n: s%d + 1, tag: %s.tag } }'
                     % (i, i - 1, prev_task))
            prev_task = "s%d" % i
        else:
            out.line("  step s%d { compute s%d.n * 2 }" % (i, i - 1))
        if i % 4096 == 0:
            out.flush()
    last = "s%d" % (steps - 1)
    out.line("  return { n: %s%s }" % (last, ".n" if (steps - 1) % 2 else ""))
    out.line("}")
    out.flush()


def shape_deep(out, depth, size):
    """Expressions nested `depth` brackets deep inside `workflow { step { … } }`."""
    out.line("// expressions nested up to the nesting limit")
    out.line("workflow deep {")
    out.line("  input { n: int }")
    i = 0
    while out.written < size or i == 0:
        kind = i % 4
        d = depth
        if kind == 0:    # parentheses around arithmetic
            e = "1"
            for k in range(d):
                e = "(%s + %d)" % (e, k) if k % 2 else "(%d * %s)" % (k + 1, e)
            out.line("  step p%d { compute %s }" % (i, e))
        elif kind == 1:  # nested lists
            out.line("  step l%d { compute len(%s1%s) }" % (i, "[" * d, "]" * d))
        elif kind == 2:  # nested objects as an http body (type any)
            body = "{ a: " * d + "1" + " }" * d
            out.line('  step o%d { using orbit.http.request; with { url: "https://x.example", '
                     'body: %s } }' % (i, body))
        else:            # nested unary and parentheses mixed
            out.line("  step u%d { compute %s input.n %s }" % (i, "-(" * d, ")" * d))
        i += 1
        out.flush()
    out.line("}")
    out.flush()


def shape_wide(out, fields):
    out.line("// one object literal with %d fields" % fields)
    out.line("workflow wide {")
    out.line("  step send {")
    out.line("    using orbit.http.request")
    out.line('    with { url: "https://wide.example/upload", method: "POST", body: {')
    chunk = []
    for k in range(fields):
        chunk.append("      f%d: %d," % (k, k))
        if len(chunk) == 8192:
            out.line("\n".join(chunk))
            chunk = []
            out.flush()
    if chunk:
        out.line("\n".join(chunk))
    out.line("    } }")
    out.line("  }")
    out.line("}")
    out.flush()


def shape_longexpr(out, terms):
    """A single expression of `terms` operands without brackets: a left-deep tree. Up to
    about 1020 operands it checks clean; beyond, it is E0009 (docs/limits.md)."""
    out.line("workflow longexpr {")
    out.line("  input { n: int }")
    out.line("  step total { compute input.n%s }"
             % "".join(" + %d" % (k % 1000) for k in range(terms)))
    out.line("}")
    out.flush()


def shape_badfields(out, fields):
    """A record type of `fields` fields and as many steps, each reading a misspelt field
    of it (E0504 with a did-you-mean each): the suggestion's search over a wide type."""
    out.line("// %d unknown fields of a type with %d fields" % (fields, fields))
    out.line("type Wide {")
    for k in range(fields):
        out.line("  field_%d: int" % k)
        if k % 4096 == 4095:
            out.flush()
    out.line("}")
    out.line("workflow badfields {")
    out.line("  input { w: Wide }")
    for k in range(fields):
        out.line("  step s%d { compute input.w.feild_%d }" % (k, k))
        if k % 4096 == 4095:
            out.flush()
    out.line("}")
    out.flush()


def shape_badworkflows(out, workflows):
    """`workflows` workflows and one more with as many steps, each running a misspelt one
    of them (E0202 with a did-you-mean each): the suggestion's search over many names."""
    out.line("// %d unknown workflows among %d workflows" % (workflows, workflows))
    out.line("workflow badworkflows {")
    for k in range(workflows):
        out.line("  step s%d { workflow wrokflow_%d }" % (k, k))
        if k % 4096 == 4095:
            out.flush()
    out.line("}")
    for k in range(workflows):
        out.line("workflow workflow_%d {" % k)
        out.line("  input { }")
        out.line("}")
        if k % 4096 == 4095:
            out.flush()
    out.flush()


def shape_typechain(out, types):
    """`type T0 { v: int, next: T1? }`, … each record type naming the next, `types` of
    them, and a workflow taking T0: build lowers the whole chain."""
    out.line("// a chain of %d record types, each naming the next" % types)
    for k in range(types - 1):
        out.line("type T%d { v: int, next: T%d? }" % (k, k + 1))
        if k % 4096 == 4095:
            out.flush()
    out.line("type T%d { v: int }" % (types - 1))
    out.line("workflow typechain {")
    out.line("  input { t: T0 }")
    out.line("  step first { compute input.t.v }")
    out.line("}")
    out.flush()


def shape_strconcat(out, terms):
    """One `compute` joining `terms` string literals of 1,000 bytes with `+` (at most
    about 1020: the expression height limit): build folds them into one constant."""
    out.line("workflow strconcat {")
    out.line("  step joined { compute %s }" % " + ".join(
        '"%s"' % (chr(ord("a") + k % 26) * 1000) for k in range(terms)))
    out.line("}")
    out.flush()


def shape_childdag(out, workflows):
    """`workflows` workflows, each starting the next one twice: a naive analysis of the
    worst case would visit the last one 2^workflows times, and the figures double at
    each level until they saturate. The first has a timeout: W0010."""
    out.line("// %d workflows, each starting the next one twice" % workflows)
    out.line('worker "dag.work" {}')
    for k in range(workflows - 1):
        out.line("workflow w%d {" % k)
        if k == 0:
            out.line("  timeout 1d")
        out.line("  step a { workflow w%d }" % (k + 1))
        out.line("  step b { workflow w%d }" % (k + 1))
        out.line("}")
        if k % 4096 == 4095:
            out.flush()
    out.line("workflow w%d {" % (workflows - 1))
    out.line('  step work { worker "dag.work"; timeout 1s }')
    out.line("}")
    out.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="100K", help="target size, e.g. 10K, 1M, 100M")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--errors", type=int, default=0,
                   help="inject N typical mistakes (realistic and longline shapes)")
    p.add_argument("--warnings", type=int, default=0,
                   help="inject N warnings, W0002 or W0004 (realistic shape)")
    p.add_argument("--crlf", action="store_true", help="CRLF line ends")
    p.add_argument("--shape", choices=("realistic", "chain", "longline", "deep", "wide",
                                        "longexpr", "badfields", "badworkflows", "typechain",
                                        "strconcat", "childdag"),
                   default="realistic")
    p.add_argument("--steps", type=int, default=100000, help="chain: number of steps")
    p.add_argument("--depth", type=int, default=250, help="deep: bracket depth of each "
                   "expression (the enclosing workflow and step add 2)")
    p.add_argument("--fields", type=int, default=1000000, help="wide, badfields: number of fields")
    p.add_argument("--terms", type=int, default=100000,
                   help="longexpr: operands; strconcat: string literals")
    p.add_argument("--types", type=int, default=100000, help="typechain: record types")
    p.add_argument("--workflows", type=int, default=10000,
                   help="badworkflows: workflows (and misspelt references to them); "
                   "childdag: workflows")
    p.add_argument("-o", "--output", help="output file (default stdout)")
    p.add_argument("--stats", action="store_true", help="print what was generated to stderr")
    args = p.parse_args()
    size = parse_size(args.size)
    if args.shape == "longline" and "--size" not in sys.argv:
        size = 10 << 20

    stream = open(args.output, "wb") if args.output else sys.stdout.buffer
    if args.errors or args.warnings:
        write_with_errors(args, size, stream)
    else:
        write_program(args, size, stream)
    if args.output:
        stream.close()


def write_program(args, size, stream):
    out = Out(stream, args.crlf, args.shape == "longline")
    gen = Generator(args, out)
    if args.shape in ("realistic", "longline"):
        gen.realistic(size)
        out.finish()
    elif args.shape == "chain":
        shape_chain(out, args.steps)
        gen.steps_written = args.steps
    elif args.shape == "deep":
        shape_deep(out, args.depth, size)
    elif args.shape == "wide":
        shape_wide(out, args.fields)
    elif args.shape == "longexpr":
        shape_longexpr(out, args.terms)
    elif args.shape == "badfields":
        shape_badfields(out, args.fields)
    elif args.shape == "badworkflows":
        shape_badworkflows(out, args.workflows)
    elif args.shape == "typechain":
        shape_typechain(out, args.types)
    elif args.shape == "strconcat":
        shape_strconcat(out, args.terms)
    elif args.shape == "childdag":
        shape_childdag(out, args.workflows)
    if args.stats:
        print("%d bytes, %d steps" % (out.written, gen.steps_written), file=sys.stderr)


def write_with_errors(args, size, stream):
    """A realistic program (or one line of it) with args.errors mistakes and
    args.warnings warnings."""
    buf = io.BytesIO()
    out = Out(buf, False, args.shape == "longline")
    Generator(args, out).realistic(size)
    out.finish()
    text, done = inject_errors(buf.getvalue().decode("utf-8"), args.errors,
                               random.Random(args.seed + 7919))
    text, warned = inject_warnings(text, args.warnings, random.Random(args.seed + 104729))
    done = sorted(done + warned)
    if args.crlf:
        text = text.replace("\n", "\r\n")
    stream.write(text.encode("utf-8"))
    if args.stats or len(done) < args.errors + args.warnings:
        for line, what in done:
            print("mistake at line %d: %s" % (line, what), file=sys.stderr)
        if len(done) < args.errors + args.warnings:
            print("only %d mistakes fit in this program" % len(done), file=sys.stderr)


if __name__ == "__main__":
    main()
