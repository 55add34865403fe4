"""How many questions a comparison needs, and the smallest difference a run of n can detect.

Both designs use the normal approximation, two-sided at level ``alpha``, for a difference
``effect`` between two arms' success rates:

- **paired** (both arms answer the same questions, compared by McNemar's test): only the
  discordance ``psi`` (the share of questions on which the arms disagree) matters besides the
  effect. Connor (1987, "Sample size for testing differences in proportions for the
  paired-sample design", Biometrics 43:207-211):

      n = (z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - effect^2))^2 / effect^2

  An effect larger than the discordance is impossible (|b - c| <= b + c).
- **unpaired** (each arm answers its own questions): the classic formula without continuity
  correction (Fleiss; what R's ``power.prop.test`` solves), with p1 = ``rate`` and p2 the rate
  moved by ``effect`` towards one half (upwards from exactly one half), the side that needs
  more questions:

      n = (z_{1-alpha/2} sqrt(2 pbar (1 - pbar)) + z_{power} sqrt(p1 q1 + p2 q2))^2 / effect^2

  per arm, with pbar = (p1 + p2) / 2.

The minimum detectable effect at n is the effect for which n questions give the asked-for
power: the root of the formula above, found by bisection (the needed n falls as the effect
grows). Pairing helps exactly when the arms agree on most questions: at a 15% discordance a
5-point difference needs about 470 paired questions against about 1,380 per arm unpaired.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import NormalDist

from pytest_legalbench.files.record_json import derived

#: The conventional design: a two-sided test at 5% with 80% power.
ALPHA = 0.05
POWER = 0.8
#: Bisection steps for a minimum detectable effect: 2^-60 of the unit interval is far below
#: any difference a benchmark can report.
_BISECTION_STEPS = 60


@derived(rate="rate", effect="effect")
@dataclass(frozen=True)
class Discordance:
    """How often two arms disagreed on the same questions (written with its rate and the
    observed effect)."""

    n: int
    first_only: int
    second_only: int

    @property
    def rate(self) -> float:
        """(b + c) / n: the share of questions on which the arms disagree (0.0 with none)."""
        return (self.first_only + self.second_only) / self.n if self.n else 0.0

    @property
    def effect(self) -> float:
        """(b - c) / n: the observed difference of the two arms' rates."""
        return (self.first_only - self.second_only) / self.n if self.n else 0.0


def observed_discordance(pairs: Iterable[tuple[bool, bool]]) -> Discordance:
    """Count how often two arms disagree over (first right, second right) pairs."""
    n = first_only = second_only = 0
    for position, pair in enumerate(pairs):
        first, second = pair
        if not isinstance(first, bool) or not isinstance(second, bool):
            raise TypeError(f"pair {position}: expected two booleans, got {pair!r}")
        n += 1
        first_only += first and not second
        second_only += second and not first
    return Discordance(n=n, first_only=first_only, second_only=second_only)


def _check_share(name: str, value: float, *, low_open: bool = True,
                 high_open: bool = True) -> None:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {value!r}")
    above = value > 0.0 if low_open else value >= 0.0
    below = value < 1.0 if high_open else value <= 1.0
    if not (above and below):
        low, high = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {low}0, 1{high}, got {value}")


def _z_values(alpha: float, power: float) -> tuple[float, float]:
    _check_share("alpha", alpha)
    _check_share("power", power)
    normal = NormalDist()
    return -normal.inv_cdf(alpha / 2.0), normal.inv_cdf(power)


def _check_questions(n: int) -> None:
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"n must be an integer, got {n!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")


def paired_questions_exact(effect: float, discordance: float, *, alpha: float = ALPHA,
                           power: float = POWER) -> float:
    """Connor's paired sample size before rounding up."""
    _check_share("effect", effect, high_open=False)
    _check_share("discordance", discordance, high_open=False)
    if effect > discordance:
        raise ValueError(f"effect {effect} exceeds the discordance {discordance}: two arms "
                         f"cannot differ on more questions than they disagree on")
    z_alpha, z_power = _z_values(alpha, power)
    spread = math.sqrt(max(0.0, discordance - effect * effect))
    return ((z_alpha * math.sqrt(discordance) + z_power * spread) / effect) ** 2


def paired_questions(effect: float, discordance: float, *, alpha: float = ALPHA,
                     power: float = POWER) -> int:
    """Questions needed to detect ``effect`` between two arms answering the same questions."""
    return math.ceil(paired_questions_exact(effect, discordance, alpha=alpha, power=power))


