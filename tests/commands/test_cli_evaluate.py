"""``legalbench evaluate`` and ``legalbench spans`` on a small folder written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support.lease_project import LEASE, lease_project, run_command


@pytest.fixture
def lease(tmp_path: Path) -> tuple[Path, Path, str]:
    return lease_project(tmp_path)


def test_evaluate_reports_recall_payload_and_the_baseline_beside_each_mode(
        lease: tuple[Path, Path, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, questions, _ = lease
    status, out, _ = run_command(capsys, "evaluate", "--docs", str(folder), "--questions",
                          str(questions), "--mode", "navindex", "--json", "-q",
                          "--cache-dir", str(tmp_path / "cache"))
    assert status == 0
    report = json.loads(out)
    assert report["questions"] == 2 and report["controls"] == 0
    assert list(report["modes"]) == ["navindex", "navembed:chunks"]
    navindex = report["modes"]["navindex"]
    overall = navindex["overall"]
    assert overall["questions"] == 2 and 0.0 <= overall["recall"] <= 1.0
    # One document holds every quote, so no retrieved character is from a wrong document.
    assert overall["wrong_document_rate"] == 0.0
    assert all(r["wrong_document_share"] == 0.0 for r in report["per_question"])
    assert overall["footprint_ratio"] == pytest.approx(
        report["inject_tokens"] / overall["payload_tokens"], rel=1e-3)
    equal = navindex["chunks_at_equal_payload"]["overall"]
    # The baseline beside a mode is held to that mode's payload (the last chunk cut to fit).
    assert abs(equal["payload_tokens"] - overall["payload_tokens"]) <= 1
    assert set(navindex["by_kind"]) == {"definition", "lookup"}
    records = {(r["question_id"], r["mode"]) for r in report["per_question"]}
    assert ("rent-amount", "navindex") in records
    assert ("rent-amount", "navembed:chunks@navindex") in records
    # The whole lease is smaller than one chunk, so the top-10 baseline holds every quote.
    baseline = report["modes"]["navembed:chunks"]["overall"]
    assert baseline["recall"] == 1.0 and baseline["complete"] == 2


def test_evaluate_prints_a_table_by_default(lease: tuple[Path, Path, str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder, questions, _ = lease
    status, out, _ = run_command(capsys, "evaluate", "--docs", str(folder), "--questions",
                          str(questions), "--mode", "navindex", "-q",
                          "--cache-dir", str(tmp_path / "cache"))
    assert status == 0
    assert out.startswith("2 questions (0 out-of-scope controls) over folder")
    assert "navembed:chunks at equal payload" in out and "recall by kind:" in out
    assert "wrong doc" in out


def test_evaluate_names_bad_question_files_and_unknown_documents(
        lease: tuple[Path, Path, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, questions, _ = lease
    bad = questions / "rent-amount.yaml"
    data = yaml.safe_load(bad.read_text(encoding="utf-8"))
    bad.write_text(yaml.safe_dump({**data, "kind": "riddle"}), encoding="utf-8")
    status, _, err = run_command(capsys, "evaluate", "--docs", str(folder), "--questions",
                          str(questions), "-q", "--cache-dir", str(tmp_path / "cache"))
    assert status == 2 and "rent-amount.yaml: field 'kind' is 'riddle'" in err
    bad.write_text(yaml.safe_dump({**data, "documents": ["elsewhere"], "evidence": [
        {"doc_id": "elsewhere", "quote": "rent"}]}), encoding="utf-8")
    status, _, err = run_command(capsys, "evaluate", "--docs", str(folder), "--questions",
                          str(questions), "-q", "--cache-dir", str(tmp_path / "cache"))
    assert status == 2 and "documents not in this corpus: elsewhere" in err
    status, _, err = run_command(capsys, "evaluate", "--docs", str(folder), "-q")
    assert status == 2 and "give --questions DIR" in err


def _benchmark(tmp_path: Path, file_path: str) -> Path:
    start = LEASE.index("rent of $2,500")
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"tests": [
        {"query": "What is the monthly rent?",
         "snippets": [{"file_path": file_path, "span": [start, start + 30]}]},
        {"query": "Which law governs?",
         "snippets": [{"file_path": file_path, "span": [LEASE.index("the laws of Ontario"),
                                                        LEASE.index("the laws of Ontario") + 19]}]},
    ]}), encoding="utf-8")
    return path


def test_spans_scores_character_precision_and_recall(lease: tuple[Path, Path, str],
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder, _, _ = lease
    bench = _benchmark(tmp_path, "lease.txt")
    status, out, _ = run_command(capsys, "spans", str(bench), "--docs", str(folder), "--mode",
                          "navembed:chunks", "-k", "1", "--json", "-q",
                          "--cache-dir", str(tmp_path / "cache"))
    assert status == 0
    result = json.loads(out)
    assert {"tests", "mode", "k", "budget_chars", "recall", "precision"} <= set(result)
    assert (result["tests"], result["mode"], result["k"]) == (2, "navembed:chunks", 1)
    # One chunk holds the whole lease: every gold character is found, diluted by the rest.
    assert result["recall"] == 1.0
    assert result["precision"] == pytest.approx((30 / len(LEASE) + 19 / len(LEASE)) / 2,
                                                abs=1e-4)
    status, out, _ = run_command(capsys, "spans", str(bench), "--docs", str(folder), "--mode",
                          "navembed:chunks", "--budget-chars", "100", "--json", "-q",
                          "--cache-dir", str(tmp_path / "cache"))
    result = json.loads(out)
    assert status == 0 and result["budget_chars"] == 100 and result["k"] is None
    assert result["retrieved_chars_mean"] == 100.0


def test_spans_rejects_files_outside_the_corpus_and_bad_cuts(
        lease: tuple[Path, Path, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, _, _ = lease
    bench = _benchmark(tmp_path, "other/contract.txt")
    status, _, err = run_command(capsys, "spans", str(bench), "--docs", str(folder), "--mode",
                          "navindex", "-k", "3", "-q")
    assert status == 2 and "other/contract.txt" in err and "not documents" in err
    status, _, err = run_command(capsys, "spans", str(_benchmark(tmp_path, "lease.txt")), "--docs",
                          str(folder), "--mode", "navindex", "-k", "0", "-q")
    assert status == 2 and "-k must be a positive integer, got 0" in err
    (tmp_path / "broken.json").write_text('{"tests": [{"query": "q"}]}', encoding="utf-8")
    status, _, err = run_command(capsys, "spans", str(tmp_path / "broken.json"), "--docs",
                          str(folder), "--mode", "navindex", "-k", "3", "-q")
    assert status == 2 and "broken.json: tests[0]" in err


def test_spans_scores_one_split_per_tag_with_the_wrong_document_rate(
        lease: tuple[Path, Path, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, _, _ = lease
    # "CardlyticsInc" is a tuning family by the split's hash, "lease.txt" a test family.
    notice = "NOTICE LETTER\n\nAll notices go to the Landlord at 1 Main Street, Toronto.\n"
    (folder / "CardlyticsInc_notice.txt").write_text(notice, encoding="utf-8")
    bench = tmp_path / "bench.json"
    start = LEASE.index("rent of $2,500")
    bench.write_text(json.dumps({"tests": [
        {"query": "What is the monthly rent?", "tags": ["Rent"],
         "snippets": [{"file_path": "lease.txt", "span": [start, start + 30]}]},
        {"query": "Where do notices go?", "tags": ["Notice"],
         "snippets": [{"file_path": "CardlyticsInc_notice.txt", "span": [15, 40]}]},
    ]}), encoding="utf-8")
    common = [str(bench), "--docs", str(folder), "--mode", "navembed:chunks", "-k", "2",
              "--json", "-q", "--cache-dir", str(tmp_path / "cache")]
    status, out, _ = run_command(capsys, "spans", *common, "--split", "test")
    result = json.loads(out)
    assert status == 0 and (result["split"], result["tests"]) == ("test", 1)
    # Each document is one chunk and k=2 takes both: the notice letter is the wrong document.
    assert result["wrong_document_rate"] == round(len(notice) / (len(notice) + len(LEASE)), 4)
    assert list(result["by_tag"]) == ["Rent"] and result["by_tag"]["Rent"]["recall"] == 1.0
    status, out, _ = run_command(capsys, "spans", *common, "--split", "tune")
    result = json.loads(out)
    assert (result["split"], result["tests"], list(result["by_tag"])) == ("tune", 1, ["Notice"])
    status, out, _ = run_command(capsys, "spans", *common[:-4], "-q", "--by-tag",
                                 "--cache-dir", str(tmp_path / "cache"))
    assert status == 0 and "on 2 of 2 tests (k=2)" in out
    assert "Notice" in out and "Rent" in out and "wrong doc" in out
