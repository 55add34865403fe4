"""navagent's navigation loop against a scripted stand-in client: the turn limit, the token
limit, invalid tool names and ids answered as tool errors, the reading budget, and the ledger
it leaves."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.call_types import Completion, SystemBlock, ToolSpec
from pytest_legalbench.llm.conversation import Exchange, ToolUse
from pytest_legalbench.llm.ledger import Call, Ledger, ToolEvent, Usage
from pytest_legalbench.llm.prompts import answer_user
from pytest_legalbench.modes.agent_loop import CALLS_PER_TURN, request_tokens
from pytest_legalbench.modes.agent_reading import OverBudget, Reading
from pytest_legalbench.modes.base import AnsweringMode, ModeSettings, Provision
from pytest_legalbench.modes.index_tools.specs import TOOL_SPECS
from pytest_legalbench.modes.navagent import NavagentMode, searcher_of
from pytest_legalbench.modes.navembed import ClosureMode
from pytest_legalbench.run.answering import respond
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, WordEmbedder, two_deal_corpus

RENT = "What is the monthly rent?"
#: A scripted turn: the tool calls it makes, or the answer it writes.
Turn = list[tuple[str, object]] | str


class ScriptedClient:
    """Plays the model from a script, one entry per turn; records calls like ModelClient."""

    def __init__(self, script: Sequence[Turn]) -> None:
        self.script = list(script)
        self.ledger = Ledger()
        self.requests: list[dict[str, Any]] = []

    def converse(self, *, stage: str, model: str, system: Sequence[SystemBlock],
                 messages: Sequence[Mapping[str, object]], tools: Sequence[ToolSpec],
                 max_tokens: int, question_id: str | None = None, tool_choice: str = "auto",
                 answer_stage: str | None = None,
                 tool_results: Sequence[ToolEvent] = ()) -> Exchange:
        self.requests.append({"stage": stage, "tool_choice": tool_choice,
                              "messages": copy.deepcopy(list(messages)),
                              "tool_results": tuple(tool_results)})
        step: Turn = ("the answer" if tool_choice == "none" or not self.script
                      else self.script.pop(0))
        number = len(self.requests)
        uses = () if isinstance(step, str) else tuple(
            ToolUse(f"call{number}_{i}", name, arguments) for i, (name, arguments)
            in enumerate(step))
        content = ([{"type": "text", "text": step}] if isinstance(step, str) else
                   [{"type": "tool_use", "id": u.id, "name": u.name, "input": u.input}
                    for u in uses])
        recorded = stage if uses or answer_stage is None else answer_stage
        usage = Usage(input_tokens=request_tokens(system, tools, messages), output_tokens=7)
        self.ledger.record(Call(stage=recorded, model=model, usage=usage, latency_s=0.0,
                                backend="reference", question_id=question_id,
                                tool_results=tuple(tool_results)))
        return Exchange(recorded, step if isinstance(step, str) else "", uses, tuple(content),
                        model, "end_turn" if isinstance(step, str) else "tool_use", usage, 0.0)


def _mode(client: ScriptedClient, **settings: Any) -> NavagentMode:
    corpus = two_deal_corpus()
    closure = ClosureMode(corpus, ModeSettings(), WordEmbedder())
    return NavagentMode(corpus, ModeSettings(**settings), client, searcher_of(closure))


def _read(node: str) -> tuple[str, object]:
    return ("read_provision", {"node_id": node})


def _results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a request's last user turn."""
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


