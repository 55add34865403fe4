"""The model-free navigator: navindex's scan rules applied to the index a model would read.

It sees exactly what a scanning model sees, the token-optimised index of each document (no
provision text beyond its opening snippet), and chooses at most ``cap`` nodes:

- **routing**: a question naming a party, instrument or transaction is answered from that
  transaction's documents (``modes.routing``, over titles, parties and the opening's names);
  a node of another document scores ``OUTSIDE_ROUTE`` of its words; a question routed to
  several transactions reads the one whose instrument's title it writes (``NAMED_TITLE``);
- **words**: BM25 over each node's heading, defined terms, keywords, summary and snippet,
  headings and defined terms counting three times (they name the subject), stemmed, with the
  question's routing names left out, and the words it capitalises as a routed instrument's
  title or party names (generic ones too: "SUPPLY AGREEMENT", "Agent");
- **openings**: a question asking who made a routed instrument, when or under what name
  scores its opening as high as its best node;
- **flags**: an amount asks for ``hasMoney``, a date for ``hasDate``, a cap for
  ``hasLiabilityLimit``, a condition for ``hasCondition``, a defined term for
  ``isDefinition``; a node carrying an asked-for flag scores more;
- **definitions**: a node defining a term the question writes is chosen first;
- **structure**: contents entries are never chosen, no chosen node contains another, and an
  amendment's node that cites a chosen node of the instrument it amends is chosen with it
  (and the other way round), so both versions of a provision are read.

The reference backend calls it when it plays the scanning model; the scan prompt carries the
same rules in words for a real model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.modes import routing
from pytest_legalbench.modes.routing import (
    OFF_ROUTE,
    Route,
    Router,
    name_words,
    question_flags,
)
from pytest_legalbench.navindex.serialise import absolute_id
from pytest_legalbench.navindex.stop_words import STOP_WORDS
from pytest_legalbench.vectors.bm25 import SparseBM25
from pytest_legalbench.vectors.lexical_index import stem, stemmed, tokenise

#: How many times each field of a node is read: a heading names the subject, a keyword is
#: about it, the opening merely mentions it.
FIELD_REPEATS = (("title", 3), ("clauseReference", 1), ("definedTerms", 3), ("keywords", 2),
                 ("summary", 1), ("snippet", 1))
#: A section also scores this share of its best-scoring parts (``AGGREGATED`` of them): a
#: section several of whose clauses match is where to look, and the fetch reads the parts of
#: it that fit.
PART_SHARE = 0.25
AGGREGATED = 3
#: A node longer than ``LONG_TEXT`` characters scores ``LONG_FACTOR`` of its words.
LONG_TEXT = 8000
LONG_FACTOR = 1.0
#: What a node defining a term the question writes scores, as a multiple of the best.
DEFINITION_FACTOR = 1.5
#: Nodes scoring below this share of the best are noise, not candidates.
KEEP_SHARE = 0.2
#: Whether the words that routed a question are left out of its word matching.
ROUTING_NAMES_OUT = True
#: Whether the words a question capitalises as a routed instrument's title or a party's name
#: ("the SUPPLY AGREEMENT between Acme Chemical and Agent") are left out of its word matching,
#: generic ones included: they name the instrument, and left in they pick its opening.
TITLE_NAMES_OUT = True
#: The factor a node outside a routed question's documents scores with, a tenth of the
#: router's: the named instrument answers, and another document's node comes only when it
#: matches far better (at the router's factor, such nodes crowded out the named one's).
OUTSIDE_ROUTE = 0.03
#: What the opening of a routed instrument scores, as a multiple of the best, when the
#: question asks who made it, when or under what name.
OPENING_FACTOR = 1.0
#: Whether a question routed to several transactions is narrowed to the one holding the
#: instrument whose title it writes: the share of that title's words the question holds, ties
#: going to the longer title ("Amendment No. 1 to the Maintenance Agreement" over "Maintenance
#: Agreement" when the question writes the first), at least ``TITLE_COVERAGE``.
NAMED_TITLE = True
TITLE_COVERAGE = 0.75

#: Index flag names by ``Flags`` field name (the question asks in field names).
_FLAG_FIELDS = {"has_money": "hasMoney", "has_date": "hasDate",
                "has_percentage": "hasPercentage", "has_liability_limit": "hasLiabilityLimit",
                "has_condition": "hasCondition", "is_definition": "isDefinition"}
_SPACE = re.compile(r"[^a-z0-9]+")
_CASED_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class Entry:
    """One node of a scanned index, flattened with its place in the tree."""

    doc_id: str
    written: str
    """The node id as the index writes it (what a selection must repeat)."""
    node_id: str
    parent: str | None
    fields: Mapping[str, Any]

    @property
    def is_contents(self) -> bool:
        """Whether the node is a contents entry."""
        return bool(self.fields.get("isTocEntry"))

    @property
    def is_leaf(self) -> bool:
        """Whether the node has no children."""
        return not self.fields.get("children")


@dataclass(frozen=True)
class IndexView:
    """One document's index as the navigator reads it."""

    doc_id: str
    title: str
    parties: tuple[str, ...]
    amends: tuple[str, ...]
    entries: tuple[Entry, ...]


