"""Okapi BM25 as a sparse matrix: the scores of ``rank_bm25.BM25Okapi``, in milliseconds.

rank_bm25 scores a query by walking every document's term dictionary once per query word,
which is seconds on a corpus of 57,000 provisions. Here the per-term, per-text weights
``tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / mean length))`` are computed once into a
term-by-text sparse matrix (compressed rows, kept as three numpy arrays), and a query adds,
for each of its words, that word's row times its count and idf. The parameters and the idf
floor are rank_bm25's: ``k1 = 1.5``, ``b = 0.75``, and a word in more than half the texts
(negative idf) gets ``epsilon * mean idf`` with ``epsilon = 0.25``. A query word counts as
often as it is written, as in rank_bm25.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

K1 = 1.5
B = 0.75
EPSILON = 0.25


@dataclass(frozen=True)
class SparseRows:
    """A built index's arrays: per word (row) a slice ``starts[row]:starts[row + 1]`` of
    the texts holding it and their weights, and the word's idf."""

    starts: NDArray[np.int64]
    texts: NDArray[np.int64]
    weights: NDArray[np.float64]
    idf: NDArray[np.float64]


class SparseBM25:
    """BM25 scores of queries against a fixed list of tokenised texts."""

    @classmethod
    def from_rows(cls, rows: SparseRows, words: Sequence[str], size: int) -> SparseBM25:
        """An index from the arrays ``rows`` of one built over ``size`` texts whose
        vocabulary, in row order, is ``words`` (what ``lexical_cache`` stores)."""
        index = cls.__new__(cls)
        index.size = size
        index.vocabulary = {word: row for row, word in enumerate(words)}
        index._starts, index._texts, index._weights = rows.starts, rows.texts, rows.weights
        index.idf = rows.idf
        return index

    def rows(self) -> SparseRows:
        """The index's arrays, for storing it."""
        return SparseRows(self._starts, self._texts, self._weights, self.idf)

    def __init__(self, texts: Sequence[Sequence[str]], *, k1: float = K1, b: float = B,
                 epsilon: float = EPSILON) -> None:
        if not texts:
            raise ValueError("BM25 needs at least one text")
        self.size = len(texts)
        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        columns: list[int] = []
        counts: list[int] = []
        lengths = np.zeros(self.size, dtype=np.float64)
        holding: Counter[int] = Counter()
        for column, words in enumerate(texts):
            lengths[column] = len(words)
            for word, count in Counter(words).items():
                row = vocabulary.setdefault(word, len(vocabulary))
                rows.append(row)
                columns.append(column)
                counts.append(count)
                holding[row] += 1
        self.vocabulary = vocabulary
        mean_length = float(lengths.sum()) / self.size
        tf = np.asarray(counts, dtype=np.float64)
        norm = k1 * (1 - b + b * lengths[np.asarray(columns, dtype=np.int64)] / mean_length)
        weights = tf * (k1 + 1) / (tf + norm)
        # Compressed rows by hand rather than scipy.sparse, whose import alone was a fifth of
        # a second in every process that answers questions. A stable sort keeps each word's
        # texts in ascending order; a word's texts and weights are one slice.
        word_of = np.asarray(rows, dtype=np.int64)
        order = np.argsort(word_of, kind="stable")
        self._starts = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(word_of, minlength=len(vocabulary)), out=self._starts[1:])
        self._texts = np.asarray(columns, dtype=np.int64)[order]
        self._weights = weights[order]
        self.idf = self._idf(holding, epsilon)

    def _idf(self, holding: Counter[int], epsilon: float) -> NDArray[np.float64]:
        idf = np.zeros(len(self.vocabulary), dtype=np.float64)
        for row, held in holding.items():
            idf[row] = math.log(self.size - held + 0.5) - math.log(held + 0.5)
        # rank_bm25's floor: words in more than half the texts score a fraction of the mean.
        floor = epsilon * (float(idf.sum()) / len(idf)) if len(idf) else 0.0
        idf[idf < 0] = floor
        return idf

    def scores(self, query: Sequence[str]) -> NDArray[np.float64]:
        """One score per text for the tokenised ``query`` (words not in any text add 0)."""
        result = np.zeros(self.size, dtype=np.float64)
        # Words in query order, each text's sum built in that order: the same floating-point
        # additions as the sparse product this replaced, so scores did not move by a bit.
        for word, count in Counter(word for word in query if word in self.vocabulary).items():
            row = self.vocabulary[word]
            start, end = int(self._starts[row]), int(self._starts[row + 1])
            # A word occurs once per text in its row, so no index repeats in this addition.
            result[self._texts[start:end]] += (count * self.idf[row]) * self._weights[start:end]
        return result