def test_the_model_searches_reads_and_answers_on_its_own() -> None:
    client = ScriptedClient([[("search", {"query": RENT})],
                             [_read(f"{LEASE}:2.1"), _read(f"{LEASE_AMENDMENT}:1")],
                             "Monthly Rent is $39,000 [lease-amendment-1] 1."])
    mode = _mode(client)
    assert isinstance(mode, AnsweringMode)
    answered = mode.answer(RENT, model="m1", question_id="q1")
    retrieval = answered.retrieval
    assert [p.node_id for p in retrieval.provisions] == [f"{LEASE}:2.1", f"{LEASE_AMENDMENT}:1"]
    assert retrieval.mode == "navagent"
    assert retrieval.payload_tokens == sum(len(p.text) // 4 + (len(p.text) % 4 > 0)
                                           for p in retrieval.provisions)
    assert answered.completion.text.startswith("Monthly Rent is $39,000")
    calls = client.ledger.calls
    assert [c.stage for c in calls] == ["navagent.turn1", "navagent.turn2", "navagent.answer"]
    assert retrieval.calls == calls and all(c.question_id == "q1" for c in calls)
    assert retrieval.scan_tokens == calls[0].usage.footprint + calls[1].usage.footprint
    # Every tool result is in the ledger, with the call whose request carried it.
    assert [e.name for e in calls[1].tool_results] == ["search"]
    assert [(e.name, json.loads(e.arguments)["node_id"], e.error)
            for e in calls[2].tool_results] == [("read_provision", f"{LEASE}:2.1", False),
                                                ("read_provision", f"{LEASE_AMENDMENT}:1",
                                                 False)]
    read = [json.loads(b["content"]) for b in _results(client.requests[2])]
    assert read[0]["text"].startswith("2.1 Amount") and "reading_budget_left" in read[0]
    assert read[1]["reading_budget_left"] == 6000 - retrieval.payload_tokens
    assert calls[2].tool_results[0].result_tokens == read[0]["result_tokens"]
    # What each result named is kept by id, never its text: the hits of the search, the read.
    searched = json.loads(_results(client.requests[1])[0]["content"])
    assert calls[1].tool_results[0].node_ids == tuple(h["node_id"] for h in searched["hits"])
    assert calls[2].tool_results[0].node_ids[0] == f"{LEASE}:2.1"
    assert all(e.message is None for c in calls for e in c.tool_results)
    assert "2.1 Amount" not in json.dumps([to_builtins(c) for c in calls])
    assert "stopped: the model answered" in retrieval.notes[0]
    assert dict(retrieval.dropped) == dict.fromkeys(
        ("invalid_tools", "tool_errors", "over_budget", "too_many_calls"), 0)


