"""The public retriever API: what a user's retriever is given and what it returns.

Stable: these names are exported from ``pytest_legalbench`` and documented in
``docs/reference/retriever-api.md``; fields may be added, none removed or renamed.

A retriever is built once per session by a *factory* called with a ``RetrieverCorpus`` (the
documents, their navindex trees, the run's settings) and answers ``retrieve(question)`` with
``Passage`` objects in rank order. It sees a question's id and text only, never its reference
answer or evidence. Everything after that (locating passages in their documents, the payload
budget, answering, judging, scoring and costs) is the harness's, the same as for the modes
this package ships.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.tokens import estimate_tokens


@dataclass(frozen=True)
class Passage:
    """One retrieved passage, as a retriever returns it (a sequence of them, best first).

    ``text`` is what the answering model is shown. ``start``/``end`` are character offsets in
    the document's text (``RetrieverDocument.text``), given together or not at all; a passage
    without them is located in its document by the harness, and one that cannot be located
    still reaches the answering model but stays outside evidence recall. ``score`` is kept
    for your own reading (rank is the order of the sequence); ``meta`` may carry ``clause``,
    the citation the answering model is shown for the passage (by default the clause of the
    smallest provision holding it), and ``path``, the headings above it.
    """

    doc_id: str
    text: str
    start: int | None = None
    end: int | None = None
    score: float | None = None
    meta: Mapping[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.doc_id, str) or not self.doc_id:
            raise TypeError(f"Passage.doc_id must be a non-empty string, got {self.doc_id!r}")
        if not isinstance(self.text, str):
            raise TypeError(f"Passage.text must be a string, got {type(self.text).__name__}")
        if (self.start is None) != (self.end is None):
            raise ValueError("Passage.start and Passage.end are given together or not at all")
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"Passage.{name} must be an integer offset, got {value!r}")
        if self.start is not None and self.end is not None and not 0 <= self.start < self.end:
            raise ValueError(f"Passage span {self.start}-{self.end} is empty or negative")
        if self.score is not None and (isinstance(self.score, bool)
                                       or not isinstance(self.score, int | float)):
            raise TypeError(f"Passage.score must be a number, got {self.score!r}")
        if self.meta is not None and not isinstance(self.meta, Mapping):
            raise TypeError(f"Passage.meta must be a mapping, got {type(self.meta).__name__}")

    @property
    def located(self) -> bool:
        """Whether the passage says where it lies (``start`` and ``end`` given)."""
        return self.start is not None


@dataclass(frozen=True)
class RetrieverQuestion:
    """A question as a retriever sees it: its id and its text (``str()`` gives the text)."""

    id: str
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class RetrieverDocument:
    """One document of the corpus under test."""

    doc_id: str
    title: str
    text: str = field(repr=False)
    """The ingested text; passage offsets are offsets in it."""
    path: str = ""
    """The file it was read from."""
    transaction_set: str | None = None
    """The set of instruments it belongs to (an agreement with its amendments, ...)."""
    role: str = "base"
    """``base``, ``amendment``, ``schedule``, ``side_letter``, ``ancillary`` or ``conformed``."""
    date: str | None = None
    index: DocumentIndex | None = field(default=None, repr=False, compare=False)
    """Its navindex tree (``index.nodes``: every node with its clause, title, flags, span and
    text), for retrievers that want structure; None when the run built no index."""


@dataclass(frozen=True)
class RetrieverSettings:
    """The run's settings a retriever may size its work by."""

    payload_budget_tokens: int
    """The most payload an answer is given: passages past it are cut in rank order."""
    k: int
    """How many provisions the embedding-ranked built-in modes return."""
    timeout_s: float
    """Seconds one ``retrieve`` call may take before its item fails."""


@dataclass(frozen=True)
class RetrieverCorpus:
    """What a retriever's factory is called with: the documents and the run's settings."""

    documents: tuple[RetrieverDocument, ...]
    settings: RetrieverSettings
    cache_dir: Path | None = None
    """A folder the retriever may keep its own files in (created by it when it needs it);
    None when the run has no cache."""
    _by_id: dict[str, RetrieverDocument] = field(default_factory=dict, init=False,
                                                 repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update((d.doc_id, d) for d in self.documents)
        if len(self._by_id) != len(self.documents):
            raise ValueError("corpus documents must have distinct doc_ids")

    def __iter__(self) -> Iterator[RetrieverDocument]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """Every document's id, in corpus order."""
        return tuple(self._by_id)

    def document(self, doc_id: str) -> RetrieverDocument:
        """The document called ``doc_id``; KeyError naming it when there is none."""
        try:
            return self._by_id[doc_id]
        except KeyError:
            raise KeyError(f"no document {doc_id!r} in the corpus") from None

    @staticmethod
    def tokens(text: str) -> int:
        """Tokens of ``text`` as the harness counts the payload: ceil(characters / 4)."""
        return estimate_tokens(text)


class Retriever(Protocol):
    """What a factory returns: anything with this method."""

    def retrieve(self, question: RetrieverQuestion) -> Sequence[Passage]:
        """The passages for ``question``, best first."""
        ...


#: A retriever's factory: a class or function called once per session with the corpus.
RetrieverFactory = Callable[[RetrieverCorpus], Retriever]
