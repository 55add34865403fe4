"""A user's retriever as a mode: its passages checked, located, cut to the payload budget and
turned into provisions, so everything after retrieval is what every built-in mode gets.

Per question the retriever's ``retrieve`` is called (in a thread, so a call that hangs past
the timeout fails its item instead of the run); what it returns must be a sequence of
``Passage`` naming documents of the corpus, each with text, any span inside its document.
A passage without a span is located in its document's text (``ingest.text_location``:
whitespace, quote-mark and dash tolerant); one that cannot be found is still shown to the
answering model and counted in the payload, but is marked unlocated and has no span, so
evidence recall never looks in it. Passages are kept in rank order while they fit the
payload budget (``payload_cut``). Any failure is a ``RetrieverFailed`` naming the mode, the
question and what was wrong.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pytest_legalbench.ingest.text_location import locate
from pytest_legalbench.modes.base import Corpus, ModeSettings, Provision, Retrieval, payload_tokens
from pytest_legalbench.modes.payload_cut import rank_order_cut
from pytest_legalbench.modes.retriever_api import (
    Passage,
    Retriever,
    RetrieverCorpus,
    RetrieverDocument,
    RetrieverQuestion,
    RetrieverSettings,
)
from pytest_legalbench.modes.retriever_failures import RetrieverFailed, RetrieverProblem, one_line
from pytest_legalbench.modes.traits import RETRIEVED
from pytest_legalbench.modes.units import context_line
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens

_T = TypeVar("_T")

#: The folder under the run's cache that ``RetrieverCorpus.cache_dir`` names.
RETRIEVER_CACHE = "retrievers"


def retriever_corpus(corpus: Corpus, settings: ModeSettings, timeout_s: float) -> RetrieverCorpus:
    """The corpus as a retriever's factory is given it (built once per corpus and settings)."""
    def build() -> RetrieverCorpus:
        indexes = {index.doc_id: index for index in corpus.indexes}
        documents = tuple(
            RetrieverDocument(doc_id=d.doc_id, title=d.title, text=d.text, path=d.path,
                              transaction_set=d.transaction_set, role=d.role, date=d.date,
                              index=indexes.get(d.doc_id))
            for d in corpus.documents)
        return RetrieverCorpus(
            documents, RetrieverSettings(settings.payload_budget_tokens, settings.k, timeout_s),
            None if corpus.cache_dir is None else corpus.cache_dir / RETRIEVER_CACHE)

    key = ("retriever-corpus", str(settings.payload_budget_tokens), str(settings.k),
           str(timeout_s))
    return corpus.derive(key, build)


@dataclass(frozen=True)
class _Shown:
    """One passage as the answering model will see it: located or not."""

    passage: Passage
    span: tuple[int, int] | None
    text: str


