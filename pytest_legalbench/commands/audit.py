"""``legalbench audit``: the judge's error rate from a verdicts.csv a person has audited."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem


def register(commands: Any) -> None:
    """Add the ``audit`` subcommand."""
    audit = commands.add_parser(
        "audit", help="report the judge's error rate from an audited verdicts.csv")
    audit.add_argument("verdicts", type=Path,
                       help="verdicts.csv from --legalbench-report, with the auditor_verdict "
                            "column filled in (inject, mode or tie; blank rows are not audited)")
    audit.add_argument("-q", "--quiet", action="store_true", help="(accepted; prints no progress)")
    audit.set_defaults(run=run_audit)


def run_audit(args: argparse.Namespace, progress: Progress) -> int:
    """Print how often the judge agreed with the auditor, with a Clopper-Pearson interval."""
    from pytest_legalbench.results.judge_audit import AuditFileError, audit_lines, read_audit

    try:
        result = read_audit(args.verdicts)
    except AuditFileError as error:
        raise UsageProblem(str(error)) from None
    print("\n".join(audit_lines(result)))
    return 0
