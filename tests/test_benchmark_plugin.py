"""The benchmark plugin end to end through pytester: options, item ids and markers, records in
``user_properties``, the session summary and the report folder.

One real session (the "recording") runs once per test session in a subprocess on three
questions under navindex and inject; the tests here read what it left, and the cassette tests
(``test_benchmark_plugin_cassettes.py``) replay copies of its cassettes.
"""

from __future__ import annotations

import ast
import csv
import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from benchmark_project import seed_vector_record

REPO = Path(__file__).resolve().parents[1]
BENCH_MODULE = (REPO / "benchmarks" / "test_legalbench.py").read_text(encoding="utf-8")
QUESTIONS = REPO / "benchmarks" / "questions" / "transactions"
#: Two document-bound questions (commercial and licensing) and one out-of-scope control.
QUESTION_IDS = ("glufox-royalty-base", "netgear-marketing-funds", "netgear-territory-today")
CONTROL = "netgear-marketing-funds"
MODES = ("navindex", "inject")
#: Settings the surrounding environment could hold; each test chooses its own.
FOREIGN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "LEGALBENCH_BACKEND",
               "LEGALBENCH_JUDGE", "LEGALBENCH_PROFILE", "LEGALBENCH_ANSWER_MODEL",
               "LEGALBENCH_JUDGE_MODEL", "LEGALBENCH_CACHE_DIR")
RECORD_KEYS = {"question_id", "kind", "practice_area", "mode", "question", "reference", "judge",
               "inject_answer", "mode_answer", "raw_forward", "raw_reverse", "verdict",
               "keyfacts_inject", "keyfacts_mode", "evidence_recall", "node_ids",
               "payload_tokens", "scan_tokens", "inject_calls", "mode_calls", "judge_calls",
               "provisions", "evidence"}
# Dumps every item's user_properties as JSON, which fails the session unless they are builtins.
DUMP_CONFTEST = """
import json
from pathlib import Path

def pytest_runtest_logreport(report):
    line = json.dumps({"nodeid": report.nodeid, "when": report.when,
                       "properties": report.user_properties})
    with open(Path(__file__).with_name("records.jsonl"), "a", encoding="utf-8") as out:
        out.write(line + "\\n")
"""


def isolate_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    """An absolute corpus folder (pytester changes directory) and no inherited backend."""
    # (numpy, scipy and vcr are imported by conftest.py before any in-process run.)
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


@dataclass(frozen=True)
class Bench:
    """The folders every benchmark session of these tests shares."""

    questions: Path
    cache: Path
    corpus: Path

    def args(self, *modes: str) -> list[str]:
        """Command-line arguments for a session over the three questions under ``modes``."""
        return [f"--legalbench-questions={self.questions}",
                f"--legalbench-corpus-dir={self.corpus}", f"--legalbench-cache-dir={self.cache}",
                "-p", "no:cacheprovider", *(f"--mode={mode}" for mode in modes)]


def bench(factory: pytest.TempPathFactory, corpus: Path) -> Bench:
    """The shared question folder and cache (indexes are built once per test session)."""
    return _bench(factory.getbasetemp(), corpus)


# Cached by the session's base folder, so both test modules share one cache and recording.
@functools.cache
def _bench(base: Path, corpus: Path) -> Bench:
    questions = base / "legalbench-questions"
    questions.mkdir()
    for question in QUESTION_IDS:
        shutil.copy(QUESTIONS / f"{question}.yaml", questions)
    cache = base / "legalbench-cache"
    cache.mkdir()
    return Bench(questions, cache, corpus)


@dataclass(frozen=True)
class Recording:
    """What the recording session left behind."""

    folder: Path
    lines: tuple[str, ...]

    @property
    def cassettes(self) -> Path:
        """The reference backend's cassettes it recorded."""
        return self.folder / "cassettes" / "reference"

    @property
    def report(self) -> Path:
        """Its --legalbench-report folder."""
        return self.folder / "report"


