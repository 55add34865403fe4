"""Dollar cost of token usage, priced by a versioned price card.

Money is ``decimal.Decimal`` throughout, never float: card prices are parsed from JSON straight
into Decimal, and ``tokens * price / 10**6`` is computed in a wide context that traps inexact
results, so every cost is the exact decimal value and costs add up without drift.
"""

from __future__ import annotations

import decimal
import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Annotated

from pytest_legalbench.files.record_json import PLAIN_DECIMAL, derived
from pytest_legalbench.llm.ledger import Call, Usage

#: Prices on a card are dollars per this many tokens.
TOKENS_PER_PRICE_UNIT = 1_000_000

PRICE_FIELDS = ("input", "cache_write", "cache_read", "output")
#: A card's optional price: 1-hour cache writes (without it, twice the input price, the
#: Messages API's rate for them).
ONE_HOUR_WRITE = "cache_write_1h"
_ONE_HOUR_FACTOR = Decimal(2)
#: A card's optional multipliers for calls made through the Message Batches API, one per kind
#: of token, applied to the card's (or a model override's) prices.
BATCH_FIELD = "batch"
BATCH_RATE_FIELDS = (*PRICE_FIELDS, ONE_HOUR_WRITE)
_CARD_FIELDS = frozenset({"name", "version", "currency", "description", "prices", "models",
                          BATCH_FIELD})

# Wide enough that products of realistic token counts and card prices never round; if one
# ever would, Inexact raises instead of silently drifting.
_EXACT = decimal.Context(prec=60, traps=[decimal.Inexact, decimal.InvalidOperation])


class PriceCardError(ValueError):
    """A price card file is unreadable or malformed; the message names the file and field."""

    def __init__(self, path: Path | str, field: str, problem: str) -> None:
        super().__init__(f"price card {path}: {field}: {problem}")
        self.path = str(path)
        self.field = field


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens for each kind of token."""

    input: Decimal
    cache_write: Decimal
    cache_read: Decimal
    output: Decimal
    cache_write_1h: Decimal | None = None
    """1-hour cache writes; None: twice ``input``."""

    def __post_init__(self) -> None:
        for name in (*PRICE_FIELDS, ONE_HOUR_WRITE):
            value = getattr(self, name)
            if name == ONE_HOUR_WRITE and value is None:
                continue
            if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
                raise ValueError(f"price {name!r} must be a finite Decimal >= 0, got {value!r}")

    @property
    def one_hour_write(self) -> Decimal:
        """The price of 1-hour cache writes."""
        if self.cache_write_1h is not None:
            return self.cache_write_1h
        return _EXACT.multiply(self.input, _ONE_HOUR_FACTOR)

    def scaled(self, rates: BatchRates) -> Prices:
        """These prices with each kind of token multiplied by its batch rate."""
        return Prices(input=_EXACT.multiply(self.input, rates.input),
                      cache_write=_EXACT.multiply(self.cache_write, rates.cache_write),
                      cache_read=_EXACT.multiply(self.cache_read, rates.cache_read),
                      output=_EXACT.multiply(self.output, rates.output),
                      cache_write_1h=_EXACT.multiply(self.one_hour_write, rates.cache_write_1h))


@dataclass(frozen=True)
class BatchRates:
    """What a batch call pays per kind of token, as a multiple of the interactive price.

    The Message Batches API bills all usage at 50% of the standard price, prompt-cache writes
    (5-minute and 1-hour) and cache reads included: its discount stacks with the caching
    multipliers (docs.anthropic.com/en/docs/build-with-claude/batch-processing, "Pricing";
    docs.anthropic.com/en/docs/about-claude/pricing, "Batch processing"). The packaged card
    says so in data, so a provider that bills batches otherwise needs only a card.
    """

    input: Decimal
    cache_write: Decimal
    cache_read: Decimal
    output: Decimal
    cache_write_1h: Decimal

    def __post_init__(self) -> None:
        for name in BATCH_RATE_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
                raise ValueError(f"batch rate {name!r} must be a finite Decimal >= 0, "
                                 f"got {value!r}")


@dataclass(frozen=True)
class PriceCard:
    """A named, versioned set of prices, with optional per-model overrides."""

    name: str
    version: str
    prices: Prices
    """The prices of any model without an override."""
    models: tuple[tuple[str, Prices], ...] = ()
    """``(pattern, prices)``: an exact model id, or a prefix ending in ``*``."""
    currency: str = "USD"
    batch: BatchRates | None = None
    """Multipliers for calls made through the Message Batches API; None: the card cannot
    price a batch call."""

    def prices_for(self, model: str, *, batch: bool = False) -> Prices:
        """Return the prices of ``model``: exact override, else longest prefix, else default;
        with ``batch``, at the card's batch rates."""
        # Exact ids rank above every prefix; among prefixes the longest (most specific) wins.
        matches = [(len(pattern) if pattern.endswith("*") else math.inf, prices)
                   for pattern, prices in self.models
                   if pattern == model or (pattern.endswith("*")
                                           and model.startswith(pattern[:-1]))]
        prices = max(matches, key=lambda match: match[0])[1] if matches else self.prices
        if not batch:
            return prices
        if self.batch is None:
            raise PriceCardError(self.label, BATCH_FIELD,
                                 "this card has no batch rates, so it cannot price a call made "
                                 "through the Message Batches API: add a \"batch\" object of "
                                 "multipliers (input, cache_write, cache_read, output, "
                                 "cache_write_1h)")
        return prices.scaled(self.batch)

    @property
    def label(self) -> str:
        """The card as reports cite it: ``name vVERSION``."""
        return f"{self.name} v{self.version}"


