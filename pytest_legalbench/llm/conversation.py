"""A tool-using conversation's turn as the client returns it: the model's text, the tools it
asked for, and its content blocks in the form the next request sends back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.llm.ledger import Usage

#: How a turn lets the model use its tools: ``auto`` (it chooses) or ``none`` (it must answer).
TOOL_CHOICES = ("auto", "none")


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model asked for."""

    id: str
    name: str
    input: object
    """What the model wrote as the input (an object when it is well formed)."""


@dataclass(frozen=True)
class Exchange:
    """One turn: what the model said and asked for, and what the turn cost."""

    stage: str
    """The ledger stage the call was recorded under."""
    text: str
    tool_uses: tuple[ToolUse, ...]
    content: tuple[dict[str, object], ...]
    """The assistant's content blocks as Messages API parameters (text and tool_use)."""
    model: str
    stop_reason: str | None
    usage: Usage
    latency_s: float


def reply_blocks(content: Sequence[Any]) -> tuple[str, tuple[ToolUse, ...],
                                                   tuple[dict[str, object], ...]]:
    """The text, tool calls and resendable blocks of a reply's content; other block kinds
    (none are asked for) are left out."""
    texts: list[str] = []
    uses: list[ToolUse] = []
    params: list[dict[str, object]] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text" and isinstance(getattr(block, "text", None), str):
            texts.append(block.text)
            params.append({"type": "text", "text": block.text})
        elif kind == "tool_use" and isinstance(getattr(block, "id", None), str) \
                and isinstance(getattr(block, "name", None), str):
            uses.append(ToolUse(block.id, block.name, getattr(block, "input", None)))
            params.append({"type": "tool_use", "id": block.id, "name": block.name,
                           "input": getattr(block, "input", None)})
    return "".join(texts), tuple(uses), tuple(params)
