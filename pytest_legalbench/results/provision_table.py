"""The provisions a run retrieved, written once: where each lies, and the retrieved text.

Records name their provisions by node id and span. The table maps each node id to its
document, citation and span; the text lives apart, as the merged stretches of each document
that any record retrieved, so a character of the corpus is written at most once however many
records, or nested nodes (an article and its sections), retrieved it. A provision's text is
its span of the document (the index guarantees ``text == source[start:end]``).

The baseline's provisions are whole documents, the corpus itself: they are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_legalbench.files.record_json import WireForm
from pytest_legalbench.results.item_record import ItemRecord


@dataclass(frozen=True)
class ProvisionPlace:
    """Where one retrieved provision lies."""

    doc_id: str
    clause: str
    start: int
    end: int


#: Document id to its retrieved stretches, each (start, end, text).
Segments = Mapping[str, tuple[tuple[int, int, str], ...]]


@dataclass(frozen=True)
class Excerpts:
    """Per document, the retrieved stretches of its text as (start, end, text), in order and
    never overlapping."""

    segments: Segments

    def text(self, doc_id: str, start: int, end: int) -> str | None:
        """``document[start:end]`` when one stretch holds it, else None."""
        for low, high, text in self.segments.get(doc_id, ()):
            if low <= start and end <= high:
                return text[start - low:end - low]
        return None


#: An ``Excerpts`` as result files hold it: the stretches alone, ``{doc_id: [[start, end,
#: text], ...]}``.
EXCERPTS_FORM = WireForm(
    write=lambda excerpts: excerpts.segments,
    read=lambda value: {"segments": value} if isinstance(value, Mapping) else value,
    schema={"type": "object", "description": "document id to its retrieved stretches",
            "additionalProperties": {"type": "array", "items": {
                "type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"},
                                                 {"type": "string"}],
                "minItems": 3, "maxItems": 3}}})


def provision_table(records: Iterable[ItemRecord], texts: Mapping[str, str]
                    ) -> tuple[dict[str, ProvisionPlace], Excerpts]:
    """The places of every provision a record other than the baseline's retrieved, and the merged text of
    those places cut from ``texts`` (doc id -> text; documents missing there have none)."""
    places: dict[str, ProvisionPlace] = {}
    for record in records:
        if record.baseline_only:
            continue
        for span in record.provisions:
            place = ProvisionPlace(span.doc_id, span.clause, span.start, span.end)
            known = places.setdefault(span.node_id, place)
            if (known.doc_id, known.start, known.end) != (place.doc_id, place.start, place.end):
                raise ValueError(f"node {span.node_id!r} retrieved with two spans: "
                                 f"{known.start}-{known.end} and {place.start}-{place.end}")
    by_document: dict[str, list[tuple[int, int]]] = {}
    for place in places.values():
        if place.doc_id in texts and place.end > place.start:
            by_document.setdefault(place.doc_id, []).append((place.start, place.end))
    segments: dict[str, tuple[tuple[int, int, str], ...]] = {}
    for doc_id, spans in sorted(by_document.items()):
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        segments[doc_id] = tuple((s, e, texts[doc_id][s:e]) for s, e in merged)
    return dict(sorted(places.items())), Excerpts(segments)
