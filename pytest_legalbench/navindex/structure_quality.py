"""How well the parser found a document's structure, measured against its text.

Four measures, none of which needs a question:

- **leaves over the unit cap**: a leaf larger than ``defaults.MAX_UNIT_TOKENS`` is text the
  parser could not divide; the largest leaf and the share of the text in such leaves say how
  much of the document the structure leaves coarse (contents are left out: they are never
  retrieved);
- **heading recall**: of the heading-like lines an independent detector finds
  (``navindex.heading_like``), the share at which the parser starts a node with a printed
  reference (a heading it recognised, not a paragraph it fell back to);
- **table rows kept as rows**: of the lines that are table rows (``cell | cell``), the share
  at which a node starts, so a term sheet's rows are each their own provision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.navindex.heading_like import heading_like_lines, table_rows
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.tokens import estimate_tokens

_WHITESPACE = re.compile(r"\s+")
#: Kinds that hold contents listings, never provisions.
_CONTENTS = frozenset({"toc", "toc_entry"})


def visible_chars(text: str) -> int:
    """Characters of ``text`` that are not whitespace."""
    return len(text) - sum(len(m) for m in _WHITESPACE.findall(text))


@dataclass(frozen=True)
class StructureQuality:
    """The structure measures of one document."""

    largest_leaf_tokens: int
    leaves_over_cap: int
    over_cap_chars: int
    """Non-whitespace characters in leaves over the cap."""
    heading_like_lines: int
    headings_found: int
    table_rows: int
    table_rows_as_nodes: int


def is_contents(node: Node) -> bool:
    """Whether ``node`` belongs to a table of contents."""
    return node.kind in _CONTENTS or node.flags.is_toc_entry


def structure_quality(index: DocumentIndex, source: str) -> StructureQuality:
    """Measure the structure the index found in ``source``."""
    leaves = [n for n in index.nodes if n.is_leaf and not is_contents(n)
              and n.kind != "document"]
    sizes = [estimate_tokens(n.text) for n in leaves]
    over = [n for n, size in zip(leaves, sizes) if size > MAX_UNIT_TOKENS]
    labelled = {n.start for n in index.nodes if n.clause_reference and n.kind != "document"}
    any_start = {n.start for n in index.nodes if n.kind != "document"}
    headings = list(heading_like_lines(source))
    rows = list(table_rows(source))
    return StructureQuality(
        largest_leaf_tokens=max(sizes, default=0),
        leaves_over_cap=len(over),
        over_cap_chars=sum(visible_chars(n.text) for n in over),
        heading_like_lines=len(headings),
        headings_found=sum(1 for h in headings if h.start in labelled),
        table_rows=len(rows),
        table_rows_as_nodes=sum(1 for start, _ in rows if start in any_start),
    )
