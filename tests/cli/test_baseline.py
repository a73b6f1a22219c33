#!/usr/bin/env python3
"""`orbitc check --baseline`, `--write-baseline` and `--add-suppressions` (docs/cli.md,
"Baseline" and "Adding suppressions"), and the language server's baseline
(docs/editors.md): the file validated against docs/baseline.schema.json and written the
same twice; a baseline survives lines inserted above, `orbitc fmt` and a workflow moved
to another file of its program; a new warning fails the run and a fixed one is listed
for pruning; the file only ever shrinks; equal warnings are counted; the demo of issue
32, a generated repository of 500 warnings adopting --deny-warnings with one
--write-baseline; suppressions added once, formatted, and never for errors. The
baseline's survival of fmt and the suppressions are also tried on every golden source
with warnings.

    test_baseline.py --orbitc build/cli/orbitc [-k NAME]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lsp'))
import test_lsp as L  # noqa: E402  (the scripted language client's Workspace)

SCHEMA = os.path.join(ROOT, "docs", "baseline.schema.json")
VALIDATE = os.path.join(ROOT, "tools", "validate_json.py")
GEN = os.path.join(ROOT, "tools", "gen_corpus.py")
ORBITC = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import CORPUS_SAMPLE, corpus_sample, main as run_cases, test  # noqa: E402,F401



def run(*args, cwd):
    p = subprocess.run([ORBITC] + list(args), cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def json_codes(out):
    return [json.loads(line)["code"] for line in out.splitlines() if line.strip()]


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


class Dir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="orbitc-baseline-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


# Two warnings (W0002) in two steps, and room for more.
PROGRAM = """worker "pay.charge" {}

