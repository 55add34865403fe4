"""The reference backend over tools it has never seen (a user's MCP server): which tool it
queries, which it reads with, what it reads next, and its answer from the results."""

from __future__ import annotations

import json

from pytest_legalbench.llm.prompts import answer_user
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.tool_agent import (
    is_tool_request,
    next_calls,
    query_tool,
    reader_tools,
    tool_answer,
)
from pytest_legalbench.reference_backend.wire import MessagesRequest

QUESTION = "Which machines does the lease cover?"

#: Input schemas as the SDK derives them from annotated functions (titles, defaults).
SEARCH = {"type": "object", "title": "searchArguments",
          "properties": {"text": {"type": "string", "title": "Text",
                                  "description": "what to look for"},
                         "limit": {"type": "integer", "default": 3}}, "required": ["text"]}
FETCH = {"type": "object", "properties": {"chunk_id": {"type": "string"}},
         "required": ["chunk_id"]}
STATS = {"type": "object", "properties": {}, "required": []}
TWO_IDS = {"type": "object", "properties": {"doc_id": {"type": "string"},
                                            "section": {"type": "string"}},
           "required": ["doc_id", "section"]}


def _request(messages: list[dict[str, object]], tool_choice: str = "auto") -> MessagesRequest:
    tools = [{"name": "lookup_chunks", "description": "", "input_schema": SEARCH},
             {"name": "get_chunk", "description": "", "input_schema": FETCH},
             {"name": "stats", "description": "", "input_schema": STATS},
             {"name": "section", "description": "", "input_schema": TWO_IDS}]
    body = {"model": "m", "max_tokens": 512, "messages": messages, "tools": tools,
            "tool_choice": {"type": tool_choice}}
    return parse_request(json.dumps(body).encode(), needs_max_tokens=True)


def _opening() -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": answer_user(QUESTION)}]}


def _turn(calls: list[tuple[str, str, dict[str, object]]],
          results: list[tuple[str, str, bool]]) -> list[dict[str, object]]:
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
                for call_id, name, arguments in calls]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call_id, "content": text,
                 "is_error": error} for call_id, text, error in results]}]


def test_tools_are_told_apart_by_their_input_schemas() -> None:
    schemas = {"lookup_chunks": SEARCH, "get_chunk": FETCH, "stats": STATS, "section": TWO_IDS}
    assert query_tool(schemas) == ("lookup_chunks", "text")
    assert reader_tools(schemas) == {"get_chunk": "chunk_id"}
    assert query_tool({"stats": STATS, "get_chunk": FETCH}) is None
    assert is_tool_request(_request([_opening()]))
    assert not is_tool_request(_request([_opening()], tool_choice="any"))


def test_it_queries_first_then_reads_each_id_the_results_gave_once() -> None:
    assert next_calls(_request([_opening()])) == [("lookup_chunks", {"text": QUESTION})]
    hits = json.dumps({"hits": [{"chunk_id": "c7", "preview": "Two electric"},
                                {"chunk_id": "c2", "preview": "EQUIPMENT LEASE"},
                                {"chunk_id": "c7", "preview": "again"}]})
    first = _turn([("t1", "lookup_chunks", {"text": QUESTION})], [("t1", hits, False)])
    assert next_calls(_request([_opening(), *first])) == [
        ("get_chunk", {"chunk_id": "c7"}), ("get_chunk", {"chunk_id": "c2"})]
    read = _turn([("t2", "get_chunk", {"chunk_id": "c7"}), ("t3", "get_chunk",
                                                             {"chunk_id": "c2"})],
                 [("t2", json.dumps({"chunk_id": "c7", "doc_id": "lease", "text": (
                     "Two electric forklifts, serial numbers FL-1 and FL-2, are the machines "
                     "this lease covers.")}), False),
                  ("t3", "no chunk 'c2'", True)])
    conversation = _request([_opening(), *first, *read])
    # Every id was asked for once (the error too): time to answer, from the results.
    assert next_calls(conversation) == []
    answer = tool_answer(conversation)
    assert "FL-1 and FL-2" in answer and "[lease]" in answer
