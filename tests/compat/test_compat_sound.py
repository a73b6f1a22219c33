#!/usr/bin/env python3
"""`orbitc compat` is sound against `orbit-run replay` (docs/compat-soundness.md).

Over generated pairs of programs (tests/compat/gen_pairs.py: an OLD, then NEWs made from it
by one to three changes of every kind compat knows, an unchanged one and a format-only
one among them) and the histories of OLD (its scenarios run by `orbit-run --format json
--show-values`), every prefix of every history (cut after each record) is a history
stopped where it was: its places are what `orbit-run replay OLD.orbc PREFIX` says (the one
derivation of places; replaying OLD's own history must continue, too). Then:

- **sound**: where `orbitc compat OLD NEW --format json` says that every place of the
  prefix can continue, `orbit-run replay NEW.orbc PREFIX` says `continues` or `finished`;
  otherwise the verdict is unsound, the case fails and prints the pair, the prefix and
  both outputs, saved under the build directory's `compat-sound-failures/` (or
  $ORBIT_COMPAT_SOUND_SAVE) to be kept as a regression under tests/compat/regressions/;
- compat's `places` lists every place a replayed prefix reports;
- a pair without a change, or with a format-only change, has no error-level change and
  every place `continue: true`;
- the counts are printed: pairs, histories, prefixes, places, the verdicts (agreed,
  conservative: compat says blocked where replay continues; unsound: must be 0).

The default suite runs ORBIT_COMPAT_SOUND_PAIRS=60 pairs (three NEWs per OLD) from
ORBIT_COMPAT_SOUND_SEED=1 (20 under the sanitizers' setup, ORBIT_CORPUS_SAMPLE=3); the larger run
is on demand:

    ORBIT_COMPAT_SOUND_PAIRS=500 tests/run compat_sound_generated

A prefix at no place makes no claim and is counted apart: one that ended (the workflow
completed, failed, timed out or is blocked), or one cut between the records of one event
(after StepCompleted, before the next step's StepScheduled: replay says it waits nowhere). Every regression of tests/compat/regressions/ (an OLD, a NEW
and a history) is judged the same way.
"""
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # support
import gen_pairs  # noqa: E402
from support import cases, paths, proc  # noqa: E402
from support.cases import expect, test  # noqa: E402

ORBITC = None
ORBIT_RUN = None
TMP = None

REGRESSIONS = os.path.join(HERE, "regressions")
CONTINUES = ("continues", "finished")
ENDED = ("WorkflowCompleted", "WorkflowFailed", "WorkflowTimedOut", "WorkflowBlocked")
NEWS_PER_OLD = 3
# The rules a format-only change may report and the places they may block: the bytecode
# keeps each expression's line and column, which the message of its expression error
# names, so an execution whose history could hold such a message is stopped by compat
# (docs/compat.md, code-moved). Counted in format_blocked_places.
FORMAT_CHANGES = {"code-moved"}
SCENARIOS_PER_OLD = 4


def cache_env(tmp):
    """No run writes a cache outside the test's directory."""
    return {"ORBITC_CACHE_DIR": os.path.join(tmp, "cache"),
            "XDG_CACHE_HOME": os.path.join(tmp, "xdg")}


# ------------------------------------------------------------------ the judge (pure)


