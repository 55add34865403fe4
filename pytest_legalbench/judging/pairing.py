"""Combining the two position-swapped judge verdicts and tallying the outcomes (SPEC §6).

The judge compares inject's answer with the mode's answer twice: forward (A = inject,
B = mode) and reverse (A = mode, B = inject). A win counts only when both directions name the
same arm; a verdict that could not be read makes the item unscored, never a loss.

Two protocols share this code. In the default one a disagreement or any tie is a tie. In the
forced-decision one ties are not allowed answers: a raw "tie" is as unreadable as garbage, and
a disagreement is a split, counted but left out of the binomial test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_legalbench.files.record_json import derived
from pytest_legalbench.stats.exact import Rate, binomial_test, rate

#: The two answering arms of a paired comparison.
ARMS = ("inject", "mode")

#: Every outcome ``combine`` can return, in report order.
OUTCOMES = ("inject", "mode", "tie", "split", "unscored")

#: Raw verdict -> arm, for each judging direction.
_FORWARD = {"A": "inject", "B": "mode", "tie": "tie"}
_REVERSE = {"A": "mode", "B": "inject", "tie": "tie"}

#: Places a written rate is rounded to.
RATE_PLACES = 4

if TYPE_CHECKING:
    from typing import Self


@dataclass(frozen=True)
class RoundedRate:
    """A rate as result files write it: ``k`` of ``n``, its share and exact 95% interval,
    rounded to ``RATE_PLACES``."""

    k: int
    n: int
    share: float
    low: float
    high: float

    @classmethod
    def of(cls, k: int, n: int) -> Self:
        """``k`` of ``n`` with its Clopper-Pearson interval, rounded."""
        found = rate(k, n)
        return cls(k, n, round(found.share, RATE_PLACES), round(found.interval.low, RATE_PLACES),
                   round(found.interval.high, RATE_PLACES))


def arm_of(raw: str | None, *, forward: bool) -> str | None:
    """Map a raw verdict ("A", "B", "tie" or None) to "inject", "mode", "tie" or None."""
    if raw is None:
        return None
    table = _FORWARD if forward else _REVERSE
    if raw not in table:
        direction = "forward" if forward else "reverse"
        raise ValueError(f"{direction} verdict must be 'A', 'B', 'tie' or None, got {raw!r}")
    return table[raw]


def combine(forward: str | None, reverse: str | None, *, forced: bool = False) -> str:
    """Combine the forward and reverse raw verdicts into one outcome from ``OUTCOMES``."""
    # Both are mapped before anything is decided, so a malformed verdict always raises.
    first = arm_of(forward, forward=True)
    second = arm_of(reverse, forward=False)
    if first is None or second is None:
        return "unscored"
    if forced and "tie" in (first, second):
        return "unscored"
    if first == second:
        return first
    return "split" if forced else "tie"


@derived(scored="scored_items", rates="rounded_rates", forced_test_p="forced_test_p")
@dataclass(frozen=True)
class Tally:
    """Counts of combined outcomes over a set of paired items; written with the scored
    count, the rounded rates and the forced-decision p-value they give."""

    items: int
    inject: int
    mode: int
    tie: int
    split: int
    unscored: int

    def __post_init__(self) -> None:
        counts = {name: getattr(self, name) for name in OUTCOMES}
        for name, count in {"items": self.items, **counts}.items():
            if count < 0:
                raise ValueError(f"Tally.{name} must be non-negative, got {count}")
        if sum(counts.values()) != self.items:
            raise ValueError(f"Tally outcome counts {counts} do not add up to items={self.items}")

    def scored(self) -> int:
        """Items with a usable verdict pair: inject wins, mode wins and ties."""
        return self.inject + self.mode + self.tie

    def rates(self) -> dict[str, Rate]:
        """Tie, inject-win and mode-win rates over the scored items, with exact intervals."""
        scored = self.scored()
        return {
            "tie": rate(self.tie, scored),
            "inject": rate(self.inject, scored),
            "mode": rate(self.mode, scored),
        }

    def forced_test(self) -> float | None:
        """Two-sided exact binomial p-value of mode wins against inject wins; None if no wins."""
        decided = self.inject + self.mode
        if decided == 0:
            return None
        return binomial_test(self.mode, decided, 0.5)

    @property
    def scored_items(self) -> int:
        """``scored()``, as result files write it."""
        return self.scored()

    @property
    def rounded_rates(self) -> dict[str, RoundedRate]:
        """The tie, inject-win and mode-win rates, rounded as result files write them."""
        return {name: RoundedRate.of(found.k, found.n) for name, found in self.rates().items()}

    @property
    def forced_test_p(self) -> float | None:
        """``forced_test()``, unrounded: a small p-value must not read as zero."""
        return self.forced_test()


def tally(verdicts: Iterable[str]) -> Tally:
    """Count combined outcomes; any value outside ``OUTCOMES`` raises ``ValueError``."""
    counts: Counter[str] = Counter()
    for position, verdict in enumerate(verdicts):
        if verdict not in OUTCOMES:
            raise ValueError(
                f"verdict {position} must be one of {', '.join(OUTCOMES)}, got {verdict!r}"
            )
        counts[verdict] += 1
    return Tally(
        items=sum(counts.values()),
        inject=counts["inject"],
        mode=counts["mode"],
        tie=counts["tie"],
        split=counts["split"],
        unscored=counts["unscored"],
    )
