"""``legalbench index`` and ``legalbench stats``: build the index files, report on them."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    add_selectors,
    cache_folder,
    indexes_of,
    load_selection,
)
from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.units import unit_reach
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.statistics import attention_lines, corpus_stats, document_stats
from pytest_legalbench.navindex.store import save_document
from pytest_legalbench.tokens import TOKEN_ESTIMATE, estimate_tokens


def register(commands: Any) -> None:
    """Add the ``index`` and ``stats`` subcommands."""
    index = commands.add_parser("index", help="build the index files of a profile or folder")
    add_selectors(index)
    index.add_argument("--out", type=Path, help="folder for the <doc>.index.json and "
                       "<doc>.full.json files (default: <cache>/indexes/<selection>)")
    index.set_defaults(run=run_index)
    stats = commands.add_parser("stats", help="print index statistics per document and in total")
    add_selectors(stats)
    stats.add_argument("--json", action="store_true", help="print the statistics as JSON only")
    stats.set_defaults(run=run_stats)


def run_index(args: argparse.Namespace, progress: Progress) -> int:
    """Write every document's index files."""
    selection, documents = load_selection(args, progress)
    indexes = indexes_of(args, documents, progress)
    label = selection.docs.name if selection.docs is not None else selection.profile
    out = args.out or cache_folder(args) / "indexes" / str(label)
    for position, index in enumerate(indexes, 1):
        save_document(index, out, args.rung)
        progress(f"wrote {position}/{len(indexes)} {index.doc_id}")
    nodes = sum(len(i.nodes) for i in indexes)
    print(f"indexed {len(indexes)} documents ({selection.describe()}), {nodes} nodes, "
          f"rung {args.rung}: {out}")
    return 0


def run_stats(args: argparse.Namespace, progress: Progress) -> int:
    """Print the statistics table (or JSON), what needs attention, and the crossover."""
    _, documents = load_selection(args, progress)
    indexes = indexes_of(args, documents, progress)
    stats = [document_stats(i, d.text, args.rung) for i, d in zip(indexes, documents)]
    report = corpus_stats(stats, args.rung)
    _add_unit_reach(report, indexes, documents)
    crossover, crossover_lines = _crossover(documents,
                                            sum(s.index_tokens_optimised for s in stats))
    report["crossover"] = crossover
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    _print_table(report)
    print()
    _print_structure(report)
    print()
    for line in attention_lines(indexes, stats):
        print(line)
    print()
    for line in crossover_lines:
        print(line)
    return 0


def _add_unit_reach(report: dict[str, object], indexes: Sequence[DocumentIndex],
                    documents: Sequence[Document]) -> None:
    """Add the retrieval units' measures (``modes.units.unit_reach``) to the stats report."""
    entries = report["documents"]
    total = report["total"]
    assert isinstance(entries, list) and isinstance(total, dict)
    reaches = [unit_reach(i, d.text) for i, d in zip(indexes, documents)]
    for entry, reach in zip(entries, reaches):
        entry.update(dataclasses.asdict(reach))
    total["largest_unit_tokens"] = max((r.largest_unit_tokens for r in reaches), default=0)
    total["units_over_cap"] = sum(r.units_over_cap for r in reaches)
    total["unreached_chars"] = sum(r.unreached_chars for r in reaches)


def _crossover(documents: Sequence[Document],
               index_tokens: int) -> tuple[dict[str, object], list[str]]:
    """The caching break-even of SPEC §7 for this corpus, on the default price card."""
    from pytest_legalbench.llm.pricing import load_price_card
    from pytest_legalbench.llm.prompts import document_block
    from pytest_legalbench.results.crossover import (
        ceiling_lines,
        navigate_payload_ceiling,
        navindex_payload_ceiling,
    )
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
    total = report["total"]
    assert isinstance(total, dict)
    _print_columns(report, header, [_column(c) for c in columns])
    print(f"\nxref resolution rate {float(total['xref_resolution_rate']):.4f}; index sizes at "
          f"rung {report['rung']}, tokens estimated as {TOKEN_ESTIMATE}")


def _column(name: str) -> Callable[[dict[str, Any]], str]:
    if name == "coverage":
        return lambda entry: f"{entry[name]:.4f}"
    return lambda entry: str(entry[name])


def _print_structure(report: dict[str, object]) -> None:
    header = ("doc_id", "largest leaf", "over cap", "text over cap", "headings found",
              "heading recall", "rows as nodes", "largest unit", "units over cap",
              "unreached")
    cells: list[Callable[[dict[str, Any]], str]] = [
        lambda e: str(e["largest_leaf_tokens"]),
        lambda e: str(e["leaves_over_cap"]),
        lambda e: f"{e['over_cap_share']:.1%}",
        lambda e: f"{e['headings_found']}/{e['heading_like_lines']}",
        lambda e: f"{e['heading_recall']:.3f}",
        lambda e: f"{e['table_rows_as_nodes']}/{e['table_rows']}",
        lambda e: str(e["largest_unit_tokens"]),
        lambda e: str(e["units_over_cap"]),
        lambda e: str(e["unreached_chars"]),
    ]
    _print_columns(report, header, cells)
    total = report["total"]
    assert isinstance(total, dict)
    print(f"\nstructure: unit cap {MAX_UNIT_TOKENS} tokens; {total['documents_with_leaf_over_cap']}"
          f" of {total['documents']} documents have a leaf over it (text over cap "
          f"{total['over_cap_share_mean']:.1%} per document on average); heading recall is "
          "against lines an independent detector reads as headings (numbered, ARTICLE/Section/"
          "Schedule/Exhibit, lettered); unreached: visible characters outside contents that "
          "no retrieval unit holds")


def _print_columns(report: dict[str, object], header: tuple[str, ...],
                   cells: Sequence[Callable[[dict[str, Any]], str]]) -> None:
    """Print one row per document and a total row under ``header``."""
    rows: list[tuple[str, ...]] = []
    documents = report["documents"]
    assert isinstance(documents, list)
    total = report["total"]
    assert isinstance(total, dict)
    for entry in [*documents, {"doc_id": f"TOTAL ({total['documents']} documents)", **total}]:
        rows.append((str(entry["doc_id"])[:48], *(cell(entry) for cell in cells)))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))))
