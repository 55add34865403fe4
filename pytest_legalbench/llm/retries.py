"""When a failed model call is tried again, and how long to wait first.

Exponential backoff with full jitter, a server's ``retry-after`` honoured up to the cap, and two
bounds: the number of attempts and the total time spent (attempts plus waits).
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping
from dataclasses import dataclass

#: Statuses worth another try: timeouts, rate limits, overload and transient server faults.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})


def parse_retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds the server asks us to wait (retry-after-ms, retry-after seconds or date), or None."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            parsed = email.utils.parsedate_tz(raw) if name == "retry-after" else None
            try:
                seconds = email.utils.mktime_tz(parsed) - now if parsed else math.nan
            except (OverflowError, ValueError):
                seconds = math.nan  # an absurd date is no instruction at all
        if not math.isnan(seconds):  # NaN would poison every later comparison
            return max(0.0, seconds)
    return None


@dataclass(frozen=True)
class RetryPolicy:
    """The bounds and backoff of our retry loop (the SDK's own retries stay off)."""

    max_attempts: int = 5
    budget_s: float = 300.0
    base_s: float = 1.0
    cap_s: float = 30.0

    def delay(self, retry: int, draw: float, retry_after: float | None) -> float:
        """Wait before retry number ``retry`` (0-based); ``draw`` is uniform in [0, 1)."""
        if retry_after is not None:
            return min(retry_after, self.cap_s)
        return draw * min(self.cap_s, self.base_s * 2.0 ** min(retry, 64))

    def give_up(self, attempt: int, spent_after_delay_s: float, message: str) -> str | None:
        """Why a retryable failure on ``attempt`` (1-based) ends the call, or None to go on."""
        if attempt >= self.max_attempts:
            return f"gave up after {attempt} attempts: {message}"
        if spent_after_delay_s > self.budget_s:
            return (f"gave up after {attempt} attempts, the retry budget of {self.budget_s:g} s "
                    f"would be exceeded: {message}")
        return None
