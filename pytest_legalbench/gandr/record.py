"""The record of one GANDR item (a question under one system): its k seeded repeats, their
grades, the pairwise equivalence judgments and the audit trace. Written as plain builtins
through ``files.record_json``, so the record travels from xdist workers as a
``user_property`` untouched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_legalbench.llm.ledger import Call


@dataclass(frozen=True)
class Repeat:
    """One seeded run of a system on a question, and how it was graded."""

    seed: int
    answer: str
    passed: bool | None
    rounds: int
    grounded: bool
    normalised_grounded: bool
    score: int | None
    judged: int | None
    rationale: str
    audit_labels: Mapping[str, int]
    """Claim labels over every audited round (empty for the baselines, which are not
    audited)."""
    trace: tuple[Mapping[str, Any], ...]
    calls: tuple[Call, ...]
    """The system's calls and the correctness judge's call on this repeat."""

    @property
    def lenient(self) -> bool | None:
        """Score at least 4; None when the judge gave no score."""
        return None if self.score is None else self.score >= 4

    @property
    def strict(self) -> bool | None:
        """Lenient and grounded."""
        return None if self.lenient is None else self.lenient and self.grounded

    @property
    def normalised_strict(self) -> bool | None:
        """Lenient and grounded under citation-form normalisation."""
        return None if self.lenient is None else self.lenient and self.normalised_grounded


@dataclass(frozen=True)
class GandrRecord:
    """One question under one GANDR system."""

    question_id: str
    kind: str
    practice_area: str
    system: str
    question: str
    reference: str | None
    passages: tuple[tuple[str, str], ...]
    """The retrieved passages as (id, text): the only valid citations, and what annotators
    check claims against."""
    repeats: tuple[Repeat, ...]
    equivalence: tuple[tuple[int, int, bool | None], ...]
    """Seed pairs and the judge's verdict on them (None: no conforming verdict)."""
    stable_correct: bool | None
    judge_calls: tuple[Call, ...]
    """The equivalence judgments (each repeat's grade is among its own calls)."""

    @property
    def passage_ids(self) -> tuple[str, ...]:
        """The ids a citation may use."""
        return tuple(passage_id for passage_id, _ in self.passages)

    @property
    def first(self) -> Repeat:
        """The seed-0 repeat: the one accuracy and the paired tests read."""
        return self.repeats[0]

    def problems(self) -> tuple[str, ...]:
        """What the item failed to produce; () when every repeat answered and every pair of
        repeats was judged."""
        found = [f"repeat {r.seed} gave an empty answer" for r in self.repeats if not r.answer]
        k = len(self.repeats)
        if len(self.equivalence) != k * (k - 1) // 2:
            found.append(f"{len(self.equivalence)} equivalence judgments for {k} repeats, "
                         f"expected {k * (k - 1) // 2}")
        return tuple(found)


def trace_lines(record: GandrRecord) -> list[dict[str, object]]:
    """The record's audit trace as JSON Lines entries: one per round or step, each naming its
    item, system and seed."""
    lines: list[dict[str, object]] = []
    for repeat in record.repeats:
        for entry in repeat.trace:
            lines.append({"question_id": record.question_id, "system": record.system,
                          "seed": repeat.seed, **entry})
    return lines


def all_calls(records: Sequence[GandrRecord]) -> list[Call]:
    """Every model call of ``records``: generation, tools, Critic and judges."""
    return [call for record in records for repeat in record.repeats for call in repeat.calls] + \
        [call for record in records for call in record.judge_calls]
