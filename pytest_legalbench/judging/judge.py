"""The paired judge: two answers compared twice, with their positions swapped, and combined.

The verdict comes back through a forced tool, so it is either one of the allowed values or
nothing: an output that never conforms is recorded as None ("unscored"), never guessed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pytest_legalbench.defaults import JUDGES
from pytest_legalbench.judging.pairing import combine
from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.pending_calls import independent
from pytest_legalbench.llm.prompts import judge_user, load_prompt

#: The tools the verdicts come back through; the forced one has no tie.
VERDICT_TOOL = "record_verdict"
FORCED_VERDICT_TOOL = "record_forced_verdict"
JUDGE_MAX_TOKENS = 512


def verdict_tool(forced: bool) -> ToolSpec:
    """The forced tool a judge reports through."""
    choices = ["A", "B"] if forced else ["A", "B", "tie"]
    return ToolSpec(
        name=FORCED_VERDICT_TOOL if forced else VERDICT_TOOL,
        description="Record which answer is better" + ("" if forced else ", or a tie") + ".",
        input_schema={
            "type": "object",
            "properties": {"verdict": {"type": "string", "enum": choices},
                           "reason": {"type": "string"}},
            "required": ["verdict", "reason"],
        })


def protocol_for(judge: str, reference: str | None) -> str:
    """The protocol a question is judged under: without a reference, always preference."""
    if judge not in JUDGES:
        raise ValueError(f"unknown judge {judge!r}: choose one of {', '.join(JUDGES)}")
    if reference is None and judge in ("reference-anchored", "forced"):
        return "preference"
    return judge


@dataclass(frozen=True)
class JudgeRequest:
    """What one judging call compares."""

    question: str
    reference: str | None
    answer_a: str
    answer_b: str


def judge_once(client: ModelClient, request: JudgeRequest, *, protocol: str, model: str,
               stage: str, question_id: str | None = None) -> str | None:
    """One verdict ("A", "B", "tie") on ``request``, or None when it was unparseable."""
    if protocol == "keyfacts":
        raise ValueError("the keyfacts protocol calls no judge model")
    forced = protocol == "forced"
    system = load_prompt({"forced": "judge_forced_system",
                          "preference": "judge_preference_system"}.get(protocol, "judge_system"))
    reference = None if protocol == "preference" else request.reference
    result = client.structured(
        stage=stage, model=model, question_id=question_id, max_tokens=JUDGE_MAX_TOKENS,
        system=[SystemBlock(system.render())], tool=verdict_tool(forced),
        messages=[{"role": "user", "content": judge_user(
            request.question, request.answer_a, request.answer_b, reference)}])
    verdict = (result.data or {}).get("verdict")
    return verdict if isinstance(verdict, str) else None


def keyfacts_verdict(inject_correct: bool, mode_correct: bool) -> str:
    """The forward verdict the key-fact protocol gives: the correct answer wins."""
    if inject_correct == mode_correct:
        return "tie"
    return "A" if inject_correct else "B"


@dataclass(frozen=True)
class PairedVerdict:
    """The two position-swapped verdicts on a pair of answers and their combined outcome."""

    protocol: str
    forward: str | None
    """With inject's answer as A: "A", "B", "tie", or None (unparseable)."""
    reverse: str | None
    """With the mode's answer as A."""
    verdict: str
    """One of ``pairing.OUTCOMES``."""


def judge_pair(client: ModelClient, question: str, reference: str | None, *, inject: str,
               mode: str, inject_correct: bool, mode_correct: bool, judge: str, model: str,
               question_id: str | None = None) -> PairedVerdict:
    """Judge inject's answer against the mode's twice, positions swapped (key facts decide
    under the keyfacts protocol, with no model call)."""
    protocol = protocol_for(judge, reference)
    forward: str | None
    reverse: str | None
    if protocol == "keyfacts":
        forward = keyfacts_verdict(inject_correct, mode_correct)
        reverse = keyfacts_verdict(mode_correct, inject_correct)
    else:
        # Neither direction reads the other's verdict: a batch run sends both in one batch.
        forward, reverse = independent([
            functools.partial(judge_once, client, JudgeRequest(question, reference, a, b),
                              protocol=protocol, model=model, stage=f"judge.{direction}",
                              question_id=question_id)
            for direction, a, b in (("forward", inject, mode), ("reverse", mode, inject))])
    return PairedVerdict(protocol, forward, reverse,
                         combine(forward, reverse, forced=protocol == "forced"))
