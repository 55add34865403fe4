"""Cross-references read backwards: which provisions of later instruments change a provision.

An amendment points at the base provision it changes ("Section 2 is amended to read ...");
a reader who found the base provision needs that amending provision too, or they answer with
the superseded text. The index records references forwards only, so this inverts them, keeping
the references made from another document that amends the target's document.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens

#: The largest provision whose amendment is taken to amend every provision inside it.
CONTAINER_TOKENS = 3000


class AmendmentLinks:
    """For each node, the nodes of amending documents that refer to it."""

    def __init__(self, indexes: Iterable[DocumentIndex]) -> None:
        indexes = tuple(indexes)
        self.by_id: dict[str, Node] = {n.node_id: n for i in indexes for n in i.nodes}
        amends = {index.doc_id: set(index.amends) for index in indexes
                  if index.role == "amendment" or index.amends}
        found: dict[str, list[str]] = {}
        for index in indexes:
            targets_of = amends.get(index.doc_id)
            if targets_of is None:
                continue
            for node in index.nodes:
                for target in node.cross_references:
                    target_node = self.by_id.get(target)
                    # An amendment that names no document it amends is taken to amend any
                    # document it refers into.
                    # A reference to a whole document ("the Agreement") changes no one
                    # provision; linking it would attach the amendment to every hit.
                    if target_node is not None and target_node.kind != "document" \
                            and target_node.doc_id != index.doc_id and (
                            not targets_of or target_node.doc_id in targets_of):
                        found.setdefault(target, []).append(node.node_id)
        self._referrers = {t: tuple(dict.fromkeys(ids)) for t, ids in found.items()}

    def __bool__(self) -> bool:
        return bool(self._referrers)

    def amending(self, node: Node) -> list[str]:
        """Ids of amending provisions that refer to ``node``, to a provision inside it, or to
        a provision of at most ``CONTAINER_TOKENS`` it sits inside, in the order the amending
        documents give them."""
        # An amendment of a whole article ("Article I is amended ...") says nothing about
        # which of its hundred definitions changed; one of "Section 2" does about 2(a).
        holders = [a for a in _ancestors(node, self.by_id)
                   if a in self.by_id and estimate_tokens(self.by_id[a].text) <= CONTAINER_TOKENS]
        related = [node.node_id, *holders, *_descendants(node, self.by_id)]
        return list(dict.fromkeys(r for t in related for r in self._referrers.get(t, ())))


def _ancestors(node: Node, by_id: Mapping[str, Node]) -> Iterator[str]:
    parent, seen = node.parent, set()
    while parent is not None and parent not in seen:
        seen.add(parent)
        yield parent
        parent_node = by_id.get(parent)
        parent = parent_node.parent if parent_node is not None else None


def _descendants(node: Node, by_id: Mapping[str, Node]) -> Iterator[str]:
    stack = list(reversed(node.children))
    while stack:
        child_id = stack.pop()
        yield child_id
        child = by_id.get(child_id)
        if child is not None:
            stack.extend(reversed(child.children))
