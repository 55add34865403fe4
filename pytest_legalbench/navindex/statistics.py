"""Index statistics: the ``legalbench stats --json`` contract.

Coverage is the share of non-whitespace characters outside tables of contents that exactly
one leaf node covers; token sizes use the one estimate in ``tokens.py``. The structure
measures (largest leaf, leaves over the unit cap, heading recall, table rows kept as rows)
are ``navindex.structure_quality``'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, Rung
from pytest_legalbench.navindex.serialise import index_tokens
from pytest_legalbench.navindex.structure_quality import structure_quality
from pytest_legalbench.tokens import TOKEN_ESTIMATE

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class DocumentStats:
    """What the index of one document holds."""

    doc_id: str
    nodes: int
    definitions: int
    """Nodes defining exactly one term each (definitions-section entries)."""
    toc_entries: int
    xrefs_found: int
    """References into the corpus: resolved plus unresolved (external and unfiled excluded)."""
    xrefs_resolved: int
    xrefs_external: int
    """References to outside statutes or instruments (kept on nodes, never resolved)."""
    xrefs_unfiled: int
    """References to attachments the instrument lists but whose text it does not contain."""
    coverage: float
    covered_chars: int
    countable_chars: int
    overlap_chars: int
    """Non-whitespace characters covered by more than one leaf (an invariant: zero)."""
    index_tokens: int
    index_tokens_optimised: int
    largest_leaf_tokens: int
    """The largest leaf outside contents, in estimated tokens."""
    leaves_over_cap: int
    """Leaves over the retrieval unit cap (``defaults.MAX_UNIT_TOKENS``)."""
    over_cap_chars: int
    over_cap_share: float
    """Share of the countable characters that lie in leaves over the cap."""
    heading_like_lines: int
    """Lines an independent detector reads as headings (``navindex.heading_like``)."""
    headings_found: int
    """Of those, the lines at which the parser starts a node with a printed reference."""
    heading_recall: float
    table_rows: int
    """Lines that are table rows (two or more ``|``-separated cells)."""
    table_rows_as_nodes: int
    """Of those, the rows at which a node starts."""


def _non_whitespace(text: str) -> int:
    return len(text) - sum(len(m) for m in _WHITESPACE.findall(text))


def document_stats(index: DocumentIndex, source: str, rung: Rung = DEFAULT_RUNG) -> DocumentStats:
    """Measure one document's index against the text it was built from."""
    leaves = sorted((n for n in index.nodes if n.is_leaf), key=lambda n: (n.start, n.end))
    toc = [(n.start, n.end) for n in index.nodes if n.kind == "toc"]
    toc_chars = sum(_non_whitespace(source[s:e]) for s, e in toc)
    covered = overlap = 0
    reach = 0
    for leaf in leaves:
        if leaf.flags.is_toc_entry or any(s <= leaf.start and leaf.end <= e for s, e in toc):
            continue
        if leaf.start < reach:
            overlap += _non_whitespace(source[leaf.start:min(reach, leaf.end)])
        covered += _non_whitespace(source[max(leaf.start, reach):leaf.end])
        reach = max(reach, leaf.end)
    countable = _non_whitespace(source) - toc_chars
    resolved = sum(1 for n in leaves for _ in n.cross_references)
    unresolved = sum(len(n.unresolved_references) for n in leaves)
    readable, optimised = index_tokens(index, rung)
    quality = structure_quality(index, source)
    return DocumentStats(
        doc_id=index.doc_id,
        nodes=len(index.nodes),
        definitions=sum(1 for n in index.nodes if n.kind == "definition"),
        toc_entries=sum(1 for n in index.nodes if n.flags.is_toc_entry and n.kind == "toc_entry"),
        xrefs_found=resolved + unresolved,
        xrefs_resolved=resolved,
        xrefs_external=sum(len(n.external_references) for n in leaves),
        xrefs_unfiled=sum(len(n.unfiled_references) for n in leaves),
        coverage=(covered - overlap) / countable if countable else 1.0,
        covered_chars=covered - overlap,
        countable_chars=countable,
        overlap_chars=overlap,
        index_tokens=readable,
        index_tokens_optimised=optimised,
        largest_leaf_tokens=quality.largest_leaf_tokens,
        leaves_over_cap=quality.leaves_over_cap,
        over_cap_chars=quality.over_cap_chars,
        over_cap_share=quality.over_cap_chars / countable if countable else 0.0,
        heading_like_lines=quality.heading_like_lines,
        headings_found=quality.headings_found,
        heading_recall=(quality.headings_found / quality.heading_like_lines
                        if quality.heading_like_lines else 1.0),
        table_rows=quality.table_rows,
        table_rows_as_nodes=quality.table_rows_as_nodes,
    )


