"""A LangChain and a LlamaIndex retriever benchmarked end to end under two xdist workers, each
registered with one line of a user's conftest (``tests/support/framework_conftest.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.lease_project import lease_project
from tests.support.plugin_sessions import isolate_environment, summary_section

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = ("equipment-meaning", "rent-amount")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def test_framework_retrievers_get_the_full_summary_under_xdist(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    (pytester.path / "project").mkdir()
    docs, questions, doc_id = lease_project(pytester.path / "project")
    shutil.copy(REPO / "benchmarks" / "test_legalbench.py", pytester.path / "test_bench.py")
    shutil.copy(REPO / "tests" / "support" / "framework_conftest.py",
                pytester.path / "conftest.py")
    result = pytester.runpytest_subprocess(
        f"--legalbench-docs={docs}", f"--legalbench-questions={questions}",
        f"--legalbench-cache-dir={shared_cache}", "--legalbench-backend=reference",
        "--disable-recording", "-p", "no:cacheprovider", "-n", "2", "--mode=lc", "--mode=li",
        "--legalbench-report=out", timeout=300)
    result.assert_outcomes(passed=2 * len(QUESTIONS))
    summary = summary_section(result.outlines)
    for mode in ("lc", "li"):
        start = summary.index(f"{mode}: {len(QUESTIONS)} items")
        block = summary[start:start + 12]
        assert any(line.startswith("  evidence recall ") for line in block)
        assert any(line.startswith(f"  crossover: {mode} vs inject") for line in block)
    results = json.loads((pytester.path / "out" / "results.json").read_text(encoding="utf-8"))
    records = results["records"]
    assert {(r["question_id"], r["mode"]) for r in records} == {
        (q, m) for q in QUESTIONS for m in ("lc", "li")}
    for record in records:
        assert record["mode_traits"] == {"shown": "provisions", "crossover": "payload"}
        assert record["provisions"] and all(p["doc_id"] == doc_id
                                            for p in record["provisions"])
        assert record["evidence_recall"] is not None and record["verdict"]
        assert not record.get("unlocated")
