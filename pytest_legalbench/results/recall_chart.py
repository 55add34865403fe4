"""Evidence recall against payload tokens, per mode: one point per document-bound item, and
the mode's mean. Drawn twice: recall_payload.png (matplotlib) beside the other report files,
and an inline SVG (no library, no network) for report.html.

The baseline (inject) is left out of both: it reads the whole corpus, so its recall is 1 by construction and
its payload would flatten every other mode against the axis.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from statistics import fmean

from pytest_legalbench.results.item_record import ItemRecord

RECALL_CHART_FILE = "recall_payload.png"

#: One colour per mode, in mode-name order (colour-blind-safe, after Okabe and Ito).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")

_WIDTH, _HEIGHT, _MARGIN = 320, 220, 40


@dataclass(frozen=True)
class RecallPoints:
    """One mode's items as (payload tokens, evidence recall), and their means."""

    mode: str
    points: tuple[tuple[int, float], ...]

    @property
    def mean(self) -> tuple[float, float] | None:
        """(mean payload, mean recall); None without points."""
        if not self.points:
            return None
        return fmean(p for p, _ in self.points), fmean(r for _, r in self.points)


def recall_points(records: Iterable[ItemRecord]) -> tuple[RecallPoints, ...]:
    """Per mode other than the baseline, in name order, the items that have an evidence recall."""
    by_mode: dict[str, list[tuple[int, float]]] = {}
    for record in records:
        if record.baseline_only:
            continue
        found = by_mode.setdefault(record.mode, [])
        if record.evidence_recall is not None:
            found.append((record.payload_tokens, record.evidence_recall))
    return tuple(RecallPoints(mode, tuple(points)) for mode, points in sorted(by_mode.items()))


def colours(modes: Sequence[str]) -> dict[str, str]:
    """A colour per mode, stable for a given list of modes."""
    return {mode: PALETTE[number % len(PALETTE)] for number, mode in enumerate(sorted(modes))}


def _x_limit(series: Sequence[RecallPoints]) -> int:
    highest = max((p for s in series for p, _ in s.points), default=0)
    step = 1000 if highest > 2000 else 100
    return max(step, -(-int(highest * 1.05) // step) * step)


def recall_svg(series: Sequence[RecallPoints]) -> str:
    """Small multiples, one SVG per mode on a shared payload axis; '' without any points."""
    if not any(s.points for s in series):
        return ""
    limit = _x_limit(series)
    palette = colours([s.mode for s in series])
    return "\n".join(_panel(s, limit, palette[s.mode]) for s in series)


def _panel(series: RecallPoints, limit: int, colour: str) -> str:
    inner_w, inner_h = _WIDTH - 2 * _MARGIN, _HEIGHT - 2 * _MARGIN

    def x(value: float) -> float:
        return round(_MARGIN + inner_w * value / limit, 1)

    def y(value: float) -> float:
        return round(_HEIGHT - _MARGIN - inner_h * value, 1)

    mode = escape(series.mode)
    parts = [(f'<svg class="recall-chart" role="img" viewBox="0 0 {_WIDTH} {_HEIGHT}" '
              f'width="{_WIDTH}" height="{_HEIGHT}" aria-label="evidence recall against '
              f'payload tokens, {mode}">'),
             f'<title>{mode}: evidence recall against payload</title>',
             (f'<rect x="{_MARGIN}" y="{_MARGIN}" width="{inner_w}" height="{inner_h}" '
              f'fill="#fafafa" stroke="#bbb"/>')]
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<line x1="{_MARGIN}" x2="{_WIDTH - _MARGIN}" y1="{y(tick)}" '
                     f'y2="{y(tick)}" stroke="#e3e3e3"/>'
                     f'<text x="{_MARGIN - 4}" y="{y(tick) + 4}" text-anchor="end">'
                     f'{tick:g}</text>')
    for tick in (0, limit // 2, limit):
        parts.append(f'<text x="{x(tick)}" y="{_HEIGHT - _MARGIN + 14}" '
                     f'text-anchor="middle">{tick:,}</text>')
    parts.append(f'<text x="{_WIDTH / 2}" y="{_HEIGHT - 6}" text-anchor="middle">payload '
                 f'tokens</text><text x="{_MARGIN}" y="{_MARGIN - 8}">{mode}</text>')
    for payload, recall in series.points:
        parts.append(f'<circle cx="{x(payload)}" cy="{y(recall)}" r="3" fill="{colour}" '
                     f'fill-opacity="0.45"/>')
    mean = series.mean
    if mean is not None:
        mx, my = x(mean[0]), y(mean[1])
        parts.append(f'<path d="M{mx - 6},{my}H{mx + 6}M{mx},{my - 6}V{my + 6}" '
                     f'stroke="#111" stroke-width="2"/><text x="{_WIDTH - _MARGIN}" '
                     f'y="{_MARGIN - 8}" text-anchor="end">mean {mean[1]:.3f} at '
                     f'{mean[0]:,.0f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def draw_recall_chart(records: Sequence[ItemRecord]) -> bytes:
    """recall_payload.png: every mode's items and means on one pair of axes."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise RuntimeError(f"{RECALL_CHART_FILE} needs matplotlib (pip install "
                           f"'matplotlib>=3.8'): {error}") from None
    series = recall_points(records)
    palette = colours([s.mode for s in series])
    figure = Figure(figsize=(8, 5), dpi=100)
    axes = figure.add_subplot()
    for entry in series:
        if not entry.points:
            continue
        colour = palette[entry.mode]
        axes.scatter([p for p, _ in entry.points], [r for _, r in entry.points], s=18,
                     alpha=0.45, color=colour, label=f"{entry.mode} (items)")
        mean = entry.mean
        if mean is not None:
            axes.scatter([mean[0]], [mean[1]], s=160, marker="X", color=colour,
                         edgecolors="black", label=f"{entry.mode} mean {mean[1]:.3f}")
    if not any(entry.points for entry in series):
        axes.text(0.5, 0.5, "no document-bound items with evidence", ha="center",
                  transform=axes.transAxes)
    else:
        axes.legend(fontsize=8)
    axes.set_ylim(-0.05, 1.05)
    axes.set_xlabel("payload tokens (provisions the answer saw)")
    axes.set_ylabel("evidence recall")
    axes.set_title("Evidence recall against payload, per mode")
    figure.text(0.5, 0.01, "Inject is left out: it reads the whole corpus (recall 1 by "
                "construction).", ha="center", fontsize=8)
    axes.grid(True, alpha=0.3)
    figure.subplots_adjust(bottom=0.15)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()

