"""navagent played by the reference backend: the rule it navigates by, the wire it reads, and
the answer it writes from what it read."""

from __future__ import annotations

import json

from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.navagent import NavagentMode, searcher_of
from pytest_legalbench.modes.navembed import ClosureMode
from pytest_legalbench.reference_backend.agent import is_agent_request, next_calls
from pytest_legalbench.reference_backend.identity import BACKEND_NOTE
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.responder import respond
from pytest_legalbench.reference_backend.wire import Block
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    WordEmbedder,
    reference_client,
    two_deal_corpus,
)

RENT = "What is the monthly rent for the equipment?"
TOOLS = [{"name": name, "input_schema": {"type": "object"}}
         for name in ("search", "read_provision", "define_term")]


def _request(messages: list[dict[str, object]], choice: str = "auto") -> bytes:
    return json.dumps({"model": "m", "max_tokens": 500, "tools": TOOLS,
                       "tool_choice": {"type": choice}, "messages": messages}).encode()


def _opening() -> dict[str, object]:
    return {"role": "user", "content": f"<question>\n{RENT}\n</question>"}


def test_the_backend_searches_reads_what_the_reads_point_to_and_answers() -> None:
    corpus = two_deal_corpus()
    with reference_client() as client:
        mode = NavagentMode(corpus, ModeSettings(), client,
                            searcher_of(ClosureMode(corpus, ModeSettings(), WordEmbedder())))
        first = mode.answer(RENT, model="m", question_id="q1")
        again = mode.answer(RENT, model="m", question_id="q2")
        calls = client.ledger.calls
    retrieval = first.retrieval
    ids = [p.node_id for p in retrieval.provisions]
    assert {f"{LEASE}:2.1", f"{LEASE_AMENDMENT}:1", f"{LEASE}:def-monthly-rent"} <= set(ids)
    assert retrieval.payload_tokens <= 6000 and len(ids) == len(set(ids))
    asked = [c for c in calls if c.question_id == "q1"]
    assert asked[0].stage == "navagent.turn1" and asked[-1].stage == "navagent.answer"
    assert [e.name for e in asked[1].tool_results] == ["search"]
    later = [e.name for c in asked[2:] for e in c.tool_results]
    assert set(later) <= {"read_provision", "define_term", "search"}
    assert later.count("search") <= 1  # at most a second page of hits
    assert "$39,000" in first.completion.text or "$42,500" in first.completion.text
    assert first.completion.text.rstrip().endswith(BACKEND_NOTE)
    # Deterministic: the same question navigates the same way.
    assert again.retrieval.provisions == retrieval.provisions
    assert again.completion.text == first.completion.text


def test_the_wire_keeps_tool_calls_and_results_apart() -> None:
    body = _request([_opening(),
                     {"role": "assistant", "content": [
                         {"type": "tool_use", "id": "t1", "name": "search",
                          "input": {"query": "rent"}}]},
                     {"role": "user", "content": [
                         {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                          "content": "no such thing"},
                         {"type": "text", "text": "go on"}]}])
    request = parse_request(body, needs_max_tokens=True)
    assert request.turns[1].blocks == (Block("tool_use", '{"query": "rent"}', "search", "t1"),)
    assert request.turns[2].blocks == (Block("tool_result", "no such thing", call_id="t1",
                                             is_error=True), Block("text", "go on"))
    assert request.turns[2].text == "no such thing\ngo on"
    assert is_agent_request(request)


def test_the_rule_reads_amendments_first_and_within_the_budget() -> None:
    hits = [{"node_id": f"{LEASE}:2.1", "tokens": 25}, {"node_id": f"{LEASE}:5", "tokens": 9000}]
    read = {"node_id": f"{LEASE}:2.1", "doc_id": LEASE, "text": "2.1 Amount.",
            "amended_by": [{"node_id": f"{LEASE_AMENDMENT}:1", "tokens": 24}],
            "uses_terms": [{"term": "Monthly Rent", "node_id": f"{LEASE}:def-monthly-rent"}],
            "reading_budget_left": 100}
    body = _request([
        _opening(),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "search",
                                           "input": {"query": RENT}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                      "content": json.dumps({"hits": hits})}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b",
                                           "name": "read_provision",
                                           "input": {"node_id": f"{LEASE}:2.1"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b",
                                      "content": json.dumps(read)}]}])
    calls = next_calls(parse_request(body, needs_max_tokens=True))
    # The term the question writes, the amendment; never the hit too large for the budget.
    assert calls == [("define_term", {"term": "Monthly Rent", "doc_id": LEASE}),
                     ("read_provision", {"node_id": f"{LEASE_AMENDMENT}:1"})]
    assert next_calls(parse_request(_request([_opening()]), needs_max_tokens=True)) == [
        ("search", {"query": RENT, "limit": 20})]


def test_with_tools_off_the_backend_answers_from_what_was_read() -> None:
    read = {"node_id": f"{LEASE}:2.1", "doc_id": LEASE, "document": "Equipment Lease",
            "clause": "2.1", "text": "The Lessee shall pay Monthly Rent of $42,500 for the "
                                     "Equipment each month."}
    body = _request([
        _opening(),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b",
                                           "name": "read_provision",
                                           "input": {"node_id": f"{LEASE}:2.1"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b",
                                      "content": json.dumps(read)},
                                     {"type": "text", "text": "Answer now."}]}], "none")
    reply = respond(parse_request(body, needs_max_tokens=True), "d")
    text = reply.content[0]["text"]
    assert reply.stop_reason == "end_turn" and isinstance(text, str)
    assert "$42,500" in text and f"[{LEASE}] 2.1" in text
    # Nothing read, nothing to quote: the refusal sentence.
    empty = respond(parse_request(_request([_opening()], "none"), needs_max_tokens=True), "d")
    assert str(empty.content[0]["text"]).startswith(REFUSAL)


def test_forced_tools_are_not_navagent_turns() -> None:
    body = json.dumps({"model": "m", "max_tokens": 5, "tools": TOOLS,
                       "tool_choice": {"type": "tool", "name": "search"},
                       "messages": [_opening()]}).encode()
    assert not is_agent_request(parse_request(body, needs_max_tokens=True))


def test_the_rule_turns_to_the_next_page_once_the_hits_are_read() -> None:
    page = {"query": RENT, "offset": 0, "hits": [{"node_id": f"{LEASE}:2.1", "tokens": 25}],
            "truncated": True, "note": "3 more hits; call again with offset=1"}
    read = {"node_id": f"{LEASE}:2.1", "doc_id": LEASE, "text": "2.1 Amount.",
            "cites": [{"node_id": f"{LEASE}:2.2", "tokens": 21}], "reading_budget_left": 500}
    body = _request([
        _opening(),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "search",
                                           "input": {"query": RENT}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                      "content": json.dumps(page)}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b",
                                           "name": "read_provision",
                                           "input": {"node_id": f"{LEASE}:2.1"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b",
                                      "content": json.dumps(read)}]}])
    request = parse_request(body, needs_max_tokens=True)
    assert next_calls(request) == [("search", {"query": RENT, "limit": 20, "offset": 1})]
    # After the last page the citations come next.
    last = json.loads(body)
    last["messages"][2]["content"][0]["content"] = json.dumps({**page, "truncated": False})
    again = parse_request(json.dumps(last).encode(), needs_max_tokens=True)
    assert next_calls(again) == [("read_provision", {"node_id": f"{LEASE}:2.2"})]