class Counts:
    FIELDS = ["pairs", "unchanged_pairs", "histories", "distinct_prefixes", "prefixes",
              "ended_prefixes",
              "between_prefixes", "judged_prefixes", "places", "agreed_continue", "agreed_blocked",
              "conservative", "unsound", "forgotten_places", "self_divergent",
              "format_blocked_places"]

    def __init__(self):
        self.lock = threading.Lock()
        for f in self.FIELDS:
            setattr(self, f, 0)
        self.conservative_rules = {}   # rule -> conservative prefixes it blocked
        self.conservative_examples = {}   # rule -> one of them: the pair's changes, places

    def add(self, other):
        with self.lock:
            for f in self.FIELDS:
                setattr(self, f, getattr(self, f) + getattr(other, f))
            for rule, n in other.conservative_rules.items():
                self.conservative_rules[rule] = self.conservative_rules.get(rule, 0) + n
            for rule, example in other.conservative_examples.items():
                self.conservative_examples.setdefault(rule, example)

    def as_dict(self):
        d = {f: getattr(self, f) for f in self.FIELDS}
        d["conservative_rules"] = dict(sorted(self.conservative_rules.items()))
        d["conservative_examples"] = dict(sorted(self.conservative_examples.items()))
        return d

    def text(self):
        d = self.as_dict()
        claim_ok = d["agreed_continue"] + d["conservative"]
        share = 100.0 * d["conservative"] / claim_ok if claim_ok else 0.0
        return ("compat soundness: %(pairs)d pairs (%(unchanged_pairs)d without a change of "
                "behaviour), %(histories)d histories, %(distinct_prefixes)d prefixes judged "
                "against each NEW: %(prefixes)d verdicts (%(ended_prefixes)d "
                "ended, %(between_prefixes)d cut between an event's records with no place, "
                "%(judged_prefixes)d at places), %(places)d places; verdicts: "
                "%(agreed_continue)d continue (compat and replay), %(agreed_blocked)d blocked "
                "(compat and replay), %(conservative)d conservative, %(unsound)d unsound; "
                "%(forgotten_places)d places compat did not list; %(self_divergent)d "
                "histories of OLD that OLD does not replay" % d
                + "; conservative: %.1f%% of the prefixes replay continues" % share
                + "; the rules behind them: %s" % ", ".join(
                    "%s %d" % kv for kv in sorted(self.conservative_rules.items(),
                                                  key=lambda kv: (-kv[1], kv[0])))
                + "; places blocked by a format-only change's %s: %d"
                % ("/".join(sorted(FORMAT_CHANGES)), d["format_blocked_places"]))


def compat_places(report):
    """id -> the place object of compat's report."""
    return {p["id"]: p for p in report.get("places", [])}


def judge(report, places, verdict):
    """The verdict of one prefix: `places` its place ids (from replay against OLD),
    `verdict` replay's against NEW ('continues', 'finished', 'diverges', or None when
    replay could not run NEW). Returns (kind, forgotten ids): kind one of 'no_place' (no
    claim), 'agreed_continue', 'agreed_blocked', 'conservative', 'unsound'."""
    if not places:
        return "no_place", []
    listed = compat_places(report)
    forgotten = [p for p in places if p not in listed]
    claim = not forgotten and all(listed[p].get("continue") is True for p in places)
    replays = verdict in CONTINUES
    if claim:
        return ("agreed_continue" if replays else "unsound"), forgotten
    return ("conservative" if replays else "agreed_blocked"), forgotten


def check_report_shape(report, where):
    """The facts of compat's JSON that the judge relies on (docs/compat.schema.json)."""
    for key in ("changes", "places", "summary"):
        expect(key in report, "%s: compat's JSON has no %r" % (where, key))
    blocked = 0
    for p in report["places"]:
        expect(isinstance(p.get("continue"), bool), "%s: place %r without a boolean continue"
               % (where, p.get("id")))
        expect(all(isinstance(i, int) and 0 <= i < len(report["changes"]) for i in p["changes"]),
               "%s: place %s names a change that is not in changes" % (where, p["id"]))
        blocked += not p["continue"]
    expect(report["summary"]["places"] == len(report["places"])
           and report["summary"]["places_blocked"] == blocked,
           "%s: summary counts %r, the list %d places, %d blocked"
           % (where, report["summary"], len(report["places"]), blocked))


# ------------------------------------------------------------------ running the tools


def run(argv, tmp, timeout=300, cwd=None):
    return proc.run(argv, env_extra=cache_env(tmp), timeout=timeout, cwd=cwd)


