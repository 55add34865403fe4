"""Exact binomial statistics for benchmark rates (SPEC §8): intervals and two-sided tests.

Every function is pure and validates its arguments, raising ``ValueError`` for a bad value and
``TypeError`` for a non-number, naming the argument. The degenerate cases are fixed by
definition rather than left to numerical routines: no trials give the whole unit interval and a
p-value of 1, zero successes pin the lower bound to 0 and all successes pin the upper bound to 1.

scipy supplies the beta quantiles for Clopper-Pearson: ``scipy.special``'s inverse regularised
incomplete beta functions, which ``scipy.stats.beta`` calls for its own quantiles. They are
imported on first use, and from ``scipy.special`` alone: importing ``scipy.stats`` takes one and
a half seconds more, paid at the end of every benchmark session.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any


@dataclass(frozen=True)
class Interval:
    """A closed interval inside [0, 1]."""

    low: float
    high: float


@dataclass(frozen=True)
class Rate:
    """``k`` of ``n``, its share and its Clopper-Pearson interval."""

    k: int
    n: int
    share: float
    interval: Interval


#: Relative slack under which an outcome counts as exactly as likely as the observed one, so
#: that outcomes tied in exact arithmetic (k and n - k at p = 0.5) stay tied despite rounding.
TIE_TOLERANCE = 1e-7

#: The whole unit interval: what an empty sample says about a proportion.
UNIT = Interval(0.0, 1.0)


def _check_count(name: str, value: int) -> None:
    # bool is an int subclass, but True as a count is a caller's mistake, not 1.
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")


def _check_counts(k: int, n: int) -> None:
    _check_count("n", n)
    _check_count("k", k)
    if k > n:
        raise ValueError(f"k must not exceed n, got k={k}, n={n}")


def _check_probability(name: str, value: float, *, closed: bool) -> None:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {value!r}")
    # Negated range tests, so that NaN is rejected too.
    if closed and not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    if not closed and not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value}")


def _scipy_special() -> Any:
    import scipy.special  # type: ignore[import-untyped]

    return scipy.special


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> Interval:
    """Exact two-sided Clopper-Pearson interval for ``k`` successes in ``n`` trials."""
    _check_counts(k, n)
    _check_probability("confidence", confidence, closed=False)
    if n == 0:
        return UNIT
    special = _scipy_special()
    tail = (1.0 - confidence) / 2.0
    low = 0.0 if k == 0 else _clamp(float(special.betaincinv(k, n - k + 1, tail)))
    # The complemented inverse takes the upper tail as given: 1.0 - tail would round to 1.0
    # for confidences within about 1e-16 of 1.
    high = 1.0 if k == n else _clamp(float(special.betainccinv(k + 1, n - k, tail)))
    return Interval(low, high)


def wilson(k: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for ``k`` successes in ``n`` trials."""
    _check_counts(k, n)
    _check_probability("confidence", confidence, closed=False)
    if n == 0:
        return UNIT
    # The lower quantile keeps z finite when confidence is so close to 1 that 1 - tail rounds
    # to 1.0.
    z = -NormalDist().inv_cdf((1.0 - confidence) / 2.0)
    share = k / n
    z2_n = z * z / n
    centre = (share + z2_n / 2.0) / (1.0 + z2_n)
    half = z / (1.0 + z2_n) * math.sqrt(share * (1.0 - share) / n + z2_n / (4.0 * n))
    # At k == 0 and k == n the bound equals the boundary exactly; rounding must not move it.
    low = 0.0 if k == 0 else _clamp(centre - half)
    high = 1.0 if k == n else _clamp(centre + half)
    return Interval(low, high)


def _log_pmf(i: int, n: int, p: float) -> float:
    """Natural log of the Binomial(n, p) probability of ``i``, for 0 < p < 1."""
    log_choose = math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
    return log_choose + i * math.log(p) + (n - i) * math.log1p(-p)


def binomial_test(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial p-value: the mass of outcomes no likelier than ``k``."""
    _check_counts(k, n)
    _check_probability("p", p, closed=True)
    if n == 0:
        return 1.0
    # With p at 0 or 1 one outcome is certain and every other one impossible.
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    # Worked in log space, which neither overflows for large n nor underflows for tiny p.
    # Dividing by the summed mass of all outcomes cancels the rounding of the log terms, so a
    # sum over every outcome is exactly 1.0.
    logs = [_log_pmf(i, n, p) for i in range(n + 1)]
    limit = logs[k] + math.log1p(TIE_TOLERANCE)
    included = math.fsum(math.exp(value) for value in logs if value <= limit)
    excluded = math.fsum(math.exp(value) for value in logs if value > limit)
    return included / (included + excluded)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p-value on the discordant pair counts ``b`` and ``c``."""
    _check_count("b", b)
    _check_count("c", c)
    return binomial_test(min(b, c), b + c, 0.5)


def rate(k: int, n: int, confidence: float = 0.95) -> Rate:
    """``k`` of ``n`` with its share (0.0 when ``n`` is 0) and Clopper-Pearson interval."""
    interval = clopper_pearson(k, n, confidence)
    return Rate(k=k, n=n, share=k / n if n else 0.0, interval=interval)