workflow checkout {
  timeout 10m
  step charge {
    worker "pay.charge"
    retry { attempts: 3, backoff: fixed, max_delay: 5s }
  }
  step refund {
    worker "pay.charge"
    retry { attempts: 3, backoff: fixed, max_delay: 5s }
  }
}
"""


def validated(path):
    p = subprocess.run([sys.executable, VALIDATE, "--document", SCHEMA, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, "schema: " + p.stdout.decode()
    return json.loads(read(path))


@test
def written_file_is_valid_sorted_and_stable():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0, err
        assert "wrote the baseline `b.json`: 2 warnings in 2 entries" in err, err
        doc = validated(os.path.join(d, "b.json"))
        first = read(os.path.join(d, "b.json"))
        assert first.endswith("}\n") and "\n  \"entries\": [\n" in first, first
        scopes = [e["scope"] for e in doc["entries"]]
        assert scopes == ["workflow checkout > step charge", "workflow checkout > step refund"], scopes
        assert all(e["program"] == "" and e["file"] == "a.orbit" for e in doc["entries"]), doc
        # the same check writes the same bytes, from another directory too
        status, _, err = run("check", "--write-baseline", os.path.join(d, "b.json"),
                             os.path.join(d, "a.orbit"), cwd="/")
        assert status == 0 and read(os.path.join(d, "b.json")) == first, err
        assert "the baseline `%s` is unchanged: 2 warnings in 2 entries" % os.path.join(d, "b.json") in err, err


@test
def nothing_reported_and_warnings_not_denied():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, _, _ = run("check", "--deny-warnings", "a.orbit", cwd=d)
        assert status == 1
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 0 and out == "", (out, err)
        assert "2 warnings of the baseline `b.json` not shown" in err, err


@test
def survives_lines_inserted_above():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        write(os.path.join(d, "a.orbit"), "// a comment\n\n\nworker \"x.y\" {}\n\n" + PROGRAM)
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 0 and out == "" and "no longer" not in err, (out, err)


@test
def survives_fmt():
    with Dir() as d:
        # a layout fmt changes: members on one line, separators, odd indentation
        ugly = PROGRAM.replace("    retry { attempts: 3, backoff: fixed, max_delay: 5s }",
                               "      retry {attempts: 3;backoff: fixed\n max_delay: 5s,}")
        write(os.path.join(d, "a.orbit"), ugly)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0, err
        status, _, err = run("fmt", "a.orbit", cwd=d)
        assert status == 0 and read(os.path.join(d, "a.orbit")) != ugly, err
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 0 and out == "" and "no longer" not in err, (out, err)


@test
def survives_a_workflow_moved_to_another_file_of_its_program():
    with Dir() as d:
        write(os.path.join(d, "pay", "orbit.program"), "")
        write(os.path.join(d, "pay", "a.orbit"), PROGRAM)
        write(os.path.join(d, "pay", "b.orbit"), "worker \"other.w\" {}\n")
        status, _, err = run("check", "--write-baseline", "b.json", ".", cwd=d)
        assert status == 0, err
        doc = validated(os.path.join(d, "b.json"))
        assert {e["program"] for e in doc["entries"]} == {"pay"}, doc
        worker, workflow = PROGRAM.split("\n\n", 1)
        write(os.path.join(d, "pay", "a.orbit"), worker + "\n")
        write(os.path.join(d, "pay", "b.orbit"), "worker \"other.w\" {}\n\n" + workflow)
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", ".", cwd=d)
        assert status == 0 and out == "" and "no longer" not in err, (out, err)
        # written again, the entries name the file the warnings are in now
        run("check", "--write-baseline", "b.json", ".", cwd=d)
        doc = validated(os.path.join(d, "b.json"))
        assert {e["file"] for e in doc["entries"]} == {"pay/b.orbit"}, doc
        # but a workflow moved to another program is new there
        write(os.path.join(d, "ship", "orbit.program"), "")
        os.rename(os.path.join(d, "pay", "b.orbit"), os.path.join(d, "ship", "b.orbit"))
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", ".", cwd=d)
        assert status == 1 and json_codes(out) == ["W0002", "W0002"], (out, err)


GOLDEN_CODES = {}


def golden_sources():
    import glob
    return corpus_sample(sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "**", "*.orbit"), recursive=True)))


def golden_codes(source):
    """The codes of `orbitc check --format json` on the golden source copied alone (to
    a.orbit in a directory of its own, a program of its own: an empty orbit.program):
    asked once, of every source in one run, for the two tests below, each of which tries
    only the sources with warnings (a process start each, slow under the sanitizers)."""
    if not GOLDEN_CODES:
        sources = golden_sources()
        with Dir() as d:
            for i, path in enumerate(sources):
                write(os.path.join(d, "%03d" % i, "orbit.program"), "")
                shutil.copy(path, os.path.join(d, "%03d" % i, "a.orbit"))
            status, out, err = run("check", "--format", "json", "--max-diagnostics=0",
                                   *sorted(os.listdir(d)), cwd=d)
            assert status in (0, 1), err
            found = [[] for _ in sources]
            for line in out.splitlines():
                diagnostic = json.loads(line)
                found[int(diagnostic["file"].split("/")[0])].append(diagnostic["code"])
            GOLDEN_CODES.update(zip(sources, found))
    return GOLDEN_CODES[source]


@test
def every_golden_warning_survives_fmt_and_lines_above():
    """Each golden source with warnings that fmt formats: its baseline still matches
    every warning, none stale, after `orbitc fmt` and three lines added at the top."""
    tried = 0
    for source in golden_sources():
        if not any(c.startswith("W") for c in golden_codes(source)):
            continue
        with Dir() as d:
            path = os.path.join(d, "a.orbit")
            shutil.copy(source, path)
            run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
            with open(os.path.join(d, "b.json"), encoding="utf-8") as f:
                assert json.load(f)["entries"], (source, "its warnings are not in the baseline")
            if run("fmt", "a.orbit", cwd=d)[0] != 0:
                continue   # syntax errors: fmt leaves it
            with open(path, "rb") as f:
                text = f.read()
            with open(path, "wb") as f:
                f.write(b"// moved down\n\n\n" + text)
            tried += 1
            _, out, err = run("check", "--baseline", "b.json", "--format", "json", "a.orbit", cwd=d)
            left = [c for c in json_codes(out) if c.startswith("W")]
            assert not left and "no longer" not in err, (source, left, err)
    assert tried >= 25 // CORPUS_SAMPLE, "golden sources with warnings that fmt formats: %d" % tried


@test
def a_new_warning_fails_and_is_the_only_one_shown():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        write(os.path.join(d, "a.orbit"), PROGRAM.replace(
            "  step refund {", "  step again {\n    worker \"pay.charge\"\n"
            "    retry { attempts: 2, non_retryable: [\"A\", \"A\"] }\n  }\n  step refund {"))
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 1 and json_codes(out) == ["W0004"], (out, err)
        status, _, _ = run("check", "--baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0, "without --deny-warnings, a warning does not fail"


@test
def a_fixed_warning_is_listed_for_pruning_and_pruned():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        fixed = PROGRAM.replace("backoff: fixed, max_delay: 5s }\n  }\n  step refund",
                                "backoff: fixed }\n  }\n  step refund")
        assert fixed != PROGRAM
        write(os.path.join(d, "a.orbit"), fixed)
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings", "a.orbit", cwd=d)
        assert status == 0, err
        assert ("1 warning of the baseline `b.json` no longer occurs; "
                "`orbitc check --write-baseline b.json` prunes it:\n"
                "  a.orbit: W0002 in workflow checkout > step charge (1 of 1)\n") in err, err
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0 and "1 warning in 1 entry; 1 no longer occurring was pruned" in err, err
        doc = validated(os.path.join(d, "b.json"))
        assert [e["scope"] for e in doc["entries"]] == ["workflow checkout > step refund"], doc


@test
def compared_with_one_file_written_to_another():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "old.json", "a.orbit", cwd=d)
        fixed = PROGRAM.replace("backoff: fixed, max_delay: 5s }\n  }\n  step refund",
                                "backoff: fixed }\n  }\n  step refund")
        write(os.path.join(d, "a.orbit"), fixed)
        status, _, err = run("check", "--baseline", "old.json", "--write-baseline", "new.json",
                             "a.orbit", cwd=d)
        assert status == 0 and "1 warning in 1 entry; 1 no longer occurring was pruned" in err, err
        assert len(validated(os.path.join(d, "old.json"))["entries"]) == 2, "old.json untouched"
        assert len(validated(os.path.join(d, "new.json"))["entries"]) == 1


@test
def write_baseline_never_grows():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        before = read(os.path.join(d, "b.json"))
        write(os.path.join(d, "a.orbit"), PROGRAM.replace("timeout 10m", "timeout 10m\n  step s {"
                                                          " worker \"pay.charge\"; retry { "
                                                          "backoff: fixed, max_delay: 1s } }"))
        status, out, err = run("check", "--write-baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 1 and json_codes(out) == ["W0002"], (out, err)
        assert "the 1 new warning above was not added" in err, err
        assert read(os.path.join(d, "b.json")) == before, "the file did not grow"


@test
def equal_warnings_are_counted():
    three = PROGRAM.replace("backoff: fixed, max_delay: 5s }\n  }\n  step refund",
                            "non_retryable: [\"A\", \"A\", \"A\"] }\n  }\n  step refund")
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), three)
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        doc = validated(os.path.join(d, "b.json"))
        w4 = [e for e in doc["entries"] if e["code"] == "W0004"]
        assert len(w4) == 1 and w4[0]["count"] == 2, doc
        # one more of the same: the key has more findings than the entry counts, all shown
        write(os.path.join(d, "a.orbit"), three.replace('"A", "A", "A"', '"A", "A", "A", "A"'))
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 1 and json_codes(out) == ["W0004"] * 3, (out, err)
        # one fewer: nothing shown, one listed as prunable
        write(os.path.join(d, "a.orbit"), three.replace('"A", "A", "A"', '"A", "A"'))
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings", "a.orbit", cwd=d)
        assert status == 0 and "W0004 in workflow checkout > step charge (1 of 2)" in err, err


@test
def unusable_baselines_are_refused():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, _, err = run("check", "--baseline", "missing.json", "a.orbit", cwd=d)
        assert status == 2 and "cannot read the baseline `missing.json`" in err, err
        for text, says in (("{", "is not JSON"), ('{"version": 2, "entries": []}', "not a baseline"),
                           ('{"version": 1, "entries": [{"code": "W0002"}]}', "entry 1"),
                           ('{"version": 1, "entries": [{"program": "", "file": "a", "scope": "s",'
                            ' "code": "E0410", "fingerprint": "0", "count": 1}]}', "not a warning")):
            write(os.path.join(d, "bad.json"), text)
            status, _, err = run("check", "--baseline", "bad.json", "a.orbit", cwd=d)
            assert status == 2 and says in err, (text, err)
        # a path that cannot be read: the baseline is not written (its warnings would go)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", "nope.orbit", cwd=d)
        assert status == 2 and "was not written" in err and not os.path.exists(
            os.path.join(d, "b.json")), err


DENY_W0002 = "program pay {\n  lints {\n    W0002: deny\n  }\n}\n"


def json_severities(out):
    return [(d["code"], d["severity"]) for d in map(json.loads, out.splitlines()) if d]


@test
def a_denied_warning_is_an_error_and_never_in_a_baseline():
    """Severities as the user sees them: `W0002: deny` in orbit.program makes W0002 an
    error (`error[W0002]`), so --write-baseline does not record it and --baseline does
    not hide it, even through an entry written before the deny (that entry is stale).
    `--deny-warnings` only makes the warnings fail the run: they stay warnings, which a
    baseline holds; `--warn` turns a lint into a warning a baseline holds; `--allow`
    drops a warning, and its entries go stale."""
    with Dir() as d:
        write(os.path.join(d, "orbit.program"), DENY_W0002)
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, _, err = run("check", "--write-baseline", "b.json", ".", cwd=d)
        assert status == 1 and "0 warnings in 0 entries" in err, (status, err)
        assert validated(os.path.join(d, "b.json"))["entries"] == []
        status, out, err = run("check", "--baseline", "b.json", "--format", "json", ".", cwd=d)
        assert status == 1 and json_severities(out) == [("W0002", "error")] * 2, (out, err)
        # an entry recorded before the deny no longer hides the warning, now an error
        write(os.path.join(d, "orbit.program"), "")
        os.remove(os.path.join(d, "b.json"))
        status, _, err = run("check", "--write-baseline", "b.json", ".", cwd=d)
        assert status == 0 and "2 warnings in 2 entries" in err, err
        write(os.path.join(d, "orbit.program"), DENY_W0002)
        for extra in ([], ["--deny-warnings"]):
            status, out, err = run("check", "--baseline", "b.json", "--format", "json",
                                   *extra, ".", cwd=d)
            assert status == 1 and json_severities(out) == [("W0002", "error")] * 2, (out, err)
            assert "2 warnings of the baseline `b.json` no longer occur" in err, err
        # written again, the entries of the denied code are pruned
        status, _, err = run("check", "--write-baseline", "b.json", ".", cwd=d)
        assert status == 1 and "0 warnings in 0 entries; 2 no longer occurring were pruned" in err, err
        # a per-file deny too (`files` blocks)
        write(os.path.join(d, "orbit.program"), "")
        os.remove(os.path.join(d, "b.json"))
        run("check", "--write-baseline", "b.json", ".", cwd=d)
        write(os.path.join(d, "orbit.program"),
              "program pay {\n  files \"a.orbit\" {\n    lints { W0002: deny }\n  }\n}\n")
        status, out, err = run("check", "--baseline", "b.json", "--format", "json", ".", cwd=d)
        assert status == 1 and json_severities(out) == [("W0002", "error")] * 2, (out, err)
        # the command line overrides the configuration: `--warn W0002` makes the denied
        # code a warning again, which the baseline holds; `--allow` drops the warnings
        # (their entries are stale)
        write(os.path.join(d, "orbit.program"), DENY_W0002)
        status, out, err = run("check", "--baseline", "b.json", "--warn", "W0002",
                               "--deny-warnings", "--format", "json", ".", cwd=d)
        assert status == 0 and out == "" and "no longer" not in err, (out, err)
        status, out, err = run("check", "--baseline", "b.json", "--allow", "W0002",
                               "--deny-warnings", ".", cwd=d)
        assert status == 0 and "2 warnings of the baseline `b.json` no longer occur" in err, err


@test
def a_lint_enabled_by_warn_is_held_by_a_baseline():
    """W0007 is off by default; `--warn W0007` (or `W0007: warn` in orbit.program) makes it
    a warning like any other: recorded, then hidden."""
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, out, _ = run("check", "--warn", "W0007", "--format", "json", "a.orbit", cwd=d)
        lints = [c for c in json_codes(out) if c == "W0007"]
        assert lints, "the program has no W0007 to try: " + out
        status, _, err = run("check", "--warn", "W0007", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0, err
        codes = [e["code"] for e in validated(os.path.join(d, "b.json"))["entries"]]
        assert "W0007" in codes, codes
        status, out, err = run("check", "--warn", "W0007", "--baseline", "b.json",
                               "--deny-warnings", "--format", "json", "a.orbit", cwd=d)
        assert status == 0 and out == "", (out, err)


CLEAN = 'worker "pay.charge" {}\n'


@test
def an_empty_baseline_on_a_clean_program():
    """A baseline without entries (the program had no warning) is read, matched and
    written again: status 0 (the sanitizers' build runs this too)."""
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), CLEAN)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0 and "0 warnings in 0 entries" in err, err
        assert validated(os.path.join(d, "b.json"))["entries"] == []
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings", "a.orbit", cwd=d)
        assert (status, out) == (0, ""), (status, out, err)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0, err
        # and an empty baseline against a program with warnings: all of them are new
        write(os.path.join(d, "a.orbit"), PROGRAM)
        status, out, err = run("check", "--baseline", "b.json", "--deny-warnings",
                               "--format", "json", "a.orbit", cwd=d)
        assert status == 1 and json_codes(out) == ["W0002", "W0002"], (out, err)


