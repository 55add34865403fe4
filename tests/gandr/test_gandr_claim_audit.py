"""GANDR report files, the blind claim sheet, and annotator agreement through the CLI."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.gandr.claim_sheet import ClaimSheetError, agreement_report, read_labels
from pytest_legalbench.gandr.report import RESULTS_FILE, TRACES_FOLDER, write_gandr_report
from pytest_legalbench.gandr.summary_types import GandrSummary
from tests.support.gandr_samples import audit_round, record, repeat


def _report(folder: Path) -> list[Path]:
    records = [
        record("q1", "gandr", [repeat(0, 5, True, passed=True, trace=(
            audit_round(["SUPPORTED", "PARTIAL"]),)), repeat(1, 5, True, passed=True)]),
        record("q2", "gandr", [repeat(0, 4, True, passed=True, rounds=2, trace=(
            audit_round(["UNSUPPORTED"]), audit_round(["SUPPORTED", "MISCITED"], 2)))]),
        record("q1", "gandr:b1", [repeat(0, 3, False, trace=({"step": "answer",
                                                              "output": "x"},))]),
    ]
    return write_gandr_report(folder, records, GandrSummary.empty(), backend="reference")


def test_the_report_holds_results_and_one_trace_per_item(tmp_path: Path) -> None:
    written = _report(tmp_path)
    assert written[0] == tmp_path / RESULTS_FILE
    assert sorted(p.name for p in written[1:]) == ["q1-gandr.jsonl", "q1-gandr_b1.jsonl",
                                                   "q2-gandr.jsonl"]
    lines = (tmp_path / TRACES_FOLDER / "q2-gandr.jsonl").read_text().splitlines()
    assert [json.loads(line)["round"] for line in lines] == [1, 2]
    assert json.loads(lines[0])["system"] == "gandr" and json.loads(lines[0])["seed"] == 0
    results = json.loads((tmp_path / RESULTS_FILE).read_text())
    assert results["schema_version"] == 2 and len(results["records"]) == 3
    assert results["summary"] == {"systems": {}}


def _export(tmp_path: Path) -> list[dict[str, str]]:
    _report(tmp_path / "report")
    sheet = tmp_path / "claims.csv"
    assert main(["audit-export", str(tmp_path / "report"), "--out", str(sheet), "-q"]) == 0
    return list(csv.DictReader(sheet.open(encoding="utf-8")))


def test_export_is_blind_and_keys_every_claim(tmp_path: Path) -> None:
    rows = _export(tmp_path)
    assert [r["claim_key"] for r in rows] == ["q1|gandr|0|1|1", "q1|gandr|0|1|2",
                                              "q2|gandr|0|1|1", "q2|gandr|0|2|1",
                                              "q2|gandr|0|2|2"]
    assert all(r["label"] == "" for r in rows)
    assert all(value not in ("PARTIAL", "MISCITED", "UNSUPPORTED")
               for r in rows for value in r.values())
    assert rows[0]["cited_text"] == "Text one."


def _label(tmp_path: Path, name: str, labels: list[str]) -> Path:
    rows = _export(tmp_path) if not (tmp_path / "claims.csv").exists() else \
        list(csv.DictReader((tmp_path / "claims.csv").open(encoding="utf-8")))
    path = tmp_path / name
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for row, label in zip(rows, labels, strict=True):
            writer.writerow({**row, "label": label})
    return path


def test_agreement_with_one_annotator(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    # Tool: S P U S M. Annotator: S U U S S; blank rows are not annotated.
    sheet = _label(tmp_path, "a.csv", ["SUPPORTED", "UNSUPPORTED", "unsupported", "SUPPORTED",
                                       "SUPPORTED"])
    assert main(["audit-agreement", str(tmp_path / "report"), str(sheet), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["tool_human"]
    # Agreement 3/5; as a detector (P/U/M positive) the tool has TP 2 (P~U, U~U), FP 1 (M~S).
    assert report["exact_agreement"] == 0.6
    assert report["detection"]["true_positive"] == 2
    assert report["detection"]["false_positive"] == 1
    assert report["detection"]["false_negative"] == 0
    assert report["detection"]["precision"] == pytest.approx(2 / 3)


def test_agreement_with_two_annotators_uses_their_agreed_subset(tmp_path: Path) -> None:
    first = read_labels(_label(tmp_path, "a.csv", ["SUPPORTED", "PARTIAL", "UNSUPPORTED",
                                                   "SUPPORTED", ""]))
    second = read_labels(_label(tmp_path, "b.csv", ["SUPPORTED", "PARTIAL", "PARTIAL",
                                                    "SUPPORTED", "MISCITED"]))
    tool = {"q1|gandr|0|1|1": "SUPPORTED", "q1|gandr|0|1|2": "PARTIAL",
            "q2|gandr|0|1|1": "UNSUPPORTED", "q2|gandr|0|2|1": "SUPPORTED",
            "q2|gandr|0|2|2": "MISCITED"}
    report = agreement_report(tool, first, second)
    # Both labelled 4 claims and agree on 3 (S, P, S): the gold the tool is measured on.
    assert report["human_human"]["items"] == 4
    assert report["human_human"]["exact_agreement"] == 0.75
    assert report["tool_human"]["items"] == 3 and report["tool_human"]["kappa"] == 1.0


def test_sheet_errors_name_the_file_and_line(tmp_path: Path) -> None:
    bad = _label(tmp_path, "bad.csv", ["SUPPORTED", "MAYBE", "", "", ""])
    with pytest.raises(ClaimSheetError, match=r"bad.csv, line 3: label 'MAYBE'"):
        read_labels(bad)
    with pytest.raises(ClaimSheetError, match="not in the report"):
        agreement_report({}, {"x|y|0|1|1": "SUPPORTED"})
    assert main(["audit-export", str(tmp_path / "missing"), "--out",
                 str(tmp_path / "o.csv")]) == 2


def test_gandr_summary_rescores_stored_answers_without_a_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_legalbench.gandr.report import read_records
    from pytest_legalbench.gandr.rescore import rescore

    stored = record("q1", "gandr:b1", [
        repeat(0, 5, True, normalised=True), repeat(1, 5, False, normalised=False)],
        stable=True)
    # The answers as a model wrote them: fullwidth braces (normalised only), then a proper cite.
    stored = dataclasses.replace(stored, repeats=(
        dataclasses.replace(stored.repeats[0], answer="Yes \uff5bcite: doc:1\uff5d."),
        dataclasses.replace(stored.repeats[1], answer="Yes {cite: doc:2}.")))
    write_gandr_report(tmp_path, [stored], GandrSummary.empty(), backend="reference")
    again = rescore(read_records(tmp_path)[0])
    assert [(r.grounded, r.normalised_grounded) for r in again.repeats] == [(False, True),
                                                                           (True, True)]
    # Seed 0 is no longer strict-correct, so the item is no longer Stable & Correct.
    assert again.stable_correct is False
    assert main(["gandr-summary", str(tmp_path), "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)["systems"]["gandr:b1"]
    assert summary["strict"]["k"] == 0 and summary["normalised_strict"]["k"] == 1
    assert main(["gandr-summary", str(tmp_path / "nothing-here")]) == 2
