"""One GANDR item end to end on the sample lease, through the reference backend: k seeded
repeats, grades, pairwise equivalence, and B3's re-ranked retrieval with a stand-in scorer."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

import pytest

from pytest_legalbench.gandr.runner import GandrRunner
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.ingest.questions import Evidence, Question
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.modes.base import ModeUnavailable
from pytest_legalbench.vectors import cross_encoder as rerank
from tests.support.modes_samples import lease_corpus, reference_client

QUESTION = Question(
    id="lease-rent", question="What Monthly Rent does the Lessee pay for the Equipment?",
    reference="$39,000 a month from January 1, 2025 (it was $42,500).", kind="precedence",
    documents=("lease", "lease-amendment-1"),
    evidence=(Evidence("lease-amendment-1", "the Monthly Rent is $39,000"),),
    must_contain=("39,000",), difficulty="easy", practice_area="leasing")


@pytest.fixture(scope="module")
def client() -> Iterator[ModelClient]:
    with reference_client() as model_client:
        yield model_client


def _runner(client: ModelClient, **settings: int) -> GandrRunner:
    return GandrRunner(lease_corpus().indexes, client, answer_model="m", judge_model="j",
                       repeats=3, settings=GandrSettings(passage_chars=300, **settings),
                       cross_encoder=None)


def test_an_item_runs_k_seeded_repeats_and_judges_every_pair(client: ModelClient) -> None:
    record = _runner(client).run(QUESTION, "gandr")
    assert [r.seed for r in record.repeats] == [0, 1, 2]
    assert [(a, b) for a, b, _ in record.equivalence] == [(0, 1), (0, 2), (1, 2)]
    assert len(record.passages) == GandrSettings().top_k
    assert all(r.passed is not None and r.trace for r in record.repeats)
    assert all(r.score in (1, 2, 3, 4, 5) for r in record.repeats)
    stages = {c.stage for r in record.repeats for c in r.calls}
    assert stages == {"gandr.draft", "gandr.audit", "gandr.rubric", "gandr.critic",
                      "judge.correctness"}
    assert {c.stage for c in record.judge_calls} == {"judge.equivalence"}
    assert len(record.judge_calls) == 3


def test_a_baseline_records_its_steps_and_no_commit_rule(client: ModelClient) -> None:
    record = _runner(client).run(QUESTION, "gandr:b4")
    assert all(r.passed is None and r.audit_labels == {} for r in record.repeats)
    assert [step["step"] for step in record.first.trace] == ["research", "write"]


def test_a_question_without_a_reference_is_not_graded(client: ModelClient) -> None:
    unreferenced = dataclasses.replace(QUESTION, reference=None)
    record = _runner(client).run(unreferenced, "gandr:b1")
    assert all(r.score is None and r.strict is None for r in record.repeats)
    assert record.stable_correct is None


def test_b3_needs_a_cross_encoder(client: ModelClient) -> None:
    with pytest.raises(ModeUnavailable, match="no cross-encoder is configured"):
        _runner(client).retrieve("gandr:b3", QUESTION.question)


class _Reversed:
    """Stands in for a cross-encoder: prefers the passages BM25 ranked lowest."""

    def scores(self, question: str, texts: Sequence[str]) -> list[float]:
        return [float(i) for i in range(len(texts))]


def test_b3_reranks_the_bm25_pool_and_keeps_the_best(client: ModelClient,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rerank.Reranker, "load",
                        classmethod(lambda cls, configured: _Reversed()))
    runner = _runner(client, b3_pool=6, b3_keep=3)
    pool = runner.passages.top(QUESTION.question, 6)
    assert runner.retrieve("gandr:b3", QUESTION.question) == tuple(reversed(pool[-3:]))
    record = runner.run(QUESTION, "gandr:b3")
    assert [p for p, _ in record.passages] == [p.passage_id for p in reversed(pool[-3:])]
