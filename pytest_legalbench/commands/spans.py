"""``legalbench spans``: a LegalBench-RAG-format span benchmark scored at character level,
at k provisions or at a payload budget in characters."""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_backend_options,
    add_mode_sources,
    add_selectors,
    corpus_folder,
    indexes_of,
    load_selection,
    mode_help,
    open_query,
)
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.base import Provision
from pytest_legalbench.tokens import CHARS_PER_TOKEN

#: Provisions asked of a node-level mode per this many budget characters: enough that the
#: budget, not the list, runs out first, even when provisions are short.
_CHARS_PER_PROVISION = 100
#: The payload budget under -k: large enough never to be what stops a mode.
_UNBOUNDED_TOKENS = 10_000_000


def register(commands: Any) -> None:
    """Add the ``spans`` subcommand."""
    spans = commands.add_parser(
        "spans", help="score a LegalBench-RAG-format span benchmark (character precision/recall)")
    spans.add_argument("benchmark", type=Path,
                       help='JSON file {"tests": [{"query", "snippets": [{"file_path", '
                            '"span"}]}]}; file paths relative to --docs or the corpus folder')
    add_selectors(spans)
    spans.add_argument("--mode", required=True,
                       help=f"{mode_help()} (a retriever's question ids here are test-N, N "
                            f"the test's place in the benchmark file from 1)")
    add_mode_sources(spans)
    cut = spans.add_mutually_exclusive_group(required=True)
    cut.add_argument("-k", type=int, help="score the first K provisions")
    cut.add_argument("--budget-chars", type=int,
                     help="score provisions in rank order up to C characters")
    spans.add_argument("--sample", type=int,
                       help="score N tests spread evenly over the file (default: all)")
    spans.add_argument("--split", choices=("tune", "test"),
                       help="score only the tests of this split: tests are split by contract "
                            "family (the file name up to its first underscore) on a salted "
                            "hash, the visible question set's families always tuning "
                            "(spans.splits); a rule is decided on tune and reported on test")
    spans.add_argument("--by-tag", action="store_true",
                       help="also print recall, precision and the wrong-document rate per "
                            "tag (a CUAD test's clause category)")
    spans.add_argument("--json", action="store_true",
                       help="print the result as JSON (per-tag figures under by_tag)")
    add_backend_options(spans)
    spans.set_defaults(run=run_spans)


