"""``legalbench report RESULTS``: report.html for a stored run, from its report folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem


def register(commands: Any) -> None:
    """Add the ``report`` subcommand."""
    report = commands.add_parser(
        "report", help="write report.html for a stored run: its summary and every item, one "
                       "self-contained page (GANDR items too, from gandr-results.json beside it)")
    report.add_argument("results", type=Path,
                        help="a --legalbench-report folder, its results.json, or its "
                             "gandr-results.json")
    report.add_argument("--out", type=Path, help="the page to write (default: report.html "
                                                 "beside the results)")
    report.add_argument("--price-card", type=Path, metavar="FILE",
                        help="price card to cost the items with (default: the packaged one)")
    report.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    report.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, progress: Progress) -> int:
    """Write the page; say where, and whether the price card differs from the run's."""
    from pytest_legalbench.files.atomic_write import write_text_atomic
    from pytest_legalbench.gandr.report import RESULTS_FILE as GANDR_FILE
    from pytest_legalbench.gandr.report import ResultsFileError as GandrFileError
    from pytest_legalbench.gandr.report import read_records
    from pytest_legalbench.llm.pricing import load_price_card
    from pytest_legalbench.results.html_page import REPORT_HTML_FILE
    from pytest_legalbench.results.results_file import RESULTS_FILE, ResultsFileError, read_run
    from pytest_legalbench.run.html_report import report_html

    given: Path = args.results
    folder = given if given.is_dir() else given.parent
    if not given.exists():
        raise UsageProblem(f"{given}: no such report folder or results file")
    # A results file names its folder; the other product's file is read from beside it.
    qa_file = given if given.is_file() and given.name != GANDR_FILE else folder / RESULTS_FILE
    gandr_file = folder / GANDR_FILE
    try:
        qa = read_run(qa_file) if qa_file.is_file() else None
        gandr = read_records(gandr_file) if gandr_file.is_file() else None
    except (ResultsFileError, GandrFileError) as error:
        raise UsageProblem(str(error)) from None
    if qa is None and gandr is None:
        raise UsageProblem(f"{folder}: neither {RESULTS_FILE} nor {GANDR_FILE}; run the "
                           f"benchmark with --legalbench-report")
    card = load_price_card(args.price_card)
    warnings = []
    if qa is not None and qa.header.price_card not in (card.label, "unknown"):
        warnings.append(f"the run was priced with card {qa.header.price_card}; the items here "
                        f"with {card.label} (pass --price-card for the run's)")
    out: Path = args.out or folder / REPORT_HTML_FILE
    write_text_atomic(out, report_html(qa, gandr, card, warnings=warnings))
    progress(f"wrote {out}")
    print(out)
    return 0
