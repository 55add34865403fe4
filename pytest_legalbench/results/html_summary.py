"""The static part of report.html: the run header and each mode's summary, tie split included,
as HTML drawn from the run's typed ``Summary`` as results.json holds it (so a stored run renders
exactly as it was reported), with the recall-against-payload charts inline."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pytest_legalbench.judging.pairing import Tally
from pytest_legalbench.llm.pricing import format_usd
from pytest_legalbench.results.recall_chart import recall_points, recall_svg
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.results_file import StoredRun
from pytest_legalbench.results.run_header import RunHeader
from pytest_legalbench.results.run_statistics import RunStatistics
from pytest_legalbench.results.statistics_lines import statistics_lines
from pytest_legalbench.results.summary import ModeSummary
from pytest_legalbench.results.verdict_split import VerdictSplit

_NONE = "—"


def rate_html(rate: ReportedRate | None) -> str:
    """``k/n share% [low, high]`` of a rate."""
    if rate is None:
        return _NONE
    return (f"{rate.k}/{rate.n} {100 * rate.share:.1f}% "
            f"<span class=\"muted\">[{100 * rate.low:.1f}, {100 * rate.high:.1f}]</span>")


def header_html(header: RunHeader) -> str:
    """The run header as a definition list, its notes below it."""
    corpus = header.corpus
    rows = [("backend", header.backend),
            ("models", ", ".join(f"{role} {name}" for role, name in header.models.items())
             or _NONE),
            ("price card", header.price_card),
            ("corpus", (f"profile {corpus.profile}, {corpus.documents} documents, sha256 "
                       f"{corpus.digest[:16]}")),
            ("questions", header.questions),
            *((("question set", header.selection.text()),) if header.selection else ()),
            ("modes", ", ".join(header.modes) or _NONE),
            ("judge", header.judge), ("date", header.date),
            ("pytest-legalbench", header.package_version)]
    body = "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in rows)
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in header.notes)
    return f'<dl class="header">{body}</dl>{notes}'


def _verdict_table(label: str, mode: str, counts: Tally | None, split: VerdictSplit | None, *,
                   forced: bool) -> str:
    if counts is None or not counts.items:
        return ""
    scored = counts.scored()
    head = (f"<tr><th>{escape(label)}</th><th>all</th><th>both pass</th><th>both fail</th>"
            f"<th>key facts differ</th><th>won by a failing answer</th></tr>")
    rows = []
    for outcome, name in (("tie", "ties"), ("inject", "inject wins"), ("mode", f"{mode} wins")):
        both_pass = both_fail = differ = failing = None
        if split is not None:
            cells = split.cells(outcome)
            both_pass, both_fail = split.rate(cells.both_pass), split.rate(cells.both_fail)
            differ = split.rate(cells.differ)
            wins = split.failing_winners(outcome)
            failing = None if wins is None else split.rate(wins)
        # The cells worth auditing: ties the key facts split, wins of a failing answer.
        audit_differ = _flagged(differ) if outcome == "tie" else ""
        everything = ReportedRate.of(getattr(counts, outcome), scored)
        rows.append(f"<tr><td>{escape(name)}</td><td>{rate_html(everything)}</td>"
                    f"<td>{rate_html(both_pass)}</td><td>{rate_html(both_fail)}</td>"
                    f"<td{audit_differ}>{rate_html(differ)}</td>"
                    f"<td{_flagged(failing)}>{rate_html(failing)}</td></tr>")
    extra = f"unscored {counts.unscored}" + (f"; split {counts.split}" if counts.split else "")
    p_value = counts.forced_test()
    if p_value is not None and forced:
        extra += f"; exact binomial test p = {p_value:.4g}"
    return (f'<table class="verdicts">{head}{"".join(rows)}</table>'
            f'<p class="muted">{escape(extra)}; rates over {scored} scored items</p>')


def _flagged(rate: ReportedRate | None) -> str:
    return ' class="flag"' if rate is not None and rate.k else ""


def mode_html(entry: ModeSummary) -> str:
    """One mode's summary card."""
    mode = entry.mode
    parts = [(f'<div class="mode-card" data-mode="{escape(mode)}"><h3>{escape(mode)}: '
             f'{entry.items} items</h3>')]
    forced = "forced" in entry.judges
    parts.append(_verdict_table("document-bound", mode, entry.document_bound,
                                entry.document_bound_split, forced=forced))
    parts.append(_verdict_table("out-of-scope controls", mode, entry.controls,
                                entry.controls_split, forced=forced))
    keys = entry.keyfacts
    facts = f"inject {rate_html(keys.inject)}"
    if keys.mode is not None:
        facts += f"; {escape(mode)} {rate_html(keys.mode)}"
    recall = entry.evidence_recall
    foot, cost = entry.footprint, entry.cost
    lines = [f"key facts: {facts}",
             (f"evidence recall {_NONE if recall is None else f'{recall:.3f}'}; mean payload "
             f"{entry.payload_tokens_mean:,.0f} tokens"),
             (f"token footprint: inject {foot.inject_total:,} vs {escape(mode)} "
             f"{foot.mode_total:,}; answering context {foot.inject_answering:,} vs "
             f"{foot.mode_answering:,}"),
             (f"cost: inject {format_usd(cost.inject)}, {escape(mode)} "
              f"{format_usd(cost.mode)}, judge {format_usd(cost.judge)}")]
    if entry.crossover is not None:
        lines.append(f"crossover: {escape(entry.crossover.explanation)}")
    if entry.scopes is not None:
        lines.append(f"read: inject {escape(_READ.get(entry.scopes.inject, entry.scopes.inject))}"
                     f"; {escape(mode)} {escape(_READ.get(entry.scopes.mode, entry.scopes.mode))}")
    if entry.errors is not None:
        lines.append(f"error classes, {escape(mode)}: {escape(entry.errors.mode.text())}")
        if not entry.mode_traits.baseline:
            lines.append(f"error classes, inject: {escape(entry.errors.inject.text())}")
    parts.append("<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul></div>")
    return "".join(parts)


