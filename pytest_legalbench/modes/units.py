"""The units a node-level retriever ranks, and the context each is read in.

A unit is a provision small enough to be worth returning whole: every leaf, and every
subtree up to ``MAX_UNIT_TOKENS``. A larger section is never a unit: its children are, so a
hit inside a long article returns the clause that matched, not the article. A leaf over the
cap is represented by its parts (``modes.unit_parts``), so no unit is ever larger than the
cap and the payload budget can always take what it needs. Contents, whole documents and
signature blocks are never units.

The retrieval tree of a document (``retrieval_nodes``) is its index's tree with those parts
added under their leaves; every node-level strategy and navindex's fetch read it, so a part
is reached, cited and budgeted the same way whichever mode took it.

Each unit is embedded and indexed with its context: the document's title and the headings of
the provisions it sits in ("Revolving Credit Agreement > ARTICLE II THE LOANS > 2.5 Fees"),
so that "Section 2.1" of one agreement is told apart from another's and a clause is found by
the heading of the section it belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.modes.unit_parts import part_of, split_leaf
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.navindex.page_furniture import blanked, find_furniture
from pytest_legalbench.navindex.structure_quality import is_contents, visible_chars
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.ranking import EXCLUDED_KINDS

#: Headings longer than this are cut in a context line (a heading that runs on is a clause).
HEADING_CHARS = 80
#: Separator of a context line's parts.
CONTEXT_SEPARATOR = " > "

_SPACE = re.compile(r"\s+")


#: Kinds never ranked: contents, whole documents, and signature blocks, which repeat the
#: parties' names under every question that names a party.
NOT_UNITS = EXCLUDED_KINDS | {"signature"}


def is_unit(node: Node) -> bool:
    """Whether ``node`` is ranked as a unit: a leaf, or a subtree that fits."""
    if node.kind in NOT_UNITS or node.flags.is_toc_entry:
        return False
    return node.is_leaf or estimate_tokens(node.text) <= MAX_UNIT_TOKENS


#: A node saying fewer words than this beyond its own and its parent's heading is a heading.
HEADING_ONLY_WORDS = 3
_WORDS = re.compile(r"[a-z0-9]+")


def heading_only(node: Node, by_id: Mapping[str, Node]) -> bool:
    """Whether ``node``'s text says nothing beyond its heading and its parent's ("ARTICLE 2
    LICENSE GRANT" printed as the article's first line, "RECITALS", "WHEREAS:")."""
    parent = by_id.get(node.parent) if node.parent is not None else None
    named = {w for n in (node, parent) if n is not None
             for w in _WORDS.findall(f"{n.clause_reference} {n.title}".casefold())}
    # Counted until the threshold: an article's text is its whole subtree, and its first
    # lines settle the question.
    said = 0
    for match in _WORDS.finditer(node.text.casefold()):
        if match.group() not in named:
            said += 1
            if said >= HEADING_ONLY_WORDS:
                return False
    return True


def retrieval_nodes(index: DocumentIndex) -> tuple[Node, ...]:
    """The document's nodes in document order, each leaf over the unit cap (contents and
    signature blocks aside) with its parts as children and the parts right after it."""
    nodes: list[Node] = []
    for node in index.nodes:
        if not node.is_leaf or node.kind in NOT_UNITS or node.flags.is_toc_entry:
            nodes.append(node)
            continue
        leaf, parts = split_leaf(node)
        nodes.append(leaf)
        nodes.extend(parts)
    return tuple(nodes)


def unit_nodes(index: DocumentIndex) -> tuple[Node, ...]:
    """The units of one document, in document order."""
    return tuple(node for node in retrieval_nodes(index) if is_unit(node))


def heading(node: Node) -> str:
    """The node's printed reference and title (``2.5 Fees``), as a context line shows it."""
    text = " ".join(part for part in (node.clause_reference, node.title) if part)
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= HEADING_CHARS else text[:HEADING_CHARS].rstrip() + "..."


def ancestors(node: Node, by_id: Mapping[str, Node]) -> list[Node]:
    """The node's ancestors, outermost first, the document root left out."""
    found: list[Node] = []
    parent = node.parent
    seen: set[str] = set()
    # The seen set guards against a malformed index whose parent links form a cycle.
    while parent is not None and parent in by_id and parent not in seen:
        seen.add(parent)
        found.append(by_id[parent])
        parent = by_id[parent].parent
    return [n for n in reversed(found) if n.kind != "document"]


def context_line(node: Node, title: str, by_id: Mapping[str, Node]) -> str:
    """``title > outer heading > ... > the node's heading``, empty headings left out; a
    part's is its leaf's, with which part it is ("... > 7.1 Indemnity (part 2 of 3)")."""
    lineage = part_of(node.node_id)
    if lineage is not None and lineage[0] in by_id:
        leaf = by_id[lineage[0]]
        return f"{context_line(leaf, title, by_id)} (part {lineage[1]} of {len(leaf.children)})"
    parts = [title, *(heading(n) for n in ancestors(node, by_id)), heading(node)]
    return CONTEXT_SEPARATOR.join(p for p in parts if p)


#: Whether navembed's units are ranked without their page furniture (``navindex.page_furniture``:
#: running headers and footers, page numbers), which names no subject of any provision.
#: Decided on the tuning splits: closure +0.024 on CUAD tune at 4,000 characters; navindex's
#: fetch showed no effect on CUAD tune or edgar2023-tune, so it does not ask for it.
RANK_WITHOUT_FURNITURE = True


class UnitContext:
    """The retrieval trees of a corpus (``retrieval_nodes``), their units, the context lines
    of their nodes and the words each is ranked by (without page furniture when
    ``without_furniture``), computed once."""

    def __init__(self, indexes: Iterable[DocumentIndex], *,
                 without_furniture: bool = False) -> None:
        self.by_id: dict[str, Node] = {}
        self.titles: dict[str, str] = {}
        self.units: dict[str, tuple[Node, ...]] = {}
        """Per document, its units in document order."""
        self._ranked_text: dict[str, str] = {}
        """Per document with page furniture, its text with the furniture blanked."""
        for index in indexes:
            self.titles[index.doc_id] = index.title
            nodes = retrieval_nodes(index)
            self.by_id.update((n.node_id, n) for n in nodes)
            self.units[index.doc_id] = tuple(n for n in nodes if is_unit(n))
            furniture = (find_furniture(index.root.text)
                         if without_furniture and RANK_WITHOUT_FURNITURE else ())
            if furniture:
                self._ranked_text[index.doc_id] = blanked(index.root.text, furniture)
        self._lines: dict[str, str] = {}

    def line(self, node: Node) -> str:
        """The context line of ``node``."""
        if node.node_id not in self._lines:
            self._lines[node.node_id] = context_line(node, self.titles.get(node.doc_id, ""),
                                                     self.by_id)
        return self._lines[node.node_id]

    def ranked(self, node: Node) -> Node:
        """``node`` as ranking reads it: its text without page furniture (the same length,
        so offsets hold); ``node`` itself when its document has none."""
        text = self._ranked_text.get(node.doc_id)
        if text is None or len(text) < node.end:
            return node
        return replace(node, text=text[node.start:node.end])

    def text(self, node: Node) -> str:
        """What a lexical index reads for ``node``: its context line, then its text without
        page furniture."""
        return f"{self.line(node)}\n{self.ranked(node).text}"


def named_definitions(question: str, nodes: Sequence[Node]) -> list[Node]:
    """Definition nodes whose defined term the question writes (case and plural ignored),
    longest term first: a question about the "Maturity Date" needs that definition even
    when no clause it retrieves uses the term."""
    asked = f" {_SPACE.sub(' ', re.sub(r'[^a-z0-9]+', ' ', question.casefold()))} "
    found: list[tuple[int, str, Node]] = []
    for node in nodes:
        if node.kind != "definition":
            continue
        for term in node.defines:
            words = re.sub(r"[^a-z0-9]+", " ", term.casefold()).strip()
            if len(words) >= 3 and (f" {words} " in asked or f" {words}s " in asked):
                found.append((-len(words), node.node_id, node))
                break
    return [node for _, _, node in sorted(found)]


@dataclass(frozen=True)
class UnitReach:
    """What the retrieval units of one document reach of its text."""

    largest_unit_tokens: int
    units_over_cap: int
    unreached_chars: int
    """Non-whitespace characters outside contents that no unit holds."""


def unit_reach(index: DocumentIndex, source: str) -> UnitReach:
    """Measure the units of ``index`` against the text it was built from."""
    units = unit_nodes(index)
    sizes = [estimate_tokens(n.text) for n in units]
    held = sorted([(n.start, n.end) for n in units]
                  + [(n.start, n.end) for n in index.nodes if is_contents(n)])
    unreached = 0
    reach = 0
    for start, end in held:
        if start > reach:
            unreached += visible_chars(source[reach:start])
        reach = max(reach, end)
    unreached += visible_chars(source[reach:])
    return UnitReach(max(sizes, default=0), sum(1 for s in sizes if s > MAX_UNIT_TOKENS),
                     unreached)
