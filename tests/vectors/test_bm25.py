"""The sparse BM25 scorer gives rank_bm25's BM25Okapi scores."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from pytest_legalbench.vectors.bm25 import SparseBM25
from pytest_legalbench.vectors.lexical_index import LexicalIndex, tokenise

TEXTS = [
    "The Territory is the United States.",
    "Distributor may not distribute outside the Territory without consent.",
    "The Territory listed in Section 2 is amended to be the United States and Canada.",
    "Royalties are due within thirty days after the end of each quarter.",
    "Late payments bear interest at one and one half percent per month.",
    "",
]


def test_scores_equal_rank_bm25_on_a_small_corpus() -> None:
    tokenised = [tokenise(t) or ["\0"] for t in TEXTS]
    reference = BM25Okapi(tokenised)
    ours = SparseBM25(tokenised)
    for question in ("What is the Territory?", "territory territory united states",
                     "interest on late royalties", "nothing matches here", ""):
        query = tokenise(question)
        assert np.allclose(ours.scores(query), reference.get_scores(query), rtol=1e-12,
                           atol=1e-12), question


def test_a_word_in_more_than_half_the_texts_gets_rank_bm25_s_floor() -> None:
    texts = [["the", "a"], ["the", "b"], ["the", "c"], ["d"]]
    ours = SparseBM25(texts)
    reference = BM25Okapi(texts)
    # log(4 - 3 + 0.5) - log(3 + 0.5) < 0, so "the" gets epsilon times the mean idf.
    assert ours.idf[ours.vocabulary["the"]] == pytest.approx(reference.idf["the"])
    assert reference.idf["the"] == pytest.approx(0.25 * reference.average_idf)


_WORDS = st.lists(st.sampled_from("abcdefgh"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=12), _WORDS)
def test_scores_equal_rank_bm25_for_any_corpus(texts: list[list[str]],
                                               query: list[str]) -> None:
    filled = [t or ["\0"] for t in texts]
    assert np.allclose(SparseBM25(filled).scores(query), BM25Okapi(filled).get_scores(query),
                       rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=12), st.lists(st.sampled_from("abcdefghij"),
                                                             max_size=12))
def test_scores_are_the_sparse_product_to_the_bit(texts: list[list[str]],
                                                  query: list[str]) -> None:
    from collections import Counter

    from scipy.sparse import csr_matrix  # type: ignore[import-untyped]

    filled = [t or ["\0"] for t in texts]
    ours = SparseBM25(filled)
    # The scorer's own rows as a scipy matrix, scored the way it was before scipy left.
    matrix = csr_matrix((ours._weights, ours._texts, ours._starts),
                        shape=(len(ours.vocabulary), ours.size))
    wanted = Counter(word for word in query if word in ours.vocabulary)
    rows = [ours.vocabulary[word] for word in wanted]
    factors = np.asarray([wanted[word] for word in wanted], dtype=np.float64) * ours.idf[rows]
    expected = (np.asarray(matrix[rows].T @ factors).reshape(ours.size) if rows
                else np.zeros(ours.size))
    assert ours.scores(query).tolist() == expected.tolist()


def test_the_lexical_index_keeps_its_rows_and_rounds() -> None:
    index = LexicalIndex(TEXTS)
    scores = index.scores("Territory United States")
    assert len(scores) == index.size == len(TEXTS)
    assert scores[-1] == 0.0 and max(scores) == scores[0]
    assert all(round(s, 6) == s for s in scores)
    assert LexicalIndex([]).scores("anything") == []
    with pytest.raises(ValueError, match="at least one text"):
        SparseBM25([])
