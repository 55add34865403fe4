"""The paired difference of two rates: Newcombe's interval against published values, the exact
McNemar p, and properties that hold for every table."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.stats.exact import mcnemar_exact
from pytest_legalbench.stats.paired_binary import (
    DifferenceInterval,
    PairedCounts,
    newcombe_interval,
    paired_counts,
    paired_difference,
)


def _rounded(interval: DifferenceInterval) -> tuple[float, float]:
    return round(interval.low, 4), round(interval.high, 4)


def test_newcombe_matches_the_published_worked_example() -> None:
    # Complete response before and after consolidation therapy (Cavo et al. 2012), the paired
    # table [[59, 6], [16, 80]] of Fagerland, Lydersen and Laake, "Statistical Analysis of
    # Contingency Tables" (2017), chapter 8. The R package contingencytables, which implements
    # the book, prints for Newcombe_square_and_add_CI_paired_2x2 (its tests, chapter 8):
    # "estimate = -0.0621 (95% CI -0.1186 to -0.0046)".
    counts = PairedCounts(both=59, first_only=6, second_only=16, neither=80)
    result = paired_difference(counts)
    assert round(result.estimate, 4) == -0.0621
    assert _rounded(result.interval) == (-0.1186, -0.0046)
    assert result.first_rate == pytest.approx(65 / 161)
    assert result.second_rate == pytest.approx(75 / 161)


def test_the_test_is_the_exact_mcnemar_on_the_discordant_pairs() -> None:
    # SPEC §8's literal: exact McNemar with b = 10, c = 2 gives p = 0.0386.
    counts = PairedCounts(both=20, first_only=10, second_only=2, neither=8)
    result = paired_difference(counts)
    assert round(result.p_value, 4) == 0.0386
    assert result.p_value == mcnemar_exact(10, 2)
    assert result.estimate == pytest.approx(8 / 40)


def test_counts_from_pairs() -> None:
    pairs = [(True, True)] * 3 + [(True, False)] * 2 + [(False, True)] + [(False, False)] * 4
    assert paired_counts(pairs) == PairedCounts(3, 2, 1, 4)
    assert paired_counts(pairs).n == 10
    assert paired_counts(pairs).discordant == 3


def test_bad_pairs_and_counts_are_rejected() -> None:
    with pytest.raises(TypeError, match=r"pair 1: expected two booleans, got \(1, 0\)"):
        paired_counts([(True, False), (1, 0)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="first_only must be non-negative, got -1"):
        PairedCounts(1, -1, 0, 0)
    with pytest.raises(TypeError, match="both must be an integer"):
        PairedCounts(1.5, 0, 0, 0)  # type: ignore[arg-type]


def test_no_questions_say_nothing() -> None:
    result = paired_difference(PairedCounts(0, 0, 0, 0))
    assert result.interval == DifferenceInterval(-1.0, 1.0)
    assert result.p_value == 1.0
    assert result.estimate == 0.0


def test_identical_arms_centre_on_zero() -> None:
    result = paired_difference(PairedCounts(both=25, first_only=0, second_only=0, neither=5))
    assert result.estimate == 0.0
    assert result.p_value == 1.0
    assert result.interval.low < 0.0 < result.interval.high
    assert result.interval.low == pytest.approx(-result.interval.high)


def test_record_as_builtins() -> None:
    record = to_builtins(paired_difference(PairedCounts(59, 6, 16, 80)))
    counts = record["counts"]
    assert counts["n"] == 161 and counts["first_only"] == 6 and counts["second_only"] == 16
    assert counts["discordant"] == 22
    assert record["interval"]["low"] == pytest.approx(-0.1186, abs=5e-5)
    assert record["interval_method"] == "Newcombe hybrid score (paired, method 10)"
    assert record["test_method"] == "exact McNemar"


_cells = st.integers(min_value=0, max_value=60)


@given(_cells, _cells, _cells, _cells)
def test_the_interval_holds_the_estimate_inside_minus_one_to_one(
        a: int, b: int, c: int, d: int) -> None:
    counts = PairedCounts(a, b, c, d)
    result = paired_difference(counts)
    assert -1.0 <= result.interval.low <= result.interval.high <= 1.0
    if counts.n:
        assert result.interval.low <= result.estimate + 1e-12
        assert result.estimate - 1e-12 <= result.interval.high


@given(_cells, _cells, _cells, _cells)
def test_swapping_the_arms_mirrors_the_interval(a: int, b: int, c: int, d: int) -> None:
    forward = newcombe_interval(PairedCounts(a, b, c, d))
    backward = newcombe_interval(PairedCounts(a, c, b, d))
    assert backward.low == pytest.approx(-forward.high, abs=1e-12)
    assert backward.high == pytest.approx(-forward.low, abs=1e-12)


def test_a_wider_confidence_gives_a_wider_interval() -> None:
    counts = PairedCounts(59, 6, 16, 80)
    narrow, wide = newcombe_interval(counts, 0.90), newcombe_interval(counts, 0.99)
    assert wide.low < narrow.low and narrow.high < wide.high
    with pytest.raises(ValueError, match="confidence"):
        newcombe_interval(counts, 1.0)
