"""Scoring GANDR answers: the 1-5 correctness judge and the pairwise equivalence judge.

Both report through forced tools; an output that never conforms, or a score the reference's
kind does not allow, is "no score" (None), never a guess and never a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.gandr.correctness_rules import ALLOWED_SCORES, reference_kind, settle
from pytest_legalbench.gandr.prompting import correctness_system
from pytest_legalbench.gandr.tool_specs import correctness_tool, equivalence_tool
from pytest_legalbench.llm.call_types import Sampling, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.prompts import load_prompt

#: Judges grade at temperature 0: the same answer gets the same grade.
_JUDGE_SAMPLING = Sampling(temperature=0.0)


@dataclass(frozen=True)
class Correctness:
    """A correctness grade: the settled score (None: no score), what the judge said, why."""

    score: int | None
    judged: int | None
    kind: str
    candidate_figure: str | None
    rationale: str


def judge_correctness(client: ModelClient, *, model: str, question: str, reference: str,
                      answer: str, max_tokens: int, question_id: str | None = None,
                      stage: str = "judge.correctness") -> Correctness:
    """Grade ``answer`` 1-5 against ``reference`` under the rule for the reference's kind."""
    kind = reference_kind(reference)
    result = client.structured(
        stage=stage, model=model, question_id=question_id, max_tokens=max_tokens,
        system=[SystemBlock(correctness_system(kind))], tool=correctness_tool(ALLOWED_SCORES[kind]),
        messages=[{"role": "user", "content": load_prompt("gandr_correctness_user").render(
            question=question.strip(), reference=reference.strip(), answer=answer.strip())}],
        sampling=_JUDGE_SAMPLING)
    data = result.data or {}
    judged = data.get("score")
    judged = judged if isinstance(judged, int) and not isinstance(judged, bool) else None
    figure = data.get("candidate_figure")
    figure = figure if isinstance(figure, str) and figure.strip() else None
    rationale = data.get("rationale")
    return Correctness(
        score=settle(kind, judged, reference=reference, candidate_figure=figure),
        judged=judged, kind=kind, candidate_figure=figure,
        rationale=rationale if isinstance(rationale, str) else
        "no conforming output from the judge")


def judge_equivalence(client: ModelClient, *, model: str, question: str, answer_a: str,
                      answer_b: str, max_tokens: int, question_id: str | None = None,
                      stage: str = "judge.equivalence") -> bool | None:
    """Whether two answers reach the same conclusion; None when the output never conformed."""
    result = client.structured(
        stage=stage, model=model, question_id=question_id, max_tokens=max_tokens,
        system=[SystemBlock(load_prompt("gandr_equivalence_system").render().strip())],
        tool=equivalence_tool(),
        messages=[{"role": "user", "content": load_prompt("gandr_equivalence_user").render(
            question=question.strip(), answer_a=answer_a.strip(), answer_b=answer_b.strip())}],
        sampling=_JUDGE_SAMPLING)
    verdict = (result.data or {}).get("equivalent")
    return verdict if isinstance(verdict, bool) else None


def stable_and_correct(strict: Sequence[bool | None],
                       equivalent: Sequence[bool | None]) -> bool | None:
    """Stable & Correct@k of one item: every repeat strict-correct and every pair judged
    equivalent. An unscored repeat or pair leaves it undecided (None) unless something
    already failed."""
    if not strict:
        return None
    values = [*strict, *equivalent]
    if any(value is False for value in values):
        return False
    if any(value is None for value in values):
        return None
    return True
