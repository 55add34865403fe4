"""``legalbench cuad-manifest`` and ``legalbench cuad-spans``: the two files generated from
CUAD's contract folder and its ``master_clauses.csv``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_folder_options,
    corpus_folder,
)
from pytest_legalbench.defaults import CORPUS_ENV
from pytest_legalbench.files.atomic_write import write_text_atomic


def register(commands: Any) -> None:
    """Add the ``cuad-manifest`` and ``cuad-spans`` subcommands."""
    manifest = commands.add_parser(
        "cuad-manifest", help="generate the cuad profile manifest from the CUAD folder")
    add_folder_options(manifest)
    manifest.add_argument("--out", type=Path, required=True, help="manifest file to write")
    manifest.add_argument("-q", "--quiet", action="store_true",
                          help="do not print the matching report")
    manifest.set_defaults(run=run_manifest)
    spans = commands.add_parser(
        "cuad-spans", help="build a LegalBench-RAG span benchmark from CUAD's annotations")
    add_folder_options(spans)
    spans.add_argument("--out", type=Path, required=True, help="benchmark JSON file to write")
    spans.add_argument("--report", type=Path, help="write the full import report (JSON) here")
    spans.add_argument("-q", "--quiet", action="store_true", help="no progress or counts")
    spans.set_defaults(run=run_spans)


def _folder(args: argparse.Namespace) -> Path:
    folder = corpus_folder(args)
    if folder is None:
        raise UsageProblem(f"give --corpus-dir or set ${CORPUS_ENV} to the corpus mirror")
    return folder


def run_manifest(args: argparse.Namespace, progress: Progress) -> int:
    """Write the manifest; print how CSV rows matched contract files on stderr."""
    from pytest_legalbench.ingest.cuad_manifest import write_cuad_manifest

    report = write_cuad_manifest(_folder(args), args.out)
    if not args.quiet:
        for line in report:
            print(line, file=sys.stderr)
    return 0


def run_spans(args: argparse.Namespace, progress: Progress) -> int:
    """Write the span benchmark (and the report); print the counts on stderr."""
    from pytest_legalbench.spans.benchmark_file import benchmark_to_json
    from pytest_legalbench.spans.cuad_import import import_cuad

    benchmark, report = import_cuad(_folder(args), progress=progress)
    write_text_atomic(args.out, benchmark_to_json(benchmark))
    if args.report is not None:
        write_text_atomic(args.report, report.to_json())
    if not args.quiet:
        for line in report.summary_lines():
            print(line, file=sys.stderr)
    return 0
