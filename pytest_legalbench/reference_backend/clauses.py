"""The clause a position of a whole document falls in, as it would be cited.

The document is parsed with the navindex outline builder, the same parser the index uses, so a
citation from an inject answer names the provision a navigate mode would retrieve.
"""

from __future__ import annotations

import bisect
import hashlib
import threading
from collections import OrderedDict

from pytest_legalbench.navindex.draft import Draft
from pytest_legalbench.navindex.outline import build_outline

# Kinds whose label is a citable number or name ("Section 2.1", "2.1.", "ARTICLE VIII").
_NUMBERED = frozenset({"section", "clause", "article", "schedule"})
_NAMED = {"recital": "Recitals", "recitals": "Recitals", "signature": "Signature page"}
# Skipped when answering: a table of contents repeats headings, it does not provide anything.
_CONTENTS = frozenset({"toc", "toc_entry"})


class ClauseMap:
    """Positions of one document mapped to the deepest provision that holds them."""

    def __init__(self, text: str) -> None:
        outline = build_outline(text)
        # Document order is start order, ancestors before descendants.
        self._drafts = [d for d in outline.drafts if d.kind != "document"]
        self._starts = [d.start for d in self._drafts]
        self._paragraphs = {id(d): n for n, d in
                            enumerate((d for d in self._drafts if d.kind == "paragraph"), 1)}

    def _deepest(self, position: int) -> Draft | None:
        index = bisect.bisect_right(self._starts, position) - 1
        draft = self._drafts[index] if index >= 0 else None
        # The last draft starting at or before the position lies inside the deepest one
        # that holds it, so the holder is found by walking up.
        while draft is not None and not draft.start <= position < max(draft.end, draft.start + 1):
            draft = draft.parent
        return None if draft is None or draft.kind == "document" else draft

    def in_contents(self, position: int) -> bool:
        """Whether ``position`` lies in a table of contents."""
        draft = self._deepest(position)
        while draft is not None:
            if draft.kind in _CONTENTS or draft.is_toc_entry:
                return True
            draft = draft.parent
        return False

    def clause_at(self, position: int) -> str:
        """The citation of the provision holding ``position`` ("Section 2.1(a)", "Preamble")."""
        draft = self._deepest(position)
        while draft is not None and draft.kind == "lead_in":
            draft = draft.parent
        subclauses: list[str] = []
        while draft is not None and draft.kind != "document":
            if draft.kind in _NUMBERED and draft.label:
                return _numbered(draft) + "".join(reversed(subclauses))
            if draft.kind in ("subclause", "definition") and draft.label:
                if draft.full_reference and "(" in draft.full_reference:
                    return _with_word(draft.full_reference)
                subclauses.append(_parenthesised(draft.label))
            elif draft.kind in _NAMED:
                return _joined(_NAMED[draft.kind], subclauses)
            elif draft.kind == "paragraph":
                return f"paragraph {self._paragraphs[id(draft)]}"
            elif draft.kind == "section" and draft.title:
                return draft.title
            draft = draft.parent
        return _joined("Preamble", subclauses)


def _numbered(draft: Draft) -> str:
    label = " ".join(draft.label.split()).rstrip(".):-")
    return _with_word(label)


def _with_word(reference: str) -> str:
    """Bare decimal numbers read as sections: "2.1" → "Section 2.1"."""
    return f"Section {reference}" if reference[:1].isdigit() else reference


def _parenthesised(label: str) -> str:
    token = label.strip().strip("().")
    return f"({token})"


def _joined(name: str, subclauses: list[str]) -> str:
    return " ".join([name, "".join(reversed(subclauses))]) if subclauses else name


_MAPS: OrderedDict[str, ClauseMap] = OrderedDict()
_MAPS_LOCK = threading.Lock()
#: Documents whose maps are kept; an inject corpus is asked about many times in a row.
_MAPS_KEPT = 64


def clause_map(text: str) -> ClauseMap:
    """The clause map of ``text``, reused while the same document keeps being asked about."""
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _MAPS_LOCK:
        found = _MAPS.get(key)
        if found is not None:
            _MAPS.move_to_end(key)
            return found
    built = ClauseMap(text)
    with _MAPS_LOCK:
        _MAPS[key] = built
        while len(_MAPS) > _MAPS_KEPT:
            _MAPS.popitem(last=False)
    return built
