"""The crossover rule: break-evens sit exactly where the two warm costs are equal."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.pricing import Prices, load_price_card
from pytest_legalbench.results.crossover import (
    TIE,
    ceiling_lines,
    input_to_cache_read_ratio,
    navigate_break_even,
    navigate_payload_ceiling,
    navigate_verdict,
    navindex_break_even,
    navindex_payload_ceiling,
    navindex_verdict,
    warm_inject_cost,
    warm_navigate_cost,
    warm_navindex_cost,
)

DEFAULT = load_price_card().prices
tokens = st.integers(min_value=0, max_value=10**7)
means = st.fractions(min_value=0, max_value=10**6, max_denominator=1000)
prices_ = st.decimals(min_value=0, max_value=100, places=3, allow_nan=False,
                      allow_infinity=False)
positive = st.decimals(min_value=Decimal("0.001"), max_value=100, places=3)
cards = st.builds(Prices, prices_, prices_, positive, prices_)


def test_default_card_break_even_is_ten_times_the_payload() -> None:
    assert input_to_cache_read_ratio(DEFAULT) == 10
    assert navigate_break_even(4_821, DEFAULT) == 48_210
    assert navindex_break_even(12_000, 3_000, DEFAULT) == 42_000
    # One million cache-read tokens cost $0.30, one million uncached $3.00.
    assert warm_inject_cost(1_000_000, DEFAULT) == Fraction(3, 10)
    assert warm_navigate_cost(100_000, DEFAULT) == Fraction(3, 10)
    assert warm_navindex_cost(500_000, 50_000, DEFAULT) == Fraction(3, 10)


@given(means, cards)
def test_navigate_costs_are_equal_exactly_at_break_even(payload: Fraction, prices: Prices) -> None:
    break_even = navigate_break_even(payload, prices)
    assert break_even is not None
    assert warm_inject_cost(break_even, prices) == warm_navigate_cost(payload, prices)


@given(means, means, cards)
def test_navindex_costs_are_equal_exactly_at_break_even(index: Fraction, payload: Fraction,
                                                        prices: Prices) -> None:
    break_even = navindex_break_even(index, payload, prices)
    assert break_even is not None
    assert warm_inject_cost(break_even, prices) == warm_navindex_cost(index, payload, prices)


@given(tokens, means, cards)
def test_inject_is_cheaper_exactly_below_break_even(corpus: int, payload: Fraction,
                                                    prices: Prices) -> None:
    verdict = navigate_verdict("navembed", corpus, payload, prices)
    break_even = navigate_break_even(payload, prices)
    assert break_even is not None and verdict.break_even_tokens == break_even
    expected = "inject" if corpus < break_even else "navembed" if corpus > break_even else TIE
    assert verdict.cheaper == expected


@given(tokens, tokens, tokens, cards)
def test_navindex_verdict_follows_its_break_even(corpus: int, index: int, payload: int,
                                                 prices: Prices) -> None:
    verdict = navindex_verdict(corpus, index, payload, prices, "navindex")
    break_even = navindex_break_even(index, payload, prices)
    assert break_even is not None
    expected = "inject" if corpus < break_even else "navindex" if corpus > break_even else TIE
    assert verdict.cheaper == expected


def test_verdict_explains_the_numbers_and_the_ttl_caveat() -> None:
    verdict = navigate_verdict("navembed+xref", 162_004, 4_821, DEFAULT)
    assert verdict.cheaper == "navembed+xref"
    assert "10 x payload 4,821 = 48,210 tokens" in verdict.explanation
    assert "corpus 162,004 tokens is above it" in verdict.explanation
    # Each dollar figure is named by its arm, so the cheaper one can be read off.
    assert "(navembed+xref $0.0145 vs inject $0.0486 context input" in verdict.explanation
    assert "5-minute" in verdict.explanation and "\n" not in verdict.explanation
    small = navindex_verdict(30_000, 12_000, 3_000, DEFAULT, "navindex")
    assert small.cheaper == "inject"
    assert "index 12,000 + 10 x payload 3,000 = 42,000 tokens" in small.explanation
    assert "is below it" in small.explanation
    at = navigate_verdict("navembed", 48_210, 4_821, DEFAULT)
    assert at.cheaper == TIE and "exactly at" in at.explanation
    assert to_builtins(at)["break_even_tokens"] == 48_210.0


def test_a_mean_payload_may_be_fractional() -> None:
    verdict = navigate_verdict("navembed", 40_000, Decimal("4821.5"), DEFAULT)
    assert verdict.break_even_tokens == Fraction(96_430, 2)
    assert "48,215" in verdict.explanation and verdict.cheaper == "inject"


def test_free_cache_reads_have_no_break_even_and_inject_costs_nothing() -> None:
    free_reads = Prices(Decimal(3), Decimal("3.75"), Decimal(0), Decimal(15))
    assert input_to_cache_read_ratio(free_reads) is None
    assert navigate_break_even(100, free_reads) is None
    verdict = navigate_verdict("navembed", 10**6, 100, free_reads)
    assert verdict.cheaper == "inject" and verdict.break_even_tokens is None
    assert "no finite break-even" in verdict.explanation
    everything_free = Prices(Decimal(0), Decimal(0), Decimal(0), Decimal(0))
    assert navindex_verdict(10**6, 10, 10, everything_free, "navindex").cheaper == TIE


@pytest.mark.parametrize(("corpus", "payload", "mode", "error", "match"), [
    (-1, 10, "navembed", ValueError, "corpus_tokens must be >= 0"),
    (10, float("nan"), "navembed", ValueError, "payload_tokens must be finite"),
    (10, "10", "navembed", TypeError, "payload_tokens must be a number"),
    (True, 10, "navembed", TypeError, "corpus_tokens"),
    (10, 10, "inject", ValueError, "must name a navigate mode"),
])
def test_bad_inputs_are_named(corpus: object, payload: object, mode: str,
                              error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        navigate_verdict(mode, corpus, payload, DEFAULT)  # type: ignore[arg-type]


# --- payload ceilings for a measured corpus ------------------------------------------------


def test_payload_ceilings_on_the_default_card() -> None:
    prices = load_price_card().prices
    assert navigate_payload_ceiling(161_810, prices) == Fraction(16_181)
    assert navindex_payload_ceiling(161_810, 108_480, prices) == Fraction(5_333)
    assert navindex_payload_ceiling(100, 200, prices) == Fraction(-10)
    lines = ceiling_lines(161_810, 108_480, prices)
    assert "payload under 16,181 tokens" in lines[0] and "provisions under 5,333 tokens" in lines[1]
    assert "cannot" in ceiling_lines(100, 200, prices)[1]


@given(st.integers(min_value=1, max_value=10**7), st.integers(min_value=0, max_value=10**7))
def test_at_the_ceiling_the_warm_costs_are_equal(corpus: int, index: int) -> None:
    prices = load_price_card().prices
    ceiling = navigate_payload_ceiling(corpus, prices)
    assert ceiling is not None
    assert warm_navigate_cost(ceiling, prices) == warm_inject_cost(corpus, prices)
    provisions = navindex_payload_ceiling(corpus, index, prices)
    assert provisions is not None
    if provisions >= 0:
        assert warm_navindex_cost(index, provisions, prices) == warm_inject_cost(corpus, prices)
