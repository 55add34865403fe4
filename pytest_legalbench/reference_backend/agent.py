"""Playing navagent's model: tool calls chosen by rule from the conversation, then an
extractive answer from the provisions it read.

The backend reads only the request: the question of the first user turn, the tool calls of
the assistant turns and the results the user turns carry. Each turn it makes the next moves
a careful reader would: search with the question first; then read what the reads so far point
to (the amendments of a provision and the base provision of an amendment, the definitions of
the terms the question writes), then the search hits in their ranked order (a second page of
them when the first is read), then the clauses the reads cite, several per turn, each only when
it fits what the results say is left of the reading budget. When nothing more
fits, or tools are switched off, it answers extractively from the text it read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from pytest_legalbench.modes.index_tools.specs import (
    DEFINE_TERM,
    READ_PROVISION,
    READING_TOOLS,
    SEARCH,
)
from pytest_legalbench.reference_backend.answering import Passage, answer_from
from pytest_legalbench.reference_backend.lexical import split_sentences
from pytest_legalbench.reference_backend.prompt_parts import question_of
from pytest_legalbench.reference_backend.wire import MessagesRequest

#: The tools whose presence marks a navagent request.
AGENT_TOOLS = frozenset({SEARCH, READ_PROVISION})
#: Hits one search asks for: as many as the tool gives.
SEARCH_HITS = 20
#: Pages of hits it reads at most (the next page when the first is read and budget is left).
SEARCH_PAGES = 2
#: Provisions read per turn, at most.
READS_PER_TURN = 16

_SPACE = re.compile(r"\s+")


def is_agent_request(request: MessagesRequest) -> bool:
    """Whether ``request`` is a turn of navagent's conversation (its tools, not forced)."""
    return request.tool_choice in ("auto", "none") and AGENT_TOOLS <= set(request.tool_names)


@dataclass
class Conversation:
    """What the conversation so far tells: the question, the reads, the leads, the budget."""

    question: str
    searches: int = 0
    next_page: int | None = None
    """The offset of the next page of hits, when the last search said there are more."""
    hits: list[dict[str, object]] = field(default_factory=list)
    leads: list[dict[str, object]] = field(default_factory=list)
    """Provisions the reads point to (amendments, base provisions), in the order found."""
    cited: list[dict[str, object]] = field(default_factory=list)
    """Provisions the reads cite, read when the hits leave room."""
    terms: list[tuple[str, str, str]] = field(default_factory=list)
    """(term, definition node id, the document using it) for terms the question writes."""
    asked: set[str] = field(default_factory=set)
    """Node ids and terms already asked for, answered or not."""
    texts: list[dict[str, object]] = field(default_factory=list)
    """The successful reading results, in order."""
    budget_left: int | None = None


def read_conversation(request: MessagesRequest) -> Conversation:
    """The state of the conversation, from its turns."""
    first = next((t for t in request.turns if t.role == "user"), None)
    question = question_of(first.text if first is not None else "")
    state = Conversation(question)
    calls: dict[str, tuple[str, dict[str, object]]] = {}
    for turn in request.turns:
        for block in turn.blocks:
            if block.kind == "tool_use":
                calls[block.call_id] = (block.name, _object(block.text))
                _mark_asked(state, block.name, calls[block.call_id][1])
            elif block.kind == "tool_result" and block.call_id in calls and not block.is_error:
                name, _ = calls[block.call_id]
                _take_result(state, name, _object(block.text))
    return state


def _mark_asked(state: Conversation, name: str, arguments: Mapping[str, object]) -> None:
    if name == SEARCH:
        state.searches += 1
    for key in ("node_id", "term"):
        if isinstance(arguments.get(key), str) and name in READING_TOOLS:
            state.asked.add(str(arguments[key]))


