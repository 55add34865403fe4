"""navagent as a benchmark mode: replayed offline from the committed cassettes under two xdist
workers, its recall, footprint and crossover in the summary, its record like every mode's;
``legalbench evaluate`` measures it beside the other modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.benchmark_project import MODULE, benchmark_project
from tests.support.lease_project import lease_project, run_command
from tests.support.plugin_sessions import isolate_environment, junit_records, summary_section

#: A precedence question (a base clause and two amendments), a definition question, and an
#: out-of-scope control.
QUESTIONS = ("netgear-territory-today", "stonepoint-sofr-loan-rate", "netgear-marketing-funds")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def _prepare(pytester: pytest.Pytester) -> Path:
    return benchmark_project(pytester, QUESTIONS, [
        pair for q in QUESTIONS for pair in ((MODULE, f"{q}-navagent"), (f"{MODULE}-inject", q))])


def test_navagent_replays_from_the_committed_cassettes_under_xdist(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    questions = _prepare(pytester)
    before = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    result = pytester.runpytest_subprocess(
        f"--legalbench-questions={questions}", f"--legalbench-cache-dir={shared_cache}",
        "--legalbench-backend=reference", "--mode=navagent", "--record-mode=none",
        "--block-network", "-p", "no:cacheprovider", "-n", "2", "--junitxml=junit.xml",
        timeout=600)
    result.assert_outcomes(passed=len(QUESTIONS))
    summary = summary_section(result.outlines)
    block = summary[summary.index(f"navagent: {len(QUESTIONS)} items"):]
    recall = next(line for line in block if line.startswith("  evidence recall "))
    assert "mean payload" in recall
    footprint = next(line for line in block if line.startswith("  token footprint: "))
    assert "answering context" in footprint
    crossover = next(line for line in block if line.startswith("  crossover: navagent"))
    assert "all turns' input per question" in crossover
    # Replay recorded nothing and changed no cassette.
    after = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    assert after == before

    records = {r["question_id"]: r for r in junit_records(pytester.path / "junit.xml").values()}
    territory = records["netgear-territory-today"]
    assert territory["mode"] == "navagent" and territory["evidence_recall"] == 1.0
    stages = [call["stage"] for call in territory["mode_calls"]]
    assert stages[0] == "navagent.turn1" and stages[-1] == "navagent.answer"
    assert all(s.startswith("navagent.turn") for s in stages[:-1])
    carried = [event for call in territory["mode_calls"] for event in call.get("tool_results", [])]
    assert carried[0]["name"] == "search"
    # What each result named is kept by id: the provisions read were among them.
    named = {node for event in carried for node in event.get("node_ids", [])}
    assert carried[0]["node_ids"] and set(territory["node_ids"]) <= named
    assert all("text" not in event for event in carried)
    assert {"netgear-02_amendment_1996-10-01:1", "netgear-03_amendment_no2_1998-07-15:1",
            "netgear-01_distributor_agreement_1996:2"} <= set(territory["node_ids"])
    assert territory["payload_tokens"] <= 6000
    navigation = sum(sum(call["usage"][k] for k in ("input_tokens",
                                                    "cache_creation_input_tokens",
                                                    "cache_read_input_tokens"))
                     for call in territory["mode_calls"][:-1])
    assert territory["scan_tokens"] == navigation
    # The summary's mean recall is the mean over the document-bound records.
    bound = [r["evidence_recall"] for r in records.values() if r["kind"] != "out_of_scope"]
    assert f"evidence recall {sum(bound) / len(bound):.3f}" in recall


def test_evaluate_measures_navagent_beside_the_other_modes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder, questions, _ = lease_project(tmp_path)
    common = ("evaluate", "--docs", str(folder), "--questions", str(questions), "--mode",
              "navagent", "--mode", "navindex", "-q", "--cache-dir", str(tmp_path / "cache"))
    status, out, _ = run_command(capsys, *common, "--json")
    assert status == 0
    report = json.loads(out)
    assert list(report["modes"]) == ["navagent", "navindex", "navembed:chunks"]
    agent = report["modes"]["navagent"]["overall"]
    assert agent["recall"] == 1.0 and 0 < agent["payload_tokens"] <= 6000
    assert agent["scan_tokens"] > 0  # the navigation turns' input
    assert "chunks_at_equal_payload" in report["modes"]["navagent"]
    status, table, _ = run_command(capsys, *common)
    rows = [line.split() for line in table.splitlines()]
    assert any(row[:1] == ["navagent"] for row in rows)
    assert any(row[:1] == ["navindex"] for row in rows)
