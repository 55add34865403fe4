"""What inject reads for a question: the whole corpus, or the question's transaction set.

Inject answers with its documents whole in the prompt. A profile such as ``cuad`` (510
contracts, millions of tokens) fits no context window, so there inject reads the question's
transaction set instead: every document filed in the same set as a document the question is
about (an agreement with its amendments). The retrieval modes keep searching the whole
profile, so finding the right contract stays part of their task.

The scope asked for is one of ``defaults.INJECT_SCOPES``:

- ``corpus``: every document of the profile (inject refuses a corpus that does not fit);
- ``set``: the question's transaction set, for every question;
- ``auto`` (the default): ``corpus`` when the corpus fits the context window, ``set`` when it
  does not.

A document without a transaction set is a set of its own. The scope an answer had travels on
its ``Retrieval.scope``, so the records and the summary say which scope each arm read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.inject import InjectMode
from pytest_legalbench.modes.inject_context import DoesNotFit, inject_context

#: The resolved scopes: what an inject answer read.
CORPUS = "corpus"
SET = "set"
AUTO = "auto"


@dataclass(frozen=True)
class ResolvedScope:
    """The scope inject reads in a run, and why."""

    asked: str
    """The scope asked for: ``auto``, ``corpus`` or ``set``."""
    scope: str
    """What inject reads: ``corpus`` or ``set``."""
    reason: str
    """One line for the run's summary: what was asked and why it resolved so."""


def resolve_scope(asked: str, documents: Sequence[Document],
                  context_window: int) -> ResolvedScope:
    """Resolve the scope asked for against the corpus and the window (``auto`` decides by
    whether the corpus fits)."""
    if asked == SET:
        return ResolvedScope(asked, SET, "inject reads each question's transaction set (asked)")
    if asked == CORPUS:
        return ResolvedScope(asked, CORPUS, "inject reads the whole corpus (asked)")
    if asked != AUTO:
        raise ValueError(f"unknown inject scope {asked!r}: choose auto, corpus or set")
    try:
        inject_context(documents, context_window)
    except DoesNotFit as error:
        return ResolvedScope(asked, SET, f"inject reads each question's transaction set "
                                         f"(auto: {error})")
    return ResolvedScope(asked, CORPUS, f"inject reads the whole corpus (auto: its "
                                        f"{len(documents)} documents fit the "
                                        f"{context_window:,}-token window)")


def set_of(doc_ids: Sequence[str], documents: Sequence[Document]) -> tuple[Document, ...]:
    """The documents of the transaction sets that hold ``doc_ids``, in corpus order; a
    document without a set is a set of its own. ValueError naming an unknown document."""
    by_id = {document.doc_id: document for document in documents}
    unknown = [doc_id for doc_id in doc_ids if doc_id not in by_id]
    if unknown:
        raise ValueError(f"the corpus holds no document {', '.join(map(repr, unknown))}")
    sets = {set_key(by_id[doc_id]) for doc_id in doc_ids}
    return tuple(document for document in documents if set_key(document) in sets)


def set_key(document: Document) -> str:
    """The transaction set a document belongs to: its manifest's set, else itself."""
    return document.transaction_set or document.doc_id


def set_name(doc_ids: Sequence[str], documents: Sequence[Document]) -> str:
    """The transaction set(s) of a question's documents, joined by ``+`` in name order: the
    cluster the run's statistics group the question in."""
    by_id = {document.doc_id: document for document in documents}
    return "+".join(sorted({set_key(by_id[doc_id]) if doc_id in by_id else doc_id
                            for doc_id in doc_ids}))


class ScopedInject:
    """Inject under a run's resolved scope: one mode over the corpus, or one per transaction
    set, each built on first use and kept (a set that does not fit is remembered as such)."""

    def __init__(self, corpus: Corpus, settings: ModeSettings) -> None:
        self.corpus = corpus
        self.settings = settings
        self.resolved = resolve_scope(settings.inject_scope, corpus.documents,
                                      settings.context_window)
        self._built: dict[tuple[str, ...], Mode | ModeUnavailable] = {}

    def mode_for(self, doc_ids: Sequence[str]) -> Mode:
        """Inject for a question about ``doc_ids``; ModeUnavailable when its scope does not
        fit the window (or names no document)."""
        if self.resolved.scope == CORPUS:
            documents = self.corpus.documents
        else:
            try:
                documents = set_of(doc_ids, self.corpus.documents)
            except ValueError as error:
                raise ModeUnavailable(InjectMode.name, str(error)) from None
            if not documents:
                raise ModeUnavailable(InjectMode.name, "the question names no document, so "
                                                       "it has no transaction set to read")
        key = tuple(document.doc_id for document in documents)
        if key not in self._built:
            self._built[key] = self._build(documents)
        built = self._built[key]
        if isinstance(built, ModeUnavailable):
            raise built
        return built

    def _build(self, documents: Sequence[Document]) -> Mode | ModeUnavailable:
        if self.resolved.scope == CORPUS:
            part = self.corpus
        else:
            wanted = {document.doc_id for document in documents}
            part = Corpus(tuple(documents),
                          tuple(i for i in self.corpus.indexes if i.doc_id in wanted),
                          self.corpus.cache_dir)
        try:
            return InjectMode(part, self.settings, scope=self.resolved.scope)
        except ModeUnavailable as error:
            return error
