"""The benchmark result: item records summarised per mode, as plain builtins and as lines.

Document-bound questions and out-of-scope controls are always tallied apart. Every rate
carries an exact two-sided 95% Clopper-Pearson interval; forced-decision runs add the exact
binomial test of mode wins against inject wins. Costs use the price card; token footprints
count every input token attended (uncached, cache write and cache read).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from statistics import fmean
from typing import Any

from pytest_legalbench.judging.pairing import tally
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.pricing import PriceCard, format_usd, price_calls
from pytest_legalbench.results.crossover import navigate_verdict, navindex_verdict
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.stats.exact import rate


def _footprint(calls: Iterable[Call], answering_only: bool = False) -> int:
    return sum(c.usage.footprint for c in calls
               if not answering_only or c.stage.endswith(".answer"))


def _rate(k: int, n: int) -> dict[str, object]:
    found = rate(k, n)
    return {"k": k, "n": n, "share": round(found.share, 4),
            "low": round(found.interval.low, 4), "high": round(found.interval.high, 4)}


def _answering_mean(calls: Sequence[Call]) -> float:
    found = [c.usage.footprint for c in calls if c.stage.endswith(".answer")]
    return fmean(found) if found else 0.0


def summarise_mode(records: Sequence[ItemRecord], card: PriceCard) -> dict[str, object]:
    """One mode's summary from its records (all of the same mode)."""
    mode = records[0].mode
    bound = [r for r in records if not r.out_of_scope]
    controls = [r for r in records if r.out_of_scope]
    summary: dict[str, object] = {"mode": mode, "items": len(records)}
    judged = [r for r in records if r.verdict is not None]
    if judged:
        summary["document_bound"] = tally(r.verdict for r in bound if r.verdict).to_dict()
        summary["controls"] = tally(r.verdict for r in controls if r.verdict).to_dict()
        summary["judges"] = sorted({r.judge for r in judged})
    summary["keyfacts"] = {
        "inject": _rate(sum(r.keyfacts_inject.correct for r in records), len(records)),
        **({"mode": _rate(sum(bool(r.keyfacts_mode and r.keyfacts_mode.correct)
                              for r in records), len(records))}
           if any(r.keyfacts_mode is not None for r in records) else {}),
    }
    recalls = [r.evidence_recall for r in bound if r.evidence_recall is not None]
    summary["evidence_recall"] = round(fmean(recalls), 4) if recalls else None
    inject_calls = [c for r in records for c in r.inject_calls]
    mode_calls = [c for r in records for c in r.mode_calls] or inject_calls
    footprint: dict[str, int | float | None] = {
        "inject_total": _footprint(inject_calls),
        "inject_answering": _footprint(inject_calls, answering_only=True),
        "mode_total": _footprint(mode_calls),
        "mode_answering": _footprint(mode_calls, answering_only=True),
    }
    footprint["reduction_total"] = _ratio(_footprint(inject_calls), _footprint(mode_calls))
    footprint["reduction_answering"] = _ratio(_footprint(inject_calls, answering_only=True),
                                              _footprint(mode_calls, answering_only=True))
    summary["footprint"] = footprint
    summary["cost_usd"] = {"inject": str(price_calls(inject_calls, card).total),
                           "mode": str(price_calls(mode_calls, card).total),
                           "judge": str(price_calls([c for r in records for c in r.judge_calls],
                                                    card).total)}
    summary["payload_tokens_mean"] = round(fmean(r.payload_tokens for r in records), 1)
    if mode != "inject" and records[0].mode_calls:
        # The crossover in tokens the model actually read: inject's answering context is the
        # corpus C, the mode's is its payload R, and navindex's scan reads its index I.
        corpus = _answering_mean(inject_calls)
        payload = _answering_mean(mode_calls)
        prices = card.prices_for(records[0].mode_calls[-1].model)
        scan = fmean(r.scan_tokens for r in records)
        verdict = (navindex_verdict(corpus, scan, payload, prices) if mode == "navindex"
                   else navigate_verdict(mode, corpus, payload, prices))
        summary["crossover"] = verdict.to_dict()
    return summary


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 2) if denominator else None


def summarise(records: Iterable[ItemRecord], card: PriceCard, *, backend: str,
              models: Mapping[str, str]) -> dict[str, object]:
    """The whole session's summary: per mode, in order of first appearance."""
    by_mode: dict[str, list[ItemRecord]] = {}
    for record in sorted(records, key=lambda r: (r.mode, r.question_id)):
        by_mode.setdefault(record.mode, []).append(record)
    return {"backend": backend, "models": dict(models), "price_card": card.label,
            "modes": {mode: summarise_mode(found, card)
                      for mode, found in by_mode.items()}}


def _rate_text(entry: Mapping[str, Any]) -> str:
    return (f"{entry['k']}/{entry['n']} {100 * entry['share']:.1f}% "
            f"[{100 * entry['low']:.1f}, {100 * entry['high']:.1f}]")


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """The terminal rendering of ``summarise``'s result."""
    models = ", ".join(f"{role} {name}" for role, name in summary["models"].items())
    lines = [(f"backend {summary['backend']} ({models}); price card {summary['price_card']}; "
             f"rates with exact 95% Clopper-Pearson intervals")]
    for mode, entry in summary["modes"].items():
        lines.append("")
        lines.append(f"{mode}: {entry['items']} items")
        for label, key in (("document-bound", "document_bound"), ("out-of-scope", "controls")):
            counts = entry.get(key)
            if not counts or not counts["items"]:
                continue
            rates = counts["rates"]
            lines.append(f"  {label}: ties {_rate_text(rates['tie'])}; inject wins "
                         f"{_rate_text(rates['inject'])}; {mode} wins "
                         f"{_rate_text(rates['mode'])}; unscored {counts['unscored']}"
                         + (f"; split {counts['split']}" if counts["split"] else ""))
            if counts.get("forced_test_p") is not None and "forced" in entry.get("judges", []):
                lines.append(f"  exact binomial test ({mode} vs inject wins, splits left out): "
                             f"p = {counts['forced_test_p']:.4g}")
        keys = entry["keyfacts"]
        lines.append(f"  key facts: inject {_rate_text(keys['inject'])}"
                     + (f"; {mode} {_rate_text(keys['mode'])}" if "mode" in keys else ""))
        if entry["evidence_recall"] is not None:
            lines.append(f"  evidence recall {entry['evidence_recall']:.3f}; mean payload "
                         f"{entry['payload_tokens_mean']:,.0f} tokens")
        foot = entry["footprint"]
        if mode == "inject":
            # The baseline alone: nothing to compare its footprint or cost with.
            lines.append(f"  token footprint {foot['inject_total']:,} (answering context "
                         f"{foot['inject_answering']:,}); cost "
                         f"{_usd(entry['cost_usd']['inject'])}")
            continue
        lines.append(f"  token footprint: inject {foot['inject_total']:,} vs {mode} "
                     f"{foot['mode_total']:,} ({_times(foot['reduction_total'])} smaller); "
                     f"answering context {foot['inject_answering']:,} vs "
                     f"{foot['mode_answering']:,} ({_times(foot['reduction_answering'])})")
        cost = entry["cost_usd"]
        lines.append(f"  cost: inject {_usd(cost['inject'])}, {mode} {_usd(cost['mode'])}, "
                     f"judge {_usd(cost['judge'])}")
        if "crossover" in entry:
            lines.append(f"  crossover: {entry['crossover']['explanation']}")
    return lines


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _usd(text: str) -> str:
    return format_usd(Decimal(text))
