"""A LangChain and a LlamaIndex retriever as modes (``langchain_mode``, ``llamaindex_mode``):
the corpus handed over as the framework's own documents, the results read back as passages
with their spans where the framework kept exact ones, and a result without a doc_id or a
framework that is not installed failing in one line."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from langchain_core.documents import Document as LangChainDocument
from langchain_core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

from pytest_legalbench import langchain_mode, llamaindex_mode
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.registry import ModeRegistry
from pytest_legalbench.modes.retriever_api import RetrieverQuestion
from pytest_legalbench.modes.retriever_failures import RetrieverFailed
from pytest_legalbench.modes.retriever_mode import retriever_corpus
from tests.support.framework_conftest import pytest_legalbench_modes
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, LEASE_TEXT, lease_corpus

QUESTION = RetrieverQuestion("q", "Which insurance must the Lessee keep for the Equipment?")


class Fixed(BaseRetriever):
    """A LangChain retriever that returns the documents it was made with."""

    results: list[LangChainDocument]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[
            LangChainDocument]:
        return self.results


def _corpus() -> Any:
    return retriever_corpus(lease_corpus(), ModeSettings(), 30.0)


def test_the_corpus_reaches_each_framework_as_its_own_documents() -> None:
    given: dict[str, list[Any]] = {}

    def keep(name: str) -> Any:
        def make(documents: list[Any]) -> Any:
            given[name] = documents
            return Fixed(results=[])
        return make

    langchain_mode(keep("lc"))(_corpus())
    assert [type(d).__name__ for d in given["lc"]] == ["Document", "Document"]
    assert given["lc"][0].page_content == LEASE_TEXT
    assert given["lc"][0].metadata == {"doc_id": LEASE, "title": "Equipment Lease",
                                       "role": "base"}
    assert given["lc"][1].metadata["doc_id"] == LEASE_AMENDMENT
    assert given["lc"][1].metadata["role"] == "amendment"

    def llama(documents: list[Any]) -> Any:
        given["li"] = documents
        return object()  # not a retriever: the factory says so after building the documents

    with pytest.raises(TypeError, match="not a LlamaIndex retriever"):
        llamaindex_mode(llama)(_corpus())
    from llama_index.core import Document

    assert all(isinstance(d, Document) for d in given["li"])
    assert given["li"][0].text == LEASE_TEXT and given["li"][0].id_ == LEASE
    assert given["li"][0].metadata["doc_id"] == LEASE


def test_results_become_passages_with_exact_spans_only() -> None:
    start = LEASE_TEXT.index("4. INSURANCE")
    exact = LEASE_TEXT[start:start + 40]
    results = [
        LangChainDocument(page_content=exact, metadata={"doc_id": LEASE, "start_index": start}),
        # An offset that does not hold the text: the harness locates it instead.
        LangChainDocument(page_content=exact, metadata={"doc_id": LEASE, "start_index": 3,
                                                        "score": 0.5}),
        LangChainDocument(page_content="no span at all", metadata={"doc_id": LEASE_AMENDMENT}),
    ]
    retriever = langchain_mode(lambda documents: Fixed(results=results))(_corpus())
    passages = retriever.retrieve(QUESTION)
    assert [(p.doc_id, p.start, p.end, p.score) for p in passages] == [
        (LEASE, start, start + 40, None), (LEASE, None, None, 0.5),
        (LEASE_AMENDMENT, None, None, None)]

    class Nodes:
        def retrieve(self, query: str) -> list[NodeWithScore]:
            return [NodeWithScore(node=TextNode(text=exact, metadata={"doc_id": LEASE},
                                                start_char_idx=start,
                                                end_char_idx=start + 40), score=0.9)]

    (passage,) = llamaindex_mode(lambda documents: Nodes())(_corpus()).retrieve(QUESTION)
    assert (passage.doc_id, passage.start, passage.end, passage.score) == (
        LEASE, start, start + 40, 0.9)


def test_a_result_without_a_doc_id_fails_its_item_in_one_line() -> None:
    registry = ModeRegistry.registered([("conftest.py", {"lc": langchain_mode(
        lambda documents: Fixed(results=[LangChainDocument(page_content="text")]))})])
    mode = registry.build("lc", lease_corpus(), ModeSettings(), None)
    with pytest.raises(RetrieverFailed) as failed:
        mode.retrieve(QUESTION.text, question_id="q")
    assert str(failed.value).startswith("mode 'lc', question 'q': LangChain result 1 has no "
                                        "doc_id in its metadata")


def test_a_framework_that_is_not_installed_is_named_with_its_extra(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core.documents", None)
    registry = ModeRegistry.registered([("conftest.py", {"lc": langchain_mode(list)})])
    with pytest.raises(RetrieverFailed, match=r"pip install 'pytest-legalbench\[langchain\]'"):
        registry.build("lc", lease_corpus(), ModeSettings(), None)


@pytest.mark.parametrize("name", ["lc", "li"])
def test_the_frameworks_in_memory_stores_retrieve_located_provisions(name: str) -> None:
    registry = ModeRegistry.registered([("conftest.py", pytest_legalbench_modes())])
    retrieval = registry.build(name, lease_corpus(), ModeSettings(), None).retrieve(
        QUESTION.text, question_id="q")
    assert len(retrieval.provisions) == 3
    assert not any(p.unlocated for p in retrieval.provisions)
    texts = {LEASE: LEASE_TEXT}
    for provision in retrieval.provisions:
        if provision.doc_id in texts:
            assert provision.text == texts[provision.doc_id][provision.start:provision.end]
    assert any("insure the Equipment" in p.text for p in retrieval.provisions)
