"""The record of every model call: its stage, model, token usage and latency."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_legalbench.llm.tool_events import LedgerFormatError, ToolEvent

# The error and the tool event live beside each other in tool_events; readers of the ledger
# import them from here.
__all__ = ["USAGE_FIELDS", "Call", "Ledger", "LedgerFormatError", "ToolEvent", "Usage",
           "sum_usage"]

#: The four usage counts, under the names the Messages API reports them.
USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens",
)

_CALL_FIELDS = frozenset(
    {"stage", "model", "usage", "latency_s", "backend", "question_id", "valid", "server",
     "unreported", "raw_output", "retries", "tool_results", "batch"})
#: Usage fields a server may leave out of its responses.
_OPTIONAL_USAGE = frozenset({"cache_creation_input_tokens", "cache_read_input_tokens"})


def _count(data: Mapping[str, object], name: str) -> int:
    value = data.get(name)
    if value is None:
        # The SDK reports absent cache counts as None: nothing was written or read.
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LedgerFormatError(f"usage field {name!r} must be a non-negative integer, "
                                f"got {value!r}")
    return value


@dataclass(frozen=True)
class Usage:
    """Token counts of one call or a sum of calls; all counts are non-negative integers."""

    input_tokens: int = 0
    """Uncached input."""
    cache_creation_input_tokens: int = 0
    """Input written to the prompt cache."""
    cache_read_input_tokens: int = 0
    """Input read from the prompt cache."""
    output_tokens: int = 0
    cache_write_1h_tokens: int = 0
    """The part of the cache write with the 1-hour TTL (``cache_creation.
    ephemeral_1h_input_tokens``), priced at its own rate; the rest has the 5-minute TTL."""

    def __post_init__(self) -> None:
        for name in (*USAGE_FIELDS, "cache_write_1h_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise LedgerFormatError(f"usage field {name!r} must be a non-negative "
                                        f"integer, got {value!r}")
        if self.cache_write_1h_tokens > self.cache_creation_input_tokens:
            raise LedgerFormatError(f"usage: {self.cache_write_1h_tokens} 1-hour cache write "
                                    f"tokens exceed the {self.cache_creation_input_tokens} "
                                    f"cache write tokens they are part of")

    def __add__(self, other: Usage) -> Usage:
        """Return the field-wise sum of two usages."""
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(*(getattr(self, n) + getattr(other, n)
                       for n in (*USAGE_FIELDS, "cache_write_1h_tokens")))

    @property
    def footprint(self) -> int:
        """All input attended: uncached input + cache write + cache read."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def to_dict(self) -> dict[str, object]:
        """Return the four counts under their Messages API names (and, when there were any,
        the 1-hour cache writes as the API nests them)."""
        found: dict[str, object] = {name: getattr(self, name) for name in USAGE_FIELDS}
        if self.cache_write_1h_tokens:
            found["cache_creation"] = {"ephemeral_1h_input_tokens": self.cache_write_1h_tokens}
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Usage:
        """Read the four counts and ``cache_creation.ephemeral_1h_input_tokens``; None or
        absent means 0, other keys (SDK extras) are ignored."""
        if not isinstance(data, Mapping):
            raise LedgerFormatError(f"usage must be a mapping, got {type(data).__name__}")
        nested = data.get("cache_creation")
        one_hour = (_count(nested, "ephemeral_1h_input_tokens")
                    if isinstance(nested, Mapping) else 0)
        counts = {name: _count(data, name) for name in USAGE_FIELDS}
        return cls(**counts, cache_write_1h_tokens=one_hour)


def sum_usage(usages: Iterable[Usage]) -> Usage:
    """Return the sum of ``usages``; the empty sum is the zero usage."""
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


