"""The provision tree while it is built: drafts, and completing their spans.

Spans are completed after parsing: a draft runs until the next draft outside its subtree, and
the text a parent holds before its first child (its heading, a lead-in sentence) becomes a
leaf of its own, so that the leaves tile the document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Draft:
    """A provision while the tree is being built (mutable; frozen into a Node later)."""

    kind: str
    stack_key: str
    rank: int
    label: str
    number: tuple[int, ...]
    title: str
    start: int
    end: int = -1
    style: str = ""
    local_id: str = ""
    full_reference: str = ""
    defines: list[str] = field(default_factory=list)
    parent: Draft | None = None
    children: list[Draft] = field(default_factory=list)
    is_toc_entry: bool = False


@dataclass(frozen=True)
class Outline:
    """A parsed document: its drafts in document order (root first) and its TOC spans."""

    drafts: tuple[Draft, ...]
    toc_spans: tuple[tuple[int, int], ...]


def close_spans(root: Draft, text: str) -> None:
    """End every open draft where the next draft outside its subtree begins (blanks trimmed)."""
    pending: list[tuple[Draft, int]] = [(root, len(text))]
    while pending:
        draft, limit = pending.pop()
        if draft.kind != "document" and draft.end < 0:
            end = limit
            while end > draft.start and text[end - 1].isspace():
                end -= 1
            draft.end = end
        # A table of contents ends where its listing ends, not where the body resumes.
        last_limit = draft.end if draft.kind == "toc" else limit
        for position, child in enumerate(draft.children):
            following = draft.children[position + 1] if position + 1 < len(draft.children) else None
            pending.append((child, following.start if following is not None else last_limit))


def add_lead_ins(root: Draft, order: list[Draft], text: str,
                 unique: Callable[[str], str]) -> None:
    """Give a parent's own opening text (heading, preamble) a leaf of its own."""
    for draft in order:
        if not draft.children or draft.kind == "document":
            continue
        end = _trim(text, draft.start, draft.children[0].start)
        if end <= draft.start:
            continue
        lead = Draft("lead_in", "lead_in", draft.rank, draft.label, draft.number, draft.title,
                     draft.start, end, local_id=unique(f"{draft.local_id}-intro"), parent=draft,
                     is_toc_entry=draft.is_toc_entry or draft.kind == "toc")
        draft.children.insert(0, lead)
    if root.children and text[: root.children[0].start].strip():
        end = _trim(text, 0, root.children[0].start)
        root.children.insert(0, Draft("front_matter", "front_matter", 0, "", (), "", 0, end,
                                      local_id=unique("front"), parent=root))


def document_order(root: Draft) -> list[Draft]:
    """Return the drafts of the tree in document order, the root first."""
    ordered: list[Draft] = []
    pending = [root]
    while pending:
        draft = pending.pop()
        ordered.append(draft)
        pending.extend(reversed(draft.children))
    return ordered


def _trim(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
