"""The files a benchmark run leaves behind: results.json, report.md, verdicts.csv and cost.png.

Every file is built from the session's ``ItemRecord`` list alone and written atomically, so a
reader never sees half a report. Records are always taken in (question_id, mode) order, which
makes the files identical for identical runs however xdist interleaved the items.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Protocol

from pytest_legalbench.files.atomic_write import write_bytes_atomic, write_text_atomic
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import Cost, PriceCard, format_usd, price_calls
from pytest_legalbench.results.item_record import RECORD_FORMAT, ItemRecord, KeyFacts

RESULTS_FILE = "results.json"
REPORT_FILE = "report.md"
VERDICTS_FILE = "verdicts.csv"
COST_CHART_FILE = "cost.png"

#: The columns of verdicts.csv; the last two are left blank for a human auditor.
VERDICT_COLUMNS = (
    "question_id", "mode", "question", "reference", "answer_a_forward", "answer_b_forward",
    "verdict_forward", "verdict_reverse", "verdict", "auditor_verdict", "auditor_note",
)
#: What an auditor may write in ``auditor_verdict``.
AUDITOR_VERDICTS = ("inject", "mode", "tie")

#: Series names of the inject arm in ``cumulative_costs``.
INJECT_WARM = "inject (warm cache)"
INJECT_COLD = "inject (cold cache)"

_NONE = "—"


def _ordered(records: Iterable[ItemRecord]) -> list[ItemRecord]:
    ordered = sorted(records, key=lambda record: (record.question_id, record.mode))
    for before, after in itertools.pairwise(ordered):
        if (before.question_id, before.mode) == (after.question_id, after.mode):
            raise ValueError(f"two records for question {after.question_id!r} under mode "
                             f"{after.mode!r}: each item must be recorded once")
    return ordered


def _paired(record: ItemRecord) -> bool:
    # An inject-only run records the baseline arm alone; it has no mode arm to cost or score.
    return record.mode_answer is not None


# ---- costs ---------------------------------------------------------------------------------


def _as_cache_write(call: Call) -> Call:
    usage = call.usage
    cold = Usage(input_tokens=usage.input_tokens,
                 cache_creation_input_tokens=(usage.cache_creation_input_tokens
                                              + usage.cache_read_input_tokens),
                 cache_read_input_tokens=0, output_tokens=usage.output_tokens)
    return dataclasses.replace(call, usage=cold)


def _running_totals(costs: Iterable[Cost]) -> list[Decimal]:
    # Cost sums are exact (pricing's wide context); plain Decimal addition could round.
    running = Cost()
    totals: list[Decimal] = []
    for cost in costs:
        running = running + cost
        totals.append(running.total)
    return totals


def cumulative_costs(records: Sequence[ItemRecord], card: PriceCard) -> dict[str, list[Decimal]]:
    """Series name -> dollars spent after each question (id order); judge calls excluded."""
    ordered = _ordered(records)
    series: dict[str, list[Decimal]] = {}
    paired = [record for record in ordered if _paired(record)]
    for mode in sorted({record.mode for record in paired}):
        series[mode] = _running_totals(price_calls(record.mode_calls, card)
                                       for record in paired if record.mode == mode)
    # Every mode paired with a question shares its one inject answer: count it once, taking
    # the calls of the question's first record.
    first: dict[str, ItemRecord] = {}
    for record in ordered:
        first.setdefault(record.question_id, record)
    inject_calls = [record.inject_calls for record in first.values()]
    series[INJECT_WARM] = _running_totals(price_calls(calls, card) for calls in inject_calls)
    # Cold: the 5-minute cache expired between questions, so every read was a fresh write.
    series[INJECT_COLD] = _running_totals(
        price_calls(map(_as_cache_write, calls), card) for calls in inject_calls)
    return series


def _draw_cost_chart(series: Mapping[str, Sequence[Decimal]], card: PriceCard) -> bytes:
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as error:
        raise RuntimeError(f"{COST_CHART_FILE} needs matplotlib (pip install "
                           f"'matplotlib>=3.8'): {error}") from None
    figure = Figure(figsize=(8, 5), dpi=100)
    axes = figure.add_subplot()
    styles = {INJECT_WARM: "--", INJECT_COLD: ":"}
    for name, totals in series.items():
        if totals:
            axes.plot(range(1, len(totals) + 1), [float(total) for total in totals],
                      styles.get(name, "-"), marker="o", markersize=3, label=name)
    if not any(series.values()):
        axes.text(0.5, 0.5, "no questions answered", ha="center", transform=axes.transAxes)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("questions answered (in question id order)")
    axes.set_ylabel("cumulative cost (USD)")
    axes.set_title(f"Cumulative cost per arm, price card {card.label}")
    figure.text(0.5, 0.01, "Judge calls are excluded: they are the benchmark's cost, "
                "not an arm's.", ha="center", fontsize=8)
    if any(series.values()):
        axes.legend(fontsize=8)
    axes.grid(True, alpha=0.3)
    figure.subplots_adjust(bottom=0.15)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


# ---- report.md -----------------------------------------------------------------------------


def _cell(text: str) -> str:
    # A pipe would end the cell and a newline the row.
    return " ".join(text.split()).replace("|", "\\|")


def _keyfacts_cell(facts: KeyFacts | None, *, control: bool) -> str:
    if facts is None:
        return _NONE
    if control:
        return "declined" if facts.declined else "not declined"
    shown = f"{len(facts.found)}/{len(facts.found) + len(facts.missing)}"
    return f"{shown}, declined" if facts.declined else shown


def _mode_table(records: Sequence[ItemRecord], card: PriceCard) -> list[str]:
    lines = [("| question | kind | verdict | key facts (inject) | key facts (mode) "
              "| evidence recall | payload tokens | mode cost | inject cost |"),
             "|---|---|---|---|---|---:|---:|---:|---:|"]
    mode_total = inject_total = Cost()
    for record in records:
        mode_cost = price_calls(record.mode_calls, card)
        inject_cost = price_calls(record.inject_calls, card)
        mode_total = mode_total + mode_cost
        inject_total = inject_total + inject_cost
        control = record.out_of_scope
        recall = record.evidence_recall
        cells = (record.question_id, record.kind, record.verdict or _NONE,
                 _keyfacts_cell(record.keyfacts_inject, control=control),
                 _keyfacts_cell(record.keyfacts_mode, control=control),
                 _NONE if recall is None else f"{recall:.0%}", f"{record.payload_tokens:,}",
                 format_usd(mode_cost.total) if _paired(record) else _NONE,
                 format_usd(inject_cost.total))
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    lines.append(f"| **total** | | | | | | | {format_usd(mode_total.total)} "
                 f"| {format_usd(inject_total.total)} |")
    return lines


def _scalar(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _is_scalar(value: object) -> bool:
    return not isinstance(value, (Mapping, list, tuple))


def _summary_lines(value: object, depth: int = 0) -> list[str]:
    """Render nested builtins as an indented markdown list, scalars and flat lists inline."""
    indent = "  " * depth
    if isinstance(value, Mapping):
        items: list[tuple[str, object]] = [(f"**{key}**:", item) for key, item in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"{number}.", item) for number, item in enumerate(value, start=1)]
    else:
        return [f"{indent}- {_scalar(value)}"]
    lines: list[str] = []
    for label, item in items:
        if _is_scalar(item):
            lines.append(f"{indent}- {label} {_scalar(item)}")
        elif isinstance(item, (list, tuple)) and all(map(_is_scalar, item)):
            lines.append(f"{indent}- {label} [{', '.join(map(_scalar, item))}]")
        elif not item:
            lines.append(f"{indent}- {label} (empty)")
        else:
            lines.append(f"{indent}- {label}")
            lines.extend(_summary_lines(item, depth + 1))
    return lines


def _report_markdown(records: Sequence[ItemRecord], summary: Mapping[str, object], backend: str,
                     models: Mapping[str, str], card: PriceCard) -> str:
    named = ", ".join(f"{role} `{model}`" for role, model in models.items()) or _NONE
    lines = [f"# legalbench report: backend `{backend}`, models {named}", "",
             f"Costs at price card {card.label}; judge calls are not counted in either arm.",
             ("Key facts: required facts found / required; a control question should be "
              "declined.")]
    for mode in sorted({record.mode for record in records}):
        lines += ["", f"## {mode}", ""]
        lines += _mode_table([record for record in records if record.mode == mode], card)
    if not records:
        lines += ["", "No items were recorded."]
    lines += ["", "## Summary", ""]
    lines += _summary_lines(summary) if summary else ["(empty)"]
    return "\n".join(lines) + "\n"


# ---- results.json and verdicts.csv ---------------------------------------------------------


def _results_json(records: Sequence[ItemRecord], summary: Mapping[str, object], backend: str,
                  models: Mapping[str, str]) -> str:
    data = {"format_version": RECORD_FORMAT, "backend": backend, "models": dict(models),
            "records": [record.to_dict() for record in records], "summary": summary}
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{RESULTS_FILE}: the summary or a record is not plain JSON data: "
                         f"{error}") from None
    return text + "\n"


def _verdicts_csv(records: Sequence[ItemRecord]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(VERDICT_COLUMNS)
    for record in records:
        if record.verdict is None:
            continue
        # An unreadable raw verdict has no text; the combined verdict says "unscored".
        writer.writerow((record.question_id, record.mode, record.question,
                         record.reference or "", record.inject_answer, record.mode_answer or "",
                         record.raw_forward or "", record.raw_reverse or "", record.verdict,
                         "", ""))
    return buffer.getvalue()


class Serialisable(Protocol):
    """A summary as report files hold it: plain builtins on request (``Summary`` is one)."""

    def to_dict(self) -> Mapping[str, object]:
        """The summary as nested plain builtins."""
        ...


def write_report(folder: Path, *, records: Sequence[ItemRecord], summary: Serialisable,
                 backend: str, models: Mapping[str, str], card: PriceCard) -> list[Path]:
    """Write results.json, report.md, verdicts.csv and cost.png into ``folder``; return them."""
    ordered = _ordered(records)
    plain = summary.to_dict()
    paths = [folder / name for name in (RESULTS_FILE, REPORT_FILE, VERDICTS_FILE,
                                        COST_CHART_FILE)]
    # results.json first: it holds everything, so it survives a failure in a later file.
    write_text_atomic(paths[0], _results_json(ordered, plain, backend, models))
    write_text_atomic(paths[1], _report_markdown(ordered, plain, backend, models, card))
    write_text_atomic(paths[2], _verdicts_csv(ordered))
    write_bytes_atomic(paths[3], _draw_cost_chart(cumulative_costs(ordered, card), card))
    return paths
