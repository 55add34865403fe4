"""The benchmark result: item records summarised per mode, as typed value objects.

Document-bound questions and out-of-scope controls are always tallied apart. Every rate
carries an exact two-sided 95% Clopper-Pearson interval; forced-decision runs add the exact
binomial test of mode wins against inject wins. Costs use the price card; token footprints
count every input token attended (uncached, cache write and cache read). The summary is
written into results.json and report.md through ``files.record_json`` (its layout is these
classes) and read back from results.json the same way; ``summary_lines`` prints the same
values. The records are summarised by ``results.summarise``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated

from pytest_legalbench.files.record_json import OMIT_EMPTY, OMIT_NONE, KeyedBy, derived, renamed
from pytest_legalbench.judging.pairing import Tally
from pytest_legalbench.modes.traits import ModeTraits
from pytest_legalbench.results.batch_share import BatchShare
from pytest_legalbench.results.crossover import CrossoverVerdict
from pytest_legalbench.results.error_attribution import ArmErrors
from pytest_legalbench.results.item_errors import ItemError
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.run_statistics import RunStatistics
from pytest_legalbench.results.verdict_split import VerdictSplit


@dataclass(frozen=True)
class KeyFactRates:
    """Key-fact accuracy of the inject arm and, in a paired run, of the mode."""

    inject: ReportedRate
    mode: ReportedRate | None = field(default=None, metadata=OMIT_NONE)
    """Written only when the mode answered."""


@derived(reduction_total="reduction_total", reduction_answering="reduction_answering")
@dataclass(frozen=True)
class Footprint:
    """Input tokens attended by each arm: every call, and the answering calls alone; written
    with the reductions they give."""

    inject_total: int
    inject_answering: int
    mode_total: int
    mode_answering: int

    @property
    def reduction_total(self) -> float | None:
        """How many times smaller the mode's whole footprint is than inject's."""
        return _ratio(self.inject_total, self.mode_total)

    @property
    def reduction_answering(self) -> float | None:
        """How many times smaller the mode's answering context is than inject's."""
        return _ratio(self.inject_answering, self.mode_answering)


@dataclass(frozen=True)
class Costs:
    """Dollars spent by each arm and by the judge, under the price card (written as exact
    decimal strings)."""

    inject: Decimal
    mode: Decimal
    judge: Decimal


@dataclass(frozen=True)
class ArmScopes:
    """What each arm of a mode's items read: ``corpus`` (every document of the profile) or
    ``set`` (each question's transaction set); ``mixed`` when its items differ."""

    inject: str
    mode: str


@dataclass(frozen=True)
class ModeSummary:
    """One mode's result over its items."""

    mode: str
    items: int
    document_bound: Tally | None
    """Verdicts on document-bound questions; None when nothing was judged (as are the two
    splits and the controls', which results.json of schema version 1 left out)."""
    controls: Tally | None
    """Verdicts on out-of-scope controls; None when nothing was judged."""
    document_bound_split: VerdictSplit | None
    """The document-bound ties and wins split by key facts; None when nothing was judged."""
    controls_split: VerdictSplit | None
    """The controls' ties and wins split by key facts; None when nothing was judged."""
    judges: tuple[str, ...]
    """The protocols that judged the items."""
    keyfacts: KeyFactRates
    evidence_recall: float | None
    """Mean recall over document-bound questions, rounded; None without evidence."""
    footprint: Footprint
    cost: Costs = field(metadata=renamed("cost_usd"))
    payload_tokens_mean: float
    crossover: CrossoverVerdict | None
    """The caching break-even; None for the baseline alone and for a mode that made no
    calls."""
    mode_traits: ModeTraits
    """What the mode showed the answering model and how its cost crosses over."""
    payload_cuts: int = field(default=0, metadata=OMIT_EMPTY)
    """Items whose retrieval was cut to the payload budget (a user's retriever)."""
    passages_cut: int = field(default=0, metadata=OMIT_EMPTY)
    """Passages those cuts left out."""
    unlocated_passages: int = field(default=0, metadata=OMIT_EMPTY)
    """Passages shown to the answering model that could not be found in their documents."""
    scopes: ArmScopes | None = None
    """What inject and the mode read; None in summaries written before it was kept."""
    errors: ArmErrors | None = None
    """The mode's answers and inject's classed by error (``results.error_attribution``);
    None in summaries written before it was kept."""
    batch: BatchShare | None = field(default=None, metadata=OMIT_NONE)
    """How many of the mode's calls (inject's, the mode's and the judge's) went through the
    Message Batches API; None (not written) when none did."""


@dataclass(frozen=True)
class Summary:
    """The whole session's result: who produced it, the price card, and each mode."""

    backend: str
    models: Mapping[str, str]
    """Role (``answer``, ``judge``) to the model names that played it."""
    price_card: str
    modes: Annotated[tuple[ModeSummary, ...], KeyedBy("mode")]
    """In mode-name order; written as an object keyed by mode."""
    unreported: tuple[str, ...] = field(default=(),
                                        metadata=renamed("usage_not_reported", OMIT_EMPTY))
    """Usage fields some server left out of its responses (``Call.unreported``): their
    zeros were not measured, and the summary says so instead of showing them as counts."""
    statistics: RunStatistics | None = None
    """The arms compared on the same questions (``results.run_statistics``); None in
    summaries written before it was kept."""
    errors: tuple[ItemError, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Items that failed with an error (a retriever that raised, hung or returned something
    malformed), left out of every mode's figures."""

    def mode(self, name: str) -> ModeSummary:
        """The summary of the mode called ``name``; KeyError when it did not run."""
        for found in self.modes:
            if found.mode == name:
                return found
        raise KeyError(name)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 2) if denominator else None
