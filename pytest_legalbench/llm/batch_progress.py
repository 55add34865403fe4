"""Where the batches of a run stand: each batch's state as the API reports it, the sum over
the batches being waited on, and the line a progress display prints. ``BatchState`` and
``RequestCounts`` are written through ``files.record_json`` (``legalbench batches --json``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_legalbench.files.record_json import renamed

#: The request counts a batch reports, in the order lines print them.
COUNT_NAMES = ("processing", "succeeded", "errored", "canceled", "expired")
#: ``processing_status`` values, and the one a batch ends in.
STATUSES = ("in_progress", "canceling", "ended")
ENDED = "ended"


@dataclass(frozen=True)
class RequestCounts:
    """A batch's requests by state (the API's ``request_counts``)."""

    processing: int = 0
    succeeded: int = 0
    errored: int = 0
    canceled: int = 0
    expired: int = 0

    def __add__(self, other: RequestCounts) -> RequestCounts:
        """The counts of two batches together."""
        if not isinstance(other, RequestCounts):
            return NotImplemented
        return RequestCounts(*(getattr(self, n) + getattr(other, n) for n in COUNT_NAMES))

    @property
    def total(self) -> int:
        """Every request counted."""
        return sum(getattr(self, name) for name in COUNT_NAMES)

    @classmethod
    def from_api(cls, counts: Any) -> RequestCounts:
        """Read the SDK's ``MessageBatchRequestCounts`` (or a mapping of the same names)."""
        def read(name: str) -> int:
            value = counts.get(name) if isinstance(counts, Mapping) else getattr(counts, name,
                                                                                 None)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0
        return cls(*(read(name) for name in COUNT_NAMES))


@dataclass(frozen=True)
class BatchState:
    """One batch as the API last reported it; its JSON (``files.record_json``) names the
    status and the counts as the API does."""

    batch_id: str
    status: str = field(metadata=renamed("processing_status"))
    """``in_progress``, ``canceling`` or ``ended``."""
    counts: RequestCounts = field(metadata=renamed("request_counts"))
    created_at: str | None = None
    ended_at: str | None = None
    expires_at: str | None = None
    """RFC 3339 times; None when the API gave none (``ended_at`` until the batch ends)."""

    @property
    def ended(self) -> bool:
        """Whether processing has ended (results can be read)."""
        return self.status == ENDED

    @classmethod
    def from_api(cls, batch: Any) -> BatchState:
        """Read the SDK's ``MessageBatch``."""
        def stamp(name: str) -> str | None:
            value = getattr(batch, name, None)
            return None if value is None else (value.isoformat() if hasattr(value, "isoformat")
                                               else str(value))
        return cls(batch_id=str(batch.id), status=str(batch.processing_status),
                   counts=RequestCounts.from_api(batch.request_counts),
                   created_at=stamp("created_at"), ended_at=stamp("ended_at"),
                   expires_at=stamp("expires_at"))


@dataclass(frozen=True)
class BatchProgress:
    """What a wait on batches has come to: passed to the progress callback at every poll."""

    states: tuple[BatchState, ...]
    """The batches being waited on, as last polled."""
    waited_s: float
    """Seconds since the wait began."""
    next_poll_s: float | None
    """Seconds until the next poll; None when nothing is left to wait for."""

    @property
    def counts(self) -> RequestCounts:
        """The request counts of every batch together."""
        return summed(self.states)

    @property
    def open(self) -> int:
        """Batches whose processing has not ended."""
        return sum(1 for state in self.states if not state.ended)

    def line(self) -> str:
        """One line for a progress display."""
        counts = self.counts
        parts = ", ".join(f"{getattr(counts, name):,} {name}" for name in COUNT_NAMES)
        batches = len(self.states)
        head = (f"{batches} batch{'es' if batches != 1 else ''} "
                f"({self.open} still processing)")
        tail = ("all ended" if self.next_poll_s is None
                else f"next poll in {format_seconds(self.next_poll_s)}")
        return f"{head}: {parts}; waited {format_seconds(self.waited_s)}; {tail}"


def format_seconds(seconds: float) -> str:
    """``0.5s``, ``42s``, ``3m05s``, ``1h02m``: a wait as people read it."""
    if seconds < 9.95:
        return f"{max(0.0, seconds):.1f}s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def summed(states: Iterable[BatchState]) -> RequestCounts:
    """The request counts of ``states`` together."""
    total = RequestCounts()
    for state in states:
        total = total + state.counts
    return total
