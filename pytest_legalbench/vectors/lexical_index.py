"""BM25 (Okapi) over texts, with a tokenisation that never varies.

Words are runs of ASCII letters and digits after Unicode case folding; nothing is stemmed
or dropped unless stemming is asked for (a fixed suffix list, ``stem``), so the index depends
on the texts alone (no language data, no locale). Scores are
rank_bm25's ``BM25Okapi`` scores, computed as a sparse product (``vectors.bm25``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pytest_legalbench.vectors.bm25 import SparseBM25
from pytest_legalbench.vectors.ranking import SCORE_PRECISION

_WORD = re.compile(r"[a-z0-9]+")


#: Suffixes stripped by ``stem``, longest first, each leaving a stem of at least 4 letters.
_SUFFIXES = ("ations", "ation", "ating", "ated", "ates", "ate", "ities", "ity", "ments",
             "ment", "ings", "ing", "ies", "ied", "ed", "es", "s", "e", "y")


def tokenise(text: str) -> list[str]:
    """The lower-case letter-and-digit words of ``text``, in order."""
    return _WORD.findall(text.casefold())


# Memoised: a corpus repeats a few thousand words hundreds of thousands of times, and the
# suffix walk was most of a BM25 build (the stem of a word never changes).
@functools.lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """A crude English stem, so that "mature", "matures" and "maturity" meet ("matur")."""
    if word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def stemmed(text: str) -> list[str]:
    """``tokenise`` with every word stemmed."""
    return [stem(word) for word in tokenise(text)]


class LexicalIndex:
    """BM25 scores of a question against a fixed list of texts."""

    def __init__(self, texts: Sequence[str], *, stem_words: bool = False,
                 cache_dir: Path | None = None) -> None:
        self.size = len(texts)
        self.words = stemmed if stem_words else tokenise
        self._bm25 = None if not texts else (
            self._build(texts) if cache_dir is None else self._cached(texts, cache_dir,
                                                                       stem_words))

    def _build(self, texts: Sequence[str]) -> SparseBM25:
        # An empty text is given a placeholder word so that it still occupies its row (and
        # counts in the mean length, as it did under rank_bm25).
        return SparseBM25([self.words(t) or ["\0"] for t in texts])

    def _cached(self, texts: Sequence[str], cache_dir: Path, stem_words: bool) -> SparseBM25:
        from pytest_legalbench.vectors.lexical_cache import LexicalCache, lexical_digest

        tokeniser = "stemmed" if stem_words else "words"
        cache = LexicalCache(cache_dir)
        digest = lexical_digest(texts, tokeniser)
        found = cache.get(digest, len(texts))
        if found is None:
            found = self._build(texts)
            cache.put(digest, found)
        return found

    def scores(self, question: str) -> list[float]:
        """One BM25 score per text, rounded to the fixed precision."""
        if self._bm25 is None:
            return []
        raw = np.round(self._bm25.scores(self.words(question)), SCORE_PRECISION)
        return [float(value) for value in raw]
