"""Running one benchmark item: the mode's answer, inject's answer, the paired judge, scores.

A ``BenchmarkRunner`` lives for a session (one per xdist worker). It builds each mode once,
answers each question with inject once (every mode paired with that question reuses the
answer), and records every model call into cassettes: inject's answer into the question's own
cassette, the mode's retrieval and answer and the judge's calls into the item's. Items of the
GANDR systems go to ``gandr.runner.GandrRunner`` (built on first use) and record every call of
their k repeats into the item's cassette.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_legalbench.defaults import DEFAULT_REPEATS
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.systems import is_system
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.judging.judge import JudgeRequest, judge_once, keyfacts_verdict, protocol_for
from pytest_legalbench.judging.keyfacts import score_answer
from pytest_legalbench.judging.pairing import combine
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable, Retrieval
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.results.evaluation import Scorer
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.run.items import Case

if TYPE_CHECKING:
    from pytest_legalbench.gandr.runner import GandrRunner

INJECT = "inject"


@dataclass(frozen=True)
class CassettePlan:
    """Where an item's calls are recorded and how."""

    root: Path
    backend: str
    record_mode: str


@dataclass(frozen=True)
class RunSettings:
    """What every item of a session shares."""

    answer_model: str
    judge_model: str
    judge: str
    mode_settings: ModeSettings = field(default_factory=ModeSettings)
    repeats: int = DEFAULT_REPEATS
    """Seeded repeats per GANDR item."""
    gandr: GandrSettings = field(default_factory=GandrSettings)


@dataclass(frozen=True)
class _Answer:
    text: str
    calls: tuple[Call, ...]
    retrieval: Retrieval


