"""Tables of terms: rows of a two-column ``Term | value`` table, or of a term sheet, each a
provision of its own under the term it states.

The HTML reader writes each table row as one line of ``|``-separated cells. A row whose first
cell is a short label (a capitalised phrase, not a number, a sentence or a signature line's
"By:" or "Name:") states one term; where two or more such rows follow one another they are a
table of terms, and each row becomes a node titled with its label ("Maturity", "Interest
Rate (all cash)"). Rows that number their items ("1. | Pyxus International, Inc.") are
numbered provisions and stay the markers' to read; a lone labelled row (a page footer) is not
a table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_legalbench.navindex.lines import Line

#: The separator the HTML reader writes between cells.
CELL_SEPARATOR = " | "
#: The longest label a row of terms opens with.
MAX_LABEL_CHARS = 80
#: Labels of signature and notice blocks laid out as tables: names, not terms.
_SIGNATURE_LABELS = frozenset({
    "by", "name", "title", "its", "date", "dated", "address", "attention", "attn", "email",
    "e-mail", "phone", "telephone", "fax", "facsimile", "signature", "print name", "witness",
})
#: A sentence inside a label ("The Company shall pay. Each ...") makes it prose, not a term.
_SENTENCE = re.compile(r"[.;!?]\s+\S")


def row_label(line: Line) -> str | None:
    """The label of ``line`` when it is a row of terms: its first cell, else None."""
    if line.marker is not None or CELL_SEPARATOR not in line.text:
        return None
    cells = [cell.strip(" |\t") for cell in line.text.split(CELL_SEPARATOR)]
    filled = [cell for cell in cells if cell]
    if len(filled) < 2 or not cells[0]:
        return None
    label = cells[0]
    if (len(label) > MAX_LABEL_CHARS or not label[0].isupper() or _SENTENCE.search(label)
            or label.rstrip(":").strip().casefold() in _SIGNATURE_LABELS):
        return None
    return label.rstrip(":").strip()


def term_rows(lines: Sequence[Line]) -> dict[int, str]:
    """The rows of terms among ``lines`` by position, each with its label: labelled rows
    next to another labelled row."""
    labels = {line.index: label for line in lines if (label := row_label(line)) is not None}
    return {index: label for index, label in labels.items()
            if index - 1 in labels or index + 1 in labels}
