"""The first stage of a two-stage scan, played without a model: which documents to scan.

When the index of the whole corpus is too large for one scan (CUAD's 510 contracts), a model
first picks documents from one line per document (title, role, parties, tags, keywords).
This is that pick by rule: the transactions the question names first, each with the
documents it amends or that amend it, then the documents carrying the question's rarer words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.modes.routing import Router, name_words
from pytest_legalbench.vectors.lexical_index import stemmed


@dataclass(frozen=True)
class DocumentRow:
    """One line of a two-stage scan's document list."""

    doc_id: str
    title: str
    role: str
    parties: str
    tags: str
    keywords: str

    @property
    def amends(self) -> tuple[str, ...]:
        """What an amendment's role says it amends ("amendment of A, B")."""
        return tuple(d.strip() for d in self.role.partition(" of ")[2].split(",") if d.strip())


def select_documents(rows: Sequence[DocumentRow], question: str, cap: int) -> list[str]:
    """At most ``cap`` documents to scan: the routed families first (each with the documents
    it amends or that amend it), then by the rarity-weighted question words they carry."""
    identities = {row.doc_id: name_words(f"{row.title} {row.parties}") for row in rows}
    route = Router.of_identities(identities, {r.doc_id: r.amends for r in rows}).route(question)
    bags = {row.doc_id: set(stemmed(f"{row.title} {row.title} {row.parties} {row.keywords} "
                                    f"{row.tags}")) for row in rows}
    holding: dict[str, int] = {}
    for bag in bags.values():
        for word in bag:
            holding[word] = holding.get(word, 0) + 1
    asked = set(stemmed(question))
    scores = {doc: route.weight(doc) * sum(math.log(1 + len(rows) / holding[w])
                                           for w in asked & bag)
              for doc, bag in bags.items()}
    order = sorted(scores, key=lambda d: (-scores[d], d))
    picked: list[str] = [d for d in route.documents() if d in scores][:cap]
    for doc in order:
        if len(picked) >= cap:
            break
        if doc not in picked and scores[doc] > 0:
            picked.append(doc)
    return picked
