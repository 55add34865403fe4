"""The one order every report file takes records in, and what makes a record paired."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from pytest_legalbench.results.item_record import ItemRecord


def ordered(records: Iterable[ItemRecord]) -> list[ItemRecord]:
    """Records in (question_id, mode) order, so files are the same however xdist interleaved
    the items; two records of one item are an error."""
    found = sorted(records, key=lambda record: (record.question_id, record.mode))
    for before, after in itertools.pairwise(found):
        if (before.question_id, before.mode) == (after.question_id, after.mode):
            raise ValueError(f"two records for question {after.question_id!r} under mode "
                             f"{after.mode!r}: each item must be recorded once")
    return found


def is_paired(record: ItemRecord) -> bool:
    """Whether the record has a mode arm (an inject-only run records the baseline alone)."""
    return record.mode_answer is not None
