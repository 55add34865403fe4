"""The protocol every retrieval mode implements, and the records it returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Protocol, TypeVar, cast, runtime_checkable

from pytest_legalbench.defaults import (
    DEFAULT_ANSWER_MODEL,
    DEFAULT_EMBEDDING_BACKEND,
    DEFAULT_INJECT_SCOPE,
    EMBEDDING_BACKENDS,
    INJECT_SCOPES,
    MAX_SCAN_NODES,
)
from pytest_legalbench.files.record_json import OMIT_FALSE, OMIT_NONE, PAIRS_AS_OBJECT
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.call_types import Completion
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.modes.payload_cut import PayloadCut
from pytest_legalbench.modes.traits import ModeTraits
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens


@dataclass(frozen=True)
class Provision:
    """One retrieved provision: a node's whole subtree, with its span in the document text."""

    doc_id: str
    node_id: str
    clause: str
    """The reference a citation uses (``2.1(b)``), else the reference as printed."""
    start: int
    end: int
    text: str
    path: str = ""
    """Where it sits: the document's title and the headings above it, as the answering model
    is shown it ("Revolving Credit Agreement > ARTICLE II ... > 2.12 Unused Commitment Fee");
    empty for whole documents and chunks."""
    unlocated: bool = field(default=False, metadata=OMIT_FALSE)
    """A retriever's passage that could not be found in its document: the answering model
    sees its text, but it has no span (``start`` and ``end`` are 0) and no evidence is
    looked for in it."""

    @classmethod
    def from_node(cls, node: Node, path: str = "") -> Provision:
        """The provision a node stands for: its subtree text and span."""
        # "2.1(b)" cites better than the printed "(b)"; "exhibit:a" is a lookup key, not a
        # citation, so attachments keep their printed heading ("EXHIBIT A").
        reference = node.full_reference
        clause = reference if reference and ":" not in reference else node.clause_reference
        return cls(doc_id=node.doc_id, node_id=node.node_id, clause=clause, start=node.start,
                   end=node.end, text=node.text, path=path)


def payload_tokens(provisions: tuple[Provision, ...]) -> int:
    """Estimated tokens of the provision texts, summed per provision."""
    return sum(estimate_tokens(p.text) for p in provisions)


@dataclass(frozen=True)
class Retrieval:
    """What a mode retrieved for one question, and what retrieving it cost."""

    mode: str
    """The resolved mode, e.g. ``navembed:hybrid``, ``navindex``, ``inject``."""
    provisions: tuple[Provision, ...]
    """In the mode's ranked order, which is the order the answering context uses."""
    payload_tokens: int
    """Estimated tokens of the provision texts only, summed per provision."""
    scan_tokens: int = 0
    """Input tokens a navindex scan read (0 for modes without a scan)."""
    calls: tuple[Call, ...] = ()
    """Ledger entries made while retrieving (scans, title picks); not the answering call,
    except for a mode that answers as it navigates (navagent: every turn and its answer)."""
    dropped: Annotated[tuple[tuple[str, int], ...], PAIRS_AS_OBJECT] = ()
    """Counts of model selections thrown away, by reason (``invalid_ids``, ``toc_ids``);
    written as ``{reason: count}``."""
    notes: tuple[str, ...] = ()
    scope: str = "corpus"
    """What the arm read from: ``corpus`` (every document of the profile) or ``set`` (the
    question's transaction set: inject when the corpus does not fit, ``modes.inject_scope``)."""
    cut: PayloadCut | None = field(default=None, metadata=OMIT_NONE)
    """What a user's retrieval lost to the payload budget; None when nothing was cut."""


class ModeUnavailable(Exception):
    """A mode that cannot run on this corpus or machine; ``reason`` says why."""

    def __init__(self, mode: str, reason: str) -> None:
        self.mode = mode
        self.reason = reason
        super().__init__(f"mode {mode!r} is unavailable: {reason}")

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from the fields, so it crosses process boundaries (xdist, multiprocessing).
        return (type(self), (self.mode, self.reason))


