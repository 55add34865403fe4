"""Tools on one provision: its text, the clauses it cites, its amendments, its document's
outline."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from pytest_legalbench.modes.base import Provision
from pytest_legalbench.modes.index_tools.bounds import (
    LINK_ITEMS,
    LIST_ITEMS,
    OUTLINE_DEEPEST,
    OUTLINE_DEFAULT,
    OUTLINE_ITEMS,
    TEXT_CHARS,
    ToolError,
    ToolResult,
    capped,
    clipped,
    finished,
    whole_number,
)
from pytest_legalbench.modes.index_tools.lookup import CorpusLookup
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens

#: Kinds an outline shows but never opens: contents repeat the headings that follow them.
_CLOSED = frozenset({"toc", "toc_entry"})


def parts(lookup: CorpusLookup, node: Node) -> list[dict[str, object]]:
    """The node's children, named with their sizes (contents lines left out)."""
    return [lookup.brief(lookup.nodes[c]) for c in node.children
            if c in lookup.nodes and lookup.nodes[c].kind != "toc_entry"]


def shown_provision(node: Node, text: str) -> Provision:
    """The provision a read showed: the node itself, or its opening when the text was cut."""
    whole = Provision.from_node(node)
    if text == node.text:
        return whole
    return dataclasses.replace(whole, end=node.start + len(text), text=text)


def read_provision(lookup: CorpusLookup, node_id: object,
                   max_chars: int = TEXT_CHARS) -> ToolResult:
    """A provision's verbatim text with its span, headings, flags, terms and links."""
    node = lookup.node(node_id)
    text, cut = clipped(node.text, max_chars)
    notes: list[str] = []
    data: dict[str, object] = {
        "node_id": node.node_id, "doc_id": node.doc_id, "document": lookup.title(node.doc_id),
        "clause": lookup.clause(node), "heading": lookup.heading(node), "kind": node.kind,
        "path": lookup.path(node), "span": [node.start, node.end],
        "tokens": estimate_tokens(node.text),
        "flags": [name for name, on in node.flags.as_index_fields().items() if on]}
    if node.defines:
        data["defines"] = list(node.defines)
    terms, more_terms = capped([(term, node_ref) for node_ref in node.uses_definitions
                                if node_ref in lookup.nodes
                                for term in lookup.nodes[node_ref].defines[:1]], LINK_ITEMS)
    if terms:
        data["uses_terms"] = [{"term": term, "node_id": ref} for term, ref in terms]
    amended_by, more_by = capped(lookup.links.amending(node), LINK_ITEMS)
    if amended_by:
        data["amended_by"] = lookup.briefs(amended_by)
    base, more_base = capped(base_provisions(lookup, node), LINK_ITEMS)
    if base:
        data["amends"] = lookup.briefs(base)
    references, more_references = capped(list(node.cross_references), LINK_ITEMS)
    if references:
        data["cites"] = lookup.briefs(references)
    if more_terms or more_references or more_by or more_base:
        notes.append(f"links listed up to {LINK_ITEMS} of each kind; amendments and "
                     f"follow_references list them all")
    children, more_children = capped(parts(lookup, node))
    if cut:
        data["parts"] = children
        notes.append(f"text cut at {max_chars:,} of {len(node.text):,} characters; read its "
                     f"parts for the rest" + (f" ({more_children} more parts: outline lists "
                                              f"them)" if more_children else ""))
    data["text"] = text
    return finished("read_provision", data, notes, [shown_provision(node, text)])


def base_provisions(lookup: CorpusLookup, node: Node) -> list[str]:
    """For a provision of an amendment, the provisions of the amended documents it (or a
    provision inside it) refers to: the text it changes."""
    index = lookup.indexes.get(node.doc_id)
    if index is None or not (index.amends or index.role == "amendment"):
        return []
    amended = set(index.amends)
    found = []
    for inner in _subtree(lookup, node):
        for target in inner.cross_references:
            target_node = lookup.nodes.get(target)
            if target_node is None or target_node.doc_id == node.doc_id \
                    or target_node.kind == "document":
                continue
            if not amended or target_node.doc_id in amended:
                found.append(target)
    return list(dict.fromkeys(found))


