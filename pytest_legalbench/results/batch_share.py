"""How many of a summary's calls went through the Message Batches API: what its cost,
footprint and crossover lines say of the rates they were priced at."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_legalbench.llm.ledger import Call


@dataclass(frozen=True)
class BatchShare:
    """Calls made through batches, of all the calls counted."""

    batch: int
    calls: int

    def __post_init__(self) -> None:
        if not 0 <= self.batch <= self.calls:
            raise ValueError(f"batch calls must be between 0 and {self.calls}, got {self.batch}")

    @property
    def all(self) -> bool:
        """Whether every call was a batch call."""
        return self.batch == self.calls

    @property
    def label(self) -> str:
        """``batch``, or ``batch: 76 of 80 calls`` when some calls were interactive."""
        return "batch" if self.all else f"batch: {self.batch:,} of {self.calls:,} calls"


def batch_share(calls: Iterable[Call]) -> BatchShare | None:
    """The batch share of ``calls``; None when none was a batch call."""
    counted = list(calls)
    batch = sum(1 for call in counted if call.batch)
    return BatchShare(batch, len(counted)) if batch else None
