"""The deterministic navigator: the navindex scan's rules applied without a language model.

It reads only the request: the tagged indexes of the system prompt (or the document list of
a two-stage scan), the question of the last user turn, and the cap in the forced tool's schema.
A node scores by the rarity-weighted question terms its heading, defined terms, keywords and
opening carry; the flags the question routes to (an amount to ``hasMoney``, a defined term to
``isDefinition``, ...) raise the score of a node that already matches. Contents entries are
never chosen, a node with children or a very long text counts for less than a leaf, no chosen
node contains another, and an amendment's node that cites a chosen node of the instrument it
amends is chosen with it (and the other way round), within the cap.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.defaults import MAX_SCAN_NODES
from pytest_legalbench.navindex.json_forms import expand_optimised
from pytest_legalbench.navindex.schema import IndexFormatError
from pytest_legalbench.navindex.serialise import absolute_id
from pytest_legalbench.reference_backend.lexical import content_terms
from pytest_legalbench.reference_backend.prompt_parts import question_of, tagged_text
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

SELECT_NODES = "select_nodes"
SELECT_DOCUMENTS = "select_documents"
#: Documents a two-stage scan picks when the tool schema does not say.
MAX_DOCUMENTS = 5

# Where a question term is found says how much it tells: a heading or a defined term names
# the subject, a keyword is about it, the opening merely mentions it.
_FIELD_WEIGHTS = (("title", 3.0), ("clauseReference", 3.0), ("definedTerms", 3.0),
                  ("keywords", 2.0), ("summary", 1.0), ("snippet", 1.0))
_ROUTE_BONUS = 0.25
_TITLE_SHARE = 1.0
_PARENT_FACTOR = 0.6
_LONG_TEXT = 8000
_LONG_FACTOR = 0.5
# Nodes scoring below this share of the best are noise, not candidates.
_KEEP_SHARE = 0.4
_PRECISION = 6


def _cues(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Question words that route to a flag (raw lower-case words, since several are stop words).
_ROUTES: Mapping[str, frozenset[str]] = {
    "hasMoney": _cues("amount amounts fee fees price prices pay paid payment payments cost "
                      "costs dollar dollars royalty royalties compensation much "
                      "consideration commitment commitments"),
    "hasDate": _cues("date dates when deadline day days term expire expires expiration "
                     "effective until period year years month months"),
    "hasPercentage": _cues("percent percentage rate rates interest margin"),
    "hasLiabilityLimit": _cues("liability liable cap capped limit limits limitation "
                               "indemnity indemnification"),
    "hasCondition": _cues("condition conditions conditional if unless subject precedent "
                          "trigger triggers"),
    "hasParty": _cues("party parties who whom"),
    "isDefinition": _cues("mean means meaning defined definition define"),
}
_WORDS = re.compile(r"[a-z]+|%|\$")
_INDEX_TAG = re.compile(r'<index doc_id="([^"]*)">')


@dataclass(frozen=True)
class _Entry:
    """One node of a scanned index, flattened with its place in the tree."""

    doc_id: str
    written: str
    node_id: str
    parent: str | None
    fields: Mapping[str, Any]

    @property
    def is_contents(self) -> bool:
        return bool(self.fields.get("isTocEntry"))

    @property
    def is_leaf(self) -> bool:
        return not self.fields.get("children")


def select_nodes_input(request: MessagesRequest) -> dict[str, object]:
    """The ``select_nodes`` input the navigator chooses for ``request``."""
    entries, amends, titles = _read_indexes(request.system)
    question = question_of(request.last_user_text)
    cap = min(_schema_cap(request, SELECT_NODES, "nodes", MAX_SCAN_NODES), MAX_SCAN_NODES)
    scores = _score_nodes(entries, titles, question)
    chosen = _choose(entries, scores, amends, cap)
    return {"nodes": [{"doc_id": e.doc_id, "node_id": e.written} for e in chosen]}


def select_documents_input(request: MessagesRequest) -> dict[str, object]:
    """The ``select_documents`` input the navigator chooses for ``request``."""
    listing = tagged_text(request.last_user_text, "document_list")
    if listing is None:
        raise invalid("select_documents: the last user turn has no <document_list> block")
    rows = [line.split(" | ", 4) for line in listing.splitlines() if line.strip()]
    rows = [row + [""] * (5 - len(row)) for row in rows]
    bags = {row[0]: _weighted_terms((row[1], 2.0), (row[4], 1.5), (row[3], 1.0), (row[2], 0.5))
            for row in rows}
    idf = _idf(list(bags.values()))
    terms = set(content_terms(question_of(request.last_user_text)))
    scores = {doc_id: sum(idf[t] * bag[t] for t in terms if t in bag)
              for doc_id, bag in bags.items()}
    ranked = _ranked(scores)
    # "amendment of A, B" in the role column links an amendment to what it amends.
    amends = {row[0]: [d.strip() for d in row[2].partition(" of ")[2].split(",") if d.strip()]
              for row in rows}
    partners = {d: [p for p in amends[d] if p in scores] +
                   [a for a in scores if d in amends[a]] for d in scores}
    cap = _schema_cap(request, SELECT_DOCUMENTS, "doc_ids", MAX_DOCUMENTS)
    picked: list[str] = []
    for doc_id in ranked:
        for candidate in (doc_id, *sorted(partners[doc_id], key=lambda d: (-scores[d], d))):
            if len(picked) < cap and candidate not in picked:
                picked.append(candidate)
    return {"doc_ids": picked}


def _read_indexes(system: str) -> tuple[list[_Entry], dict[str, tuple[str, ...]],
                                        dict[str, str]]:
    """Every node of the tagged indexes in ``system``, what each document amends, and each
    document's title."""
    decoder = json.JSONDecoder()
    entries: list[_Entry] = []
    amends: dict[str, tuple[str, ...]] = {}
    titles: dict[str, str] = {}
    for tag in _INDEX_TAG.finditer(system):
        doc_id = tag.group(1)
        try:
            # Decoded in place, so a snippet quoting "</index>" cannot end the block early.
            _, end = decoder.raw_decode(system, tag.end())
            index = expand_optimised(system[tag.end():end])
        except (json.JSONDecodeError, IndexFormatError) as error:
            raise invalid(f"select_nodes: the index of {doc_id!r} cannot be read: {error}") \
                from None
        amends[doc_id] = tuple(index.get("amends") or ())
        titles[doc_id] = str(index.get("documentTitle") or "")
        entries.extend(_flatten(doc_id, index["documentIndex"], None))
    if not titles:
        # Nothing to choose from is a caller's mistake, not a question without an answer.
        raise invalid('select_nodes: the system prompt holds no <index doc_id="..."> block '
                      "to choose nodes from")
    return entries, amends, titles


