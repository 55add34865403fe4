"""verdicts.csv: one row per judged item, for a person to audit the judge.

Beside the judge's raw and combined verdicts each row carries the key-fact score of both
answers, the cell of the tie split they fall in and a flag on the rows worth auditing first
(a tie between a passing and a failing answer, a win of a failing answer). The last two
columns are left blank for the auditor; ``legalbench audit`` reads them back.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.verdict_split import audit_flag, keyfact_cell

VERDICTS_FILE = "verdicts.csv"

#: The columns of verdicts.csv; the last two are left blank for a human auditor.
VERDICT_COLUMNS = (
    "question_id", "mode", "question", "reference", "answer_a_forward", "answer_b_forward",
    "verdict_forward", "verdict_reverse", "verdict", "keyfacts_inject", "keyfacts_mode",
    "keyfacts_split", "audit_flag", "auditor_verdict", "auditor_note",
)
#: What an auditor may write in ``auditor_verdict``.
AUDITOR_VERDICTS = ("inject", "mode", "tie")


def _passes(facts: KeyFacts | None) -> str:
    if facts is None:
        return ""
    return "pass" if facts.correct else "fail"


def verdicts_csv(records: Sequence[ItemRecord]) -> str:
    """The file's text: the header, then one row per judged record in the given order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(VERDICT_COLUMNS)
    for record in records:
        if record.verdict is None:
            continue
        # An unreadable raw verdict has no text; the combined verdict says "unscored".
        writer.writerow((record.question_id, record.mode, record.question,
                         record.reference or "", record.inject_answer, record.mode_answer or "",
                         record.raw_forward or "", record.raw_reverse or "", record.verdict,
                         _passes(record.keyfacts_inject), _passes(record.keyfacts_mode),
                         keyfact_cell(record).replace("_", " "), audit_flag(record), "", ""))
    return buffer.getvalue()
