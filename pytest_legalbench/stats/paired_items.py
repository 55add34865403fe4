"""Lining up two arms' per-question outcomes on the questions both of them have.

A paired comparison is only paired on the questions both arms answered and scored: a question
that one arm lacks, or scored as "no score" (None), leaves both arms. The questions are put in
key order, so every computation over the pairs (a bootstrap above all) is the same however the
caller's mappings were ordered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class PairedItems(Generic[T]):
    """Two arms' values on the same questions, in key order."""

    keys: tuple[str, ...]
    first: tuple[T, ...]
    second: tuple[T, ...]
    dropped: int
    """Questions one arm lacks or left unscored: left out of the pairs."""

    def __len__(self) -> int:
        return len(self.keys)


def pair_items(first: Mapping[str, T | None], second: Mapping[str, T | None]) -> PairedItems[T]:
    """The questions both arms scored, with both values; the rest counted as dropped."""
    keys = sorted(set(first) | set(second))
    kept = [key for key in keys if first.get(key) is not None and second.get(key) is not None]
    # The comprehensions re-read the mappings: mypy cannot narrow a value looked up twice.
    firsts = tuple(value for key in kept if (value := first[key]) is not None)
    seconds = tuple(value for key in kept if (value := second[key]) is not None)
    return PairedItems(tuple(kept), firsts, seconds, dropped=len(keys) - len(kept))