_READ = {"corpus": "the whole corpus", "set": "each question's transaction set",
         "mixed": "the corpus or the question's set (items differ)"}


def statistics_html(statistics: RunStatistics | None) -> str:
    """The run's paired statistics, as the terminal prints them."""
    if statistics is None or not statistics.comparisons:
        return ""
    text = "\n".join(statistics_lines(statistics))
    return (f'<h3>Paired statistics</h3><p class="muted">Every two arms compared on the same '
            f'questions: differences with 95% intervals, exact p-values (Holm-corrected when '
            f'several comparisons are made), standard errors clustered by transaction set and '
            f'the smallest difference the run detects.</p>'
            f'<pre class="statistics">{escape(text)}</pre>')


def summary_html(run: StoredRun) -> str:
    """The summary section: a card per mode, the paired statistics, then the recall charts."""
    cards = "".join(mode_html(entry) for entry in run.summary.modes)
    cards_end = statistics_html(run.summary.statistics)
    svg = recall_svg(recall_points(run.records))
    charts = (f'<h3>Evidence recall against payload</h3><p class="muted">One point per '
              f'document-bound item, the cross at the mode\'s mean; inject is left out (it '
              f'reads the whole corpus).</p><div class="charts">{svg}</div>') if svg else ""
    return (f'<section id="summary"><h2>Summary</h2><p class="muted">Rates with exact 95% '
            f'Clopper-Pearson intervals. Ties and wins are split by the key-fact score of both '
            f'answers; a tie whose answers differ, or a win of an answer failing key facts, '
            f'is worth auditing.</p><div class="modes">{cards}</div>{cards_end}{charts}'
            f'</section>')


def warnings_html(warnings: Sequence[str]) -> str:
    """Warnings shown before anything else."""
    return "".join(f'<p class="warning">{escape(w)}</p>' for w in warnings)
