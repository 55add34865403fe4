"""The GANDR session summary: accuracy per system with Wilson intervals (overall and per
practice area), exact McNemar against B2, Stable & Correct@k, rounds used, the audit label
mix and cost, built as the value objects of ``summary_types``.

Accuracy reads each item's seed-0 repeat (the other repeats feed Stable & Correct@k). An item
whose grade is "no score" is left out of the denominators and counted as unscored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pytest_legalbench.gandr.record import GandrRecord, Repeat, all_calls
from pytest_legalbench.gandr.summary_lines import gandr_lines
from pytest_legalbench.gandr.summary_types import (
    AuditSummary,
    Comparison,
    GandrSummary,
    McNemarTest,
    StableCorrect,
    SystemSummary,
    WilsonRate,
)
from pytest_legalbench.gandr.systems import COMPARATOR, SYSTEMS
from pytest_legalbench.llm.pricing import PriceCard, format_usd, price_calls
from pytest_legalbench.stats.agreement import AUDIT_LABELS
from pytest_legalbench.stats.exact import mcnemar_exact

# The value objects and the formatter are re-exported: callers import the summary from here.
__all__ = ["AuditSummary", "Comparison", "GandrSummary", "McNemarTest", "StableCorrect",
           "SystemSummary", "WilsonRate", "gandr_lines", "mcnemar_against", "summarise_gandr",
           "summarise_system"]


def _accuracy(repeats: Sequence[Repeat], measure: Callable[[Repeat], bool | None]
              ) -> WilsonRate:
    scored = [value for value in map(measure, repeats) if value is not None]
    return WilsonRate.of(sum(scored), len(scored))


def _strict(repeat: Repeat) -> bool | None:
    return repeat.strict


def _audit(records: Sequence[GandrRecord]) -> AuditSummary | None:
    every = [repeat for r in records for repeat in r.repeats]
    if all(repeat.passed is None for repeat in every):
        return None
    labels: Counter[str] = Counter()
    for repeat in every:
        labels.update(repeat.audit_labels)
    return AuditSummary(
        rounds=dict(sorted(Counter(str(r.rounds) for r in every).items())),
        passed=WilsonRate.of(sum(bool(r.passed) for r in every), len(every)),
        audit_labels={label: labels.get(label, 0) for label in AUDIT_LABELS})


def summarise_system(records: Sequence[GandrRecord], card: PriceCard) -> SystemSummary:
    """One system's summary from its records (all of the same system)."""
    firsts = [r.first for r in records]
    areas: dict[str, list[Repeat]] = {}
    for record in records:
        areas.setdefault(record.practice_area, []).append(record.first)
    decided = [r.stable_correct for r in records if r.stable_correct is not None]
    calls = all_calls(records)
    audit = _audit(records)
    return SystemSummary(
        system=records[0].system, items=len(records),
        unscored=sum(repeat.score is None for repeat in firsts),
        strict=_accuracy(firsts, _strict),
        lenient=_accuracy(firsts, lambda r: r.lenient),
        normalised_strict=_accuracy(firsts, lambda r: r.normalised_strict),
        grounded=WilsonRate.of(sum(r.grounded for r in firsts), len(firsts)),
        normalised_grounded=WilsonRate.of(sum(r.normalised_grounded for r in firsts),
                                          len(firsts)),
        by_area={area: _accuracy(found, _strict) for area, found in sorted(areas.items())},
        stable_correct=StableCorrect.over(sum(decided), len(decided),
                                          repeats=max(len(r.repeats) for r in records),
                                          undecided=len(records) - len(decided)),
        calls=len(calls),
        cost_usd=format_usd(price_calls(calls, card).total),
        rounds=None if audit is None else audit.rounds,
        passed=None if audit is None else audit.passed,
        audit_labels=None if audit is None else audit.audit_labels)


def mcnemar_against(records: Sequence[GandrRecord], comparator: Sequence[GandrRecord]
                    ) -> McNemarTest:
    """Exact McNemar on seed-0 strict correctness over the items both systems scored:
    b = this system right and the comparator wrong, c = the reverse."""
    theirs = {r.question_id: r.first.strict for r in comparator}
    b = c = pairs = 0
    for record in records:
        mine, other = record.first.strict, theirs.get(record.question_id)
        if mine is None or other is None:
            continue
        pairs += 1
        b += mine and not other
        c += other and not mine
    return McNemarTest(pairs=pairs, b=b, c=c, p=round(mcnemar_exact(b, c), 6))


def summarise_gandr(records: Sequence[GandrRecord], card: PriceCard) -> GandrSummary:
    """Every system's summary, in the canonical order, with the tests against B2."""
    by_system: dict[str, list[GandrRecord]] = {}
    for record in records:
        by_system.setdefault(record.system, []).append(record)
    systems = [s for s in SYSTEMS if s in by_system]
    others = [s for s in systems if s != COMPARATOR] if COMPARATOR in by_system else []
    # Bonferroni over the comparisons actually made.
    comparisons = tuple(
        Comparison.of(s, mcnemar_against(by_system[s], by_system[COMPARATOR]), len(others))
        for s in others)
    return GandrSummary(systems=tuple(summarise_system(by_system[s], card) for s in systems),
                        comparisons=comparisons)
