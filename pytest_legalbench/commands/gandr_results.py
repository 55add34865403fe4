"""``legalbench gandr-summary``: a stored GANDR run re-scored and summarised, no model calls."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem
from pytest_legalbench.files.record_json import to_builtins


def register(commands: Any) -> None:
    """Add the ``gandr-summary`` subcommand."""
    summary = commands.add_parser(
        "gandr-summary", help="re-score the stored answers of a GANDR run (grounding, citation-"
                              "form normalisation, Stable & Correct@k) and print its summary")
    summary.add_argument("report", type=Path,
                         help="the --legalbench-report folder (or its gandr-results.json)")
    summary.add_argument("--json", action="store_true", help="print the summary as JSON")
    summary.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    summary.set_defaults(run=run_summary)


def run_summary(args: argparse.Namespace, progress: Progress) -> int:
    """Print the re-scored summary; say how many repeats changed their grounding."""
    from pytest_legalbench.gandr.report import ResultsFileError, read_records
    from pytest_legalbench.gandr.rescore import rescore
    from pytest_legalbench.gandr.summary import gandr_lines, summarise_gandr
    from pytest_legalbench.llm.pricing import load_price_card

    try:
        stored = read_records(args.report)
    except ResultsFileError as error:
        raise UsageProblem(str(error)) from None
    rescored = [rescore(record) for record in stored]
    changed = sum((a.grounded, a.normalised_grounded) != (b.grounded, b.normalised_grounded)
                  for old, new in zip(stored, rescored, strict=True)
                  for a, b in zip(old.repeats, new.repeats, strict=True))
    progress(f"re-scored {len(rescored)} records; {changed} repeats changed their grounding")
    summary = summarise_gandr(rescored, load_price_card())
    if args.json:
        print(json.dumps(to_builtins(summary), indent=2, sort_keys=True))
    else:
        print("\n".join(gandr_lines(summary)))
    return 0
