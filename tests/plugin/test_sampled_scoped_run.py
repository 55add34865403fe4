"""A live run on the reference backend with no cassettes: a sample of the packaged questions,
inject reading each question's transaction set, and the summary's scopes, error classes and
paired statistics, the same under xdist and in results.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.benchmark_project import MODULE, REPO
from tests.support.plugin_sessions import FOREIGN_ENV

SAMPLE = 4
MODE = "navindex"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, corpus_root: Path,
            tmp_path: Path) -> pytest.Pytester:
    """The benchmark module alone: no cassettes, the packaged questions."""
    shutil.copy(REPO / "benchmarks" / f"{MODULE}.py", pytester.path)
    pytester.makeini("[pytest]\n")
    for name in (*FOREIGN_ENV, "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT",
                 "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))
    monkeypatch.setenv("LEGALBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return pytester


def _summary(output: str) -> str:
    start = output.index("legalbench summary")
    return output[start:output.rindex("\n=")]


def _statistics(summary: str) -> str:
    return summary[summary.index("\nstatistics: "):summary.index("\nquestions: ")]


def test_a_sample_with_inject_per_set_plain_and_under_xdist(project: pytest.Pytester,
                                                            tmp_path: Path) -> None:
    args = ["-p", "no:cacheprovider", "--disable-recording", "--mode", MODE,
            "--legalbench-sample", str(SAMPLE), "--legalbench-inject-scope", "set"]
    plain = project.runpytest_subprocess(*args, "--legalbench-report", str(tmp_path / "r"))
    plain.assert_outcomes(passed=SAMPLE)
    plain.stdout.fnmatch_lines([
        f"legalbench: questions packaged, a sample of {SAMPLE} of 32; inject scope set",
        f"collected {SAMPLE} items"])
    summary = _summary(plain.stdout.str())
    assert (f"arms: inject read each question's transaction set; {MODE} searched the whole "
            f"corpus") in summary
    assert f"  errors, {MODE}: right " in summary and "  errors, inject: right " in summary
    assert "\nstatistics: " in summary
    assert f"\n  {MODE} vs inject (" in summary and "McNemar p = " in summary
    assert "detectable" in summary

    data = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    records = data["records"]
    assert len(records) == SAMPLE
    assert {r["inject_scope"] for r in records} == {"set"}
    assert {r["mode_scope"] for r in records} == {"corpus"}
    assert all(r["transaction_set"] for r in records)
    assert all(r["error_class"] in {"right", "retrieval_miss", "reading_miss", "unscored",
                                    "declined", "not_declined"} for r in records)
    statistics = data["summary"]["statistics"]
    (comparison,) = statistics["comparisons"]
    assert (comparison["paired"]["first"], comparison["paired"]["second"]) == (MODE, "inject")
    assert statistics["questions"] + statistics["controls"] == SAMPLE
    counts = data["summary"]["modes"][MODE]["errors"]["mode"]
    assert sum(counts.values()) == SAMPLE

    spread = project.runpytest_subprocess(*args, "-n", "2")
    spread.assert_outcomes(passed=SAMPLE)
    # The same answers, classes and statistics (costs differ: each worker writes its own
    # prompt cache).
    assert _statistics(_summary(spread.stdout.str())) == _statistics(summary)
    errors = [line for line in summary.splitlines() if line.startswith("  errors, ")]
    assert errors and all(line in spread.stdout.str() for line in errors)
