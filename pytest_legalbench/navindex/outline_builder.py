"""The open path of an outline being built: from the root to the current provision, the
rules that place a structural heading or an enumeration item on it, and every draft made so
far, in document order.

Structural headings have fixed ranks; enumerations such as ``(a)`` or ``(iv)`` nest in the
order they first appear. A candidate marker must fit the sequence it would join (no number
skips more than ``MAX_SKIP``), which keeps wrapped lines such as "30 days" or "(c)" in running
prose from becoming provisions.
"""

from __future__ import annotations

import re

from pytest_legalbench.navindex.draft import Draft, document_order
from pytest_legalbench.navindex.markers import Marker

#: The rank of every enumeration item: below every structural heading.
LIST_RANK = 100
#: The most numbers a heading or an item may skip and still continue its sequence.
MAX_SKIP = 3


class OutlineBuilder:
    """The open path from the root to the current provision, and every draft made so far."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root = Draft("document", "document", -1, "", (), "", 0, len(text), local_id="root")
        self.stack: list[Draft] = [self.root]
        self.ids: dict[str, int] = {}
        self.order: list[Draft] = [self.root]
        self.accepted = 0
        # Set when the words of agreement are read inside open recitals: the next
        # structural heading closes them.
        self.recitals_ended = False
        # Set when the words of agreement follow numbered paragraphs with no recitals
        # heading ("1. A wishes ...; 7. ...; NOW, THEREFORE, the Parties agree as follows:"):
        # a "1." after them begins the agreement instead of continuing their numbering.
        self.agreement_begins = False

    # -- opening and closing ------------------------------------------------------------
    def open(self, draft: Draft, parent: Draft) -> Draft:
        draft.parent = parent
        parent.children.append(draft)
        draft.local_id = self.unique(draft.local_id or draft.kind)
        self.order.append(draft)
        self.stack.append(draft)
        return draft

    def unique(self, local: str) -> str:
        local = re.sub(r"\s+", "", local)
        seen = self.ids.get(local, 0)
        self.ids[local] = seen + 1
        return local if seen == 0 else f"{local}_{seen + 1}"

    def truncate(self, keep: int) -> None:
        """Close every open draft below the first ``keep`` of the open path."""
        del self.stack[keep:]

    # -- structural headings ------------------------------------------------------------
    def place_structural(self, marker: Marker, start: int, rank: int, key: str, *,
                         kind: str = "", local_id: str = "", reference: str = "") -> Draft:
        if self.recitals_ended:
            self.recitals_ended = False
            opened = next((i for i, d in enumerate(self.stack) if d.kind == "recitals"), None)
            if opened is not None:
                self.truncate(opened)
        if self.agreement_begins:
            self.agreement_begins = False
            if key == "level1" and marker.number == (1,):
                self._number_as_recitals()
                self.truncate(1)
        while len(self.stack) > 1 and (
            self.stack[-1].rank >= rank or self.stack[-1].rank == LIST_RANK
        ):
            self.stack.pop()
        draft = Draft(kind or marker.kind, key, rank, marker.label, marker.number, marker.title,
                      start, local_id=local_id, full_reference=reference)
        return self.open(draft, self.stack[-1])

    def level_fits(self, depth: int, number: tuple[int, ...], style: str) -> bool:
        """Whether a section/decimal heading continues the numbering it would join."""
        if depth == 1 and self.agreement_begins and number == (1,):
            return True
        same = next((d for d in reversed(self.stack) if d.stack_key == f"level{depth}"), None)
        if same is not None:
            if depth == 1 and style == "decimal" and same.style == "section" and any(
                    d.stack_key == "num_list" and d.number[0] + 1 == number[0]
                    for d in self.stack):
                # "2." after a "1." read as a list item inside "SECTION 1" continues that
                # list; it is not "SECTION 2".
                return False
            if number[:-1] == same.number[:-1]:
                return same.number[-1] < number[-1] <= same.number[-1] + MAX_SKIP
            return number[-1] <= 2 and number[0] in (same.number[0] + 1, same.number[0] + 2)
        if depth == 1:
            deeper = next((d for d in reversed(self.stack) if d.stack_key.startswith("level")), None)
            if deeper is not None:
                return number[0] in (deeper.number[0] + 1, deeper.number[0] + 2)
            # A numbered list inside a "Section 5" style document is an enumeration.
            return style == "section" or not any(d.style == "section" for d in self.stack)
        parent = next((d for d in reversed(self.stack) if d.stack_key == f"level{depth - 1}"), None)
        if parent is not None:
            if parent.number == number[:-1]:
                return number[-1] <= MAX_SKIP + 1
            return number[-1] <= 2 and number[0] > parent.number[0]
        article = next((d for d in reversed(self.stack) if d.kind == "article"), None)
        if article is not None and article.number and article.number[0] != number[0]:
            return number[-1] <= 2
        return number[-1] <= MAX_SKIP + 1 or style == "section"

    def numbered_preamble(self) -> bool:
        """Whether the open path is a top-level numbered paragraph with no recitals or
        article heading above it, and every top-level numbered paragraph so far is untitled
        (recitals are sentences; sections have headings, and "agree as follows" inside one
        opens its own list)."""
        return (any(d.stack_key == "level1" and d.parent is self.root for d in self.stack)
                and not any(d.kind in ("recitals", "article") for d in self.stack)
                and not any(d.title for d in self.root.children if d.stack_key == "level1"))

    def _number_as_recitals(self) -> None:
        """Give the top-level numbered paragraphs read so far the ids of recitals
        (``recital-7``), freeing their numbers for the agreement's sections."""
        for draft in self.root.children:
            if draft.stack_key != "level1":
                continue
            old = draft.local_id
            draft.kind = "recital"
            # "1" or, where the paragraphs repeated a number, "1_2": both counted under "1".
            base = old if old in self.ids else old.rsplit("_", 1)[0]
            if self.ids.get(base):
                self.ids[base] -= 1
            new = self.unique(f"recital-{old}")
            for inner in document_order(draft):
                if inner.local_id == old or inner.local_id.startswith((f"{old}(", f"{old}.")):
                    inner.local_id = new + inner.local_id[len(old):]
                    inner.full_reference = ""

    # -- enumerations -------------------------------------------------------------------
    def place_list(self, marker: Marker, start: int) -> Draft | None:
        kind, number = self._choose_list_kind(marker)
        run_floor = max(i for i, d in enumerate(self.stack) if d.rank != LIST_RANK)
        for depth in range(len(self.stack) - 1, run_floor, -1):
            open_item = self.stack[depth]
            if open_item.stack_key == kind:
                last = open_item.number[0]
                if not (last < number[0] <= last + MAX_SKIP or number[0] == 1):
                    return None
                self.truncate(depth)
                break
        else:
            if number[0] > MAX_SKIP:
                return None
        parent = self.stack[-1]
        # The enumeration style ("paren_roman") only steers nesting; the node is a sub-clause.
        draft = Draft("subclause", kind, LIST_RANK, marker.label, number, marker.title, start)
        token = re.sub(r"[^A-Za-z0-9]", "", marker.label)
        draft.local_id = f"{parent.local_id}({token})" if parent is not self.root else f"({token})"
        if parent.full_reference:
            draft.full_reference = f"{parent.full_reference}({token})"
        return self.open(draft, parent)

    def _choose_list_kind(self, marker: Marker) -> tuple[str, tuple[int, ...]]:
        if marker.alternative is None:
            return marker.kind, marker.number
        run = [d for d in self.stack if d.rank == LIST_RANK]
        for kind, number in ((marker.kind, marker.number),
                             (marker.alternative, marker.alternative_number)):
            if any(d.stack_key == kind and d.number[0] + 1 == number[0] for d in run):
                return kind, number
        if marker.alternative_number == (1,):
            return marker.alternative, marker.alternative_number
        # "(ii)" after a first item this list did not print on a line of its own ("(b) (i)
        # ..." ran it into its parent's line): read as the letters "ii" it could continue
        # nothing, as a numeral it continues a list just begun.
        if (marker.number[0] > MAX_SKIP and marker.alternative_number[0] <= MAX_SKIP
                and not any(d.stack_key == marker.kind for d in run)):
            return marker.alternative, marker.alternative_number
        return marker.kind, marker.number
