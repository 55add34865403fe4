"""Splitting a document into lines, each with the numbering candidate that opens it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.navindex.markers import LIST_KINDS, Marker, classify
from pytest_legalbench.navindex.plain_characters import plain_text

_SOFT_BREAK = re.compile(r"[ \t]{3,}(?=\S)")
# A paragraph run on after a sentence with one space: "...Section 2.5. 1.6 "Term" means".
# Only multi-level numbers, spelled-out headings and a number before a heading in capitals
# ("... binding. 9. COSTS Each party ...") qualify; "(b)" or "5." before running text
# mid-paragraph is far more often an inline list or an amount than a lost line break.
_RUN_ON = re.compile(
    r"(?<=[.;:”\"])[ \t]+(?=\d{1,3}\.\d{1,3}(?:\.\d{1,3})*\.?[ \t]+[\"“A-Z(]"
    r"|\d{1,3}\.[ \t]+[A-Z]{3,}\b(?![.,])"
    r"|(?:ARTICLE|SECTION)[ \t]+[\dIVX])"
)
#: Only lines this long are searched for run-on paragraphs.
_RUN_ON_LINE = 400
#: A line that holds only a clause number or an enumeration label: "2.", "1.1", "(a)", "iv.".
_BARE_MARKER = re.compile(
    r"\d{1,3}(?:\.\d{1,3}){0,3}[.)]?|\d{1,3}(?:\.\d{1,3})+|\([A-Za-z0-9]{1,4}\)|[A-Za-z]{1,4}[.)]")


@dataclass(frozen=True)
class Line:
    """A non-blank line: where it sits in the text and what opens it."""

    index: int
    start: int
    end: int
    text: str
    """The line as the parser reads it: spaces and hyphens plain (``navindex.
    plain_characters``), as long as its span of the source; a bare number joined to the
    line after it reads the line breaks between them as spaces."""
    marker: Marker | None


def split_lines(text: str) -> list[Line]:
    """Return the non-blank lines of ``text`` with their spans and opening markers.

    Text converted from PDF often runs paragraphs together on one physical line with a run
    of spaces where the break was ("...herein.     Section 2.02 Scope."); such a run followed
    by a heading, or by an enumeration after the end of a sentence, also starts a line, and
    so does a numbered clause run on after a sentence in a long line.
    """
    text = plain_text(text)
    pieces: list[tuple[int, int, Marker | None]] = []
    for match in re.finditer(r"[^\n]+", text):
        raw = match.group(0)
        if not raw.strip():
            continue
        pieces.extend(_segments(raw, match.start()))
    lines: list[Line] = []
    position = 0
    while position < len(pieces):
        start, end, marker = pieces[position]
        joined = _with_next(text, pieces, position) if marker is None else None
        if joined is not None:
            end, marker = joined
            position += 1
        lines.append(Line(len(lines), start, end, text[start:end].replace("\n", " "), marker))
        position += 1
    return lines


def _with_next(text: str, pieces: list[tuple[int, int, Marker | None]],
               position: int) -> tuple[int, Marker] | None:
    """A number printed alone on its line ("2." over "Scope of Employment."), where layout
    set it apart from the heading it opens: the end of the next line and the marker the two
    make together, or None when this line is not a bare number or the two make none."""
    start, end, _ = pieces[position]
    if position + 1 >= len(pieces) or not _BARE_MARKER.fullmatch(text, start, end):
        return None
    following_end = pieces[position + 1][1]
    if pieces[position + 1][2] is not None:
        return None
    marker = classify(text[start:following_end].replace("\n", " "))
    return None if marker is None else (following_end, marker)


def _segments(raw: str, offset: int) -> list[tuple[int, int, Marker | None]]:
    lead = len(raw) - len(raw.lstrip())
    cuts = [(lead, classify(raw))]
    gaps = list(_SOFT_BREAK.finditer(raw, lead))
    if len(raw) > _RUN_ON_LINE:
        gaps = sorted(gaps + list(_RUN_ON.finditer(raw, lead)), key=lambda gap: gap.start())
    for gap in gaps:
        if gap.end() <= cuts[-1][0]:
            continue
        # Positions, not copies of the rest of the line: a long line has many gaps.
        marker = classify(raw, gap.end())
        if marker is None or marker.kind in ("whereas", "toc_heading"):
            continue
        if marker.kind in LIST_KINDS and not _closes_sentence(raw, cuts[-1][0], gap.start()):
            continue
        cuts.append((gap.end(), marker))
    segments = []
    for position, (start, marker) in enumerate(cuts):
        stop = cuts[position + 1][0] if position + 1 < len(cuts) else len(raw)
        piece = raw[start:stop].rstrip()
        if piece:
            segments.append((offset + start, offset + start + len(piece), marker))
    return segments


def _closes_sentence(raw: str, start: int, end: int) -> bool:
    """Whether ``raw[start:end]``, trailing blanks aside, ends with ".", ":" or ";"."""
    while end > start and raw[end - 1].isspace():
        end -= 1
    return end > start and raw[end - 1] in ".:;"
