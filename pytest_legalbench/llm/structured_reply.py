"""What a structured call's reply holds: the forced tool's input, the same input written as the
answer text (``llm.json_text``), or, when neither conforms, the reply as it came.

Never repaired or guessed: an input that is missing, doubled or off its schema is None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_legalbench.llm.json_text import parse_object
from pytest_legalbench.llm.schema import problems


def tool_input(content: Sequence[Any], name: str,
               schema: Mapping[str, object]) -> dict[str, object] | None:
    """The input of the one call of tool ``name`` when it conforms to ``schema``."""
    calls = [block for block in content if getattr(block, "type", None) == "tool_use"
             and getattr(block, "name", None) == name]
    if len(calls) != 1 or not isinstance(getattr(calls[0], "input", None), dict):
        return None
    data: dict[str, object] = calls[0].input
    return None if problems(data, schema) else data


def text_input(content: Sequence[Any], schema: Mapping[str, object]) -> dict[str, object] | None:
    """The input written as the whole answer text, when it parses and conforms."""
    text = "".join(block.text for block in content if getattr(block, "type", None) == "text"
                   and isinstance(getattr(block, "text", None), str))
    data = parse_object(text)
    return None if data is None or problems(data, schema) else data


def raw_output(content: Sequence[Any], stop_reason: str | None) -> str:
    """The reply as it came (text as is, tool calls as JSON), after its stop reason."""
    parts: list[str] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind == "tool_use":
            parts.append(json.dumps({"tool_use": getattr(block, "name", None),
                                     "input": getattr(block, "input", None)},
                                    ensure_ascii=False, default=str))
        else:
            parts.append(f"[{kind} block]")
    return f"[stop_reason {stop_reason}] " + "\n".join(parts)