def corpus_stats(stats: Sequence[DocumentStats], rung: Rung = DEFAULT_RUNG) -> dict[str, object]:
    """Return the stats JSON object: per document and in total (coverage and the share over
    the cap character-weighted, heading recall over all heading-like lines; the mean share
    over the cap per document and the documents with a leaf over the cap besides)."""
    summed = ("nodes", "definitions", "toc_entries", "xrefs_found", "xrefs_resolved",
              "xrefs_external", "xrefs_unfiled", "covered_chars", "countable_chars",
              "overlap_chars", "index_tokens", "index_tokens_optimised", "leaves_over_cap",
              "over_cap_chars", "heading_like_lines", "headings_found", "table_rows",
              "table_rows_as_nodes")
    total: dict[str, object] = {key: sum(getattr(s, key) for s in stats) for key in summed}
    countable = sum(s.countable_chars for s in stats)
    total["coverage"] = sum(s.covered_chars for s in stats) / countable if countable else 1.0
    total["documents"] = len(stats)
    found = sum(s.xrefs_found for s in stats)
    total["xref_resolution_rate"] = sum(s.xrefs_resolved for s in stats) / found if found else 1.0
    total["largest_leaf_tokens"] = max((s.largest_leaf_tokens for s in stats), default=0)
    total["documents_with_leaf_over_cap"] = sum(1 for s in stats if s.leaves_over_cap)
    over_cap = sum(s.over_cap_chars for s in stats)
    total["over_cap_share"] = over_cap / countable if countable else 0.0
    total["over_cap_share_mean"] = (sum(s.over_cap_share for s in stats) / len(stats)
                                    if stats else 0.0)
    like = sum(s.heading_like_lines for s in stats)
    total["heading_recall"] = sum(s.headings_found for s in stats) / like if like else 1.0
    return {
        "documents": [asdict(s) for s in stats],
        "total": total,
        "rung": rung,
        "token_estimate": TOKEN_ESTIMATE,
    }


def attention_lines(indexes: Sequence[DocumentIndex], stats: Sequence[DocumentStats],
                    limit: int = 5) -> list[str]:
    """Name the documents the parser served worst, with the evidence, for a human report."""
    by_id = {index.doc_id: index for index in indexes}
    lines: list[str] = []
    unresolved = sorted((s for s in stats if s.xrefs_found > s.xrefs_resolved),
                        key=lambda s: (s.xrefs_resolved / s.xrefs_found, s.doc_id))[:limit]
    if unresolved:
        lines.append("lowest reference resolution:")
    for entry in unresolved:
        examples = [r for n in by_id[entry.doc_id].nodes for r in n.unresolved_references][:3]
        lines.append(f"  {entry.doc_id}: {entry.xrefs_resolved}/{entry.xrefs_found} resolved; "
                     f"unresolved e.g. {', '.join(examples)}")
    # The coarsest trees: most characters per leaf, where numbering was not recognised.
    coarse = sorted(stats, key=lambda s: (-s.countable_chars / max(1, _leaves(by_id[s.doc_id])),
                                          s.doc_id))[:limit]
    lines.append("coarsest trees (characters per leaf):")
    for entry in coarse:
        index = by_id[entry.doc_id]
        kinds = sorted({n.kind for n in index.nodes if n.is_leaf})
        lines.append(f"  {entry.doc_id}: {entry.countable_chars // max(1, _leaves(index))} "
                     f"chars per leaf over {_leaves(index)} leaves ({', '.join(kinds)})")
    return lines


def _leaves(index: DocumentIndex) -> int:
    return sum(1 for n in index.nodes if n.is_leaf)
