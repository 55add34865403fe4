"""Finding an annotated excerpt in a contract's text, whitespace-tolerantly.

Annotators copy excerpts from the text, sometimes re-spaced, sometimes in pieces joined by an
omission mark, and the same words can occur several times: each piece is matched exact-first,
then with any whitespace run matching any other, preferring an occurrence no other excerpt of
the same category already holds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

#: CUAD joins the pieces of a discontinuous excerpt with this mark; each piece is its own span.
OMISSION_MARK = "<omitted>"


def locate(excerpt: str, text: str, taken: Collection[tuple[int, int]] = (),
           start_at: int = 0) -> tuple[int, int] | None:
    """Find ``excerpt`` in ``text`` from ``start_at``; any whitespace run matches any other.

    Preference: a span clear of every ``taken`` span and on word boundaries, then one clear of
    them, then one not equal to any, then the first; exact before whitespace-tolerant matches.
    """
    piece = excerpt.strip()
    if not piece:
        return None
    best: tuple[int, tuple[int, int]] | None = None
    for span in _occurrences(piece, text, start_at):
        rank = _rank(span, text, taken)
        if rank == 0:
            return span
        if best is None or rank < best[0]:
            best = (rank, span)
    return None if best is None else best[1]


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


def _occurrences(piece: str, text: str, start_at: int) -> Iterator[tuple[int, int]]:
    """Spans of ``piece`` in ``text``: exact ones first, then whitespace-tolerant ones."""
    # The plain substring search is cheap and, on CUAD, finds every excerpt piece.
    pos = text.find(piece, start_at)
    while pos != -1:
        yield pos, pos + len(piece)
        pos = text.find(piece, pos + 1)
    pattern = re.compile(r"\s+".join(re.escape(word) for word in piece.split()))
    for match in pattern.finditer(text, start_at):
        yield match.span()


def _rank(span: tuple[int, int], text: str, taken: Collection[tuple[int, int]]) -> int:
    """How well an occurrence suits: 0 best; 3 when another excerpt already has this span."""
    if span in taken:
        return 3
    # Another excerpt of the category covers this text, so this excerpt likely means a later
    # mention (a party's full name, then its defined short name).
    if any(start < span[1] and span[0] < end for start, end in taken):
        return 2
    # A short excerpt ("MA") also occurs inside longer words ("MARKETING").
    return 0 if _on_word_boundaries(text, *span) else 1


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    cuts_left = start > 0 and text[start - 1].isalnum() and text[start].isalnum()
    cuts_right = end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    return not (cuts_left or cuts_right)
