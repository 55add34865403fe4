"""Ties and wins split by the model-free key-fact score of both answers.

The headline protocol counts a tie whatever the answers say. Splitting each combined verdict by
whether each answer passes the key-fact score (``KeyFacts.correct``) tells an honest tie (both
answers right) from a shared failure (both wrong), and points at the items where the judge and
the key facts disagree: a tie between a passing and a failing answer, or a win of a failing
answer. Those are the items worth auditing by hand.

Every count is reported over the same denominator as the headline rates, the scored items
(ties and both kinds of win), so the cells of an outcome add up to its headline rate. Unscored
items and forced-decision splits are left out, as they are from the headline rates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pytest_legalbench.files.record_json import NOT_WRITTEN, OMIT_NONE, WireForm, derived
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.reported_rate import ReportedRate

#: The combined verdicts that are split, in report order.
SPLIT_OUTCOMES = ("tie", "inject", "mode")

#: Names of the four ways the two key-fact scores can fall, in report order.
CELLS = ("both_pass", "both_fail", "inject_only", "mode_only")


@dataclass(frozen=True)
class KeyFactCells:
    """How the two answers' key-fact scores fell over the items of one combined verdict."""

    both_pass: int
    both_fail: int
    inject_only: int
    """Inject's answer passes the key-fact score and the mode's fails."""
    mode_only: int
    """The mode's answer passes the key-fact score and inject's fails."""

    @property
    def items(self) -> int:
        """Items of this verdict."""
        return self.both_pass + self.both_fail + self.inject_only + self.mode_only

    @property
    def differ(self) -> int:
        """Items where exactly one answer passes."""
        return self.inject_only + self.mode_only


@dataclass(frozen=True)
class SplitEntry:
    """One verdict's cells as result files write them: each a rate over the scored items."""

    items: int
    """Items of this verdict."""
    both_pass: ReportedRate
    both_fail: ReportedRate
    inject_only: ReportedRate
    mode_only: ReportedRate
    differ: ReportedRate
    """Items where exactly one answer passes."""
    failing_winner: ReportedRate | None = field(default=None, metadata=OMIT_NONE)
    """For a win: the wins of an answer that fails key facts (absent for ties)."""


def _counts_of_entry(entry: Any) -> Any:
    """The cells' counts of a written ``SplitEntry``: each rate's ``k``."""
    if isinstance(entry, Mapping) and all(isinstance(entry.get(name), Mapping)
                                          for name in CELLS):
        return {name: entry[name]["k"] for name in CELLS}
    return entry


#: The cells of a verdict, read back from the entry written for it.
_FROM_ENTRY = WireForm(write=lambda cells: cells, read=_counts_of_entry, schema={})


@derived(tie="tie_entry", inject="inject_entry", mode="mode_entry")
@dataclass(frozen=True)
class VerdictSplit:
    """The ties and wins of a set of paired items, split by key facts. Written as the scored
    count and one ``SplitEntry`` per verdict; read back from the entries' counts."""

    scored: int
    """Ties plus inject wins plus mode wins: the denominator of every rate here."""
    tie: Annotated[KeyFactCells, _FROM_ENTRY] = field(metadata=NOT_WRITTEN)
    inject: Annotated[KeyFactCells, _FROM_ENTRY] = field(metadata=NOT_WRITTEN)
    """Inject wins."""
    mode: Annotated[KeyFactCells, _FROM_ENTRY] = field(metadata=NOT_WRITTEN)
    """Mode wins."""

    def cells(self, outcome: str) -> KeyFactCells:
        """The cells of ``outcome`` (``tie``, ``inject`` or ``mode``)."""
        if outcome not in SPLIT_OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(SPLIT_OUTCOMES)}, "
                             f"got {outcome!r}")
        found: KeyFactCells = getattr(self, outcome)
        return found

    def failing_winners(self, outcome: str) -> int | None:
        """Wins of ``outcome``'s arm whose winning answer fails key facts; None for ties."""
        cells = self.cells(outcome)
        if outcome == "inject":
            return cells.both_fail + cells.mode_only
        if outcome == "mode":
            return cells.both_fail + cells.inject_only
        return None

    def rate(self, count: int) -> ReportedRate:
        """``count`` over the scored items, with its exact interval."""
        return ReportedRate.of(count, self.scored)

    def entry(self, outcome: str) -> SplitEntry:
        """The cells of ``outcome`` as rates over the scored items, as they are written."""
        cells = self.cells(outcome)
        failing = self.failing_winners(outcome)
        return SplitEntry(
            items=cells.items, **{name: self.rate(getattr(cells, name)) for name in CELLS},
            differ=self.rate(cells.differ),
            failing_winner=None if failing is None else self.rate(failing))

    @property
    def tie_entry(self) -> SplitEntry:
        """The ties' entry."""
        return self.entry("tie")

    @property
    def inject_entry(self) -> SplitEntry:
        """The inject wins' entry."""
        return self.entry("inject")

    @property
    def mode_entry(self) -> SplitEntry:
        """The mode wins' entry."""
        return self.entry("mode")


def keyfact_cell(record: ItemRecord) -> str:
    """Which of ``CELLS`` the record's two key-fact scores fall in (a mode answer without a
    score counts as failing)."""
    inject = record.keyfacts_inject.correct
    mode = bool(record.keyfacts_mode is not None and record.keyfacts_mode.correct)
    if inject and mode:
        return "both_pass"
    if inject:
        return "inject_only"
    return "mode_only" if mode else "both_fail"


def audit_flag(record: ItemRecord) -> str:
    """Why the record's verdict is worth auditing ("" when it is not): a tie between a passing
    and a failing answer, or a win of a failing answer."""
    cell = keyfact_cell(record)
    if record.verdict == "tie" and cell in ("inject_only", "mode_only"):
        return "tie, key facts differ"
    winner_fails = {"inject": ("both_fail", "mode_only"), "mode": ("both_fail", "inject_only")}
    if cell in winner_fails.get(record.verdict or "", ()):
        return "won by an answer failing key facts"
    return ""


def split_verdicts(records: Iterable[ItemRecord]) -> VerdictSplit:
    """The split of ``records``' ties and wins (other verdicts are left out)."""
    counts = {outcome: dict.fromkeys(CELLS, 0) for outcome in SPLIT_OUTCOMES}
    for record in records:
        if record.verdict in counts:
            counts[record.verdict][keyfact_cell(record)] += 1
    parts = {outcome: KeyFactCells(**cells) for outcome, cells in counts.items()}
    return VerdictSplit(scored=sum(p.items for p in parts.values()), tie=parts["tie"],
                        inject=parts["inject"], mode=parts["mode"])
