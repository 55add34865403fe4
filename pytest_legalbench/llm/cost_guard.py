"""A run's spending limit: before each model call, what was spent plus what the call could
cost at most is checked against the limit, so a run stops before a call would exceed it.

A call's most is its whole prompt as uncached input plus ``max_tokens`` of output, at the
price card's rates for its model. What was spent is the priced usage of every call made,
summed across the run's processes through one file (xdist workers share a limit).
"""

from __future__ import annotations

import fcntl
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import PriceCard, format_usd, price, price_call
from pytest_legalbench.tokens import estimate_tokens

#: What the summary and the stopped items say.
STOPPED = "stopped at cost limit"


class CostLimitReached(RuntimeError):
    """The next model call could take the run past its spending limit."""

    def __init__(self, limit: Decimal, spent: Decimal, most: Decimal, stage: str) -> None:
        super().__init__(f"{STOPPED} {format_usd(limit)}: {format_usd(spent)} spent, and the "
                         f"next call ({stage}) could cost up to {format_usd(most)}")


class PlanOverLimit(RuntimeError):
    """A run's plan costs more than its spending limit: nothing was called (the message is
    the reason, then the plan; ``run.cost_plan.over_limit``)."""


class SpendMeter:
    """Dollars spent, kept in one file shared by every process of a run (or in memory)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._spent = Decimal(0)
        self._lock = threading.Lock()

    def add(self, amount: Decimal) -> None:
        """Add ``amount`` to what was spent."""
        with self._lock:
            if self.path is None:
                self._spent += amount
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a+", encoding="utf-8") as handle:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                handle.seek(0)
                spent = Decimal(handle.read().strip() or "0") + amount
                handle.seek(0)
                handle.truncate()
                handle.write(str(spent))

    def total(self) -> Decimal:
        """What was spent so far."""
        with self._lock:
            if self.path is None:
                return self._spent
            try:
                with open(self.path, encoding="utf-8") as handle:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
                    return Decimal(handle.read().strip() or "0")
            except FileNotFoundError:
                return Decimal(0)


@dataclass(frozen=True)
class CostGuard:
    """Stops calls that could take spending past ``limit`` dollars."""

    limit: Decimal
    card: PriceCard
    meter: SpendMeter

    def before(self, stage: str, model: str, params: Mapping[str, object]) -> None:
        """Raise CostLimitReached when this call's most would take spending past the limit."""
        most = self._most(model, params, batch=False)
        spent = self.meter.total()
        if spent + most > self.limit:
            raise CostLimitReached(self.limit, spent, most, stage)

    def before_batch(self, requests: Sequence[Mapping[str, object]], what: str) -> None:
        """Raise CostLimitReached when the most a batch of ``requests`` (Messages params, the
        model among them) could cost at the batch rates would take spending past the limit."""
        most = sum((self._most(str(params.get("model")), params, batch=True)
                    for params in requests), Decimal(0))
        spent = self.meter.total()
        if spent + most > self.limit:
            raise CostLimitReached(self.limit, spent, most, what)

    def _most(self, model: str, params: Mapping[str, object], *, batch: bool) -> Decimal:
        """A call's whole prompt as uncached input plus ``max_tokens`` of output, priced."""
        prompt = json.dumps({k: params.get(k) for k in ("system", "messages", "tools")},
                            default=str)
        max_tokens = params.get("max_tokens")
        return price(Usage(input_tokens=estimate_tokens(prompt),
                           output_tokens=max_tokens if isinstance(max_tokens, int) else 0),
                     self.card, model, batch=batch).total

    def after(self, call: Call) -> None:
        """Count what a finished call cost."""
        self.meter.add(price_call(call, self.card).total)
