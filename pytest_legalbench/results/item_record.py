"""The record of one benchmark item (a question under one mode), as plain builtins.

A record travels from the process that ran the item to the one that summarises the session as
a ``user_properties``
envelope (``run.protocol``; so JUnit XML carries it and xdist moves it with no code of ours), and
into ``results.json``. It therefore holds only JSON types; ``ItemRecord`` is its typed view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.results.retrieved import ProvisionSpan, QuoteCheck

#: Bumped when a field changes meaning; ``results.json`` carries it.
RECORD_FORMAT = 1


@dataclass(frozen=True)
class KeyFacts:
    """The model-free key-fact score of one answer."""

    found: tuple[str, ...]
    missing: tuple[str, ...]
    declined: bool
    correct: bool

    def to_dict(self) -> dict[str, object]:
        """The score as plain builtins."""
        return {"found": list(self.found), "missing": list(self.missing),
                "declined": self.declined, "correct": self.correct}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KeyFacts:
        """Read a score written by ``to_dict``."""
        return cls(tuple(data["found"]), tuple(data["missing"]), bool(data["declined"]),
                   bool(data["correct"]))


@dataclass(frozen=True)
class ItemRecord:
    """Everything one item measured."""

    question_id: str
    kind: str
    practice_area: str
    difficulty: str
    mode: str
    """The resolved mode (``navembed:hybrid``), or ``inject`` for an inject-only run."""
    question: str
    reference: str | None
    judge: str
    """The protocol that judged it: reference-anchored, preference, forced or keyfacts."""
    inject_answer: str
    mode_answer: str | None
    """None in an inject-only run (the baseline arm alone)."""
    raw_forward: str | None
    """The judge's verdict with inject as answer A: "A", "B", "tie", or None (unparseable)."""
    raw_reverse: str | None
    """The judge's verdict with the mode as answer A."""
    verdict: str | None
    """One of ``pairing.OUTCOMES``; None when nothing was judged (an inject-only run)."""
    keyfacts_inject: KeyFacts
    keyfacts_mode: KeyFacts | None
    evidence_recall: float | None
    node_ids: tuple[str, ...]
    payload_tokens: int
    scan_tokens: int
    inject_calls: tuple[Call, ...]
    """The inject arm's answering call(s), shared by every mode paired with this question."""
    mode_calls: tuple[Call, ...]
    """The mode's retrieval and answering calls."""
    judge_calls: tuple[Call, ...]
    provisions: tuple[ProvisionSpan, ...] = ()
    """Where each provision the answer saw lies (the mode's; inject's whole documents in an
    inject-only run), in the mode's order. Empty in records written before it was kept."""
    evidence: tuple[QuoteCheck, ...] = ()
    """Each evidence quote of the question, found or missed in those provisions."""

    @property
    def out_of_scope(self) -> bool:
        """Whether this is a control question (its answer is in no document)."""
        return self.kind == "out_of_scope"

    def problems(self) -> tuple[str, ...]:
        """What the item failed to produce; () when both arms answered and were scored."""
        found = []
        if not self.inject_answer:
            found.append("inject gave an empty answer")
        if self.mode != "inject":
            if not self.mode_answer:
                found.append(f"{self.mode} gave no answer")
            if self.verdict is None:
                found.append("the pair was not judged")
            if self.keyfacts_mode is None:
                found.append(f"{self.mode}'s answer has no key-fact score")
        return tuple(found)

    def to_dict(self) -> dict[str, object]:
        """The record as JSON-safe builtins."""
        data: dict[str, object] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, KeyFacts):
                value = value.to_dict()
            elif item.name.endswith("_calls") or item.name in _NESTED:
                value = [entry.to_dict() for entry in value]
            elif isinstance(value, tuple):
                value = list(value)
            data[item.name] = value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ItemRecord:
        """Read a record written by ``to_dict`` (after a trip through JSON or xdist)."""
        values: dict[str, Any] = {}
        for item in fields(cls):
            if item.name in _NESTED:
                # Absent from records of before they were kept: the field's default, ().
                values[item.name] = tuple(_NESTED[item.name](entry)
                                          for entry in data.get(item.name, ()))
                continue
            value = data[item.name]
            if item.name.startswith("keyfacts_"):
                value = None if value is None else KeyFacts.from_dict(value)
            elif item.name.endswith("_calls"):
                value = tuple(Call.from_dict(call) for call in value)
            elif item.name == "node_ids":
                value = tuple(value)
            values[item.name] = value
        return cls(**values)


#: Record fields holding tuples of value objects, and how each entry is read back.
_NESTED: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "provisions": ProvisionSpan.from_dict, "evidence": QuoteCheck.from_dict}
