"""The Messages API wire format as the reference backend reads and writes it: a validated
request (``MessagesRequest``: its prompt as ordered segments, its turns and its tool choice),
the error a request that cannot be honoured is answered with (``WireError``, carrying the API's
status and error type), and the response bodies. Requests are validated by
``reference_backend.request_parsing``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_legalbench.tokens import estimate_tokens


class WireError(Exception):
    """A request the backend answers with an API-shaped error instead of a message."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


def invalid(message: str) -> WireError:
    """A 400 ``invalid_request_error`` with ``message``."""
    return WireError(400, "invalid_request_error", message)


@dataclass(frozen=True)
class Segment:
    """One piece of prompt text; ``cached`` when it carries ``cache_control``, ``one_hour``
    when that mark asks for the 1-hour TTL."""

    text: str
    cached: bool
    one_hour: bool = False

    @property
    def tokens(self) -> int:
        """The token estimate of this segment."""
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class Block:
    """One content block of a message: its kind, its text (a tool call's input as JSON, a
    tool result's content), and for tool blocks the tool, the call's id and the error mark."""

    kind: str
    text: str
    name: str = ""
    call_id: str = ""
    """A tool_use block's id, or the ``tool_use_id`` a tool_result answers."""
    is_error: bool = False


@dataclass(frozen=True)
class Turn:
    """One message: its role and the text of its content blocks, joined by newlines."""

    role: str
    text: str
    blocks: tuple[Block, ...] = ()


@dataclass(frozen=True)
class MessagesRequest:
    """A validated request: prompt segments in API order, turns, tools and tool choice."""

    model: str
    max_tokens: int | None
    segments: tuple[Segment, ...]
    system: str
    turns: tuple[Turn, ...]
    tool_names: tuple[str, ...]
    tool_choice: str
    forced_tool: str | None
    temperature: float | None = None
    seed: int | None = None
    """Not a Messages API field: callers pass it in the extra body to vary our choices."""
    tool_schemas: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    """Each tool's ``input_schema`` by name (the limits a forced tool's answer must keep)."""

    @property
    def input_tokens(self) -> int:
        """Every input token of the request (the sum over its segments)."""
        return sum(segment.tokens for segment in self.segments)

    @property
    def cached_prefix(self) -> tuple[Segment, ...]:
        """The segments up to and including the last cache-marked one (empty if none)."""
        marked = [i for i, segment in enumerate(self.segments) if segment.cached]
        return self.segments[: marked[-1] + 1] if marked else ()

    @property
    def last_user_text(self) -> str:
        """The text of the last user turn ("" when there is none)."""
        users = [turn.text for turn in self.turns if turn.role == "user"]
        return users[-1] if users else ""


def error_body(error_type: str, message: str) -> dict[str, object]:
    """The API's error envelope."""
    return {"type": "error", "error": {"type": error_type, "message": message}}


def message_body(*, message_id: str, model: str, content: Sequence[Mapping[str, object]],
                 stop_reason: str, usage: Mapping[str, object]) -> dict[str, object]:
    """A complete (non-streamed) message response."""
    return {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [dict(block) for block in content], "stop_reason": stop_reason,
        "stop_sequence": None, "usage": dict(usage),
    }
