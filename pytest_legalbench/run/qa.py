"""The QA product's items: the mode's answer, inject's answer, the paired judge, scores.

A ``QaRunner`` lives for a session (one per xdist worker). It builds each mode once through
the session's mode registry, answers each question with the baseline (inject) once (every
mode paired with that question reuses the answer), and records every model call into
cassettes: the baseline's answer into the question's own cassette, the mode's retrieval and
answer and the judge's calls into the item's. A mode that cannot be built, or a user's
retriever that fails, fails every item of that mode with the same error.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_legalbench.gandr.systems import is_system
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question
from pytest_legalbench.judging.judge import PairedVerdict, judge_pair
from pytest_legalbench.judging.keyfacts import score_answer
from pytest_legalbench.llm.cassettes import CassettePlan, recorded
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.pending_calls import both
from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable, Retrieval
from pytest_legalbench.modes.inject_scope import ScopedInject, set_name
from pytest_legalbench.modes.registry import BASELINE, ModeRegistry, default_registry
from pytest_legalbench.modes.retriever_failures import RetrieverFailed
from pytest_legalbench.modes.traits import ModeTraits
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.results.evaluation import Scorer
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.retrieved import provision_spans, unlocated_passages
from pytest_legalbench.run.answering import respond
from pytest_legalbench.run.items import Case


@dataclass(frozen=True)
class QaSettings:
    """What every QA item of a session shares."""

    answer_model: str
    judge_model: str
    judge: str
    mode_settings: ModeSettings = field(default_factory=ModeSettings)


@dataclass(frozen=True)
class _Answer:
    text: str
    calls: tuple[Call, ...]
    retrieval: Retrieval
    traits: ModeTraits


@dataclass(frozen=True)
class _Paired:
    """The mode's side of a paired item: its answer, its key facts and the judgement."""

    answer: _Answer
    keys: KeyFacts
    judged: PairedVerdict
    judge_calls: tuple[Call, ...]


class QaRunner:
    """Runs QA items on one corpus through one client; modes and inject answers are reused."""

    product = "qa"

    def __init__(self, documents: Sequence[Document], indexes: Sequence[DocumentIndex],
                 client: ModelClient, settings: QaSettings, *,
                 cassettes: CassettePlan | None = None, cache_dir: Path | None = None,
                 vector_record: Path | None = None, registry: ModeRegistry | None = None,
                 ) -> None:
        self.corpus = Corpus(tuple(documents), tuple(indexes), cache_dir,
                             vector_record=vector_record)
        self.client = client
        self.settings = settings
        self.cassettes = cassettes
        self.registry = registry if registry is not None else default_registry()
        """Where modes are built from: the built-in ones and those the session registered."""
        self.scorer = Scorer({d.doc_id: d.text for d in documents}, indexes)
        self._modes: dict[str, Mode | ModeUnavailable | RetrieverFailed] = {}
        self._inject: dict[str, _Answer] = {}
        self._scoped: ScopedInject | None = None

    def inject_mode(self, question: Question) -> Mode:
        """Inject as it answers ``question``: over the corpus, or over the question's
        transaction set when the run's inject scope says so (``modes.inject_scope``)."""
        if self._scoped is None:
            self._scoped = ScopedInject(self.corpus, self.settings.mode_settings)
        return self._scoped.mode_for(question.documents)

    def handles(self, mode: str) -> bool:
        """Whether ``mode`` is a retrieval mode (every mode that is not a GANDR system)."""
        return not is_system(mode)

    def mode(self, name: str) -> Mode:
        """The mode called ``name``, built on first use; ModeUnavailable when it cannot run,
        RetrieverFailed when a user's retriever could not be made."""
        if name not in self._modes:
            try:
                self._modes[name] = self.registry.build(name, self.corpus,
                                                        self.settings.mode_settings,
                                                        self.client)
            except (ModeUnavailable, RetrieverFailed) as error:
                self._modes[name] = error
        built = self._modes[name]
        if isinstance(built, ModeUnavailable | RetrieverFailed):
            raise built
        return built

    def run(self, case: Case, group: str = "benchmark") -> ItemRecord:
        """Answer, judge and score one item; ``group`` (the benchmark module's name) keeps
        the cassettes of different modules apart."""
        question = case.question
        with recorded(self.cassettes, group, case.id):
            if self.registry.traits(case.mode).baseline:
                inject = self.inject_answer(question, group)
                return self._record(question, inject, self._keyfacts(question, inject.text))
            # Neither answer reads the other, so a batch run sends both in one phase
            # (inject's is recorded into its own cassette, nested in the item's).
            inject, mode = both(functools.partial(self.inject_answer, question, group),
                                functools.partial(self._answer, case.mode, question))
            inject_keys = self._keyfacts(question, inject.text)
            mode_keys = self._keyfacts(question, mode.text)
            seen = len(self.client.ledger)
            judged = judge_pair(self.client, question.question, question.reference,
                                inject=inject.text, mode=mode.text,
                                inject_correct=inject_keys.correct,
                                mode_correct=mode_keys.correct, judge=self.settings.judge,
                                model=self.settings.judge_model, question_id=question.id)
            paired = _Paired(mode, mode_keys, judged, self.client.ledger.calls[seen:])
            return self._record(question, inject, inject_keys, paired)

    def inject_answer(self, question: Question, group: str = "benchmark") -> _Answer:
        """The baseline's answer to ``question``, answered once per session in its own
        cassette (shared by every item of the question, whichever worker or mode needs it
        first)."""
        if question.id not in self._inject:
            with recorded(self.cassettes, f"{group}-{BASELINE}", question.id):
                self._inject[question.id] = self._respond(self.inject_mode(question), question)
        return self._inject[question.id]

    def _answer(self, name: str, question: Question) -> _Answer:
        return self._respond(self.mode(name), question)

    def _respond(self, mode: Mode, question: Question) -> _Answer:
        seen = len(self.client.ledger)
        # A mode that answers as it navigates brings its answer; others are answered over
        # what they retrieved (the baseline over the whole corpus).
        retrieval, completion = respond(mode, question.question, self.client,
                                        self.settings.answer_model, question_id=question.id)
        return _Answer(completion.text, self.client.ledger.calls[seen:], retrieval,
                       mode.traits)

    def _keyfacts(self, question: Question, text: str) -> KeyFacts:
        score = score_answer(text, question.must_contain, out_of_scope=question.out_of_scope,
                             refusal=REFUSAL)
        return KeyFacts(score.found, score.missing, score.declined, score.correct)

    def _record(self, question: Question, inject: _Answer, inject_keys: KeyFacts,
                paired: _Paired | None = None) -> ItemRecord:
        answered = paired.answer if paired is not None else inject
        retrieval = answered.retrieval
        scored = self.scorer.score(question, retrieval.mode, retrieval.provisions,
                                   retrieval.payload_tokens, retrieval.scan_tokens)
        judged = paired.judged if paired is not None else None
        inject_scored = (scored if paired is None else self.scorer.score(
            question, BASELINE, inject.retrieval.provisions, inject.retrieval.payload_tokens))
        return ItemRecord(
            question_id=question.id, kind=question.kind, practice_area=question.practice_area,
            difficulty=question.difficulty, mode=retrieval.mode, question=question.question,
            reference=question.reference,
            judge=judged.protocol if judged is not None else "keyfacts",
            inject_answer=inject.text,
            mode_answer=paired.answer.text if paired is not None else None,
            raw_forward=judged.forward if judged is not None else None,
            raw_reverse=judged.reverse if judged is not None else None,
            verdict=judged.verdict if judged is not None else None,
            keyfacts_inject=inject_keys,
            keyfacts_mode=paired.keys if paired is not None else None,
            evidence_recall=scored.recall, node_ids=scored.node_ids,
            provisions=provision_spans(retrieval.provisions), evidence=scored.quotes,
            payload_tokens=retrieval.payload_tokens, scan_tokens=retrieval.scan_tokens,
            inject_calls=inject.calls,
            mode_calls=paired.answer.calls if paired is not None else (),
            judge_calls=paired.judge_calls if paired is not None else (),
            transaction_set=set_name(question.documents, self.corpus.documents),
            inject_scope=inject.retrieval.scope, mode_scope=retrieval.scope,
            inject_recall=inject_scored.recall,
            mode_traits=answered.traits, unlocated=unlocated_passages(retrieval.provisions),
            payload_cut=retrieval.cut)
