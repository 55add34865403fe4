"""Finding a stretch of a document's text that someone copied out of it, tolerantly.

Copies drift from their source: whitespace re-flowed, and, through word processors and web
pages, straight quotes curled (or curly ones straightened) and hyphens turned into dashes.
A copy is matched exact-first, then with any whitespace run matching any other, and, when
``marks`` is asked for, any quote mark matching any other and any dash or hyphen any other;
among several occurrences the one preferred is clear of spans already ``taken`` and on word
boundaries. CUAD's excerpts (``spans.excerpt_location``) and the passages of a user's
retriever (``modes.retriever_mode``) are both located here.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

#: Characters read as one quote mark under ``marks``: straight and typographic single and
#: double quotes, low and reversed ones, guillemets, primes and the backtick.
QUOTE_MARKS = "\"'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u2032\u2033"
#: Characters read as one dash under ``marks``: hyphen-minus, hyphen, non-breaking hyphen,
#: figure, en and em dash, horizontal bar, minus sign, small and full-width hyphen-minus.
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

_QUOTE_CLASS = "[" + re.escape(QUOTE_MARKS) + "]"
_DASH_CLASS = "[" + re.escape(DASHES) + "]"


def locate(excerpt: str, text: str, taken: Collection[tuple[int, int]] = (),
           start_at: int = 0, *, marks: bool = False) -> tuple[int, int] | None:
    """Find ``excerpt`` in ``text`` from ``start_at``; any whitespace run matches any other,
    and with ``marks`` any quote mark any other and any dash any other.

    Preference: a span clear of every ``taken`` span and on word boundaries, then one clear of
    them, then one not equal to any, then the first; exact before tolerant matches.
    """
    piece = excerpt.strip()
    if not piece:
        return None
    best: tuple[int, tuple[int, int]] | None = None
    for span in _occurrences(piece, text, start_at, marks):
        rank = _rank(span, text, taken)
        if rank == 0:
            return span
        if best is None or rank < best[0]:
            best = (rank, span)
    return None if best is None else best[1]


def _occurrences(piece: str, text: str, start_at: int,
                 marks: bool) -> Iterator[tuple[int, int]]:
    """Spans of ``piece`` in ``text``: exact ones first, then tolerant ones."""
    # The plain substring search is cheap and, on CUAD, finds every excerpt piece.
    pos = text.find(piece, start_at)
    while pos != -1:
        yield pos, pos + len(piece)
        pos = text.find(piece, pos + 1)
    word = _tolerant_word if marks else re.escape
    pattern = re.compile(r"\s+".join(word(w) for w in piece.split()))
    for match in pattern.finditer(text, start_at):
        yield match.span()


def _tolerant_word(word: str) -> str:
    """A pattern for ``word`` in which each quote mark or dash matches any of its kind."""
    return "".join(_QUOTE_CLASS if c in QUOTE_MARKS else _DASH_CLASS if c in DASHES
                   else re.escape(c) for c in word)


def _rank(span: tuple[int, int], text: str, taken: Collection[tuple[int, int]]) -> int:
    """How well an occurrence suits: 0 best; 3 when another copy already has this span."""
    if span in taken:
        return 3
    # Another copy covers this text, so this one likely means a later mention (a party's
    # full name, then its defined short name).
    if any(start < span[1] and span[0] < end for start, end in taken):
        return 2
    # A short copy ("MA") also occurs inside longer words ("MARKETING").
    return 0 if _on_word_boundaries(text, *span) else 1


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    cuts_left = start > 0 and text[start - 1].isalnum() and text[start].isalnum()
    cuts_right = end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    return not (cuts_left or cuts_right)
