"""A LangChain or LlamaIndex retriever as a mode, in one line of a conftest:

    def pytest_legalbench_modes():
        return {"lc": langchain_mode(make_retriever), "li": llamaindex_mode(make_index_retriever)}

``make_retriever(documents)`` is the user's: it is given the corpus as the framework's own
``Document`` objects (one per document, its whole text, ``doc_id``, ``title``, ``source``,
``transaction_set``, ``role`` and ``date`` in the metadata), builds whatever it likes from them
(split, embed, index) and returns a retriever: a LangChain ``BaseRetriever`` (anything with
``invoke(query)`` returning documents) or a LlamaIndex ``BaseRetriever`` (anything with
``retrieve(query)`` returning nodes with scores). Each question's results become ``Passage``
objects in the order the framework ranked them: the text of each, the ``doc_id`` its metadata
carries (splitters and node parsers copy the document's metadata to every piece), a span when
the framework kept one that matches the document's text exactly (LangChain's ``start_index``,
LlamaIndex's ``start_char_idx``/``end_char_idx``), else the harness locates the text, and the
framework's score where it gives one.

The frameworks are optional extras (``pip install 'pytest-legalbench[langchain]'``,
``[llamaindex]``), imported only when a mode built with them is first built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from pytest_legalbench.modes.retriever_api import (
    Passage,
    RetrieverCorpus,
    RetrieverDocument,
    RetrieverQuestion,
)
from pytest_legalbench.modes.retriever_failures import RetrieverProblem

#: What a factory made by this module is: called with the corpus, it returns a retriever.
Factory = Callable[[RetrieverCorpus], "FrameworkRetriever"]


def document_metadata(document: RetrieverDocument) -> dict[str, str]:
    """The metadata every framework document carries (empty values left out)."""
    found = {"doc_id": document.doc_id, "title": document.title, "source": document.path,
             "transaction_set": document.transaction_set or "", "role": document.role,
             "date": document.date or ""}
    return {key: value for key, value in found.items() if value}


def langchain_mode(make_retriever: Callable[[list[Any]], Any]) -> Factory:
    """A mode's factory over a LangChain retriever: ``make_retriever`` is given the corpus as
    ``langchain_core.documents.Document`` objects and returns the retriever."""
    def factory(corpus: RetrieverCorpus) -> FrameworkRetriever:
        documents_module = _framework("langchain_core.documents", "langchain")
        documents = [documents_module.Document(page_content=d.text,
                                               metadata=document_metadata(d))
                     for d in corpus.documents]
        retriever = make_retriever(documents)
        if not callable(getattr(retriever, "invoke", None)):
            raise TypeError(f"make_retriever returned a {type(retriever).__name__}, not a "
                            f"LangChain retriever (no invoke(query) method)")
        return FrameworkRetriever("LangChain", retriever, corpus, _langchain_results)

    return factory


def llamaindex_mode(make_retriever: Callable[[list[Any]], Any]) -> Factory:
    """A mode's factory over a LlamaIndex retriever: ``make_retriever`` is given the corpus
    as ``llama_index.core.Document`` objects and returns the retriever."""
    def factory(corpus: RetrieverCorpus) -> FrameworkRetriever:
        core = _framework("llama_index.core", "llamaindex")
        documents = [core.Document(text=d.text, id_=d.doc_id, metadata=document_metadata(d),
                                   # The source path says nothing about the content: kept
                                   # for the user, out of what is embedded and shown.
                                   excluded_embed_metadata_keys=["source"],
                                   excluded_llm_metadata_keys=["source"])
                     for d in corpus.documents]
        retriever = make_retriever(documents)
        if not callable(getattr(retriever, "retrieve", None)):
            raise TypeError(f"make_retriever returned a {type(retriever).__name__}, not a "
                            f"LlamaIndex retriever (no retrieve(query) method)")
        return FrameworkRetriever("LlamaIndex", retriever, corpus, _llamaindex_results)

    return factory


#: One framework result as the adapter reads it: (text, metadata, start, end, score).
Result = tuple[str, Mapping[str, Any], int | None, int | None, float | None]


class FrameworkRetriever:
    """A framework's retriever answering as a pytest-legalbench retriever."""

    def __init__(self, framework: str, retriever: Any, corpus: RetrieverCorpus,
                 results: Callable[[Any, str], list[Result]]) -> None:
        self.framework = framework
        self.retriever = retriever
        self.texts = {d.doc_id: d.text for d in corpus.documents}
        self._results = results

    def retrieve(self, question: RetrieverQuestion) -> list[Passage]:
        """The framework's results for the question's text, as passages in its order."""
        passages = []
        for number, (text, metadata, start, end, score) in enumerate(
                self._results(self.retriever, question.text), 1):
            doc_id = metadata.get("doc_id")
            if not isinstance(doc_id, str) or not doc_id:
                raise RetrieverProblem(
                    f"{self.framework} result {number} has no doc_id in its metadata (keep "
                    f"the metadata of the documents make_retriever was given on every piece "
                    f"made from them)")
            whole = self.texts.get(doc_id)
            exact = (whole is not None and start is not None and end is not None
                     and 0 <= start < end <= len(whole) and whole[start:end] == text)
            passages.append(Passage(doc_id=doc_id, text=text,
                                    start=start if exact else None, end=end if exact else None,
                                    score=score))
        return passages


def _langchain_results(retriever: Any, query: str) -> list[Result]:
    found: list[Result] = []
    for document in retriever.invoke(query):
        metadata = dict(getattr(document, "metadata", None) or {})
        text = str(getattr(document, "page_content", ""))
        start = metadata.get("start_index")
        begin = start if isinstance(start, int) and not isinstance(start, bool) else None
        score = metadata.get("score")
        found.append((text, metadata, begin, None if begin is None else begin + len(text),
                      float(score) if isinstance(score, int | float)
                      and not isinstance(score, bool) else None))
    return found


def _llamaindex_results(retriever: Any, query: str) -> list[Result]:
    found: list[Result] = []
    for scored in retriever.retrieve(query):
        node = getattr(scored, "node", scored)
        metadata = dict(getattr(node, "metadata", None) or {})
        text = str(getattr(node, "text", None) or node.get_content())
        start, end = getattr(node, "start_char_idx", None), getattr(node, "end_char_idx", None)
        score = getattr(scored, "score", None)
        found.append((text, metadata, start if isinstance(start, int) else None,
                      end if isinstance(end, int) else None,
                      float(score) if isinstance(score, int | float) else None))
    return found


def _framework(module: str, extra: str) -> Any:
    """The framework module, or ImportError saying which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{module} is not installed ({error}): install it with "
                          f"pip install 'pytest-legalbench[{extra}]'") from None

