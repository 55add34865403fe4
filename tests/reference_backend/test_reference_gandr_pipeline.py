"""GANDR and its baselines run end to end against the embedded reference backend over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_legalbench.gandr.baselines import RUNNERS, Generator
from pytest_legalbench.gandr.citations import grounding
from pytest_legalbench.gandr.creac import protocol_check
from pytest_legalbench.gandr.judging import judge_correctness, judge_equivalence
from pytest_legalbench.gandr.orchestrator import Outcome, run_gandr
from pytest_legalbench.gandr.passages import Passage
from pytest_legalbench.gandr.reports import ClaimAudit, CriticVerdict, RubricScores
from pytest_legalbench.gandr.roles import ModelRoles
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.reference_backend import BACKEND_NOTE
from tests.support.modes_samples import reference_client

PASSAGES = (
    Passage("lease:2.1", "lease", "Section 2.1",
            "The Tenant shall pay rent of $4,500 per month on the first day of each month. "
            "Late rent bears interest at 5% per annum."),
    Passage("lease:3.1", "lease", "Section 3.1",
            "The Landlord shall keep the roof and structure of the Premises in good repair."),
    Passage("amend:1", "amend", "Section 1",
            "With effect from 1 July 2021 the monthly rent payable by the Tenant under Section "
            "2.1 is increased to $4,800 per month."),
    Passage("lease:2.2", "lease", "Section 2.2",
            "The Tenant shall pay the monthly rent by bank transfer to the Landlord's account."),
    Passage("lease:9.2", "lease", "Section 9.2",
            "Either party may terminate this Lease on ninety days written notice."),
)
IDS = [p.passage_id for p in PASSAGES]
QUESTION = "What monthly rent must the Tenant pay, and how?"
SETTINGS = GandrSettings()


@pytest.fixture(scope="module")
def client() -> Iterator[ModelClient]:
    with reference_client() as model_client:
        yield model_client


def gandr(client: ModelClient, seed: int | None) -> Outcome:
    return run_gandr(ModelRoles(client, "reference", SETTINGS), QUESTION, PASSAGES, SETTINGS,
                     seed)


def test_gandrs_first_memo_passes_structure_and_grounding(client: ModelClient) -> None:
    outcome = gandr(client, None)
    first = outcome.trace[0]
    draft = str(first["draft"])
    assert protocol_check(draft).passed and grounding(draft, IDS).grounded
    assert outcome.passed is True and outcome.rounds == 1 and outcome.answer == draft
    assert draft.endswith(BACKEND_NOTE)


def test_the_reports_parse_into_gandrs_objects(client: ModelClient) -> None:
    first = gandr(client, None).trace[0]
    audit, rubric, critic = first["audit"], first["rubric"], first["critic"]
    assert isinstance(audit, dict) and isinstance(rubric, dict) and isinstance(critic, dict)
    parsed = ClaimAudit.from_tool(audit)
    assert parsed.claims and parsed.verified_share == 1.0
    scores = RubricScores.from_tool(rubric["scores"])
    assert 1 <= scores.minimum <= scores.mean <= 5
    verdict = CriticVerdict.from_tool(critic)
    assert verdict.decision in ("PASS", "REWRITE")
    assert (verdict.decision == "PASS") == (not verdict.directives)


@pytest.mark.parametrize("name", sorted(set(RUNNERS) - {"b3"}))
def test_each_baseline_gives_a_grounded_answer(client: ModelClient, name: str) -> None:
    generate = Generator(client, "reference", SETTINGS, seed=None, question_id="q1",
                         stage=f"gandr:{name}")
    outcome = RUNNERS[name](generate, QUESTION, PASSAGES)
    assert outcome.passed is None and outcome.trace
    assert grounding(outcome.answer, IDS).grounded, outcome.answer
    assert all(str(step["output"]).endswith(BACKEND_NOTE) for step in outcome.trace)


def test_seeded_runs_repeat_exactly(client: ModelClient) -> None:
    for seed in (0, 1):
        first, again = gandr(client, seed), gandr(client, seed)
        assert first.answer == again.answer and first.trace == again.trace
        generate = [Generator(client, "reference", SETTINGS, seed=seed, question_id=None,
                              stage="gandr:b5") for _ in range(2)]
        assert RUNNERS["b5"](generate[0], QUESTION, PASSAGES).answer == \
            RUNNERS["b5"](generate[1], QUESTION, PASSAGES).answer


def test_the_judges_grade_and_compare_through_the_server(client: ModelClient) -> None:
    answer = gandr(client, None).answer
    graded = judge_correctness(client, model="reference", question=QUESTION,
                               reference="$4,800", answer=answer, max_tokens=512)
    assert graded.kind == "numeric" and graded.score is not None
    assert graded.candidate_figure in ("$4,800", "$4,500")
    refused = judge_correctness(client, model="reference", question=QUESTION,
                                reference="Yes", answer="The provided documents do not answer "
                                "this question.", max_tokens=512)
    assert refused.score == 1 and refused.rationale.endswith(BACKEND_NOTE)
    assert judge_equivalence(client, model="reference", question=QUESTION, answer_a=answer,
                             answer_b=answer, max_tokens=512) is True
