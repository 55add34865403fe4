"""The node record of the structured index and the per-document index it belongs to."""

from __future__ import annotations

from dataclasses import dataclass

#: Kinds of node the parser emits.
NODE_KINDS = (
    "document", "front_matter", "toc", "toc_entry", "recitals", "recital", "article",
    "section", "clause", "subclause", "definition", "lead_in", "schedule", "signature",
    "paragraph", "row",
)

#: Boolean flags of a node, in the order the index lists them.
FLAG_NAMES = (
    "isDefinition", "hasMoney", "hasDate", "hasPercentage", "hasLiabilityLimit",
    "hasCondition", "hasParty", "isTocEntry",
)


@dataclass(frozen=True)
class Flags:
    """The boolean pre-filter flags of a node."""

    is_definition: bool = False
    has_money: bool = False
    has_date: bool = False
    has_percentage: bool = False
    has_liability_limit: bool = False
    has_condition: bool = False
    has_party: bool = False
    is_toc_entry: bool = False

    def as_index_fields(self) -> dict[str, bool]:
        """Return the flags under their navindex names (``isDefinition``, ...)."""
        return dict(zip(FLAG_NAMES, (
            self.is_definition, self.has_money, self.has_date, self.has_percentage,
            self.has_liability_limit, self.has_condition, self.has_party, self.is_toc_entry,
        )))


@dataclass(frozen=True)
class Node:
    """One provision of a document; its text and span cover its whole subtree."""

    node_id: str
    """Unique in the corpus: ``<doc_id>:<local id>``; stable while the text is unchanged."""
    doc_id: str
    kind: str
    clause_reference: str
    """The reference as printed (``Section 2.1``, ``(b)``, ``ARTICLE VII``); may be empty."""
    title: str
    start: int
    end: int
    """Character span in the ingested text: ``text == source[start:end]``."""
    text: str
    parent: str | None = None
    children: tuple[str, ...] = ()
    full_reference: str = ""
    """The reference a citation would use (``2.1(b)(i)``); keys cross-reference lookup."""
    cross_references: tuple[str, ...] = ()
    """Node ids this node explicitly refers to, here or in the document it amends."""
    external_references: tuple[str, ...] = ()
    """References to outside statutes or instruments, as written."""
    unresolved_references: tuple[str, ...] = ()
    """References to this corpus that no node matched, as written."""
    unfiled_references: tuple[str, ...] = ()
    """References to attachments the instrument lists but whose text it does not contain
    (exhibits and disclosure schedules left out of the filing), as written."""
    defines: tuple[str, ...] = ()
    """Terms this node defines."""
    uses_definitions: tuple[str, ...] = ()
    """Ids of the nodes defining terms this node uses."""
    flags: Flags = Flags()
    keywords: tuple[str, ...] = ()
    summary: str = ""

    @property
    def text_length(self) -> int:
        """Length of the node's text in characters."""
        return self.end - self.start

    @property
    def is_leaf(self) -> bool:
        """Whether the node has no children."""
        return not self.children


@dataclass(frozen=True)
class DocumentTags:
    """Document-level tags: governing-law jurisdiction and topics."""

    jurisdiction: str | None = None
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class DocumentIndex:
    """A document's node tree in document order, the root first."""

    doc_id: str
    title: str
    sha256: str
    """Checksum of the source text the index was built from."""
    nodes: tuple[Node, ...]
    tags: DocumentTags = DocumentTags()
    role: str = "base"
    amends: tuple[str, ...] = ()
    parties: tuple[str, ...] = ()
    """Who the instrument is between, as it names them: the manifest's parties, then the
    names its opening defines ("Distributor", "NETGEAR")."""

    @property
    def root(self) -> Node:
        """The document node."""
        return self.nodes[0]

    def by_id(self) -> dict[str, Node]:
        """Map node ids to nodes."""
        return {node.node_id: node for node in self.nodes}