def mode_of(path):
    return os.stat(path).st_mode & 0o7777


@test
def write_baseline_rewrites_as_fmt_does():
    """--write-baseline rewrites an existing baseline as `orbitc fmt` rewrites a source
    (docs/cli.md, "How `fmt` and `fix` write files"): a read-only file is refused and left
    as it is; the owner, group and mode are kept; a symbolic link stays a link; a file
    whose text would not change is not touched; a directory, a FIFO (never waited for)
    is refused with a message that says what it is."""
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        b = os.path.join(d, "b.json")
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        before = read(b)
        fixed = PROGRAM.replace("backoff: fixed, max_delay: 5s }\n  }\n  step refund",
                                "backoff: fixed }\n  }\n  step refund")
        write(os.path.join(d, "a.orbit"), fixed)
        # read-only: refused, untouched, status 2 (the check itself passed)
        os.chmod(b, 0o444)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 2 and read(b) == before and mode_of(b) == 0o444, (status, err)
        assert ("orbitc: error: cannot write the baseline `b.json`: the file is read-only "
                "(mode 0444)") in err and "wrote the baseline" not in err, err
        # owner, group and mode kept
        os.chmod(b, 0o640)
        if os.geteuid() == 0:
            os.chown(b, 1234, 5678)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0 and "1 no longer occurring was pruned" in err, err
        st = os.stat(b)
        assert mode_of(b) == 0o640, oct(mode_of(b))
        if os.geteuid() == 0:
            assert (st.st_uid, st.st_gid) == (1234, 5678), (st.st_uid, st.st_gid)
        assert sorted(os.listdir(d)) == ["a.orbit", "b.json"], os.listdir(d)
        # nothing to change: not written (the same inode and times), a read-only file too
        os.chmod(b, 0o444)
        st = os.stat(b)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        now = os.stat(b)
        assert status == 0 and (now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns), err
        assert "the baseline `b.json` is unchanged: 1 warning in 1 entry" in err, err
        os.chmod(b, 0o644)
        # a symbolic link: its target is rewritten, the link stays
        write(os.path.join(d, "a.orbit"), PROGRAM)
        os.remove(b)
        os.mkdir(os.path.join(d, "real"))
        os.symlink(os.path.join("real", "b.json"), b)
        run("check", "--write-baseline", os.path.join("real", "b.json"), "a.orbit", cwd=d)
        write(os.path.join(d, "a.orbit"), fixed)
        status, _, err = run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        assert status == 0 and os.path.islink(b), err
        assert len(validated(os.path.join(d, "real", "b.json"))["entries"]) == 1
        # a directory, a FIFO
        os.mkdir(os.path.join(d, "dir"))
        os.mkfifo(os.path.join(d, "fifo"))
        for name, kind in (("dir", "a directory"), ("fifo", "a FIFO")):
            for option, verb in (("--write-baseline", "write"), ("--baseline", "read")):
                status, _, err = run("check", option, name, "a.orbit", cwd=d)
                assert status == 2 and ("orbitc: error: cannot %s the baseline `%s`: it is %s, "
                                        "not a regular file" % (verb, name, kind)) in err, (option, err)
                assert "not JSON" not in err, err
        assert os.path.isdir(os.path.join(d, "dir")) and os.listdir(os.path.join(d, "dir")) == []


