"""The parser's structure quality on every corpus we have: the `legalbench stats` structure
columns over the `transactions` profile, all of `cuad` and the 95 EDGAR exhibits of
`edgar2023`, per corpus and for the worst documents of each.

For each corpus: documents with a leaf over the unit cap (1,200 tokens), the largest leaf, the
text in such leaves (mean share per document and overall), heading recall against the lines an
independent detector reads as headings (``navindex.heading_like``; overall and per kind:
numbered, keyword, lettered), table rows at which a node starts, and the retrieval units: the
largest, how many are over the cap, and the visible text outside contents that no unit holds.

Run: ``.venv/bin/python perf/structure_quality.py [--label after]`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus); writes
``perf/output/structure_quality[_LABEL].json`` and ``.md``. A measurement, not a test: nothing
is asserted. Indexes are built fresh (no cache), on every available core.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from measuring import OUTPUT, commit, corpus_dir, machine_load

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.units import unit_reach
from pytest_legalbench.navindex.heading_like import heading_like_lines, inline_heading_like
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.parallel_build import build_parallel
from pytest_legalbench.navindex.statistics import corpus_stats, document_stats

#: Documents listed per corpus as the worst (by text over the cap).
WORST = 8


def _by_kind(index: DocumentIndex, text: str) -> tuple[Counter[str], Counter[str]]:
    """Heading-like lines and the ones found, per kind of opening."""
    labelled = {n.start for n in index.nodes if n.clause_reference and n.kind != "document"}
    like: Counter[str] = Counter()
    found: Counter[str] = Counter()
    for line in heading_like_lines(text):
        like[line.kind] += 1
        found[line.kind] += line.start in labelled
    # Headings run into long lines are a kind apart, outside the overall recall (which
    # earlier reports measured on line openings only).
    for line in inline_heading_like(text):
        like[line.kind] += 1
        found[line.kind] += line.start in labelled
    return like, found


def measure(name: str, documents: tuple[Document, ...]) -> dict[str, object]:
    """The structure report of one corpus."""
    started = time.perf_counter()
    indexes = build_parallel(documents)
    build_s = time.perf_counter() - started
    stats = [document_stats(i, d.text) for i, d in zip(indexes, documents)]
    reaches = [unit_reach(i, d.text) for i, d in zip(indexes, documents)]
    total = corpus_stats(stats)["total"]
    assert isinstance(total, dict)
    like: Counter[str] = Counter()
    found: Counter[str] = Counter()
    for index, document in zip(indexes, documents):
        one_like, one_found = _by_kind(index, document.text)
        like.update(one_like)
        found.update(one_found)
    rows = [{**{k: v for k, v in asdict(s).items() if k in _DOCUMENT_FIELDS}, **asdict(r)}
            for s, r in zip(stats, reaches)]
    worst = sorted(rows, key=lambda r: (-float(r["over_cap_share"]),
                                        -int(r["largest_leaf_tokens"]), str(r["doc_id"])))
    countable = int(total["countable_chars"])
    return {
        "corpus": name,
        "documents": len(documents),
        "build_s": round(build_s, 1),
        "documents_with_leaf_over_cap": total["documents_with_leaf_over_cap"],
        "largest_leaf_tokens": total["largest_leaf_tokens"],
        "leaves_over_cap": total["leaves_over_cap"],
        "over_cap_share_mean": round(float(total["over_cap_share_mean"]), 4),
        "over_cap_share_overall": round(float(total["over_cap_share"]), 4),
        "heading_like_lines": total["heading_like_lines"],
        "headings_found": total["headings_found"],
        "heading_recall": round(float(total["heading_recall"]), 4),
        "heading_recall_by_kind": {kind: {"lines": like[kind], "found": found[kind],
                                          "recall": round(found[kind] / like[kind], 4)}
                                   for kind in sorted(like)},
        "table_rows": total["table_rows"],
        "table_rows_as_nodes": total["table_rows_as_nodes"],
        "largest_unit_tokens": max(r.largest_unit_tokens for r in reaches),
        "units_over_cap": sum(r.units_over_cap for r in reaches),
        "documents_with_unit_over_cap": sum(1 for r in reaches if r.units_over_cap),
        "unreached_chars": sum(r.unreached_chars for r in reaches),
        "unreached_share": round(sum(r.unreached_chars for r in reaches) / countable, 4)
        if countable else 0.0,
        "worst": worst[:WORST],
        "per_document": rows,
    }


_DOCUMENT_FIELDS = ("doc_id", "nodes", "countable_chars", "largest_leaf_tokens",
                    "leaves_over_cap", "over_cap_share", "heading_like_lines", "headings_found",
                    "heading_recall", "table_rows", "table_rows_as_nodes")


def _markdown(report: dict[str, object]) -> str:
    corpora = report["corpora"]
    assert isinstance(corpora, list)
    lines = [f"# Structure quality ({report['label']})", "",
             (f"Commit {report['commit']}, measured {report['measured']}; unit cap "
             f"{MAX_UNIT_TOKENS} tokens (estimated as characters / 4)."), "",
             ("| corpus | documents | with a leaf over the cap | largest leaf | text in such "
             "leaves (mean per document) | heading recall (found / heading-like) | table rows "
             "as nodes | retrieval units over the cap | largest unit | text no unit holds |"),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in corpora:
        lines.append(
            f"| {c['corpus']} | {c['documents']} | {c['documents_with_leaf_over_cap']} | "
            f"{c['largest_leaf_tokens']:,} | {c['over_cap_share_mean']:.1%} | "
            f"{c['heading_recall']:.3f} ({c['headings_found']:,} / "
            f"{c['heading_like_lines']:,}) | {c['table_rows_as_nodes']:,} / "
            f"{c['table_rows']:,} | {c['units_over_cap']} in "
            f"{c['documents_with_unit_over_cap']} documents | "
            f"{c['largest_unit_tokens']:,} | {c['unreached_share']:.2%} |")
    lines += ["", "Heading recall by kind of heading-like line:", "",
              "| corpus | numbered | keyword | lettered | in-line (run into a long line) |",
              "|---|---|---|---|---|"]
    for c in corpora:
        kinds = c["heading_recall_by_kind"]
        cells = [f"{kinds[k]['recall']:.3f} ({kinds[k]['found']:,} / {kinds[k]['lines']:,})"
                 if k in kinds else "-" for k in ("numbered", "keyword", "lettered", "in-line")]
        lines.append(f"| {c['corpus']} | " + " | ".join(cells) + " |")
    for c in corpora:
        lines += ["", f"Worst documents of {c['corpus']} (by text over the cap):", "",
                  ("| document | largest leaf | leaves over cap | text over cap | heading "
                  "recall | largest unit |"), "|---|---|---|---|---|---|"]
        for row in c["worst"]:
            lines.append(f"| {row['doc_id']} | {row['largest_leaf_tokens']:,} | "
                         f"{row['leaves_over_cap']} | {row['over_cap_share']:.1%} | "
                         f"{row['heading_recall']:.3f} ({row['headings_found']}/"
                         f"{row['heading_like_lines']}) | {row['largest_unit_tokens']:,} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Measure the three corpora and write the report files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="", help="suffix of the output files (before)")
    args = parser.parse_args()
    root = corpus_dir()
    selections = (("transactions", Selection("transactions")), ("cuad", Selection("cuad")),
                  ("edgar2023", Selection(None, root / "edgar2023")))
    corpora = []
    with tempfile.TemporaryDirectory(prefix="legalbench-structure-") as scratch:
        for name, selection in selections:
            documents = load_documents(selection, corpus_dir=root, cache_dir=Path(scratch))
            corpora.append(measure(name, documents))
            print(f"{name}: {json.dumps({k: v for k, v in corpora[-1].items() if k not in ('worst', 'per_document')})}")
    report = {"label": args.label or "after", "commit": commit(),
              "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "load": machine_load(), "unit_cap_tokens": MAX_UNIT_TOKENS, "corpora": corpora}
    suffix = f"_{args.label}" if args.label else ""
    (OUTPUT / f"structure_quality{suffix}.json").write_text(json.dumps(report, indent=1) + "\n",
                                                            encoding="utf-8")
    (OUTPUT / f"structure_quality{suffix}.md").write_text(_markdown(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
