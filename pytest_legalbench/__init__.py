"""pytest-legalbench: retrieval benchmarks over coordinated sets of legal instruments.

The public names are re-exported here and imported on first use, so importing the package
(as pytest does for every session that has the plugin installed) costs nothing. The
retriever API (``Passage``, ``RetrieverCorpus``, ``RetrieverDocument``, ``RetrieverQuestion``,
``RetrieverSettings``, ``Retriever``) is stable: see ``docs/reference/retriever-api.md``;
``langchain_mode`` and ``llamaindex_mode`` make a mode of a LangChain or LlamaIndex retriever
(``docs/how-to/framework-retrievers.md``).

The package reads as the pipeline, one folder per stage, each importing only from the stages
before it: ``defaults`` and ``tokens`` (leaves), ``files``, ``stats``, ``ingest``,
``navindex``, ``llm``, ``vectors``, ``modes``, ``judging``, ``results``, ``gandr``, ``spans``,
``reference_backend``, ``run``, ``plugin`` and ``commands``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from pytest_legalbench.gandr.record import GandrRecord
    from pytest_legalbench.ingest.document import Document
    from pytest_legalbench.ingest.questions import Evidence, Question
    from pytest_legalbench.llm.client import ModelClient
    from pytest_legalbench.llm.ledger import Call, Ledger, Usage
    from pytest_legalbench.modes.base import (
        Corpus,
        Mode,
        ModeSettings,
        ModeUnavailable,
        Provision,
        Retrieval,
    )
    from pytest_legalbench.modes.framework_retrievers import langchain_mode, llamaindex_mode
    from pytest_legalbench.modes.registry import build_mode
    from pytest_legalbench.modes.retriever_api import (
        Passage,
        Retriever,
        RetrieverCorpus,
        RetrieverDocument,
        RetrieverQuestion,
        RetrieverSettings,
    )
    from pytest_legalbench.navindex.node import DocumentIndex, Node
    from pytest_legalbench.plugin.settings import Settings
    from pytest_legalbench.results.item_record import ItemRecord
    from pytest_legalbench.results.summary import Summary
    from pytest_legalbench.run.protocol import Record

#: Public name -> the module defining it.
_EXPORTS = {
    "Call": "pytest_legalbench.llm.ledger",
    "Corpus": "pytest_legalbench.modes.base",
    "Document": "pytest_legalbench.ingest.document",
    "DocumentIndex": "pytest_legalbench.navindex.node",
    "Evidence": "pytest_legalbench.ingest.questions",
    "GandrRecord": "pytest_legalbench.gandr.record",
    "ItemRecord": "pytest_legalbench.results.item_record",
    "Ledger": "pytest_legalbench.llm.ledger",
    "Mode": "pytest_legalbench.modes.base",
    "ModeSettings": "pytest_legalbench.modes.base",
    "ModeUnavailable": "pytest_legalbench.modes.base",
    "ModelClient": "pytest_legalbench.llm.client",
    "Node": "pytest_legalbench.navindex.node",
    "Passage": "pytest_legalbench.modes.retriever_api",
    "Provision": "pytest_legalbench.modes.base",
    "Question": "pytest_legalbench.ingest.questions",
    "Record": "pytest_legalbench.run.protocol",
    "Retrieval": "pytest_legalbench.modes.base",
    "Retriever": "pytest_legalbench.modes.retriever_api",
    "RetrieverCorpus": "pytest_legalbench.modes.retriever_api",
    "RetrieverDocument": "pytest_legalbench.modes.retriever_api",
    "RetrieverQuestion": "pytest_legalbench.modes.retriever_api",
    "RetrieverSettings": "pytest_legalbench.modes.retriever_api",
    "Settings": "pytest_legalbench.plugin.settings",
    "Summary": "pytest_legalbench.results.summary",
    "Usage": "pytest_legalbench.llm.ledger",
    "build_mode": "pytest_legalbench.modes.registry",
    "langchain_mode": "pytest_legalbench.modes.framework_retrievers",
    "llamaindex_mode": "pytest_legalbench.modes.framework_retrievers",
}

__all__ = [
    "Call",
    "Corpus",
    "Document",
    "DocumentIndex",
    "Evidence",
    "GandrRecord",
    "ItemRecord",
    "Ledger",
    "Mode",
    "ModeSettings",
    "ModeUnavailable",
    "ModelClient",
    "Node",
    "Passage",
    "Provision",
    "Question",
    "Record",
    "Retrieval",
    "Retriever",
    "RetrieverCorpus",
    "RetrieverDocument",
    "RetrieverQuestion",
    "RetrieverSettings",
    "Settings",
    "Summary",
    "Usage",
    "__version__",
    "build_mode",
    "langchain_mode",
    "llamaindex_mode",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_legalbench' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
