"""The GANDR session summary as terminal lines."""

from __future__ import annotations

from pytest_legalbench.gandr.summary_types import GandrSummary, SystemSummary, WilsonRate
from pytest_legalbench.gandr.systems import COMPARATOR


def _share(rate: WilsonRate) -> str:
    if not rate.n:
        return "-"
    # share is only None when n is 0, handled above.
    return f"{rate.k}/{rate.n} {rate.share:.1%} [{rate.low:.1%}, {rate.high:.1%}]"


def _system_lines(entry: SystemSummary) -> list[str]:
    heading = (f"  {entry.system}: {entry.items} items, {entry.unscored} unscored, "
               f"{entry.calls} calls, {entry.cost_usd}")
    accuracy = (f"    strict {_share(entry.strict)}; lenient {_share(entry.lenient)}; "
                f"normalised strict {_share(entry.normalised_strict)}")
    lines = [heading, accuracy]
    sc = entry.stable_correct
    lines.append(f"    Stable & Correct@{sc.repeats}: {_share(sc.rate)}"
                 + (f" ({sc.undecided} undecided)" if sc.undecided else ""))
    areas = "; ".join(f"{area} {_share(rate)}" for area, rate in entry.by_area.items())
    lines.append(f"    strict by practice area: {areas}")
    if entry.audit is not None:
        rounds = ", ".join(f"{k} round{'s' if k != '1' else ''}: {v}"
                           for k, v in entry.audit.rounds.items())
        labels = ", ".join(f"{k} {v}" for k, v in entry.audit.audit_labels.items())
        lines.append(f"    passed {_share(entry.audit.passed)}; {rounds}")
        lines.append(f"    audit labels: {labels}")
    return lines


def gandr_lines(summary: GandrSummary) -> list[str]:
    """The summary as terminal lines: one block per system, then the tests against B2."""
    lines = ["GANDR systems (accuracy on each item's seed-0 answer, 95% Wilson intervals):"]
    for entry in summary.systems:
        lines += _system_lines(entry)
    if summary.comparisons:
        lines.append(f"  exact McNemar on strict correctness against {COMPARATOR} "
                     f"(b: system right, B2 wrong; c: the reverse; Bonferroni over "
                     f"{len(summary.comparisons)} comparisons):")
        for comparison in summary.comparisons:
            test = comparison.test
            lines.append(f"    {comparison.system}: b={test.b} c={test.c} p={test.p:.4g} "
                         f"(Bonferroni {comparison.p_bonferroni:.4g}) over {test.pairs} items")
    return lines
