"""The benchmark result: item records summarised per mode, as typed value objects.

Document-bound questions and out-of-scope controls are always tallied apart. Every rate
carries an exact two-sided 95% Clopper-Pearson interval; forced-decision runs add the exact
binomial test of mode wins against inject wins. Costs use the price card; token footprints
count every input token attended (uncached, cache write and cache read). ``Summary.to_dict``
is what results.json and report.md hold; ``summary_lines`` prints the same values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from statistics import fmean

from pytest_legalbench.judging.pairing import Tally, tally
from pytest_legalbench.llm.ledger import USAGE_FIELDS, Call, sum_usage
from pytest_legalbench.llm.pricing import PriceCard, price_calls
from pytest_legalbench.modes.names import NAVAGENT
from pytest_legalbench.results.crossover import (
    CrossoverVerdict,
    conversation_verdict,
    navigate_verdict,
    navindex_verdict,
)
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.verdict_split import VerdictSplit, split_verdicts


@dataclass(frozen=True)
class KeyFactRates:
    """Key-fact accuracy of the inject arm and, in a paired run, of the mode."""

    inject: ReportedRate
    mode: ReportedRate | None

    def to_dict(self) -> dict[str, object]:
        """The rates as plain builtins; ``mode`` only when the mode answered."""
        found: dict[str, object] = {"inject": self.inject.to_dict()}
        if self.mode is not None:
            found["mode"] = self.mode.to_dict()
        return found


@dataclass(frozen=True)
class Footprint:
    """Input tokens attended by each arm: every call, and the answering calls alone."""

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

    def to_dict(self) -> dict[str, object]:
        """The footprint and its reductions as plain builtins."""
        return {"inject_total": self.inject_total, "inject_answering": self.inject_answering,
                "mode_total": self.mode_total, "mode_answering": self.mode_answering,
                "reduction_total": self.reduction_total,
                "reduction_answering": self.reduction_answering}


@dataclass(frozen=True)
class Costs:
    """Dollars spent by each arm and by the judge, under the price card."""

    inject: Decimal
    mode: Decimal
    judge: Decimal

    def to_dict(self) -> dict[str, object]:
        """The costs as exact decimal strings."""
        return {"inject": str(self.inject), "mode": str(self.mode), "judge": str(self.judge)}


@dataclass(frozen=True)
class ModeSummary:
    """One mode's result over its items."""

    mode: str
    items: int
    document_bound: Tally | None
    """Verdicts on document-bound questions; None when nothing was judged."""
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
    cost: Costs
    payload_tokens_mean: float
    crossover: CrossoverVerdict | None
    """The caching break-even; None for inject alone and for a mode that made no calls."""

    def to_dict(self) -> dict[str, object]:
        """The mode's summary as plain builtins (the form results.json holds)."""
        found: dict[str, object] = {"mode": self.mode, "items": self.items}
        if self.document_bound is not None and self.controls is not None:
            found["document_bound"] = self.document_bound.to_dict()
            found["controls"] = self.controls.to_dict()
        if self.document_bound_split is not None and self.controls_split is not None:
            found["document_bound_split"] = self.document_bound_split.to_dict()
            found["controls_split"] = self.controls_split.to_dict()
            found["judges"] = list(self.judges)
        found["keyfacts"] = self.keyfacts.to_dict()
        found["evidence_recall"] = self.evidence_recall
        found["footprint"] = self.footprint.to_dict()
        found["cost_usd"] = self.cost.to_dict()
        found["payload_tokens_mean"] = self.payload_tokens_mean
        if self.crossover is not None:
            found["crossover"] = self.crossover.to_dict()
        return found


@dataclass(frozen=True)
class Summary:
    """The whole session's result: who produced it, the price card, and each mode."""

    backend: str
    models: Mapping[str, str]
    """Role (``answer``, ``judge``) to the model names that played it."""
    price_card: str
    modes: tuple[ModeSummary, ...]
    """In mode-name order."""
    unreported: tuple[str, ...] = ()
    """Usage fields some server left out of its responses (``Call.unreported``): their
    zeros were not measured, and the summary says so instead of showing them as counts."""

    def mode(self, name: str) -> ModeSummary:
        """The summary of the mode called ``name``; KeyError when it did not run."""
        for found in self.modes:
            if found.mode == name:
                return found
        raise KeyError(name)

    def to_dict(self) -> dict[str, object]:
        """The summary as plain builtins (the form results.json and report.md hold)."""
        found: dict[str, object] = {
            "backend": self.backend, "models": dict(self.models), "price_card": self.price_card,
            "modes": {entry.mode: entry.to_dict() for entry in self.modes}}
        if self.unreported:
            found["usage_not_reported"] = list(self.unreported)
        return found


