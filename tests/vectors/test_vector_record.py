"""The vector record beside the cassettes and stored question vectors: read before the model
is loaded, verified on load, and never trusted when truncated or made for another model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pytest_legalbench.vectors.dense_index import DenseIndex, flat_group, group_digest
from pytest_legalbench.vectors.embedding import (
    EmbeddedTexts,
    Embedder,
    WeightedTexts,
    configured_max_seq_length,
    packaged_model_path,
    query_digest,
)
from pytest_legalbench.vectors.query_vectors import QueryVectors
from pytest_legalbench.vectors.vector_cache import VectorCache
from pytest_legalbench.vectors.vector_record import (
    VectorRecord,
    VectorRecordWarning,
    record_path,
    write_record,
)

REPO = Path(__file__).resolve().parents[2]
MODEL = "ab12cd34"


class CountingEmbedder(Embedder):
    """A two-dimensional embedder that counts the texts it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(Path("/counting-embedder"))
        self.texts: list[str] = []

    @property
    def digest(self) -> str:
        return MODEL

    def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
        self.texts.extend(texts)
        rows = np.array([[1.0, 0.0] if "a" in t else [0.0, 1.0] for t in texts],
                        dtype=np.float32)
        return WeightedTexts(rows, (1,) * len(texts), (1,) * len(texts))


def _entry(rows: int) -> EmbeddedTexts:
    vectors = np.eye(rows, 3, dtype=np.float32)
    return EmbeddedTexts(vectors, 0)


def test_a_written_record_reads_back_entry_by_entry(tmp_path: Path) -> None:
    path = write_record(tmp_path, MODEL, "test-model", {"00aa11bb": _entry(2),
                                                        "22cc33dd": EmbeddedTexts(
                                                            np.ones((1, 3), np.float32), 1)})
    assert path == record_path(tmp_path, MODEL)
    record = VectorRecord(tmp_path, MODEL)
    found = record.get("00aa11bb", 2)
    assert found is not None and np.array_equal(found.vectors, np.eye(2, 3))
    assert record.get("22cc33dd", 1) == record.get("22cc33dd", 1)
    assert record.get("22cc33dd", 1).windowed == 1  # type: ignore[union-attr]
    assert record.get("00aa11bb", 3) is None  # another count is another text list
    assert record.get("ffffffff", 1) is None


def test_a_truncated_record_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = write_record(tmp_path, MODEL, "test-model", {"00aa11bb": _entry(2)})
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.warns(VectorRecordWarning, match="not used"):
        assert VectorRecord(tmp_path, MODEL).get("00aa11bb", 2) is None


def test_a_record_of_another_model_is_foreign(tmp_path: Path) -> None:
    write_record(tmp_path, MODEL, "test-model", {"00aa11bb": _entry(2)})
    record_path(tmp_path, MODEL).rename(record_path(tmp_path, "99999999"))
    with pytest.warns(VectorRecordWarning, match="foreign"):
        assert VectorRecord(tmp_path, "99999999").get("00aa11bb", 2) is None


def test_an_absent_record_is_a_quiet_miss(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert VectorRecord(tmp_path, MODEL).get("00aa11bb", 2) is None


def test_the_dense_index_takes_recorded_groups_and_embeds_only_changed_ones(
        tmp_path: Path) -> None:
    same = flat_group([("x", "a text"), ("y", "other")])
    changed = flat_group([("z", "new words")])
    write_record(tmp_path / "record", MODEL, "test-model",
                 {group_digest(same): EmbeddedTexts(np.eye(2, dtype=np.float32), 0)})
    embedder = CountingEmbedder()
    said: list[str] = []
    index = DenseIndex.build(embedder, [same, changed], tmp_path / "cache",
                             record_dir=tmp_path / "record", progress=said.append)
    assert embedder.texts == ["new words"]
    assert index.groups_cached == 1 and index.vectors.shape == (3, 2)
    assert any("1 changed since it was recorded" in line for line in said)
    # The embedded group went to the cache, never into the record.
    assert VectorCache(tmp_path / "cache").entries(MODEL).keys() == {group_digest(changed)}


def test_question_vectors_come_from_the_cache_then_the_record(tmp_path: Path) -> None:
    write_record(tmp_path / "record", MODEL, "test-model",
                 {query_digest("recorded?"): EmbeddedTexts(np.array([[0.6, 0.8]], np.float32),
                                                           0)})
    embedder = CountingEmbedder()
    queries = QueryVectors(embedder, tmp_path / "cache", tmp_path / "record")
    assert queries.vector("recorded?").tolist() == pytest.approx([0.6, 0.8])
    assert queries.vector("a new one?").tolist() == [1.0, 0.0]
    assert embedder.texts == ["a new one?"]
    again = CountingEmbedder()
    # A later process finds the new question in the cache.
    assert QueryVectors(again, tmp_path / "cache", None).vector("a new one?").tolist() == [1, 0]
    assert again.texts == []


def test_the_window_is_read_from_the_model_folder(tmp_path: Path) -> None:
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    assert configured_max_seq_length(tmp_path) == 128
    assert configured_max_seq_length(tmp_path / "absent") is None
    (tmp_path / "sentence_bert_config.json").write_text("{}")
    assert configured_max_seq_length(tmp_path) is None
    assert configured_max_seq_length(packaged_model_path()) == 256


@pytest.mark.corpus
def test_a_replay_of_recorded_texts_never_imports_torch(corpus_root: Path,
                                                        tmp_path: Path) -> None:
    """navembed:closure and the chunks baseline answer the question set's first questions
    from the committed record, with an empty cache, in a process that never loads torch."""
    script = """
import sys
from pathlib import Path
from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes import navembed
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.navindex.corpus import build_indexes
corpus_dir, cache, record = (Path(a) for a in sys.argv[1:4])
documents = load_documents(Selection("transactions"), corpus_dir=corpus_dir, cache_dir=cache)
corpus = Corpus(documents, build_indexes(documents, cache_dir=cache), cache,
                vector_record=record)
questions = load_question_set(question_sets_dir() / "transactions")[:3]
for strategy in ("closure", "chunks"):
    mode = navembed.build(strategy, corpus, ModeSettings(), None)
    for question in questions:
        assert mode.retrieve(question.question).provisions
print("torch" in sys.modules, "sentence_transformers" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", script, str(corpus_root), str(tmp_path / "cache"),
         str(REPO / "cassettes" / "vectors")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


@pytest.mark.corpus
def test_the_committed_record_holds_what_the_model_computes(transactions_corpus: Any) -> None:
    """Replays and tests read the committed record instead of the model: one document's
    recorded unit vectors are what the packaged model gives for its units today."""
    from pytest_legalbench.modes.unit_space import UnitSpace

    groups = UnitSpace.of(transactions_corpus).groups
    smallest = min((g for g in groups.values() if g), key=len)
    embedder = Embedder(packaged_model_path())
    recorded = VectorRecord(REPO / "cassettes" / "vectors", embedder.digest).get(
        group_digest(smallest), len(smallest))
    assert recorded is not None, "the record lacks the document: re-record it (README)"
    computed = DenseIndex.build(embedder, [smallest], None).vectors
    np.testing.assert_allclose(computed, recorded.vectors, atol=1e-5)
