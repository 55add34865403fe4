"""The paired judge's protocols, through the reference backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_legalbench.judging.judge import (
    FORCED_VERDICT_TOOL,
    VERDICT_TOOL,
    JudgeRequest,
    judge_once,
    keyfacts_verdict,
    protocol_for,
    verdict_tool,
)
from pytest_legalbench.judging.pairing import combine
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.reference_backend import ReferenceBackend

QUESTION = "What monthly rent does the tenant pay?"
REFERENCE = "The tenant pays $2,500 per month under Section 2.1."
RIGHT = "Rent is $2,500 per month (Section 2.1)."
WRONG = "Rent is $3,000 per month."


@pytest.fixture(scope="module")
def client() -> Iterator[ModelClient]:
    with ReferenceBackend() as backend, \
            ModelClient(ClientConfig(backend="reference", base_url=backend.base_url,
                                     api_key="reference"), Ledger()) as running:
        yield running


def _judge(client: ModelClient, a: str, b: str, protocol: str,
           reference: str | None = REFERENCE) -> str | None:
    return judge_once(client, JudgeRequest(QUESTION, reference, a, b), protocol=protocol,
                      model="judge-model", stage="judge.forward")


def test_questions_without_a_reference_are_judged_by_preference() -> None:
    assert protocol_for("reference-anchored", None) == "preference"
    assert protocol_for("forced", None) == "preference"
    assert protocol_for("keyfacts", None) == "keyfacts"
    assert protocol_for("forced", REFERENCE) == "forced"
    with pytest.raises(ValueError, match="unknown judge 'vibes'"):
        protocol_for("vibes", REFERENCE)


def test_the_forced_tool_has_no_tie() -> None:
    assert verdict_tool(False).name == VERDICT_TOOL
    forced = verdict_tool(True)
    assert forced.name == FORCED_VERDICT_TOOL
    assert forced.input_schema["properties"]["verdict"]["enum"] == ["A", "B"]  # type: ignore[index]


def test_the_reference_anchored_judge_follows_the_key_facts(client: ModelClient) -> None:
    assert _judge(client, RIGHT, WRONG, "reference-anchored") == "A"
    assert _judge(client, WRONG, RIGHT, "reference-anchored") == "B"
    assert _judge(client, RIGHT, RIGHT, "reference-anchored") == "tie"


def test_a_forced_judge_never_ties_and_its_choice_follows_content_not_position(
        client: ModelClient) -> None:
    terse, detailed = "It is in Section 2.1.", "Section 2.1 sets $2,500 on the 1st of each month."
    forward = _judge(client, terse, detailed, "forced", reference="See Section 2.1.")
    reverse = _judge(client, detailed, terse, "forced", reference="See Section 2.1.")
    assert {forward, reverse} <= {"A", "B"} and forward != reverse
    # Identical answers cannot be told apart: the two directions split.
    same = [_judge(client, RIGHT, RIGHT, "forced") for _ in range(2)]
    assert combine(same[0], same[1], forced=True) == "split"


def test_the_preference_judge_sends_no_reference(client: ModelClient) -> None:
    # The reference's $2,500 decides the anchored verdict; without it the key-fact judge has
    # only the question's facts, which neither answer settles.
    assert _judge(client, RIGHT, WRONG, "reference-anchored") == "A"
    before = len(client.ledger)
    assert _judge(client, RIGHT, WRONG, "preference") == "tie"
    assert len(client.ledger) == before + 1


def test_keyfacts_verdicts_favour_the_correct_answer() -> None:
    assert keyfacts_verdict(True, False) == "A"
    assert keyfacts_verdict(False, True) == "B"
    assert keyfacts_verdict(True, True) == keyfacts_verdict(False, False) == "tie"
    with pytest.raises(ValueError, match="calls no judge model"):
        judge_once(None, JudgeRequest(QUESTION, REFERENCE, RIGHT, WRONG),  # type: ignore[arg-type]
                   protocol="keyfacts", model="m", stage="judge.forward")
