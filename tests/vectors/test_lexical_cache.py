"""The BM25 cache: an index read back scores exactly as the one built, and an entry that is
unfinished, damaged or built another way is never read as this one."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.vectors.lexical_cache import (
    LexicalCache,
    LexicalCacheWarning,
    lexical_digest,
)
from pytest_legalbench.vectors.lexical_index import LexicalIndex

TEXTS = ["The Licensee shall pay royalties quarterly.", "",
         "Royalties accrue on net receipts; payment is due within 30 days.",
         "This Agreement is governed by the laws of Delaware."]
QUESTIONS = ["Who is the licensee?", "Which state's law governs?", "nothing matches"]


def _scores(index: LexicalIndex) -> list[list[float]]:
    return [index.scores(q) for q in QUESTIONS]


def test_a_read_index_scores_as_the_built_one(tmp_path: Path) -> None:
    built = LexicalIndex(TEXTS, stem_words=True)
    first = LexicalIndex(TEXTS, stem_words=True, cache_dir=tmp_path)
    entries = sorted(p.name for p in (tmp_path / "lexical").iterdir())
    assert [Path(e).suffix for e in entries] == [".json", ".npz"]
    again = LexicalIndex(TEXTS, stem_words=True, cache_dir=tmp_path)
    assert _scores(first) == _scores(built) == _scores(again)
    assert _scores(built)[0][0] > 0 and _scores(built)[1][3] > 0


def test_the_tokenisation_and_the_texts_are_part_of_the_key() -> None:
    assert lexical_digest(TEXTS, "words") != lexical_digest(TEXTS, "stemmed")
    assert lexical_digest(TEXTS, "words") != lexical_digest(TEXTS[:-1], "words")
    # Length-prefixed: moving a boundary between two texts is a different corpus.
    assert lexical_digest(["ab", "c"], "words") != lexical_digest(["a", "bc"], "words")


def test_stemmed_and_plain_indexes_of_the_same_texts_are_separate_entries(
        tmp_path: Path) -> None:
    LexicalIndex(TEXTS, stem_words=True, cache_dir=tmp_path)
    plain = LexicalIndex(TEXTS, cache_dir=tmp_path)
    assert len(list((tmp_path / "lexical").glob("*.json"))) == 2
    assert _scores(plain) == _scores(LexicalIndex(TEXTS))


def test_an_entry_without_its_manifest_is_a_miss(tmp_path: Path) -> None:
    LexicalIndex(TEXTS, cache_dir=tmp_path)
    (manifest,) = (tmp_path / "lexical").glob("*.json")
    manifest.unlink()
    digest = manifest.stem
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert LexicalCache(tmp_path).get(digest, len(TEXTS)) is None


@pytest.mark.parametrize("damage", ["truncated arrays", "wrong size", "words shuffled off"])
def test_a_damaged_entry_warns_naming_it_and_is_rebuilt(tmp_path: Path, damage: str) -> None:
    LexicalIndex(TEXTS, cache_dir=tmp_path)
    (manifest,) = (tmp_path / "lexical").glob("*.json")
    if damage == "truncated arrays":
        arrays = manifest.with_suffix(".npz")
        arrays.write_bytes(arrays.read_bytes()[:40])
    else:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if damage == "wrong size":
            data["size"] += 1
        else:
            data["words"] = data["words"][:-1]
        manifest.write_text(json.dumps(data), encoding="utf-8")
    with pytest.warns(LexicalCacheWarning, match=manifest.name):
        rebuilt = LexicalIndex(TEXTS, cache_dir=tmp_path)
    assert _scores(rebuilt) == _scores(LexicalIndex(TEXTS))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rebuild replaced the damaged entry
        assert _scores(LexicalIndex(TEXTS, cache_dir=tmp_path)) == _scores(rebuilt)


_WORDS = st.sampled_from(["pay", "payment", "royalty", "royalties", "term", "terminate",
                          "notice", "delaware", "30", "net"])


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.lists(_WORDS, max_size=12).map(" ".join), min_size=1, max_size=8),
       query=st.lists(_WORDS, min_size=1, max_size=5).map(" ".join))
def test_any_corpus_read_back_scores_bit_for_bit(tmp_path_factory: pytest.TempPathFactory,
                                                 texts: list[str], query: str) -> None:
    folder = tmp_path_factory.mktemp("lexical")
    LexicalIndex(texts, stem_words=True, cache_dir=folder)
    read = LexicalIndex(texts, stem_words=True, cache_dir=folder)
    built = LexicalIndex(texts, stem_words=True)
    assert np.array_equal(read.scores(query), built.scores(query))
