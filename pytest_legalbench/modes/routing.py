"""Routing: which instruments a question is about, read from the names it uses.

A question that names a party, an instrument or a transaction ("under the NETGEAR
distributor agreement", "in the Services Agreement between Acme and Beta") is answered from
that transaction's documents first. Each document is known by the words that name it: its
title, its parties, and the capitalised words of its opening (where contracts name their
parties and themselves). A name word tells as much as it is rare among the documents, so
words every instrument shares ("agreement", role words such as "Licensee" or "Borrower")
name none. Documents travel in families (an agreement with its amendments, or a manifest's
transaction set): routing picks families, never one amendment without its base.

Nothing is excluded: a provision outside the routed families keeps a fraction of its score,
so strong evidence from elsewhere can still enter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.navindex.stop_words import STOP_WORDS

_INSTRUMENT_WORDS = (
    "agreement agreements amendment amendments amended restated contract contracts license "
    "licence licensing lease sublease deed indenture letter side schedule schedules exhibit "
    "exhibits annex appendix addendum supplement supplemental master services service supply "
    "distribution distributor distributors reseller agency agent agents credit loan revolving "
    "facility purchase sale unit units stock share shares note notes security securities "
    "guaranty guarantee joint venture collaboration development manufacturing marketing "
    "sponsorship endorsement franchise hosting maintenance consulting employment cooperation "
    "strategic alliance outsourcing transportation intellectual property content wireless")
_ROLE_WORDS = (
    "licensor licensee lessor lessee landlord tenant borrower borrowers lender lenders "
    "administrative purchaser purchasers seller sellers buyer buyers company companies "
    "corporation corporations corp inc incorporated llc ltd limited plc lp llp co na bank "
    "national association trust fund holdings group international parties party")
_DATING_WORDS = (
    "effective dated date no number first second third fourth fifth conformed through between "
    "among by and the of to in for with january february march april may june july august "
    "september october november december")
#: Words that name a kind of instrument, a role, a company form or a date, never one document.
GENERIC_NAME_WORDS = frozenset(f"{_INSTRUMENT_WORDS} {_ROLE_WORDS} {_DATING_WORDS}".split())

#: Share of the best family's score another family needs to be routed to as well.
ROUTE_SHARE = 0.6
#: Score below which a question names nothing: a name word of more than half the transactions
#: scores less than ln 2 and does not route alone (one of two transactions' names does).
MIN_ROUTE_SCORE = math.log(2) - 1e-9
#: What a provision outside the routed families keeps of its score.
OFF_ROUTE = 0.3
#: Characters of a document's opening read for the names it gives itself and its parties.
OPENING_CHARS = 1500

_WORD = re.compile(r"[a-z0-9]+")


def _cues(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Question words that ask for what a flag marks (raw lower-case words: several are stop
#: words). An amount is in a provision with money, a deadline in one with a date, and so on.
FLAG_CUES: Mapping[str, frozenset[str]] = {
    "has_money": _cues("amount amounts fee fees price prices pay paid payment payments cost "
                       "costs dollar dollars royalty royalties compensation much large big "
                       "consideration commitment commitments threshold cap"),
    "has_date": _cues("date dates when deadline day days term expire expires expiration "
                      "effective until period year years month months mature maturity"),
    "has_percentage": _cues("percent percentage rate rates interest margin"),
    "has_liability_limit": _cues("liability liable cap capped limit limits limitation "
                                 "indemnity indemnification"),
    "has_condition": _cues("condition conditions conditional if unless subject precedent "
                           "trigger triggers"),
    "is_definition": _cues("mean means meaning defined definition define"),
}
_RAW_WORD = re.compile(r"[a-z]+|%|\$")


#: What each flag the question asks for adds to a provision's value, when the provision has it.
FLAG_BONUS = 0.25

#: Question words that ask about an instrument itself: who made it, when, under what name.
#: Contracts of every kind say that in their opening (title, parties, date), whatever else
#: they are about, so such a question reads the opening of the instruments it names.
OPENING_CUES = frozenset({
    "parties", "party", "signatories", "signatory", "counterparties", "dated", "date", "dates",
    "effective", "entered", "executed", "made", "name", "named", "called", "titled"})


def asks_about_instrument(question: str) -> bool:
    """Whether the question asks who made an instrument, when or under what name."""
    return bool(set(_RAW_WORD.findall(question.lower())) & OPENING_CUES)


def flag_boost(node: Node, flags: Sequence[str]) -> float:
    """1, plus ``FLAG_BONUS`` per asked-for flag ``node`` carries."""
    return 1.0 + FLAG_BONUS * sum(bool(getattr(node.flags, flag)) for flag in flags)


def question_flags(question: str) -> tuple[str, ...]:
    """The node flags (``Flags`` field names) the question's wording asks for; "$" asks for
    money, "%" for a percentage and a quoted term for a definition."""
    words = set(_RAW_WORD.findall(question.lower()))
    flags = [flag for flag, cues in FLAG_CUES.items() if words & cues]
    for sign, flag in (("$", "has_money"), ("%", "has_percentage")):
        if sign in words and flag not in flags:
            flags.append(flag)
    if re.search(r"[\"“][^\"”]+[\"”]", question) and "is_definition" not in flags:
        flags.append("is_definition")
    return tuple(flags)
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9&.'’-]*")


def name_words(text: str) -> set[str]:
    """The words of ``text`` that could name a document (no stop or generic words)."""
    # A number names a document only when it is long enough to be an agreement number.
    return {w for w in _WORD.findall(text.casefold())
            if (len(w) >= 4 if w.isdigit() else len(w) > 1 and w not in STOP_WORDS
                and w not in GENERIC_NAME_WORDS and w.removesuffix("s") not in GENERIC_NAME_WORDS)}


def party_words(parties: Iterable[str]) -> frozenset[str]:
    """The words of parties' names, generic ones too ("Inc", "Bank"): a question that
    writes them with a capital beside a word that routed it is naming the party ("Western
    Alliance Bank", routed by "Western")."""
    return frozenset(w for w in _WORD.findall(" ".join(parties).casefold())
                     if len(w) > 1 and w not in STOP_WORDS)


def asked_names(question: str) -> set[str]:
    """The name words of a question: those it writes with a capital ("NETGEAR", "Ingram
    Micro", "Ice Age 2" and the number after it), as names are written; a lower-case word
    ("notice", "cap") is the subject of the question, not the name of a document."""
    written = re.findall(r"[A-Za-z0-9][A-Za-z0-9&.'’-]*", question)
    capitalised = []
    for position, word in enumerate(written):
        if word[0].isupper() or (word[0].isdigit() and position and written[position - 1][0]
                                 .isupper()):
            capitalised.append(word)
    return name_words(" ".join(capitalised))


@dataclass(frozen=True)
class Route:
    """The documents a question is routed to, and the factor every document's provisions
    are scored with (1.0 in the routed families, ``OFF_ROUTE`` outside)."""

    weights: Mapping[str, float]
    families: tuple[tuple[str, ...], ...]
    """The routed families, best first; empty when the question names no document."""
    words: tuple[str, ...]
    """The question's words that named them."""
    parties: frozenset[str] = frozenset()
    """The words of the routed documents' parties' names as their manifest gives them
    ("Western Alliance Bank": western, alliance, bank), role and company-form words too."""

    @property
    def routed(self) -> bool:
        """Whether the question named any document."""
        return bool(self.families)

    def weight(self, doc_id: str) -> float:
        """The factor a provision of ``doc_id`` is scored with."""
        return self.weights.get(doc_id, 1.0)

    def documents(self) -> tuple[str, ...]:
        """The routed documents, family by family."""
        return tuple(doc for family in self.families for doc in family)

    def note(self) -> str:
        """The route in words, for a retrieval's notes."""
        if not self.routed:
            return "routing: the question names no document; every document in scope"
        return (f"routing: {', '.join(self.words)} named "
                f"{'; '.join(', '.join(f) for f in self.families)}")


class Router:
    """Routes questions over a fixed set of documents, each known by its name words."""

    def __init__(self, identities: Mapping[str, set[str]],
                 families: Mapping[str, tuple[str, ...]],
                 parties: Mapping[str, frozenset[str]] | None = None) -> None:
        self.order = tuple(identities)
        self.names = {doc: frozenset(words) for doc, words in identities.items()}
        self.parties = dict(parties or {})
        self.families = {doc: families.get(doc, (doc,)) for doc in self.order}
        # Rarity counts families, not documents: a party every document of one transaction
        # names is as telling as a name only one document carries.
        groups = list(dict.fromkeys(self.families.values()))
        holding = Counter(word for family in groups
                          for word in set().union(*(self.names[d] for d in family)))
        self.idf = {word: math.log(len(groups) / count) for word, count in holding.items()}

    @classmethod
    def of_corpus(cls, indexes: Sequence[DocumentIndex],
                  documents: Sequence[Document] = ()) -> Router:
        """A router over built indexes (and, when given, the documents' manifest facts)."""
        known = {d.doc_id: d for d in documents}
        return cls({index.doc_id: _identity(index, known.get(index.doc_id))
                    for index in indexes}, _families(indexes, known),
                   {doc_id: party_words(d.parties) for doc_id, d in known.items()})

    @classmethod
    def of_identities(cls, identities: Mapping[str, set[str]],
                      amends: Mapping[str, tuple[str, ...]]) -> Router:
        """A router over name words given directly; families follow the amendment links."""
        links = {doc: tuple(a for a in amends.get(doc, ()) if a in identities)
                 for doc in identities}
        return cls(identities, _linked_families(list(identities), links, {}))

    def route(self, question: str) -> Route:
        """The families the question names (by the rarity of the name words it uses)."""
        asked = asked_names(question)
        scores: dict[tuple[str, ...], tuple[float, set[str]]] = {}
        for family in dict.fromkeys(self.families.values()):
            matched = {w for doc in family for w in asked & self.names[doc]}
            scores[family] = (sum(self.idf[w] for w in matched), matched)
        best = max((score for score, _ in scores.values()), default=0.0)
        if best < MIN_ROUTE_SCORE:
            return Route({}, (), ())
        chosen = sorted((f for f, (score, _) in scores.items() if score >= ROUTE_SHARE * best),
                        key=lambda f: (-scores[f][0], self.order.index(f[0])))
        inside = {doc for family in chosen for doc in family}
        words = sorted({w for f in chosen for w in scores[f][1]})
        weights = {doc: 1.0 if doc in inside else OFF_ROUTE for doc in self.order}
        parties = frozenset().union(*(self.parties.get(doc, frozenset()) for doc in inside))
        return Route(weights, tuple(chosen), tuple(words), parties)


def _identity(index: DocumentIndex, document: Document | None) -> set[str]:
    """The words that name a document: title, parties, and the capitalised words of its
    opening that the document does not also use as ordinary words (a heading such as
    "NOTICES" is capitalised; "notice" in the body shows it is no name)."""
    parts = [index.title, *index.parties, *(document.parties if document is not None else ())]
    if document is not None and document.title:
        parts.append(document.title)
    named = name_words(" ".join(parts))
    lower = _lower_case_words(index.root.text)
    # Terms the definitions define ("Applicable Margin", "SOFR") are capitalised wherever they
    # appear, the opening included, and a question writes them so too: they name no document.
    defined = name_words(" ".join(t for n in index.nodes if n.kind == "definition"
                                  for t in n.defines))
    opening = name_words(" ".join(_CAPITALISED.findall(_opening(index)))) - defined
    return named | {word for word in opening if lower[word] <= ORDINARY_USES}


#: Lower-case uses beyond which a capitalised word of the opening is an ordinary word.
ORDINARY_USES = 1


def _lower_case_words(text: str) -> Counter[str]:
    """How often each word is written in lower case (a capital anywhere in it: not counted)."""
    return Counter(re.findall(r"\b[a-z][a-z0-9]*\b", text))


def _opening(index: DocumentIndex) -> str:
    """The first ``OPENING_CHARS`` characters of the document outside its table of contents
    (whose headings name subjects, not the document)."""
    contents = sorted((n.start, n.end) for n in index.nodes
                      if n.kind in ("toc", "toc_entry") or n.flags.is_toc_entry)
    text = index.root.text
    kept: list[str] = []
    size = cursor = 0
    for start, end in [*contents, (len(text), len(text))]:
        if start > cursor:
            piece = text[cursor:start][:OPENING_CHARS - size]
            kept.append(piece)
            size += len(piece)
        cursor = max(cursor, end)
        if size >= OPENING_CHARS:
            break
    return "".join(kept)


def _families(indexes: Sequence[DocumentIndex],
              documents: Mapping[str, Document]) -> dict[str, tuple[str, ...]]:
    """Each document's family: the documents joined to it by amendment links or a shared
    transaction set, in corpus order."""
    sets = {d.doc_id: d.transaction_set for d in documents.values() if d.transaction_set}
    return _linked_families([i.doc_id for i in indexes], {i.doc_id: i.amends for i in indexes},
                            sets)


def _linked_families(order: Sequence[str], amends: Mapping[str, tuple[str, ...]],
                     sets: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    parent = {doc: doc for doc in order}

    def root(doc: str) -> str:
        while parent[doc] != doc:
            parent[doc] = parent[parent[doc]]
            doc = parent[doc]
        return doc

    first_of_set: dict[str, str] = {}
    for doc in order:
        for base in amends.get(doc, ()):
            if base in parent:
                parent[root(doc)] = root(base)
        if doc in sets:
            first = first_of_set.setdefault(sets[doc], doc)
            parent[root(doc)] = root(first)
    members: dict[str, list[str]] = {}
    for doc in order:
        members.setdefault(root(doc), []).append(doc)
    return {doc: tuple(members[root(doc)]) for doc in order}


def routed_first(doc_ids: Iterable[str], route: Route) -> list[str]:
    """``doc_ids`` with the routed documents first (each group in the given order)."""
    given = list(doc_ids)
    inside = set(route.documents())
    return [d for d in given if d in inside] + [d for d in given if d not in inside]
