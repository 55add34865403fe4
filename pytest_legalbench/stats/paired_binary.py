"""Two arms' success rates on the same questions: their difference, its interval and its test.

When two arms answer the same questions, the questions both get right or both get wrong say
nothing about which arm is better; only the discordant ones do. The difference of the two
rates is (b - c) / n, with b the questions only the first arm gets right and c those only the
second gets right.

The interval is Newcombe's hybrid score interval for paired proportions (Newcombe 1998,
"Improved confidence intervals for the difference between binomial proportions based on
paired data", Statistics in Medicine 17:2635-2650, method 10): the Wilson interval of each
arm's rate, combined by "square and add" with the estimated correlation between the two rates.
The correlation is the phi coefficient of the 2x2 table with its numerator shrunk by n/2
towards zero when positive (and set to 0 while it lies within n/2), as Fagerland, Lydersen and
Laake give it (Statistical Analysis of Contingency Tables, 2017, chapter 8). It stays inside
[-1, 1], needs no iteration, and keeps close to its nominal coverage down to small n.

The test is the exact McNemar test: the two-sided binomial test of b against b + c at 1/2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_legalbench.files.record_json import derived
from pytest_legalbench.stats.exact import mcnemar_exact, wilson

#: Names of the methods, as the records carry them.
NEWCOMBE = "Newcombe hybrid score (paired, method 10)"
EXACT_MCNEMAR = "exact McNemar"


@dataclass(frozen=True)
class DifferenceInterval:
    """A closed interval for a difference, inside [-1, 1]."""

    low: float
    high: float

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval."""
        return self.low <= value <= self.high


@derived(n="n", discordant="discordant")
@dataclass(frozen=True)
class PairedCounts:
    """The 2x2 table of two arms' outcomes on the same questions (written with its size and
    its discordant questions)."""

    both: int
    first_only: int
    """b: questions only the first arm gets right."""
    second_only: int
    """c: questions only the second arm gets right."""
    neither: int

    def __post_init__(self) -> None:
        for name in ("both", "first_only", "second_only", "neither"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an integer, got {value!r}")
            if value < 0:
                raise ValueError(f"{name} must be non-negative, got {value}")

    @property
    def n(self) -> int:
        """The number of paired questions."""
        return self.both + self.first_only + self.second_only + self.neither

    @property
    def discordant(self) -> int:
        """b + c: the questions on which the arms differ."""
        return self.first_only + self.second_only


@dataclass(frozen=True)
class PairedDifference:
    """First arm's rate minus second arm's, on the same questions, with interval and p."""

    counts: PairedCounts
    first_rate: float
    second_rate: float
    estimate: float
    interval: DifferenceInterval
    p_value: float
    confidence: float
    interval_method: str = NEWCOMBE
    test_method: str = EXACT_MCNEMAR


def paired_counts(pairs: Iterable[tuple[bool, bool]]) -> PairedCounts:
    """Count (first right, second right) outcomes into the 2x2 table."""
    cells = [0, 0, 0, 0]
    for position, pair in enumerate(pairs):
        first, second = pair
        if not isinstance(first, bool) or not isinstance(second, bool):
            raise TypeError(f"pair {position}: expected two booleans, got {pair!r}")
        cells[(not first) * 2 + (not second)] += 1
    return PairedCounts(both=cells[0], first_only=cells[1], second_only=cells[2],
                        neither=cells[3])


def _correlation(counts: PairedCounts) -> float:
    """Newcombe's phi between the two arms' outcomes, its positive numerator shrunk by n/2."""
    a, b, c, d = counts.both, counts.first_only, counts.second_only, counts.neither
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    numerator = a * d - b * c
    n = counts.n
    if numerator > n / 2:
        return (numerator - n / 2) / math.sqrt(margins)
    if numerator >= 0:
        return 0.0
    return numerator / math.sqrt(margins)


def newcombe_interval(counts: PairedCounts, confidence: float = 0.95) -> DifferenceInterval:
    """Newcombe's hybrid score interval (method 10) for the paired difference of rates."""
    n = counts.n
    if n == 0:
        return DifferenceInterval(-1.0, 1.0)
    first_k, second_k = counts.both + counts.first_only, counts.both + counts.second_only
    first, second = first_k / n, second_k / n
    first_ci, second_ci = wilson(first_k, n, confidence), wilson(second_k, n, confidence)
    phi = _correlation(counts)
    below_first, above_first = first - first_ci.low, first_ci.high - first
    below_second, above_second = second - second_ci.low, second_ci.high - second
    # Each radicand is a correlated sum of squares with |phi| <= 1, never negative but for
    # rounding; max() keeps sqrt in its domain.
    down = math.sqrt(max(0.0, below_first**2 + above_second**2
                         - 2 * phi * below_first * above_second))
    up = math.sqrt(max(0.0, above_first**2 + below_second**2
                       - 2 * phi * above_first * below_second))
    estimate = first - second
    return DifferenceInterval(max(-1.0, estimate - down), min(1.0, estimate + up))


def paired_difference(counts: PairedCounts, confidence: float = 0.95) -> PairedDifference:
    """The paired difference of two rates with Newcombe's interval and the exact McNemar p."""
    n = counts.n
    first = (counts.both + counts.first_only) / n if n else 0.0
    second = (counts.both + counts.second_only) / n if n else 0.0
    return PairedDifference(
        counts=counts, first_rate=first, second_rate=second, estimate=first - second,
        interval=newcombe_interval(counts, confidence),
        p_value=mcnemar_exact(counts.first_only, counts.second_only), confidence=confidence,
    )
