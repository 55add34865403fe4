"""The inject baseline as a mode: every document whole, or a refusal when they do not fit."""

from __future__ import annotations

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import (
    Corpus,
    ModeSettings,
    ModeUnavailable,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.inject_context import DoesNotFit, InjectContext, inject_context
from pytest_legalbench.modes.traits import WHOLE_CORPUS
from pytest_legalbench.navindex.node import DocumentIndex

#: Local id of a document's root node; the outline parser gives the root this id too, so an
#: inject provision names the same node as the index's root.
ROOT_LOCAL_ID = "root"


class InjectMode:
    """The whole corpus as the answering context; one provision per document, its root.
    Built on one transaction set's documents (``modes.inject_scope``), its ``scope`` says so."""

    name = "inject"
    traits = WHOLE_CORPUS

    def __init__(self, corpus: Corpus, settings: ModeSettings, *,
                 scope: str = "corpus") -> None:
        self.scope = scope
        try:
            self.context: InjectContext = inject_context(corpus.documents,
                                                         settings.context_window)
        except DoesNotFit as error:
            # Refused rather than truncated: a cut corpus would answer a different benchmark.
            raise ModeUnavailable(self.name, str(error)) from None
        roots = {index.doc_id: index for index in corpus.indexes}
        self._provisions = tuple(_root_provision(d, roots.get(d.doc_id))
                                 for d in corpus.documents)
        self._payload = payload_tokens(self._provisions)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Return every document as a provision: the question does not change what is sent."""
        return Retrieval(mode=self.name, provisions=self._provisions,
                         payload_tokens=self._payload, scope=self.scope)


def _root_provision(document: Document, index: DocumentIndex | None) -> Provision:
    if index is not None:
        return Provision.from_node(index.root)
    # Without an index the root is still the whole text; inject never needs the index built.
    return Provision(doc_id=document.doc_id, node_id=f"{document.doc_id}:{ROOT_LOCAL_ID}",
                     clause="", start=0, end=len(document.text), text=document.text)
