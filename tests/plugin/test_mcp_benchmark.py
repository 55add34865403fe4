"""``--mode=mcp:NAME`` benchmarked end to end: a user's project (a folder of documents, its
questions, the benchmark module) with the tests' own MCP server named on the command line,
recorded into cassettes in a plain run, then replayed from them under two xdist workers with
the server named in the ini file; and ``legalbench evaluate`` over the same server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.lease_project import lease_project, run_command
from tests.support.mcp_servers import server_command
from tests.support.plugin_sessions import isolate_environment, summary_section

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = ("equipment-meaning", "rent-amount")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def _block(lines: list[str], mode: str) -> list[str]:
    summary = summary_section(lines)
    start = summary.index(f"{mode}: {len(QUESTIONS)} items")
    end = next((n for n in range(start + 1, len(summary)) if not summary[n].startswith(" ")),
               len(summary))
    return summary[start:end]


def test_an_mcp_server_is_benchmarked_recorded_and_replayed_under_xdist(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    (pytester.path / "project").mkdir()
    docs, questions, doc_id = lease_project(pytester.path / "project")
    command = server_command({doc_id: next(docs.iterdir())})
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", pytester.path / "test_bench.py")
    common = [f"--legalbench-docs={docs}", f"--legalbench-questions={questions}",
              f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
              "-p", "no:cacheprovider", "--mode=mcp:lease"]
    recorded = pytester.runpytest_subprocess(
        *common, f"--legalbench-mcp-server=lease={command}", "--record-mode=once",
        "--legalbench-report=out", timeout=300)
    recorded.assert_outcomes(passed=len(QUESTIONS))
    block = _block(recorded.outlines, "mcp:lease")
    assert any(line.startswith("  evidence recall ") for line in block)
    assert any(line.startswith("  crossover: mcp:lease") for line in block)
    results = json.loads((pytester.path / "out" / "results.json").read_text(encoding="utf-8"))
    records = {r["question_id"]: r for r in results["records"]}
    assert set(records) == set(QUESTIONS)
    for record in records.values():
        assert record["mode"] == "mcp:lease" and record["verdict"]
        assert record["mode_traits"] == {"shown": "answer", "crossover": "conversation"}
        stages = [call["stage"] for call in record["mode_calls"]]
        assert stages[0] == "mcp.turn1" and stages[-1] == "mcp.answer"
        assert all(p["doc_id"] == doc_id for p in record["provisions"])
        assert 0 < record["payload_tokens"] <= 6000
    rent = records["rent-amount"]
    # The reference backend's extractive answer is whatever it is; what was read is measured.
    assert rent["evidence_recall"] == 1.0 and rent["mode_answer"]
    tools = [event["name"] for call in rent["mode_calls"]
             for event in call.get("tool_results", [])]
    assert tools[0] == "find_passages" and "read_passage" in tools
    # The turns are in the items' cassettes: each request by the digest of its body (the
    # server's results it carries included, so a replay matches only if the server answers
    # as it did), each response with the tool calls the model made.
    cassettes = [p.read_text(encoding="utf-8") for p in (pytester.path / "cassettes").rglob(
        "*mcp*.yaml")]
    assert len(cassettes) == len(QUESTIONS)
    assert all("find_passages" in text and "read_passage" in text for text in cassettes)

    # Replayed under two workers, the server named by the ini file this time.
    pytester.makeini(f"[pytest]\nlegalbench_mcp_servers =\n    lease = {command}\n")
    before = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    replayed = pytester.runpytest_subprocess(*common, "--record-mode=none", "-n", "2",
                                             "--legalbench-report=again", timeout=300)
    replayed.assert_outcomes(passed=len(QUESTIONS))
    again = json.loads((pytester.path / "again" / "results.json").read_text(encoding="utf-8"))
    assert {r["question_id"]: r["evidence_recall"] for r in again["records"]} \
        == {q: r["evidence_recall"] for q, r in records.items()}
    after = {p: p.read_bytes() for p in (pytester.path / "cassettes").rglob("*.yaml")}
    assert after == before


def test_an_unknown_mcp_server_is_a_usage_error_naming_the_option(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    (pytester.path / "project").mkdir()
    docs, questions, _ = lease_project(pytester.path / "project")
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", pytester.path / "test_bench.py")
    result = pytester.runpytest_subprocess(
        f"--legalbench-docs={docs}", f"--legalbench-questions={questions}",
        f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
        "-p", "no:cacheprovider", "--mode=mcp:nowhere", timeout=120)
    assert result.ret != 0
    assert "no MCP server is named 'nowhere'" in result.stderr.str() + result.stdout.str()


def test_evaluate_navigates_an_mcp_server_beside_the_other_modes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder, questions, doc_id = lease_project(tmp_path)
    command = server_command({doc_id: folder / "lease.txt"})
    status, out, err = run_command(
        capsys, "evaluate", "--docs", str(folder), "--questions", str(questions), "--mode",
        "mcp:lease", "--mcp-server", f"lease={command}", "-q", "--cache-dir",
        str(tmp_path / "cache"), "--json")
    assert status == 0, err
    report = json.loads(out)
    overall = report["modes"]["mcp:lease"]["overall"]
    assert overall["recall"] > 0 and 0 < overall["payload_tokens"] <= 6000


def test_a_server_that_hangs_or_cannot_start_fails_its_items_in_one_line_each(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    (pytester.path / "project").mkdir()
    docs, questions, doc_id = lease_project(pytester.path / "project")
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", pytester.path / "test_bench.py")
    stalls = server_command({doc_id: next(docs.iterdir())}, "--stall", "30")
    result = pytester.runpytest_subprocess(
        f"--legalbench-docs={docs}", f"--legalbench-questions={questions}",
        f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
        "--disable-recording", "-p", "no:cacheprovider", "-rN", "--legalbench-timeout=2",
        f"--legalbench-mcp-server=stalls={stalls}",
        f"--legalbench-mcp-server=gone={pytester.path / 'no-such-server'}",
        "--mode=mcp:stalls", "--mode=mcp:gone", "--legalbench-report=out", timeout=300)
    result.assert_outcomes(errors=2 * len(QUESTIONS))
    output = result.stdout.str()
    for question in QUESTIONS:
        assert output.count(f"mode 'mcp:stalls', question '{question}': tool 'read_passage' "
                            f"took longer than the timeout of 2 s (--legalbench-timeout)") == 1
    assert "mode 'mcp:gone', the question: MCP server 'gone' " in output
    assert "could not be reached over stdio" in output
    assert any(line.startswith("errors: 4 items failed with an error") for line in
               result.outlines)
