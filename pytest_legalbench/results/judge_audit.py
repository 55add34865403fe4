"""Reading a human audit of the judge: a verdicts.csv whose ``auditor_verdict`` was filled in.

The auditor reads each question, reference and pair of answers and writes which arm should have
won (inject, mode or tie); rows left blank were not audited. The judge's error rate is the share
of audited rows where its combined verdict differs from the auditor's, with an exact interval.
A judge verdict of "split" or "unscored" is not a decision, so it never agrees with an auditor.

Rows are numbered as a spreadsheet shows them: the header is row 1, the first verdict row 2.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pytest_legalbench.judging.pairing import OUTCOMES
from pytest_legalbench.results.verdicts_file import AUDITOR_VERDICTS
from pytest_legalbench.stats.exact import Rate, rate

#: The columns the reader needs; the others (question, answers, note) are for the auditor.
REQUIRED_COLUMNS = ("question_id", "mode", "verdict", "auditor_verdict")


class AuditFileError(ValueError):
    """A filled-in verdicts file is unreadable or malformed; the message names file, row, column."""

    def __init__(self, path: Path, problem: str, *, row: int | None = None,
                 column: str | None = None) -> None:
        where = "".join((f", row {row}" if row is not None else "",
                         f", column {column!r}" if column is not None else ""))
        super().__init__(f"{path}{where}: {problem}")
        self.path = path
        self.row = row
        self.column = column


class Disagreement(NamedTuple):
    """One audited row where the judge and the auditor differ."""

    question_id: str
    mode: str
    judge_verdict: str
    auditor_verdict: str


@dataclass(frozen=True)
class AuditResult:
    """How often the judge's combined verdict matched the auditor's."""

    audited: int
    agreed: int
    disagreements: tuple[Disagreement, ...]
    error_rate: Rate
    """Disagreements over audited rows, with its 95% Clopper-Pearson interval."""


def _value(path: Path, row: Mapping[str | None, object], number: int, column: str) -> str:
    value = row.get(column)
    if not isinstance(value, str):
        raise AuditFileError(path, "the row has fewer fields than the header", row=number,
                             column=column)
    return value.strip()


def _audit_row(path: Path, row: Mapping[str | None, object],
               number: int) -> tuple[str, str, str, str]:
    """Return (question_id, mode, judge verdict, auditor verdict or '') of one checked row."""
    if row.get(None):
        # DictReader files the fields beyond the header's under the key None.
        raise AuditFileError(path, "the row has more fields than the header", row=number)
    question_id, mode, verdict, auditor = (_value(path, row, number, column)
                                           for column in REQUIRED_COLUMNS)
    for column, value in (("question_id", question_id), ("mode", mode)):
        if not value:
            raise AuditFileError(path, "must not be blank", row=number, column=column)
    if verdict not in OUTCOMES:
        raise AuditFileError(path, f"must be one of {', '.join(OUTCOMES)}, got {verdict!r}",
                             row=number, column="verdict")
    # Hand-typed: case and surrounding spaces are forgiven, anything else is an error.
    auditor = auditor.casefold()
    if auditor and auditor not in AUDITOR_VERDICTS:
        raise AuditFileError(path, f"must be one of {', '.join(AUDITOR_VERDICTS)} or blank "
                                   f"(not audited), got {auditor!r}",
                             row=number, column="auditor_verdict")
    return question_id, mode, verdict, auditor


def read_audit(path: Path) -> AuditResult:
    """Compare the filled-in ``auditor_verdict`` column of a verdicts.csv with the judge's."""
    try:
        # utf-8-sig: spreadsheet programs often save UTF-8 with a byte-order mark.
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise AuditFileError(path, f"cannot be read as UTF-8 text: {error}") from None
    # newline="": only the csv module decides where a record ends, so a quoted answer keeps
    # its line breaks and a stray U+2028 inside an answer never splits a row.
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames
        if not header:
            raise AuditFileError(path, "is empty: expected a verdicts.csv header row", row=1)
        for column in REQUIRED_COLUMNS:
            if column not in header:
                raise AuditFileError(path, "missing from the header row", row=1, column=column)
        seen: dict[tuple[str, str], int] = {}
        disagreements: list[Disagreement] = []
        audited = 0
        for number, row in enumerate(reader, start=2):
            question_id, mode, verdict, auditor = _audit_row(path, row, number)
            if (question_id, mode) in seen:
                raise AuditFileError(path, f"question {question_id!r} under mode {mode!r} "
                                           f"repeats row {seen[question_id, mode]}", row=number)
            seen[question_id, mode] = number
            if not auditor:
                continue
            audited += 1
            if auditor != verdict:
                disagreements.append(Disagreement(question_id, mode, verdict, auditor))
    except csv.Error as error:
        raise AuditFileError(path, f"not valid CSV near line {reader.line_num}: {error}") from None
    return AuditResult(audited=audited, agreed=audited - len(disagreements),
                       disagreements=tuple(disagreements),
                       error_rate=rate(len(disagreements), audited))


def _percent(share: float) -> str:
    return f"{share * 100:.1f}%"


def audit_lines(result: AuditResult) -> list[str]:
    """Terminal lines: the judge's error rate with its interval, then each disagreement."""
    if result.audited == 0:
        return ["no verdict was audited: fill the auditor_verdict column with inject, mode or tie"]
    interval = result.error_rate.interval
    noun = "verdict" if result.audited == 1 else "verdicts"
    headline = (f"judge disagreed with the auditor on {len(result.disagreements)} of "
                f"{result.audited} audited {noun}: {_percent(result.error_rate.share)} "
                f"[{_percent(interval.low)}, {_percent(interval.high)}] (95% Clopper-Pearson)")
    lines = [headline]
    lines += [f"  {item.question_id} [{item.mode}]: judge {item.judge_verdict}, "
              f"auditor {item.auditor_verdict}" for item in result.disagreements]
    return lines
