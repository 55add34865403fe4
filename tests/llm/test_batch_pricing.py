"""Batch calls at the price card's batch rates: half of every kind of token on the default
card, cache writes and reads included, the rates as data on the card, and the ledger's mark."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pytest_legalbench.files.record_json import RecordError, from_builtins, to_builtins
from pytest_legalbench.llm.cost_guard import CostGuard, SpendMeter
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import (
    BatchRates,
    PriceCardError,
    load_price_card,
    price,
    price_call,
    price_calls,
)

MILLION = 1_000_000


@pytest.mark.parametrize(("usage", "interactive", "batch"), [
    (Usage(input_tokens=MILLION), "3.00", "1.500"),
    (Usage(cache_creation_input_tokens=MILLION), "3.75", "1.875"),
    (Usage(cache_read_input_tokens=MILLION), "0.30", "0.150"),
    (Usage(output_tokens=MILLION), "15.00", "7.500"),
    (Usage(cache_creation_input_tokens=MILLION, cache_write_1h_tokens=MILLION), "6.00",
     "3.000"),
    (Usage(MILLION, MILLION, MILLION, MILLION), "22.05", "11.025"),
    (Usage(input_tokens=915, cache_creation_input_tokens=161_784, output_tokens=95),
     "0.61086", "0.30543"),
    (Usage(), "0", "0"),
])
def test_the_default_card_bills_a_batch_call_at_half_of_every_rate(
        usage: Usage, interactive: str, batch: str) -> None:
    card = load_price_card()
    assert price(usage, card, "claude-sonnet-4-6").total == Decimal(interactive)
    assert price(usage, card, "claude-sonnet-4-6", batch=True).total == Decimal(batch)


def test_the_default_card_holds_its_batch_rates_as_data() -> None:
    half = Decimal("0.5")
    assert load_price_card().batch == BatchRates(half, half, half, half, half)


def test_a_ledger_call_is_priced_by_its_batch_mark() -> None:
    card = load_price_card()
    usage = Usage(input_tokens=2_000, cache_read_input_tokens=160_000, output_tokens=300)
    interactive = Call("inject.answer", "m", usage, 1.0, "anthropic")
    batch = Call("inject.answer", "m", usage, 61.0, "anthropic", batch=True)
    assert price_call(interactive, card).total == Decimal("0.0585")
    assert price_call(batch, card).total == Decimal("0.02925")
    assert price_calls([interactive, batch], card).total == Decimal("0.08775")
    assert to_builtins(price_calls([interactive, batch], card))["cache_read"] == "0.072"


def test_the_batch_mark_is_written_only_when_set_and_read_back() -> None:
    usage = Usage(input_tokens=5)
    plain = Call("judge.forward", "m", usage, 0.5, "reference")
    marked = Call("judge.forward", "m", usage, 0.5, "reference", batch=True)
    assert "batch" not in to_builtins(plain)
    assert to_builtins(marked)["batch"] is True
    assert from_builtins(Call, json.loads(json.dumps(to_builtins(marked)))) == marked
    with pytest.raises(RecordError, match="batch"):
        from_builtins(Call, {**to_builtins(marked), "batch": "yes"})


def card_with(tmp_path: Path, **extra: object) -> Path:
    data = {"name": "lab", "version": "3",
            "prices": {"input": 2, "cache_write": 2.5, "cache_read": 0.2, "output": 10},
            "models": {"cheap-*": {"input": 1, "output": 5}}, **extra}
    path = tmp_path / "card.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_card_may_bill_batches_at_its_own_rates_per_kind_of_token(tmp_path: Path) -> None:
    card = load_price_card(card_with(tmp_path, batch={
        "input": 0.5, "cache_write": 1, "cache_read": 1, "output": 0.4,
        "cache_write_1h": 0.25}))
    usage = Usage(MILLION, MILLION, MILLION, MILLION, cache_write_1h_tokens=MILLION // 2)
    cost = price(usage, card, "cheap-1", batch=True)
    # cheap-* keeps the card's cache prices; its 1-hour writes default to twice its input:
    # 500k 5-minute writes at 2.5 x 1 and 500k 1-hour writes at 2 x 0.25.
    assert to_builtins(cost) == {"input": "0.5", "cache_write": "1.5", "cache_read": "0.2",
                              "output": "2", "total": "4.2"}


def test_a_card_without_batch_rates_refuses_to_price_a_batch_call(tmp_path: Path) -> None:
    card = load_price_card(card_with(tmp_path))
    assert price(Usage(input_tokens=10), card, "m").total == Decimal("0.00002")
    with pytest.raises(PriceCardError, match=r"lab v3: batch: this card has no batch rates"):
        price(Usage(input_tokens=10), card, "m", batch=True)


@pytest.mark.parametrize(("batch", "field", "problem"), [
    ([0.5], "batch", "must be an object of multipliers"),
    ({"input": 0.5, "cache_write": 0.5, "cache_read": 0.5, "output": 0.5},
     "batch.cache_write_1h", "missing multiplier"),
    ({"input": 0.5, "cache_write": 0.5, "cache_read": 0.5, "output": 0.5,
      "cache_write_1h": 0.5, "discount": 1}, "batch.discount", "unknown field"),
    ({"input": -0.5, "cache_write": 0.5, "cache_read": 0.5, "output": 0.5,
      "cache_write_1h": 0.5}, "batch.input", "must be a finite number >= 0"),
])
def test_bad_batch_rates_name_the_field(tmp_path: Path, batch: object, field: str,
                                        problem: str) -> None:
    with pytest.raises(PriceCardError) as caught:
        load_price_card(card_with(tmp_path, batch=batch))
    assert caught.value.field == field and problem in str(caught.value)


def test_the_spending_limit_counts_a_batch_call_at_what_it_cost() -> None:
    meter = SpendMeter()
    guard = CostGuard(Decimal(1), load_price_card(), meter)
    guard.after(Call("navembed.answer", "m", Usage(input_tokens=MILLION), 1.0, "anthropic",
                     batch=True))
    assert meter.total() == Decimal("1.5")
