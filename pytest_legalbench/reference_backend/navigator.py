"""Playing the scanning model: the request's indexes read, the product's navigator applied.

The backend reads only the request: the tagged indexes of the system prompt (or the document
list of a two-stage scan), the question of the last user turn, and the cap in the forced
tool's schema. Choosing is the product's model-free navigator (``modes.navigator``), which
applies the scan's rules to what a model would see.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from pytest_legalbench.defaults import MAX_SCAN_NODES
from pytest_legalbench.modes.document_choice import DocumentRow, select_documents
from pytest_legalbench.modes.navigator import IndexView, Navigator, read_index
from pytest_legalbench.navindex.json_forms import expand_optimised
from pytest_legalbench.navindex.schema import IndexFormatError

from .prompt_parts import question_of, tagged_text
from .wire import MessagesRequest, invalid

SELECT_NODES = "select_nodes"
SELECT_DOCUMENTS = "select_documents"
#: Documents a two-stage scan picks when the tool schema does not say.
MAX_DOCUMENTS = 5
#: Fields of a document-list line.
DOCUMENT_FIELDS = 6
_INDEX_TAG = re.compile(r'<index doc_id="([^"]*)">')


def select_nodes_input(request: MessagesRequest) -> dict[str, object]:
    """The ``select_nodes`` input the navigator chooses for ``request``."""
    navigator = _navigator(request.system)
    question = question_of(request.last_user_text)
    cap = min(_schema_cap(request, SELECT_NODES, "nodes", MAX_SCAN_NODES), MAX_SCAN_NODES)
    chosen = navigator.select(question, cap)
    return {"nodes": [{"doc_id": e.doc_id, "node_id": e.written} for e in chosen]}


def select_documents_input(request: MessagesRequest) -> dict[str, object]:
    """The ``select_documents`` input the navigator chooses for ``request``."""
    listing = tagged_text(request.last_user_text, "document_list")
    if listing is None:
        raise invalid("select_documents: the last user turn has no <document_list> block")
    rows = []
    for line in listing.splitlines():
        if line.strip():
            cells = line.split(" | ", DOCUMENT_FIELDS - 1)
            rows.append(DocumentRow(*(cells + [""] * (DOCUMENT_FIELDS - len(cells)))))
    cap = _schema_cap(request, SELECT_DOCUMENTS, "doc_ids", MAX_DOCUMENTS)
    return {"doc_ids": select_documents(rows, question_of(request.last_user_text), cap)}


@lru_cache(maxsize=4)
def _navigator(system: str) -> Navigator:
    """The navigator over the indexes of ``system``: a run's scans all send the same system
    prompt (the corpus's indexes, which is what prompt caching pays for), so it is read and
    prepared once, not on every scan. The navigator is never changed after it is built."""
    return Navigator(_read_indexes(system))


def _read_indexes(system: str) -> list[IndexView]:
    """Every tagged index in ``system``, read as the navigator's views."""
    decoder = json.JSONDecoder()
    views: list[IndexView] = []
    for tag in _INDEX_TAG.finditer(system):
        doc_id = tag.group(1)
        try:
            # Decoded in place, so a snippet quoting "</index>" cannot end the block early.
            _, end = decoder.raw_decode(system, tag.end())
            index: dict[str, Any] = expand_optimised(system[tag.end():end])
        except (json.JSONDecodeError, IndexFormatError) as error:
            raise invalid(f"select_nodes: the index of {doc_id!r} cannot be read: {error}") \
                from None
        views.append(read_index(doc_id, index))
    if not views:
        # Nothing to choose from is a caller's mistake, not a question without an answer.
        raise invalid('select_nodes: the system prompt holds no <index doc_id="..."> block '
                      "to choose nodes from")
    return views


def _schema_cap(request: MessagesRequest, tool: str, field: str, default: int) -> int:
    """The ``maxItems`` the forced tool's schema sets on ``field``, else ``default``."""
    for segment in request.segments[:len(request.tool_names)]:
        try:
            shown = json.loads(segment.text)
        except json.JSONDecodeError:
            continue
        if isinstance(shown, dict) and shown.get("name") == tool:
            schema = shown.get("input_schema", {})
            limit = schema.get("properties", {}).get(field, {}).get("maxItems") \
                if isinstance(schema, dict) else None
            if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
                return limit
    return default
