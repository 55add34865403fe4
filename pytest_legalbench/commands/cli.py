"""The legalbench command: index a corpus, query it, measure retrieval, generate the CUAD files,
audit GANDR runs, and render or compare stored runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pytest_legalbench import __version__
from pytest_legalbench.commands import (
    audit,
    batches,
    claim_audit,
    compare,
    corpus,
    cuad,
    evaluate,
    gandr_results,
    mcp,
    plan,
    power,
    query,
    reference_pages,
    report,
    schema,
    spans,
    vectors,
)
from pytest_legalbench.commands.common import Progress, UsageProblem
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.run.blas_threads import one_blas_thread
from pytest_legalbench.run.process_exit import exit_quickly


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``legalbench`` command."""
    parser = argparse.ArgumentParser(prog="legalbench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in (corpus, query, evaluate, plan, batches, spans, cuad, audit, claim_audit,
                    gandr_results, mcp, report, compare, power, vectors, schema,
                    reference_pages):
        command.register(commands)
    # For the subcommand that documents the command line (``docs-reference``).
    parser.set_defaults(command_line=parser)
    return parser


def _run_errors() -> tuple[type[Exception], ...]:
    from pytest_legalbench.ingest.questions import QuestionFileError
    from pytest_legalbench.llm.client import BackendConfigError
    from pytest_legalbench.llm.failures import ModelCallError
    from pytest_legalbench.llm.pricing import PriceCardError
    from pytest_legalbench.modes.base import ModeUnavailable
    from pytest_legalbench.spans.benchmark_file import BenchmarkFormatError

    # The failures a user can cause or meet (an unwritable --out path among them); anything
    # else is a bug and keeps its traceback.
    return (CorpusError, UsageProblem, BackendConfigError, ModelCallError, ModeUnavailable,
            PriceCardError, QuestionFileError, BenchmarkFormatError, OSError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``legalbench`` command line; return its exit status."""
    args = build_parser().parse_args(argv)
    exit_quickly()
    one_blas_thread()
    progress = Progress(args.quiet)
    try:
        status: int = args.run(args, progress)
    except _run_errors() as error:
        print(f"legalbench: error: {error}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
