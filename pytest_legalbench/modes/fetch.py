"""navindex S2: the deterministic fetch of the selected nodes and what they depend on.

The selected nodes come first, in the order the scan ranked them. Then, for each selected node
in turn, the nodes its subtree cross-references, the provisions of amending documents that
refer to it, and the definitions of the terms its subtree uses are added, one hop only, while the whole payload stays within the budget. Definitions
are taken rarest first and only a few per selected node: a term that half the corpus uses
("Person", "Business Day") says little about any one provision, and would otherwise fill the
budget before the definitions that matter. A node is
never fetched twice, and no fetched text contains another fetched node's text: a node inside
an already fetched subtree, or one holding a fetched node in its own, is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.modes.base import Provision
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens


@dataclass(frozen=True)
class Fetched:
    """The provisions of a fetch and how each candidate fared."""

    provisions: tuple[Provision, ...]
    selected: int
    """Selected nodes fetched."""
    nested: int
    """Selected nodes left out as repeats or because another selected node contains them."""
    references: int
    """Cross-referenced nodes added."""
    amendments: int
    """Provisions of amending documents that refer to a selected node, added."""
    definitions: int
    """Definition nodes added."""
    over_budget: int
    """Candidates left out because they would take the payload over the budget."""
    over_cap: int
    """Definitions left out beyond the per-node cap (the more widely used ones)."""
    unknown: int
    """References to nodes that are not in the corpus."""

    def notes(self, budget: int) -> tuple[str, ...]:
        """What the fetch did, in words, for the retrieval record."""
        notes = [(f"fetched {self.selected} selected nodes, {self.references} cross-referenced "
                  f"nodes, {self.amendments} amending provisions and {self.definitions} "
                  f"definitions")]
        if self.over_budget:
            notes.append(f"{self.over_budget} referenced nodes left out over the {budget}-token "
                         f"payload budget")
        if self.over_cap:
            notes.append(f"{self.over_cap} widely used definitions left out beyond the "
                         f"per-node cap")
        if self.nested:
            notes.append(f"{self.nested} selected nodes already inside another selected node")
        if self.unknown:
            notes.append(f"{self.unknown} references to nodes outside the corpus")
        return tuple(notes)


def definition_usage(nodes: Iterable[Node]) -> Counter[str]:
    """How many nodes use each definition node: the rarity order of definitions."""
    return Counter(target for node in nodes for target in set(node.uses_definitions))


def fetch(selected: Sequence[Node], nodes: Mapping[str, Node], budget: int, *,
          definitions_per_node: int = 3, usage: Mapping[str, int] | None = None,
          amendments: AmendmentLinks | None = None) -> Fetched:
    """Fetch ``selected`` and, under ``budget`` tokens in all, their references and the
    ``definitions_per_node`` rarest definitions each uses (``usage`` from
    ``definition_usage``; computed here when not given)."""
    if usage is None:
        usage = definition_usage(nodes.values())
    unique = list({node.node_id: node for node in reversed(selected)}.values())[::-1]
    chosen_ids = {node.node_id for node in unique}
    kept = [node for node in unique if not any(a in chosen_ids for a in _ancestors(node, nodes))]
    fetched: list[Node] = []
    covered: set[str] = set()     # fetched nodes and everything inside them
    holding: set[str] = set()     # ancestors of fetched nodes
    total = 0

    def take(node: Node) -> None:
        nonlocal total
        fetched.append(node)
        covered.update(n.node_id for n in _subtree(node, nodes))
        holding.update(_ancestors(node, nodes))
        total += estimate_tokens(node.text)

    for node in kept:
        take(node)
    counts = {"references": 0, "amendments": 0, "definitions": 0, "over_budget": 0,
              "over_cap": 0, "unknown": 0}
    for node in kept:
        taken_definitions = 0
        for kind, target_id in _dependencies(node, nodes, usage, amendments):
            target = nodes.get(target_id)
            if target is None:
                counts["unknown"] += 1
                continue
            if target_id in covered or target_id in holding:
                continue
            if kind == "definitions" and taken_definitions >= definitions_per_node:
                counts["over_cap"] += 1
                continue
            if total + estimate_tokens(target.text) > budget:
                counts["over_budget"] += 1
                continue
            take(target)
            counts[kind] += 1
            taken_definitions += kind == "definitions"
    return Fetched(provisions=tuple(Provision.from_node(n) for n in fetched),
                   selected=len(kept), nested=len(selected) - len(kept), **counts)


def _dependencies(node: Node, nodes: Mapping[str, Node], usage: Mapping[str, int],
                  amendments: AmendmentLinks | None) -> Iterator[tuple[str, str]]:
    """The subtree's cross-references in order, the amending provisions that refer to it,
    then the definitions it uses, rarest first (ties by id), each once."""
    subtree = list(_subtree(node, nodes))
    references = dict.fromkeys(t for n in subtree for t in n.cross_references)
    amending = dict.fromkeys(t for t in (amendments.amending(node) if amendments else ())
                             if t not in references)
    definitions = sorted({t for n in subtree for t in n.uses_definitions}
                         - set(references) - set(amending),
                         key=lambda t: (usage.get(t, 0), t))
    for target in references:
        yield "references", target
    for target in amending:
        yield "amendments", target
    for target in definitions:
        yield "definitions", target


def _subtree(node: Node, nodes: Mapping[str, Node]) -> Iterator[Node]:
    """``node`` and its descendants in document order."""
    yield node
    for child_id in node.children:
        child = nodes.get(child_id)
        if child is not None:
            yield from _subtree(child, nodes)


def _ancestors(node: Node, nodes: Mapping[str, Node]) -> Iterator[str]:
    parent = node.parent
    seen: set[str] = set()
    # The seen set guards against a malformed index whose parent links form a cycle.
    while parent is not None and parent not in seen:
        seen.add(parent)
        yield parent
        parent_node = nodes.get(parent)
        parent = parent_node.parent if parent_node is not None else None
