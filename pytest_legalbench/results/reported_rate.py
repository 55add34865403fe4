"""A rate as every report shows it: ``k`` of ``n`` with its exact 95% interval, rounded."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_legalbench.judging.pairing import RoundedRate


@dataclass(frozen=True)
class ReportedRate(RoundedRate):
    """A rate as reported: ``k`` of ``n``, its share and exact 95% interval, rounded (as a
    tally writes its rates), and its text."""

    def text(self) -> str:
        """``k/n share% [low, high]`` with percentages to one decimal."""
        return (f"{self.k}/{self.n} {100 * self.share:.1f}% "
                f"[{100 * self.low:.1f}, {100 * self.high:.1f}]")