class BenchmarkRunner:
    """Runs items on one corpus through one client; modes and inject answers are reused."""

    def __init__(self, documents: Sequence[Document], indexes: Sequence[DocumentIndex],
                 client: ModelClient, settings: RunSettings, *,
                 cassettes: CassettePlan | None = None, cache_dir: Path | None = None) -> None:
        self.corpus = Corpus(tuple(documents), tuple(indexes), cache_dir)
        self.client = client
        self.settings = settings
        self.cassettes = cassettes
        self.scorer = Scorer({d.doc_id: d.text for d in documents}, indexes)
        self._indexes = tuple(indexes)
        self._modes: dict[str, Mode | ModeUnavailable] = {}
        self._inject: dict[str, _Answer] = {}
        self._gandr: GandrRunner | None = None

    def mode(self, name: str) -> Mode:
        """The mode called ``name``, built on first use; ModeUnavailable when it cannot run."""
        from pytest_legalbench.modes.registry import build_mode

        if name not in self._modes:
            try:
                self._modes[name] = build_mode(name, self.corpus, self.settings.mode_settings,
                                               self.client)
            except ModeUnavailable as error:
                self._modes[name] = error
        built = self._modes[name]
        if isinstance(built, ModeUnavailable):
            raise built
        return built

    def gandr(self) -> GandrRunner:
        """The GANDR runner of this session, its passage index built on first use."""
        if self._gandr is None:
            from pytest_legalbench.gandr.runner import GandrRunner

            settings = self.settings
            self._gandr = GandrRunner(
                self._indexes, self.client, answer_model=settings.answer_model,
                judge_model=settings.judge_model, repeats=settings.repeats,
                settings=settings.gandr, cross_encoder=settings.mode_settings.cross_encoder)
        return self._gandr

    def run(self, case: Case, group: str = "benchmark") -> ItemRecord | GandrRecord:
        """Answer, judge and score one item; ``group`` (the benchmark module's name) keeps
        the cassettes of different modules apart."""
        question = case.question
        if is_system(case.mode):
            runner = self.gandr()
            # Retrieval calls no model: a system that cannot run is skipped before any
            # cassette is opened.
            passages = runner.retrieve(case.mode, question.question)
            with self._cassette(group, case.id):
                return runner.run(question, case.mode, passages)
        inject = self.inject_answer(question, group)
        with self._cassette(group, case.id):
            inject_keys = self._keyfacts(question, inject.text)
            if case.mode == INJECT:
                return self._record(case, inject, inject_keys, None, None, None, None, ())
            mode = self._answer(case.mode, question)
            protocol = protocol_for(self.settings.judge, question.reference)
            mode_keys = self._keyfacts(question, mode.text)
            seen = len(self.client.ledger)
            forward: str | None
            reverse: str | None
            if protocol == "keyfacts":
                forward = keyfacts_verdict(inject_keys.correct, mode_keys.correct)
                reverse = keyfacts_verdict(mode_keys.correct, inject_keys.correct)
            else:
                forward, reverse = (
                    judge_once(self.client, JudgeRequest(question.question, question.reference,
                                                         a, b),
                               protocol=protocol, model=self.settings.judge_model,
                               stage=f"judge.{direction}", question_id=question.id)
                    for direction, a, b in (("forward", inject.text, mode.text),
                                            ("reverse", mode.text, inject.text)))
            judged = self.client.ledger.calls[seen:]
            verdict = combine(forward, reverse, forced=protocol == "forced")
            return self._record(case, inject, inject_keys, mode, mode_keys,
                                (forward, reverse, verdict), protocol, judged)

    def inject_answer(self, question: Question, group: str = "benchmark") -> _Answer:
        """Inject's answer to ``question``, answered once per session in its own cassette
        (shared by every item of the question, whichever worker or mode needs it first)."""
        if question.id not in self._inject:
            with self._cassette(f"{group}-{INJECT}", question.id):
                self._inject[question.id] = self._answer(INJECT, question)
        return self._inject[question.id]

    def _answer(self, name: str, question: Question) -> _Answer:
        from pytest_legalbench.run.answering import answer

        mode = self.mode(name)
        seen = len(self.client.ledger)
        retrieval = mode.retrieve(question.question, question_id=question.id)
        completion = answer(retrieval, question.question, self.client,
                            self.settings.answer_model, question_id=question.id,
                            inject_context=getattr(mode, "context", None))
        return _Answer(completion.text, self.client.ledger.calls[seen:], retrieval)

    def _keyfacts(self, question: Question, text: str) -> KeyFacts:
        score = score_answer(text, question.must_contain, out_of_scope=question.out_of_scope,
                             refusal=REFUSAL)
        return KeyFacts(score.found, score.missing, score.declined, score.correct)

    def _record(self, case: Case, inject: _Answer, inject_keys: KeyFacts,
                mode: _Answer | None, mode_keys: KeyFacts | None,
                verdicts: tuple[str | None, str | None, str] | None, protocol: str | None,
                judged: Sequence[Call]) -> ItemRecord:
        question = case.question
        arm = mode or inject
        retrieval = arm.retrieval
        scored = self.scorer.score(question, retrieval.mode, retrieval.provisions,
                                   retrieval.payload_tokens, retrieval.scan_tokens)
        forward, reverse, verdict = verdicts or (None, None, None)
        return ItemRecord(
            question_id=question.id, kind=question.kind, practice_area=question.practice_area,
            difficulty=question.difficulty, mode=retrieval.mode, question=question.question,
            reference=question.reference, judge=protocol or "keyfacts",
            inject_answer=inject.text, mode_answer=None if mode is None else mode.text,
            raw_forward=forward, raw_reverse=reverse, verdict=verdict,
            keyfacts_inject=inject_keys, keyfacts_mode=mode_keys,
            evidence_recall=scored.recall, node_ids=scored.node_ids,
            payload_tokens=retrieval.payload_tokens, scan_tokens=retrieval.scan_tokens,
            inject_calls=inject.calls, mode_calls=() if mode is None else mode.calls,
            judge_calls=tuple(judged))

    @contextlib.contextmanager
    def _cassette(self, group: str, name: str) -> Iterator[None]:
        if self.cassettes is None:
            yield
            return
        from pytest_legalbench.llm.cassettes import cassette_file, use_cassette

        plan = self.cassettes
        path = cassette_file(plan.root, plan.backend, group, name)
        with use_cassette(path, record_mode=plan.record_mode, backend=plan.backend):
            yield
