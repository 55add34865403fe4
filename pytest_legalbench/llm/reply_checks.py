"""What a 200 response must be before its content is used: a message, not an error object,
whose every content block is of a known type and whose text blocks hold text, with a usage
block to account for it (``read_reply``).

A 200 carrying an overload or server error is a failure worth retrying (a proxy answered for
a server that was busy); a message with malformed content is never read as an empty answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.files.record_json import from_builtins
from pytest_legalbench.llm.ledger import LedgerFormatError, Usage
from pytest_legalbench.llm.server_capabilities import unreported_fields

#: Content block types a Messages API response may carry.
KNOWN_BLOCK_TYPES = frozenset({"text", "tool_use", "thinking", "redacted_thinking",
                               "server_tool_use", "web_search_tool_result"})
#: Error types in a 200 body that another attempt may not meet.
RETRYABLE_BODY_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error",
                                   "timeout_error"})


class ErrorBody(Exception):
    """A 2xx response whose body is an error object."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"a 200 response carried an error object ({error_type}): {message}")
        self.error_type = error_type

    @property
    def retryable(self) -> bool:
        """Whether the error is one another attempt may not meet."""
        return self.error_type in RETRYABLE_BODY_ERRORS


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def body_error(message: Any) -> ErrorBody | None:
    """The error a 200 body carries instead of a message, or None."""
    if _field(message, "type") != "error":
        return None
    error = _field(message, "error")
    kind, text = _field(error, "type"), _field(error, "message")
    return ErrorBody(kind if isinstance(kind, str) else "unknown error",
                     text if isinstance(text, str) else repr(error)[:200])


def content_problem(content: Sequence[Any]) -> str | None:
    """What is wrong with a message's content blocks, or None when every one is sound."""
    for number, block in enumerate(content):
        kind = _field(block, "type")
        if kind not in KNOWN_BLOCK_TYPES:
            return f"response content block {number} is of unknown type {kind!r}"
        text = _field(block, "text")
        if kind == "text" and not isinstance(text, str):
            return (f"response content block {number} is a text block whose text is "
                    f"{text!r:.40} ({type(text).__name__}), not a string")
    return None


@dataclass(frozen=True)
class Reply:
    """The parts of a Messages API response we use, checked for shape."""

    content: list[Any]
    model: str
    stop_reason: str | None
    usage: Usage
    unreported: tuple[str, ...] = ()
    """Cache fields the response's usage left out (``server_capabilities.CACHE_FIELDS``)."""
    retries: tuple[str, ...] = ()
    """The failures retried before this reply came (``HTTP 429``, ``timeout``, ...)."""
    batch: bool = False
    """Whether a message batch gave this reply (``llm.batch_replies``)."""
    served: bool = False
    """Whether it was served from a stored answer, already paid and counted when it came."""


def read_reply(message: Any, requested_model: str) -> Reply | str:
    """The checked reply, or a description of what is wrong with it."""
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        return f"response content is not a list of blocks: {content!r:.80}"
    problem = content_problem(content)
    if problem is not None:
        return problem
    raw_usage = getattr(message, "usage", None)
    if raw_usage is None:
        return "response carries no usage block, so it cannot be accounted for"
    dump = raw_usage.model_dump() if hasattr(raw_usage, "model_dump") else raw_usage
    try:
        usage = from_builtins(Usage, dump, what="usage in response", error=LedgerFormatError)
    except LedgerFormatError as error:
        return f"malformed {error}"
    model = getattr(message, "model", None)
    stop = getattr(message, "stop_reason", None)
    return Reply(content, model if isinstance(model, str) and model else requested_model,
                 stop if isinstance(stop, str) else None, usage,
                 unreported_fields(dump) if isinstance(dump, Mapping) else ())