@test
def write_baseline_keeps_an_owner_it_cannot_give():
    """As nobody, a baseline of root's in a directory nobody may write: refused, as fmt
    refuses it, rather than replaced by a file of nobody's."""
    if os.geteuid() != 0:
        return
    nobody = 65534
    with Dir() as d:
        os.chmod(d, 0o777)
        write(os.path.join(d, "a.orbit"), PROGRAM)
        b = os.path.join(d, "b.json")
        run("check", "--write-baseline", "b.json", "a.orbit", cwd=d)
        before = read(b)
        os.chmod(b, 0o666)
        write(os.path.join(d, "a.orbit"), CLEAN)
        p = subprocess.run([ORBITC, "check", "--write-baseline", "b.json", "a.orbit"], cwd=d,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           preexec_fn=lambda: (os.setgid(nobody), os.setuid(nobody)))
        err = p.stderr.decode()
        st = os.stat(b)
        assert p.returncode == 2 and "owner and group (0:0) cannot be kept" in err, err
        assert read(b) == before and (st.st_uid, st.st_gid) == (0, 0), (st.st_uid, err)


# ---- a repository of many warnings adopts --deny-warnings -------------------------------------

@test
def repository_of_500_warnings_adopts_deny_warnings():
    with Dir() as d:
        for k in range(100):
            root = os.path.join(d, "programs", "p%03d" % k)
            write(os.path.join(root, "orbit.program"), "")
            subprocess.run([sys.executable, GEN, "--size", "20K", "--seed", str(k + 1),
                            "--warnings", "5", "-o", os.path.join(root, "main.orbit")], check=True)
        status, out, _ = run("check", "--deny-warnings", "--format", "json", ".", cwd=d)
        codes = json_codes(out)
        assert status == 1 and len(codes) == 500 and set(codes) <= {"W0002", "W0004"}, len(codes)
        status, _, err = run("check", "--write-baseline", "orbit-baseline.json", ".", cwd=d)
        assert status == 0 and "500 warnings in" in err, err
        validated(os.path.join(d, "orbit-baseline.json"))
        status, out, err = run("check", "--baseline", "orbit-baseline.json", "--deny-warnings",
                               "--format", "json", ".", cwd=d)
        assert status == 0 and out == "", (out, err)
        path = os.path.join(d, "programs", "p042", "main.orbit")
        text = read(path)
        write(path, text.replace("backoff: fixed", "backoff: fixed, max_delay: 1m", 1)
              if "backoff: fixed\n" in text or "backoff: fixed }" in text
              else text + '\nworkflow added {\n  step s { worker "x"; retry { backoff: fixed, '
              'max_delay: 1s } }\n}\n')
        status, out, err = run("check", "--baseline", "orbit-baseline.json", "--deny-warnings",
                               "--format", "json", ".", cwd=d)
        assert status == 1 and len(json_codes(out)) == 1, (out, err)


