"""Token-budget batches: every text once, in ascending length, each padded batch within the
budget unless one text alone exceeds it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.vectors.token_batches import token_batches


def test_short_texts_share_wide_batches_and_long_ones_narrow_ones() -> None:
    lengths = [200, 10, 10, 200, 12, 10, 200]
    assert token_batches(lengths, budget=400, max_rows=3) == [[1, 2, 5], [4, 0], [3, 6]]


def test_a_text_longer_than_the_budget_is_a_batch_of_its_own() -> None:
    assert token_batches([5, 900, 5], budget=100) == [[0, 2], [1]]


def test_no_texts_no_batches_and_bad_limits_are_refused() -> None:
    assert token_batches([]) == []
    with pytest.raises(ValueError, match="budget and max_rows must be positive"):
        token_batches([3], budget=0)


@given(st.lists(st.integers(min_value=0, max_value=600), max_size=300),
       st.integers(min_value=1, max_value=5000), st.integers(min_value=1, max_value=64))
def test_every_index_once_within_budget_and_rows(lengths: list[int], budget: int,
                                                 max_rows: int) -> None:
    batches = token_batches(lengths, budget, max_rows)
    flat = [index for batch in batches for index in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in batches:
        assert 1 <= len(batch) <= max_rows
        width = max(max(lengths[i] for i in batch), 1)
        assert len(batch) == 1 or len(batch) * width <= budget
