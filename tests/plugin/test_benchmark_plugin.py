"""The benchmark plugin end to end through pytester: options, item ids and markers, records in
``user_properties``, the session summary and the report folder.

One real session (the "recording") runs once per test session in a subprocess on three
questions under navindex and inject; the tests here read what it left, and the cassette tests
(``test_benchmark_plugin_cassettes.py``) replay copies of its cassettes.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.support.plugin_sessions import (
    CONTROL,
    MODES,
    QUESTION_IDS,
    QUESTIONS,
    RECORD_KEYS,
    bench,
    collected,
    isolate_environment,
    item_ids,
    junit_records,
    prepare,
    recording,
    summary_section,
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


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
    assert set(results) == {"schema_version", "backend", "models", "run", "records",
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
