"""Provision closure: what a provision needs beside it to be read correctly.

How instruments are written decides what that is:

- **amendments**: a later instrument that changes the provision ("Section 2 is amended to
  read ...") overrides it, so the amending provision comes with it;
- **base**: a provision of an amendment changes a provision of the instrument it amends, so
  that base provision comes with it (both, so precedence can be read);
- **definitions**: capitalised terms mean only what the definitions say; a definition of a
  term the question itself uses counts almost as much as the provision, the others by how
  rarely the corpus uses them (a term every clause uses says little about this one);
- **references**: "subject to Section 9.2" makes Section 9.2 part of the rule;
- **lead-in**: a sub-clause continues the sentence its parent opens ("The Borrower shall:");
- **table**: a row of a table is read with the table's other rows: one row of a covenant grid
  gives a date and a figure, and its neighbours and header say which figure applies when;
- **siblings** (for a scan's choice only): the other clauses of the section a chosen clause
  sits in, the best match to the question first; a scan that reads headings picks one clause
  of the section where the answer is, and its neighbours are often the rest of the rule;
- **the rest of a short amendment**: an amendment is read whole, its effectiveness, term and
  conflict clauses deciding how its changes apply ("This Amendment shall remain in effect for
  the current term"), so a provision of a short amendment brings the amendment's other
  operative provisions.

Each link carries a weight: the share of the provision's value the linked provision gets
when the budgeted selection (``modes.budget``) weighs it against the next hit.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens

#: What a linked provision gets of its owner's value, by kind of link.
WEIGHTS: Mapping[str, float] = {
    "amendment": 0.9, "base": 0.9, "asked_definition": 0.9, "definition": 0.55,
    "reference": 0.5, "pointer": 0.9, "lead_in": 0.6, "table": 0.6, "amendment_context": 0.4,
    "sibling": 0.4,
}
#: Kinds of link, in the order they are offered.
KINDS = ("amendment", "base", "asked_definition", "lead_in", "table", "amendment_context",
         "reference", "definition", "sibling")
#: The kinds a closure follows unless told otherwise: siblings are for a scan's choice, not
#: for hits that similarity ranked (it ranks the neighbours itself).
DEFAULT_KINDS = tuple(kind for kind in KINDS if kind != "sibling")
#: An amendment up to this size is short enough to be read whole.
SHORT_AMENDMENT_TOKENS = 2000
#: Kinds of node never offered as a chosen clause's neighbour: a lead-in comes by its own
#: link, contents repeat headings, and signature blocks carry names, not terms.
_NOT_SIBLINGS = frozenset({"lead_in", "toc", "toc_entry", "signature"})
#: Kinds of node that make an amendment's operative provisions.
_OPERATIVE = frozenset({"section", "clause", "subclause", "paragraph"})


@dataclass(frozen=True)
class Link:
    """One provision another one needs: its id, the kind of need and its weight."""

    target: str
    kind: str
    weight: float


class Closure:
    """The links of every provision of a corpus."""

    def __init__(self, indexes: Iterable[DocumentIndex], *, definitions_per_node: int = 3,
                 kinds: Iterable[str] = DEFAULT_KINDS) -> None:
        indexes = tuple(indexes)
        self.kinds = frozenset(kinds)
        self.by_id: dict[str, Node] = {n.node_id: n for i in indexes for n in i.nodes}
        self.amendments = AmendmentLinks(indexes)
        self.amends = {i.doc_id: frozenset(i.amends) for i in indexes}
        self.definitions_per_node = definitions_per_node
        self.usage: Counter[str] = Counter(t for n in self.by_id.values()
                                           for t in set(n.uses_definitions))
        self._lead_ins = {n.parent: n.node_id for n in self.by_id.values()
                          if n.kind == "lead_in" and n.parent is not None}
        self._short_amendments = {
            i.doc_id: tuple(c for c in i.root.children if c in self.by_id
                            and self.by_id[c].kind in _OPERATIVE)
            for i in indexes if i.amends and estimate_tokens(i.root.text) <= SHORT_AMENDMENT_TOKENS}

    def links(self, node: Node, asked: frozenset[str] = frozenset(),
              relevance: Callable[[Node], float] | None = None) -> list[Link]:
        """What ``node`` needs, each target once, in ``KINDS`` order; ``asked`` holds the ids
        of definitions whose term the question uses, ``relevance`` ranks its siblings."""
        found: dict[str, Link] = {}

        def add(target: str, kind: str, weight: float | None = None) -> None:
            if kind in self.kinds and target != node.node_id and target in self.by_id \
                    and target not in found:
                found[target] = Link(target, kind, WEIGHTS[kind] if weight is None else weight)

        subtree = list(self._subtree(node))
        references = list(dict.fromkeys(t for n in subtree for t in n.cross_references))
        for target in self.amendments.amending(node):
            add(target, "amendment")
        amended = self.amends.get(node.doc_id, frozenset())
        for target in references:
            if target in self.by_id and self.by_id[target].doc_id in amended:
                add(target, "base")
        uses = list(dict.fromkeys(t for n in subtree for t in n.uses_definitions))
        for target in uses:
            if target in asked:
                add(target, "asked_definition")
        if node.kind not in ("lead_in", "definition") and node.parent in self._lead_ins:
            add(self._lead_ins[node.parent], "lead_in")
        if node.kind == "row" and node.parent in self.by_id:
            for row in self.by_id[node.parent].children:
                if row in self.by_id and self.by_id[row].kind == "row":
                    add(row, "table")
        for target in self._short_amendments.get(node.doc_id, ()):
            add(target, "amendment_context")
        pointer = _is_pointer(node)
        for target in references:
            add(target, "reference", WEIGHTS["pointer"] if pointer else None)
        rarest = sorted((t for t in uses if t not in asked), key=lambda t: (self.usage[t], t))
        # Per clause, not per provision: a whole section taken for one hit uses the terms of
        # each of its clauses, and the budget still decides which definitions fit.
        clauses = max(1, sum(1 for n in subtree if not n.children and n.kind != "lead_in"))
        for target in rarest[:self.definitions_per_node * clauses]:
            add(target, "definition", WEIGHTS["definition"] * self._rarity(target))
        if "sibling" in self.kinds and node.parent in self.by_id:
            siblings = [self.by_id[c] for c in self.by_id[node.parent].children
                        if c in self.by_id and c != node.node_id
                        and self.by_id[c].kind not in _NOT_SIBLINGS]
            if relevance is not None:
                siblings.sort(key=lambda n: (-relevance(n), n.node_id))
            for rank, sibling in enumerate(siblings, start=1):
                add(sibling.node_id, "sibling", WEIGHTS["sibling"] / (1 + (rank - 1) / 2))
        return list(found.values())

    def _rarity(self, definition: str) -> float:
        """1 for a term one provision uses, falling slowly as more do."""
        return 1.0 / (1.0 + math.log10(max(1, self.usage[definition])))

    def _subtree(self, node: Node) -> Iterator[Node]:
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(self.by_id[c] for c in reversed(current.children) if c in self.by_id)


#: A definition this short that cites a clause says only where the meaning is.
POINTER_TOKENS = 40


def _is_pointer(node: Node) -> bool:
    """Whether ``node`` is a definition that only points elsewhere ("'Event of Default' has
    the meaning given in Section 10.1"): its cited clause holds all its meaning, so it gets
    the definition's whole weight, not a citation's."""
    return (node.kind == "definition" and len(set(node.cross_references)) == 1
            and estimate_tokens(node.text) <= POINTER_TOKENS)
