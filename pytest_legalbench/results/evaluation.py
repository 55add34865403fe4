"""Per-question retrieval scores and their summaries per mode and per question kind.

The summaries describe; they never pass or fail anything. Out-of-scope controls have no
evidence, so they carry no recall and are summarised apart from the document-bound questions.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Annotated

from pytest_legalbench.files.record_json import Rounded, derived
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.modes.base import Provision
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.results.evidence import oracle_nodes, oracle_tokens
from pytest_legalbench.results.retrieved import QuoteCheck, check_quotes, provision_spans

#: A measured figure, written rounded to four places.
Figure = Annotated[float, Rounded(4)]


@derived(oracle_ratio="oracle_ratio")
@dataclass(frozen=True)
class QuestionScore:
    """How one mode's retrieval did on one question (written with its oracle ratio)."""

    question_id: str
    kind: str
    mode: str
    recall: Figure | None
    """Share of the evidence quotes found; None for a control (it has no evidence)."""
    payload_tokens: int
    oracle_tokens: int | None
    scan_tokens: int
    node_ids: tuple[str, ...]
    quotes: tuple[QuoteCheck, ...] = ()
    """Each evidence quote, found or missed, and where a found one lies."""
    wrong_document_share: Figure | None = None
    """Share of the retrieved characters from documents holding none of the evidence (the
    document-level mismatch); None for a control or an empty retrieval."""

    @property
    def oracle_ratio(self) -> Figure | None:
        """Payload over the smallest structural payload holding the evidence."""
        if not self.oracle_tokens:
            return None
        return self.payload_tokens / self.oracle_tokens


class Scorer:
    """Scores retrievals against a question set's evidence, on one corpus."""

    def __init__(self, texts: Mapping[str, str], indexes: Iterable[DocumentIndex]) -> None:
        self.texts = dict(texts)
        self.indexes = {index.doc_id: index for index in indexes}
        self._oracles: dict[str, int | None] = {}

    def oracle(self, question: Question) -> int | None:
        """Tokens of the smallest node set holding the question's evidence (None: none)."""
        if question.id not in self._oracles:
            self._oracles[question.id] = (oracle_tokens(oracle_nodes(
                question.evidence, self.indexes, self.texts)) if question.evidence else None)
        return self._oracles[question.id]

    def score(self, question: Question, mode: str, provisions: Sequence[Provision],
              payload_tokens: int, scan_tokens: int = 0) -> QuestionScore:
        """The score of ``provisions`` retrieved by ``mode`` for ``question``."""
        # Unlocated passages have no span: evidence is looked for in the located ones only.
        spans = provision_spans(provisions)
        quotes = check_quotes(question.evidence, spans, self.texts)
        # The recall evidence_recall() would give: the share of quotes found.
        recall = sum(q.found for q in quotes) / len(quotes) if quotes else None
        return QuestionScore(
            question_id=question.id, kind=question.kind, mode=mode, recall=recall,
            payload_tokens=payload_tokens, oracle_tokens=self.oracle(question),
            scan_tokens=scan_tokens, node_ids=tuple(p.node_id for p in spans),
            quotes=quotes, wrong_document_share=wrong_document_share(
                provisions, {quote.doc_id for quote in question.evidence}))


def wrong_document_share(provisions: Sequence[Provision],
                         evidence_documents: Collection[str]) -> float | None:
    """The share of the provisions' characters from documents outside
    ``evidence_documents`` (Reuter et al. 2025's document-level retrieval mismatch); None
    when there is no evidence to hold or nothing was retrieved."""
    total = sum(len(p.text) for p in provisions)
    if not evidence_documents or not total:
        return None
    return sum(len(p.text) for p in provisions if p.doc_id not in evidence_documents) / total


@dataclass(frozen=True)
class ScoreSummary:
    """Means over a group of questions (recall and ratios over those that have them);
    written rounded to four places."""

    questions: int
    recall: Figure | None
    complete: int
    """Questions whose every quote was found."""
    payload_tokens: Figure
    """Mean payload tokens."""
    payload_p95: Figure
    """95th percentile of the payloads (nearest rank)."""
    payload_max: int
    footprint_ratio: Figure | None
    """Inject's payload over this mean payload: how many times smaller the context is."""
    oracle_ratio: Figure | None
    scan_tokens: Figure
    wrong_document_rate: Figure | None = None
    """Mean over questions of the share of retrieved characters from documents holding none
    of their evidence."""


def summarise(scores: Sequence[QuestionScore], inject_tokens: int | None) -> ScoreSummary:
    """The summary of ``scores`` (one mode's, usually), against inject's payload."""
    recalls = [s.recall for s in scores if s.recall is not None]
    ratios = [r for r in (s.oracle_ratio for s in scores) if r is not None]
    wrong = [w for w in (s.wrong_document_share for s in scores) if w is not None]
    payload = fmean(s.payload_tokens for s in scores) if scores else 0.0
    payloads = sorted(s.payload_tokens for s in scores)
    return ScoreSummary(
        questions=len(scores), recall=fmean(recalls) if recalls else None,
        complete=sum(r == 1.0 for r in recalls), payload_tokens=payload,
        payload_p95=float(nearest_rank(payloads, 0.95)), payload_max=max(payloads, default=0),
        footprint_ratio=(inject_tokens / payload if inject_tokens and payload else None),
        oracle_ratio=fmean(ratios) if ratios else None,
        scan_tokens=fmean(s.scan_tokens for s in scores) if scores else 0.0,
        wrong_document_rate=fmean(wrong) if wrong else None)


def nearest_rank(ordered: Sequence[int], share: float) -> int:
    """The nearest-rank percentile of sorted values: the smallest value at or above ``share``
    of them (0 for no values)."""
    if not ordered:
        return 0
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summarise_by_kind(scores: Sequence[QuestionScore],
                      inject_tokens: int | None) -> dict[str, ScoreSummary]:
    """One summary per question kind, kinds in name order."""
    kinds = sorted({s.kind for s in scores})
    return {kind: summarise([s for s in scores if s.kind == kind], inject_tokens)
            for kind in kinds}
