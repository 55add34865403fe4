"""Exact binomial statistics: literal vectors, an independent exact reference, and properties.

The literal vectors were computed outside the code under test: Clopper-Pearson bounds by
bisection on exact ``Fraction`` binomial tails, Wilson bounds in 50-digit ``Decimal``, binomial
p-values as exact ``Fraction`` sums. The reference helpers below redo part of that here with
``math.comb``, independently of scipy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.stats.exact import (
    Interval,
    binomial_test,
    clopper_pearson,
    mcnemar_exact,
    rate,
    wilson,
)


def _pmf(i: int, n: int, p: Fraction) -> Fraction:
    return math.comb(n, i) * p**i * (1 - p) ** (n - i)


def _exact_binomial_test(k: int, n: int, p: Fraction) -> Fraction:
    """Two-sided p-value by the definition, in exact arithmetic (ties are exact here)."""
    observed = _pmf(k, n, p)
    return sum((q for i in range(n + 1) if (q := _pmf(i, n, p)) <= observed), Fraction(0))


def _tail_at_least(k: int, n: int, p: float) -> float:
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def _tail_at_most(k: int, n: int, p: float) -> float:
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def _rounded(interval: Interval) -> tuple[float, float]:
    return round(interval.low, 4), round(interval.high, 4)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (17, 20, (0.6211, 0.9679)),  # SPEC §8
        (0, 10, (0.0, 0.3085)),  # SPEC §8; high = 1 - 0.025 ** (1 / 10)
        (1, 1, (0.025, 1.0)),  # low = 0.025 ** (1 / 1)
        (0, 1, (0.0, 0.975)),
        (10, 10, (0.6915, 1.0)),  # low = 0.025 ** (1 / 10)
        (5, 10, (0.1871, 0.8129)),
        (1, 20, (0.0013, 0.2487)),
        (3, 20, (0.0321, 0.3789)),
        (5, 20, (0.0866, 0.4910)),
        (12, 20, (0.3605, 0.8088)),
    ],
)
def test_clopper_pearson_literal_vectors(k: int, n: int, expected: tuple[float, float]) -> None:
    assert _rounded(clopper_pearson(k, n)) == expected


@pytest.mark.parametrize(
    ("confidence", "expected"), [(0.90, (0.6563, 0.9578)), (0.99, (0.5505, 0.9824))]
)
def test_clopper_pearson_other_confidences(
    confidence: float, expected: tuple[float, float]
) -> None:
    assert _rounded(clopper_pearson(17, 20, confidence)) == expected


def test_clopper_pearson_edges_are_exact() -> None:
    assert clopper_pearson(0, 0) == Interval(0.0, 1.0)
    assert clopper_pearson(0, 7).low == 0.0
    assert clopper_pearson(7, 7).high == 1.0
    # Closed forms at the edges: (alpha / 2) ** (1 / n) and its mirror.
    assert clopper_pearson(7, 7).low == pytest.approx(0.025 ** (1 / 7), abs=1e-12)
    assert clopper_pearson(0, 7).high == pytest.approx(1 - 0.025 ** (1 / 7), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 13, 40])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 1 - 1e-12])
def test_clopper_pearson_bounds_solve_the_defining_tail_equations(
    n: int, confidence: float
) -> None:
    # The lower bound L solves P(X >= k | L) = alpha / 2; the upper U, P(X <= k | U) = alpha / 2.
    tail = (1 - confidence) / 2
    for k in range(n + 1):
        interval = clopper_pearson(k, n, confidence)
        if k > 0:
            assert _tail_at_least(k, n, interval.low) == pytest.approx(tail, rel=1e-6)
        if k < n:
            assert _tail_at_most(k, n, interval.high) == pytest.approx(tail, rel=1e-6)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (17, 20, (0.6396, 0.9476)),
        (5, 10, (0.2366, 0.7634)),
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
    ],
)
def test_wilson_literal_vectors(k: int, n: int, expected: tuple[float, float]) -> None:
    assert _rounded(wilson(k, n)) == expected


def test_wilson_edges_are_exact() -> None:
    assert wilson(0, 0) == Interval(0.0, 1.0)
    assert wilson(0, 9).low == 0.0
    assert wilson(9, 9).high == 1.0


@pytest.mark.parametrize(
    ("k", "n", "p", "expected"),
    [
        (3, 10, 0.5, 0.34375),  # 2 * 176 / 1024
        (0, 5, 0.5, 0.0625),  # 2 / 32
        (5, 5, 0.5, 0.0625),
        (3, 15, 0.5, 0.03515625),  # 9 / 256
        (5, 10, 0.5, 1.0),
        (2, 10, 0.3, 0.733172068),  # 183293017 / 250000000
        (9, 10, 0.3, 0.0001436859),  # 1436859 / 10**10
        (6, 20, 0.25, 0.607983393277209),  # 668484810403 / 2**40
        (0, 0, 0.5, 1.0),
        (0, 4, 0.0, 1.0),
        (1, 4, 0.0, 0.0),
        (4, 4, 1.0, 1.0),
        (3, 4, 1.0, 0.0),
    ],
)
def test_binomial_test_literal_vectors(k: int, n: int, p: float, expected: float) -> None:
    assert binomial_test(k, n, p) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_binomial_test_matches_exact_definition_on_a_grid() -> None:
    for p in (Fraction(1, 10), Fraction(3, 10), Fraction(1, 2), Fraction(2, 3)):
        for n in range(13):
            for k in range(n + 1):
                expected = float(_exact_binomial_test(k, n, p))
                got = binomial_test(k, n, float(p))
                assert got == pytest.approx(expected, rel=1e-9, abs=1e-15), (k, n, p)


@pytest.mark.parametrize(("k", "n"), [(900, 2000), (1000, 2000), (1, 2000), (0, 2000)])
def test_binomial_test_at_one_half_matches_exact_integer_sums_for_large_n(k: int, n: int) -> None:
    # At p = 1/2 every outcome has probability comb(n, i) / 2**n: exact integers throughout.
    observed = math.comb(n, k)
    mass = sum(c for i in range(n + 1) if (c := math.comb(n, i)) <= observed)
    assert binomial_test(k, n) == pytest.approx(float(Fraction(mass, 2**n)), rel=1e-9)


def test_binomial_test_survives_extreme_p() -> None:
    # Subnormal p overflows scipy's binomtest; the sum here is worked in log space instead.
    assert binomial_test(0, 4, 2.2250738585072014e-308) == 1.0
    assert binomial_test(0, 4, 5e-324) == 1.0
    assert binomial_test(4, 4, 1 - 1e-16) == 1.0
    assert binomial_test(1, 4, 5e-324) < 1e-300


def test_mcnemar_literal_vectors() -> None:
    assert round(mcnemar_exact(10, 2), 4) == 0.0386  # SPEC §8
    assert mcnemar_exact(10, 2) == pytest.approx(79 / 2048, rel=1e-12)
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64, rel=1e-12)
    assert mcnemar_exact(4, 4) == 1.0


def test_rate_holds_share_and_clopper_pearson_interval() -> None:
    got = rate(17, 20)
    assert (got.k, got.n, got.share) == (17, 20, 0.85)
    assert got.interval == clopper_pearson(17, 20)
    empty = rate(0, 0)
    assert (empty.share, empty.interval) == (0.0, Interval(0.0, 1.0))


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: clopper_pearson(True, 3), "k"),
        (lambda: wilson(1, 3.0), "n"),  # type: ignore[arg-type]
        (lambda: binomial_test(1, 3, "0.5"), "p"),  # type: ignore[arg-type]
        (lambda: clopper_pearson(1, 3, None), "confidence"),  # type: ignore[arg-type]
        (lambda: mcnemar_exact(1.5, 2), "b"),  # type: ignore[arg-type]
    ],
)
def test_non_numbers_raise_type_error_naming_the_argument(
    call: Callable[[], object], argument: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{argument} must be a"):
        call()


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: clopper_pearson(-1, 3), "k"),
        (lambda: clopper_pearson(0, -1), "n"),
        (lambda: clopper_pearson(4, 3), "k"),
        (lambda: clopper_pearson(1, 3, 0.0), "confidence"),
        (lambda: clopper_pearson(1, 3, 1.0), "confidence"),
        (lambda: wilson(1, 3, float("nan")), "confidence"),
        (lambda: wilson(5, 3), "k"),
        (lambda: binomial_test(1, 3, 1.5), "p"),
        (lambda: binomial_test(1, 3, -0.1), "p"),
        (lambda: binomial_test(-2, 3), "k"),
        (lambda: mcnemar_exact(-1, 2), "b"),
        (lambda: mcnemar_exact(1, -2), "c"),
        (lambda: rate(2, 1), "k"),
    ],
)
def test_bad_arguments_raise_naming_the_argument(call: Callable[[], object], argument: str) -> None:
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        call()


counts = st.integers(min_value=0, max_value=200).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)
confidences = st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True)
IntervalMethod = Callable[[int, int, float], Interval]
interval_functions: st.SearchStrategy[IntervalMethod] = st.sampled_from([clopper_pearson, wilson])


@given(counts, confidences, interval_functions)
def test_interval_contains_the_share(
    kn: tuple[int, int], confidence: float, method: IntervalMethod
) -> None:
    k, n = kn
    interval = method(k, n, confidence)
    share = k / n if n else 0.5
    assert 0.0 <= interval.low <= share <= interval.high <= 1.0


# A grid keeps neighbouring confidences far apart compared with the quantile routines' rounding.
grid_confidences = st.integers(min_value=1, max_value=999).map(lambda permille: permille / 1000)


@given(counts, grid_confidences, grid_confidences, interval_functions)
def test_interval_widens_as_confidence_grows(
    kn: tuple[int, int], first: float, second: float, method: IntervalMethod
) -> None:
    k, n = kn
    lower, higher = sorted((first, second))
    narrow, wide = method(k, n, lower), method(k, n, higher)
    assert wide.low <= narrow.low
    assert narrow.high <= wide.high


@given(counts, st.floats(min_value=0.0, max_value=1.0))
def test_binomial_p_value_is_a_probability(kn: tuple[int, int], p: float) -> None:
    k, n = kn
    assert 0.0 <= binomial_test(k, n, p) <= 1.0


@given(counts)
def test_binomial_test_is_symmetric_at_one_half(kn: tuple[int, int]) -> None:
    k, n = kn
    assert binomial_test(k, n, 0.5) == pytest.approx(binomial_test(n - k, n, 0.5), rel=1e-12)


@given(st.integers(min_value=0, max_value=300), st.integers(min_value=0, max_value=300))
def test_mcnemar_is_symmetric_and_a_probability(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == mcnemar_exact(c, b)
    assert 0.0 <= mcnemar_exact(b, c) <= 1.0
