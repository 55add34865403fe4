"""Playing the model of a conversation over tools the backend has never seen (``mcp:NAME``,
a user's MCP server): tool calls chosen from the tools' input schemas, then an extractive
answer from what the results showed.

The rule reads only the request. A *query tool* is one whose input takes free text: a string
property named like a query (``query``, ``question``, ``q``, ``text``, ``search``...) or
described as one, with no other required property; the first turn calls the best of them
with the question. A *reader tool* is one whose only required property is a string named like
an id (``passage_id``, ``chunk_id``, ``doc_id``, ``id``...); each later turn calls a reader
with the values that earlier results gave under that property's name (or under ``id``), in
the order they came, each once. When nothing is left to call, or tools are switched off, it
answers from the sentences of every result that was not an error. This exercises the loop,
the tools and the reading offline; it is not a judgement of which tool a real model would
pick.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from pytest_legalbench.modes.mcp_reading import MIN_WORDS, json_prefix, pieces, words
from pytest_legalbench.reference_backend.answering import Passage, answer_from
from pytest_legalbench.reference_backend.lexical import split_sentences
from pytest_legalbench.reference_backend.prompt_parts import question_of
from pytest_legalbench.reference_backend.wire import MessagesRequest

#: Property names that take a query.
QUERY_NAMES = frozenset({"query", "question", "q", "text", "search", "search_query", "prompt",
                         "keywords", "terms", "input", "request", "topic"})
#: Words of a tool's name or a property's description that mark a query tool.
QUERY_WORDS = frozenset({"search", "find", "query", "retrieve", "lookup", "look", "ask",
                         "question", "match", "relevant"})
#: Reader calls made in one turn, at most.
READS_PER_TURN = 8
#: Reader calls made in the whole conversation, at most.
READS_IN_ALL = 24

_ID_NAME = re.compile(r"(^|_)(id|ids|key|ref|uri)$")
_WORD = re.compile(r"[a-z]+")


def is_tool_request(request: MessagesRequest) -> bool:
    """Whether ``request`` is a turn of a conversation over tools (offered, not forced)."""
    return request.tool_choice in ("auto", "none") and bool(request.tool_names)


@dataclass
class ToolConversation:
    """What the conversation so far tells: the question, the calls made and the results."""

    question: str
    asked: set[tuple[str, str]] = field(default_factory=set)
    """(tool, the JSON of its input) of every call made."""
    reads: int = 0
    queried: bool = False
    results: list[str] = field(default_factory=list)
    """The text of every result that was not an error, in order."""


def read_conversation(request: MessagesRequest, query: str | None,
                      readers: Mapping[str, str]) -> ToolConversation:
    """The state of the conversation, from its turns."""
    first = next((t for t in request.turns if t.role == "user"), None)
    state = ToolConversation(question_of(first.text if first is not None else ""))
    calls: dict[str, str] = {}
    for turn in request.turns:
        for block in turn.blocks:
            if block.kind == "tool_use":
                calls[block.call_id] = block.name
                state.asked.add((block.name, _canonical(block.text)))
                state.queried = state.queried or block.name == query
                state.reads += block.name in readers
            elif block.kind == "tool_result" and block.call_id in calls and not block.is_error:
                state.results.append(block.text)
    return state


def query_tool(schemas: Mapping[str, Mapping[str, object]]) -> tuple[str, str] | None:
    """The best query tool and its query property; None when no tool takes free text."""
    best: tuple[int, str, str] | None = None
    for name, schema in schemas.items():
        properties = _properties(schema)
        required = _required(schema)
        for prop, spec in properties.items():
            if spec.get("type") != "string" or not required <= {prop}:
                continue
            described = set(_WORD.findall(str(spec.get("description", "")).lower()))
            score = (3 * (prop.lower() in QUERY_NAMES) + len(described & QUERY_WORDS)
                     + 2 * len(set(_WORD.findall(name.lower())) & QUERY_WORDS))
            if score and (best is None or score > best[0]):
                best = (score, name, prop)
    return None if best is None else (best[1], best[2])


def reader_tools(schemas: Mapping[str, Mapping[str, object]]) -> dict[str, str]:
    """Reader tools by name, each with its one id property."""
    found = {}
    for name, schema in schemas.items():
        required = _required(schema)
        if len(required) != 1:
            continue
        (prop,) = required
        if _properties(schema).get(prop, {}).get("type") == "string" \
                and _ID_NAME.search(prop.lower()):
            found[name] = prop
    return found


def next_calls(request: MessagesRequest) -> list[tuple[str, dict[str, object]]]:
    """The tool calls of the next turn; none when it is time to answer."""
    query = query_tool(request.tool_schemas)
    readers = reader_tools(request.tool_schemas)
    state = read_conversation(request, query[0] if query else None, readers)
    if query is not None and not state.queried:
        return [(query[0], {query[1]: state.question})]
    chosen: list[tuple[str, dict[str, object]]] = []
    for text in state.results:
        data, _ = json_prefix(text)
        for key, value in _pairs(data):
            for tool, prop in readers.items():
                if key not in (prop, "id") or len(chosen) >= READS_PER_TURN \
                        or state.reads + len(chosen) >= READS_IN_ALL:
                    continue
                arguments: dict[str, object] = {prop: value}
                marked = (tool, _canonical_of(arguments))
                if marked not in state.asked:
                    state.asked.add(marked)
                    chosen.append((tool, arguments))
    return chosen


def tool_answer(request: MessagesRequest) -> str:
    """The extractive answer from every result the conversation got."""
    first = next((t for t in request.turns if t.role == "user"), None)
    question = question_of(first.text if first is not None else "")
    results = [block.text for turn in request.turns for block in turn.blocks
               if block.kind == "tool_result" and not block.is_error]
    return answer_from(question, list(_passages(results)))


def _passages(results: list[str]) -> Iterator[Passage]:
    order = 0
    for text in results:
        data, _ = json_prefix(text)
        doc_id = data.get("doc_id") if isinstance(data, dict) else None
        for piece in pieces(text):
            for sentence in split_sentences(piece):
                if words(sentence.text) >= MIN_WORDS // 2:
                    yield Passage(str(doc_id or ""), "", sentence.text, order)
                    order += 1


def _pairs(value: object) -> Iterator[tuple[str, str]]:
    """Every (key, string value) of a JSON value, depth first in order."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, str):
                yield str(key), item
            else:
                yield from _pairs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _pairs(item)


def _properties(schema: Mapping[str, object]) -> dict[str, Mapping[str, object]]:
    found = schema.get("properties")
    if not isinstance(found, Mapping):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, Mapping)}


def _required(schema: Mapping[str, object]) -> set[str]:
    found = schema.get("required")
    return {str(r) for r in found} if isinstance(found, list) else set()


def _canonical(text: str) -> str:
    data, _ = json_prefix(text)
    return _canonical_of(data) if isinstance(data, dict) else text


def _canonical_of(arguments: Mapping[str, object]) -> str:
    return json.dumps(dict(arguments), sort_keys=True)
