"""Faults the reference backend injects on request: a spec such as
``429:0.2,529:0.1,500:0.05,timeout:0.05,reset:0.05,short:0.02,malformed:0.02`` gives each
kind's rate, and the choice is a pure function of the seed, the request's bytes and how many
times those bytes were sent before, so a run under faults injects the same faults whatever
the order or the process its requests come from.

A fault replaces the answer before the request is handled, so the emulated prompt cache
never sees a request the client did not get an answer to; the retry then gets the answer
the first attempt would have had. No request is faulted more than ``max_per_request`` times
in a row, fewer than the client's attempts, so retries absorb every injected fault.

Batch faults (``BATCH_FAULT_KINDS``) act on the Message Batches endpoints: a request of a batch
ends ``errored`` (an ``api_error``, worth resubmitting) or ``expired``, drawn per request the same
way (seed, the request's bytes, how often they were faulted before); a batch ends late
(``late:SECONDS`` after it would have), drawn per batch from the bytes of its create body.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

#: Every kind of fault, in the order a spec's rates are laid out on [0, 1).
FAULT_KINDS = ("429", "529", "500", "timeout", "reset", "short", "malformed", "bad-text",
               "bad-block")
#: Kinds the client is expected to retry; the others are answers it must refuse.
RETRIED_KINDS = frozenset(FAULT_KINDS) - {"bad-text", "bad-block"}
#: Faults of one request inside a message batch, in the order their rates are laid out.
BATCH_REQUEST_KINDS = ("batch-errored", "batch-expired")
#: A whole batch that ends ``late_s`` seconds after its processing delay.
BATCH_LATE = "batch-late"
#: Every batch fault kind.
BATCH_FAULT_KINDS = (*BATCH_REQUEST_KINDS, BATCH_LATE)
_OPTIONS = ("seed", "max", "stall", "late")


class FaultSpecError(ValueError):
    """A fault spec that cannot be read; the message says which part and why."""


@dataclass(frozen=True)
class FaultPlan:
    """Which faults to inject and how often (rates add up to at most 1)."""

    rates: tuple[tuple[str, float], ...]
    seed: int = 0
    max_per_request: int = 3
    stall_s: float = 12.0
    """How long a ``timeout`` fault holds the connection before closing it unanswered."""
    batch_rates: tuple[tuple[str, float], ...] = ()
    """Rates of the batch faults (``BATCH_FAULT_KINDS``)."""
    late_s: float = 5.0
    """How much later than its processing delay a ``batch-late`` batch ends."""

    def __post_init__(self) -> None:
        total = sum(rate for _, rate in self.rates)
        if total > 1.0 + 1e-9:
            raise FaultSpecError(f"fault rates add up to {total:g}, more than 1")
        unknown = [kind for kind, _ in self.batch_rates if kind not in BATCH_FAULT_KINDS]
        if unknown:
            raise FaultSpecError(f"unknown batch fault {unknown[0]!r}; choose from "
                                 f"{', '.join(BATCH_FAULT_KINDS)}")
        per_request = sum(rate for kind, rate in self.batch_rates if kind in BATCH_REQUEST_KINDS)
        if per_request > 1.0 + 1e-9:
            raise FaultSpecError(f"batch request fault rates add up to {per_request:g}, "
                                 f"more than 1")
        if not self.late_s >= 0:
            raise FaultSpecError(f"late must be a number of seconds >= 0, got {self.late_s}")
        if self.max_per_request < 1:
            raise FaultSpecError(f"max_per_request must be at least 1, got "
                                 f"{self.max_per_request}")

    @property
    def client_timeout_s(self) -> float:
        """A client read timeout that a ``timeout`` fault's stall outlasts."""
        return self.stall_s / 2

    def choose(self, body: bytes, sent_before: int) -> str | None:
        """The fault for the ``sent_before``-th resend of ``body`` (0 for its first send)."""
        return self._draw(self.rates, "", body, sent_before)

    def choose_batch(self, body: bytes, sent_before: int) -> str | None:
        """The batch fault (``BATCH_REQUEST_KINDS``) of the ``sent_before``-th submission of a
        batch request whose params serialise to ``body``."""
        rates = tuple((k, r) for k, r in self.batch_rates if k in BATCH_REQUEST_KINDS)
        return self._draw(rates, "batch:", body, sent_before)

    def is_late(self, body: bytes, sent_before: int) -> bool:
        """Whether the batch created from ``body`` (its ``sent_before``-th time) ends late."""
        rates = tuple((k, r) for k, r in self.batch_rates if k == BATCH_LATE)
        return self._draw(rates, "late:", body, sent_before) is not None

    def _draw(self, rates: tuple[tuple[str, float], ...], salt: str, body: bytes,
              sent_before: int) -> str | None:
        if sent_before >= self.max_per_request or not rates:
            return None
        key = hashlib.sha256(f"{salt}{self.seed}:{sent_before}:".encode() + body).digest()
        draw = int.from_bytes(key[:8], "big") / 2.0 ** 64
        edge = 0.0
        for kind, rate in rates:
            edge += rate
            if draw < edge:
                return kind
        return None


