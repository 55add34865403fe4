"""``legalbench compare A B``: two stored runs, mode by mode, with paired exact tests."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem
from pytest_legalbench.files.record_json import to_builtins


def register(commands: Any) -> None:
    """Add the ``compare`` subcommand."""
    compare = commands.add_parser(
        "compare", help="compare two stored runs per mode: changes in ties and wins, key facts, "
                        "recall, payload and cost, exact McNemar tests on the shared items, "
                        "and the questions that flipped")
    compare.add_argument("a", type=Path, help="run A: a --legalbench-report folder or its "
                                              "results.json")
    compare.add_argument("b", type=Path, help="run B, the same")
    compare.add_argument("--pair", action="append", default=[], metavar="MODE_A=MODE_B",
                         help="compare A's MODE_A with B's MODE_B (repeatable); by default "
                              "modes of the same name are paired, and the one mode each run "
                              "has left; when nothing pairs, the command names both runs' "
                              "modes and exits with status 2")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    compare.add_argument("--html", type=Path, metavar="OUT",
                         help="also write the comparison as a self-contained HTML page")
    compare.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    compare.set_defaults(run=run_compare)


def _pairs(values: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        mode_a, sep, mode_b = value.partition("=")
        if not sep or not mode_a or not mode_b:
            raise UsageProblem(f"--pair={value!r}: expected MODE_A=MODE_B, e.g. "
                               f"navembed:chunks=navembed:hybrid")
        pairs.append((mode_a, mode_b))
    return pairs


def run_compare(args: argparse.Namespace, progress: Progress) -> int:
    """Print the comparison (warnings first, also on stderr); write the page if asked."""
    from pytest_legalbench.results.comparison import compare_runs
    from pytest_legalbench.results.comparison_lines import comparison_body, comparison_lines
    from pytest_legalbench.results.results_file import ResultsFileError, read_run, results_path

    try:
        a, b = read_run(args.a), read_run(args.b)
    except ResultsFileError as error:
        raise UsageProblem(str(error)) from None
    label_a = f"{results_path(args.a)} ({a.header.backend}, {a.header.date})"
    label_b = f"{results_path(args.b)} ({b.header.backend}, {b.header.date})"
    try:
        found = compare_runs(a, b, label_a=label_a, label_b=label_b, named=_pairs(args.pair))
    except ValueError as error:
        raise UsageProblem(str(error)) from None
    for warning in found.warnings:
        print(f"legalbench compare: WARNING: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(to_builtins(found), indent=2, sort_keys=True))
    else:
        print("\n".join(comparison_lines(found)))
    if args.html is not None:
        from pytest_legalbench.files.atomic_write import write_text_atomic
        from pytest_legalbench.results.html_page import page

        write_text_atomic(args.html, page("legalbench compare", comparison_body(found),
                                          to_builtins(found), script=False))
        progress(f"wrote {args.html}")
    return 0
