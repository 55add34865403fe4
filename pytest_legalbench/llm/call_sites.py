"""Where a model call is made: the scope around it (an item's cassette, or the cassette of
inject's answer to a question) and how many identical requests that scope made before it.

A batch run makes each item's calls twice over: first to learn which requests the item needs
(``run.batch_phases``), then for real, served from the batches' results. A call is matched
across the two by its site: the scope's name, the digest of the request and its occurrence in
that scope (the second identical request of a scope is another call, as a structured call's
retry is). A scope counts afresh every time it is entered, so the site of a call does not
depend on how often the code around it ran before.

``llm.cassettes.recorded`` enters the scope of every cassette block, with or without a
cassette plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CallSite:
    """One call's place: its scope, its request's digest and its occurrence (from 1)."""

    scope: str
    digest: str
    occurrence: int


@dataclass
class _Scope:
    name: str
    counts: Counter[str] = field(default_factory=Counter)


_CURRENT: ContextVar[_Scope | None] = ContextVar("legalbench_call_scope", default=None)


@contextmanager
def call_scope(name: str) -> Iterator[None]:
    """Make ``name`` the scope of the calls made in the block, counting from nothing."""
    if not name:
        raise ValueError("a call scope needs a non-empty name")
    token = _CURRENT.set(_Scope(name))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_scope() -> str | None:
    """The name of the scope calls are made in now; None outside every scope."""
    scope = _CURRENT.get()
    return None if scope is None else scope.name


def next_site(digest: str) -> CallSite | None:
    """The site of a call about to be made with a request of ``digest`` (counted now); None
    outside every scope."""
    scope = _CURRENT.get()
    if scope is None:
        return None
    scope.counts[digest] += 1
    return CallSite(scope.name, digest, scope.counts[digest])
