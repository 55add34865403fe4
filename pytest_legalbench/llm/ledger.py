"""The record of every model call: its stage, model, token usage and latency.

``Usage`` and ``Call`` are written and read through ``files.record_json``: a call's JSON is
its fields, the optional ones only when set, so calls to Claude and to the reference backend
read as they always did; a usage's is the Messages API's own usage object.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pytest_legalbench.files.record_json import (
    OMIT_EMPTY,
    OMIT_FALSE,
    OMIT_NONE,
    ZERO_IF_NONE,
    WireForm,
)
from pytest_legalbench.llm.tool_events import LedgerFormatError, ToolEvent

# The error and the tool event live beside each other in tool_events; readers of the ledger
# import them from here.
__all__ = ["USAGE_FIELDS", "Call", "Ledger", "LedgerFormatError", "ToolEvent", "Usage",
           "sum_usage"]

#: The four usage counts, under the names the Messages API reports them.
USAGE_FIELDS = (
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens",
)
#: Usage fields a server may leave out of its responses.
_OPTIONAL_USAGE = frozenset({"cache_creation_input_tokens", "cache_read_input_tokens"})
#: Where the API nests the 1-hour part of a cache write.
_ONE_HOUR_KEY = "ephemeral_1h_input_tokens"


def _one_hour_of(nested: Any) -> Any:
    """The 1-hour count of the API's ``cache_creation`` object (absent or None: 0)."""
    if nested is None:
        return 0
    if isinstance(nested, Mapping):
        return 0 if nested.get(_ONE_HOUR_KEY) is None else nested[_ONE_HOUR_KEY]
    return nested


#: The 1-hour cache writes, written nested as the API reports them.
_ONE_HOUR = WireForm(
    write=lambda count: {_ONE_HOUR_KEY: count}, read=_one_hour_of,
    schema={"type": "object", "properties": {_ONE_HOUR_KEY: {"type": "integer", "minimum": 0}},
            "description": "the part of the cache write with the 1-hour TTL; absent when none"})
#: A count as the API reports it: None (the SDK's absent cache counts) is 0. Strict: a
#: boolean or a string is not a count.
_COUNT = {"strict": True}


@dataclass(frozen=True)
class Usage:
    """Token counts of one call or a sum of calls; all counts are non-negative integers."""

    input_tokens: Annotated[int, ZERO_IF_NONE] = field(default=0, metadata=_COUNT)
    """Uncached input."""
    cache_creation_input_tokens: Annotated[int, ZERO_IF_NONE] = field(default=0,
                                                                       metadata=_COUNT)
    """Input written to the prompt cache."""
    cache_read_input_tokens: Annotated[int, ZERO_IF_NONE] = field(default=0, metadata=_COUNT)
    """Input read from the prompt cache."""
    output_tokens: Annotated[int, ZERO_IF_NONE] = field(default=0, metadata=_COUNT)
    cache_write_1h_tokens: Annotated[int, _ONE_HOUR] = field(
        default=0, metadata={"alias": "cache_creation", **OMIT_EMPTY, **_COUNT})
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


def sum_usage(usages: Iterable[Usage]) -> Usage:
    """Return the sum of ``usages``; the empty sum is the zero usage."""
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


@dataclass(frozen=True)
class Call:
    """One model call as the ledger records it."""

    #: Unknown fields in a stored call are errors, not silently dropped. (Its own config, so
    #: its fields' docstrings are asked for here too, for the JSON Schemas.)
    __pydantic_config__: ClassVar[dict[str, object]] = {"extra": "forbid",
                                                         "use_attribute_docstrings": True}

    stage: str
    """What the call was for: ``inject.answer``, ``navindex.scan``, ``judge.forward``, ..."""
    model: str
    """The model the response reports."""
    usage: Usage
    latency_s: float
    backend: str
    """``reference``, ``anthropic``, or ``messages-api at HOST`` for another server."""
    question_id: str | None = None
    valid: bool = field(default=True, metadata={"strict": True})
    """False when a structured output did not conform and was recorded as invalid."""
    server: str | None = field(default=None, metadata=OMIT_NONE)
    """The kind of a third-party server (``llama.cpp``, ``generic``, ...); None otherwise."""
    unreported: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Usage fields the response left out: their zeros in ``usage`` were not measured."""
    raw_output: str | None = field(default=None, metadata=OMIT_NONE)
    """What the model sent when a structured output was invalid, kept as it came."""
    retries: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    """The failures retried before the call got its answer (``HTTP 429``, ``timeout``, ...)."""
    tool_results: tuple[ToolEvent, ...] = field(default=(), metadata=OMIT_EMPTY)
    """The tool results this call's request carried (a turn of a tool-using conversation)."""
    batch: bool = field(default=False, metadata=OMIT_FALSE)
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