def build(src, out, tmp):
    """SRC built into OUT from SRC's directory, so that the bytecode names the file by its
    name alone: OLD and NEW are one file, prog.orbit, in two versions."""
    status, stdout, stderr = run([ORBITC, "build", os.path.basename(src), "-o",
                                  os.path.abspath(out)], tmp, cwd=os.path.dirname(src))
    expect(status == 0 and not stdout and not stderr,
           "the checker refused a generated program (a generator bug) %s: status %d\n%s%s\n%s"
           % (src, status, stdout, stderr, open(src, encoding="utf-8").read()))


def history(orbc, scenario, tmp):
    """The records of a scenario's run (the final status line left out)."""
    status, out, err = run([ORBIT_RUN, orbc, "--scenario", scenario, "--format", "json",
                            "--show-values"], tmp)
    expect(status in (0, 1), "orbit-run %s --scenario %s: status %d\n%s"
           % (orbc, scenario, status, err))
    return [line for line in out.splitlines() if line.strip() and '"seq"' in line]


def json_objects(text):
    """Replay's and compat's JSON: one object, a list, or one object a line."""
    text = text.strip()
    if not text:
        return []
    try:
        v = json.loads(text)
        return v if isinstance(v, list) else [v]
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def replay(orbc, histories, tmp):
    """({history path: replay's object}, status); or (None, why) when it could not run
    (status 2) on the one history given. When it could not run on several, each is
    replayed alone: those it could not run have the object {"verdict": None, "why": …}."""
    status, out, err = run([ORBIT_RUN, "replay", orbc] + histories + ["--format", "json"], tmp)
    if status == 2 and len(histories) == 1:
        return None, "status 2: %s" % err.strip()
    if status == 2:
        by = {}
        for path in histories:
            one, why = replay(orbc, [path], tmp)
            by[path] = one[path] if one is not None else {"history": path, "verdict": None,
                                                          "why": why}
        return by, 2
    expect(status in (0, 1), "orbit-run replay %s: status %d\n%s" % (orbc, status, err))
    objs = json_objects(out)
    expect(len(objs) == len(histories), "orbit-run replay %s: %d objects for %d histories"
           % (orbc, len(objs), len(histories)))
    by = {}
    for path, obj in zip(histories, objs):
        expect(obj.get("history") == path, "replay's objects out of order: %r for %s"
               % (obj.get("history"), path))
        by[path] = obj
    return by, status


def compat(old, new, tmp):
    """compat's report of OLD.orbc -> NEW.orbc (the bytecode that replay runs)."""
    status, out, err = run([ORBITC, "compat", old, new, "--format", "json"], tmp)
    expect(status in (0, 1), "orbitc compat %s %s: status %d\n%s" % (old, new, status, err))
    objs = json_objects(out)
    expect(len(objs) == 1, "orbitc compat: not one JSON object:\n%s" % out)
    report = objs[0]
    check_report_shape(report, "compat %s %s" % (old, new))
    return report


def write_prefixes(records, stem):
    """PREFIX files: the first k records for every k; returns their paths."""
    out = []
    for k in range(1, len(records) + 1):
        path = "%s-%03d.jsonl" % (stem, k)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(records[:k]) + "\n")
        out.append(path)
    return out


def ended(prefix):
    """Whether the history has its end (WorkflowCompleted, …), or was cut before it."""
    with open(prefix, encoding="utf-8") as f:
        return any(json.loads(line).get("event") in ENDED for line in f if line.strip())


def save_failure(kind, old, new, prefix, report, replayed, places):
    """Keeps an unsound (or forgotten) verdict's inputs and outputs for a regression, laid
    out as tests/compat/regressions/NAME/ is."""
    root = os.environ.get("ORBIT_COMPAT_SOUND_SAVE") or os.path.join(paths.build_dir(),
                                                                    "compat-sound-failures")
    os.makedirs(root, exist_ok=True)
    dest = tempfile.mkdtemp(prefix=kind + "-", dir=root)
    for side, src in (("old", old), ("new", new)):
        os.makedirs(os.path.join(dest, side))
        shutil.copy(src, os.path.join(dest, side, "prog.orbit"))
    shutil.copy(prefix, os.path.join(dest, "history.jsonl"))
    with open(os.path.join(dest, "outputs.json"), "w", encoding="utf-8") as f:
        json.dump({"places": places, "compat": report, "replay": replayed}, f, indent=1)
    return dest


