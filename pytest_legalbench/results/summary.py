"""The benchmark result: item records summarised per mode, as typed value objects.

Document-bound questions and out-of-scope controls are always tallied apart. Every rate
carries an exact two-sided 95% Clopper-Pearson interval; forced-decision runs add the exact
binomial test of mode wins against inject wins. Costs use the price card; token footprints
count every input token attended (uncached, cache write and cache read). ``Summary.to_dict``
is what results.json and report.md hold and ``Summary.from_dict`` reads it back;
``summary_lines`` prints the same values. The records are summarised by ``results.summarise``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from pytest_legalbench.judging.pairing import Tally
from pytest_legalbench.results.crossover import CrossoverVerdict
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.verdict_split import VerdictSplit

_T = TypeVar("_T")


@dataclass(frozen=True)
class KeyFactRates:
    """Key-fact accuracy of the inject arm and, in a paired run, of the mode."""

    inject: ReportedRate
    mode: ReportedRate | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KeyFactRates:
        """Read rates written by ``to_dict``."""
        mode = data.get("mode")
        return cls(ReportedRate.from_dict(data["inject"]),
                   None if mode is None else ReportedRate.from_dict(mode))

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Footprint:
        """Read a footprint written by ``to_dict`` (its reductions follow from it)."""
        return cls(int(data["inject_total"]), int(data["inject_answering"]),
                   int(data["mode_total"]), int(data["mode_answering"]))

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Costs:
        """Read costs written by ``to_dict``."""
        return cls(Decimal(str(data["inject"])), Decimal(str(data["mode"])),
                   Decimal(str(data["judge"])))

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModeSummary:
        """Read a mode's summary written by ``to_dict``."""
        recall = data["evidence_recall"]
        return cls(
            mode=str(data["mode"]), items=int(data["items"]),
            document_bound=_optional(data, "document_bound", Tally.from_dict),
            controls=_optional(data, "controls", Tally.from_dict),
            document_bound_split=_optional(data, "document_bound_split", VerdictSplit.from_dict),
            controls_split=_optional(data, "controls_split", VerdictSplit.from_dict),
            judges=tuple(str(judge) for judge in data.get("judges", ())),
            keyfacts=KeyFactRates.from_dict(data["keyfacts"]),
            evidence_recall=None if recall is None else float(recall),
            footprint=Footprint.from_dict(data["footprint"]),
            cost=Costs.from_dict(data["cost_usd"]),
            payload_tokens_mean=float(data["payload_tokens_mean"]),
            crossover=_optional(data, "crossover", CrossoverVerdict.from_dict))

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        """Read a summary written by ``to_dict`` (results.json's ``summary``); KeyError,
        TypeError or ValueError when it is not one."""
        modes = tuple(ModeSummary.from_dict(entry) for entry in data["modes"].values())
        for name, entry in zip(data["modes"], modes, strict=True):
            if name != entry.mode:
                raise ValueError(f"the summary of mode {entry.mode!r} is filed under {name!r}")
        return cls(backend=str(data["backend"]),
                   models={str(role): str(name) for role, name in data["models"].items()},
                   price_card=str(data["price_card"]), modes=modes,
                   unreported=tuple(str(name) for name in data.get("usage_not_reported", ())))

    def to_dict(self) -> dict[str, object]:
        """The summary as plain builtins (the form results.json and report.md hold)."""
        found: dict[str, object] = {
            "backend": self.backend, "models": dict(self.models), "price_card": self.price_card,
            "modes": {entry.mode: entry.to_dict() for entry in self.modes}}
        if self.unreported:
            found["usage_not_reported"] = list(self.unreported)
        return found


def _optional(data: Mapping[str, Any], key: str,
              read: Callable[[Mapping[str, Any]], _T]) -> _T | None:
    """``read`` of ``data[key]``; None when the key is missing or null."""
    value = data.get(key)
    return None if value is None else read(value)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 2) if denominator else None
