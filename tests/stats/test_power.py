"""Sample sizes and minimum detectable effects against published worked examples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.stats.power import (
    observed_discordance,
    paired_minimum_detectable_effect,
    paired_power,
    paired_questions,
    paired_questions_exact,
    unpaired_minimum_detectable_effect,
    unpaired_power,
    unpaired_questions,
    unpaired_questions_exact,
)


def test_connors_paired_sample_size() -> None:
    # powerandsamplesize.com, "Compare Paired Proportions: McNemar's Z-test, 2-Sided Equality",
    # citing Connor (1987) p. 209: p01 = 0.45, p10 = 0.05, alpha 0.05, beta 0.20 gives
    # ceiling(n) = 23 (n = 22.01).
    assert paired_questions_exact(0.4, 0.5) == pytest.approx(22.0113, abs=1e-4)
    assert paired_questions(0.4, 0.5) == 23


def test_the_notes_example_paired_and_unpaired() -> None:
    # The team's research notes (shared/notes/evaluation-practice.md), after Miller 2024: a
    # 5-point difference at a 70% rate needs roughly 1,300 questions per arm unpaired and about
    # 470 paired if 15% of questions disagree.
    assert paired_questions(0.05, 0.15) == 469
    assert 1_250 <= unpaired_questions(0.05, 0.7) <= 1_400


def test_r_power_prop_test_examples() -> None:
    # R's documented examples of power.prop.test (stats package, help page):
    #   power.prop.test(n = 50, p1 = .50, p2 = .75)      => power = 0.740
    #   power.prop.test(p1 = .50, p2 = .75, power = .90) => n = 76.7
    #   power.prop.test(n = 50, p1 = .5, power = .90)    => p2 = 0.8026
    #   power.prop.test(p1 = .5, p2 = 0.501, sig.level=.001, power=0.90) => n = 10451937
    assert round(unpaired_power(50, 0.5, 0.75), 3) == 0.740
    assert round(unpaired_questions_exact(0.25, 0.5, power=0.9), 1) == 76.7
    detectable = unpaired_minimum_detectable_effect(50, 0.5, power=0.9)
    assert detectable is not None and round(0.5 + detectable, 4) == 0.8026
    assert unpaired_questions(0.001, 0.5, alpha=0.001, power=0.9) == 10_451_937


def test_the_unpaired_move_goes_towards_one_half() -> None:
    # From 0.7 the second rate is 0.65 (more variance than 0.75, so more questions), and the
    # design is symmetric about one half: 0.3 moves to 0.35.
    n = unpaired_questions(0.05, 0.7)
    assert unpaired_power(n, 0.7, 0.65) >= 0.8 > unpaired_power(n - 1, 0.7, 0.65)
    assert unpaired_power(n - 1, 0.7, 0.75) > 0.8
    assert unpaired_questions_exact(0.05, 0.7) == pytest.approx(
        unpaired_questions_exact(0.05, 0.3), rel=1e-9)


def test_the_minimum_detectable_effect_inverts_the_sample_size() -> None:
    effect = paired_minimum_detectable_effect(469, 0.15)
    assert effect is not None and effect == pytest.approx(0.05, abs=5e-4)
    assert paired_questions_exact(effect, 0.15) == pytest.approx(469, rel=1e-9)
    unpaired = unpaired_minimum_detectable_effect(1377, 0.7)
    assert unpaired is not None and unpaired == pytest.approx(0.05, abs=5e-4)


def test_too_few_questions_detect_nothing() -> None:
    # At 15% discordance even a difference on every discordant question needs about 50.
    assert paired_minimum_detectable_effect(30, 0.15) is None
    assert paired_minimum_detectable_effect(300, 0.0) is None


def test_paired_power_at_the_sample_size_reaches_the_target() -> None:
    assert paired_power(23, 0.4, 0.5) >= 0.8 > paired_power(22, 0.4, 0.5)
    assert paired_power(10, 1.0, 1.0) == 1.0


def test_bad_designs_are_named() -> None:
    with pytest.raises(ValueError, match="exceeds the discordance"):
        paired_questions(0.2, 0.1)
    with pytest.raises(ValueError, match=r"effect must lie in \(0, 1\]"):
        paired_questions(0.0, 0.1)
    with pytest.raises(ValueError, match=r"rate must lie in \(0, 1\)"):
        unpaired_questions(0.05, 1.0)
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        paired_questions(0.05, 0.15, alpha=0.0)
    with pytest.raises(ValueError, match="n must be at least 1"):
        paired_minimum_detectable_effect(0, 0.2)
    with pytest.raises(ValueError, match="leaves"):
        unpaired_questions(0.6, 0.5)


def test_observed_discordance() -> None:
    pairs = [(True, True)] * 6 + [(True, False)] * 3 + [(False, True)] + [(False, False)] * 2
    found = observed_discordance(pairs)
    assert (found.n, found.first_only, found.second_only) == (12, 3, 1)
    assert found.rate == pytest.approx(4 / 12) and found.effect == pytest.approx(2 / 12)
    assert observed_discordance([]).rate == 0.0
    with pytest.raises(TypeError, match="pair 0"):
        observed_discordance([(1, 0)])  # type: ignore[list-item]


@given(st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=0.01, max_value=1.0))
def test_more_discordance_needs_more_questions(effect: float, share: float) -> None:
    discordance = max(effect, share)
    wider = min(1.0, discordance + 0.05)
    assert paired_questions_exact(effect, wider) >= paired_questions_exact(effect, discordance)


@given(st.integers(min_value=1, max_value=5_000), st.floats(min_value=0.02, max_value=1.0))
def test_a_larger_run_detects_a_smaller_effect(n: int, discordance: float) -> None:
    smaller = paired_minimum_detectable_effect(n, discordance)
    larger = paired_minimum_detectable_effect(n + 100, discordance)
    if smaller is not None:
        assert larger is not None and larger <= smaller + 1e-12
