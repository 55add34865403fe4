"""The crossover rule (SPEC §7): when cached inject is cheaper than a navigate mode.

Derivation, per question at warm steady state (the cached prefix is already in the cache, so
every question reads it back rather than writing it). Let ``p_in`` and ``p_r`` be the card's
uncached-input and cache-read prices, ``C`` the corpus tokens, ``R`` a navigate mode's
provision payload, ``I`` the navindex index and ``S`` the provisions navindex fetches.

- inject sends the corpus as the cached system block: ``cost_inject = C * p_r``.
- a navigate mode (navembed and its strategies) sends the payload uncached in the user
  message: ``cost_nav = R * p_in``.
- navindex reads its cached index in the scan and sends the fetched provisions uncached to the
  answer: ``cost_navindex = I * p_r + S * p_in``.
- navagent's every turn is context (each re-reads the conversation so far), so its warm cost
  is what its turns' input costs as measured: ``cost_agent = U * p_in + W * p_w + Rd * p_r``
  for its uncached, cache-written and cache-read input per question, and the break-even
  corpus is ``cost_agent / p_r``.

The question, the instructions and the output tokens are paid by both sides alike and cancel;
the scan's small output is left out, as SPEC §7 does. Then, for ``p_r > 0``:

- ``C * p_r < R * p_in``          exactly when ``C < R * p_in / p_r``;
- ``C * p_r < I * p_r + S * p_in`` exactly when ``C < I + S * p_in / p_r``.

With the default card ``p_in / p_r = 3.00 / 0.30 = 10``: the break-even corpus is ``10 * R``.
Arithmetic is in ``fractions.Fraction``: dividing by a price is exact, so the break-even is
exactly the corpus size at which the two costs are equal. When cache reads are free
(``p_r == 0``) there is no finite break-even and inject's warm cost is zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Annotated

from pytest_legalbench.files.record_json import FLOAT_FRACTION
from pytest_legalbench.llm.pricing import TOKENS_PER_PRICE_UNIT, Prices
from pytest_legalbench.modes.registry import BASELINE

#: A token quantity: a count, or a mean over questions.
TokenAmount = int | float | Decimal | Fraction

#: The ``cheaper`` value when the two warm costs are equal.
TIE = "tie"

TTL_CAVEAT = ("the 5-minute prompt-cache TTL voids the warm assumption when questions are "
              "spread over time (each cold start writes the corpus at the cache-write price)")


def _amount(name: str, value: TokenAmount) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal, Fraction)):
        raise TypeError(f"{name} must be a number of tokens, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if isinstance(value, Decimal) and not value.is_finite():
        raise ValueError(f"{name} must be finite, got {value!r}")
    exact = Fraction(value)
    if exact < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return exact


def _per_token(price: Decimal) -> Fraction:
    return Fraction(price) / TOKENS_PER_PRICE_UNIT


def input_to_cache_read_ratio(prices: Prices) -> Fraction | None:
    """Return ``p_in / p_r`` (10 on the default card); None when cache reads are free."""
    if prices.cache_read == 0:
        return None
    return Fraction(prices.input) / Fraction(prices.cache_read)


def navigate_break_even(payload_tokens: TokenAmount, prices: Prices) -> Fraction | None:
    """Return the corpus size ``R * p_in / p_r`` below which inject is cheaper; None if p_r=0."""
    ratio = input_to_cache_read_ratio(prices)
    return None if ratio is None else _amount("payload_tokens", payload_tokens) * ratio


def navindex_break_even(index_tokens: TokenAmount, payload_tokens: TokenAmount,
                        prices: Prices) -> Fraction | None:
    """Return the corpus size ``I + S * p_in / p_r`` below which inject is cheaper."""
    ratio = input_to_cache_read_ratio(prices)
    if ratio is None:
        return None
    return _amount("index_tokens", index_tokens) + _amount("payload_tokens", payload_tokens) * ratio


def warm_inject_cost(corpus_tokens: TokenAmount, prices: Prices) -> Fraction:
    """Return inject's warm context dollars per question: ``C * p_r``."""
    return _amount("corpus_tokens", corpus_tokens) * _per_token(prices.cache_read)


