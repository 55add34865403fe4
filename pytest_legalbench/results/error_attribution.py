"""Why an answer went wrong: each answer classed by its key facts and its evidence recall.

A document-bound answer is

- **right**: its key facts pass;
- a **retrieval miss**: its key facts fail and the arm did not have all the evidence (recall
  below 1), so the answering model never saw part of what the answer needs;
- a **reading miss**: its key facts fail although every evidence quote was in what the arm
  read, so the answer was lost in the reading, not the retrieval;
- **unscored**: no key-fact score, or failing key facts with no evidence to measure recall
  against.

A control (a question whose right answer is that the documents hold no such thing) is
**declined** when its key facts pass (it gave the refusal sentence, or the "No" a yes/no
control lists) and **not declined** otherwise: an answer invented from nothing.

Only the mode's retrieval decides a mode's class; inject's is classed the same way over what
inject read (its whole scope), so nearly all its misses are reading misses.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RIGHT = "right"
RETRIEVAL_MISS = "retrieval_miss"
READING_MISS = "reading_miss"
UNSCORED = "unscored"
DECLINED = "declined"
NOT_DECLINED = "not_declined"
#: Every class, in report order: document-bound classes, then the controls'.
CLASSES = (RIGHT, RETRIEVAL_MISS, READING_MISS, UNSCORED, DECLINED, NOT_DECLINED)


def attribute(correct: bool | None, recall: float | None, *, control: bool) -> str:
    """The class of an answer whose key facts pass or fail (None: unscored) with the arm's
    evidence recall (None: the question has no evidence)."""
    if correct is None:
        return UNSCORED
    if control:
        return DECLINED if correct else NOT_DECLINED
    if correct:
        return RIGHT
    if recall is None:
        return UNSCORED
    return READING_MISS if recall >= 1.0 else RETRIEVAL_MISS


@dataclass(frozen=True)
class ErrorCounts:
    """How many answers of one arm fell in each class."""

    right: int = 0
    retrieval_miss: int = 0
    reading_miss: int = 0
    unscored: int = 0
    """Document-bound answers without a key-fact score or without evidence to judge by."""
    declined: int = 0
    """Controls whose answer declined (or gave the "No" the control lists)."""
    not_declined: int = 0

    def text(self) -> str:
        """``right 41, retrieval miss 30, reading miss 20, unscored 2; controls: declined
        180, not declined 27`` (the controls' part only when there are controls)."""
        bound = (f"right {self.right}, retrieval miss {self.retrieval_miss}, reading miss "
                 f"{self.reading_miss}, unscored {self.unscored}")
        if self.declined or self.not_declined:
            bound += f"; controls: declined {self.declined}, not declined {self.not_declined}"
        return bound


def count_classes(classes: Iterable[str]) -> ErrorCounts:
    """Count answers by class; ValueError on a class that is not one of ``CLASSES``."""
    counts = dict.fromkeys(CLASSES, 0)
    for found in classes:
        if found not in counts:
            raise ValueError(f"unknown error class {found!r}: expected one of "
                             f"{', '.join(CLASSES)}")
        counts[found] += 1
    return ErrorCounts(**counts)


@dataclass(frozen=True)
class ArmErrors:
    """One mode's summary of error classes: the mode's answers and inject's, on the same
    questions."""

    mode: ErrorCounts
    inject: ErrorCounts
