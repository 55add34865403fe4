"""Structured output as JSON in the answer text, for servers that do not honour forced tool use.

The request carries no tools; a last system block asks for one JSON object matching the
tool's input schema and nothing else. The reply is read strictly: the whole text, stripped of
surrounding whitespace, must parse as one JSON object. Prose around it, a code fence, two
objects or a truncated object make it invalid; nothing is repaired or guessed.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping


def instruction(tool_name: str, description: str, schema: Mapping[str, object]) -> str:
    """The system text asking for the tool's input as one bare JSON object."""
    return (f"Answer by giving the input of the tool {tool_name!r} ({description}). Reply "
            f"with exactly one JSON object and nothing else: no prose, no code fence. It must "
            f"match this JSON schema:\n{json.dumps(dict(schema), sort_keys=True)}")


def parse_object(text: str) -> dict[str, object] | None:
    """The JSON object the whole of ``text`` is, or None when it is anything else."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        found = json.loads(stripped)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
