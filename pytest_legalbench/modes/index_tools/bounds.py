"""The bounds every tool result keeps, and the result and error types of the tool layer.

A result is a JSON object of plain builtins. It says how many tokens it holds (``result_tokens``;
``tokens`` beside a provision is that provision's size) and
whether anything was cut (``truncated``, with a ``note`` saying what and how to get the rest),
so a model reading it can tell a short provision from a clipped one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pytest_legalbench.modes.base import Provision
from pytest_legalbench.tokens import estimate_tokens

#: Characters of verbatim text one read returns (about 5,000 tokens).
TEXT_CHARS = 20_000
#: Characters of a snippet: enough to recognise a provision, never enough to answer from.
SNIPPET_CHARS = 240
#: Items of a list (documents, hits, references, parts, amendments) one result holds.
LIST_ITEMS = 50
#: Links a read lists of each kind (terms used, clauses cited, amendments); the tools for
#: each kind list them all.
LINK_ITEMS = 12
#: Close matches an error message suggests at most.
SUGGESTIONS_CAP = 10
#: Entries of an outline.
OUTLINE_ITEMS = 150
#: Most hits one search returns, and the number it returns unless asked.
SEARCH_MOST = 20
SEARCH_DEFAULT = 8
#: Deepest outline, and the depth given unless asked.
OUTLINE_DEEPEST = 4
OUTLINE_DEFAULT = 2

_SPACE = re.compile(r"\s+")
_T = TypeVar("_T")


class ToolError(Exception):
    """A tool call that cannot be answered (an unknown id, a bad argument); the message says
    why and what to do instead."""


@dataclass(frozen=True)
class ToolResult:
    """What one tool call returned: its JSON data and the verbatim provisions it showed."""

    tool: str
    data: Mapping[str, object]
    """Plain builtins, with ``result_tokens`` and ``truncated`` (and ``note`` when cut)."""
    read: tuple[Provision, ...] = ()
    """The verbatim text the result holds, as provisions (a read, a definition); a clipped
    text is the provision's opening, its span shortened to what was shown."""

    @property
    def tokens(self) -> int:
        """Estimated tokens of the result as sent."""
        value = self.data.get("result_tokens", 0)
        return value if isinstance(value, int) else 0

    def to_json(self) -> str:
        """The result as compact JSON (the form a model or an MCP client receives)."""
        return compact_json(self.data)


def compact_json(data: object) -> str:
    """JSON without spaces between items, non-ASCII kept (the cheapest form to read)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def finished(tool: str, data: Mapping[str, object], notes: Sequence[str] = (),
             read: Sequence[Provision] = ()) -> ToolResult:
    """``data`` with ``truncated``, ``note`` and its own token count added."""
    complete: dict[str, object] = {**data, "truncated": bool(notes)}
    if notes:
        complete["note"] = "; ".join(notes)
    complete["result_tokens"] = 0
    # Measured twice: the count's own digits are part of what is counted.
    complete["result_tokens"] = estimate_tokens(compact_json(complete))
    complete["result_tokens"] = estimate_tokens(compact_json(complete))
    return ToolResult(tool, complete, tuple(read))


def with_fields(result: ToolResult, **fields: object) -> ToolResult:
    """``result`` with ``fields`` added and its size measured again."""
    data = {k: v for k, v in result.data.items() if k not in ("truncated", "note",
                                                               "result_tokens")}
    note = result.data.get("note")
    return finished(result.tool, {**data, **fields}, [note] if isinstance(note, str) else [],
                    result.read)


def snippet(text: str, chars: int = SNIPPET_CHARS) -> str:
    """The opening of ``text`` on one line, cut at a word and marked when cut."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= chars:
        return flat
    cut = flat[:chars].rsplit(" ", 1)[0] or flat[:chars]
    return cut.rstrip(" ,;:") + " …"


def clipped(text: str, chars: int = TEXT_CHARS) -> tuple[str, bool]:
    """``text`` up to ``chars`` characters (an exact prefix), and whether it was cut."""
    return (text, False) if len(text) <= chars else (text[:chars], True)


def capped(items: Sequence[_T], cap: int = LIST_ITEMS) -> tuple[list[_T], int]:
    """The first ``cap`` items and how many were left out."""
    return list(items[:cap]), max(0, len(items) - cap)


def whole_number(value: object, name: str, default: int, low: int, high: int) -> int:
    """An integer argument, ``default`` when absent, clamped to ``[low, high]``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{name} must be a whole number, got {value!r}")
    return min(high, max(low, value))


def text_argument(value: object, name: str) -> str:
    """A required, non-empty string argument, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{name} must be a non-empty string, got {value!r}")
    return value.strip()