def describe(kind, old, new, changes, prefix, places, report, replayed, saved):
    listed = compat_places(report)
    return "\n".join([
        "%s: %s -> %s (%s)" % (kind.upper(), old, new, "; ".join(changes)),
        "prefix %s (%d records), its places %s" % (prefix, sum(1 for _ in open(prefix)), places),
        "compat's places: %s" % json.dumps([listed.get(p) for p in places]),
        "compat's changes: %s" % json.dumps(report.get("changes")),
        "replay against NEW: %s" % json.dumps(replayed),
        "saved in %s" % saved])


# ------------------------------------------------------------------ one pair, one OLD


def judge_pair(old_src, new_src, changes, prefixes, old_places, old_orbc, new_orbc, tmp, counts,
               failures, unchanged):
    """Judges every prefix of OLD's histories for the pair; `unchanged`: "none" (no change)
    or "format" (layout and comments only), else None."""
    report = compat(old_orbc, new_orbc, tmp)
    replayed, why = replay(new_orbc, prefixes, tmp)
    counts.pairs += 1
    if unchanged:
        counts.unchanged_pairs += 1
        errors = [c for c in report["changes"] if c.get("level") == "error"
                  and not (unchanged == "format" and c.get("rule") in FORMAT_CHANGES)]
        expect(not errors, "%s -> %s (%s): error-level changes %s"
               % (old_src, new_src, changes, json.dumps(errors)))
        allowed = {i for i, c in enumerate(report["changes"])
                   if unchanged == "format" and c.get("rule") in FORMAT_CHANGES}
        blocked = [p["id"] for p in report["places"]
                   if not p["continue"] and not set(p["changes"]) <= allowed]
        counts.format_blocked_places += len(report["places"]) - len(blocked) - sum(
            p["continue"] for p in report["places"])
        expect(not blocked, "%s -> %s (%s): places blocked %s" % (old_src, new_src, changes, blocked))
    for prefix in prefixes:
        places = old_places[prefix]
        verdict = replayed[prefix]["verdict"] if replayed is not None else None
        kind, forgotten = judge(report, places, verdict)
        counts.prefixes += 1
        if kind == "no_place":
            if ended(prefix):
                counts.ended_prefixes += 1
            else:
                counts.between_prefixes += 1
            continue
        counts.judged_prefixes += 1
        counts.places += len(places)
        setattr(counts, kind, getattr(counts, kind) + 1)
        if kind == "conservative":
            listed = compat_places(report)
            rules = {report["changes"][i]["rule"] for p in places if p in listed
                     for i in listed[p]["changes"]}
            for rule in rules:
                counts.conservative_rules[rule] = counts.conservative_rules.get(rule, 0) + 1
                counts.conservative_examples.setdefault(rule, {
                    "changes": changes, "places": places,
                    "messages": sorted({report["changes"][i]["message"] for p in places
                                        if p in listed for i in listed[p]["changes"]}),
                    "last_record": open(prefix, encoding="utf-8").read().splitlines()[-1]})
        out = replayed[prefix] if replayed is not None else why
        if forgotten:
            counts.forgotten_places += len(forgotten)
            saved = save_failure("forgotten", old_src, new_src, prefix, report, out, places)
            failures.append(describe("compat forgot places %s" % forgotten, old_src, new_src,
                                     changes, prefix, places, report, out, saved))
        if kind == "unsound":
            saved = save_failure("unsound", old_src, new_src, prefix, report, out, places)
            failures.append(describe(kind, old_src, new_src, changes, prefix, places, report,
                                     out, saved))
        elif unchanged and (replayed is None or replayed[prefix]["verdict"] not in CONTINUES):
            failures.append(describe("unchanged but replay diverges", old_src, new_src, changes,
                                     prefix, places, report, out, "(not saved)"))


