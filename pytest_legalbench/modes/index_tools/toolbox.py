"""``IndexTools``: every tool of the layer over one corpus, called by name or as methods."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_legalbench.llm.schema import problems
from pytest_legalbench.modes.base import Corpus, ModeUnavailable
from pytest_legalbench.modes.index_tools import catalogue, definitions, provisions
from pytest_legalbench.modes.index_tools import search as searching
from pytest_legalbench.modes.index_tools.bounds import ToolError, ToolResult
from pytest_legalbench.modes.index_tools.lookup import CorpusLookup
from pytest_legalbench.modes.index_tools.specs import (
    AMENDMENTS,
    DEFINE_TERM,
    FOLLOW_REFERENCES,
    LIST_DOCUMENTS,
    OUTLINE,
    READ_PROVISION,
    SEARCH,
    TOOL_NAMES,
    TOOLS_BY_NAME,
)


class IndexTools:
    """The tools over one corpus's index; ``searcher`` answers ``search`` (None: no search)."""

    def __init__(self, corpus: Corpus, searcher: searching.Searcher | None = None) -> None:
        if not corpus.indexes:
            raise ModeUnavailable("index tools", "the corpus has no indexes to navigate")
        self.lookup = CorpusLookup(corpus)
        self.searcher = searcher

    def list_documents(self, offset: object = None, limit: object = None) -> ToolResult:
        """The documents and transaction sets."""
        return catalogue.list_documents(self.lookup, offset, limit)

    def search(self, query: object, limit: object = None, offset: object = None) -> ToolResult:
        """The best provisions for ``query``, with snippets, a page at a time."""
        return searching.search(self.lookup, self.searcher, query, limit, offset)

    def read_provision(self, node_id: object) -> ToolResult:
        """A provision's verbatim text and what it links to."""
        return provisions.read_provision(self.lookup, node_id)

    def follow_references(self, node_id: object) -> ToolResult:
        """The provisions a provision cites."""
        return provisions.follow_references(self.lookup, node_id)

    def define_term(self, term: object, doc_id: object = None) -> ToolResult:
        """The definition of a defined term and the document defining it."""
        return definitions.define_term(self.lookup, term, doc_id)

    def amendments(self, node_id: object) -> ToolResult:
        """What amends a provision, and what an amending provision changes."""
        return provisions.amendments(self.lookup, node_id)

    def outline(self, doc_id: object, node_id: object = None, depth: object = None) -> ToolResult:
        """A document's (or a provision's) headings to a depth."""
        return provisions.outline(self.lookup, doc_id, node_id, depth)

    def call(self, name: str, arguments: object) -> ToolResult:
        """Run the tool ``name`` with ``arguments`` checked against its schema; ToolError
        for an unknown tool, bad arguments or an unanswerable call."""
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            raise ToolError(f"unknown tool {name!r}: the tools are {', '.join(TOOL_NAMES)}")
        if not isinstance(arguments, Mapping):
            raise ToolError(f"{name}: the input must be an object, got {arguments!r}")
        found = problems(dict(arguments), spec.input_schema)
        if found:
            raise ToolError(f"{name}: {'; '.join(found)}")
        given = dict(arguments)
        if name == LIST_DOCUMENTS:
            return self.list_documents(given.get("offset"), given.get("limit"))
        if name == SEARCH:
            return self.search(given["query"], given.get("limit"), given.get("offset"))
        if name == READ_PROVISION:
            return self.read_provision(given["node_id"])
        if name == FOLLOW_REFERENCES:
            return self.follow_references(given["node_id"])
        if name == DEFINE_TERM:
            return self.define_term(given["term"], given.get("doc_id"))
        if name == AMENDMENTS:
            return self.amendments(given["node_id"])
        if name == OUTLINE:
            return self.outline(given["doc_id"], given.get("node_id"), given.get("depth"))
        raise AssertionError(f"tool {name!r} has a spec but no implementation")  # pragma: no cover