def _flatten(doc_id: str, node: Mapping[str, Any], parent: str | None) -> Iterator[_Entry]:
    written = str(node.get("nodeId", ""))
    node_id = absolute_id(written, doc_id)
    yield _Entry(doc_id, written, node_id, parent, node)
    for child in node.get("children") or ():
        yield from _flatten(doc_id, child, node_id)


def _weighted_terms(*parts: tuple[str, float]) -> dict[str, float]:
    """Each content term of the parts with the highest weight of a part it occurs in."""
    bag: dict[str, float] = {}
    for text, weight in parts:
        for term in content_terms(text):
            bag[term] = max(bag.get(term, 0.0), weight)
    return bag


def _idf(bags: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Rarity of each term over the bags: ln(1 + bags / bags holding it)."""
    counts = Counter(term for bag in bags for term in bag)
    return {term: math.log(1 + len(bags) / count) for term, count in counts.items()}


def _node_bag(entry: _Entry) -> dict[str, float]:
    parts = []
    for name, weight in _FIELD_WEIGHTS:
        value = entry.fields.get(name) or ""
        parts.append((" ".join(value) if isinstance(value, list) else str(value), weight))
    return _weighted_terms(*parts)


def _score_nodes(entries: Sequence[_Entry], titles: Mapping[str, str],
                 question: str) -> dict[str, float]:
    """Scores of the candidate nodes (contents excluded) that match the question at all."""
    candidates = [e for e in entries if not e.is_contents]
    bags = {e.node_id: _node_bag(e) for e in candidates}
    idf = _idf(list(bags.values()))
    terms = set(content_terms(question))
    routed = _routed_flags(question)
    # A question naming an instrument ("the distributor agreement") leans towards its nodes.
    named = {doc_id: 1 + _TITLE_SHARE * len(terms & set(content_terms(title))) / len(terms)
             for doc_id, title in titles.items()} if terms else {}
    scores: dict[str, float] = {}
    for entry in candidates:
        bag = bags[entry.node_id]
        lexical = sum(idf[t] * bag[t] for t in terms if t in bag)
        if lexical <= 0:
            continue
        score = lexical * (1 + _ROUTE_BONUS * sum(bool(entry.fields.get(f)) for f in routed))
        score *= named.get(entry.doc_id, 1.0)
        if not entry.is_leaf:
            score *= _PARENT_FACTOR
        if int(entry.fields.get("textLength") or 0) > _LONG_TEXT:
            score *= _LONG_FACTOR
        scores[entry.node_id] = round(score, _PRECISION)
    return scores


def _routed_flags(question: str) -> tuple[str, ...]:
    """The flags the question's wording routes to; a quoted term asks for a definition."""
    words = set(_WORDS.findall(question.lower()))
    routed = [flag for flag, cues in _ROUTES.items() if words & cues]
    if "$" in words and "hasMoney" not in routed:
        routed.append("hasMoney")
    if "%" in words and "hasPercentage" not in routed:
        routed.append("hasPercentage")
    if re.search(r"[\"“][^\"”]+[\"”]", question) and "isDefinition" not in routed:
        routed.append("isDefinition")
    return tuple(routed)


def _ranked(scores: Mapping[str, float]) -> list[str]:
    """Ids with a score of at least the kept share of the best, best first, ties by id."""
    if not scores:
        return []
    floor = max(scores.values()) * _KEEP_SHARE
    return sorted((i for i, s in scores.items() if s > 0 and s >= floor),
                  key=lambda i: (-scores[i], i))


def _choose(entries: Sequence[_Entry], scores: Mapping[str, float],
            amends: Mapping[str, tuple[str, ...]], cap: int) -> list[_Entry]:
    by_id = {e.node_id: e for e in entries}
    lineage = {e.node_id: set(_lineage(e, by_id)) for e in entries}
    chosen: list[_Entry] = []
    taken: set[str] = set()   # chosen ids and their ancestors and descendants

    def take(entry: _Entry) -> None:
        chosen.append(entry)
        taken.add(entry.node_id)
        taken.update(lineage[entry.node_id])
        taken.update(i for i, line in lineage.items() if entry.node_id in line)

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
            queue.extend(_partners(entry, by_id, lineage, amends, scores))
    return chosen


def _lineage(entry: _Entry, by_id: Mapping[str, _Entry]) -> Iterator[str]:
    """The ids of ``entry``'s ancestors."""
    parent = entry.parent
    while parent is not None and parent in by_id:
        yield parent
        parent = by_id[parent].parent


def _partners(entry: _Entry, by_id: Mapping[str, _Entry], lineage: Mapping[str, set[str]],
              amends: Mapping[str, tuple[str, ...]],
              scores: Mapping[str, float]) -> list[_Entry]:
    """Nodes of an amending or amended instrument citing ``entry`` or cited by it."""
    related = {entry.node_id} | lineage[entry.node_id] | {
        i for i, line in lineage.items() if entry.node_id in line}
    cited = {absolute_id(x, entry.doc_id) for x in entry.fields.get("crossReferencedIds", [])}
    found: list[_Entry] = []
    for other in by_id.values():
        linked = entry.doc_id in amends.get(other.doc_id, ()) or \
            other.doc_id in amends.get(entry.doc_id, ())
        if not linked or other.is_contents or int(other.fields.get("textLength") or 0) > _LONG_TEXT:
            continue
        cites = {absolute_id(x, other.doc_id) for x in other.fields.get("crossReferencedIds", [])}
        if cites & related or other.node_id in cited:
            found.append(other)
    return sorted(found, key=lambda e: (-scores.get(e.node_id, 0.0), e.node_id))


def _schema_cap(request: MessagesRequest, tool: str, field: str, default: int) -> int:
    """The ``maxItems`` the forced tool's schema sets on ``field``, else ``default``."""
    for segment in request.segments[:len(request.tool_names)]:
        try:
            shown = json.loads(segment.text)
        except json.JSONDecodeError:
            continue
        if isinstance(shown, dict) and shown.get("name") == tool:
            schema = shown.get("input_schema", {})
            limit = schema.get("properties", {}).get(field, {}).get("maxItems") \
                if isinstance(schema, dict) else None
            if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
                return limit
    return default
