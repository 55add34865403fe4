"""``list_documents``: the documents of the corpus, grouped into their transaction sets."""

from __future__ import annotations

from pytest_legalbench.modes.index_tools.bounds import (
    LIST_ITEMS,
    ToolResult,
    finished,
    whole_number,
)
from pytest_legalbench.modes.index_tools.lookup import CorpusLookup
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.tokens import estimate_tokens


def transaction_set(lookup: CorpusLookup, index: DocumentIndex) -> str:
    """The transaction set of a document: the manifest's, else the one of the document it
    amends, else the document's own id."""
    for doc_id in (index.doc_id, *index.amends):
        document = lookup.documents.get(doc_id)
        if document is not None and document.transaction_set:
            return document.transaction_set
    return index.amends[0] if index.amends else index.doc_id


def document_row(lookup: CorpusLookup, index: DocumentIndex) -> dict[str, object]:
    """One document as listed: title, role, date, parties, what it amends and is amended by."""
    document = lookup.documents.get(index.doc_id)
    row: dict[str, object] = {"doc_id": index.doc_id, "title": index.title, "role": index.role,
                              "transaction_set": transaction_set(lookup, index)}
    if document is not None and document.date:
        row["date"] = document.date
    if index.parties:
        row["parties"] = list(index.parties)
    if index.amends:
        row["amends"] = list(index.amends)
    if lookup.amended_by.get(index.doc_id):
        row["amended_by"] = list(lookup.amended_by[index.doc_id])
    row["provisions"] = len(index.nodes)
    row["tokens"] = estimate_tokens(index.root.text)
    return row


def list_documents(lookup: CorpusLookup, offset: object = None,
                   limit: object = None) -> ToolResult:
    """The documents from ``offset``, at most ``limit`` (``LIST_ITEMS``), with every
    transaction set and the ids of its documents."""
    indexes = list(lookup.indexes.values())
    start = whole_number(offset, "offset", 0, 0, len(indexes))
    most = whole_number(limit, "limit", LIST_ITEMS, 1, LIST_ITEMS)
    shown = indexes[start:start + most]
    sets: dict[str, list[str]] = {}
    for index in indexes:
        sets.setdefault(transaction_set(lookup, index), []).append(index.doc_id)
    notes = []
    if start + most < len(indexes):
        notes.append(f"listed documents {start + 1}-{start + len(shown)} of {len(indexes)}; "
                     f"call again with offset={start + len(shown)} for the rest")
    listed_sets = list(sets.items())
    if len(listed_sets) > LIST_ITEMS:
        # The sets of the documents shown come first, so each row's set is always listed.
        wanted = {row_set for row_set in (transaction_set(lookup, i) for i in shown)}
        listed_sets = ([s for s in listed_sets if s[0] in wanted]
                       + [s for s in listed_sets if s[0] not in wanted])[:LIST_ITEMS]
        notes.append(f"listed {LIST_ITEMS} of {len(sets)} transaction sets")
    data = {"documents": [document_row(lookup, index) for index in shown],
            "total_documents": len(indexes), "offset": start,
            "transaction_sets": [{"name": name, "documents": ids[:LIST_ITEMS]}
                                 for name, ids in listed_sets]}
    return finished("list_documents", data, notes)
