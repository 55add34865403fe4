"""Finding a CUAD annotator's excerpt in a contract's text.

Annotators copy excerpts from the text, sometimes re-spaced, sometimes in pieces joined by an
omission mark, and the same words can occur several times: each piece is located by
``ingest.text_location.locate`` (exact first, then whitespace-tolerant), preferring an
occurrence no other excerpt of the same category already holds.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pytest_legalbench.ingest.text_location import locate

#: CUAD joins the pieces of a discontinuous excerpt with this mark; each piece is its own span.
OMISSION_MARK = "<omitted>"

__all__ = ["OMISSION_MARK", "locate", "locate_category", "locate_excerpt"]


def locate_excerpt(excerpt: str, text: str,
                   taken: Collection[tuple[int, int]] = ()) -> list[tuple[int, int]] | str:
    """Locate each piece of an excerpt in order; return the spans, or why it failed."""
    pieces = [p for p in excerpt.split(OMISSION_MARK) if p.strip()]
    if not pieces:
        return "empty excerpt"
    spans: list[tuple[int, int]] = []
    for number, piece in enumerate(pieces, start=1):
        # Pieces are mostly in reading order, so each is first sought after the last one;
        # annotators do sometimes join them out of order.
        used = [*taken, *spans]
        span = locate(piece, text, used, spans[-1][1]) if spans else None
        span = span or locate(piece, text, used)
        if span is None:
            where = f"piece {number} of {len(pieces)}" if len(pieces) > 1 else "text"
            return f"{where} not found in the contract"
        spans.append(span)
    return spans


def locate_category(excerpts: Sequence[str], text: str,
                    ) -> tuple[list[tuple[int, int]], list[tuple[str, str]]]:
    """Locate one category's excerpts: the distinct spans found, and (excerpt, why) misses."""
    spans: list[tuple[int, int]] = []
    missed: list[tuple[str, str]] = []
    for excerpt in excerpts:
        result = locate_excerpt(excerpt, text, spans)
        if isinstance(result, str):
            missed.append((excerpt, result))
        else:
            # An excerpt listed twice yields the same span twice; one copy is enough.
            spans.extend(span for span in result if span not in spans)
    return spans, missed
