"""The prompt-cache lifetime a batch run asks for: one hour where it pays, else the default.

The product marks for caching only prefixes that many requests share: inject's corpus, read
by every question's answer, and the index a navindex or titles scan reads. Interactively the
requests of a run follow one another within minutes, and the 5-minute entry is read back.
A message batch processes its requests in no set order over up to 24 hours (most batches
within one), with cache hits on a best-effort basis, so a 5-minute entry expires between
requests that share it and is written again at the write price.

A 1-hour write costs ``p_w1h - p_w`` more than a 5-minute one, once; every 5-minute rewrite it
avoids saves ``p_w - p_r`` (the rewrite instead of a read). It pays as soon as the expected
number of rewrites exceeds ``(p_w1h - p_w) / (p_w - p_r)``: 0.65 on the default card
(``(6.00 - 3.75) / (3.75 - 0.30)``; the batch discount scales both sides alike). So a batch run
asks for the hour when two or more requests share the prefix (a prefix read once is never
rewritten) and the server's batches can outlast 5 minutes. The embedded reference backend
answers a batch's requests back to back, within a second, so there it never pays, and its
batch runs send exactly the requests an interactive run sends.
"""

from __future__ import annotations

from fractions import Fraction

from pytest_legalbench.llm.pricing import Prices

#: The lifetime a batch run asks for where it pays.
ONE_HOUR = "1h"


def rewrites_to_pay(prices: Prices) -> Fraction | None:
    """The expected 5-minute rewrites above which the 1-hour write pays; None when a rewrite
    costs no more than a read."""
    saved = Fraction(prices.cache_write) - Fraction(prices.cache_read)
    if saved <= 0:
        return None
    return (Fraction(prices.one_hour_write) - Fraction(prices.cache_write)) / saved


def batch_cache_ttl(*, backend: str, sharing: int) -> str | None:
    """The lifetime a batch run's cache marks ask for: ``1h`` when ``sharing`` (the
    questions whose requests share the cached prefixes) is two or more and ``backend`` is a
    server whose batches can outlast 5 minutes (any but the embedded reference backend);
    None (the 5-minute default) otherwise."""
    if backend == "reference" or sharing < 2:
        return None
    return ONE_HOUR