def test_the_turn_limit_asks_for_the_answer_with_tools_off() -> None:
    client = ScriptedClient([[("search", {"query": RENT})]] * 5)
    retrieval = _mode(client, agent_turns=2).answer(RENT, model="m1").retrieval
    assert [r["stage"] for r in client.requests] == ["navagent.turn1", "navagent.turn2",
                                                     "navagent.answer"]
    assert [r["tool_choice"] for r in client.requests] == ["auto", "auto", "none"]
    last = client.requests[-1]["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[-1]["type"] == "text"
    assert "the turn limit (2) was reached" in last[-1]["text"]
    assert "No more tools can be called" in last[-1]["text"]
    assert [e.name for e in client.ledger.calls[-1].tool_results] == ["search"]
    assert "stopped: the turn limit (2) was reached" in retrieval.notes[0]


def test_the_token_limit_stops_before_a_turn_would_pass_it() -> None:
    mode = _mode(ScriptedClient([]))
    first = request_tokens(mode.system, TOOL_SPECS, [
        {"role": "user", "content": [{"type": "text", "text": answer_user(RENT)}]}])
    client = ScriptedClient([[("search", {"query": RENT})]] * 5)
    limited = _mode(client, agent_tokens=first + 200)
    retrieval = limited.answer(RENT, model="m1").retrieval
    # The first turn fits; the second, carrying the search results, would not.
    assert [r["stage"] for r in client.requests] == ["navagent.turn1", "navagent.answer"]
    assert "navigation token limit" in retrieval.notes[0]
    assert retrieval.scan_tokens <= first + 200
    # A limit below the first turn answers at once, from nothing read.
    bare = ScriptedClient([[("search", {"query": RENT})]])
    nothing = _mode(bare, agent_tokens=10).answer(RENT, model="m1")
    assert [r["stage"] for r in bare.requests] == ["navagent.answer"]
    assert nothing.retrieval.provisions == () and nothing.retrieval.scan_tokens == 0
    opening = bare.requests[0]["messages"][0]["content"]
    assert [b["type"] for b in opening] == ["text", "text"] and RENT in opening[0]["text"]


def test_invalid_tools_and_ids_are_answered_as_tool_errors() -> None:
    client = ScriptedClient([[("teleport", {"to": "Delaware"}), _read("nowhere:1"),
                              ("read_provision", {"node_id": 5}),
                              ("outline", "not an object"), _read(f"{LEASE}:2.1")],
                             "done"])
    retrieval = _mode(client).answer(RENT, model="m1").retrieval
    results = _results(client.requests[1])
    assert [b.get("is_error", False) for b in results] == [True, True, True, True, False]
    assert "unknown tool 'teleport'" in results[0]["content"]
    assert "no document is called 'nowhere'" in results[1]["content"]
    assert "expected string" in results[2]["content"]
    assert "the input must be an object" in results[3]["content"]
    assert [b["tool_use_id"] for b in results] == [f"call1_{i}" for i in range(5)]
    dropped = dict(retrieval.dropped)
    assert (dropped["invalid_tools"], dropped["tool_errors"]) == (1, 3)
    assert [p.node_id for p in retrieval.provisions] == [f"{LEASE}:2.1"]
    events = client.ledger.calls[1].tool_results
    assert [e.error for e in events] == [True] * 4 + [False]
    # An error keeps what it said (the model's next turn reads it), a result its ids.
    assert [e.message for e in events[:4]] == [b["content"] for b in results[:4]]
    assert events[4].message is None and events[4].node_ids[0] == f"{LEASE}:2.1"
    assert all(e.node_ids == () for e in events[:4])


def test_the_payload_budget_is_a_hard_maximum_on_what_is_read() -> None:
    client = ScriptedClient([[_read(f"{LEASE}:2.1"), _read(f"{LEASE}:5"),
                              _read(f"{LEASE}:2.1"), ("define_term", {"term": "Equipment"})],
                             "done"])
    retrieval = _mode(client, payload_budget_tokens=50).answer(RENT, model="m1").retrieval
    results = _results(client.requests[1])
    assert [b.get("is_error", False) for b in results] == [False, True, False, False]
    assert "the reading budget of 50 tokens is a hard limit" in results[1]["content"]
    # Reading the same text again costs nothing; the definition fits what is left.
    assert json.loads(results[2]["content"])["reading_budget_left"] == 50 - 25
    assert [p.node_id for p in retrieval.provisions] == [f"{LEASE}:2.1", f"{LEASE}:def-equipment"]
    assert retrieval.payload_tokens <= 50
    assert dict(retrieval.dropped)["over_budget"] == 1


def test_a_refused_section_names_the_parts_that_fit() -> None:
    client = ScriptedClient([[_read(f"{LEASE}:2")], "done"])
    _mode(client, payload_budget_tokens=30).answer(RENT, model="m1")
    refusal = _results(client.requests[1])[0]["content"]
    assert refusal.startswith(f"not read: {LEASE}:2 needs") and f"{LEASE}:2.1 (25 tokens)" in refusal


def test_a_turn_makes_at_most_the_call_limit() -> None:
    client = ScriptedClient([[_read(f"{LEASE}:2.1")] * (CALLS_PER_TURN + 2), "done"])
    retrieval = _mode(client).answer(RENT, model="m1").retrieval
    errors = [b.get("is_error", False) for b in _results(client.requests[1])]
    assert errors == [False] * CALLS_PER_TURN + [True, True]
    assert dict(retrieval.dropped)["too_many_calls"] == 2


def test_reading_a_section_after_its_clause_replaces_the_clause() -> None:
    reading = Reading(100)
    corpus = two_deal_corpus()
    nodes = {n.node_id: n for i in corpus.indexes for n in i.nodes}
    clause, section = (Provision.from_node(nodes[f"{LEASE}:{i}"]) for i in ("2.1", "2"))
    assert reading.take([clause]) == 25
    added = reading.take([section])
    assert reading.provisions == (section,) and added == reading.spent - 25
    assert reading.take([clause]) == 0
    with pytest.raises(OverBudget) as over:
        Reading(10).take([section])
    assert over.value.left == 10
    with pytest.raises(ValueError):
        Reading(0)


def test_respond_takes_navagent_s_own_answer() -> None:
    client = ScriptedClient([[_read(f"{LEASE}:2.1")], "its answer"])
    mode = _mode(client)
    retrieval, completion = respond(mode, RENT, client, "m9", question_id="q7")  # type: ignore[arg-type]
    assert completion == Completion("its answer", "m9", "end_turn", completion.usage, 0.0)
    assert [c.model for c in client.ledger.calls] == ["m9", "m9"]
    assert mode.traits.shown == "answer" and retrieval.mode == "navagent"
    # A mode that says it answers as it navigates must be able to.
    unanswering = type("Unanswering", (), {"name": "x", "traits": mode.traits,
                                           "retrieve": mode.retrieve})()
    with pytest.raises(TypeError, match="answers as it navigates, but has no answer"):
        respond(unanswering, RENT, client, "m9")  # type: ignore[arg-type]
    # retrieve() navigates with the scanning model (the answering model outside a benchmark).
    again = ScriptedClient(["nothing to read"])
    _mode(again, scan_model="scanner").retrieve(RENT)
    assert [c.model for c in again.ledger.calls] == ["scanner"]
    assert dataclasses.replace(ModeSettings(), agent_turns=3).agent_turns == 3
    with pytest.raises(ValueError, match="agent_tokens"):
        ModeSettings(agent_tokens=0)