def old_places_of(orbc, prefixes, tmp, counts, failures, where):
    """prefix -> its place ids, from replay against OLD itself (which must continue)."""
    replayed, why = replay(orbc, prefixes, tmp)
    expect(replayed is not None, "%s: orbit-run replay of OLD's own histories: %s" % (where, why))
    expect(why != 2, "%s: orbit-run replay could not run OLD's own histories: %s"
           % (where, [o for o in replayed.values() if o["verdict"] is None][:3]))
    places = {}
    for prefix in prefixes:
        obj = replayed[prefix]
        if obj["verdict"] not in CONTINUES:
            counts.self_divergent += 1
            failures.append("%s: replaying OLD's own history %s against OLD: %s"
                            % (where, prefix, json.dumps(obj)))
        places[prefix] = sorted(p["id"] for p in obj.get("places", []))
    return places


def one_old(seed, tmp_root, counts, failures):
    tmp = os.path.join(tmp_root, "old-%d" % seed)
    made = gen_pairs.generate(seed, tmp, NEWS_PER_OLD, SCENARIOS_PER_OLD)
    mine = Counts()
    old_orbc = os.path.join(tmp, "old.orbc")
    build(made["old"], old_orbc, tmp)
    prefixes = []
    for j, scenario in enumerate(made["scenarios"]):
        records = history(old_orbc, scenario, tmp)
        mine.histories += 1
        prefixes += write_prefixes(records, os.path.join(tmp, "h%d" % j))
    mine.distinct_prefixes += len(prefixes)
    old_places = old_places_of(old_orbc, prefixes, tmp, mine, failures, "seed %d" % seed)
    for k, (new_src, changes) in enumerate(made["new"], 1):
        new_orbc = os.path.join(tmp, "new-%d.orbc" % k)
        build(new_src, new_orbc, tmp)
        unchanged = None
        if all(c.startswith(("none:", "format:")) for c in changes):
            unchanged = "format" if any(c.startswith("format:") for c in changes) else "none"
        judge_pair(made["old"], new_src, changes, prefixes, old_places, old_orbc, new_orbc, tmp,
                   mine, failures, unchanged)
    counts.add(mine)


