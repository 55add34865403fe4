"""The summary's account of retried model calls: how many failures the retries absorbed, by
kind. Printed only when there were any, so a run without failures reads as it always did."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pytest_legalbench.llm.ledger import Call


def retry_lines(calls: Iterable[Call]) -> list[str]:
    """``retries: N failures absorbed in K calls (HTTP 429 x3, timeout x1)``, or nothing."""
    by_kind: Counter[str] = Counter()
    retried_calls = 0
    for call in calls:
        by_kind.update(call.retries)
        retried_calls += bool(call.retries)
    if not by_kind:
        return []
    kinds = ", ".join(f"{kind} x{count}" for kind, count in sorted(by_kind.items()))
    return [(f"retries: {sum(by_kind.values())} failures absorbed in {retried_calls} calls "
            f"({kinds})")]
