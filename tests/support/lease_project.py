"""A small equipment lease written as a ``--docs`` folder with two question files, and a
runner of the ``legalbench`` command that captures what it printed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_legalbench.commands.cli import main
from pytest_legalbench.ingest.loading import load_folder

LEASE = """EQUIPMENT LEASE

1. DEFINITIONS

"Equipment" means the two forklifts listed in Schedule A.

2. RENT

2.1 The Lessee shall pay rent of $2,500 per month for the Equipment.

2.2 Rent paid late bears interest at 1.5% per month, as set out in Section 4.

3. GOVERNING LAW

This Lease is governed by the laws of Ontario.

4. INTEREST

Interest accrues daily from the due date until payment in full.

SCHEDULE A

Two electric forklifts, serial numbers FL-1 and FL-2.
"""

QUESTIONS = {
    "rent-amount": {
        "question": "How much rent is due each month?", "reference": "$2,500 per month.",
        "kind": "lookup", "evidence": ["pay rent of $2,500 per month"], "must_contain": ["2,500"],
    },
    "equipment-meaning": {
        "question": "Which machines does the lease cover?",
        "reference": "Two electric forklifts, FL-1 and FL-2.", "kind": "definition",
        "evidence": ['"Equipment" means the two forklifts', "serial numbers FL-1 and FL-2"],
        "must_contain": ["FL-1"],
    },
}


def lease_project(tmp_path: Path) -> tuple[Path, Path, str]:
    """The lease as a --docs folder with its question files: (folder, questions, doc id)."""
    folder = tmp_path / "lease"
    folder.mkdir()
    (folder / "lease.txt").write_text(LEASE, encoding="utf-8")
    doc_id = load_folder(folder)[0].doc_id
    questions = tmp_path / "questions"
    questions.mkdir()
    for name, spec in QUESTIONS.items():
        data = {"id": name, "question": spec["question"], "reference": spec["reference"],
                "kind": spec["kind"], "documents": [doc_id],
                "evidence": [{"doc_id": doc_id, "quote": q} for q in spec["evidence"]],
                "must_contain": spec["must_contain"], "difficulty": "easy",
                "practice_area": "commercial"}
        (questions / f"{name}.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return folder, questions, doc_id


def run_command(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
