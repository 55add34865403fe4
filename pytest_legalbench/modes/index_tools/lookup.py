"""The corpus as the tools look it up: nodes by id, documents, headings, amendment links,
defined terms."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.modes.base import Corpus, Provision
from pytest_legalbench.modes.index_tools.bounds import (
    SNIPPET_CHARS,
    ToolError,
    snippet,
)
from pytest_legalbench.modes.units import ancestors, context_line, heading
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens

#: Known ids an error message suggests at most (ids are long).
ID_SUGGESTIONS = 5

_NOT_WORD = re.compile(r"[^0-9a-z]+")


def term_key(term: str) -> str:
    """A defined term as looked up: case, quotes and punctuation ignored."""
    return " ".join(_NOT_WORD.sub(" ", term.casefold()).split())


class CorpusLookup:
    """Everything the tools read, indexed once per corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.documents: dict[str, Document] = {d.doc_id: d for d in corpus.documents}
        self.indexes: dict[str, DocumentIndex] = {i.doc_id: i for i in corpus.indexes}
        self.nodes: dict[str, Node] = {n.node_id: n for i in corpus.indexes for n in i.nodes}
        self.links = AmendmentLinks(corpus.indexes)
        self.definitions: dict[str, list[Node]] = {}
        for node in self.nodes.values():
            for term in node.defines:
                self.definitions.setdefault(term_key(term), []).append(node)
        self.amended_by: dict[str, list[str]] = {}
        for index in corpus.indexes:
            for target in index.amends:
                self.amended_by.setdefault(target, []).append(index.doc_id)

    def node(self, node_id: object) -> Node:
        """The node ``node_id`` names; ToolError naming close ids when there is none."""
        if not isinstance(node_id, str) or not node_id.strip():
            raise ToolError(f"node_id must be a non-empty string, got {node_id!r}")
        found = self.nodes.get(node_id.strip())
        if found is not None:
            return found
        doc_id = node_id.partition(":")[0]
        if doc_id not in self.indexes:
            raise ToolError(f"unknown node id {node_id!r}: node ids are written "
                            f"'<doc_id>:<local id>' as search, outline and list_documents "
                            f"return them, and no document is called {doc_id!r}")
        close = difflib.get_close_matches(node_id, [n.node_id for n in
                                                    self.indexes[doc_id].nodes],
                                          n=ID_SUGGESTIONS)
        hint = f"; close ids: {', '.join(close)}" if close else ""
        raise ToolError(f"unknown node id {node_id!r} in document {doc_id!r}{hint}; outline "
                        f"lists a document's ids")

    def index(self, doc_id: object) -> DocumentIndex:
        """The index of document ``doc_id``; ToolError naming close ids when there is none."""
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise ToolError(f"doc_id must be a non-empty string, got {doc_id!r}")
        found = self.indexes.get(doc_id.strip())
        if found is not None:
            return found
        wanted = doc_id.strip().casefold()
        close = [d for d in self.indexes if wanted in d][:ID_SUGGESTIONS] \
            or difflib.get_close_matches(wanted, list(self.indexes), n=ID_SUGGESTIONS)
        hint = f"; close ids: {', '.join(close)}" if close else ""
        raise ToolError(f"unknown document {doc_id!r}{hint}; list_documents lists them")

    def title(self, doc_id: str) -> str:
        """The document's title."""
        index = self.indexes.get(doc_id)
        return index.title if index is not None else doc_id

    def clause(self, node: Node) -> str:
        """The reference a citation of ``node`` uses."""
        return Provision.from_node(node).clause

    def heading(self, node: Node) -> str:
        """The node's printed reference and title."""
        return heading(node) or node.kind

    def path(self, node: Node) -> list[dict[str, str]]:
        """The headings ``node`` sits under, outermost first, with their ids."""
        return [{"node_id": a.node_id, "heading": self.heading(a)}
                for a in ancestors(node, self.nodes)]

    def context(self, node: Node) -> str:
        """``document title > headings > the node's heading`` on one line."""
        return context_line(node, self.title(node.doc_id), self.nodes)

    def brief(self, node: Node) -> dict[str, object]:
        """A provision named, not shown: id (its document's id first), clause, heading, size."""
        return {"node_id": node.node_id, "clause": self.clause(node),
                "heading": self.heading(node), "tokens": estimate_tokens(node.text)}

    def sketch(self, node: Node, chars: int = SNIPPET_CHARS) -> dict[str, object]:
        """A provision named with a short snippet of its text."""
        return {**self.brief(node), "snippet": snippet(node.text, chars)}

    def briefs(self, node_ids: Iterable[str]) -> list[dict[str, object]]:
        """``brief`` of each known id, each once, in order."""
        return [self.brief(self.nodes[i]) for i in dict.fromkeys(node_ids) if i in self.nodes]
