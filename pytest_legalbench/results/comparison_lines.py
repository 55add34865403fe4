"""A ``Comparison`` as lines of text (``legalbench compare``) and as an HTML page body."""

from __future__ import annotations

from html import escape

from pytest_legalbench.results.comparison import PAIRED_OUTCOMES, Comparison, ModeChange

#: Metric name -> (label, kind): shares print as percentages, the rest as numbers.
METRICS = {
    "ties": ("document-bound ties", "share"),
    "inject_wins": ("document-bound inject wins", "share"),
    "mode_wins": ("document-bound mode wins", "share"),
    "keyfacts_mode": ("key facts of the mode's answer", "share"),
    "keyfacts_inject": ("key facts of inject's answer", "share"),
    "evidence_recall": ("evidence recall", "recall"),
    "payload_tokens_mean": ("mean payload tokens", "tokens"),
    "cost_mode_usd": ("mode cost", "usd"),
    "cost_inject_usd": ("inject cost", "usd"),
    "cost_judge_usd": ("judge cost", "usd"),
}


def _value(value: float | None, kind: str) -> str:
    if value is None:
        return "—"
    return {"share": f"{100 * value:.1f}%", "recall": f"{value:.3f}",
            "tokens": f"{value:,.0f}", "usd": f"${value:.4f}"}[kind]


def _change(a: float | None, b: float | None, kind: str) -> str:
    if a is None or b is None:
        return ""
    delta = b - a
    return {"share": f"{100 * delta:+.1f} points", "recall": f"{delta:+.3f}",
            "tokens": f"{delta:+,.0f}", "usd": f"{delta:+.4f} USD"}[kind]


def metric_rows(change: ModeChange) -> list[tuple[str, str, str, str]]:
    """(label, A, B, change) per metric."""
    rows = []
    for name, (label, kind) in METRICS.items():
        found = change.metrics.get(name)
        a, b = (found.a, found.b) if found is not None else (None, None)
        if a is None and b is None:
            continue
        rows.append((label, _value(a, kind), _value(b, kind), _change(a, b, kind)))
    return rows


def test_rows(change: ModeChange) -> list[str]:
    """One line per paired test."""
    lines = [f"{PAIRED_OUTCOMES[t.outcome]}: {t.items} items, true in A only b = {t.only_a}, "
             f"in B only c = {t.only_b}, exact McNemar p = {t.p_value:.4g}" for t in change.tests]
    sign = change.recall
    lines.append(f"evidence recall: rose on {sign.rose}, fell on {sign.fell}, unchanged on "
                 f"{sign.unchanged}; exact sign test p = {sign.p_value:.4g}")
    return lines


def flip_text(question_id: str, keyfacts: tuple[str, str] | None,
              verdict: tuple[str, str] | None) -> str:
    """``question: key facts pass -> fail; verdict tie -> inject``."""
    parts = ([f"key facts {keyfacts[0]} -> {keyfacts[1]}"] if keyfacts else []) + \
        ([f"verdict {verdict[0]} -> {verdict[1]}"] if verdict else [])
    return f"{question_id}: " + "; ".join(parts)


def comparison_lines(found: Comparison) -> list[str]:
    """The comparison as printed: warnings first."""
    lines = [f"WARNING: {w}" for w in found.warnings]
    lines.append(f"A: {found.label_a}")
    lines.append(f"B: {found.label_b}")
    lines += [f"note: {n}" for n in found.notes]
    for change in found.modes:
        lines += ["", (f"{change.mode_a} (A) vs {change.mode_b} (B): {change.items_a} and "
                      f"{change.items_b} items, {change.shared} shared")]
        lines += [f"  {label}: {a} -> {b}" + (f" ({delta})" if delta else "")
                  for label, a, b, delta in metric_rows(change)]
        lines.append("  paired on the shared items:")
        lines += [f"    {line}" for line in test_rows(change)]
        lines.append(f"  flipped: {len(change.flips)} questions")
        lines += [f"    {flip_text(f.question_id, f.keyfacts, f.verdict)}" for f in change.flips]
    return lines


def comparison_body(found: Comparison) -> str:
    """The comparison as the body of an HTML page."""
    parts = ["<h1>legalbench compare</h1>"]
    parts += [f'<p class="warning">{escape(w)}</p>' for w in found.warnings]
    parts.append(f'<dl class="header"><dt>A</dt><dd>{escape(found.label_a)}</dd><dt>B</dt>'
                 f'<dd>{escape(found.label_b)}</dd></dl>')
    parts += [f'<p class="note">{escape(n)}</p>' for n in found.notes]
    for change in found.modes:
        parts.append(f'<section class="mode-change"><h2>{escape(change.mode_a)} (A) vs '
                     f'{escape(change.mode_b)} (B)</h2><p class="muted">{change.items_a} and '
                     f'{change.items_b} items, {change.shared} shared</p>')
        flips = [flip_text(f.question_id, f.keyfacts, f.verdict) for f in change.flips]
        rows = "".join(f"<tr><td>{escape(label)}</td><td class=\"num\">{escape(a)}</td>"
                       f"<td class=\"num\">{escape(b)}</td><td class=\"num\">{escape(d)}</td>"
                       f"</tr>" for label, a, b, d in metric_rows(change))
        parts.append(f"<table><tr><th>measure</th><th>A</th><th>B</th><th>change</th></tr>"
                     f"{rows}</table><h3>Paired on the shared items</h3><ul>"
                     + "".join(f"<li>{escape(line)}</li>" for line in test_rows(change))
                     + f"</ul><h3>Flipped: {len(change.flips)} questions</h3><ul>"
                     + "".join(f'<li class="flip">{escape(text)}</li>' for text in flips)
                     + "</ul></section>")
    return "\n".join(parts)