# ---- --add-suppressions ---------------------------------------------------------------------

@test
def add_suppressions_once_and_formatted():
    with Dir() as d:
        path = os.path.join(d, "a.orbit")
        write(path, PROGRAM)
        status, _, err = run("fmt", "--check", "a.orbit", cwd=d)
        assert status == 0, "the program starts formatted: " + err
        status, _, err = run("check", "--add-suppressions", "a.orbit", cwd=d)
        assert status == 0 and "suppressed in a.orbit: W0002 (2)" in err, err
        after = read(path)
        assert after.count("    // orbit:allow(W0002)\n    retry {") == 2, after
        status, _, err = run("fmt", "--check", "a.orbit", cwd=d)
        assert status == 0, "formatted as fmt would: " + err
        status, out, err = run("check", "--deny-warnings", "--format", "json", "a.orbit", cwd=d)
        assert status == 0 and out == "", (out, err)
        status, _, err = run("check", "--add-suppressions", "a.orbit", cwd=d)
        assert status == 0 and "no warning to suppress" in err and read(path) == after, err


@test
def every_golden_warning_suppressed_once_and_formatted():
    """On each golden source with warnings (formatted first, when fmt can): after
    --add-suppressions no warning is left but W0008 and W0009, a second run changes
    nothing, and the file is still formatted."""
    tried = 0
    others = ("W0008", "W0009")
    for source in golden_sources():
        if not any(c.startswith("W") and c not in others for c in golden_codes(source)):
            continue
        with Dir() as d:
            path = os.path.join(d, "a.orbit")
            shutil.copy(source, path)
            formatted = run("fmt", "a.orbit", cwd=d)[0] == 0
            tried += 1
            run("check", "--add-suppressions", "a.orbit", cwd=d)
            after = read(path)
            _, out, _ = run("check", "--format", "json", "a.orbit", cwd=d)
            left = [c for c in json_codes(out) if c.startswith("W") and c not in others]
            assert not left, (source, left)
            run("check", "--add-suppressions", "a.orbit", cwd=d)
            assert read(path) == after, (source, "a second run changed the file")
            if formatted:
                assert run("fmt", "--check", "a.orbit", cwd=d)[0] == 0, (source, "not formatted")
    assert tried >= 20 // CORPUS_SAMPLE, "golden sources with warnings: %d" % tried


