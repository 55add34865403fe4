"""Choosing provisions under a hard token budget, each by what it adds.

Every candidate has a value: a ranked hit its rank's (``rank_value``), a provision linked to
a chosen one (``modes.closure``) its owner's value times the link's weight. The most valuable
candidate not yet decided is taken next when it fits what is left of the budget, and its own
links become candidates in turn; one that does not fit is passed over for the next, so the
budget is a hard maximum and small provisions still fill what is left. A candidate inside a
chosen provision adds no text and is passed over; one holding a chosen provision is passed
over too, or, when the caller asks, brings its other parts. A provision too large for
what is left is not cut: its children become candidates instead (a reference to a long
section brings the parts of it that fit, its lead-in first). Matches found by other means
than the ranking compete as hits do, under their own name. Ties go to the smaller node id, so
a selection is the same on every machine.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_legalbench.modes.closure import Closure
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens

#: Ranks over which a hit's value halves: the 5th hit is worth half the 1st.
RANK_HALF_LIFE = 4
#: Candidates worth less than this share of the best are not considered.
VALUE_FLOOR = 0.03
#: How much a candidate's size lowers its priority: priority = value / (1 + tokens /
#: COST_SCALE) ** COST_EXPONENT (0: value alone decides).
COST_EXPONENT = 1.0
COST_SCALE = 200
#: What the children of a provision too large for what is left of the budget get of its
#: value (its lead-in a little more: it says what the children are about).
DESCEND = 0.85
DESCEND_LEAD_IN = 0.9


def rank_value(rank: int) -> float:
    """The value of the hit at ``rank`` (from 1): 1, then falling harmonically."""
    return 1.0 / (1.0 + (rank - 1) / RANK_HALF_LIFE)


@dataclass(frozen=True)
class Chosen:
    """What a budgeted selection took, why, and what it passed over."""

    nodes: tuple[Node, ...]
    """In the order taken: most valuable first."""
    reasons: tuple[str, ...]
    """Per node: ``hit`` or the kind of link that brought it."""
    spent: int
    over_budget: int
    """Candidates passed over because they did not fit what was left."""
    counts: Mapping[str, int] = field(default_factory=dict)
    """Nodes taken per reason."""

    def note(self, budget: int) -> str:
        """The selection in words, for a retrieval's notes."""
        parts = ", ".join(f"{count} {reason}" for reason, count in sorted(self.counts.items()))
        note = f"took {len(self.nodes)} provisions ({parts or 'none'}), {self.spent} of " \
               f"{budget} budget tokens"
        if self.over_budget:
            note += f"; {self.over_budget} candidates did not fit"
        return note


def choose(hits: Sequence[tuple[Node, float]], budget: int, by_id: Mapping[str, Node], *,
           closure: Closure | None = None, asked: frozenset[str] = frozenset(),
           limit: int | None = None, boost: Callable[[Node], float] | None = None,
           relevance: Callable[[Node], float] | None = None,
           cost: Callable[[Node], int] = lambda node: estimate_tokens(node.text),
           matched: Sequence[tuple[Node, float]] = (), open_held: bool = False) -> Chosen:
    """Take provisions by value until the budget is spent; ``hits`` are (node, value) in rank
    order, ``limit`` caps how many hits (not linked provisions) are taken, ``boost`` scales
    the value of a linked provision (the question's flags, say), ``relevance`` orders
    the children of a provision too large to take whole (the best match first), ``matched``
    are (node, value) found by other means than ``hits`` and valued alike, and with
    ``open_held`` a candidate holding a taken provision brings its other parts instead of
    nothing."""
    heap: list[tuple[float, str, str, float]] = []

    def push(value: float, node_id: str, reason: str) -> None:
        priority = value / (1 + cost(by_id[node_id]) / COST_SCALE) ** COST_EXPONENT
        heapq.heappush(heap, (-priority, node_id, reason, value))

    for node, value in hits:
        push(value, node.node_id, "hit")
    for node, value in matched:
        push(value, node.node_id, "match")
    taken: list[Node] = []
    reasons: list[str] = []
    covered: set[str] = set()    # taken nodes and everything inside them
    holding: set[str] = set()    # ancestors of taken nodes
    decided: set[str] = set()
    best = max((value for _, value in (*hits, *matched)), default=0.0)
    spent = over = hit_count = 0
    while heap and spent < budget:
        _, node_id, reason, value = heapq.heappop(heap)
        if node_id in decided or node_id in covered:
            continue
        if value < VALUE_FLOOR * best:
            continue
        node = by_id[node_id]
        if node_id in holding:
            if open_held:
                # Part of it is already in: the rest of it is what it would have added.
                decided.add(node_id)
                for child, share in _descent(node, by_id, relevance):
                    push(value * share, child.node_id, reason)
            continue
        if reason == "hit" and limit is not None and hit_count >= limit:
            continue
        size = cost(node)
        # Decided either way: what does not fit now never will (the budget only shrinks).
        decided.add(node_id)
        if spent + size > budget:
            over += 1
            for child, share in _descent(node, by_id, relevance):
                push(value * share, child.node_id, reason)
            continue
        taken.append(node)
        reasons.append(reason)
        spent += size
        hit_count += reason == "hit"
        covered.update(_subtree_ids(node, by_id))
        holding.update(_ancestor_ids(node, by_id))
        if closure is not None:
            for link in closure.links(node, asked, relevance):
                gained = value * link.weight
                if boost is not None:
                    gained *= boost(by_id[link.target])
                if link.target not in decided and gained >= VALUE_FLOOR * best:
                    push(gained, link.target, link.kind)
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return Chosen(tuple(taken), tuple(reasons), spent, over, counts)


def _descent(node: Node, by_id: Mapping[str, Node],
             relevance: Callable[[Node], float] | None) -> list[tuple[Node, float]]:
    """A provision's returnable children (contents and signatures never) with the share of
    its value each gets: the lead-in ``DESCEND_LEAD_IN``, the others ``DESCEND`` falling with
    their rank by relevance (document order without a measure of it)."""
    parts = [by_id[c] for c in node.children if c in by_id
             and by_id[c].kind not in ("toc", "toc_entry", "signature")
             and not by_id[c].flags.is_toc_entry]
    lead_ins = [(n, DESCEND_LEAD_IN) for n in parts if n.kind == "lead_in"]
    others = [n for n in parts if n.kind != "lead_in"]
    if relevance is not None:
        scores = {n.node_id: relevance(n) for n in others}
        others.sort(key=lambda n: (-scores[n.node_id], n.node_id))
    return lead_ins + [(n, DESCEND * rank_value(rank)) for rank, n in enumerate(others, 1)]


def _subtree_ids(node: Node, by_id: Mapping[str, Node]) -> set[str]:
    found = {node.node_id}
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if current not in found:
            found.add(current)
            child = by_id.get(current)
            if child is not None:
                stack.extend(child.children)
    return found


def _ancestor_ids(node: Node, by_id: Mapping[str, Node]) -> set[str]:
    found: set[str] = set()
    parent = node.parent
    while parent is not None and parent not in found:
        found.add(parent)
        parent_node = by_id.get(parent)
        parent = parent_node.parent if parent_node is not None else None
    return found
