"""The tools as a model sees them: names, descriptions and input schemas.

The same descriptions serve the Messages API (navagent) and the MCP server, so both surfaces
describe one behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_legalbench.llm.call_types import ToolSpec
from pytest_legalbench.modes.index_tools.bounds import (
    LIST_ITEMS,
    OUTLINE_DEEPEST,
    OUTLINE_DEFAULT,
    SEARCH_DEFAULT,
    SEARCH_MOST,
    TEXT_CHARS,
)

LIST_DOCUMENTS = "list_documents"
SEARCH = "search"
READ_PROVISION = "read_provision"
FOLLOW_REFERENCES = "follow_references"
DEFINE_TERM = "define_term"
AMENDMENTS = "amendments"
OUTLINE = "outline"

#: Tools that show verbatim provision text (what a reading budget is charged for).
READING_TOOLS = frozenset({READ_PROVISION, DEFINE_TERM})

_SIZES = ("Every result says its own size in result_tokens; tokens beside a provision is that "
          "provision's size; truncated is true (with a note) when something was left out.")


def _object(properties: Mapping[str, Mapping[str, object]],
            required: tuple[str, ...] = ()) -> dict[str, object]:
    return {"type": "object", "properties": dict(properties), "required": list(required),
            "additionalProperties": False}


_NODE_ID = {"type": "string", "description": "a node id as search, outline or another tool "
                                             "wrote it: '<doc_id>:<local id>'"}
_DOC_ID = {"type": "string", "description": "a doc_id as list_documents writes it"}

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(LIST_DOCUMENTS,
             "List the documents of the corpus (title, role, date, parties, what each amends "
             "and is amended by, size) and the transaction sets they form. " + _SIZES,
             _object({"offset": {"type": "integer", "description": "first document to list "
                                                                   "(default 0)"},
                      "limit": {"type": "integer", "description": f"documents to list (at "
                                                                  f"most {LIST_ITEMS})"}})),
    ToolSpec(SEARCH,
             "Find the provisions that best match a query (dense and lexical ranking, routed "
             "to the parties and instruments the query names, with the amendments and "
             "definitions the best matches need), best first. Returns node ids, clauses, "
             "headings and short snippets, not the text: read_provision reads a hit. "
             + _SIZES,
             _object({"query": {"type": "string", "description": "what to look for, in words "
                                                                 "(the question itself works)"},
                      "limit": {"type": "integer",
                                "description": f"hits to return (default {SEARCH_DEFAULT}, "
                                               f"at most {SEARCH_MOST})"},
                      "offset": {"type": "integer",
                                 "description": "rank of the first hit to return, for the next "
                                                "page (default 0)"}}, ("query",))),
    ToolSpec(READ_PROVISION,
             "Read one provision verbatim: its text (up to "
             f"{TEXT_CHARS:,} characters), span in the document, the headings it sits under, "
             "its flags, the defined terms it defines and uses, the clauses it cites, the "
             "later provisions that amend it (amended_by) and, for an amendment, the base "
             "provisions it changes (amends). A long section lists its parts to read instead. "
             + _SIZES, _object({"node_id": _NODE_ID}, ("node_id",))),
    ToolSpec(FOLLOW_REFERENCES,
             "List the provisions a provision (or any clause inside it) cites, with snippets, "
             "and the references the index could not resolve (outside statutes, attachments "
             "not filed). " + _SIZES, _object({"node_id": _NODE_ID}, ("node_id",))),
    ToolSpec(DEFINE_TERM,
             "The definition of a defined term, verbatim, and which document defines it. "
             "Give doc_id, the document whose provision uses the term, to get the definition "
             "that document relies on (its own, else the agreement it amends). " + _SIZES,
             _object({"term": {"type": "string", "description": "the term as written, e.g. "
                                                                "Maturity Date"},
                      "doc_id": {**_DOC_ID, "description": "the document using the term "
                                                           "(optional)"}}, ("term",))),
    ToolSpec(AMENDMENTS,
             "The amendments of a provision: the provisions of later instruments that change "
             "it (or a clause inside it), and, for a provision of an amendment, the base "
             "provisions it changes. A later instrument prevails to the extent of any "
             "inconsistency. " + _SIZES, _object({"node_id": _NODE_ID}, ("node_id",))),
    ToolSpec(OUTLINE,
             "The outline of a document, or of one provision of it: node ids, clauses, "
             "headings and sizes down to a depth. " + _SIZES,
             _object({"doc_id": _DOC_ID,
                      "node_id": {**_NODE_ID, "description": "a provision to outline instead "
                                                             "of the whole document (optional)"},
                      "depth": {"type": "integer",
                                "description": f"levels below the top (default "
                                               f"{OUTLINE_DEFAULT}, at most {OUTLINE_DEEPEST})"}},
                     ("doc_id",))),
)

#: The tools by name.
TOOLS_BY_NAME: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOL_SPECS}
#: Tool names in the order the specs list them.
TOOL_NAMES = tuple(TOOLS_BY_NAME)