@test
def add_suppressions_of_some_codes_and_never_errors():
    with Dir() as d:
        path = os.path.join(d, "a.orbit")
        text = PROGRAM.replace("backoff: fixed, max_delay: 5s }\n  }\n  step refund",
                               "non_retryable: [\"A\", \"A\"] }\n  }\n  step refund")
        write(path, text.replace("timeout 10m", "timeout 10m\n  step bad { worker "
                                 "\"pay.charge\"; retry { atempts: 2 } }"))
        status, _, err = run("check", "--add-suppressions=w0004", "a.orbit", cwd=d)
        assert status == 1 and "suppressed in a.orbit: W0004 (1)" in err, err
        assert "errors cannot be suppressed" in err, err
        after = read(path)
        assert "orbit:allow(W0004)" in after and "W0002" not in after, after
        status, out, _ = run("check", "--format", "json", "a.orbit", cwd=d)
        codes = json_codes(out)
        assert "W0004" not in codes and "W0002" in codes and any(c.startswith("E") for c in codes), codes
        for bad in ("--add-suppressions=E0410", "--add-suppressions=W0009", "--add-suppressions=X"):
            status, _, err = run("check", bad, "a.orbit", cwd=d)
            assert status == 2 and "not a warning code" in err, (bad, err)
        # an empty list, or an empty code in it, is a mistake, not "no warning to suppress"
        for bad in ("--add-suppressions=", "--add-suppressions=W0004,", "--add-suppressions=,W0004",
                    "--add-suppressions=W0004,,W0002"):
            status, _, err = run("check", bad, "a.orbit", cwd=d)
            assert status == 2 and "no warning to suppress" not in err, (bad, err)
            assert ("--add-suppressions: an empty code in the list" in err
                    if bad != "--add-suppressions=" else
                    "--add-suppressions=: no code is given (`--add-suppressions` alone "
                    "suppresses every warning)" in err), (bad, err)
        assert read(path) == after, "nothing written"
        status, _, err = run("check", "--add-suppressions", "--baseline", "b.json", "a.orbit", cwd=d)
        assert status == 2, err


