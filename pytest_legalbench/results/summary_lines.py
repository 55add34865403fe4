"""The terminal rendering of a ``Summary``: one block of lines per mode."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from pytest_legalbench.judging.pairing import Tally
from pytest_legalbench.llm.pricing import format_usd
from pytest_legalbench.results.item_errors import error_lines
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.statistics_lines import statistics_lines
from pytest_legalbench.results.summary import ModeSummary, Summary
from pytest_legalbench.results.verdict_split import VerdictSplit


def rate_text(found: ReportedRate) -> str:
    """``k/n share% [low, high]`` with percentages to one decimal."""
    return found.text()


def summary_lines(summary: Summary) -> list[str]:
    """The session summary as printed at the end of a run."""
    models = ", ".join(f"{role} {name}" for role, name in summary.models.items())
    lines = [(f"backend {summary.backend} ({models}); price card {summary.price_card}; "
              f"rates with exact 95% Clopper-Pearson intervals")]
    lines.extend(cache_accounting_lines(summary.unreported))
    lines.extend(scope_lines(summary))
    for entry in summary.modes:
        lines.append("")
        lines.extend(mode_lines(entry))
    if summary.statistics is not None and summary.statistics.comparisons:
        lines.append("")
        lines.extend(statistics_lines(summary.statistics))
    if summary.errors:
        lines.append("")
        lines.extend(error_lines(summary.errors))
    return lines


_READ = {"corpus": "the whole corpus", "set": "each question's transaction set",
         "mixed": "the corpus for some questions and their transaction set for others"}


def scope_lines(summary: Summary) -> list[str]:
    """What each arm read: inject the corpus or each question's transaction set, the modes
    the whole corpus (``modes.inject_scope``)."""
    scopes = [(entry, entry.scopes) for entry in summary.modes if entry.scopes is not None]
    if not scopes:
        return []
    inject = sorted({found.inject for _, found in scopes})
    modes: dict[str, list[str]] = {}
    for entry, found in scopes:
        if not entry.mode_traits.baseline:
            modes.setdefault(found.mode, []).append(entry.mode)
    read = inject[0] if len(inject) == 1 else "mixed"
    parts = [f"inject read {_READ.get(read, read)}"]
    parts += [f"{', '.join(names)} searched {_READ.get(scope, scope)}"
              for scope, names in modes.items()]
    return ["arms: " + "; ".join(parts)]


def cache_accounting_lines(unreported: Sequence[str]) -> list[str]:
    """What the cache counts mean when a server left some out: never zeros shown as
    measured."""
    lines = []
    if "cache_creation_input_tokens" in unreported:
        lines.append("cache writes: not reported by this server (no cache write is counted or "
                     "priced; the input it did not read from a cache counts as uncached input)")
    if "cache_read_input_tokens" in unreported:
        lines.append("cache reads: not reported by this server (all its input counts and is "
                     "priced as uncached)")
    return lines


def mode_lines(entry: ModeSummary) -> list[str]:
    """One mode's block: verdicts, key facts, recall, footprint, cost and crossover."""
    mode = entry.mode
    lines = [f"{mode}: {entry.items} items"]
    for label, counts, split in (("document-bound", entry.document_bound,
                                  entry.document_bound_split),
                                 ("out-of-scope", entry.controls, entry.controls_split)):
        if counts is None or not counts.items:
            continue
        lines.append(_verdict_line(label, mode, counts))
        if split is not None:
            lines.extend(split_lines(split, mode))
        p_value = counts.forced_test()
        if p_value is not None and "forced" in entry.judges:
            lines.append(f"  exact binomial test ({mode} vs inject wins, splits left out): "
                         f"p = {p_value:.4g}")
    keys = entry.keyfacts
    lines.append(f"  key facts: inject {rate_text(keys.inject)}"
                 + (f"; {mode} {rate_text(keys.mode)}" if keys.mode is not None else ""))
    if entry.errors is not None:
        lines.append(f"  errors, {mode}: {entry.errors.mode.text()}")
        if not entry.mode_traits.baseline:
            lines.append(f"  errors, inject: {entry.errors.inject.text()}")
    if entry.evidence_recall is not None:
        lines.append(f"  evidence recall {entry.evidence_recall:.3f}; mean payload "
                     f"{entry.payload_tokens_mean:,.0f} tokens")
    lines.extend(retrieval_lines(entry))
    foot = entry.footprint
    # Said on each line priced or counted from the calls: they were batch calls.
    tag = f" ({entry.batch.label})" if entry.batch is not None else ""
    if entry.mode_traits.baseline:
        # The baseline alone: nothing to compare its footprint or cost with.
        lines.append(f"  token footprint{tag} {foot.inject_total:,} (answering context "
                     f"{foot.inject_answering:,}); cost {_usd(entry.cost.inject)}")
        return lines
    lines.append(f"  token footprint{tag}: inject {foot.inject_total:,} vs {mode} "
                 f"{foot.mode_total:,} ({_times(foot.reduction_total)} smaller); "
                 f"answering context {foot.inject_answering:,} vs "
                 f"{foot.mode_answering:,} ({_times(foot.reduction_answering)})")
    cost = entry.cost
    lines.append(f"  cost{tag}: inject {_usd(cost.inject)}, {mode} {_usd(cost.mode)}, "
                 f"judge {_usd(cost.judge)}")
    if entry.crossover is not None:
        lines.append(f"  crossover{tag}: {entry.crossover.explanation}")
    return lines


def retrieval_lines(entry: ModeSummary) -> list[str]:
    """What a user's retrieval lost to the payload budget and which of its passages could
    not be located; nothing when neither happened."""
    lines = []
    if entry.payload_cuts:
        lines.append(f"  payload budget: {entry.payload_cuts} of {entry.items} retrievals cut "
                     f"in rank order ({entry.passages_cut} passages left out; raise "
                     f"--legalbench-payload-budget to keep more)")
    if entry.unlocated_passages:
        lines.append(f"  unlocated: {entry.unlocated_passages} passages not found in their "
                     f"documents (shown to the model, counted in the payload, outside "
                     f"evidence recall)")
    return lines


def _verdict_line(label: str, mode: str, counts: Tally) -> str:
    scored = counts.scored()
    return (f"  {label}: ties {rate_text(ReportedRate.of(counts.tie, scored))}; inject wins "
            f"{rate_text(ReportedRate.of(counts.inject, scored))}; {mode} wins "
            f"{rate_text(ReportedRate.of(counts.mode, scored))}; unscored {counts.unscored}"
            + (f"; split {counts.split}" if counts.split else ""))


def split_lines(split: VerdictSplit, mode: str) -> list[str]:
    """The ties and wins of one verdict line split by key facts, one line per verdict."""
    if not split.scored:
        return []
    lines = []
    for outcome, label in (("tie", "ties"), ("inject", "inject wins"), ("mode", f"{mode} wins")):
        cells = split.cells(outcome)
        if not cells.items:
            lines.append(f"    {label} by key facts: none")
            continue
        parts = [f"both pass {rate_text(split.rate(cells.both_pass))}",
                 f"both fail {rate_text(split.rate(cells.both_fail))}",
                 f"differ {rate_text(split.rate(cells.differ))}"]
        failing = split.failing_winners(outcome)
        if failing is None:
            note = " (the judge and the key facts disagree: audit)" if cells.differ else ""
        else:
            parts.append(f"won by a failing answer {rate_text(split.rate(failing))}")
            note = " (flagged: audit)" if failing else ""
        lines.append(f"    {label} by key facts: " + "; ".join(parts) + note)
    return lines


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _usd(amount: Decimal) -> str:
    return format_usd(amount)
