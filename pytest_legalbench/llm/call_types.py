"""What a model call is made of: the system blocks and tool specs it sends, how it asks to be
sampled, and the completions and structured results it returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_legalbench.llm.ledger import Usage
from pytest_legalbench.llm.schema import SchemaError, check_schema

#: Prompt-cache lifetimes a cache mark may ask for: the default 5 minutes, or 1 hour (written
#: at twice the input price; worth it for a prefix reused over longer than 5 minutes, such as
#: inject's corpus across a message batch).
CACHE_TTLS = ("5m", "1h")


@dataclass(frozen=True)
class SystemBlock:
    """One text block of the system prompt; ``cache`` marks the end of a cacheable prefix,
    ``ttl`` (with ``cache``) asks for a lifetime other than the default 5 minutes."""

    text: str
    cache: bool = False
    ttl: str | None = None

    def __post_init__(self) -> None:
        if self.ttl is not None and (not self.cache or self.ttl not in CACHE_TTLS):
            raise ValueError(f"a cache ttl is one of {', '.join(CACHE_TTLS)} on a cached block, "
                             f"got ttl={self.ttl!r} with cache={self.cache}")

    def to_param(self) -> dict[str, object]:
        """Return the block in Messages API form (no ``ttl`` unless one was asked for, so
        requests keep the shape, and the cassette digests, they always had)."""
        block: dict[str, object] = {"type": "text", "text": self.text}
        if self.cache:
            block["cache_control"] = ({"type": "ephemeral"} if self.ttl is None
                                      else {"type": "ephemeral", "ttl": self.ttl})
        return block


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model is forced to call; its input must satisfy ``input_schema``."""

    name: str
    description: str
    input_schema: Mapping[str, object]

    def __post_init__(self) -> None:
        check_schema(self.input_schema, f"tool {self.name!r} input_schema")
        if self.input_schema.get("type") != "object":
            raise SchemaError(f"tool {self.name!r} input_schema: the type must be 'object'")

    def to_param(self) -> dict[str, object]:
        """Return the tool definition in Messages API form."""
        return {"name": self.name, "description": self.description,
                "input_schema": dict(self.input_schema)}


@dataclass(frozen=True)
class Sampling:
    """How a call asks to be sampled: a temperature and a seed, sent only to servers that
    take them (``ClientConfig.sends_sampling``)."""

    temperature: float | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.temperature is not None and not 0.0 <= self.temperature <= 1.0:
            raise ValueError(f"temperature must be between 0 and 1, got {self.temperature}")


@dataclass(frozen=True)
class Completion:
    """A text answer and what it cost."""

    text: str
    model: str
    stop_reason: str | None
    usage: Usage
    latency_s: float


@dataclass(frozen=True)
class StructuredResult:
    """A forced tool call's input, or ``data=None, valid=False`` when it never conformed."""

    data: dict[str, object] | None
    valid: bool
    attempts: int
    usage: Usage
    raw: str | None = None
    """What the model sent on the last attempt when it did not conform (also in the ledger)."""
