"""What inject reads for a question: the scope resolved against the window, a question's
transaction set, and one inject per set built on first use and kept."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import Corpus, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.inject_context import inject_context
from pytest_legalbench.modes.inject_scope import (
    ScopedInject,
    resolve_scope,
    set_name,
    set_of,
)
from pytest_legalbench.modes.registry import build_mode
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    two_deal_corpus,
)


def _corpus() -> Corpus:
    """The lease and the supply deal, each with its amendment, filed as two sets; plus a
    document filed in none."""
    base = two_deal_corpus()
    sets = {LEASE: "lease-set", LEASE_AMENDMENT: "lease-set", SUPPLY: "supply-set",
            SUPPLY_AMENDMENT: "supply-set"}
    documents = tuple(dataclasses.replace(d, transaction_set=sets[d.doc_id])
                      for d in base.documents)
    loose = Document(doc_id="memo", title="Memo", text="A short memo about nothing.")
    return Corpus((*documents, loose), base.indexes, None)


def _window(documents: tuple[Document, ...]) -> int:
    """The smallest window these documents fit."""
    low, high = 1, 10_000_000
    while low < high:
        middle = (low + high) // 2
        try:
            inject_context(documents, middle)
        except ValueError:
            low = middle + 1
        else:
            high = middle
    return low


def test_auto_reads_the_corpus_when_it_fits_and_the_set_when_it_does_not() -> None:
    corpus = _corpus()
    fits = _window(corpus.documents)
    found = resolve_scope("auto", corpus.documents, fits)
    assert (found.asked, found.scope) == ("auto", "corpus")
    assert found.reason == (f"inject reads the whole corpus (auto: its 5 documents fit the "
                            f"{fits:,}-token window)")
    found = resolve_scope("auto", corpus.documents, fits - 1)
    assert found.scope == "set"
    assert found.reason.startswith("inject reads each question's transaction set (auto: inject "
                                   "does not fit: 5 documents need about")
    assert resolve_scope("set", corpus.documents, fits).scope == "set"
    assert resolve_scope("corpus", corpus.documents, 10).scope == "corpus"
    with pytest.raises(ValueError, match="unknown inject scope 'all': choose auto, corpus or "
                                         "set"):
        resolve_scope("all", corpus.documents, fits)


def test_a_questions_set_is_every_document_filed_with_its_documents() -> None:
    documents = _corpus().documents
    assert [d.doc_id for d in set_of([LEASE_AMENDMENT], documents)] == [LEASE, LEASE_AMENDMENT]
    assert [d.doc_id for d in set_of([SUPPLY, LEASE], documents)] == [
        LEASE, LEASE_AMENDMENT, SUPPLY, SUPPLY_AMENDMENT]
    assert [d.doc_id for d in set_of(["memo"], documents)] == ["memo"]  # a set of its own
    with pytest.raises(ValueError, match="the corpus holds no document 'gone'"):
        set_of(["gone", LEASE], documents)
    assert set_name([SUPPLY_AMENDMENT, LEASE, SUPPLY], documents) == "lease-set+supply-set"
    assert set_name(["memo"], documents) == "memo"


def test_scoped_inject_reads_the_questions_set_and_keeps_each_set_built() -> None:
    corpus = _corpus()
    lease_set = tuple(d for d in corpus.documents if d.transaction_set == "lease-set")
    # The lease set fits; the whole corpus does not.
    settings = ModeSettings(context_window=_window(lease_set) + 200)
    scoped = ScopedInject(corpus, settings)
    assert scoped.resolved.scope == "set"
    mode = scoped.mode_for([LEASE_AMENDMENT])
    retrieval = mode.retrieve("What is the rent?")
    assert retrieval.scope == "set"
    assert [p.doc_id for p in retrieval.provisions] == [LEASE, LEASE_AMENDMENT]
    assert scoped.mode_for([LEASE]) is mode
    with pytest.raises(ModeUnavailable, match="the corpus holds no document 'gone'"):
        scoped.mode_for(["gone"])
    with pytest.raises(ModeUnavailable, match="names no document"):
        scoped.mode_for([])


def test_a_set_that_does_not_fit_is_unavailable_and_remembered() -> None:
    corpus = _corpus()
    scoped = ScopedInject(corpus, ModeSettings(context_window=_window((corpus.documents[-1],))))
    assert scoped.mode_for(["memo"]).retrieve("q").scope == "set"
    for _ in range(2):
        with pytest.raises(ModeUnavailable, match="inject does not fit"):
            scoped.mode_for([SUPPLY])


def test_the_corpus_scope_reads_everything_for_every_question() -> None:
    corpus = _corpus()
    scoped = ScopedInject(corpus, ModeSettings(inject_scope="corpus"))
    retrieval = scoped.mode_for([LEASE]).retrieve("q")
    assert retrieval.scope == "corpus"
    assert len(retrieval.provisions) == len(corpus.documents)
    assert scoped.mode_for([SUPPLY]) is scoped.mode_for([LEASE])


def test_a_mode_built_on_its_own_cannot_read_a_set() -> None:
    with pytest.raises(ModeUnavailable, match="the inject scope 'set' reads the transaction set"):
        build_mode("inject", _corpus(), ModeSettings(inject_scope="set"), None)
    with pytest.raises(ValueError, match="mode setting 'inject_scope' is one of auto, corpus, "
                                         "set, got 'all'"):
        ModeSettings(inject_scope="all")
