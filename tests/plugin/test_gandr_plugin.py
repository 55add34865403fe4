"""GANDR systems as benchmark items through pytester: replayed from the committed cassettes,
alone and under xdist, with the summary, the report and the audit traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_legalbench.gandr.systems import SYSTEMS
from pytest_legalbench.llm.cassettes import cassette_file
from tests.support.benchmark_project import MODULE, REPO, benchmark_project
from tests.support.plugin_sessions import isolate_environment

#: A document-bound finance question and an out-of-scope control.
QUESTIONS = ("stonepoint-maturity", "netgear-marketing-funds")
RAN = tuple(s for s in SYSTEMS if s != "gandr:b3")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def _prepare(pytester: pytest.Pytester) -> None:
    benchmark_project(pytester, QUESTIONS,
                      [(MODULE, f"{q}-{system}") for q in QUESTIONS for system in RAN])


def _run(pytester: pytest.Pytester, shared_cache: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        f"--legalbench-questions={pytester.path / 'questions'}",
        f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
        "--mode=gandr:all", "--legalbench-repeats=2", "-p", "no:cacheprovider", "-rs", *extra)


def _gandr_section(lines: list[str]) -> list[str]:
    start = lines.index("legalbench GANDR summary")
    skipped = ("GANDR report", "report:", "=")
    return [line for line in lines[start:] if not line.startswith(skipped)][:40]


def test_gandr_and_its_baselines_replay_from_the_committed_cassettes(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    _prepare(pytester)
    before = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    alone = _run(pytester, shared_cache, "--legalbench-report=report")
    alone.assert_outcomes(passed=len(QUESTIONS) * len(RAN), skipped=len(QUESTIONS))
    lines = alone.outlines
    assert any("gandr:b3: no cross-encoder is configured" in line for line in lines)
    section = _gandr_section(lines)
    for system in RAN:
        assert any(line.startswith(f"  {system}: 2 items") for line in section), system
    assert any("exact McNemar on strict correctness against gandr:b2" in line
               for line in section)
    assert any("Stable & Correct@2" in line for line in section)
    assert any(line.startswith("    audit labels: SUPPORTED") for line in section)
    assert any("not a language model" in line for line in section)
    # Replay recorded nothing and changed no cassette.
    after = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    assert after == before

    report = pytester.path / "report"
    results = json.loads((report / "gandr-results.json").read_text(encoding="utf-8"))
    assert len(results["records"]) == len(QUESTIONS) * len(RAN)
    assert set(results["summary"]["systems"]) == set(RAN)
    traces = sorted(p.name for p in (report / "gandr-traces").iterdir())
    assert len(traces) == len(QUESTIONS) * len(RAN)
    gandr_trace = [json.loads(line) for line in
                   (report / "gandr-traces" / "stonepoint-maturity-gandr.jsonl").open()]
    assert {entry["seed"] for entry in gandr_trace} == {0, 1}
    assert all({"draft", "protocol", "audit", "rubric", "critic", "committed"} <= set(entry)
               for entry in gandr_trace)
    for record in results["records"]:
        assert len(record["repeats"]) == 2 and len(record["equivalence"]) == 1
        assert all(call["backend"] == "reference"
                   for repeat in record["repeats"] for call in repeat["calls"])

    # The same items under two xdist workers summarise to the same lines.
    spread = _run(pytester, shared_cache, "-n", "2")
    spread.assert_outcomes(passed=len(QUESTIONS) * len(RAN), skipped=len(QUESTIONS))
    assert _gandr_section(spread.outlines) == section


def test_a_gandr_item_without_its_cassette_is_recorded_again_byte_for_byte(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    # On the reference backend a missing cassette is answered locally and recorded: the new
    # recording must be the committed one (seeds make repeats differ, never runs).
    _prepare(pytester)
    item = f"{QUESTIONS[0]}-gandr"
    copy = cassette_file(pytester.path / "cassettes", "reference", MODULE, item)
    copy.unlink()
    result = pytester.runpytest_subprocess(
        f"--legalbench-questions={pytester.path / 'questions'}",
        f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
        "--mode=gandr", "--legalbench-repeats=2", "-p", "no:cacheprovider",
        f"-k={QUESTIONS[0]}")
    result.assert_outcomes(passed=1)
    committed = cassette_file(REPO / "cassettes", "reference", MODULE, item)
    assert copy.read_bytes() == committed.read_bytes()


def test_gandr_settings_reach_the_items_and_bad_ones_stop_the_run(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    _prepare(pytester)
    # Other settings, other requests: the item is answered afresh, not replayed.
    cassette_file(pytester.path / "cassettes", "reference", MODULE,
                  f"{QUESTIONS[0]}-gandr:b1").unlink()
    args = (f"--legalbench-questions={pytester.path / 'questions'}",
            f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
            "--mode=gandr:b1", "--legalbench-repeats=1", "-p", "no:cacheprovider",
            f"-k={QUESTIONS[0]}")
    result = pytester.runpytest_subprocess(*args, "--legalbench-gandr=top_k=3",
                                           "--legalbench-report=report")
    result.assert_outcomes(passed=1)
    results = json.loads((pytester.path / "report" / "gandr-results.json").read_text())
    (record,) = results["records"]
    assert len(record["passages"]) == 3 and len(record["repeats"]) == 1
    bad = pytester.runpytest_subprocess(*args, "--legalbench-gandr=top_k=many")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "'many' is not a whole number" in bad.stderr.str()
