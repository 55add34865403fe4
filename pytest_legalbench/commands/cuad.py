"""``legalbench cuad-manifest``, ``legalbench cuad-spans`` and ``legalbench cuad-questions``:
what is generated from CUAD's contract folder and its ``master_clauses.csv``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_folder_options,
    cache_folder,
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
    questions = commands.add_parser(
        "cuad-questions",
        help="generate the cuad question profile from CUAD's annotations (into the cache, "
             "once per input, unless --out is given)")
    add_folder_options(questions)
    questions.add_argument("--out", type=Path,
                           help="write the question files into this new or empty folder "
                                "instead of the cache")
    questions.add_argument("--manifest", type=Path,
                           help="the cuad manifest naming the contracts, their families and "
                                "checksums (default: the packaged corpus/cuad.yaml)")
    questions.add_argument("--report", type=Path,
                           help="write the generation report (JSON: counts per category, "
                                "every unlocated excerpt, every question not generated) here")
    questions.add_argument("--json", action="store_true",
                           help="print the folder, digest and counts as JSON")
    questions.add_argument("-q", "--quiet", action="store_true", help="no progress or counts")
    questions.set_defaults(run=run_questions)


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


def run_questions(args: argparse.Namespace, progress: Progress) -> int:
    """Generate (or find) the question set; print where it is, its digest and its counts."""
    from pytest_legalbench.spans.cuad_question_set import cuad_question_set
    from pytest_legalbench.spans.cuad_questions import (
        REPORT_FILE,
        generate_cuad_questions,
        write_question_set,
    )

    corpus = _folder(args)
    if args.out is not None:
        if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
            raise UsageProblem(f"--out {args.out}: not an empty folder (nothing was written)")
        generated = generate_cuad_questions(corpus, manifest_path=args.manifest,
                                            progress=progress)
        write_question_set(generated, args.out)
        folder, digest = args.out, generated.digest
        questions, controls = generated.report.questions, generated.report.controls
    else:
        found = cuad_question_set(corpus, cache_folder(args), manifest_path=args.manifest,
                                  progress=progress)
        folder, digest = found.folder, found.digest
        questions, controls = found.questions, found.controls
    report_text = (folder / REPORT_FILE).read_text(encoding="utf-8")
    if args.report is not None:
        write_text_atomic(args.report, report_text)
    if args.json:
        print(json.dumps({"folder": str(folder), "digest": digest, "questions": questions,
                          "controls": controls}))
    elif not args.quiet:
        report = json.loads(report_text)
        located = f"{report['located']}/{report['excerpts']}"
        print(f"{questions} cuad questions ({questions - controls} with evidence, {controls} "
              f"controls) in {folder}\nset digest {digest}\nexcerpts located {located}, "
              f"unlocated {report['unlocated_count']}; questions not generated "
              f"{report['skipped_count']} (reasons in the report)")
    return 0
