"""``legalbench audit-export`` and ``audit-agreement``: the GANDR claim audit checked by people."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem


def register(commands: Any) -> None:
    """Add the ``audit-export`` and ``audit-agreement`` subcommands."""
    export = commands.add_parser(
        "audit-export", help="write the audited claims of a GANDR report as a blind CSV sheet "
                             "for annotators")
    export.add_argument("report", type=Path,
                        help="the --legalbench-report folder (or its gandr-results.json)")
    export.add_argument("--out", type=Path, required=True, help="CSV file to write")
    export.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    export.set_defaults(run=run_export)
    agree = commands.add_parser(
        "audit-agreement", help="agreement of annotators' claim labels with each other and "
                                "with the audit tool")
    agree.add_argument("report", type=Path,
                       help="the --legalbench-report folder (or its gandr-results.json)")
    agree.add_argument("sheets", type=Path, nargs="+", metavar="SHEET",
                       help="one or two labelled sheets from audit-export (label column: "
                            "SUPPORTED, PARTIAL, UNSUPPORTED or MISCITED; blank = not labelled)")
    agree.add_argument("--json", action="store_true", help="print JSON instead of a table")
    agree.add_argument("-q", "--quiet", action="store_true", help="(accepted; prints no progress)")
    agree.set_defaults(run=run_agreement)


def run_export(args: argparse.Namespace, progress: Progress) -> int:
    """Write the sheet and say how many claims it holds."""
    from pytest_legalbench.files.atomic_write import write_text_atomic
    from pytest_legalbench.gandr.claim_sheet import ClaimSheetError, audited_rows, sheet_text

    try:
        rows = list(audited_rows(args.report))
    except ClaimSheetError as error:
        raise UsageProblem(str(error)) from None
    if not rows:
        raise UsageProblem(f"{args.report}: no audited claims (was --mode gandr run?)")
    write_text_atomic(args.out, sheet_text(rows))
    progress(f"wrote {len(rows)} claims to {args.out} (tool labels left out)")
    return 0


def run_agreement(args: argparse.Namespace, progress: Progress) -> int:
    """Print kappa, exact agreement and the tool's detection precision, recall and F1."""
    from pytest_legalbench.gandr.claim_sheet import (
        ClaimSheetError,
        agreement_report,
        audited_rows,
        read_labels,
    )

    if len(args.sheets) > 2:
        raise UsageProblem("audit-agreement takes one or two sheets")
    try:
        tool = {row.key: row.tool_label for row in audited_rows(args.report)}
        sheets = [read_labels(path) for path in args.sheets]
        report = agreement_report(tool, sheets[0], sheets[1] if len(sheets) == 2 else None)
    except ClaimSheetError as error:
        raise UsageProblem(str(error)) from None
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    for name, entry in report.items():
        assert isinstance(entry, dict)
        line = (f"{name.replace('_', '-')}: {entry['items']} claims, kappa "
                f"{_number(entry['kappa'])}, exact agreement {_number(entry['exact_agreement'])}")
        print(line)
        found = entry.get("detection")
        if isinstance(found, dict):
            print(f"  tool as a detector of claims needing attention (PARTIAL, UNSUPPORTED, "
                  f"MISCITED): precision {_number(found['precision'])}, recall "
                  f"{_number(found['recall'])}, F1 {_number(found['f1'])}")
    return 0


def _number(value: object) -> str:
    return "undefined" if value is None else f"{value:.3f}"