def paired_power(n: int, effect: float, discordance: float, *, alpha: float = ALPHA) -> float:
    """Power of the paired comparison on n questions (Connor's normal approximation)."""
    _check_questions(n)
    _check_share("effect", effect, high_open=False)
    _check_share("discordance", discordance, high_open=False)
    if effect > discordance:
        raise ValueError(f"effect {effect} exceeds the discordance {discordance}")
    z_alpha, _ = _z_values(alpha, POWER)
    spread = math.sqrt(discordance - effect * effect)
    if spread == 0.0:
        # Every question is discordant and favours one arm (effect = discordance = 1).
        return 1.0
    return NormalDist().cdf((effect * math.sqrt(n) - z_alpha * math.sqrt(discordance)) / spread)


def _second_rate(rate: float, effect: float) -> float:
    """The rate ``effect`` away from ``rate``, towards one half (upwards from one half)."""
    return rate + effect if rate <= 0.5 else rate - effect


def unpaired_questions_exact(effect: float, rate: float, *, alpha: float = ALPHA,
                             power: float = POWER) -> float:
    """The unpaired per-arm sample size before rounding up."""
    _check_share("rate", rate)
    _check_share("effect", effect)
    second = _second_rate(rate, effect)
    if not 0.0 < second < 1.0:
        raise ValueError(f"rate {rate} moved by effect {effect} leaves (0, 1)")
    z_alpha, z_power = _z_values(alpha, power)
    pooled = (rate + second) / 2.0
    null_spread = math.sqrt(2.0 * pooled * (1.0 - pooled))
    spread = math.sqrt(rate * (1.0 - rate) + second * (1.0 - second))
    return ((z_alpha * null_spread + z_power * spread) / effect) ** 2


def unpaired_questions(effect: float, rate: float, *, alpha: float = ALPHA,
                       power: float = POWER) -> int:
    """Questions per arm needed to detect ``effect`` from ``rate`` with independent arms."""
    return math.ceil(unpaired_questions_exact(effect, rate, alpha=alpha, power=power))


def unpaired_power(n: int, first: float, second: float, *, alpha: float = ALPHA) -> float:
    """Power of the unpaired comparison of two rates with n questions per arm."""
    _check_questions(n)
    _check_share("first", first)
    _check_share("second", second)
    z_alpha, _ = _z_values(alpha, POWER)
    pooled = (first + second) / 2.0
    null_spread = math.sqrt(2.0 * pooled * (1.0 - pooled))
    spread = math.sqrt(first * (1.0 - first) + second * (1.0 - second))
    return NormalDist().cdf((abs(first - second) * math.sqrt(n) - z_alpha * null_spread)
                            / spread)


def _smallest_effect(needed: Callable[[float], float], high: float,
                     questions: float) -> float | None:
    """The effect in (0, high] at which ``needed(effect)`` falls to ``questions``, by bisection
    (``needed`` falls as the effect grows)."""
    if needed(high) > questions:
        return None
    low = 0.0
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2.0
        if needed(middle) > questions:
            low = middle
        else:
            high = middle
    return high


def paired_minimum_detectable_effect(n: int, discordance: float, *, alpha: float = ALPHA,
                                     power: float = POWER) -> float | None:
    """The smallest paired difference n questions detect; None when even an effect equal to
    the discordance needs more (or the arms never disagree)."""
    _check_questions(n)
    _check_share("discordance", discordance, low_open=False, high_open=False)
    if discordance == 0.0:
        # Arms that never disagree cannot be told apart at any n.
        return None

    def needed(effect: float) -> float:
        return paired_questions_exact(effect, discordance, alpha=alpha, power=power)

    return _smallest_effect(needed, discordance, n)


def unpaired_minimum_detectable_effect(n: int, rate: float, *, alpha: float = ALPHA,
                                       power: float = POWER) -> float | None:
    """The smallest difference from ``rate`` that n questions per arm detect; None when even
    the largest possible move needs more."""
    _check_questions(n)
    _check_share("rate", rate)
    # The move towards one half may go almost as far as the far bound of the unit interval.
    high = (1.0 - rate if rate <= 0.5 else rate) * (1.0 - 1e-9)

    def needed(effect: float) -> float:
        return unpaired_questions_exact(effect, rate, alpha=alpha, power=power)

    return _smallest_effect(needed, high, n)
