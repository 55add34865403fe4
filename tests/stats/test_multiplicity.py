"""Holm's adjusted p-values against statsmodels' ``multipletests(method="holm")``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.stats.multiplicity import holm_adjusted


@pytest.mark.parametrize(("p_values", "expected"), [
    # statsmodels 0.15, multipletests([...], method="holm")[1]:
    ([0.01, 0.04, 0.03, 0.005, 0.2], [0.04, 0.09, 0.09, 0.025, 0.2]),
    ([0.0386, 0.5, 0.012, 0.012, 0.9, 0.0001],
     [0.1158, 1.0, 0.06, 0.06, 1.0, 0.0006]),
    ([0.03], [0.03]),
    ([], []),
])
def test_holm_matches_statsmodels(p_values: list[float], expected: list[float]) -> None:
    assert holm_adjusted(p_values) == pytest.approx(tuple(expected))


def test_bad_p_values_are_named() -> None:
    with pytest.raises(ValueError, match=r"p_values\[1\] must lie in \[0, 1\], got 1.5"):
        holm_adjusted([0.1, 1.5])
    with pytest.raises(ValueError, match="got nan"):
        holm_adjusted([float("nan")])
    with pytest.raises(TypeError, match=r"p_values\[0\] must be a number"):
        holm_adjusted(["0.1"])  # type: ignore[list-item]


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=20))
def test_adjusted_values_bound_the_raw_ones_and_keep_their_order(p_values: list[float]) -> None:
    adjusted = holm_adjusted(p_values)
    assert all(raw <= fixed <= 1.0 for raw, fixed in zip(p_values, adjusted, strict=True))
    for i, first in enumerate(p_values):
        for j, second in enumerate(p_values):
            if first < second:
                assert adjusted[i] <= adjusted[j]
    # Bonferroni bounds Holm from above.
    assert all(fixed <= min(1.0, len(p_values) * raw) + 1e-15
               for raw, fixed in zip(p_values, adjusted, strict=True))