class RetrieverMode:
    """A user's retriever, bound to one corpus, behaving as a mode."""

    traits = RETRIEVED

    def __init__(self, name: str, retriever: Retriever, corpus: Corpus,
                 settings: ModeSettings, *, timeout_s: float | None) -> None:
        self.name = name
        self.retriever = retriever
        self.settings = settings
        self.timeout_s = timeout_s
        """Seconds a call may take; None when the retriever enforces its own (HTTP)."""
        self._texts = {d.doc_id: d.text for d in corpus.documents}
        self._titles = {d.doc_id: d.title for d in corpus.documents}
        self._indexes = {index.doc_id: index for index in corpus.indexes}
        self._by_id = {n.node_id: n for index in corpus.indexes for n in index.nodes}

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Ask the retriever, check and locate its passages, and cut them to the budget."""
        asked = RetrieverQuestion(id=question_id or "", text=question)

        def fail(problem: str) -> RetrieverFailed:
            return RetrieverFailed(self.name, question_id, problem)

        try:
            returned = self._call(lambda: self.retriever.retrieve(asked))
        except RetrieverProblem as error:
            raise fail(str(error)) from None
        except TimeoutError:
            raise fail(f"retrieve() took longer than the timeout of {self.timeout_s:g} s "
                       f"(--legalbench-timeout)") from None
        except Exception as error:  # noqa: BLE001 - any failure of user code fails the item
            raise fail(f"retrieve() raised {type(error).__name__}: {one_line(str(error))}"
                       ) from None
        try:
            passages = self._checked(returned)
        except (TypeError, ValueError) as error:
            raise fail(str(error)) from None
        shown = self._located(passages)
        kept, cut = rank_order_cut([estimate_tokens(s.text) for s in shown],
                                   self.settings.payload_budget_tokens)
        provisions = tuple(self._provision(rank, s) for rank, s in enumerate(shown[:kept], 1))
        notes = []
        unlocated = sum(p.unlocated for p in provisions)
        if unlocated:
            notes.append(f"{unlocated} of {len(provisions)} passages could not be located in "
                         f"their documents (shown to the model, outside evidence recall)")
        if cut is not None:
            notes.append(cut.note())
        return Retrieval(mode=self.name, provisions=provisions,
                         payload_tokens=payload_tokens(provisions), notes=tuple(notes), cut=cut)

    def _call(self, call: Callable[[], _T]) -> _T:
        """``call()``, in a thread the timeout abandons (a hung call cannot be stopped; it
        is left to finish on its own)."""
        if self.timeout_s is None:
            return call()
        outcome: dict[str, object] = {}

        def run() -> None:
            try:
                outcome["value"] = call()
            except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
                outcome["error"] = error

        worker = threading.Thread(target=run, name=f"retriever {self.name}", daemon=True)
        worker.start()
        worker.join(self.timeout_s)
        if worker.is_alive():
            raise TimeoutError
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["value"]  # type: ignore[return-value]

    def _checked(self, returned: object) -> list[Passage]:
        """The passages, or TypeError or ValueError saying what about them is malformed."""
        if isinstance(returned, str | bytes | Mapping) or not isinstance(returned, Sequence):
            raise TypeError(f"retrieve() returned {type(returned).__name__}, not a sequence "
                             f"of Passage")
        passages = list(returned)
        for number, passage in enumerate(passages, 1):
            if not isinstance(passage, Passage):
                raise TypeError(f"passage {number} is a {type(passage).__name__}, not a "
                                 f"pytest_legalbench.Passage")
            text = self._texts.get(passage.doc_id)
            if text is None:
                raise ValueError(f"passage {number} names doc_id {passage.doc_id!r}, which is "
                                 f"not in the corpus")
            if not passage.text.strip():
                raise ValueError(f"passage {number} (of {passage.doc_id!r}) has empty text")
            if passage.start is not None and passage.end is not None:
                if passage.end > len(text):
                    raise ValueError(f"passage {number}'s span {passage.start}-{passage.end} "
                                     f"lies outside {passage.doc_id!r} (0-{len(text)})")
                if not _spans_text(passage.text, text[passage.start:passage.end]):
                    raise ValueError(f"passage {number}'s text is not the text of its span "
                                     f"{passage.start}-{passage.end} of {passage.doc_id!r}")
        return passages

    def _located(self, passages: Sequence[Passage]) -> list[_Shown]:
        """Each passage with its span: given, found in its document, or None."""
        taken: dict[str, list[tuple[int, int]]] = {}
        shown = []
        for passage in passages:
            text = self._texts[passage.doc_id]
            span: tuple[int, int] | None
            if passage.start is not None and passage.end is not None:
                span = (passage.start, passage.end)
            else:
                span = locate(passage.text, text, taken.get(passage.doc_id, ()), marks=True)
            if span is None:
                shown.append(_Shown(passage, None, passage.text))
                continue
            taken.setdefault(passage.doc_id, []).append(span)
            shown.append(_Shown(passage, span, text[span[0]:span[1]]))
        return shown

    def _provision(self, rank: int, shown: _Shown) -> Provision:
        passage = shown.passage
        meta = passage.meta or {}
        clause, path = meta.get("clause"), meta.get("path")
        if shown.span is None:
            return Provision(doc_id=passage.doc_id, node_id=f"{passage.doc_id}@unlocated-{rank}",
                             clause=clause if isinstance(clause, str) else "", start=0, end=0,
                             text=shown.text, path=path if isinstance(path, str) else "",
                             unlocated=True)
        start, end = shown.span
        holder = self._holder(passage.doc_id, start, end)
        if not isinstance(clause, str):
            clause = "" if holder is None else Provision.from_node(holder).clause
        if not isinstance(path, str):
            path = ("" if holder is None
                    else context_line(holder, self._titles[passage.doc_id], self._by_id))
        return Provision(doc_id=passage.doc_id, node_id=f"{passage.doc_id}@{start}-{end}",
                         clause=clause, start=start, end=end, text=shown.text, path=path)

    def _holder(self, doc_id: str, start: int, end: int) -> Node | None:
        """The smallest node of the document's index holding ``[start, end)``, not the
        document itself; None without an index or such a node."""
        index = self._indexes.get(doc_id)
        if index is None:
            return None
        holders = [n for n in index.nodes if n.start <= start and end <= n.end
                   and n.kind != "document"]
        return min(holders, key=lambda n: (n.end - n.start, n.node_id), default=None)


def _spans_text(text: str, span_text: str) -> bool:
    """Whether ``text`` is the whole of ``span_text``, up to whitespace, quote marks and
    dashes (and whitespace at either end)."""
    found = locate(text, span_text, marks=True)
    return (found is not None and not span_text[:found[0]].strip()
            and not span_text[found[1]:].strip())