def read_index(doc_id: str, index: Mapping[str, Any]) -> IndexView:
    """The view of an (expanded) navindex dict."""
    return IndexView(doc_id, str(index.get("documentTitle") or ""),
                     tuple(str(p) for p in index.get("parties") or ()),
                     tuple(str(a) for a in index.get("amends") or ()),
                     tuple(_flatten(doc_id, index["documentIndex"], None)))


def _flatten(doc_id: str, node: Mapping[str, Any], parent: str | None) -> Iterator[Entry]:
    written = str(node.get("nodeId", ""))
    node_id = absolute_id(written, doc_id)
    yield Entry(doc_id, written, node_id, parent, node)
    for child in node.get("children") or ():
        yield from _flatten(doc_id, child, node_id)


def view_router(views: Sequence[IndexView]) -> Router:
    """A router over indexes alone: titles, parties and the names in each opening."""
    identities = {}
    for view in views:
        opening = " ".join(str(e.fields.get(f) or "") for e in view.entries[:4]
                           for f in ("snippet", "summary") if not e.is_contents)
        capitalised = " ".join(re.findall(r"\b[A-Z][A-Za-z0-9&.'’-]*", opening))
        identities[view.doc_id] = name_words(" ".join([view.title, *view.parties, capitalised]))
    return Router.of_identities(identities, {v.doc_id: v.amends for v in views})


def select_nodes(views: Sequence[IndexView], question: str, cap: int) -> list[Entry]:
    """At most ``cap`` entries to fetch for ``question``, best first."""
    return Navigator(views).select(question, cap)


class Navigator:
    """The navigator over one set of indexes; what no question changes (the router, the
    words of every node, the tree) is built once, so one instance answers many scans."""

    def __init__(self, views: Sequence[IndexView]) -> None:
        self.entries = tuple(e for view in views for e in view.entries)
        self.router = view_router(views)
        self.amends = {v.doc_id: v.amends for v in views}
        self.naming = {v.doc_id: frozenset(tokenise(" ".join([v.title, *v.parties])))
                       for v in views}
        self.titles = {v.doc_id: frozenset(w for w in tokenise(v.title) if w not in STOP_WORDS)
                       for v in views}
        # The document root is never chosen: it is the whole instrument, which is inject's job.
        self.candidates = tuple(e for e in self.entries
                                if not e.is_contents and e.parent is not None)
        self.openings: dict[str, str] = {}
        for entry in self.candidates:
            self.openings.setdefault(entry.doc_id, entry.node_id)
        self._bm25 = SparseBM25([_words(e) or ["\0"] for e in self.candidates])
        self._tree = _Tree(self.entries)

    def select(self, question: str, cap: int) -> list[Entry]:
        """At most ``cap`` entries to fetch for ``question``, best first."""
        scores = self.scores(question, self.route(question))
        return _choose(self._tree, scores, self.amends, cap)

    def route(self, question: str) -> Route:
        """The router's route, narrowed to the transaction whose instrument the question
        names by its title when it named several (``NAMED_TITLE``)."""
        route = self.router.route(question)
        if not NAMED_TITLE or len(route.families) < 2:
            return route
        asked = frozenset(tokenise(question))
        match = {family: max(_title_match(self.titles.get(d, frozenset()), asked)
                             for d in family) for family in route.families}
        first, second = sorted(route.families, key=match.__getitem__, reverse=True)[:2]
        if match[first][0] < TITLE_COVERAGE or match[first] <= match[second]:
            return route
        return Route({doc: 1.0 if doc in first else OFF_ROUTE for doc in route.weights},
                     (first,), route.words, route.parties)

    def scores(self, question: str, route: Route) -> dict[str, float]:
        """Scores of the candidate entries (contents never) that match the question at all,
        and of a routed instrument's opening when the question asks who made it."""
        if not self.candidates:
            return {}
        named = frozenset().union(*(self.naming.get(d, ()) for d in route.documents()))
        scores = _scored(self.candidates, self._bm25, question, route, named)
        if OPENING_FACTOR and route.routed and routing.asks_about_instrument(question):
            # Who made an instrument, when and under what name is written in its opening,
            # which a question naming the instrument no longer finds by those names.
            best = max(scores.values(), default=0.0) or 1.0
            for doc_id in route.families[0]:
                opening = self.openings.get(doc_id)
                if opening is not None:
                    scores[opening] = max(scores.get(opening, 0.0), best * OPENING_FACTOR)
        return scores


