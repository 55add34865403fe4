"""A rate as every report shows it: ``k`` of ``n`` with its exact 95% interval, rounded."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.judging.pairing import RATE_PLACES
from pytest_legalbench.stats.exact import rate


@dataclass(frozen=True)
class ReportedRate:
    """A rate as reported: ``k`` of ``n``, its share and exact 95% interval, rounded."""

    k: int
    n: int
    share: float
    low: float
    high: float

    @classmethod
    def of(cls, k: int, n: int) -> ReportedRate:
        """``k`` of ``n`` with its Clopper-Pearson interval, rounded to the report's places."""
        found = rate(k, n)
        return cls(k, n, round(found.share, RATE_PLACES), round(found.interval.low, RATE_PLACES),
                   round(found.interval.high, RATE_PLACES))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReportedRate:
        """Read a rate written by ``to_dict``."""
        return cls(int(data["k"]), int(data["n"]), float(data["share"]), float(data["low"]),
                   float(data["high"]))

    def to_dict(self) -> dict[str, object]:
        """The rate as plain builtins."""
        return {"k": self.k, "n": self.n, "share": self.share, "low": self.low,
                "high": self.high}

    def text(self) -> str:
        """``k/n share% [low, high]`` with percentages to one decimal."""
        return (f"{self.k}/{self.n} {100 * self.share:.1f}% "
                f"[{100 * self.low:.1f}, {100 * self.high:.1f}]")