def _footprint(calls: Iterable[Call], answering_only: bool = False) -> int:
    return sum(c.usage.footprint for c in calls
               if not answering_only or c.stage.endswith(".answer"))


def _answering_mean(calls: Sequence[Call]) -> float:
    found = [c.usage.footprint for c in calls if c.stage.endswith(".answer")]
    return fmean(found) if found else 0.0


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 2) if denominator else None


def summarise_mode(records: Sequence[ItemRecord], card: PriceCard) -> ModeSummary:
    """One mode's summary from its records (all of the same mode)."""
    mode = records[0].mode
    bound = [r for r in records if not r.out_of_scope]
    controls = [r for r in records if r.out_of_scope]
    judged = [r for r in records if r.verdict is not None]
    keyfacts = KeyFactRates(
        inject=ReportedRate.of(sum(r.keyfacts_inject.correct for r in records), len(records)),
        mode=(ReportedRate.of(sum(bool(r.keyfacts_mode and r.keyfacts_mode.correct)
                                  for r in records), len(records))
              if any(r.keyfacts_mode is not None for r in records) else None))
    recalls = [r.evidence_recall for r in bound if r.evidence_recall is not None]
    inject_calls = [c for r in records for c in r.inject_calls]
    mode_calls = [c for r in records for c in r.mode_calls] or inject_calls
    crossover = None
    if mode != "inject" and records[0].mode_calls:
        # The crossover in tokens the model actually read: inject's answering context is the
        # corpus C, the mode's is its payload R, and navindex's scan reads its index I;
        # navagent's every turn reads context, so all its input counts, priced as measured.
        corpus = _answering_mean(inject_calls)
        payload = _answering_mean(mode_calls)
        prices = card.prices_for(records[0].mode_calls[-1].model)
        scan = fmean(r.scan_tokens for r in records)
        if mode == NAVAGENT:
            total = sum_usage(c.usage for c in mode_calls)
            items = len(records)
            crossover = conversation_verdict(
                mode, corpus, total.input_tokens / items,
                total.cache_creation_input_tokens / items, total.cache_read_input_tokens / items,
                prices)
        elif mode == "navindex":
            crossover = navindex_verdict(corpus, scan, payload, prices)
        else:
            crossover = navigate_verdict(mode, corpus, payload, prices)
    return ModeSummary(
        mode=mode, items=len(records),
        document_bound=tally(r.verdict for r in bound if r.verdict) if judged else None,
        controls=tally(r.verdict for r in controls if r.verdict) if judged else None,
        document_bound_split=split_verdicts(bound) if judged else None,
        controls_split=split_verdicts(controls) if judged else None,
        judges=tuple(sorted({r.judge for r in judged})), keyfacts=keyfacts,
        evidence_recall=round(fmean(recalls), 4) if recalls else None,
        footprint=Footprint(
            inject_total=_footprint(inject_calls),
            inject_answering=_footprint(inject_calls, answering_only=True),
            mode_total=_footprint(mode_calls),
            mode_answering=_footprint(mode_calls, answering_only=True)),
        cost=Costs(inject=price_calls(inject_calls, card).total,
                   mode=price_calls(mode_calls, card).total,
                   judge=price_calls([c for r in records for c in r.judge_calls], card).total),
        payload_tokens_mean=round(fmean(r.payload_tokens for r in records), 1),
        crossover=crossover)


def summarise(records: Iterable[ItemRecord], card: PriceCard, *, backend: str,
              models: Mapping[str, str]) -> Summary:
    """The whole session's summary: one entry per mode, in mode-name order."""
    by_mode: dict[str, list[ItemRecord]] = {}
    for record in sorted(records, key=lambda r: (r.mode, r.question_id)):
        by_mode.setdefault(record.mode, []).append(record)
    calls = [c for found in by_mode.values() for r in found
             for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)]
    return Summary(backend=backend, models=dict(models), price_card=card.label,
                   modes=tuple(summarise_mode(found, card) for found in by_mode.values()),
                   unreported=unreported_usage(calls))


def unreported_usage(calls: Iterable[Call]) -> tuple[str, ...]:
    """The usage fields any of ``calls`` came without, in ``USAGE_FIELDS`` order."""
    missing = {name for call in calls for name in call.unreported}
    return tuple(name for name in USAGE_FIELDS if name in missing)
