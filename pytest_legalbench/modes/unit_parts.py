"""Parts of a leaf too large to be one retrieval unit.

A leaf over ``MAX_UNIT_TOKENS`` (a long clause the parser could not divide, a schedule, a
page of run-together text) can only be taken whole or not at all, and the payload budget may
have no room for it. For retrieval it is cut into parts that each fit: at paragraph breaks
where it has them, then at line breaks, then after sentences, and only as a last resort at a
space (or, in a run of text with none, anywhere). Parts are as even as the breaks allow.

A part stays citable as its leaf: it keeps the leaf's clause reference, title, flags, links
and defined terms, its span lies inside the leaf's, and its id is the leaf's with ``~p<n>``
added (``doc:2.5~p2``, numbered from 1). The leaf keeps its id and text and gets the parts as
its children, so a selection that cannot take the leaf whole takes the parts it needs.
Together the parts hold every non-blank character of the leaf, in order, once.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import CHARS_PER_TOKEN

#: What a part's id adds to its leaf's: ``~p`` and the part's number.
PART_MARK = "~p"
#: The most characters a part holds: the estimate of ``MAX_UNIT_TOKENS`` tokens.
MAX_PART_CHARS = MAX_UNIT_TOKENS * CHARS_PER_TOKEN

_PART_ID = re.compile(rf"^(?P<leaf>.+){re.escape(PART_MARK)}(?P<number>[1-9][0-9]*)$")
#: Break points, strongest first: a blank line, a line break, the end of a sentence (after
#: ".", "?", "!" or ";", closing quotes and brackets included), a space.
_BREAKS = (
    re.compile(r"\n[^\S\n]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.?!;])[”’\"')\]]*[^\S\n]+(?=\S)"),
    re.compile(r"[^\S\n]+"),
)


def part_of(node_id: str) -> tuple[str, int] | None:
    """The leaf id and part number of a part's id; None for any other id."""
    match = _PART_ID.match(node_id)
    return (match.group("leaf"), int(match.group("number"))) if match else None


def part_spans(text: str, limit: int = MAX_PART_CHARS) -> list[tuple[int, int]]:
    """Spans of ``text`` (offsets into it) of at most ``limit`` characters each, holding all
    of its non-blank characters in order, cut at the strongest breaks available, blanks
    trimmed from each end of every part."""
    if limit < 1:
        raise ValueError(f"a part holds at least one character, not {limit}")
    spans: list[tuple[int, int]] = []
    start = _skip_blanks(text, 0)
    end = _trim_blanks(text, start, len(text))
    while start < end:
        if end - start <= limit:
            spans.append((start, end))
            break
        cut, resume = _cut(text, start, end, limit)
        spans.append((start, _trim_blanks(text, start, cut)))
        start = _skip_blanks(text, resume)
    return spans


def _cut(text: str, start: int, end: int, limit: int) -> tuple[int, int]:
    """Where the part opening at ``start`` ends, and where the next one may open."""
    parts = math.ceil((end - start) / limit)
    target = start + (end - start) / parts
    # A break is taken anywhere from half the even share on, never past the limit.
    low = start + max(1, int((target - start) / 2))
    high = start + limit
    for pattern in _BREAKS:
        best: tuple[float, int, int] | None = None
        for match in pattern.finditer(text, low, high + 1):
            if match.start() <= start or match.start() > high:
                continue
            distance = abs(match.start() - target)
            if best is None or distance < best[0]:
                best = (distance, match.start(), match.end())
        if best is not None:
            return best[1], best[2]
    # No break at all within reach (a run of text without spaces): cut at the limit.
    return high, high


def _skip_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _trim_blanks(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def split_leaf(leaf: Node, limit: int = MAX_PART_CHARS) -> tuple[Node, tuple[Node, ...]]:
    """The leaf with its parts as children, and the parts; a leaf that fits comes back
    unchanged with no parts."""
    if leaf.children or len(leaf.text) <= limit:
        return leaf, ()
    parts = tuple(
        replace(leaf, node_id=f"{leaf.node_id}{PART_MARK}{number}", start=leaf.start + begin,
                end=leaf.start + stop, text=leaf.text[begin:stop], parent=leaf.node_id,
                children=(), summary="")
        for number, (begin, stop) in enumerate(part_spans(leaf.text, limit), start=1))
    return replace(leaf, children=tuple(p.node_id for p in parts)), parts
