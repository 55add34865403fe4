"""The ``legalbench`` command: build and inspect the structured index of a corpus."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .corpus_index import Selection, build_indexes, load_documents
from .ingest.document import CorpusError, Document
from .ingest.loading import describe_inference
from .inject import DEFAULT_CONTEXT_WINDOW
from .locations import CORPUS_ENV, DEFAULT_PROFILE, cache_dir, corpus_dir
from .navindex.schema import DEFAULT_RUNG, RUNGS
from .navindex.statistics import attention_lines, corpus_stats, document_stats
from .navindex.store import save_document
from .settings import BACKENDS, DEFAULT_ANSWER_MODEL
from .tokens import TOKEN_ESTIMATE


def _selectors(parser: argparse.ArgumentParser) -> None:
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--profile", help=f"packaged corpus profile (default: {DEFAULT_PROFILE})")
    chosen.add_argument("--docs", type=Path, help="any folder of .txt/.htm/.html documents")
    parser.add_argument("--corpus-dir", type=Path,
                        help=f"folder holding the profile's documents (default: ${CORPUS_ENV})")
    parser.add_argument("--cache-dir", type=Path,
                        help="cache folder (default: $LEGALBENCH_CACHE_DIR or ~/.cache)")
    parser.add_argument("--no-cache", action="store_true", help="build without reading the cache")
    parser.add_argument("--rung", choices=RUNGS, default=DEFAULT_RUNG,
                        help="descriptor rung of the index files and sizes (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _query_options(parser: argparse.ArgumentParser) -> None:
    from .modes.registry import DEFAULT_STRATEGY, mode_names

    _selectors(parser)
    parser.add_argument("--mode", default="inject",
                        help=f"retrieval mode: {', '.join(mode_names())}; navembed alone means "
                             f"navembed:{DEFAULT_STRATEGY} (default: %(default)s)")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="'reference' (embedded, no key) or 'anthropic'; default: anthropic "
                             "when ANTHROPIC_API_KEY is set, else reference")
    parser.add_argument("--base-url", help="Messages-API server (default: $ANTHROPIC_BASE_URL)")
    parser.add_argument("--context-window", type=int, default=DEFAULT_CONTEXT_WINDOW,
                        help="context window in tokens (default: %(default)s)")
    parser.add_argument("--cross-encoder", help="cross-encoder model path for navembed:rerank")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``legalbench`` command."""
    parser = argparse.ArgumentParser(prog="legalbench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    index = commands.add_parser("index", help="build the index files of a profile or folder")
    _selectors(index)
    index.add_argument("--out", type=Path, help="folder for the <doc>.index.json and "
                       "<doc>.full.json files (default: <cache>/indexes/<selection>)")
    stats = commands.add_parser("stats", help="print index statistics per document and in total")
    _selectors(stats)
    stats.add_argument("--json", action="store_true", help="print the statistics as JSON only")
    ask = commands.add_parser("ask", help="answer one question and print the ledger and cost")
    _query_options(ask)
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument("--model", default=DEFAULT_ANSWER_MODEL,
                     help="answering model (default: %(default)s)")
    ask.add_argument("--price-card", type=Path, help="price card JSON (default: packaged card)")
    ask.add_argument("--json", action="store_true", help="print the report as JSON")
    retrieve = commands.add_parser(
        "retrieve", help="print the provisions a mode retrieves, one JSON line per question")
    _query_options(retrieve)
    retrieve.add_argument("question", nargs="?", help="the question, in quotes")
    retrieve.add_argument("--questions", type=Path,
                          help='JSON Lines file of {"id", "question"} objects')
    retrieve.add_argument("--json", action="store_true",
                          help="JSON output (the only format; accepted for symmetry)")
    return parser


class _Progress:
    """Progress lines on stderr, numbered, with elapsed time."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.started = time.monotonic()
        self.count = 0

    def __call__(self, message: str) -> None:
        self.count += 1
        if not self.quiet:
            elapsed = time.monotonic() - self.started
            print(f"[{elapsed:6.1f}s] {message}", file=sys.stderr, flush=True)


def _load(args: argparse.Namespace, progress: _Progress) -> tuple[Selection, tuple[Document, ...]]:
    selection = Selection(profile=args.profile or (None if args.docs else DEFAULT_PROFILE),
                          docs=args.docs)
    documents = load_documents(selection, corpus_dir=corpus_dir(args.corpus_dir),
                               cache_dir=cache_dir(args.cache_dir), progress=progress)
    for warning in (w for d in documents for w in d.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if selection.docs is not None:
        for line in describe_inference(documents):
            print(f"inferred: {line}", file=sys.stderr)
    return selection, documents


def _index(args: argparse.Namespace, progress: _Progress) -> int:
    selection, documents = _load(args, progress)
    indexes = build_indexes(documents, cache_dir=None if args.no_cache else cache_dir(args.cache_dir),
                            progress=progress)
    label = selection.docs.name if selection.docs is not None else selection.profile
    out = args.out or cache_dir(args.cache_dir) / "indexes" / str(label)
    for position, index in enumerate(indexes, 1):
        save_document(index, out, args.rung)
        progress(f"wrote {position}/{len(indexes)} {index.doc_id}")
    nodes = sum(len(i.nodes) for i in indexes)
    print(f"indexed {len(indexes)} documents ({selection.describe()}), {nodes} nodes, "
          f"rung {args.rung}: {out}")
    return 0


def _stats(args: argparse.Namespace, progress: _Progress) -> int:
    _, documents = _load(args, progress)
    indexes = build_indexes(documents, cache_dir=None if args.no_cache else cache_dir(args.cache_dir),
                            progress=progress)
    stats = [document_stats(i, d.text, args.rung) for i, d in zip(indexes, documents)]
    report = corpus_stats(stats, args.rung)
    crossover, crossover_lines = _crossover(documents,
                                            sum(s.index_tokens_optimised for s in stats))
    report["crossover"] = crossover
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    _print_table(report)
    print()
    for line in attention_lines(indexes, stats):
        print(line)
    print()
    for line in crossover_lines:
        print(line)
    return 0


def _crossover(documents: Sequence[Document],
               index_tokens: int) -> tuple[dict[str, object], list[str]]:
    """The caching break-even of SPEC §7 for this corpus, on the default price card."""
    from .crossover import ceiling_lines, navigate_payload_ceiling, navindex_payload_ceiling
    from .pricing import load_price_card
    from .prompts import document_block
    from .tokens import estimate_tokens

    card = load_price_card()
    corpus = estimate_tokens(document_block((d.doc_id, d.title, d.text) for d in documents))
    navigate = navigate_payload_ceiling(corpus, card.prices)
    navindex = navindex_payload_ceiling(corpus, index_tokens, card.prices)
    lines = ceiling_lines(corpus, index_tokens, card.prices)
    return {
        "price_card": card.label, "corpus_tokens": corpus, "index_tokens": index_tokens,
        "navigate_payload_ceiling": None if navigate is None else float(navigate),
        "navindex_payload_ceiling": None if navindex is None else float(navindex),
        "summary": " ".join(line.strip() for line in lines),
    }, lines


def _print_table(report: dict[str, object]) -> None:
    columns = ("nodes", "definitions", "toc_entries", "xrefs_found", "xrefs_resolved",
               "xrefs_external", "xrefs_unfiled", "coverage", "index_tokens",
               "index_tokens_optimised")
    header = ("doc_id", "nodes", "defs", "toc", "xref", "resolved", "external", "unfiled",
              "coverage", "index tok", "optimised")
    rows: list[tuple[str, ...]] = []
    documents = report["documents"]
    assert isinstance(documents, list)
    total = report["total"]
    assert isinstance(total, dict)
    for entry in [*documents, {"doc_id": f"TOTAL ({total['documents']} documents)", **total}]:
        rows.append((str(entry["doc_id"])[:48],
                     *(f"{entry[c]:.4f}" if c == "coverage" else str(entry[c]) for c in columns)))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))))
    print(f"\nxref resolution rate {float(total['xref_resolution_rate']):.4f}; index sizes at "
          f"rung {report['rung']}, tokens estimated as {TOKEN_ESTIMATE}")


def _open_query(args: argparse.Namespace, progress: _Progress) -> Any:
    from .ask import query_session
    from .modes.base import ModeSettings
    from .modes.registry import parse_mode

    try:
        mode = parse_mode(args.mode)
        settings = ModeSettings(context_window=args.context_window,
                                cross_encoder=args.cross_encoder)
    except ValueError as error:
        raise _UsageProblem(str(error)) from None
    _, documents = _load(args, progress)
    # Inject sends whole documents, so it never needs the index built.
    indexes = () if mode == "inject" else build_indexes(
        documents, cache_dir=None if args.no_cache else cache_dir(args.cache_dir),
        progress=progress)
    return query_session(documents, indexes, mode=mode, backend=args.backend,
                         base_url=args.base_url, settings=settings,
                         cache_dir=None if args.no_cache else cache_dir(args.cache_dir))


def _ask(args: argparse.Namespace, progress: _Progress) -> int:
    from .ask import ask, report_json, report_lines
    from .pricing import load_price_card

    card = load_price_card(args.price_card)
    with _open_query(args, progress) as session:
        retrieval, completion = ask(session, args.question, args.model)
        if args.json:
            print(report_json(retrieval, completion, session, card))
        else:
            print("\n".join(report_lines(retrieval, completion, session, card)))
    return 0


def _retrieve(args: argparse.Namespace, progress: _Progress) -> int:
    from .ask import retrieval_line

    if (args.question is None) == (args.questions is None):
        raise _UsageProblem("give either a question or --questions FILE.jsonl")
    questions = ([(None, args.question)] if args.questions is None
                 else _read_questions(args.questions))
    with _open_query(args, progress) as session:
        for position, (question_id, question) in enumerate(questions, 1):
            retrieval = session.mode.retrieve(question, question_id=question_id)
            print(retrieval_line(retrieval, question_id, question), flush=True)
            progress(f"retrieved {position}/{len(questions)} {question_id or ''}".rstrip())
    return 0


class _UsageProblem(ValueError):
    """A command line that cannot run as given."""


def _read_questions(path: Path) -> list[tuple[str | None, str]]:
    questions: list[tuple[str | None, str]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise _UsageProblem(f"{path}: cannot read ({error.strerror})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise _UsageProblem(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("question"), str):
            raise _UsageProblem(f'{path}:{number}: expected {{"id", "question"}} with a '
                                f"string question")
        identifier = record.get("id")
        questions.append((None if identifier is None else str(identifier), record["question"]))
    return questions


def _run_errors() -> tuple[type[Exception], ...]:
    from .client import BackendConfigError, ModelCallError
    from .modes.base import ModeUnavailable
    from .pricing import PriceCardError

    # The failures a user can cause or meet; anything else is a bug and keeps its traceback.
    return (CorpusError, _UsageProblem, BackendConfigError, ModelCallError, ModeUnavailable,
            PriceCardError)


_RUN_ERRORS = _run_errors()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``legalbench`` command line; return its exit status."""
    args = build_parser().parse_args(argv)
    progress = _Progress(args.quiet)
    try:
        if args.command == "index":
            return _index(args, progress)
        if args.command == "ask":
            return _ask(args, progress)
        if args.command == "retrieve":
            return _retrieve(args, progress)
        return _stats(args, progress)
    except _RUN_ERRORS as error:
        print(f"legalbench: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