def warm_navigate_cost(payload_tokens: TokenAmount, prices: Prices) -> Fraction:
    """Return a navigate mode's warm context dollars per question: ``R * p_in``."""
    return _amount("payload_tokens", payload_tokens) * _per_token(prices.input)


def warm_navindex_cost(index_tokens: TokenAmount, payload_tokens: TokenAmount,
                       prices: Prices) -> Fraction:
    """Return navindex's warm context dollars per question: ``I * p_r + S * p_in``."""
    return (_amount("index_tokens", index_tokens) * _per_token(prices.cache_read)
            + warm_navigate_cost(payload_tokens, prices))


@dataclass(frozen=True)
class CrossoverVerdict:
    """Which of inject and a navigate mode is cheaper for a measured corpus, and why. Its
    exact amounts are written as floats and read back as the exact values of those floats,
    so a verdict read from a file writes them back unchanged."""

    mode: str
    corpus_tokens: Annotated[Fraction, FLOAT_FRACTION]
    break_even_tokens: Annotated[Fraction, FLOAT_FRACTION] | None
    """Corpus size at which the warm costs are equal; None when cache reads are free."""
    inject_cost_usd: Annotated[Fraction, FLOAT_FRACTION]
    mode_cost_usd: Annotated[Fraction, FLOAT_FRACTION]
    cheaper: str
    """The baseline's name (``inject``), the mode's name, or ``"tie"`` when the warm costs
    are equal."""
    explanation: str


def _tokens(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:,}"
    return f"{float(value):,.1f}"


def _verdict(mode: str, corpus: Fraction, break_even: Fraction | None, formula: str,
             inject_cost: Fraction, mode_cost: Fraction, rates: str = "",
             context: str = "corpus") -> CrossoverVerdict:
    if not mode or mode in (BASELINE, TIE):
        raise ValueError(f"mode must name a navigate mode, got {mode!r}")
    # The verdict compares the costs themselves; for p_r > 0 this is the break-even rule.
    cheaper = BASELINE if inject_cost < mode_cost else mode if mode_cost < inject_cost else TIE
    if break_even is None:
        where = "no finite break-even (cache reads are free)"
    else:
        side = "below" if corpus < break_even else "above" if corpus > break_even else "exactly at"
        where = (f"break-even corpus {formula} = {_tokens(break_even)} tokens; "
                 f"{context} {_tokens(corpus)} tokens is {side} it")
    outcome = "the two cost the same" if cheaper == TIE else f"{cheaper} is cheaper"
    at = f", at {rates}" if rates else ""
    explanation = (f"{mode} vs inject at warm steady state{at}: {where}, so {outcome} "
                   f"({mode} ${float(mode_cost):.4f} vs inject ${float(inject_cost):.4f} context "
                   f"input per question); caveat: {TTL_CAVEAT}.")
    return CrossoverVerdict(mode, corpus, break_even, inject_cost, mode_cost, cheaper, explanation)


def _ratio_text(prices: Prices) -> str:
    ratio = input_to_cache_read_ratio(prices)
    return "" if ratio is None else _tokens(ratio)


def navigate_verdict(mode: str, corpus_tokens: TokenAmount, payload_tokens: TokenAmount,
                     prices: Prices, *, rates: str = "",
                     context: str = "corpus") -> CrossoverVerdict:
    """Decide inject vs a navigate mode with mean payload ``R`` for a corpus of ``C`` tokens
    (``rates`` names the prices when they are not the card's interactive ones)."""
    payload = _amount("payload_tokens", payload_tokens)
    return _verdict(mode, _amount("corpus_tokens", corpus_tokens),
                    navigate_break_even(payload, prices),
                    f"{_ratio_text(prices)} x payload {_tokens(payload)}",
                    warm_inject_cost(corpus_tokens, prices),
                    warm_navigate_cost(payload, prices), rates, context)


def navindex_verdict(corpus_tokens: TokenAmount, index_tokens: TokenAmount,
                     payload_tokens: TokenAmount, prices: Prices, mode: str, *,
                     rates: str = "", context: str = "corpus") -> CrossoverVerdict:
    """Decide inject vs a mode that scans a cached index ``I`` (navindex) and sends a mean
    provision payload ``S``."""
    index = _amount("index_tokens", index_tokens)
    payload = _amount("payload_tokens", payload_tokens)
    return _verdict(mode, _amount("corpus_tokens", corpus_tokens),
                    navindex_break_even(index, payload, prices),
                    f"index {_tokens(index)} + {_ratio_text(prices)} x payload {_tokens(payload)}",
                    warm_inject_cost(corpus_tokens, prices),
                    warm_navindex_cost(index, payload, prices), rates, context)


