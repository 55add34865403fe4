"""The inject mode: every document whole, answered over one cached block, or refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import Corpus, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.inject import InjectMode
from pytest_legalbench.modes.inject_context import inject_context
from pytest_legalbench.run.answering import respond
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import lease_corpus, lease_documents, reference_client


def test_every_document_is_one_provision_its_root() -> None:
    corpus = lease_corpus()
    retrieval = InjectMode(corpus, ModeSettings()).retrieve("anything", question_id="q1")
    assert retrieval.mode == "inject"
    roots = [index.root for index in corpus.indexes]
    assert [p.node_id for p in retrieval.provisions] == [r.node_id for r in roots]
    assert all((p.start, p.end, p.text) == (0, len(d.text), d.text)
               for p, d in zip(retrieval.provisions, corpus.documents, strict=True))
    assert retrieval.payload_tokens == sum(estimate_tokens(d.text) for d in corpus.documents)
    assert (retrieval.scan_tokens, retrieval.calls) == (0, ())


def test_without_indexes_the_roots_are_the_same() -> None:
    indexed = InjectMode(lease_corpus(), ModeSettings()).retrieve("q")
    bare = InjectMode(Corpus(lease_documents(), (), None), ModeSettings()).retrieve("q")
    assert bare.provisions == indexed.provisions


def test_a_corpus_over_the_context_window_is_refused() -> None:
    documents = lease_documents()
    needed = estimate_tokens(inject_context(documents).corpus)
    with pytest.raises(ModeUnavailable, match="does not fit") as refused:
        InjectMode(Corpus(documents, (), None), ModeSettings(context_window=needed))
    assert "context window is" in refused.value.reason


def test_the_answer_goes_over_the_cached_documents() -> None:
    corpus = lease_corpus()
    mode = InjectMode(corpus, ModeSettings())
    assert mode.traits.shown == "corpus" and mode.traits.baseline
    with reference_client() as client:
        retrieval, completion = respond(mode, "What law governs the lease?", client, "m",
                                        question_id="q1")
        calls = client.ledger.calls
        # A mode that says it shows the corpus must have one to show.
        contextless = type("Contextless", (), {"name": "x", "traits": mode.traits,
                                               "retrieve": mode.retrieve})()
        with pytest.raises(TypeError, match="shows the whole corpus, but has no context"):
            respond(contextless, "q?", client, "m")
    assert "Delaware" in completion.text
    assert [(c.stage, c.question_id) for c in calls] == [("inject.answer", "q1")]
    assert calls[0].usage.cache_creation_input_tokens >= retrieval.payload_tokens


@pytest.mark.corpus
def test_the_cuad_profile_does_not_fit(corpus_root: Path, tmp_path: Path) -> None:
    documents = load_documents(Selection("cuad"), corpus_dir=corpus_root, cache_dir=tmp_path)
    assert len(documents) > 100
    with pytest.raises(ModeUnavailable, match="does not fit") as refused:
        InjectMode(Corpus(documents, (), None), ModeSettings())
    assert f"{len(documents)} documents" in refused.value.reason
    assert "200000" in refused.value.reason
