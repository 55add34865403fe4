"""The record of one benchmark item (a question under one mode), as plain builtins.

A record travels from the process that ran the item to the one that summarises the session as
a ``user_properties``
envelope (``run.protocol``; so JUnit XML carries it and xdist moves it with no code of ours), and
into ``results.json`` and the run journal. There it is plain builtins, the JSON layout of
``ItemRecord`` written and read through ``files.record_json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_legalbench.files.record_json import OMIT_EMPTY, OMIT_NONE, derived
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.modes.payload_cut import PayloadCut
from pytest_legalbench.modes.traits import ModeTraits
from pytest_legalbench.results.error_attribution import attribute
from pytest_legalbench.results.retrieved import ProvisionSpan, QuoteCheck, UnlocatedPassage


@dataclass(frozen=True)
class KeyFacts:
    """The model-free key-fact score of one answer."""

    found: tuple[str, ...]
    missing: tuple[str, ...]
    declined: bool
    correct: bool


@derived(error_class="error_class", inject_error_class="inject_error_class")
@dataclass(frozen=True)
class ItemRecord:
    """Everything one item measured (written with each arm's error class)."""

    question_id: str
    kind: str
    practice_area: str
    difficulty: str
    mode: str
    """The resolved mode (``navembed:hybrid``), or the baseline's for a baseline-only run."""
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
    mode_traits: ModeTraits
    """What the mode showed the answering model and how its cost crosses over with the
    baseline (``modes.traits``): the results read these, never the mode's name."""
    provisions: tuple[ProvisionSpan, ...] = ()
    """Where each provision the answer saw lies (the mode's; inject's whole documents in an
    inject-only run), in the mode's order. Empty in records written before it was kept."""
    evidence: tuple[QuoteCheck, ...] = ()
    """Each evidence quote of the question, found or missed in those provisions."""
    unlocated: tuple[UnlocatedPassage, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Passages of a user's retriever that could not be found in their documents: shown to
    the answering model and counted in the payload, outside evidence recall."""
    payload_cut: PayloadCut | None = field(default=None, metadata=OMIT_NONE)
    """What a user's retrieval lost to the payload budget; None when nothing was cut."""

    transaction_set: str = ""
    """The transaction set(s) of the question's documents, joined by ``+``: the cluster the
    run's statistics group the question in. Empty in records written before it was kept
    (each question then is a cluster of its own)."""
    inject_scope: str = "corpus"
    """What inject's answer read: ``corpus`` (every document) or ``set`` (the question's
    transaction set; ``modes.inject_scope``)."""
    mode_scope: str = "corpus"
    """What the mode searched: ``corpus`` for every retrieval mode (the whole profile);
    inject's scope in an inject-only run."""
    inject_recall: float | None = None
    """Share of the evidence quotes in what inject read; None for a control, and in records
    written before it was kept."""

    @property
    def error_class(self) -> str:
        """The mode's answer classed (``results.error_attribution``): right, retrieval miss,
        reading miss or unscored; a control's declined or not."""
        facts = self.keyfacts_mode if self.mode_answer is not None else self.keyfacts_inject
        return attribute(None if facts is None else facts.correct, self.evidence_recall,
                         control=self.out_of_scope)

    @property
    def inject_error_class(self) -> str:
        """Inject's answer classed the same way, over what inject read."""
        return attribute(self.keyfacts_inject.correct, self.inject_recall,
                         control=self.out_of_scope)

    @property
    def baseline_only(self) -> bool:
        """Whether this is the baseline's own item (nothing paired with it or judged)."""
        return self.mode_traits.baseline

    @property
    def out_of_scope(self) -> bool:
        """Whether this is a control question (its answer is in no document)."""
        return self.kind == "out_of_scope"

    def problems(self) -> tuple[str, ...]:
        """What the item failed to produce; () when both arms answered and were scored."""
        found = []
        if not self.inject_answer:
            found.append("inject gave an empty answer")
        if not self.baseline_only:
            if not self.mode_answer:
                found.append(f"{self.mode} gave no answer")
            if self.verdict is None:
                found.append("the pair was not judged")
            if self.keyfacts_mode is None:
                found.append(f"{self.mode}'s answer has no key-fact score")
        return tuple(found)