@test
def add_suppressions_keeps_crlf_and_merges_codes():
    with Dir() as d:
        path = os.path.join(d, "a.orbit")
        text = ('workflow w {\r\n  step s {\r\n    worker "x"\r\n'
                '    retry { attempts: 2, backoff: fixed, max_delay: 1s, non_retryable: ["A", "A"] }\r\n'
                '  }\r\n}\r\n')
        write(path, text)
        status, _, err = run("check", "--add-suppressions", "a.orbit", cwd=d)
        assert status == 0, err
        assert read(path) == text.replace('    retry', '    // orbit:allow(W0002, W0004)\r\n    retry'), read(path)


# ---- the language server --------------------------------------------------------------------

@test
def language_server_shows_baselined_warnings_as_hints():
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        run("check", "--write-baseline", "orbit-baseline.json", "a.orbit", cwd=d)
        baseline = read(os.path.join(d, "orbit-baseline.json"))
    new = PROGRAM.replace("timeout 10m", "timeout 10m\n  step s { worker \"pay.charge\"; "
                          "retry { attempts: 2, non_retryable: [\"A\", \"A\"] } }")
    with L.Workspace(files={"a.orbit": new, "orbit-baseline.json": baseline},
                     options={"baseline": "orbit-baseline.json"}) as w:
        diags = w.client.wait_diagnostics(w.open("a.orbit"))
        got = sorted((x["code"], x["severity"]) for x in diags)
        assert got == [("W0002", 4), ("W0002", 4), ("W0004", 2)], diags
        assert all("(in the baseline `orbit-baseline.json`)" in x["message"]
                   for x in diags if x["severity"] == 4), diags
    with L.Workspace(files={"a.orbit": new}) as w:
        diags = w.client.wait_diagnostics(w.open("a.orbit"))
        assert sorted(x["severity"] for x in diags) == [2, 2, 2], diags
    # a warning that the folder's orbit.program denies is an error, as for `check`: the
    # baseline (written with the program's root in place) does not make it a hint
    with Dir() as d:
        write(os.path.join(d, "a.orbit"), PROGRAM)
        write(os.path.join(d, "orbit.program"), "")
        run("check", "--write-baseline", "orbit-baseline.json", ".", cwd=d)
        rooted = read(os.path.join(d, "orbit-baseline.json"))
    with L.Workspace(files={"a.orbit": new, "orbit-baseline.json": rooted,
                            "orbit.program": ""},
                     options={"baseline": "orbit-baseline.json"}) as w:
        diags = w.client.wait_diagnostics(w.open("a.orbit"))
        got = sorted((x["code"], x["severity"]) for x in diags)
        assert got == [("W0002", 4), ("W0002", 4), ("W0004", 2)], diags
    with L.Workspace(files={"a.orbit": new, "orbit-baseline.json": rooted,
                            "orbit.program": DENY_W0002},
                     options={"baseline": "orbit-baseline.json"}) as w:
        diags = w.client.wait_diagnostics(w.open("a.orbit"))
        got = sorted((x["code"], x["severity"]) for x in diags)
        assert got == [("W0002", 1), ("W0002", 1), ("W0004", 2)], diags
    with L.Workspace(files={"a.orbit": new, "b.json": "{"}, options={"baseline": "b.json"}) as w:
        diags = w.client.wait_diagnostics(w.open("a.orbit"))
        assert sorted(x["severity"] for x in diags) == [2, 2, 2], diags
        assert w.client.stop() == 0
        assert "is not JSON" in "".join(w.client.stderr_lines), w.client.stderr_lines


def main():
    run_cases(('ORBITC',))


if __name__ == '__main__':
    main()
