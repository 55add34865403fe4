"""1-hour cache writes: read from the API's nested usage, kept through records, and priced at
their own rate (twice the input price unless the card names one), never at the 5-minute rate."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.llm.ledger import LedgerFormatError, Usage
from pytest_legalbench.llm.pricing import load_price_card, parse_price_card, price

#: As the Messages API reports a call that wrote 3,000 tokens to the cache, 2,000 of them for
#: an hour.
API_USAGE = {"input_tokens": 1000, "cache_creation_input_tokens": 3000,
             "cache_read_input_tokens": 10000, "output_tokens": 500,
             "cache_creation": {"ephemeral_5m_input_tokens": 1000,
                                "ephemeral_1h_input_tokens": 2000}}


def read_usage(data: object) -> Usage:
    return from_builtins(Usage, data, what="usage", error=LedgerFormatError)


def test_the_one_hour_part_is_read_and_kept_through_a_record() -> None:
    usage = read_usage(API_USAGE)
    assert usage.cache_write_1h_tokens == 2000 and usage.cache_creation_input_tokens == 3000
    assert usage.footprint == 14000
    assert read_usage(to_builtins(usage)) == usage
    assert (usage + usage).cache_write_1h_tokens == 4000
    # Calls without 1-hour writes keep the four counts they always had.
    assert to_builtins(Usage(1, 2, 3, 4)) == {
        "input_tokens": 1, "cache_creation_input_tokens": 2, "cache_read_input_tokens": 3,
        "output_tokens": 4}
    # ... and those with them write the part as the API nests it.
    assert to_builtins(usage)["cache_creation"] == {"ephemeral_1h_input_tokens": 2000}
    assert read_usage({**API_USAGE, "cache_creation": None}).cache_write_1h_tokens == 0


def test_the_default_card_prices_one_hour_writes_at_twice_the_input_price() -> None:
    cost = price(read_usage(API_USAGE), load_price_card(), "claude-sonnet-4-6")
    # 1,000 x $3.75 + 2,000 x $6.00 per million, not 3,000 x $3.75.
    assert cost.cache_write == Decimal("0.01575")
    assert cost.input == Decimal("0.003") and cost.cache_read == Decimal("0.003")
    assert cost.output == Decimal("0.0075")
    assert cost.total == Decimal("0.02925")


def test_a_card_may_name_its_own_one_hour_rate_per_model(tmp_path: Path) -> None:
    card = parse_price_card(
        '{"name": "c", "version": "2", "prices": {"input": 3, "cache_write": 3.75, '
        '"cache_read": 0.3, "output": 15, "cache_write_1h": 7.5}, '
        '"models": {"cheap-*": {"input": 1}}}', tmp_path / "card.json")
    usage = read_usage(API_USAGE)
    assert price(usage, card, "m").cache_write == Decimal("0.01875")
    # An override keeps the card's 1-hour rate when it names none of its own.
    assert price(usage, card, "cheap-1").cache_write == Decimal("0.01875")


def test_more_one_hour_writes_than_writes_is_a_malformed_usage() -> None:
    with pytest.raises(LedgerFormatError, match="2000 1-hour cache write tokens exceed the "
                                                "1000 cache write tokens"):
        read_usage({**API_USAGE, "cache_creation_input_tokens": 1000})
