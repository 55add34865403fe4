"""The GANDR session summary: accuracy per system with Wilson intervals (overall and per
practice area), exact McNemar against B2, Stable & Correct@k, rounds used, the audit label
mix and cost, as plain builtins and as printable lines.

Accuracy reads each item's seed-0 repeat (the other repeats feed Stable & Correct@k). An item
whose grade is "no score" is left out of the denominators and counted as unscored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_legalbench.gandr.record import GandrRecord, Repeat, all_calls
from pytest_legalbench.gandr.systems import COMPARATOR, SYSTEMS
from pytest_legalbench.llm.pricing import PriceCard, format_usd, price_calls
from pytest_legalbench.stats.agreement import AUDIT_LABELS
from pytest_legalbench.stats.exact import mcnemar_exact, wilson


def _wilson(k: int, n: int) -> dict[str, object]:
    interval = wilson(k, n)
    return {"k": k, "n": n, "share": round(k / n, 4) if n else None,
            "low": round(interval.low, 4), "high": round(interval.high, 4)}


def _accuracy(repeats: Sequence[Repeat], measure: Callable[[Repeat], bool | None]
              ) -> dict[str, object]:
    scored = [value for value in map(measure, repeats) if value is not None]
    return _wilson(sum(scored), len(scored))


def _strict(repeat: Repeat) -> bool | None:
    return repeat.strict


def summarise_system(records: Sequence[GandrRecord], card: PriceCard) -> dict[str, object]:
    """One system's summary from its records (all of the same system)."""
    firsts = [r.first for r in records]
    areas: dict[str, list[Repeat]] = {}
    for record in records:
        areas.setdefault(record.practice_area, []).append(record.first)
    decided = [r.stable_correct for r in records if r.stable_correct is not None]
    calls = all_calls(records)
    summary: dict[str, object] = {
        "system": records[0].system, "items": len(records),
        "unscored": sum(repeat.score is None for repeat in firsts),
        "strict": _accuracy(firsts, _strict),
        "lenient": _accuracy(firsts, lambda r: r.lenient),
        "normalised_strict": _accuracy(firsts, lambda r: r.normalised_strict),
        "grounded": _wilson(sum(r.grounded for r in firsts), len(firsts)),
        "normalised_grounded": _wilson(sum(r.normalised_grounded for r in firsts), len(firsts)),
        "by_area": {area: _accuracy(found, _strict) for area, found in sorted(areas.items())},
        "stable_correct": {"repeats": max(len(r.repeats) for r in records),
                           **_wilson(sum(decided), len(decided)),
                           "undecided": len(records) - len(decided)},
        "calls": len(calls),
        "cost_usd": format_usd(price_calls(calls, card).total),
    }
    every = [repeat for r in records for repeat in r.repeats]
    if any(repeat.passed is not None for repeat in every):
        summary["rounds"] = dict(sorted(Counter(str(r.rounds) for r in every).items()))
        summary["passed"] = _wilson(sum(bool(r.passed) for r in every), len(every))
        labels: Counter[str] = Counter()
        for repeat in every:
            labels.update(repeat.audit_labels)
        summary["audit_labels"] = {label: labels.get(label, 0) for label in AUDIT_LABELS}
    return summary


def mcnemar_against(records: Sequence[GandrRecord], comparator: Sequence[GandrRecord]
                    ) -> dict[str, object]:
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
    return {"pairs": pairs, "b": b, "c": c, "p": round(mcnemar_exact(b, c), 6)}


def summarise_gandr(records: Sequence[GandrRecord], card: PriceCard) -> dict[str, Any]:
    """Every system's summary, in the canonical order, with the tests against B2."""
    by_system: dict[str, list[GandrRecord]] = {}
    for record in records:
        by_system.setdefault(record.system, []).append(record)
    systems = [s for s in SYSTEMS if s in by_system]
    summary: dict[str, Any] = {"systems": {s: summarise_system(by_system[s], card)
                                           for s in systems}}
    others = [s for s in systems if s != COMPARATOR]
    if COMPARATOR in by_system and others:
        tests = {s: mcnemar_against(by_system[s], by_system[COMPARATOR]) for s in others}
        for test in tests.values():
            # Bonferroni over the comparisons actually made.
            p = test["p"]
            assert isinstance(p, float)
            test["p_bonferroni"] = round(min(1.0, p * len(tests)), 6)
        summary["mcnemar_vs_b2"] = tests
    return summary


def _share(entry: Mapping[str, Any]) -> str:
    if not entry["n"]:
        return "-"
    return (f"{entry['k']}/{entry['n']} {entry['share']:.1%} "
            f"[{entry['low']:.1%}, {entry['high']:.1%}]")


def gandr_lines(summary: Mapping[str, Any]) -> list[str]:
    """The summary as terminal lines: one block per system, then the tests against B2."""
    lines = ["GANDR systems (accuracy on each item's seed-0 answer, 95% Wilson intervals):"]
    for name, entry in summary["systems"].items():
        lines.append(f"  {name}: {entry['items']} items, {entry['unscored']} unscored, "
                     f"{entry['calls']} calls, {entry['cost_usd']}")
        lines.append(f"    strict {_share(entry['strict'])}; lenient {_share(entry['lenient'])}; "
                     f"normalised strict {_share(entry['normalised_strict'])}")
        sc = entry["stable_correct"]
        lines.append(f"    Stable & Correct@{sc['repeats']}: {_share(sc)}"
                     + (f" ({sc['undecided']} undecided)" if sc["undecided"] else ""))
        areas = "; ".join(f"{area} {_share(value)}" for area, value in entry["by_area"].items())
        lines.append(f"    strict by practice area: {areas}")
        if "rounds" in entry:
            rounds = ", ".join(f"{k} round{'s' if k != '1' else ''}: {v}"
                               for k, v in entry["rounds"].items())
            labels = ", ".join(f"{k} {v}" for k, v in entry["audit_labels"].items())
            lines.append(f"    passed {_share(entry['passed'])}; {rounds}")
            lines.append(f"    audit labels: {labels}")
    tests = summary.get("mcnemar_vs_b2")
    if tests:
        lines.append(f"  exact McNemar on strict correctness against {COMPARATOR} "
                     f"(b: system right, B2 wrong; c: the reverse; Bonferroni over "
                     f"{len(tests)} comparisons):")
        for name, test in tests.items():
            lines.append(f"    {name}: b={test['b']} c={test['c']} p={test['p']:.4g} "
                         f"(Bonferroni {test['p_bonferroni']:.4g}) over {test['pairs']} items")
    return lines
