"""report.html: a run's summary and every item, QA and GANDR alike, in one offline page.

Written at the end of a session with ``--legalbench-report`` from what the session measured,
and by ``legalbench report`` from a report folder's results.json and gandr-results.json.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.llm.pricing import PriceCard
from pytest_legalbench.results.html_page import REPORT_HTML_FILE, page
from pytest_legalbench.results.html_summary import header_html, summary_html, warnings_html
from pytest_legalbench.results.results_file import StoredRun

_HINT = ("Filter by mode, kind and outcome, sort by any column, and click a row to open the "
         "item: both answers, the judge's raw verdicts, the provisions with the evidence found "
         "in them highlighted, the quotes missed, and the ledger of calls.")


def _gandr_section(records: Sequence[GandrRecord], card: PriceCard) -> str:
    from pytest_legalbench.gandr.summary import gandr_lines, summarise_gandr

    lines = "\n".join(gandr_lines(summarise_gandr(records, card)))
    return (f'<section id="gandr"><h2>GANDR: claim-audited answers</h2>'
            f'<pre class="gandr-summary">{escape(lines)}</pre>'
            f'<p class="muted">Click a row to open the item: each repeat\'s memo, its grade, '
            f'the audit trace per round with the claim labels, and the passages.</p>'
            f'<div id="gandr-items"></div></section>')


def report_html(qa: StoredRun | None, gandr: Sequence[GandrRecord] | None, card: PriceCard,
                *, warnings: Sequence[str] = ()) -> str:
    """The page of a run: its QA part, its GANDR part, or both."""
    from pytest_legalbench.gandr.html_view import gandr_data
    from pytest_legalbench.results.html_data import CALL_FIELDS, qa_data

    parts = ["<h1>legalbench report</h1>", warnings_html(warnings)]
    title = "legalbench report"
    if qa is not None:
        header = qa.header
        title += f": {', '.join(header.modes)} on {header.backend}, {header.date}"
        parts += [header_html(header), summary_html(qa),
                  (f'<section id="qa"><h2>Items</h2><p class="muted">{escape(_HINT)}</p>'
                  f'<div id="qa-items"></div></section>')]
    if gandr:
        parts.append(_gandr_section(gandr, card))
    if qa is None and not gandr:
        parts.append("<p>No items were recorded.</p>")
    parts.append("<noscript><p class=\"warning\">The item tables need JavaScript; the summary "
                 "above reads without it.</p></noscript>")
    data = {"call_fields": list(CALL_FIELDS), "qa": qa_data(qa, card) if qa is not None else None,
            "gandr": gandr_data(gandr, card) if gandr else None}
    return page(title, "\n".join(parts), data)


def write_html_report(folder: Path, qa: StoredRun | None, gandr: Sequence[GandrRecord] | None,
                      card: PriceCard, *, warnings: Sequence[str] = ()) -> Path:
    """Write ``folder``/report.html; return its path."""
    path = folder / REPORT_HTML_FILE
    write_text_atomic(path, report_html(qa, gandr, card, warnings=warnings))
    return path
