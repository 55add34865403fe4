"""Claim audits as annotation sheets: export the audited claims of a GANDR report for
annotators (blind: the tool's labels are left out), then read their labels back and measure
agreement between annotators and between the tool and them.

A claim is keyed ``question_id|system|seed|round|claim_id``; the key joins a sheet to the
tool's labels in the report, so rows may be reordered or dropped by annotators.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.gandr.report import ResultsFileError, read_records
from pytest_legalbench.stats.agreement import (
    AUDIT_LABELS,
    agreed_subset,
    cohen_kappa,
    detection,
    exact_agreement,
)

SHEET_COLUMNS = ("claim_key", "question", "block", "claim", "cited_id", "cited_text", "label")


class ClaimSheetError(ValueError):
    """A report or sheet that cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class AuditedRow:
    """One audited claim: its key, what an annotator is shown, and the tool's label."""

    key: str
    question: str
    block: str
    claim: str
    cited_id: str
    cited_text: str
    tool_label: str


def audited_rows(report: Path) -> Iterator[AuditedRow]:
    """Every audited claim of every round of every GANDR record in ``report`` (a report
    folder or its results file), in record order."""
    try:
        records = read_records(report)
    except ResultsFileError as error:
        raise ClaimSheetError(str(error)) from None
    for record in records:
        passages = dict(record.passages)
        for repeat in record.repeats:
            for entry in repeat.trace:
                audit = entry.get("audit")
                if not isinstance(audit, dict):
                    continue
                for claim in audit["claims"]:
                    key = "|".join(str(part) for part in (
                        record.question_id, record.system, repeat.seed, entry.get("round"),
                        claim["claim_id"]))
                    cited = str(claim["cited_id"])
                    yield AuditedRow(key, record.question, str(claim["block"]),
                                     str(claim["claim"]), cited, passages.get(cited, ""),
                                     str(claim["label"]))


def sheet_text(rows: Sequence[AuditedRow]) -> str:
    """The annotation sheet as CSV: the label column blank, the tool's label absent."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    for row in rows:
        writer.writerow((row.key, row.question, row.block, row.claim, row.cited_id,
                         row.cited_text, ""))
    return out.getvalue()


def read_labels(path: Path) -> dict[str, str]:
    """An annotator's labels by claim key; blank labels are rows not annotated."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise ClaimSheetError(f"{path}: cannot read the sheet ({error.strerror})") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = {"claim_key", "label"} - set(reader.fieldnames or ())
    if missing:
        raise ClaimSheetError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    labels: dict[str, str] = {}
    for line, row in enumerate(reader, start=2):
        label = (row.get("label") or "").strip().upper()
        if not label:
            continue
        if label not in AUDIT_LABELS:
            raise ClaimSheetError(f"{path}, line {line}: label {row['label']!r} is not one of "
                                  f"{', '.join(AUDIT_LABELS)}")
        key = (row.get("claim_key") or "").strip()
        if key in labels:
            raise ClaimSheetError(f"{path}, line {line}: claim {key!r} is labelled twice")
        labels[key] = label
    return labels


def agreement_report(tool: Mapping[str, str], first: Mapping[str, str],
                     second: Mapping[str, str] | None = None) -> dict[str, object]:
    """Agreement figures: with two annotators, human-human kappa and the tool against their
    agreed subset (the gold); with one, the tool against that annotator."""
    unknown = sorted(set(first) - set(tool))
    if second is not None:
        unknown += sorted(set(second) - set(tool))
    if unknown:
        raise ClaimSheetError(f"{len(unknown)} labelled claim key(s) are not in the report, "
                              f"e.g. {unknown[0]!r}")
    report: dict[str, object] = {}
    if second is None:
        keys = sorted(first)
        gold = [first[k] for k in keys]
    else:
        keys = sorted(set(first) & set(second))
        a, b = [first[k] for k in keys], [second[k] for k in keys]
        report["human_human"] = {"items": len(keys), "kappa": _round(cohen_kappa(a, b)),
                                 "exact_agreement": _round(exact_agreement(a, b))}
        agreed = agreed_subset(a, b)
        keys = [keys[i] for i in agreed]
        gold = [a[i] for i in agreed]
    tool_labels = [tool[k] for k in keys]
    found = detection(tool_labels, gold)
    report["tool_human"] = {"items": len(keys), "kappa": _round(cohen_kappa(tool_labels, gold)),
                            "exact_agreement": _round(exact_agreement(tool_labels, gold)),
                            "detection": to_builtins(found)}
    return report


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
