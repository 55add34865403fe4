"""Splitting a document into lines, each with the numbering candidate that opens it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .markers import LIST_KINDS, Marker, classify

_SOFT_BREAK = re.compile(r"[ \t]{3,}(?=\S)")


@dataclass(frozen=True)
class Line:
    """A non-blank line: where it sits in the text and what opens it."""

    index: int
    start: int
    end: int
    text: str
    marker: Marker | None


def split_lines(text: str) -> list[Line]:
    """Return the non-blank lines of ``text`` with their spans and opening markers.

    Text converted from PDF often runs paragraphs together on one physical line with a run
    of spaces where the break was ("...herein.     Section 2.02 Scope."); such a run followed
    by a heading, or by an enumeration after the end of a sentence, also starts a line.
    """
    lines: list[Line] = []
    for match in re.finditer(r"[^\n]+", text):
        raw = match.group(0)
        if not raw.strip():
            continue
        for start, end, marker in _segments(raw, match.start()):
            lines.append(Line(len(lines), start, end, text[start:end], marker))
    return lines


def _segments(raw: str, offset: int) -> list[tuple[int, int, Marker | None]]:
    lead = len(raw) - len(raw.lstrip())
    cuts = [(lead, classify(raw))]
    for gap in _SOFT_BREAK.finditer(raw, lead):
        marker = classify(raw[gap.end():])
        if marker is None or marker.kind in ("whereas", "toc_heading"):
            continue
        before = raw[cuts[-1][0]:gap.start()].rstrip()
        if marker.kind in LIST_KINDS and not before.endswith((".", ":", ";")):
            continue
        cuts.append((gap.end(), marker))
    segments = []
    for position, (start, marker) in enumerate(cuts):
        stop = cuts[position + 1][0] if position + 1 < len(cuts) else len(raw)
        piece = raw[start:stop].rstrip()
        if piece:
            segments.append((offset + start, offset + start + len(piece), marker))
    return segments