def _text(data: Mapping[str, object], name: str, *, optional: bool = False) -> str | None:
    value = data.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise LedgerFormatError(f"call field {name!r} must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class Call:
    """One model call as the ledger records it."""

    stage: str
    """What the call was for: ``inject.answer``, ``navindex.scan``, ``judge.forward``, ..."""
    model: str
    """The model the response reports."""
    usage: Usage
    latency_s: float
    backend: str
    """``reference``, ``anthropic``, or ``messages-api at HOST`` for another server."""
    question_id: str | None = None
    valid: bool = True
    """False when a structured output did not conform and was recorded as invalid."""
    server: str | None = None
    """The kind of a third-party server (``llama.cpp``, ``generic``, ...); None otherwise."""
    unreported: tuple[str, ...] = ()
    """Usage fields the response left out: their zeros in ``usage`` were not measured."""
    raw_output: str | None = None
    """What the model sent when a structured output was invalid, kept as it came."""
    retries: tuple[str, ...] = ()
    """The failures retried before the call got its answer (``HTTP 429``, ``timeout``, ...)."""
    tool_results: tuple[ToolEvent, ...] = ()
    """The tool results this call's request carried (a turn of a tool-using conversation)."""
    batch: bool = False
    """Whether the call went through the Message Batches API (priced at the card's batch
    rates)."""

    def __post_init__(self) -> None:
        for name in ("stage", "model", "backend"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise LedgerFormatError(f"call field {name!r} must be a non-empty string, "
                                        f"got {value!r}")
        if self.question_id is not None and (not isinstance(self.question_id, str)
                                             or not self.question_id):
            raise LedgerFormatError(f"call field 'question_id' must be None or a non-empty "
                                    f"string, got {self.question_id!r}")
        if self.server is not None and (not isinstance(self.server, str) or not self.server):
            raise LedgerFormatError(f"call field 'server' must be None or a non-empty string, "
                                    f"got {self.server!r}")
        if not isinstance(self.unreported, tuple) or not set(self.unreported) <= _OPTIONAL_USAGE:
            raise LedgerFormatError(f"call field 'unreported' must list cache usage fields, "
                                    f"got {self.unreported!r}")
        if not isinstance(self.retries, tuple) or not all(isinstance(r, str)
                                                          for r in self.retries):
            raise LedgerFormatError(f"call field 'retries' must be a tuple of failure names, "
                                    f"got {self.retries!r}")
        if self.raw_output is not None and not isinstance(self.raw_output, str):
            raise LedgerFormatError(f"call field 'raw_output' must be None or a string, "
                                    f"got {self.raw_output!r}")
        if not isinstance(self.batch, bool):
            raise LedgerFormatError(f"call field 'batch' must be a boolean, got {self.batch!r}")
        latency = self.latency_s
        if (isinstance(latency, bool) or not isinstance(latency, (int, float))
                or not math.isfinite(latency) or latency < 0):
            raise LedgerFormatError(f"call field 'latency_s' must be a finite number >= 0, "
                                    f"got {latency!r}")

    def to_dict(self) -> dict[str, object]:
        """Return the call as plain builtins (JSON- and YAML-safe); the optional fields only
        when set, so calls to Claude and the reference backend read as they always did."""
        found: dict[str, object] = {
            "stage": self.stage, "model": self.model, "usage": self.usage.to_dict(),
            "latency_s": float(self.latency_s), "backend": self.backend,
            "question_id": self.question_id, "valid": self.valid,
        }
        if self.server is not None:
            found["server"] = self.server
        if self.unreported:
            found["unreported"] = list(self.unreported)
        if self.raw_output is not None:
            found["raw_output"] = self.raw_output
        if self.retries:
            found["retries"] = list(self.retries)
        if self.tool_results:
            found["tool_results"] = [event.to_dict() for event in self.tool_results]
        if self.batch:
            found["batch"] = True
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Call:
        """Read a call written by :meth:`to_dict`; unknown or malformed fields are errors."""
        if not isinstance(data, Mapping):
            raise LedgerFormatError(f"call must be a mapping, got {type(data).__name__}")
        unknown = sorted(set(map(str, data)) - _CALL_FIELDS)
        if unknown:
            raise LedgerFormatError(f"call has unknown field(s): {', '.join(unknown)}")
        usage = data.get("usage")
        if not isinstance(usage, Mapping):
            raise LedgerFormatError(f"call field 'usage' must be a mapping, got {usage!r}")
        latency = data.get("latency_s")
        if isinstance(latency, bool) or not isinstance(latency, (int, float)):
            raise LedgerFormatError(f"call field 'latency_s' must be a number, got {latency!r}")
        valid = data.get("valid", True)
        if not isinstance(valid, bool):
            raise LedgerFormatError(f"call field 'valid' must be a boolean, got {valid!r}")
        unreported = data.get("unreported", [])
        if not isinstance(unreported, list) or not all(isinstance(n, str) for n in unreported):
            raise LedgerFormatError(f"call field 'unreported' must be a list of field names, "
                                    f"got {unreported!r}")
        raw = data.get("raw_output")
        if raw is not None and not isinstance(raw, str):
            raise LedgerFormatError(f"call field 'raw_output' must be a string, got {raw!r}")
        retries = data.get("retries", [])
        if not isinstance(retries, list) or not all(isinstance(r, str) for r in retries):
            raise LedgerFormatError(f"call field 'retries' must be a list of failure names, "
                                    f"got {retries!r}")
        events = data.get("tool_results", [])
        if not isinstance(events, list):
            raise LedgerFormatError(f"call field 'tool_results' must be a list, got {events!r}")
        batch = data.get("batch", False)
        if not isinstance(batch, bool):
            raise LedgerFormatError(f"call field 'batch' must be a boolean, got {batch!r}")
        return cls(
            stage=str(_text(data, "stage")), model=str(_text(data, "model")),
            usage=Usage.from_dict(usage), latency_s=float(latency),
            backend=str(_text(data, "backend")),
            question_id=_text(data, "question_id", optional=True), valid=valid,
            server=_text(data, "server", optional=True), unreported=tuple(unreported),
            raw_output=raw, retries=tuple(retries),
            tool_results=tuple(ToolEvent.from_dict(event) for event in events),
            batch=batch,
        )


class Ledger:
    """An append-only, thread-safe list of calls."""

    def __init__(self, calls: Iterable[Call] = ()) -> None:
        self._lock = threading.Lock()
        self._calls: list[Call] = list(calls)

    def record(self, call: Call) -> None:
        """Append one call."""
        if not isinstance(call, Call):
            raise TypeError(f"a ledger records Call objects, got {type(call).__name__}")
        with self._lock:
            self._calls.append(call)

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls recorded so far, in order of recording."""
        with self._lock:
            return tuple(self._calls)

    def __len__(self) -> int:
        with self._lock:
            return len(self._calls)

    def total(self) -> Usage:
        """Return the usage of every call recorded so far."""
        return sum_usage(call.usage for call in self.calls)

    def by_stage(self) -> dict[str, Usage]:
        """Return usage per stage, stages in order of first appearance."""
        stages: dict[str, Usage] = {}
        for call in self.calls:
            stages[call.stage] = stages.get(call.stage, Usage()) + call.usage
        return stages