def _scored(candidates: Sequence[Entry], bm25: SparseBM25, question: str,
            route: Route, named: frozenset[str] = frozenset()) -> dict[str, float]:
    # The names that routed the question have done their work: left in, they would pick the
    # openings and signature blocks that print them, not the provision asked about.
    names = ({word for name in route.words for word in stemmed(name)} if ROUTING_NAMES_OUT
             else set())
    # A term the question defines by a party's name ("Fox") is still asked for: only the
    # word matching leaves the instrument's names out.
    subject = _unnamed(question, named)
    asked_words = [stem(w) for w in tokenise(subject) if w not in STOP_WORDS
                   and stem(w) not in names] or stemmed(subject)
    matched = bm25.scores(asked_words)
    flags = [_FLAG_FIELDS[f] for f in question_flags(question)]
    asked = _asked_terms(question)
    scores: dict[str, float] = {}
    for entry, lexical in zip(candidates, matched):
        if lexical <= 0:
            continue
        score = float(lexical) * (1 + routing.FLAG_BONUS
                                  * sum(bool(entry.fields.get(f)) for f in flags))
        weight = route.weight(entry.doc_id)
        scores[entry.node_id] = score * (weight if weight >= 1.0 else OUTSIDE_ROUTE)
    scores = _with_parts(candidates, scores)
    for entry in candidates:
        if entry.node_id in scores and int(entry.fields.get("textLength") or 0) > LONG_TEXT:
            scores[entry.node_id] *= LONG_FACTOR
    best = max(scores.values(), default=0.0)
    for entry in candidates:
        defined = {_SPACE.sub(" ", str(t).casefold()).strip()
                   for t in entry.fields.get("definedTerms") or ()}
        if defined & asked and entry.node_id in scores and route.weight(entry.doc_id) > OFF_ROUTE:
            scores[entry.node_id] = max(scores[entry.node_id], best * DEFINITION_FACTOR)
    return {node_id: round(score, 6) for node_id, score in scores.items()}


def _title_match(title: frozenset[str], asked: frozenset[str]) -> tuple[float, int]:
    """How fully a question writes a title: the share of its words it holds, then how many."""
    held = len(title & asked)
    return (held / len(title), held) if title else (0.0, 0)


def _unnamed(question: str, named: frozenset[str]) -> str:
    """``question`` without the words it capitalises that are in ``named`` (the routed
    instruments' titles and parties); the same word written lower-case is the subject."""
    if not TITLE_NAMES_OUT or not named:
        return question
    return _CASED_WORD.sub(lambda word: " " if word[0][0].isupper()
                           and word[0].casefold() in named else word[0], question)