#: Dollars as result files hold them: exact, in fixed point without trailing zeros.
Dollars = Annotated[Decimal, PLAIN_DECIMAL]


@derived(total="total")
@dataclass(frozen=True)
class Cost:
    """Dollars per kind of token; costs add up exactly with ``+``. Written with its total."""

    input: Dollars = Decimal(0)
    cache_write: Dollars = Decimal(0)
    cache_read: Dollars = Decimal(0)
    output: Dollars = Decimal(0)

    def __add__(self, other: Cost) -> Cost:
        """Return the component-wise sum of two costs."""
        if not isinstance(other, Cost):
            return NotImplemented
        return Cost(*(_EXACT.add(getattr(self, n), getattr(other, n)) for n in PRICE_FIELDS))

    @property
    def total(self) -> Dollars:
        """The dollars of all four components."""
        return functools.reduce(_EXACT.add, (getattr(self, n) for n in PRICE_FIELDS), Decimal(0))


def format_usd(amount: Decimal, places: int = 4) -> str:
    """Format dollars for display, rounded half-even to ``places`` decimals (``$0.4863``)."""
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_EVEN)
    return f"${rounded:,.{places}f}"


def _dollars(tokens: int, per_million: Decimal) -> Decimal:
    return _EXACT.divide(_EXACT.multiply(Decimal(tokens), per_million), TOKENS_PER_PRICE_UNIT)


def price(usage: Usage, card: PriceCard, model: str, *, batch: bool = False) -> Cost:
    """Return the exact dollar cost of ``usage`` on ``model`` at ``card``'s prices (its batch
    rates for a call made through the Message Batches API)."""
    prices = card.prices_for(model, batch=batch)
    five_minute = usage.cache_creation_input_tokens - usage.cache_write_1h_tokens
    return Cost(
        input=_dollars(usage.input_tokens, prices.input),
        cache_write=_EXACT.add(_dollars(five_minute, prices.cache_write),
                               _dollars(usage.cache_write_1h_tokens, prices.one_hour_write)),
        cache_read=_dollars(usage.cache_read_input_tokens, prices.cache_read),
        output=_dollars(usage.output_tokens, prices.output),
    )


def price_call(call: Call, card: PriceCard) -> Cost:
    """Return the cost of one ledger call: its model's prices, at batch rates if it was a
    batch call."""
    return price(call.usage, card, call.model, batch=call.batch)


def price_calls(calls: Iterable[Call], card: PriceCard) -> Cost:
    """Return the cost of ``calls``, each priced for the model it reports (batch calls at
    the card's batch rates)."""
    total = Cost()
    for call in calls:
        total = total + price_call(call, card)
    return total


# ---- reading a card file ------------------------------------------------------------------


