"""Clustered standard errors: Miller's formula against statsmodels' cluster-robust variance,
and the design effect's edge cases.

The literal values were computed once with statsmodels 0.15 (not a dependency):
``OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g, "use_correction": False})``
gives the cluster-robust (CR0) variance (1/n^2) sum_c (sum_{i in c} e_i)^2. Miller's clustered
variance is that minus the diagonal (1/n^2) sum e_i^2 plus the plain s^2/n, where s^2 is the
sample variance (``scipy.stats.sem`` gives the plain standard error).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.stats.clustered import (
    MIN_TRUSTED_CLUSTERS,
    clustered_difference,
    clustered_mean,
)

RIGHT = [1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1]
SETS = ["a", "a", "a", "a", "b", "b", "b", "c", "c", "c", "c", "c", "d", "d"]


def test_a_proportion_clustered_by_set() -> None:
    # statsmodels: CR0 se 0.15609243408957504; scipy.stats.sem 0.13725270326150324;
    # Miller's se 0.16034475720252347, design effect 1.364795918367347.
    result = clustered_mean([float(v) for v in RIGHT], SETS)
    assert result.mean == pytest.approx(8 / 14)
    assert result.naive_se == pytest.approx(0.13725270326150324)
    assert result.clustered_se == pytest.approx(0.16034475720252347)
    assert result.design_effect == pytest.approx(1.364795918367347)
    assert (result.n, result.clusters) == (14, 4)


def test_a_score_clustered_by_set() -> None:
    # statsmodels CR0 se 0.13472193585307474 for these recalls; Miller's se
    # 0.14017845768876183, plain 0.12247448713915891, design effect 1.31.
    recalls = [0.5, 1.0, 0.0, 0.25, 0.75, 1.0, 1.0, 0.0, 0.5, 0.5]
    result = clustered_mean(recalls, [1, 1, 2, 2, 2, 3, 3, 4, 4, 4])
    assert result.mean == pytest.approx(0.55)
    assert result.naive_se == pytest.approx(0.12247448713915891)
    assert result.clustered_se == pytest.approx(0.14017845768876183)
    assert result.design_effect == pytest.approx(1.31)


def test_booleans_count_as_outcomes() -> None:
    as_bools = clustered_mean([bool(v) for v in RIGHT], SETS)
    assert as_bools == clustered_mean([float(v) for v in RIGHT], SETS)


def test_independent_questions_have_no_design_effect() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    result = clustered_mean(values, list(range(6)))
    assert result.clustered_se == pytest.approx(result.naive_se)
    assert result.design_effect == pytest.approx(1.0)


def test_a_paired_difference_is_the_mean_of_the_differences() -> None:
    first = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    second = [0.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    sets = ["x", "x", "y", "y", "z", "z"]
    result = clustered_difference(first, second, sets)
    assert result == clustered_mean([1.0, 0.0, 0.0, 1.0, 0.0, -1.0], sets)
    assert result.mean == pytest.approx(1 / 6)


def test_degenerate_inputs() -> None:
    empty = clustered_mean([], [])
    assert (empty.n, empty.naive_se, empty.design_effect) == (0, 0.0, None)
    single = clustered_mean([1.0], ["a"])
    assert single.naive_se == 0.0 and single.design_effect is None
    constant = clustered_mean([1.0, 1.0, 1.0], ["a", "b", "b"])
    assert constant.design_effect is None


def test_trust_needs_enough_clusters() -> None:
    few = clustered_mean([1.0, 0.0] * 10, [i % 4 for i in range(20)])
    many = clustered_mean([1.0, 0.0] * MIN_TRUSTED_CLUSTERS,
                          [i // 2 for i in range(2 * MIN_TRUSTED_CLUSTERS)])
    assert not few.trusted and many.trusted
    assert to_builtins(few)["trusted"] is False and to_builtins(many)["trusted"] is True
    assert to_builtins(few)["design_effect"] == pytest.approx(few.design_effect)


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="3 values but 2 cluster keys"):
        clustered_mean([1.0, 0.0, 1.0], ["a", "b"])
    with pytest.raises(TypeError, match=r"values\[1\] must be a number"):
        clustered_mean([1.0, "x"], ["a", "b"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="different numbers of questions"):
        clustered_difference([1.0], [1.0, 0.0], ["a"])


@given(st.lists(st.tuples(st.floats(min_value=0.0, max_value=1.0),
                          st.integers(min_value=0, max_value=5)), min_size=2, max_size=40))
def test_the_clustered_variance_is_never_negative(rows: list[tuple[float, int]]) -> None:
    result = clustered_mean([value for value, _ in rows], [key for _, key in rows])
    assert result.clustered_se >= 0.0
    assert result.naive_se >= 0.0


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=2, max_size=30))
def test_one_cluster_per_question_is_the_plain_error(values: list[float]) -> None:
    result = clustered_mean(values, list(range(len(values))))
    assert result.clustered_se == pytest.approx(result.naive_se, rel=1e-9, abs=1e-12)