def _take_result(state: Conversation, name: str, result: Mapping[str, object]) -> None:
    left = result.get("reading_budget_left")
    if isinstance(left, int) and not isinstance(left, bool):
        state.budget_left = left
    if name == SEARCH:
        hits = list(_entries(result.get("hits")))
        state.hits.extend(hits)
        offset = result.get("offset")
        state.next_page = (offset + len(hits) if isinstance(offset, int) and hits
                           and result.get("truncated") is True else None)
        return
    if name not in READING_TOOLS:
        return
    state.texts.append(dict(result))
    state.asked.add(str(result.get("node_id", "")))
    for key in ("amended_by", "amends"):
        state.leads.extend(_entries(result.get(key)))
    state.cited.extend(_entries(result.get("cites")))
    words = f" {_words(state.question)} "
    for used in _entries(result.get("uses_terms")):
        term, node_id = used.get("term"), used.get("node_id")
        if isinstance(term, str) and isinstance(node_id, str) and len(term) > 3 \
                and f" {_words(term)} " in words:
            state.terms.append((term, node_id, str(result.get("doc_id", ""))))


def next_calls(request: MessagesRequest) -> list[tuple[str, dict[str, object]]]:
    """The tool calls of the next turn; none when it is time to answer."""
    state = read_conversation(request)
    if not state.searches:
        return [(SEARCH, {"query": state.question, "limit": SEARCH_HITS})]
    left = state.budget_left
    chosen: list[tuple[str, dict[str, object]]] = []
    for term, node_id, doc_id in state.terms:
        if term not in state.asked and node_id not in state.asked \
                and len(chosen) < READS_PER_TURN:
            state.asked.update((term, node_id))
            chosen.append((DEFINE_TERM, {"term": term, "doc_id": doc_id} if doc_id
                           else {"term": term}))
    left = _reads(state, [*state.leads, *state.hits], chosen, left)
    if not chosen and state.next_page is not None and state.searches < SEARCH_PAGES \
            and (left is None or left > 0):
        return [(SEARCH, {"query": state.question, "limit": SEARCH_HITS,
                          "offset": state.next_page})]
    _reads(state, state.cited, chosen, left)
    return chosen


def _reads(state: Conversation, leads: list[dict[str, object]],
           chosen: list[tuple[str, dict[str, object]]], left: int | None) -> int | None:
    """Add reads of ``leads`` not asked for yet that fit ``left``; return what is left."""
    for lead in leads:
        wanted, tokens = lead.get("node_id"), lead.get("tokens")
        if len(chosen) >= READS_PER_TURN or not isinstance(wanted, str) \
                or wanted in state.asked:
            continue
        size = tokens if isinstance(tokens, int) else 0
        if left is not None and size > left:
            continue
        state.asked.add(wanted)
        chosen.append((READ_PROVISION, {"node_id": wanted}))
        if left is not None:
            left -= size
    return left


def agent_answer(request: MessagesRequest) -> str:
    """The extractive answer from every provision the conversation read."""
    state = read_conversation(request)
    titles = {str(t.get("doc_id", "")): str(t.get("document", "")) for t in state.texts}
    return answer_from(state.question, list(_passages(state.texts)), titles)


def _passages(texts: list[dict[str, object]]) -> Iterator[Passage]:
    order = 0
    for result in texts:
        doc_id = str(result.get("doc_id") or result.get("defined_in") or "")
        clause = str(result.get("clause") or result.get("heading") or result.get("node_id"))
        for sentence in split_sentences(str(result.get("text", ""))):
            yield Passage(doc_id, clause, sentence.text, order)
            order += 1


def _entries(value: object) -> Iterator[dict[str, object]]:
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            yield item


def _object(text: str) -> dict[str, object]:
    """The JSON object a text opens with (a note after it, as ``mcp:NAME`` adds the reading
    budget below a server's result, is not part of it)."""
    try:
        value, _ = json.JSONDecoder().raw_decode(text.lstrip())
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _words(text: str) -> str:
    return _SPACE.sub(" ", re.sub(r"[^0-9a-z]+", " ", text.casefold())).strip()
