"""GANDR's structured roles against a llama.cpp server whose small model never conforms.

The replies are shaped as llama.cpp's server sent them to the conformance run's GANDR pass
(``perf/llama_conformance.py``, SmolLM2-135M-Instruct): prose until ``max_tokens`` where the
audit, rubric, Critic and judge asked for one JSON object (a chat template without tool use)
or forced a tool (a template with tool use). Each role is then "no result" and the answer "no
score", with what the model wrote kept on its calls: never a crash and never a guessed label.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_legalbench.gandr.judging import judge_correctness
from pytest_legalbench.gandr.orchestrator import run_gandr
from pytest_legalbench.gandr.passages import Passage
from pytest_legalbench.gandr.roles import ModelRoles
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.server_identity import ServerIdentity, host_of
from tests.support.fake_messages import FakeMessages, Reply, text_reply

PASSAGES = [Passage("deal:3.1", "deal", "3.1", "The price of the Products is $445 per tonne.")]
SETTINGS = GandrSettings(max_rounds=1, max_tokens=256, tool_max_tokens=256,
                         judge_max_tokens=256)
#: What SmolLM2 wrote for the Drafter, and for every structured role after it.
DRAFT = '"11/12/2023"\n\nSUPPLIES AGREEMENT:\n\nFIRST AMENDMENT TO SUPPLIES AGREEMENT'
PROSE = "SECTION 3\n\nThis Amendment is hereby repealed and is to be replaced with a new amendment."
LLAMA_USAGE = {"cache_read_input_tokens": 4, "input_tokens": 612, "output_tokens": 256}


@pytest.fixture
def fake() -> Iterator[FakeMessages]:
    with FakeMessages() as server:
        yield server
    assert server.pending == 0, "a scripted reply was never requested"


def _client(fake: FakeMessages, kind: str) -> ModelClient:
    identity = ServerIdentity(kind, host_of(fake.base_url), "named by a test")
    return ModelClient(ClientConfig(backend="anthropic", api_key="local",
                                    base_url=fake.base_url, max_attempts=1, server=identity),
                       Ledger())


def _prose(count: int) -> list[Reply]:
    return [text_reply(PROSE, stop_reason="max_tokens", usage_block=LLAMA_USAGE)] * count


@pytest.mark.parametrize("kind", ["llama.cpp-no-tools", "llama.cpp"])
def test_a_gandr_round_whose_reports_never_conform_passes_nothing_and_keeps_the_text(
        fake: FakeMessages, kind: str) -> None:
    # The draft, then audit, rubric and Critic, each tried twice (the structured retry).
    fake.script(text_reply(DRAFT, stop_reason="max_tokens", usage_block=LLAMA_USAGE),
                *_prose(6))
    client = _client(fake, kind)
    outcome = run_gandr(ModelRoles(client, "m", SETTINGS, question_id="q1"), "What price?",
                        PASSAGES, SETTINGS, seed=0)
    assert outcome.passed is False and outcome.rounds == 1 and outcome.answer == DRAFT
    trace, = outcome.trace
    assert (trace["audit"], trace["rubric"], trace["critic"]) == (None, None, None)
    calls = client.ledger.calls
    assert [c.stage for c in calls] == ["gandr.draft"] + [
        f"gandr.{role}" for role in ("audit", "rubric", "critic") for _ in range(2)]
    assert calls[0].valid and all(not c.valid for c in calls[1:])
    assert all(c.raw_output == f"[stop_reason max_tokens] {PROSE}" for c in calls[1:])
    # The Critic was told the reports are unavailable, not shown a made-up one.
    bodies: list[Any] = [r.body for r in fake.requests]
    critic_turn = bodies[-1]["messages"][0]["content"]
    assert "unavailable (the audit output never conformed)" in critic_turn
    assert "unavailable (the rubric output never conformed)" in critic_turn
    if kind == "llama.cpp":  # forced tool use, by name
        assert all(b["tool_choice"]["type"] == "tool" for b in bodies[1:])
    else:  # no tools: one JSON object asked for in the text
        assert all("tools" not in b and "exactly one JSON object" in b["system"]
                   for b in bodies[1:])


def test_a_correctness_judge_that_never_conforms_is_no_score(fake: FakeMessages) -> None:
    fake.script(*_prose(2))
    client = _client(fake, "llama.cpp-no-tools")
    graded = judge_correctness(client, model="m", question="What price?",
                               reference="$445 per tonne.", answer=DRAFT, max_tokens=256,
                               question_id="q1")
    assert graded.score is None and graded.judged is None and graded.candidate_figure is None
    assert graded.rationale == "no conforming output from the judge"
    assert [c.raw_output for c in client.ledger.calls] == [f"[stop_reason max_tokens] {PROSE}"] * 2