def amendments(lookup: CorpusLookup, node_id: object) -> ToolResult:
    """The later provisions that change this one, and, for a provision of an amendment, the
    base provisions it changes."""
    node = lookup.node(node_id)
    amended_by, more_by = capped(lookup.links.amending(node))
    base, more_base = capped(base_provisions(lookup, node))
    notes = [f"{count} more {what} left out" for count, what in
             ((more_by, "amending provisions"), (more_base, "base provisions")) if count]
    data = {"node_id": node.node_id, "clause": lookup.clause(node),
            "amended_by": [{**lookup.sketch(lookup.nodes[i]),
                            "document": lookup.title(lookup.nodes[i].doc_id)}
                           for i in amended_by],
            "amends": [{**lookup.sketch(lookup.nodes[i]),
                        "document": lookup.title(lookup.nodes[i].doc_id)} for i in base]}
    if not amended_by and not base:
        data["note_on_links"] = ("no amending provision refers to this provision or to one "
                                 "inside it, and it changes no base provision")
    return finished("amendments", data, notes)


def follow_references(lookup: CorpusLookup, node_id: object) -> ToolResult:
    """The provisions this one (or a provision inside it) cites, with snippets, and the
    references the index could not resolve."""
    node = lookup.node(node_id)
    targets = list(dict.fromkeys(t for inner in _subtree(lookup, node)
                                 for t in inner.cross_references if t in lookup.nodes))
    shown, more = capped(targets)
    notes = [f"{more} more cited provisions left out"] if more else []
    data: dict[str, object] = {"node_id": node.node_id, "clause": lookup.clause(node),
                               "cites": [lookup.sketch(lookup.nodes[t]) for t in shown]}
    for field, values in (("external", node.external_references),
                          ("unresolved", node.unresolved_references),
                          ("not_filed", node.unfiled_references)):
        if values:
            data[field] = list(values[:LIST_ITEMS])
    return finished("follow_references", data, notes)


def outline(lookup: CorpusLookup, doc_id: object, node_id: object = None,
            depth: object = None) -> ToolResult:
    """The headings of a document, or of one provision, down to ``depth`` levels."""
    index = lookup.index(doc_id)
    top = index.root if node_id is None else lookup.node(node_id)
    if top.doc_id != index.doc_id:
        raise ToolError(f"node {top.node_id!r} is not in document {index.doc_id!r}")
    levels = whole_number(depth, "depth", OUTLINE_DEFAULT, 1, OUTLINE_DEEPEST)
    budget = [OUTLINE_ITEMS]

    def entry(node: Node, level: int) -> dict[str, object]:
        budget[0] -= 1
        found: dict[str, object] = {**lookup.brief(node), "kind": node.kind}
        children = [c for c in node.children if c in lookup.nodes
                    and lookup.nodes[c].kind != "toc_entry"]
        if not children or node.kind in _CLOSED:
            return found
        if level >= levels:
            found["parts"] = len(children)
            return found
        opened = []
        for child in children:
            if budget[0] <= 0:
                break
            opened.append(entry(lookup.nodes[child], level + 1))
        found["children"] = opened
        if len(opened) < len(children):
            found["parts"] = len(children)
        return found

    tree = entry(top, 0)
    notes = ([(f"outline cut at {OUTLINE_ITEMS} entries; ask for the outline of one of its "
               f"provisions (node_id) for the rest")] if budget[0] <= 0 else [])
    data = {"doc_id": index.doc_id, "document": index.title, "depth": levels, "outline": tree}
    return finished("outline", data, notes)


def _subtree(lookup: CorpusLookup, node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(lookup.nodes[c] for c in reversed(current.children) if c in lookup.nodes)
