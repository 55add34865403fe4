"""``define_term``: the definition of a defined term, and which document defines it.

A term means what the instrument that uses it defines: asked from a document, its own
definition comes first, then one in the document it amends (an amendment uses the agreement's
terms), then one in another document of the same transaction set, then any other.
"""

from __future__ import annotations

from pytest_legalbench.modes.index_tools.bounds import (
    LIST_ITEMS,
    SUGGESTIONS_CAP,
    TEXT_CHARS,
    ToolError,
    ToolResult,
    clipped,
    finished,
    text_argument,
)
from pytest_legalbench.modes.index_tools.catalogue import transaction_set
from pytest_legalbench.modes.index_tools.lookup import CorpusLookup, term_key
from pytest_legalbench.modes.index_tools.provisions import shown_provision
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens


def definitions_of(lookup: CorpusLookup, term: str, doc_id: str | None = None) -> list[Node]:
    """The definition nodes of ``term`` (a plural written for a singular term counts), the
    one ``doc_id`` would use first."""
    key = term_key(term)
    found = list(lookup.definitions.get(key, ()))
    if not found and key.endswith("s"):
        found = list(lookup.definitions.get(key[:-1], ()))
    if not found:
        found = list(lookup.definitions.get(f"{key}s", ()))
    if doc_id is None or doc_id not in lookup.indexes:
        return found
    asking = lookup.indexes[doc_id]
    asking_set = transaction_set(lookup, asking)

    def rank(node: Node) -> int:
        if node.doc_id == doc_id:
            return 0
        if node.doc_id in asking.amends:
            return 1
        index = lookup.indexes.get(node.doc_id)
        return 2 if index is not None and transaction_set(lookup, index) == asking_set else 3

    return sorted(found, key=rank)


def define_term(lookup: CorpusLookup, term: object, doc_id: object = None,
                max_chars: int = TEXT_CHARS) -> ToolResult:
    """The definition of ``term`` that applies (in ``doc_id`` when given) with its verbatim
    text, and the other documents that define it."""
    asked = text_argument(term, "term")
    if doc_id is not None:
        lookup.index(doc_id)
    found = definitions_of(lookup, asked, doc_id if isinstance(doc_id, str) else None)
    if not found:
        raise ToolError(f"no document defines {asked!r}"
                        + _suggestions(lookup, asked)
                        + "; search finds provisions that use the words")
    chosen = found[0]
    text, cut = clipped(chosen.text, max_chars)
    data: dict[str, object] = {
        "term": asked, "defined_in": chosen.doc_id, "document": lookup.title(chosen.doc_id),
        "node_id": chosen.node_id, "clause": lookup.clause(chosen),
        "heading": lookup.heading(chosen), "span": [chosen.start, chosen.end],
        "tokens": estimate_tokens(chosen.text)}
    others = [lookup.brief(n) for n in found[1:LIST_ITEMS + 1]]
    if others:
        data["also_defined_in"] = others
    data["text"] = text
    notes = [f"text cut at {max_chars:,} of {len(chosen.text):,} characters"] if cut else []
    if len(found) > LIST_ITEMS + 1:
        notes.append(f"{len(found) - LIST_ITEMS - 1} more definitions left out")
    return finished("define_term", data, notes, [shown_provision(chosen, text)])


def _suggestions(lookup: CorpusLookup, term: str) -> str:
    """Defined terms sharing a word with ``term``, as a clause of an error message."""
    # Short words ("of", "the") would match half the glossary.
    words = {w for w in term_key(term).split() if len(w) >= 4}
    close = sorted({node.defines[0] for key, nodes in lookup.definitions.items()
                    if words & set(key.split()) for node in nodes if node.defines})
    if not close:
        return ""
    shown = close[:SUGGESTIONS_CAP]
    return f"; defined terms with those words: {', '.join(repr(t) for t in shown)}"
