"""Running one GANDR item: retrieve once, run the system k times with seeds 0..k-1, grade
every repeat, and judge every pair of repeats for Stable & Correct@k."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from pytest_legalbench.gandr.baselines import RUNNERS, Generator
from pytest_legalbench.gandr.citations import grounding, normalised_grounding
from pytest_legalbench.gandr.judging import (
    Correctness,
    judge_correctness,
    judge_equivalence,
    stable_and_correct,
)
from pytest_legalbench.gandr.orchestrator import Outcome, run_gandr
from pytest_legalbench.gandr.passages import Passage, PassageIndex, node_passages
from pytest_legalbench.gandr.record import GandrRecord, Repeat
from pytest_legalbench.gandr.roles import ModelRoles
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.systems import GANDR, baseline_of
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.pending_calls import independent
from pytest_legalbench.modes.base import ModeUnavailable
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.vectors.cross_encoder import CrossEncoderUnavailable, Reranker


class GandrRunner:
    """GANDR items on one profile: the passage index is built once and shared by every
    system, seed and repeat, so repeats differ by the model's sampling alone."""

    def __init__(self, indexes: Sequence[DocumentIndex], client: ModelClient, *,
                 answer_model: str, judge_model: str, repeats: int,
                 settings: GandrSettings | None = None, cross_encoder: str | None = None) -> None:
        if repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {repeats}")
        self.settings = settings or GandrSettings()
        self.passages = PassageIndex(node_passages(indexes, self.settings.passage_chars))
        self.client = client
        self.answer_model, self.judge_model = answer_model, judge_model
        self.repeats = repeats
        self.cross_encoder = cross_encoder

    def retrieve(self, system: str, question: str) -> tuple[Passage, ...]:
        """The passages ``system`` answers from: BM25 top k, or for B3 the re-ranked pool."""
        if baseline_of(system) != "b3":
            return self.passages.top(question, self.settings.top_k)
        try:
            reranker = Reranker.load(self.cross_encoder)
        except CrossEncoderUnavailable as error:
            raise ModeUnavailable(system, error.reason) from None
        pool = self.passages.top(question, self.settings.b3_pool)
        scores = reranker.scores(question, [p.text for p in pool])
        order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))
        return tuple(pool[i] for i in order[:self.settings.b3_keep])

    def run(self, question: Question, system: str,
            passages: Sequence[Passage] | None = None) -> GandrRecord:
        """Answer ``question`` with ``system`` k times, then grade and compare the answers
        (``passages``: the system's retrieval, when already done)."""
        if passages is None:
            passages = self.retrieve(system, question.question)
        ids = [p.passage_id for p in passages]
        # The seeded repeats, and then the pairs they are compared in, are independent of
        # one another: a batch run sends each round of them in one batch.
        repeats = independent([functools.partial(self._repeat, system, question, passages,
                                                 ids, seed) for seed in range(self.repeats)])
        seen = len(self.client.ledger)
        compared = list(combinations(range(len(repeats)), 2))
        verdicts = independent([functools.partial(
            judge_equivalence, self.client, model=self.judge_model,
            question=question.question, answer_a=repeats[a].answer,
            answer_b=repeats[b].answer, max_tokens=self.settings.judge_max_tokens,
            question_id=question.id) for a, b in compared])
        pairs = tuple((a, b, verdict) for (a, b), verdict in zip(compared, verdicts, strict=True))
        return GandrRecord(
            question_id=question.id, kind=question.kind, practice_area=question.practice_area,
            system=system, question=question.question, reference=question.reference,
            passages=tuple((p.passage_id, p.text) for p in passages), repeats=tuple(repeats),
            equivalence=pairs,
            stable_correct=stable_and_correct([r.strict for r in repeats],
                                              [verdict for _, _, verdict in pairs]),
            judge_calls=tuple(self.client.ledger.calls[seen:]))

    def _repeat(self, system: str, question: Question, passages: Sequence[Passage],
                ids: Sequence[str], seed: int) -> Repeat:
        """One seeded repeat: the system's answer, graded."""
        seen = len(self.client.ledger)
        outcome = self._answer(system, question, passages, seed)
        grade = self._grade(question, outcome.answer)
        calls = self.client.ledger.calls[seen:]  # the answer's calls, then its grade's
        return Repeat(
            seed=seed, answer=outcome.answer, passed=outcome.passed, rounds=outcome.rounds,
            grounded=grounding(outcome.answer, ids).grounded,
            normalised_grounded=normalised_grounding(outcome.answer, ids).grounded,
            score=grade.score, judged=grade.judged, rationale=grade.rationale,
            audit_labels=_label_mix(outcome), trace=outcome.trace, calls=tuple(calls))

    def _answer(self, system: str, question: Question, passages: Sequence[Passage],
                seed: int) -> Outcome:
        baseline = baseline_of(system)
        if baseline is None:
            roles = ModelRoles(self.client, self.answer_model, self.settings,
                               question_id=question.id, stage=GANDR)
            return run_gandr(roles, question.question, passages, self.settings, seed)
        if baseline not in RUNNERS:
            raise ModeUnavailable(system, f"no baseline called {baseline!r}")
        generate = Generator(self.client, self.answer_model, self.settings, seed=seed,
                             question_id=question.id, stage=baseline)
        return RUNNERS[baseline](generate, question.question, passages)

    def _grade(self, question: Question, answer: str) -> Correctness:
        if question.reference is None:
            return Correctness(None, None, "none", None,
                               "no reference answer: correctness is not graded")
        return judge_correctness(self.client, model=self.judge_model,
                                 question=question.question, reference=question.reference,
                                 answer=answer, max_tokens=self.settings.judge_max_tokens,
                                 question_id=question.id)


def _label_mix(outcome: Outcome) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for entry in outcome.trace:
        audit = entry.get("audit")
        if isinstance(audit, dict):
            counts.update({str(k): int(v) for k, v in audit["labels"].items()})
    return dict(counts)
