"""The static part of report.html: the run header and each mode's summary, tie split included,
as HTML drawn from results.json's plain summary (so a stored run renders exactly as it was
reported), with the recall-against-payload charts inline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from html import escape
from typing import Any

from pytest_legalbench.llm.pricing import format_usd
from pytest_legalbench.results.recall_chart import recall_points, recall_svg
from pytest_legalbench.results.results_file import StoredRun
from pytest_legalbench.results.run_header import RunHeader

_NONE = "—"


def rate_html(rate: Mapping[str, Any] | None) -> str:
    """``k/n share% [low, high]`` of a rate as results.json holds it."""
    if not rate:
        return _NONE
    return (f"{rate['k']}/{rate['n']} {100 * rate['share']:.1f}% "
            f"<span class=\"muted\">[{100 * rate['low']:.1f}, {100 * rate['high']:.1f}]</span>")


def header_html(header: RunHeader) -> str:
    """The run header as a definition list, its notes below it."""
    corpus = header.corpus
    rows = [("backend", header.backend),
            ("models", ", ".join(f"{role} {name}" for role, name in header.models.items())
             or _NONE),
            ("price card", header.price_card),
            ("corpus", (f"profile {corpus.profile}, {corpus.documents} documents, sha256 "
                       f"{corpus.digest[:16]}")),
            ("questions", header.questions), ("modes", ", ".join(header.modes) or _NONE),
            ("judge", header.judge), ("date", header.date),
            ("pytest-legalbench", header.package_version)]
    body = "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in rows)
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in header.notes)
    return f'<dl class="header">{body}</dl>{notes}'


def _verdict_table(label: str, mode: str, counts: Mapping[str, Any] | None,
                   split: Mapping[str, Any] | None, *, forced: bool) -> str:
    if not counts or not counts.get("items"):
        return ""
    rates = counts["rates"]
    head = (f"<tr><th>{escape(label)}</th><th>all</th><th>both pass</th><th>both fail</th>"
            f"<th>key facts differ</th><th>won by a failing answer</th></tr>")
    rows = []
    for outcome, name in (("tie", "ties"), ("inject", "inject wins"), ("mode", f"{mode} wins")):
        cells = (split or {}).get(outcome) or {}
        failing, differ = cells.get("failing_winner"), cells.get("differ")
        # The cells worth auditing: ties the key facts split, wins of a failing answer.
        audit_differ = _flagged(differ) if outcome == "tie" else ""
        rows.append(f"<tr><td>{escape(name)}</td><td>{rate_html(rates[outcome])}</td>"
                    f"<td>{rate_html(cells.get('both_pass'))}</td>"
                    f"<td>{rate_html(cells.get('both_fail'))}</td>"
                    f"<td{audit_differ}>{rate_html(differ)}</td>"
                    f"<td{_flagged(failing)}>{rate_html(failing) if failing else _NONE}</td></tr>")
    extra = f"unscored {counts['unscored']}" + (f"; split {counts['split']}"
                                                if counts.get("split") else "")
    p_value = counts.get("forced_test_p")
    if p_value is not None and forced:
        extra += f"; exact binomial test p = {p_value:.4g}"
    return (f'<table class="verdicts">{head}{"".join(rows)}</table>'
            f'<p class="muted">{escape(extra)}; rates over {counts["scored"]} scored items</p>')


def _flagged(rate: Mapping[str, Any] | None) -> str:
    return ' class="flag"' if rate and rate["k"] else ""


def _usd(text: object) -> str:
    return format_usd(Decimal(str(text))) if text is not None else _NONE


def mode_html(entry: Mapping[str, Any]) -> str:
    """One mode's summary card."""
    mode = str(entry["mode"])
    parts = [(f'<div class="mode-card" data-mode="{escape(mode)}"><h3>{escape(mode)}: '
             f'{entry["items"]} items</h3>')]
    forced = "forced" in entry.get("judges", ())
    parts.append(_verdict_table("document-bound", mode, entry.get("document_bound"),
                                entry.get("document_bound_split"), forced=forced))
    parts.append(_verdict_table("out-of-scope controls", mode, entry.get("controls"),
                                entry.get("controls_split"), forced=forced))
    keys = entry["keyfacts"]
    facts = f"inject {rate_html(keys['inject'])}"
    if keys.get("mode"):
        facts += f"; {escape(mode)} {rate_html(keys['mode'])}"
    recall = entry.get("evidence_recall")
    foot, cost = entry["footprint"], entry["cost_usd"]
    lines = [f"key facts: {facts}",
             (f"evidence recall {_NONE if recall is None else f'{recall:.3f}'}; mean payload "
             f"{entry['payload_tokens_mean']:,.0f} tokens"),
             (f"token footprint: inject {foot['inject_total']:,} vs {escape(mode)} "
             f"{foot['mode_total']:,}; answering context {foot['inject_answering']:,} vs "
             f"{foot['mode_answering']:,}"),
             (f"cost: inject {_usd(cost['inject'])}, {escape(mode)} {_usd(cost['mode'])}, judge "
             f"{_usd(cost['judge'])}")]
    if entry.get("crossover"):
        lines.append(f"crossover: {escape(str(entry['crossover']['explanation']))}")
    parts.append("<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul></div>")
    return "".join(parts)


def summary_html(run: StoredRun) -> str:
    """The summary section: a card per mode, then the recall charts."""
    modes: Mapping[str, Any] = run.summary.get("modes") or {}
    cards = "".join(mode_html(entry) for entry in modes.values())
    svg = recall_svg(recall_points(run.records))
    charts = (f'<h3>Evidence recall against payload</h3><p class="muted">One point per '
              f'document-bound item, the cross at the mode\'s mean; inject is left out (it '
              f'reads the whole corpus).</p><div class="charts">{svg}</div>') if svg else ""
    return (f'<section id="summary"><h2>Summary</h2><p class="muted">Rates with exact 95% '
            f'Clopper-Pearson intervals. Ties and wins are split by the key-fact score of both '
            f'answers; a tie whose answers differ, or a win of an answer failing key facts, '
            f'is worth auditing.</p><div class="modes">{cards}</div>{charts}</section>')


def warnings_html(warnings: Sequence[str]) -> str:
    """Warnings shown before anything else."""
    return "".join(f'<p class="warning">{escape(w)}</p>' for w in warnings)