def parse_faults(spec: str) -> FaultPlan:
    """Read ``KIND:RATE,...`` (and ``seed:N``, ``max:N``, ``stall:SECONDS``, ``late:SECONDS``)."""
    rates: dict[str, float] = {}
    options: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kind, sep, value = part.partition(":")
        if not sep:
            raise FaultSpecError(f"{part!r}: expected KIND:RATE")
        try:
            number = float(value)
        except ValueError:
            raise FaultSpecError(f"{part!r}: {value!r} is not a number") from None
        if kind in _OPTIONS:
            options[kind] = number
            continue
        if kind not in FAULT_KINDS and kind not in BATCH_FAULT_KINDS:
            raise FaultSpecError(f"{part!r}: unknown fault {kind!r}; choose from "
                                 f"{', '.join((*FAULT_KINDS, *BATCH_FAULT_KINDS))}")
        if not 0.0 <= number <= 1.0:
            raise FaultSpecError(f"{part!r}: a rate is between 0 and 1")
        if kind in rates:
            raise FaultSpecError(f"{part!r}: {kind} is given twice")
        rates[kind] = number
    if not rates:
        raise FaultSpecError(f"{spec!r}: no fault named (e.g. 429:0.2,timeout:0.05)")
    return FaultPlan(tuple((kind, rates[kind]) for kind in FAULT_KINDS if kind in rates),
                     seed=int(options.get("seed", 0)),
                     max_per_request=int(options.get("max", 3)),
                     stall_s=float(options.get("stall", 12.0)),
                     batch_rates=tuple((kind, rates[kind]) for kind in BATCH_FAULT_KINDS
                                       if kind in rates),
                     late_s=float(options.get("late", 5.0)))


class FaultLog:
    """How often each request was sent and what was injected (thread-safe)."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self._sent: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self._lock = threading.Lock()

    def next_fault(self, path: str, body: bytes) -> str | None:
        """The fault this request gets (counted), or None to answer it."""
        key = path.encode() + b"\0" + body
        return self._next(key, lambda sent: self.plan.choose(key, sent))

    def next_batch_fault(self, body: bytes) -> str | None:
        """The fault a batch request whose params serialise to ``body`` gets (counted), or
        None to answer it."""
        return self._next(b"batch\0" + body, lambda sent: self.plan.choose_batch(body, sent))

    def next_batch_is_late(self, body: bytes) -> bool:
        """Whether the batch created from ``body`` ends late (counted)."""
        late = self._next(b"late\0" + body,
                          lambda sent: BATCH_LATE if self.plan.is_late(body, sent) else None)
        return late is not None

    def _next(self, key: bytes, choose: Callable[[int], str | None]) -> str | None:
        """Draw with how often ``key`` was faulted in a row before, and count the draw."""
        digest = hashlib.sha256(key).hexdigest()
        with self._lock:
            sent_before = self._sent[digest]
            fault = choose(sent_before)
            # A request answered starts over: the same bytes sent later (a new question
            # repeating a prompt) are drawn afresh.
            self._sent[digest] = sent_before + 1 if fault is not None else 0
            if fault is not None:
                self.injected[fault] += 1
        return fault
