"""Price cards: the packaged default, exact per-component pricing, overrides, file errors."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import (
    Cost,
    PriceCard,
    PriceCardError,
    Prices,
    default_price_card_path,
    format_usd,
    load_price_card,
    price,
    price_calls,
)

MILLION = 1_000_000
counts = st.integers(min_value=0, max_value=10**10)
usages = st.builds(Usage, counts, counts, counts, counts)
amounts = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False,
                      allow_infinity=False)
price_sets = st.builds(Prices, amounts, amounts, amounts, amounts)


def card_file(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "card.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def minimal_card(**changes: object) -> dict[str, object]:
    card: dict[str, object] = {
        "name": "test", "version": "7",
        "prices": {"input": 1, "cache_write": 1.25, "cache_read": 0.1, "output": 5}}
    card.update(changes)
    return card


def test_the_packaged_default_card_holds_the_spec_prices() -> None:
    card = load_price_card()
    assert default_price_card_path().name == "default.json"
    assert (card.name, card.version, card.currency) == ("default", "1", "USD")
    assert card.prices == Prices(Decimal("3.00"), Decimal("3.75"), Decimal("0.30"),
                                 Decimal("15.00"))
    assert card.label == "default v1"


@pytest.mark.parametrize(("usage", "dollars"), [
    (Usage(input_tokens=MILLION), "3.00"),
    (Usage(cache_creation_input_tokens=MILLION), "3.75"),
    (Usage(cache_read_input_tokens=MILLION), "0.30"),
    (Usage(output_tokens=MILLION), "15.00"),
    (Usage(MILLION, MILLION, MILLION, MILLION), "22.05"),
    (Usage(cache_read_input_tokens=1), "0.0000003"),
    (Usage(input_tokens=162_004, output_tokens=350), "0.491262"),
    (Usage(), "0"),
])
def test_default_card_prices_are_exact(usage: Usage, dollars: str) -> None:
    assert price(usage, load_price_card(), "any-model").total == Decimal(dollars)


def test_components_are_kept_apart() -> None:
    cost = price(Usage(10, 20, 30, 40), load_price_card(), "m")
    assert cost == Cost(Decimal("0.00003"), Decimal("0.000075"), Decimal("0.000009"),
                        Decimal("0.0006"))
    assert to_builtins(cost) == {"input": "0.00003", "cache_write": "0.000075",
                              "cache_read": "0.000009", "output": "0.0006",
                              "total": "0.000714"}


@given(usages, usages, price_sets)
def test_cost_is_additive(a: Usage, b: Usage, prices: Prices) -> None:
    card = PriceCard("p", "1", prices)
    assert price(a + b, card, "m") == price(a, card, "m") + price(b, card, "m")
    assert price(a, card, "m") + Cost() == price(a, card, "m")
    assert price(a + b, card, "m").total == price(a, card, "m").total + price(b, card, "m").total


@given(usages, price_sets)
def test_total_is_the_sum_of_components_at_their_prices(usage: Usage, prices: Prices) -> None:
    total = price(usage, PriceCard("p", "1", prices), "m").total
    assert total * MILLION == (usage.input_tokens * prices.input
                               + usage.cache_creation_input_tokens * prices.cache_write
                               + usage.cache_read_input_tokens * prices.cache_read
                               + usage.output_tokens * prices.output)


def test_model_overrides_exact_then_longest_prefix_then_default(tmp_path: Path) -> None:
    card = load_price_card(card_file(tmp_path, minimal_card(models={
        "claude-haiku*": {"input": 0.8, "output": 4},
        "claude-haiku-4-5*": {"input": 1},
        "claude-haiku-4-5-20251001": {"output": 6},
    })))
    assert card.prices_for("claude-haiku-3").input == Decimal("0.8")
    # A partial override keeps the card's other prices.
    assert card.prices_for("claude-haiku-3").cache_read == Decimal("0.1")
    assert card.prices_for("claude-haiku-4-5-x").input == Decimal(1)
    assert card.prices_for("claude-haiku-4-5-20251001").output == Decimal(6)
    assert card.prices_for("claude-haiku-4-5-20251001").input == Decimal(1)
    assert card.prices_for("other") == card.prices
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION)
    calls = [Call("a", "claude-haiku-3", usage, 0.1, "anthropic"),
             Call("b", "other", usage, 0.1, "anthropic")]
    assert price_calls(calls, card).total == Decimal("4.8") + Decimal(6)


@pytest.mark.parametrize(("data", "field", "problem"), [
    (minimal_card(prices={"input": 1, "cache_write": 1, "output": 1}),
     "prices.cache_read", "missing price"),
    (minimal_card(prices={"input": 1, "cache_write": 1, "cache_read": -0.1, "output": 1}),
     "prices.cache_read", ">= 0"),
    (minimal_card(prices={"input": "3", "cache_write": 1, "cache_read": 1, "output": 1}),
     "prices.input", "must be a finite number >= 0, got '3'"),
    (minimal_card(prices={"input": True, "cache_write": 1, "cache_read": 1, "output": 1}),
     "prices.input", "got True"),
    (minimal_card(description=["x"]), "description", "must be a string"),
    (minimal_card(prices={"input": 1, "cache_write": 1, "cache_read": 1, "output": 1,
                          "outptu": 2}), "prices.outptu", "unknown field"),
    (minimal_card(pricing={}), "pricing", "unknown field"),
    (minimal_card(models={"m": {"input": -1}}), "models.m.input", ">= 0"),
    (minimal_card(models={"m": {"inputs": 1}}), "models.m.inputs", "unknown field"),
    (minimal_card(models=[]), "models", "must be an object"),
    (minimal_card(version=""), "version", "non-empty string"),
    (minimal_card(version=2), "version", "non-empty string"),
    (minimal_card(currency="EUR"), "currency", "must be 'USD'"),
    ({"name": "x", "version": "1"}, "prices", "missing"),
    ([1, 2], "(file)", "JSON object"),
])
def test_a_bad_card_names_the_file_and_field(tmp_path: Path, data: object, field: str,
                                             problem: str) -> None:
    path = card_file(tmp_path, data)
    with pytest.raises(PriceCardError) as caught:
        load_price_card(path)
    message = str(caught.value)
    assert str(path) in message and f": {field}: " in message and problem in message
    assert caught.value.field == field


NAN_PRICE = ('{"name": "x", "version": "1", "prices": '
             '{"input": NaN, "cache_write": 1, "cache_read": 1, "output": 1}}')


@pytest.mark.parametrize(("text", "field", "problem"), [
    (NAN_PRICE, "prices.input", "finite"),
    ('{"name": "x", "name": "y"}', "name", "more than once"),
    ('{"name": "x",', "(file)", "not valid JSON"),
])
def test_malformed_json_is_reported_not_crashed_on(tmp_path: Path, text: str, field: str,
                                                   problem: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PriceCardError, match=problem) as caught:
        load_price_card(path)
    assert caught.value.field == field and str(path) in str(caught.value)


def test_a_missing_or_undecodable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(PriceCardError, match="nowhere.json.*cannot be read"):
        load_price_card(tmp_path / "nowhere.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PriceCardError, match="binary.json.*cannot be read"):
        load_price_card(binary)


def test_format_usd_rounds_for_display_only() -> None:
    assert format_usd(Decimal("0.491262")) == "$0.4913"
    assert format_usd(Decimal("1234.5"), places=2) == "$1,234.50"
    assert format_usd(Decimal(0)) == "$0.0000"
