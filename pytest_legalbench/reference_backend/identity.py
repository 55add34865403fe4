"""How the reference backend names itself in every response."""

from __future__ import annotations

#: The model id reported in every response, whatever model the request named.
REFERENCE_MODEL = "legalbench-reference-extractive-1"

#: The last line of every text the backend writes, so no output passes for a model's.
BACKEND_NOTE = "— reference backend: extractive, no language model"

#: Response header naming the backend.
BACKEND_HEADER = "x-legalbench-backend"


def with_note(text: str) -> str:
    """``text`` followed by the backend note on a line of its own."""
    return f"{text.rstrip()}\n\n{BACKEND_NOTE}" if text.strip() else BACKEND_NOTE


def without_note(text: str) -> str:
    """``text`` with any backend note lines taken out (for judging answers it wrote)."""
    return "\n".join(line for line in text.splitlines() if line.strip() != BACKEND_NOTE).strip()