def recording(factory: pytest.TempPathFactory, corpus: Path) -> Recording:
    """Run the benchmark once (subprocess, reference backend, no cassettes yet: it records)."""
    done = _recording(factory.getbasetemp(), corpus)
    if isinstance(done, str):
        pytest.fail(done, pytrace=False)
    return done


# A failed recording is cached too (as its message): every test needing it fails at once.
@functools.cache
def _recording(base: Path, corpus: Path) -> Recording | str:
    # One recording per test session: under xdist it sits beside the workers' folders, made
    # by whichever worker needs it first while the other waits on the lock.
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "legalbench-recording"
    with (root / "legalbench-recording.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        output = folder / "output.txt"
        if not output.exists():
            problem = _record(folder, _bench(base, corpus), corpus)
            if problem is not None:
                return problem
        return Recording(folder, tuple(output.read_text(encoding="utf-8").splitlines()))


def _record(folder: Path, shared: Bench, corpus: Path) -> str | None:
    """Run the recording session in ``folder``: None when it passed, else what went wrong."""
    if folder.exists():
        shutil.rmtree(folder)  # a recording that failed or died half-way
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_legalbench.py").write_text(BENCH_MODULE, encoding="utf-8")
    (folder / "conftest.py").write_text(DUMP_CONFTEST, encoding="utf-8")
    seed_vector_record(folder)
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env["LEGALBENCH_CORPUS_DIR"] = str(corpus)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *shared.args(*MODES), "--junitxml=junit.xml",
         "--legalbench-report=report"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        return (f"the recording session failed ({done.returncode}):\n{done.stdout[-4000:]}\n"
                f"{done.stderr[-2000:]}")
    # Written last: its presence says the recording is whole.
    (folder / "output.txt").write_text(done.stdout, encoding="utf-8")
    return None


def summary_section(lines: Sequence[str]) -> list[str]:
    """The 'legalbench summary' lines of a run's output, without the report's paths."""
    if "legalbench summary" not in lines:
        raise AssertionError("no legalbench summary in the output:\n" + "\n".join(lines[-40:]))
    section: list[str] = []
    for line in lines[lines.index("legalbench summary"):]:
        if line.startswith("="):
            break
        if not line.startswith("report:"):
            section.append(line)
    return section


def junit_records(path: Path, product: str = "qa") -> dict[str, dict[str, Any]]:
    """Each test case's record of ``product`` from its legalbench_record envelope (pytest
    writes its repr), by test name."""
    found: dict[str, dict[str, Any]] = {}
    for case in ElementTree.parse(path).iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "legalbench_record":
                envelope = ast.literal_eval(str(prop.get("value")))
                if envelope["product"] == product:
                    found[str(case.get("name"))] = envelope["record"]
    return found


def item_ids(modes: Sequence[str], questions: Sequence[str] = QUESTION_IDS) -> set[str]:
    """The test names of the items of ``questions`` under ``modes``."""
    return {f"test_question[{question}-{mode}]" for question in questions for mode in modes}


def prepare(pytester: pytest.Pytester, cassettes: Path | None = None,
            backend: str = "reference") -> None:
    """The benchmark module in pytester's folder, with copies of ``cassettes`` for ``backend``."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_legalbench=BENCH_MODULE)
    if cassettes is not None:
        shutil.copytree(cassettes, pytester.path / "cassettes" / backend)
    seed_vector_record(pytester.path)


def collected(pytester: pytest.Pytester, shared: Bench, *args: str) -> set[str]:
    """The item names ``--collect-only -q`` lists."""
    result = pytester.runpytest("--collect-only", "-q", *shared.args(), *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return {line.split("::", 1)[1] for line in result.outlines if "::test_question[" in line}


def test_help_lists_the_benchmark_options(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    for option in ("--mode=MODE", "--legalbench-judge=", "--legalbench-report=",
                   "--legalbench-fail-on-loss", "--legalbench-questions=", "mode (args)",
                   "legalbench_judge (string)", "legalbench_fail_on_loss (bool)"):
        result.stdout.fnmatch_lines([f"  {option}*"])


def test_items_are_question_times_mode_with_stable_ids(pytester: pytest.Pytester,
                                                       tmp_path_factory: pytest.TempPathFactory,
                                                       corpus_root: Path) -> None:
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester)
    assert collected(pytester, shared, "--mode=navindex", "--mode=inject") == item_ids(MODES)
    # navembed alone means its default strategy, and the id says which.
    assert collected(pytester, shared, "--mode=navembed") == item_ids(["navembed:closure"])


def test_items_are_selected_by_kind_and_area_markers(pytester: pytest.Pytester,
                                                     tmp_path_factory: pytest.TempPathFactory,
                                                     corpus_root: Path) -> None:
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester)
    both = ("--mode=navindex", "--mode=inject")
    assert collected(pytester, shared, *both, "-m", "out_of_scope") == item_ids(MODES, [CONTROL])
    assert collected(pytester, shared, *both, "-m", "area_licensing and definition") == \
        item_ids(MODES, ["glufox-royalty-base"])


def test_the_mode_ini_key_chooses_the_modes(pytester: pytest.Pytester,
                                            tmp_path_factory: pytest.TempPathFactory,
                                            corpus_root: Path) -> None:
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester)
    pytester.makeini("[pytest]\nmode = inject navindex\n")
    assert collected(pytester, shared) == item_ids(MODES)
    # The command line wins over the ini file.
    assert collected(pytester, shared, "--mode=inject") == item_ids(["inject"])


@pytest.mark.parametrize(("args", "message"), [
    (["--mode", "nosuchmode"], "*--mode='nosuchmode': unknown mode*"),
    (["--mode=navembed:nosuch"], "*--mode='navembed:nosuch': unknown mode*"),
    (["--legalbench-judge", "wrong"], "*--legalbench-judge='wrong' is not a judging protocol*"),
], ids=["mode", "strategy", "judge"])
def test_bad_values_fail_at_startup_naming_the_option(pytester: pytest.Pytester,
                                                      args: list[str], message: str) -> None:
    prepare(pytester)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


def test_a_bad_ini_judge_fails_at_startup(pytester: pytest.Pytester) -> None:
    prepare(pytester)
    pytester.makeini("[pytest]\nlegalbench_judge = lenient\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'lenient' is not a judging protocol*"])


def test_a_malformed_question_file_is_a_collection_error_naming_file_and_field(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester)
    questions = pytester.mkdir("questions")
    for question in QUESTION_IDS:
        shutil.copy(QUESTIONS / f"{question}.yaml", questions)
    bad = questions / "glufox-royalty-base.yaml"
    bad.write_text(bad.read_text(encoding="utf-8").replace("kind: definition", "kind: riddle"),
                   encoding="utf-8")
    result = pytester.runpytest("--collect-only", *shared.args("navindex"),
                                f"--legalbench-questions={questions}")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["legalbench question set (1 problem):",
                                 f"  {bad}:*: field 'kind' is 'riddle'*"])
    assert "test_question[" not in result.stdout.str()


def test_the_run_attaches_a_record_of_builtins_to_every_item(
        tmp_path_factory: pytest.TempPathFactory, corpus_root: Path) -> None:
    run = recording(tmp_path_factory, corpus_root)
    records = junit_records(run.folder / "junit.xml")
    assert set(records) == item_ids(MODES)
    reports = [json.loads(line) for line in
               (run.folder / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    dumped = [entry for entry in reports if entry["when"] == "call"]
    assert len(dumped) == 6
    # The setup report does not repeat the record; the teardown one carries it for junitxml.
    assert all(entry["properties"] == [] for entry in reports if entry["when"] == "setup")
    assert sorted(json.dumps(entry["properties"]) for entry in reports
                  if entry["when"] == "teardown") == \
        sorted(json.dumps(entry["properties"]) for entry in dumped)
    for entry in dumped:
        (name, envelope), = entry["properties"]
        assert name == "legalbench_record" and envelope["product"] == "qa"
        record = envelope["record"]
        assert RECORD_KEYS <= set(record)
        assert entry["nodeid"].endswith(f"[{record['question_id']}-{record['mode']}]")
        assert records[entry["nodeid"].split("::")[1]] == record  # JUnit XML carries the same
        assert [c["stage"] for c in record["inject_calls"]] == ["inject.answer"]
        if record["mode"] == "navindex":
            assert record["verdict"] in ("inject", "mode", "tie")
            assert {record["raw_forward"], record["raw_reverse"]} <= {"A", "B", "tie"}
            assert [c["stage"] for c in record["judge_calls"]] == ["judge.forward",
                                                                   "judge.reverse"]
            assert record["mode_calls"][-1]["stage"] == "navindex.answer"
            assert record["mode_answer"]
    # The reference backend records what is missing: one cassette per question for inject's
    # answer, one per item for the rest.
    assert sorted(p.name for p in (run.cassettes / "test_legalbench-inject").iterdir()) == \
        sorted(f"{q}.yaml" for q in QUESTION_IDS)
    assert {p.stem for p in (run.cassettes / "test_legalbench").iterdir()} == \
        {f"{q}-{m}" for q in QUESTION_IDS for m in MODES}


def test_the_summary_reports_each_mode_with_controls_apart(
        tmp_path_factory: pytest.TempPathFactory, corpus_root: Path) -> None:
    summary = summary_section(recording(tmp_path_factory, corpus_root).lines)
    text = "\n".join(summary)
    assert re.search(r"^backend reference \(answer \S+, judge \S+\); price card ", text, re.MULTILINE)
    navindex = summary[summary.index("navindex: 3 items"):]
    assert re.match(r"  document-bound: ties \d/2 .*; inject wins \d/2 .*; navindex wins \d/2 "
                    r".*; unscored 0$", navindex[1])
    # The tie split follows each verdict line, one indented line per verdict.
    assert [line.split(" by key facts:")[0] for line in navindex[2:5]] == \
        ["    ties", "    inject wins", "    navindex wins"]
    assert re.match(r"  out-of-scope: ties \d/1 .*; unscored 0$", navindex[5])
    for label in ("  key facts: inject ", "  evidence recall ", "  token footprint: inject ",
                  "  cost: inject ", "  crossover: navindex vs inject"):
        assert any(line.startswith(label) for line in navindex), label
    inject = summary[summary.index("inject: 3 items"):summary.index("navindex: 3 items")]
    assert not any("document-bound" in line or "crossover" in line for line in inject)


def test_the_report_folder_holds_every_file(tmp_path_factory: pytest.TempPathFactory,
                                            corpus_root: Path) -> None:
    report = recording(tmp_path_factory, corpus_root).report
    results = json.loads((report / "results.json").read_text(encoding="utf-8"))
    assert set(results) == {"format_version", "backend", "models", "run", "records",
                            "provisions", "texts", "summary"}
    assert results["backend"] == "reference"
    assert set(results["models"]) == {"answer", "judge"}
    assert sorted((r["question_id"], r["mode"]) for r in results["records"]) == \
        sorted((q, m) for q in QUESTION_IDS for m in MODES)
    assert set(results["summary"]["modes"]) == set(MODES)
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert all(question in markdown for question in QUESTION_IDS)
    with (report / "verdicts.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    # Only paired items have verdicts to audit: the navindex ones.
    assert sorted(row[0] for row in rows[1:]) == sorted(QUESTION_IDS)
    assert {row[1] for row in rows[1:]} == {"navindex"}
    assert (report / "cost.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (report / "recall_payload.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (report / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert results["run"]["corpus"]["profile"] == "transactions"
    assert results["run"]["modes"] == sorted(MODES)
    # Every provision a navindex record names is in the table, its text among the texts.
    for record in results["records"]:
        for span in record["provisions"] if record["mode"] == "navindex" else ():
            place = results["provisions"][span["node_id"]]
            assert (place["start"], place["end"]) == (span["start"], span["end"])
            assert any(s <= span["start"] and span["end"] <= e
                       for s, e, _ in results["texts"][span["doc_id"]])