def _no_duplicates(path: Path, pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise PriceCardError(path, key, "appears more than once")
        seen[key] = value
    return seen


def _text_field(path: Path, data: Mapping[str, object], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value.strip():
        raise PriceCardError(path, name, f"must be a non-empty string, got {value!r}")
    return value


def _price_fields(path: Path, where: str, data: object, base: Prices | None) -> Prices:
    if not isinstance(data, Mapping):
        raise PriceCardError(path, where, "must be an object of prices per million tokens")
    unknown = sorted(set(data) - {*PRICE_FIELDS, ONE_HOUR_WRITE})
    if unknown:
        raise PriceCardError(path, f"{where}.{unknown[0]}",
                             f"unknown field (expected {', '.join(PRICE_FIELDS)} or "
                             f"{ONE_HOUR_WRITE})")
    values: dict[str, Decimal | None] = {}
    for name in (*PRICE_FIELDS, ONE_HOUR_WRITE):
        field = f"{where}.{name}"
        if name not in data:
            if name == ONE_HOUR_WRITE:
                values[name] = base.cache_write_1h if base is not None else None
                continue
            if base is None:
                raise PriceCardError(path, field, "missing price")
            values[name] = getattr(base, name)
            continue
        value = data[name]
        # JSON fractions arrive as Decimal (parse_float); a float here can only be NaN/Infinity.
        amount = Decimal(value) if type(value) is int else value
        if not isinstance(amount, Decimal) or not amount.is_finite() or amount < 0:
            raise PriceCardError(path, field, f"must be a finite number >= 0, got {value!r}")
        values[name] = amount
    return Prices(**values)  # type: ignore[arg-type]


def parse_price_card(text: str, path: Path) -> PriceCard:
    """Parse the JSON text of a price card; ``path`` names it in errors."""
    try:
        data = json.loads(text, parse_float=Decimal,
                          object_pairs_hook=lambda pairs: _no_duplicates(path, pairs))
    except json.JSONDecodeError as error:
        raise PriceCardError(path, "(file)", f"not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise PriceCardError(path, "(file)", "must hold a JSON object")
    unknown = sorted(set(data) - _CARD_FIELDS)
    if unknown:
        raise PriceCardError(path, unknown[0],
                             f"unknown field (expected {', '.join(sorted(_CARD_FIELDS))})")
    if not isinstance(data.get("description", ""), str):
        raise PriceCardError(path, "description", "must be a string")
    currency = data.get("currency", "USD")
    if currency != "USD":
        raise PriceCardError(path, "currency", f"must be 'USD' (costs print as dollars), "
                                               f"got {currency!r}")
    if "prices" not in data:
        raise PriceCardError(path, "prices", "missing")
    prices = _price_fields(path, "prices", data["prices"], None)
    models = data.get("models", {})
    if not isinstance(models, Mapping):
        raise PriceCardError(path, "models", "must be an object keyed by model id or prefix*")
    if any(not pattern.strip() for pattern in models):
        raise PriceCardError(path, "models", "a model id or prefix must be non-empty")
    overrides = tuple((pattern, _price_fields(path, f"models.{pattern}", entry, prices))
                      for pattern, entry in models.items())
    batch = _batch_rates(path, data[BATCH_FIELD]) if BATCH_FIELD in data else None
    return PriceCard(name=_text_field(path, data, "name"),
                     version=_text_field(path, data, "version"),
                     prices=prices, models=overrides, currency="USD", batch=batch)


def _batch_rates(path: Path, data: object) -> BatchRates:
    if not isinstance(data, Mapping):
        raise PriceCardError(path, BATCH_FIELD, "must be an object of multipliers of the "
                                                "interactive prices (0.5 = half price)")
    unknown = sorted(set(data) - set(BATCH_RATE_FIELDS))
    if unknown:
        raise PriceCardError(path, f"{BATCH_FIELD}.{unknown[0]}",
                             f"unknown field (expected {', '.join(BATCH_RATE_FIELDS)})")
    rates: dict[str, Decimal] = {}
    for name in BATCH_RATE_FIELDS:
        field = f"{BATCH_FIELD}.{name}"
        if name not in data:
            raise PriceCardError(path, field, "missing multiplier")
        value = data[name]
        amount = Decimal(value) if type(value) is int else value
        if not isinstance(amount, Decimal) or not amount.is_finite() or amount < 0:
            raise PriceCardError(path, field, f"must be a finite number >= 0, got {value!r}")
        rates[name] = amount
    return BatchRates(**rates)


def default_price_card_path() -> Path:
    """Return the packaged default card (SPEC §7 prices)."""
    return Path(str(resources.files("pytest_legalbench.llm.price_cards") / "default.json"))


def load_price_card(path: Path | None = None) -> PriceCard:
    """Load a price card file; None loads the packaged default card."""
    chosen = default_price_card_path() if path is None else Path(path)
    try:
        text = chosen.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PriceCardError(chosen, "(file)", f"cannot be read: {error}") from None
    return parse_price_card(text, chosen)