def run_spans(args: argparse.Namespace, progress: Progress) -> int:
    """Retrieve for every test's query and print precision and recall."""
    from pytest_legalbench.spans.benchmark_file import Snippet, read_benchmark
    from pytest_legalbench.spans.span_runs import score_test, summarise_by_tag, summarise_run

    for name, option in (("k", "-k"), ("budget_chars", "--budget-chars"),
                         ("sample", "--sample")):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageProblem(f"{option} must be a positive integer, got {value}")
    benchmark = read_benchmark(args.benchmark)
    tests = _sample(_split(benchmark.tests, args.split), args.sample)
    # A test's id for a retriever (a retrieval file is keyed by it): its place in the file.
    test_ids = {id(test): f"test-{number}" for number, test in enumerate(benchmark.tests, 1)}
    selection, documents = load_selection(args, progress)
    root = args.docs if args.docs is not None else corpus_folder(args)
    paths = _file_paths(documents, root)
    known = set(paths.values())
    unknown = sorted({s.file_path for t in tests for s in t.snippets
                      if _normal(s.file_path) not in known})
    if unknown:
        raise UsageProblem(f"{args.benchmark}: {len(unknown)} snippet file(s) are not documents "
                           f"of {selection.describe()} (paths are relative to {root}): "
                           f"{', '.join(unknown[:3])}")
    limit = args.k or math.ceil(args.budget_chars / _CHARS_PER_PROVISION)
    # The mode's own payload budget is the benchmark's: a budget in characters is scored at
    # that many characters, and -k is scored at k provisions whatever their size.
    budget_tokens = (math.ceil(args.budget_chars / CHARS_PER_TOKEN) if args.budget_chars
                     else _UNBOUNDED_TOKENS)
    indexes = indexes_of(args, documents, progress)
    scored = []
    with open_query(args, progress, args.mode, documents, indexes, k=limit,
                    payload_budget_tokens=budget_tokens) as session:
        for position, test in enumerate(tests, 1):
            # A document outside the benchmark's root can hold no gold span: it only costs.
            ranked = [Snippet(paths.get(p.doc_id, f"<{p.doc_id}>"), p.start, p.end)
                      for p in _ranked(session.mode, test.query, limit, test_ids[id(test)])]
            gold = [Snippet(_normal(s.file_path), s.start, s.end) for s in test.snippets]
            scored.append(score_test(ranked, gold, k=args.k, budget_chars=args.budget_chars,
                                     tags=test.tags))
            if position % 25 == 0 or position == len(tests):
                progress(f"{session.mode.name}: {position}/{len(tests)} tests")
        mode_name = session.mode.name
    summary = summarise_run(scored)
    by_tag = summarise_by_tag(scored)
    result: dict[str, Any] = {
        "tests": summary.tests, "mode": mode_name, "k": args.k, "budget_chars": args.budget_chars,
        "recall": round(summary.recall, 4), "precision": round(summary.precision, 4),
        "benchmark": str(args.benchmark), "tests_in_file": len(benchmark.tests),
        "split": args.split, "corpus": selection.describe(),
        "retrieved_chars_mean": round(summary.retrieved_chars, 1),
        "wrong_document_rate": summary.to_dict()["wrong_document_rate"],
        "by_tag": {tag: entry.to_dict() for tag, entry in by_tag.items()},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    cut = f"k={args.k}" if args.k else f"budget {args.budget_chars:,} characters"
    rate = result["wrong_document_rate"]
    where = f" of the {args.split} split" if args.split else ""
    print(f"{mode_name} on {summary.tests}{where} of {len(benchmark.tests)} tests ({cut}): "
          f"recall {summary.recall:.4f}, precision {summary.precision:.4f}, characters "
          f"from documents holding no gold span {'-' if rate is None else f'{rate:.4f}'}")
    if args.by_tag:
        width = max((len(tag) for tag in by_tag), default=3)
        print(f"{'tag':{width}}  {'tests':>5}  {'recall':>6}  {'precision':>9}  "
              f"{'wrong doc':>9}")
        for tag, entry in by_tag.items():
            wrong = "-" if entry.wrong_document_rate is None else \
                f"{entry.wrong_document_rate:.4f}"
            print(f"{tag:{width}}  {entry.tests:>5}  {entry.recall:6.4f}  "
                  f"{entry.precision:9.4f}  {wrong:>9}")
    return 0


def _split(tests: Sequence[Any], split: str | None) -> Sequence[Any]:
    """The tests of one split of the project's family split (all without one)."""
    if split is None:
        return tests
    from pytest_legalbench.spans.splits import default_split

    return default_split().select(tests, split)


def _ranked(mode: Any, query: str, limit: int, test_id: str) -> Sequence[Provision]:
    """The mode's provisions in rank order (those with a span); the chunk baseline ranks
    beyond its fixed ten."""
    ranking = getattr(mode, "ranking", None)
    if ranking is not None:
        provisions: Sequence[Provision] = ranking(query, limit)
        return provisions
    return tuple(p for p in mode.retrieve(query, question_id=test_id).provisions
                 if not p.unlocated)


def _sample(tests: Sequence[Any], count: int | None) -> Sequence[Any]:
    if count is None or count >= len(tests):
        return tests
    # Evenly spread and deterministic: the same file and count score the same tests.
    return [tests[i * len(tests) // count] for i in range(count)]


def _normal(file_path: str) -> str:
    return str(PurePosixPath(os.path.normpath(file_path.replace("\\", "/"))))


def _file_paths(documents: Sequence[Document], root: Path | None) -> dict[str, str]:
    """Each document's path relative to the benchmark's root, as a benchmark names it."""
    if root is None:
        raise UsageProblem("span file paths are relative to the corpus folder: give "
                           "--corpus-dir or --docs")
    base = root.resolve()
    found = {}
    for document in documents:
        try:
            relative = Path(document.path).resolve().relative_to(base)
        except ValueError:
            continue
        found[document.doc_id] = _normal(relative.as_posix())
    return found
