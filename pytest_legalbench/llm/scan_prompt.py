"""What a navindex scan sends: the cached index block, the document list, the forced tools.

The instructions are templates in ``prompts/``: ``scan_system.txt`` for the node stage and
``scan_documents_system.txt`` for the document stage of a two-stage scan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape

from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
from pytest_legalbench.llm.prompts import scan_documents_system, scan_system
from pytest_legalbench.navindex.json_forms import optimised_json
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG
from pytest_legalbench.navindex.serialise import index_document
from pytest_legalbench.tokens import estimate_tokens

SELECT_NODES = "select_nodes"
SELECT_DOCUMENTS = "select_documents"
#: Keywords shown per document in the two-stage document list.
DOCUMENT_KEYWORDS = 8

def index_entry(index: DocumentIndex) -> str:
    """One document's token-optimised index, tagged with its doc_id."""
    surface = optimised_json(index_document(index, DEFAULT_RUNG))
    return f'<index doc_id="{escape(index.doc_id)}">{surface}</index>'


def index_block(entries: Iterable[str]) -> str:
    """The cached system block of a scan: the tagged indexes of the scanned documents."""
    return "<indexes>\n" + "\n".join(entries) + "\n</indexes>"


def index_block_tokens(entries: Iterable[str]) -> int:
    """Estimated tokens of the block ``index_block`` would build from ``entries``."""
    return estimate_tokens(index_block(entries))


def scan_blocks(block: str) -> tuple[SystemBlock, SystemBlock]:
    """The scan's system prompt: instructions, then the index block marked for caching."""
    return SystemBlock(scan_system()), SystemBlock(block, cache=True)


def scan_user(question: str, cap: int) -> str:
    """The user turn of the node stage: the cap and the question."""
    return (f"Select at most {cap} nodes whose provisions answer the question.\n"
            f"<question>\n{question.strip()}\n</question>")


def select_nodes_tool(cap: int) -> ToolSpec:
    """The forced tool of the node stage; ``cap`` is the hard limit on nodes."""
    pair = {"type": "object",
            "properties": {"doc_id": {"type": "string"}, "node_id": {"type": "string"}},
            "required": ["doc_id", "node_id"], "additionalProperties": False}
    return ToolSpec(
        name=SELECT_NODES,
        description="Report the (doc_id, node_id) pairs of the provisions to fetch, most "
                    "relevant first; node_id exactly as written in the index.",
        input_schema={"type": "object",
                      "properties": {"nodes": {"type": "array", "maxItems": cap,
                                               "items": pair}},
                      "required": ["nodes"], "additionalProperties": False})


def document_line(index: DocumentIndex) -> str:
    """One line of the document list: ``doc_id | title | role | parties | tags | keywords``."""
    role = index.role + (f" of {', '.join(index.amends)}" if index.amends else "")
    tags = [f"jurisdiction {index.tags.jurisdiction}"] if index.tags.jurisdiction else []
    tags.extend(index.tags.topics)
    fields = (index.doc_id, index.title, role, "; ".join(index.parties), ", ".join(tags),
              ", ".join(top_keywords(index)))
    # A field never holds the separator or a line break, so each line splits into six.
    return " | ".join(" ".join(f.replace("|", "/").split()) for f in fields)


def top_keywords(index: DocumentIndex, count: int = DOCUMENT_KEYWORDS) -> tuple[str, ...]:
    """The keywords most nodes of the document carry; ties alphabetical, contents excluded."""
    counts = Counter(word for node in index.nodes if not node.flags.is_toc_entry
                     for word in dict.fromkeys(node.keywords))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(word for word, _ in ranked[:count])


def documents_user(question: str, lines: Sequence[str], max_documents: int) -> str:
    """The user turn of the document stage: the document list and the question."""
    listing = "\n".join(lines)
    return (f"Select at most {max_documents} documents to search.\n"
            f"<document_list>\n{listing}\n</document_list>\n"
            f"<question>\n{question.strip()}\n</question>")


def documents_system(max_documents: int) -> str:
    """The instructions of the document stage (``prompts/scan_documents_system.txt``)."""
    return scan_documents_system(max_documents)


def select_documents_tool(max_documents: int) -> ToolSpec:
    """The forced tool of the document stage."""
    return ToolSpec(
        name=SELECT_DOCUMENTS,
        description="Report the doc_id values of the documents to search, most relevant "
                    "first, exactly as written in the list.",
        input_schema={"type": "object",
                      "properties": {"doc_ids": {"type": "array", "maxItems": max_documents,
                                                 "items": {"type": "string"}}},
                      "required": ["doc_ids"], "additionalProperties": False})
