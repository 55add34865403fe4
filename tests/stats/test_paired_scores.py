"""The paired difference of per-question scores: the bootstrap interval against scipy's, the
sign test against scipy's binomial test, determinism, and the quantile rule against numpy's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.stats.paired_binary import DifferenceInterval
from pytest_legalbench.stats.paired_items import pair_items
from pytest_legalbench.stats.paired_scores import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_interval,
    quantile,
    score_difference,
)

# Evidence recall of two arms on 20 questions.
FIRST = [1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0, 0.0, 1.0,
         1.0, 0.5, 1.0, 1.0, 0.0, 1.0, 0.5, 1.0, 1.0, 1.0]
SECOND = [0.5, 0.5, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.5,
          1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 1.0, 1.0]


def test_the_bootstrap_interval_agrees_with_scipy() -> None:
    # scipy 1.x: scipy.stats.bootstrap((FIRST - SECOND,), numpy.mean, n_resamples=100_000,
    # method="percentile", random_state=seed) gives ConfidenceInterval(low=0.1, high=0.375) for
    # seeds 1, 2 and 3 alike. The mean of 20 differences in steps of 0.5 moves in steps of
    # 0.025, so a different random stream may land one step away at most.
    result = score_difference(FIRST, SECOND)
    assert result.estimate == pytest.approx(0.225)
    assert result.interval.low == pytest.approx(0.1, abs=0.025)
    assert result.interval.high == pytest.approx(0.375, abs=0.025)


def test_the_sign_test_is_scipys_binomial_test() -> None:
    # 7 questions favour the first arm, none the second: scipy.stats.binomtest(0, 7).pvalue is
    # 2 / 2**7 = 0.015625.
    result = score_difference(FIRST, SECOND)
    assert (result.first_higher, result.second_higher) == (7, 0)
    assert result.p_value == pytest.approx(0.015625)
    # scipy.stats.binomtest(3, 12).pvalue == 0.14599609375.
    first = [1.0] * 3 + [0.0] * 9 + [0.5] * 4
    second = [0.0] * 3 + [1.0] * 9 + [0.5] * 4
    assert score_difference(first, second).p_value == pytest.approx(0.14599609375)


def test_the_same_seed_gives_the_same_interval_and_another_seed_nearly_so() -> None:
    first = score_difference(FIRST, SECOND)
    again = score_difference(list(FIRST), list(SECOND))
    assert first == again
    other = score_difference(FIRST, SECOND, seed=BOOTSTRAP_SEED + 1)
    assert abs(other.interval.low - first.interval.low) <= 0.025
    assert abs(other.interval.high - first.interval.high) <= 0.025
    assert first.resamples == BOOTSTRAP_RESAMPLES and first.seed == BOOTSTRAP_SEED


def test_degenerate_samples() -> None:
    assert bootstrap_interval([]) == DifferenceInterval(-1.0, 1.0)
    assert bootstrap_interval([0.25] * 9) == DifferenceInterval(0.25, 0.25)
    same = score_difference([0.5, 1.0], [0.5, 1.0])
    assert same.estimate == 0.0 and same.p_value == 1.0
    assert same.interval == DifferenceInterval(0.0, 0.0)


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="different numbers of questions: 2 and 1"):
        score_difference([1.0, 0.0], [1.0])
    with pytest.raises(TypeError, match=r"second\[1\] must be a number"):
        score_difference([1.0, 0.0], [1.0, None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"first\[0\] must be finite"):
        score_difference([float("nan")], [1.0])
    with pytest.raises(ValueError, match="resamples must be a positive integer"):
        bootstrap_interval([0.0, 1.0], resamples=0)


@pytest.mark.parametrize(("share", "expected"), [
    # numpy.quantile([1, 2, 4, 8, 16], share) (the default "linear" method).
    (0.0, 1.0), (0.025, 1.1), (0.5, 4.0), (0.9, 12.8), (0.975, 15.2), (1.0, 16.0),
])
def test_quantile_is_numpys_linear_rule(share: float, expected: float) -> None:
    assert quantile([1.0, 2.0, 4.0, 8.0, 16.0], share) == pytest.approx(expected)


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=25))
def test_the_interval_lies_within_the_differences(differences: list[float]) -> None:
    interval = bootstrap_interval(differences, resamples=200)
    assert min(differences) - 1e-12 <= interval.low <= interval.high <= max(differences) + 1e-12


def test_pairing_keeps_the_questions_both_arms_scored() -> None:
    first = {"q3": 1.0, "q1": 0.5, "q2": None, "q4": 0.0}
    second = {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q5": 1.0}
    paired = pair_items(first, second)
    assert paired.keys == ("q1", "q3")
    assert paired.first == (0.5, 1.0) and paired.second == (1.0, 0.0)
    assert paired.dropped == 3 and len(paired) == 2
