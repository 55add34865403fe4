"""What the ledger keeps of one tool result a conversation turn carried to the model.

Enough to see what each turn got back (the tool, its input, the provisions the result named,
the error it raised), never the result's text: a provision's text is in the report once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

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
    result_tokens: int
    error: bool = False
    node_ids: tuple[str, ...] = ()
    """The provisions the result named, each once, in order (at most ``NODE_IDS_KEPT``)."""
    more_node_ids: int = 0
    """Further provisions the result named, counted, not kept."""
    message: str | None = None
    """What the error said (cut to ``MESSAGE_CHARS``); None for a result."""

    @classmethod
    def of_result(cls, name: str, arguments: str, result_tokens: int, *,
                  data: object = None, message: str | None = None) -> ToolEvent:
        """The event of a result with ``data``, or of an error saying ``message``."""
        named = list(dict.fromkeys(named_nodes(data)))
        if message is not None and len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS - 3] + "..."
        return cls(name, arguments, result_tokens, message is not None,
                   tuple(named[:NODE_IDS_KEPT]), max(0, len(named) - NODE_IDS_KEPT), message)

    def to_dict(self) -> dict[str, object]:
        """Return the event as plain builtins; the optional fields only when set."""
        found: dict[str, object] = {"name": self.name, "arguments": self.arguments,
                                    "result_tokens": self.result_tokens, "error": self.error}
        if self.node_ids:
            found["node_ids"] = list(self.node_ids)
        if self.more_node_ids:
            found["more_node_ids"] = self.more_node_ids
        if self.message is not None:
            found["message"] = self.message
        return found

    @classmethod
    def from_dict(cls, data: object) -> ToolEvent:
        """Read an event written by :meth:`to_dict` (or before it kept node ids)."""
        if not isinstance(data, Mapping):
            raise LedgerFormatError(f"tool result must be a mapping, got {data!r}")
        name, arguments = data.get("name"), data.get("arguments")
        tokens, error = data.get("result_tokens"), data.get("error", False)
        node_ids, more = data.get("node_ids", []), data.get("more_node_ids", 0)
        message = data.get("message")
        if not isinstance(name, str) or not isinstance(arguments, str) \
                or not _count(tokens) or not isinstance(error, bool) \
                or not isinstance(node_ids, list) \
                or not all(isinstance(n, str) for n in node_ids) or not _count(more) \
                or not (message is None or isinstance(message, str)):
            raise LedgerFormatError(f"malformed tool result record: {dict(data)!r}")
        assert isinstance(tokens, int) and isinstance(more, int)
        return cls(name, arguments, tokens, error, tuple(node_ids), more, message)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
