"""Text made safe for the generated Markdown pages: one table cell, one code span."""

from __future__ import annotations

import re

# What Markdown would read as markup inside a help text: a table's column bar, an HTML tag
# (``<doc>.index.json``) and emphasis (``gandr-traces/*.jsonl``).
_SPECIAL = re.compile(r"([|*<>])")
_ESCAPED = {"|": "\\|", "*": "\\*", "<": "&lt;", ">": "&gt;"}


def cell(text: str) -> str:
    """``text`` on one line, with what Markdown would take for markup escaped."""
    return _SPECIAL.sub(lambda m: _ESCAPED[m.group(1)], " ".join(text.split()))


def sentence(text: str) -> str:
    """``text`` as a table cell that starts with a capital and ends with a full stop."""
    text = cell(text)
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?")) else text + "."


def code(text: str | None) -> str:
    """``text`` as a code span; nothing for no text."""
    return f"`{text}`" if text else ""
