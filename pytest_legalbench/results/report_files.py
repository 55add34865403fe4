"""The files a benchmark run leaves behind: results.json, report.md, verdicts.csv, cost.png and
recall_payload.png (report.html, which can also show GANDR's items, is written by the run).

Every file is built from the session's ``ItemRecord`` list alone and written atomically, so a
reader never sees half a report. Records are always taken in (question_id, mode) order, which
makes the files identical for identical runs however xdist interleaved the items.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_legalbench import __version__
from pytest_legalbench.files.atomic_write import write_bytes_atomic, write_text_atomic
from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.pricing import Cost, PriceCard, format_usd, price_calls
from pytest_legalbench.results.cost_chart import COST_CHART_FILE, cumulative_costs, draw_cost_chart
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.provision_table import Excerpts, ProvisionPlace
from pytest_legalbench.results.recall_chart import RECALL_CHART_FILE, draw_recall_chart
from pytest_legalbench.results.record_order import is_paired, ordered
from pytest_legalbench.results.results_file import RESULTS_FILE, StoredRun, results_json
from pytest_legalbench.results.run_header import (
    PARTIAL_NOTE,
    UNKNOWN,
    CorpusIdentity,
    RunHeader,
    report_date,
    sorted_modes,
)
from pytest_legalbench.results.statistics_lines import statistics_lines
from pytest_legalbench.results.summary import Summary
from pytest_legalbench.results.verdict_split import audit_flag, split_verdicts
from pytest_legalbench.results.verdicts_file import VERDICTS_FILE, verdicts_csv

REPORT_FILE = "report.md"

_NONE = "—"


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
    lines = [("| question | kind | verdict | key facts (inject) | key facts (mode) | audit "
              "| evidence recall | payload tokens | mode cost | inject cost |"),
             "|---|---|---|---|---|---|---:|---:|---:|---:|"]
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
                 audit_flag(record) or _NONE,
                 _NONE if recall is None else f"{recall:.0%}", f"{record.payload_tokens:,}",
                 format_usd(mode_cost.total) if is_paired(record) else _NONE,
                 format_usd(inject_cost.total))
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    lines.append(f"| **total** | | | | | | | | {format_usd(mode_total.total)} "
                 f"| {format_usd(inject_total.total)} |")
    return lines


def _scalar(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _is_scalar(value: object) -> bool:
    return not isinstance(value, (Mapping, list, tuple))


def summary_markdown(summary: Summary) -> list[str]:
    """The summary as report.md shows it: the form results.json holds, as nested lists."""
    return _nested_lines(to_builtins(summary))


def _nested_lines(value: object, depth: int = 0) -> list[str]:
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
            lines.extend(_nested_lines(item, depth + 1))
    return lines


def _report_markdown(records: Sequence[ItemRecord], summary: Summary, backend: str,
                     models: Mapping[str, str], card: PriceCard, partial: str = "") -> str:
    named = ", ".join(f"{role} `{model}`" for role, model in models.items()) or _NONE
    title = f"legalbench report ({partial})" if partial else "legalbench report"
    lines = [f"# {title}: backend `{backend}`, models {named}", "",
             f"Costs at price card {card.label}; judge calls are not counted in either arm.",
             ("Key facts: required facts found / required; a control question should be "
              "declined. Audit: a tie whose answers differ on key facts, or a win of an "
              "answer failing them.")]
    for mode in sorted({record.mode for record in records}):
        lines += ["", f"## {mode}", ""]
        chosen = [record for record in records if record.mode == mode]
        lines += _mode_table(chosen, card)
        lines += _split_table(chosen, mode)
    if not records:
        lines += ["", "No items were recorded."]
    if summary.statistics is not None and summary.statistics.comparisons:
        # The terminal's block, as printed: the compact form reads better than nested lists.
        lines += ["", "## Statistics", "", "```text", *statistics_lines(summary.statistics),
                  "```"]
    lines += ["", "## Summary", ""]
    lines += summary_markdown(summary)
    return "\n".join(lines) + "\n"


def _split_table(records: Sequence[ItemRecord], mode: str) -> list[str]:
    """The tie split of one mode's judged items: a table per question group."""
    lines: list[str] = []
    for label, group in (("document-bound", [r for r in records if not r.out_of_scope]),
                         ("out-of-scope", [r for r in records if r.out_of_scope])):
        split = split_verdicts(group)
        if not split.scored:
            continue
        lines += ["", (f"Verdicts by key facts ({label}; rates over {split.scored} scored "
                      "items):"), "",
                  ("| verdict | both pass | both fail | key facts differ | won by a failing "
                  "answer |"), "|---|---|---|---|---|"]
        for outcome, name in (("tie", "ties"), ("inject", "inject wins"),
                              ("mode", f"{mode} wins")):
            cells = split.cells(outcome)
            failing = split.failing_winners(outcome)
            row = (name, split.rate(cells.both_pass).text(), split.rate(cells.both_fail).text(),
                   split.rate(cells.differ).text(),
                   _NONE if failing is None else split.rate(failing).text())
            lines.append("| " + " | ".join(row) + " |")
    return lines


def minimal_header(backend: str, models: Mapping[str, str], card: PriceCard,
                   records: Sequence[ItemRecord]) -> RunHeader:
    """A header from what every caller knows, the rest ``unknown``."""
    return RunHeader(backend=backend, models=dict(models), price_card=card.label,
                     corpus=CorpusIdentity(UNKNOWN, 0, UNKNOWN),
                     modes=sorted_modes(r.mode for r in records), judge=UNKNOWN,
                     questions=UNKNOWN, date=report_date(), package_version=__version__)


def write_report(folder: Path, *, records: Sequence[ItemRecord], summary: Summary,
                 backend: str, models: Mapping[str, str], card: PriceCard,
                 header: RunHeader | None = None,
                 provisions: tuple[Mapping[str, ProvisionPlace], Excerpts] | None = None,
                 ) -> list[Path]:
    """Write results.json, report.md, verdicts.csv, cost.png and recall_payload.png into
    ``folder``; return their paths in that order."""
    found = ordered(records)
    places, excerpts = provisions or ({}, Excerpts({}))
    run = StoredRun(header=header or minimal_header(backend, models, card, found),
                    records=tuple(found), summary=summary, provisions=dict(places),
                    excerpts=excerpts)
    paths = [folder / name for name in (RESULTS_FILE, REPORT_FILE, VERDICTS_FILE,
                                        COST_CHART_FILE, RECALL_CHART_FILE)]
    # results.json first: it holds everything, so it survives a failure in a later file.
    write_text_atomic(paths[0], results_json(run))
    partial = next((note for note in run.header.notes if note.startswith(PARTIAL_NOTE)), "")
    write_text_atomic(paths[1], _report_markdown(found, summary, backend, models, card, partial))
    write_text_atomic(paths[2], verdicts_csv(found))
    write_bytes_atomic(paths[3], draw_cost_chart(cumulative_costs(found, card), card))
    write_bytes_atomic(paths[4], draw_recall_chart(found))
    return paths
