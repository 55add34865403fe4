"""The baselines' call chains and the roles' requests, against a scripted Messages API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_legalbench.gandr.baselines import RUNNERS, Generator
from pytest_legalbench.gandr.creac import protocol_check
from pytest_legalbench.gandr.passages import Passage
from pytest_legalbench.gandr.roles import ModelRoles
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.call_types import Sampling
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from tests.support.fake_messages import FakeMessages, text_reply, tool_reply

PASSAGES = [Passage("deal:4.2", "deal", "4.2", "The Borrower shall pay interest monthly.")]


@pytest.fixture
def fake() -> Iterator[FakeMessages]:
    with FakeMessages() as server:
        yield server
    assert server.pending == 0, "a scripted reply was never requested"


def _client(fake: FakeMessages, send_sampling: bool | None = True) -> ModelClient:
    # The fake stands for a Messages-API server that takes sampling fields (vLLM, LiteLLM).
    return ModelClient(ClientConfig(backend="anthropic", api_key="k", base_url=fake.base_url,
                                    send_sampling=send_sampling), Ledger())


def _bodies(fake: FakeMessages) -> list[dict[str, Any]]:
    return [r.body for r in fake.requests if isinstance(r.body, dict)]


def _generator(client: ModelClient, stage: str) -> Generator:
    return Generator(client, "claude-test", GandrSettings(), seed=3, question_id="q1",
                     stage=stage)


def test_b1_is_one_call_at_the_generator_temperature_with_its_seed(fake: FakeMessages) -> None:
    fake.script(text_reply("Monthly {cite: deal:4.2}."))
    outcome = RUNNERS["b1"](_generator(_client(fake), "b1"), "When is interest paid?", PASSAGES)
    assert outcome.answer == "Monthly {cite: deal:4.2}." and outcome.passed is None
    (body,) = _bodies(fake)
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.7, 3, 2048)
    assert '<passage id="deal:4.2" clause="4.2">' in body["messages"][0]["content"]
    assert "Output format: cited-answer." in body["system"][0]["text"]


def test_claude_itself_is_sent_no_sampling_fields(fake: FakeMessages) -> None:
    # Claude's API rejects temperature and unknown fields such as a seed.
    fake.script(text_reply("x"))
    RUNNERS["b1"](_generator(_client(fake, send_sampling=False), "b1"), "q", PASSAGES)
    (body,) = _bodies(fake)
    assert "temperature" not in body and "seed" not in body


@pytest.mark.parametrize(("backend", "base_url", "expected"), [
    ("reference", "http://127.0.0.1:1", True),
    ("anthropic", None, False),
    ("anthropic", "https://api.anthropic.com", False),
    ("anthropic", "http://localhost:8000", True),
])
def test_which_servers_get_sampling_fields(backend: str, base_url: str | None,
                                           expected: bool) -> None:
    config = ClientConfig(backend=backend, api_key="k", base_url=base_url)
    assert config.sends_sampling is expected


def test_b2_uses_the_drafter_prompt_with_the_self_check(fake: FakeMessages) -> None:
    fake.script(text_reply("memo"))
    RUNNERS["b2"](_generator(_client(fake), "b2"), "q", PASSAGES)
    system = _bodies(fake)[0]["system"][0]["text"]
    assert "[EXPLANATION]" in system and "AFL" in system and "FS" in system


def test_b4_hands_the_researchers_findings_to_the_writer(fake: FakeMessages) -> None:
    fake.script(text_reply("- deal:4.2: interest is monthly"), text_reply("Final answer."))
    client = _client(fake)
    outcome = RUNNERS["b4"](_generator(client, "b4"), "q", PASSAGES)
    assert outcome.answer == "Final answer."
    research, write = _bodies(fake)
    assert "Output format: findings." in research["system"][0]["text"]
    assert "- deal:4.2: interest is monthly" in write["messages"][0]["content"]
    assert [c.stage for c in client.ledger.calls] == ["b4.research", "b4.write"]
    assert [step["step"] for step in outcome.trace] == ["research", "write"]


def test_b5_runs_four_steps_in_one_growing_conversation(fake: FakeMessages) -> None:
    fake.script(text_reply("1. sub-question"), text_reply("draft"), text_reply(""),
                text_reply("final"))
    outcome = RUNNERS["b5"](_generator(_client(fake), "b5"), "q", PASSAGES)
    assert outcome.answer == "final"
    turns = [len(body["messages"]) for body in _bodies(fake)]
    assert turns == [1, 3, 5, 7]
    last = _bodies(fake)[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant"] * 3 + ["user"]
    # The empty review still takes its place in the conversation, as a non-empty turn.
    assert last[5]["content"] == "(no output)"


def test_roles_send_tools_at_temperature_zero_and_the_critic_at_its_own(
        fake: FakeMessages) -> None:
    fake.script(
        tool_reply("record_claim_audit", {"claims": [
            {"claim_id": 1, "block": "APPLICATION", "claim": "Monthly.", "cited_id": "deal:4.2",
             "supporting_span": "pay interest monthly", "label": "SUPPORTED"}]}),
        tool_reply("record_rubric_scores", {"AFL": 5, "AC": 5, "CI": 4, "DTC": 4, "CEA": 5,
                                            "FS": 3}),
        tool_reply("record_critic_decision", {"decision": "PASS", "directives": [" ", "x"],
                                              "rationale": "fine"}))
    roles = ModelRoles(_client(fake), "claude-test", GandrSettings(), question_id="q1")
    audit = roles.audit(PASSAGES, "memo")
    rubric = roles.rubric("memo")
    verdict = roles.critic("q", PASSAGES, "memo", protocol_check("memo"), audit, rubric, seed=1)
    assert audit is not None and audit.verified_share == 1.0
    assert rubric is not None and rubric.minimum == 3 and rubric.mean == pytest.approx(26 / 6)
    assert verdict is not None and verdict.directives == ("x",)
    bodies = _bodies(fake)
    assert [b.get("temperature") for b in bodies] == [0.0, 0.0, 0.7]
    critic_turn = bodies[2]["messages"][0]["content"]
    assert "1 of 1 claims SUPPORTED (100% verified)" in critic_turn
    assert "mean 4.33, minimum 3" in critic_turn
    assert "95%" in bodies[2]["system"][0]["text"]


def test_an_audit_that_never_conforms_is_no_audit(fake: FakeMessages) -> None:
    bad = tool_reply("record_claim_audit", {"claims": [{"claim_id": 1}]})
    fake.script(bad, bad)
    roles = ModelRoles(_client(fake), "claude-test", GandrSettings())
    assert roles.audit(PASSAGES, "memo") is None


def test_sampling_is_checked() -> None:
    with pytest.raises(ValueError, match="temperature"):
        Sampling(temperature=1.5)