def warm_conversation_cost(uncached: TokenAmount, written: TokenAmount, read: TokenAmount,
                           prices: Prices) -> Fraction:
    """Return a conversation's context dollars per question: ``U*p_in + W*p_w + Rd*p_r``."""
    return (_amount("uncached", uncached) * _per_token(prices.input)
            + _amount("written", written) * _per_token(prices.cache_write)
            + _amount("read", read) * _per_token(prices.cache_read))


def conversation_verdict(mode: str, corpus_tokens: TokenAmount, uncached: TokenAmount,
                         written: TokenAmount, read: TokenAmount,
                         prices: Prices, *, rates: str = "",
                         context: str = "corpus") -> CrossoverVerdict:
    """Decide inject vs a mode whose turns all read context (navagent), from the mean input
    per question its calls attended: uncached, cache-written and cache-read tokens."""
    cost = warm_conversation_cost(uncached, written, read, prices)
    break_even = (None if prices.cache_read == 0
                  else cost / _per_token(prices.cache_read))
    formula = (f"(all turns' input per question, priced: "
               f"{_tokens(_amount('uncached', uncached))} uncached, "
               f"{_tokens(_amount('written', written))} cache-written, "
               f"{_tokens(_amount('read', read))} cache-read tokens) / cache-read price")
    return _verdict(mode, _amount("corpus_tokens", corpus_tokens), break_even, formula,
                    warm_inject_cost(corpus_tokens, prices), cost, rates, context)


def navigate_payload_ceiling(corpus_tokens: TokenAmount, prices: Prices) -> Fraction | None:
    """Return the largest payload ``C * p_r / p_in`` at which a navigate mode still ties inject.

    The inverse of ``navigate_break_even`` for a measured corpus: a mode whose mean payload
    stays below it is cheaper than cached inject at warm steady state. None when p_in = 0.
    """
    if prices.input == 0:
        return None
    ratio = Fraction(prices.cache_read) / Fraction(prices.input)
    return _amount("corpus_tokens", corpus_tokens) * ratio


def navindex_payload_ceiling(corpus_tokens: TokenAmount, index_tokens: TokenAmount,
                             prices: Prices) -> Fraction | None:
    """Return the largest provision payload ``(C - I) * p_r / p_in`` at which navindex ties.

    Negative when the cached index alone costs more than the cached corpus: navindex then
    loses at warm steady state whatever it fetches. None when p_in = 0.
    """
    if prices.input == 0:
        return None
    remaining = _amount("corpus_tokens", corpus_tokens) - _amount("index_tokens", index_tokens)
    return remaining * Fraction(prices.cache_read) / Fraction(prices.input)


def ceiling_lines(corpus_tokens: int, index_tokens: int, prices: Prices) -> list[str]:
    """Say, for a measured corpus and index, what payloads beat cached inject (SPEC §7)."""
    navigate = navigate_payload_ceiling(corpus_tokens, prices)
    navindex = navindex_payload_ceiling(corpus_tokens, index_tokens, prices)
    if navigate is None or navindex is None:
        return ["crossover: input tokens are free on this price card; no break-even exists"]
    first = (f"crossover at warm steady state (an input token costs {_ratio_text(prices)} cache "
             f"reads): on this corpus of {corpus_tokens:,} tokens a navigate mode beats cached "
             f"inject only with a payload under {_tokens(navigate)} tokens per question;")
    lines = [first]
    if navindex >= 0:
        lines.append(f"  navindex, with its cached index of {index_tokens:,} tokens, only with "
                     f"provisions under {_tokens(navindex)} tokens per question;")
    else:
        lines.append(f"  navindex cannot: its cached index ({index_tokens:,} tokens) already "
                     f"costs more per question than the cached corpus;")
    lines.append("  the 5-minute cache TTL voids this warm assumption for sessions spread "
                 "over time (cold calls pay cache writes).")
    return lines
