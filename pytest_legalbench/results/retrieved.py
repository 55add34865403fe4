"""What an item record keeps of its retrieval: where each provision lies, and what became of
each evidence quote (found or missed, and where a found one lies in the provisions).

Both are small and JSON-safe, so they travel in the record through xdist. Provision texts are
not kept here: a provision's text is its span of the document (the index guarantees
``text == source[start:end]``), and a report writes each text once, keyed by node id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pytest_legalbench.ingest.questions import Evidence
from pytest_legalbench.results.evidence import (
    Span,
    normalise,
    quote_found,
    quote_spans,
    run_bounds,
)


@dataclass(frozen=True)
class ProvisionSpan:
    """One retrieved provision, by place: its document, node, citation and span."""

    doc_id: str
    node_id: str
    clause: str
    """The reference a citation uses (``2.1(b)``); empty for chunks and whole documents."""
    start: int
    end: int
    """``start``/``end`` are offsets in the ingested text of ``doc_id``."""


@dataclass(frozen=True)
class UnlocatedPassage:
    """A passage a retriever returned that could not be found in its document: where it
    stood in the answering context, and its text (which the document does not hold)."""

    rank: int
    """Its place among the provisions shown, from 1."""
    doc_id: str
    text: str


class QuoteMark(NamedTuple):
    """Where a found quote lies in one retrieved provision: offsets in that provision's text.
    Written as ``[node_id, start, end]``."""

    node_id: str
    start: int
    end: int


@dataclass(frozen=True)
class QuoteCheck:
    """One evidence quote of the question and whether the retrieval held it."""

    doc_id: str
    quote: str
    found: bool
    marks: tuple[QuoteMark, ...] = ()
    """Where the quote lies in the retrieved provisions (empty when missed); a quote that
    crosses from one provision into the next has a mark in each."""


def provision_spans(provisions: Sequence[Any]) -> tuple[ProvisionSpan, ...]:
    """The spans of retrieved provisions (anything with doc_id, node_id, clause, start, end),
    leaving out those marked unlocated: they have no span."""
    return tuple(ProvisionSpan(p.doc_id, p.node_id, p.clause, p.start, p.end)
                 for p in provisions if not getattr(p, "unlocated", False))


def unlocated_passages(provisions: Sequence[Any]) -> tuple[UnlocatedPassage, ...]:
    """The provisions marked unlocated, with their rank among all of them."""
    return tuple(UnlocatedPassage(rank, p.doc_id, p.text)
                 for rank, p in enumerate(provisions, 1) if getattr(p, "unlocated", False))


def check_quotes(evidence: Sequence[Evidence], provisions: Sequence[ProvisionSpan],
                 texts: Mapping[str, str]) -> tuple[QuoteCheck, ...]:
    """Each quote found or missed in the provisions (as evidence recall counts it), with the
    marks of every place a found quote lies inside one run of retrieved text."""
    spans = [Span(p.doc_id, p.start, p.end) for p in provisions]
    bounds = run_bounds(spans, texts)
    runs = {doc_id: [normalise(texts[doc_id][s:e]) for s, e in found]
            for doc_id, found in bounds.items()}
    checks = []
    for item in evidence:
        found = quote_found(item, runs)
        marks: dict[QuoteMark, None] = {}
        if found:
            places = quote_spans(item, texts[item.doc_id])
            inside = [(s, e) for s, e in places
                      if any(rs <= s and e <= re for rs, re in bounds.get(item.doc_id, ()))]
            for start, end in inside:
                for p in provisions:
                    low, high = max(start, p.start), min(end, p.end)
                    if p.doc_id == item.doc_id and low < high:
                        marks[QuoteMark(p.node_id, low - p.start, high - p.start)] = None
        checks.append(QuoteCheck(item.doc_id, item.quote, found, tuple(marks)))
    return tuple(checks)
