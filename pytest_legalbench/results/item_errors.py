"""Items that failed with an error instead of producing a record: a user's retriever that
raised, hung or returned something malformed, a model call that failed for good.

Each travels from the process that ran it as the ``legalbench_error`` user property (plain
builtins, as records do), is counted and named in the summary and kept, error and all, in
results.json; the figures of every mode cover the items that produced records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: Failed items named in the summary line; the rest are counted.
MAX_LISTED = 10


@dataclass(frozen=True)
class ItemError:
    """One failed item: its id, mode and question, and its one-line error."""

    item: str
    mode: str
    question_id: str
    error: str


def item_error(value: object) -> ItemError | None:
    """The error a ``legalbench_error`` property holds; None for anything else."""
    if not isinstance(value, Mapping):
        return None
    fields: dict[str, Any] = {name: value.get(name) for name in
                              ("item", "mode", "question_id", "error")}
    if not all(isinstance(found, str) for found in fields.values()):
        return None
    return ItemError(**fields)


def error_lines(errors: Iterable[ItemError]) -> list[str]:
    """The summary's line for failed items: how many, per mode, and which (their errors are
    printed with the failures and kept in results.json, not repeated here)."""
    found = sorted(errors, key=lambda e: (e.mode, e.question_id, e.item))
    if not found:
        return []
    counts: dict[str, int] = {}
    for error in found:
        counts[error.mode] = counts.get(error.mode, 0) + 1
    per_mode = ", ".join(f"{mode} {count}" for mode, count in counts.items())
    items = ", ".join(e.item for e in found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    counted = f"{len(found)} item{'s' if len(found) != 1 else ''}"
    line = (f"errors: {counted} failed with an error and are left out of the figures "
            f"({per_mode}): {items}{more}")
    return [line]
