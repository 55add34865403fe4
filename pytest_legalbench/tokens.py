"""The one token estimate used everywhere a size is reported without a tokenizer."""

from __future__ import annotations

import math

#: Characters per token assumed by the estimate; English legal prose averages close to 4.
CHARS_PER_TOKEN = 4

#: How the estimate is computed, for reports that state it.
TOKEN_ESTIMATE = f"ceil(characters / {CHARS_PER_TOKEN})"


def estimate_tokens(text: str) -> int:
    """Estimate the token count of ``text`` as ceil(len / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
