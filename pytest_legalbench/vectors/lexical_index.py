"""BM25 (Okapi, through rank_bm25) over texts, with a tokenisation that never varies.

Words are runs of ASCII letters and digits after Unicode case folding; nothing is stemmed
or dropped, so the index depends on the texts alone (no language data, no locale).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_legalbench.vectors.ranking import SCORE_PRECISION

_WORD = re.compile(r"[a-z0-9]+")


def tokenise(text: str) -> list[str]:
    """The lower-case letter-and-digit words of ``text``, in order."""
    return _WORD.findall(text.casefold())


class LexicalIndex:
    """BM25 scores of a question against a fixed list of texts."""

    def __init__(self, texts: Sequence[str]) -> None:
        from rank_bm25 import BM25Okapi

        self.size = len(texts)
        # BM25Okapi divides by the corpus size, so an empty corpus gets no model at all; an
        # empty text is given a placeholder word so that it still occupies its row.
        self._bm25: Any = (BM25Okapi([tokenise(t) or ["\0"] for t in texts]) if texts
                           else None)

    def scores(self, question: str) -> list[float]:
        """One BM25 score per text, rounded to the fixed precision."""
        if self._bm25 is None:
            return []
        raw = self._bm25.get_scores(tokenise(question))
        return [round(float(value), SCORE_PRECISION) for value in raw]
