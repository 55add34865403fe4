"""The stratified sample: deterministic, proportional, spread over families, whole when asked
for more than there is."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.stats.stratified_sample import SampleUnit, allocate, stratified_sample


def _grid(families: int, categories: int, holes: int = 0) -> list[SampleUnit]:
    """One question per family and category, less every ``holes``-th cell."""
    units = []
    for f in range(families):
        for c in range(categories):
            if holes and (f * categories + c) % holes == 0:
                continue
            units.append(SampleUnit(f"fam{f:03d}-cat{c:02d}", f"cat{c:02d}", f"fam{f:03d}"))
    return units


def test_the_same_n_gives_the_same_sample_whatever_the_input_order() -> None:
    units = _grid(40, 12, holes=7)
    shuffled = list(units)
    random.Random(5).shuffle(shuffled)
    assert stratified_sample(units, 100) == stratified_sample(shuffled, 100)
    assert len(stratified_sample(units, 100)) == 100
    assert stratified_sample(units, 100) != stratified_sample(units, 100, seed="other")


def test_proportions_hold() -> None:
    # Strata of 300, 120 and 80 questions: 50 drawn split 30, 12 and 8 exactly.
    units = ([SampleUnit(f"a{i}", "a", f"f{i % 50}") for i in range(300)]
             + [SampleUnit(f"b{i}", "b", f"f{i % 50}") for i in range(120)]
             + [SampleUnit(f"c{i}", "c", f"f{i % 50}") for i in range(80)])
    sample = stratified_sample(units, 50)
    assert Counter(unit_id[0] for unit_id in sample) == {"a": 30, "b": 12, "c": 8}


def test_families_are_spread_evenly() -> None:
    units = _grid(30, 10)
    sample = stratified_sample(units, 60)
    per_family = Counter(unit_id.split("-")[0] for unit_id in sample)
    assert set(per_family.values()) == {2}
    per_category = Counter(unit_id.split("-")[1] for unit_id in sample)
    assert set(per_category.values()) == {6}


def test_more_than_the_set_gives_the_whole_set() -> None:
    units = _grid(5, 4)
    everything = tuple(sorted(unit.id for unit in units))
    assert stratified_sample(units, len(units)) == everything
    assert stratified_sample(units, 10_000) == everything
    assert stratified_sample(units, 0) == ()


def test_bad_samples_are_named() -> None:
    with pytest.raises(ValueError, match="must not be negative, got -1"):
        stratified_sample(_grid(2, 2), -1)
    with pytest.raises(TypeError, match="must be an integer"):
        stratified_sample(_grid(2, 2), 1.5)  # type: ignore[arg-type]
    duplicate = [SampleUnit("q", "a", "f"), SampleUnit("q", "b", "g")]
    with pytest.raises(ValueError, match="'q' appears twice"):
        stratified_sample(duplicate, 1)


def test_largest_remainders() -> None:
    # Quotas 7 * (5, 3, 2) / 10 = 3.5, 2.1, 1.4: floors 3, 2, 1 and the one left over goes to
    # the largest remainder (0.5).
    assert allocate({"x": 5, "y": 3, "z": 2}, 7) == {"x": 4, "y": 2, "z": 1}
    # Equal remainders: the larger stratum first, then the name.
    assert allocate({"x": 2, "y": 2, "z": 4}, 4) == {"x": 1, "y": 1, "z": 2}
    assert allocate({"x": 1, "y": 1}, 1) == {"x": 1, "y": 0}


_sizes = st.dictionaries(st.sampled_from("abcdefgh"), st.integers(min_value=1, max_value=40),
                         min_size=1)


@given(_sizes, st.integers(min_value=0, max_value=400))
def test_allocation_is_within_one_of_the_quota(sizes: dict[str, int], n: int) -> None:
    shares = allocate(sizes, n)
    total = sum(sizes.values())
    assert sum(shares.values()) == min(n, total)
    for name, size in sizes.items():
        assert shares[name] <= size
        if n < total:
            assert abs(shares[name] - n * size / total) < 1.0


@given(st.integers(min_value=2, max_value=12), st.integers(min_value=2, max_value=8),
       st.integers(min_value=0, max_value=120))
def test_every_sample_is_a_subset_of_the_right_size(families: int, categories: int,
                                                    n: int) -> None:
    units = _grid(families, categories)
    sample = stratified_sample(units, n)
    assert len(sample) == min(n, len(units)) == len(set(sample))
    assert set(sample) <= {unit.id for unit in units}
    per_family = Counter(unit_id.split("-")[0] for unit_id in sample)
    if per_family and 2 * n <= len(units):
        # The greedy turns keep families within two picks of one another while at most half
        # the set is drawn (checked exhaustively for grids up to 12 x 8).
        assert max(per_family.values()) - min(per_family.get(f"fam{f:03d}", 0)
                                              for f in range(families)) <= 2
