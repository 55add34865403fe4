"""What the ledger keeps of one tool result a conversation turn carried to the model.

Enough to see what each turn got back (the tool, its input, the provisions the result named,
the error it raised), never the result's text: a provision's text is in the report once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from pytest_legalbench.files.record_json import OMIT_EMPTY, OMIT_NONE

#: Node ids one event keeps (an outline can name 150); the rest are counted.
NODE_IDS_KEPT = 50
#: Characters of an error message one event keeps.
MESSAGE_CHARS = 400


class LedgerFormatError(ValueError):
    """A usage or call record read from a dict is malformed; the message names the field."""


def named_nodes(data: object) -> Iterator[str]:
    """Every ``node_id`` value in a tool result's data, in order (repeats included)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            if key == "node_id" and isinstance(value, str):
                yield value
            else:
                yield from named_nodes(value)
    elif isinstance(data, list):
        for value in data:
            yield from named_nodes(value)


@dataclass(frozen=True)
class ToolEvent:
    """One tool result: the tool, its input as the model wrote it, the result's size, whether
    it was an error, the provisions it named and, for an error, its message."""

    name: str
    arguments: str
    """The input as compact JSON."""
    result_tokens: int = field(metadata={"strict": True})
    error: bool = field(default=False, metadata={"strict": True})
    node_ids: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    """The provisions the result named, each once, in order (at most ``NODE_IDS_KEPT``)."""
    more_node_ids: int = field(default=0, metadata={**OMIT_EMPTY, "strict": True})
    """Further provisions the result named, counted, not kept."""
    message: str | None = field(default=None, metadata=OMIT_NONE)
    """What the error said (cut to ``MESSAGE_CHARS``); None for a result."""

    def __post_init__(self) -> None:
        if self.result_tokens < 0 or self.more_node_ids < 0:
            raise LedgerFormatError(f"tool result {self.name!r}: token and node counts must "
                                    f"be non-negative")

    @classmethod
    def of_result(cls, name: str, arguments: str, result_tokens: int, *,
                  data: object = None, message: str | None = None) -> ToolEvent:
        """The event of a result with ``data``, or of an error saying ``message``."""
        named = list(dict.fromkeys(named_nodes(data)))
        if message is not None and len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS - 3] + "..."
        return cls(name, arguments, result_tokens, message is not None,
                   tuple(named[:NODE_IDS_KEPT]), max(0, len(named) - NODE_IDS_KEPT), message)