class Mode(Protocol):
    """A retrieval strategy bound to one corpus."""

    name: str
    traits: ModeTraits
    """What the answering model is shown and how the mode's cost crosses over with the
    baseline: the harness reads these, never the name."""

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Return the provisions for ``question``."""
        ...


@dataclass(frozen=True)
class Answered:
    """What a mode that answers as it navigates returns: what it read, and its answer."""

    retrieval: Retrieval
    completion: Completion
    """The answering turn: its text, model and cost."""


@runtime_checkable
class AnsweringMode(Mode, Protocol):
    """A mode whose answering model navigates and answers in one conversation (navagent):
    the answer is part of the mode, not a call made over its provisions afterwards."""

    def answer(self, question: str, *, model: str,
               question_id: str | None = None) -> Answered:
        """Navigate for ``question`` with ``model`` and answer from what was read."""
        ...


_Derived = TypeVar("_Derived")


@dataclass(frozen=True)
class Corpus:
    """What every mode is built from: the documents, their indexes, and where to cache."""

    documents: tuple[Document, ...]
    indexes: tuple[DocumentIndex, ...]
    cache_dir: Path | None = None
    progress: Callable[[str], None] | None = field(default=None, compare=False)
    """Where long builds (embedding a corpus) report how far they are."""
    vector_record: Path | None = None
    """The folder of recorded vectors read after the cache (``vectors.vector_record``)."""
    _derived: dict[tuple[str, ...], object] = field(default_factory=dict, init=False,
                                                    compare=False, repr=False)

    def derive(self, key: tuple[str, ...], build: Callable[[], _Derived]) -> _Derived:
        """What ``build`` makes of this corpus, built on the first call with ``key`` and kept:
        structures that several modes read alike (units, their vectors) are made once."""
        if key not in self._derived:
            self._derived[key] = build()
        return cast(_Derived, self._derived[key])

    def __post_init__(self) -> None:
        doc_ids = [d.doc_id for d in self.documents]
        if len(set(doc_ids)) != len(doc_ids):
            raise ValueError("corpus documents must have distinct doc_ids")
        unknown = sorted({i.doc_id for i in self.indexes} - set(doc_ids))
        if unknown:
            raise ValueError(f"corpus has indexes for unknown documents: {', '.join(unknown)}")


@dataclass(frozen=True)
class ModeSettings:
    """The one place retrieval defaults live."""

    k: int = 10
    """Provisions an embedding-ranked mode returns."""
    node_cap: int = MAX_SCAN_NODES
    """Most nodes a navindex scan may select."""
    payload_budget_tokens: int = 6000
    """The hard maximum of every mode's payload: the tokens of the provisions it returns."""
    definitions_per_node: int = 3
    """Definitions a chosen provision brings per clause it holds (navindex's fetch and the
    closure strategies), the least widely used first."""
    scan_budget_tokens: int = 120_000
    """Index size above which the scan first picks documents (two-stage scan)."""
    max_scan_documents: int = 5
    embedding_model: str | None = None
    """Path of a sentence-transformers model; None means the packaged MiniLM."""
    embedding_backend: str = DEFAULT_EMBEDDING_BACKEND
    """How the embedding model runs: one of ``defaults.EMBEDDING_BACKENDS``."""
    cross_encoder: str | None = None
    rerank_pool: int = 40
    rerank_keep: int = 10
    context_window: int = 200_000
    scan_model: str = DEFAULT_ANSWER_MODEL
    titles_model: str = DEFAULT_ANSWER_MODEL
    agent_turns: int = 8
    """Most navigation turns navagent's model may take before it must answer."""
    agent_tokens: int = 80_000
    """Most input tokens navagent's navigation turns may attend in total (estimated before
    each turn; the answering turn comes on top)."""
    inject_scope: str = DEFAULT_INJECT_SCOPE
    """What inject reads for a question: one of ``defaults.INJECT_SCOPES``
    (``modes.inject_scope``)."""

    def __post_init__(self) -> None:
        for name in ("k", "node_cap", "payload_budget_tokens", "definitions_per_node",
                     "scan_budget_tokens",
                     "max_scan_documents", "rerank_pool", "rerank_keep", "context_window",
                     "agent_turns", "agent_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"mode setting {name!r} must be a positive integer, "
                                 f"got {value!r}")
        if self.node_cap > MAX_SCAN_NODES:
            raise ValueError(f"mode setting 'node_cap' is at most {MAX_SCAN_NODES}, "
                             f"got {self.node_cap}")
        if self.embedding_backend not in EMBEDDING_BACKENDS:
            raise ValueError(f"mode setting 'embedding_backend' is one of "
                             f"{', '.join(EMBEDDING_BACKENDS)}, got {self.embedding_backend!r}")
        if self.inject_scope not in INJECT_SCOPES:
            raise ValueError(f"mode setting 'inject_scope' is one of {', '.join(INJECT_SCOPES)}, "
                             f"got {self.inject_scope!r}")
        for name in ("scan_model", "titles_model"):
            if not getattr(self, name):
                raise ValueError(f"mode setting {name!r} must name a model")
