"""Calls whose answers are not there yet: what a batch run's first pass over an item raises at
a call no batch has answered, and how code marks calls that do not depend on one another.

While a batch run learns what its items need (``run.batch_phases``), the model client raises
``CallPending`` at the first call whose answer no batch has given yet: the item stops there,
and the request goes into the next batch. ``CallPending`` is a ``BaseException`` so that code
which turns model failures into results (``except Exception``) lets it through untouched.

``independent`` runs calls that do not read one another's answers (both directions of a
judge, the seeded repeats of a GANDR item): in order, as a plain sequence would, except that a
first pass collects the pending requests of all of them before stopping, so they share a batch
instead of waiting one batch each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pytest_legalbench.llm.call_sites import CallSite

_T = TypeVar("_T")
_A = TypeVar("_A")
_B = TypeVar("_B")


@dataclass(frozen=True)
class PendingRequest:
    """A request a batch must answer before the item that made it can go on."""

    site: CallSite
    stage: str
    question_id: str | None
    params: Mapping[str, object]
    """The Messages API params as the client would send them interactively."""


class CallPending(BaseException):  # a signal (as GeneratorExit is), not an error
    """The item reached calls no batch has answered yet; they are ``requests``."""

    def __init__(self, requests: Sequence[PendingRequest]) -> None:
        self.requests = tuple(requests)
        stages = ", ".join(sorted({request.stage for request in self.requests}))
        super().__init__(f"{len(self.requests)} call(s) wait for a batch ({stages})")


def independent(calls: Sequence[Callable[[], _T]]) -> list[_T]:
    """Run ``calls`` in order and return their results; none may need another's result.
    When some wait for a batch, every call is still tried, and one ``CallPending`` holding
    all their requests is raised at the end."""
    results: list[_T] = []
    waiting: list[PendingRequest] = []
    for call in calls:
        try:
            results.append(call())
        except CallPending as pending:
            waiting.extend(pending.requests)
    if waiting:
        raise CallPending(waiting)
    return results


def both(first: Callable[[], _A], second: Callable[[], _B]) -> tuple[_A, _B]:
    """``independent`` for two calls of different result types."""
    results: list[object] = independent([first, second])
    return results[0], results[1]  # type: ignore[return-value]
