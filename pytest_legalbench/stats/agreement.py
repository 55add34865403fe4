"""Agreement between two labellings of the same items: Cohen's kappa, exact agreement, and the
audit tool scored as a detector of claims needing attention (SPEC §11, the claim audit).

Arithmetic is done in exact fractions and converted to float at the end, so a degenerate
denominator is recognised exactly rather than after rounding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pytest_legalbench.files.record_json import derived

#: The verdicts of the atomic-claim audit.
AUDIT_LABELS: tuple[str, ...] = ("SUPPORTED", "PARTIAL", "UNSUPPORTED", "MISCITED")

#: The verdicts that flag a claim as needing attention: the detector's positive class.
NEEDS_ATTENTION: frozenset[str] = frozenset({"PARTIAL", "UNSUPPORTED", "MISCITED"})


def _check_lengths(first: Sequence[str], second: Sequence[str], names: str) -> None:
    if len(first) != len(second):
        raise ValueError(
            f"{names} label different numbers of items: {len(first)} and {len(second)}"
        )


def cohen_kappa(
    first: Sequence[str], second: Sequence[str], labels: Sequence[str] = AUDIT_LABELS
) -> float | None:
    """Unweighted Cohen's kappa of two labellings; None with no items or chance agreement 1."""
    _check_lengths(first, second, "the two labellings")
    allowed = set(labels)
    for name, labelling in (("first", first), ("second", second)):
        for position, label in enumerate(labelling):
            if label not in allowed:
                raise ValueError(
                    f"{name} labelling, item {position}: {label!r} is not one of "
                    f"{', '.join(labels)}"
                )
    n = len(first)
    if n == 0:
        return None
    observed = Fraction(sum(a == b for a, b in zip(first, second, strict=True)), n)
    first_counts, second_counts = Counter(first), Counter(second)
    chance = sum(
        (Fraction(first_counts[label] * second_counts[label], n * n) for label in allowed),
        Fraction(0),
    )
    if chance == 1:
        return None
    return float((observed - chance) / (1 - chance))


def exact_agreement(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Share of items given the same label by both; None with no items."""
    _check_lengths(first, second, "the two labellings")
    if not first:
        return None
    return sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def agreed_subset(first: Sequence[str], second: Sequence[str]) -> list[int]:
    """Indices of the items both labellings label the same."""
    _check_lengths(first, second, "the two labellings")
    return [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a == b]


def _ratio(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


@derived(precision="precision", recall="recall", f1="f1")
@dataclass(frozen=True)
class Detection:
    """The confusion counts of a binary detector against gold labels (written with the
    three rates they give)."""

    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int

    @property
    def precision(self) -> float | None:
        """Share of flagged items that are positive in gold; None when nothing is flagged."""
        return _ratio(self.true_positive, self.true_positive + self.false_positive)

    @property
    def recall(self) -> float | None:
        """Share of gold positives that are flagged; None when gold has no positive."""
        return _ratio(self.true_positive, self.true_positive + self.false_negative)

    @property
    def f1(self) -> float | None:
        """2TP / (2TP + FP + FN): the harmonic mean of precision and recall where both exist.

        None only when neither the detector nor gold has a positive; 0.0 when one side has
        positives and they never coincide.
        """
        return _ratio(
            2 * self.true_positive,
            2 * self.true_positive + self.false_positive + self.false_negative,
        )


def detection(
    tool: Sequence[str], gold: Sequence[str], positive: frozenset[str] = NEEDS_ATTENTION
) -> Detection:
    """Score ``tool`` against ``gold`` as a detector of the labels in ``positive``."""
    _check_lengths(tool, gold, "the tool and gold")
    counts = Counter((t in positive, g in positive) for t, g in zip(tool, gold, strict=True))
    return Detection(
        true_positive=counts[True, True],
        false_positive=counts[True, False],
        false_negative=counts[False, True],
        true_negative=counts[False, False],
    )