def _with_parts(entries: Sequence[Entry], own: Mapping[str, float]) -> dict[str, float]:
    """Each entry's own score plus ``PART_SHARE`` of its ``AGGREGATED`` best children's
    (themselves counted the same way), bottom-up."""
    children: dict[str, list[str]] = {}
    for entry in entries:
        if entry.parent is not None:
            children.setdefault(entry.parent, []).append(entry.node_id)
    total: dict[str, float] = {}
    # Entries come in document order, parents before children: a reverse pass is bottom-up.
    for entry in reversed(entries):
        parts = sorted((total.get(c, 0.0) for c in children.get(entry.node_id, ())),
                       reverse=True)[:AGGREGATED]
        value = own.get(entry.node_id, 0.0) + PART_SHARE * sum(parts)
        if value > 0:
            total[entry.node_id] = value
    return total


def _words(entry: Entry) -> list[str]:
    words: list[str] = []
    for name, repeats in FIELD_REPEATS:
        value = entry.fields.get(name) or ""
        text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        words.extend(stemmed(text) * repeats)
    return words


def _asked_terms(question: str) -> set[str]:
    """Every run of one to five words of the question, folded (to meet defined terms)."""
    words = _SPACE.sub(" ", question.casefold()).split()
    runs = {" ".join(words[i:i + n]) for n in range(1, 6) for i in range(len(words) - n + 1)}
    return {run for run in runs if len(run) >= 3} | {run.rstrip("s") for run in runs
                                                     if len(run) > 3}


def _ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids scoring at least the kept share of the best, best first, ties by id."""
    if not scores:
        return []
    floor = max(scores.values()) * KEEP_SHARE
    return sorted((i for i, s in scores.items() if s > 0 and s >= floor),
                  key=lambda i: (-scores[i], i))


class _Tree:
    """The entries by id, each one's ancestors, and what each one contains."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.by_id = {e.node_id: e for e in entries}
        self.lineage = {e.node_id: set(_lineage(e, self.by_id)) for e in entries}
        self.inside: dict[str, set[str]] = {}
        for node_id, line in self.lineage.items():
            for ancestor in line:
                self.inside.setdefault(ancestor, set()).add(node_id)


def _choose(tree: _Tree, scores: Mapping[str, float],
            amends: Mapping[str, tuple[str, ...]], cap: int) -> list[Entry]:
    by_id, lineage, inside = tree.by_id, tree.lineage, tree.inside
    chosen: list[Entry] = []
    taken: set[str] = set()   # chosen ids and their ancestors and descendants

    def take(entry: Entry) -> None:
        chosen.append(entry)
        taken.add(entry.node_id)
        taken.update(lineage[entry.node_id])
        taken.update(inside.get(entry.node_id, ()))

    for node_id in _ranked(scores):
        if len(chosen) >= cap:
            break
        if node_id in taken:
            continue
        # The original and every amendment of it travel together: a partner's own partners
        # (the other amendments of the same clause) are queued as well.
        queue = [by_id[node_id]]
        while queue and len(chosen) < cap:
            entry = queue.pop(0)
            if entry.node_id in taken:
                continue
            take(entry)
            queue.extend(_partners(entry, by_id, lineage, inside, amends, scores))
    return chosen


def _lineage(entry: Entry, by_id: Mapping[str, Entry]) -> Iterator[str]:
    """The ids of ``entry``'s ancestors."""
    parent = entry.parent
    while parent is not None and parent in by_id:
        yield parent
        parent = by_id[parent].parent


def _partners(entry: Entry, by_id: Mapping[str, Entry], lineage: Mapping[str, set[str]],
              inside: Mapping[str, set[str]], amends: Mapping[str, tuple[str, ...]],
              scores: Mapping[str, float]) -> list[Entry]:
    """Nodes of an amending or amended instrument citing ``entry`` or cited by it."""
    related = {entry.node_id} | lineage[entry.node_id] | inside.get(entry.node_id, set())
    cited = {absolute_id(x, entry.doc_id) for x in entry.fields.get("crossReferencedIds", [])}
    found: list[Entry] = []
    for other in by_id.values():
        linked = entry.doc_id in amends.get(other.doc_id, ()) or \
            other.doc_id in amends.get(entry.doc_id, ())
        if not linked or other.is_contents or int(other.fields.get("textLength") or 0) > LONG_TEXT:
            continue
        cites = {absolute_id(x, other.doc_id) for x in other.fields.get("crossReferencedIds", [])}
        if cites & related or other.node_id in cited:
            found.append(other)
    return sorted(found, key=lambda e: (-scores.get(e.node_id, 0.0), e.node_id))
