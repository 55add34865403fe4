"""Batches of texts for an encoder, formed by padded size in tokens rather than by count.

A transformer's cost is set by the padded matrix it is given: rows times the longest row.
Sorting texts by token count and cutting batches at a budget of padded tokens keeps that
matrix full of real tokens whatever the mix: a batch of 20-token clauses holds hundreds of
rows, a batch of 256-token windows a few dozen. A fixed count of 32 rows left short clauses
in matrices too small to keep the cores busy (measured on CUAD's units, 2 cores:
``perf/output/embedding_speed.json``).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Padded tokens per batch: large enough that short clauses form wide batches, small enough
#: that one batch's activations (MiniLM: attention over 256-token windows) stay near 100 MB.
TOKEN_BUDGET = 8192
#: Rows per batch at most, however short the texts.
MAX_ROWS = 256


def token_batches(lengths: Sequence[int], budget: int = TOKEN_BUDGET,
                  max_rows: int = MAX_ROWS) -> list[list[int]]:
    """Indexes of ``lengths`` in batches: ascending length, each batch's rows times its
    longest length within ``budget`` (a single longer text forms a batch of its own) and
    at most ``max_rows`` rows. Every index appears in exactly one batch."""
    if budget < 1 or max_rows < 1:
        raise ValueError(f"budget and max_rows must be positive, got {budget} and {max_rows}")
    # Ties keep input order, so equal inputs always give equal batches.
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # Ascending order: the newcomer is the batch's longest, so it sets the padded width.
        width = max(lengths[index], 1)
        if current and ((len(current) + 1) * width > budget or len(current) == max_rows):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches
