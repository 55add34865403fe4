"""The GANDR product's items: a question under one of the six systems, k seeded repeats, graded.

Retrieval calls no model, so a system that cannot run (B3 without a cross-encoder) is skipped
before any cassette is opened; every call of the k repeats and their grades is recorded into
the item's cassette.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_legalbench.defaults import DEFAULT_REPEATS
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.gandr.runner import GandrRunner
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.gandr.systems import is_system
from pytest_legalbench.llm.cassettes import CassettePlan, recorded
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.run.items import Case


@dataclass(frozen=True)
class GandrItemSettings:
    """What every GANDR item of a session shares."""

    answer_model: str
    judge_model: str
    repeats: int = DEFAULT_REPEATS
    """Seeded repeats per item (Stable & Correct@k)."""
    gandr: GandrSettings = field(default_factory=GandrSettings)
    cross_encoder: str | None = None
    """The cross-encoder folder B3 re-ranks with; B3 is skipped without one."""


class GandrItems:
    """Runs GANDR items; the passage index is built on the first item, not before."""

    product = "gandr"

    def __init__(self, indexes: Sequence[DocumentIndex], client: ModelClient,
                 settings: GandrItemSettings, *, cassettes: CassettePlan | None = None) -> None:
        self.indexes = tuple(indexes)
        self.client = client
        self.settings = settings
        self.cassettes = cassettes
        self._runner: GandrRunner | None = None

    def handles(self, mode: str) -> bool:
        """Whether ``mode`` names a GANDR system (``gandr``, ``gandr:b1`` ... ``gandr:b5``)."""
        return is_system(mode)

    def runner(self) -> GandrRunner:
        """The session's GANDR runner, its passage index built on first use."""
        if self._runner is None:
            settings = self.settings
            self._runner = GandrRunner(
                self.indexes, self.client, answer_model=settings.answer_model,
                judge_model=settings.judge_model, repeats=settings.repeats,
                settings=settings.gandr, cross_encoder=settings.cross_encoder)
        return self._runner

    def run(self, case: Case, group: str = "benchmark") -> GandrRecord:
        """Run the item's system k times on its question and grade every repeat."""
        runner = self.runner()
        passages = runner.retrieve(case.mode, case.question.question)
        with recorded(self.cassettes, group, case.id):
            return runner.run(case.question, case.mode, passages)
