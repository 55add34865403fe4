"""A retrieval cut to the payload budget in rank order, and the record of the cut.

A user's retriever may return more than the budget holds: passages are kept from the best
down while they fit, and the first that does not fit is cut with every passage after it, so
every mode is compared at the same payload. The cut is written into the item record and
counted in the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PayloadCut:
    """What a retrieval lost to the payload budget."""

    budget_tokens: int
    kept: int
    """Passages kept, the best first."""
    cut: int
    """Passages cut: the first that did not fit and every one after it."""
    cut_tokens: int
    """Tokens of the passages cut."""

    def note(self) -> str:
        """The cut in words, for a retrieval's notes."""
        return (f"cut {self.cut} of {self.kept + self.cut} passages ({self.cut_tokens:,} "
                f"tokens) at the payload budget of {self.budget_tokens:,} tokens")


def rank_order_cut(sizes: Sequence[int], budget_tokens: int) -> tuple[int, PayloadCut | None]:
    """How many of the passages of ``sizes`` (tokens each, best first) fit the budget as a
    prefix, and the cut (None when all fit)."""
    spent = 0
    for kept, size in enumerate(sizes):
        if spent + size > budget_tokens:
            return kept, PayloadCut(budget_tokens, kept, len(sizes) - kept, sum(sizes[kept:]))
        spent += size
    return len(sizes), None