def run_generated(pairs, seed0):
    counts = Counts()
    failures = []
    olds = max(1, -(-pairs // NEWS_PER_OLD))
    tmp_root = os.path.join(TMP, "generated")
    jobs = min(4, os.cpu_count() or 1)
    errors = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(one_old, seed0 + i, tmp_root, counts, failures): seed0 + i
                   for i in range(olds)}
        for fut in concurrent.futures.as_completed(futures):
            try:
                fut.result()
            except AssertionError as e:
                errors.append("seed %d: %s" % (futures[fut], e))
            except Exception:   # a crash of the generator or the test: the seed, and go on
                errors.append("seed %d: %s" % (futures[fut], traceback.format_exc()))
            else:   # a seed's files are kept only while it fails
                shutil.rmtree(os.path.join(tmp_root, "old-%d" % futures[fut]), True)
    return counts, failures, errors


# ------------------------------------------------------------------ the cases


@test
def compat_sound_judge():
    """The judge can fail: an unsound verdict, a forgotten place, an ended prefix."""
    report = {"changes": [{"rule": "step-removed", "level": "error"}], "places": [
        {"id": "main/a#queued:1", "continue": True, "changes": []},
        {"id": "main/b#queued:1", "continue": False, "changes": [0]}]}
    expect(judge(report, ["main/a#queued:1"], "diverges")[0] == "unsound", "unsound not seen")
    expect(judge(report, ["main/a#queued:1"], None)[0] == "unsound",
           "replay unable to run NEW is no continuation")
    expect(judge(report, ["main/a#queued:1"], "continues")[0] == "agreed_continue", "agreed")
    expect(judge(report, ["main/a#queued:1"], "finished")[0] == "agreed_continue", "finished")
    expect(judge(report, ["main/a#queued:1", "main/b#queued:1"], "continues")[0] == "conservative",
           "one blocked place blocks the prefix")
    expect(judge(report, ["main/b#queued:1"], "diverges")[0] == "agreed_blocked", "blocked")
    kind, forgotten = judge(report, ["main/c#sleep"], "continues")
    expect(forgotten == ["main/c#sleep"] and kind == "conservative", "forgotten place")
    expect(judge(report, [], "diverges")[0] == "no_place", "a history at no place claims nothing")
    bad = {"changes": [], "places": [{"id": "x", "continue": True, "changes": [3]}],
           "summary": {"places": 1, "places_blocked": 0}}
    try:
        check_report_shape(bad, "bad")
    except AssertionError:
        pass
    else:
        raise AssertionError("a place naming a change that does not exist passed")


@test
def compat_sound_generator_deterministic():
    """The same seed writes the same bytes; another seed other programs."""
    a, b, c = (os.path.join(TMP, "det", x) for x in "abc")
    for d, seed in ((a, 5), (b, 5), (c, 6)):
        gen_pairs.generate(seed, d)
    walk = lambda d: sorted(os.path.relpath(os.path.join(r, f), d)
                            for r, _, fs in os.walk(d) for f in fs)
    names = walk(a)
    expect(names == walk(b) and "new-3/prog.orbit" in names, "different files: %s" % names)
    read = lambda d, n: open(os.path.join(d, n), "rb").read()
    expect(all(read(a, n) == read(b, n) for n in names), "seed 5 twice: different bytes")
    expect(read(a, "old/prog.orbit") != read(c, "old/prog.orbit"), "seeds 5 and 6 gave one program")


@test
def compat_sound_programs_check():
    """The generated programs check clean, and their scenarios run (a sample of seeds; the
    generated pairs' case checks every program it judges)."""
    for seed in range(1000, 1006):
        tmp = os.path.join(TMP, "programs", str(seed))
        made = gen_pairs.generate(seed, tmp)
        build(made["old"], os.path.join(tmp, "old.orbc"), tmp)
        for new, _ in made["new"]:
            build(new, new[:-len(".orbit")] + ".orbc", tmp)
        for scenario in made["scenarios"]:
            expect(history(os.path.join(tmp, "old.orbc"), scenario, tmp), "no history")


@test
def compat_sound_generated():
    # a third of them under the sanitizers' setup (support.cases.corpus_sample's rule)
    pairs = int(os.environ.get("ORBIT_COMPAT_SOUND_PAIRS") or 60 // cases.CORPUS_SAMPLE)
    seed0 = int(os.environ.get("ORBIT_COMPAT_SOUND_SEED", "1"))
    counts, failures, errors = run_generated(pairs, seed0)
    print(counts.text())
    out = os.environ.get("ORBIT_COMPAT_SOUND_COUNTS")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(counts.as_dict(), f, indent=1, sort_keys=True)
    expect(not errors, "%d seeds could not be judged:\n%s" % (len(errors), "\n\n".join(errors[:5])))
    expect(not failures, "%d failures:\n%s" % (len(failures), "\n\n".join(failures[:5])))
    expect(counts.unsound == 0 and counts.judged_prefixes > 0, counts.text())


def unchanged_problems(report):
    """The error-level changes and the blocked places of a report of no change."""
    errors = [c["rule"] for c in report["changes"] if c.get("level") == "error"]
    blocked = [p["id"] for p in report["places"] if not p["continue"]]
    return errors, blocked


@test
def compat_sound_unchanged_through_git():
    """The CI recipe on an unchanged program: `orbitc compat git:HEAD NEW` in a repository
    whose work tree is HEAD, NEW spelt `prog.orbit` or `.`: no error-level change, every
    place continues (`.` once named its file `./prog.orbit` where the revision said
    `prog.orbit`, and code-moved stopped executions for it)."""
    env = {"HOME": TMP, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    for seed in (1, 2):
        made = gen_pairs.generate(seed, os.path.join(TMP, "git-gen-%d" % seed), 1, 0)
        repo = os.path.join(TMP, "git-%d" % seed)
        os.makedirs(repo)
        shutil.copy(made["old"], os.path.join(repo, "prog.orbit"))
        for argv in (["git", "init", "-q"], ["git", "add", "prog.orbit"],
                     ["git", "commit", "-q", "-m", "v1"]):
            status, _, err = proc.run(argv, cwd=repo, env_extra=env)
            expect(status == 0, "%s: %s" % (argv, err))
        for new in ("prog.orbit", "."):
            status, out, err = proc.run([ORBITC, "compat", "git:HEAD", new, "--format", "json"],
                                        cwd=repo, env_extra=dict(env, **cache_env(TMP)))
            expect(status in (0, 1), "compat git:HEAD %s: status %d: %s" % (new, status, err))
            report = json_objects(out)[0]
            check_report_shape(report, "compat git:HEAD %s" % new)
            errors, blocked = unchanged_problems(report)
            expect(status == 0 and not errors and not blocked,
                   "seed %d, compat git:HEAD %s of an unchanged program: status %d, errors "
                   "%s, blocked %s" % (seed, new, status, errors, blocked))


def regression_dirs():
    if not os.path.isdir(REGRESSIONS):
        return []
    return sorted(os.path.join(REGRESSIONS, d) for d in os.listdir(REGRESSIONS)
                  if os.path.isfile(os.path.join(REGRESSIONS, d, "old", "prog.orbit")))


@test
def compat_sound_regressions():
    """Each kept pair (old/prog.orbit, new/prog.orbit, its histories: history*.jsonl, whose
    every prefix is judged, or scenario*.json, run on OLD; `unchanged`: "none" or "format",
    judged as a pair of no change; about.txt, why it is kept) is judged as a generated one."""
    counts = Counts()
    failures = []
    for d in regression_dirs():
        tmp = os.path.join(TMP, "regress", os.path.basename(d))
        os.makedirs(tmp)
        old, new = os.path.join(d, "old", "prog.orbit"), os.path.join(d, "new", "prog.orbit")
        old_orbc, new_orbc = os.path.join(tmp, "old.orbc"), os.path.join(tmp, "new.orbc")
        build(old, old_orbc, tmp)
        build(new, new_orbc, tmp)
        prefixes = []
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if name.startswith("history") and name.endswith(".jsonl"):
                records = [l for l in open(path, encoding="utf-8").read().splitlines()
                           if '"seq"' in l]
            elif name.startswith("scenario") and name.endswith(".json"):
                records = history(old_orbc, path, tmp)
            else:
                continue
            counts.histories += 1
            prefixes += write_prefixes(records, os.path.join(tmp, name))
        expect(prefixes, "%s: no history" % d)
        counts.distinct_prefixes += len(prefixes)
        places = old_places_of(old_orbc, prefixes, tmp, counts, failures, d)
        about = os.path.join(d, "about.txt")
        changes = [open(about, encoding="utf-8").read().strip()] if os.path.exists(about) else []
        marker = os.path.join(d, "unchanged")   # "none" or "format": judged as such a pair
        unchanged = open(marker).read().strip() if os.path.exists(marker) else None
        judge_pair(old, new, changes, prefixes, places, old_orbc, new_orbc, tmp, counts,
                   failures, unchanged)
    print(counts.text())
    expect(not failures, "%d failures:\n%s" % (len(failures), "\n\n".join(failures[:5])))


if __name__ == "__main__":
    cases.main(programs=("ORBITC", "ORBIT_RUN"))
