"""Splitting a document into lines, each with the numbering candidate that opens it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from pytest_legalbench.navindex.markers import LIST_KINDS, Marker, classify
from pytest_legalbench.navindex.page_furniture import find_furniture
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
# Any clause number run on after a word ("... of this Agreement. 3. Term ..." or "... the
# Arena 4.2 Newegg shall ..."): a line starts there only when the number continues the
# numbering read so far (``_continues``), which an amount or a citation rarely does.
_SEQUENCE_RUN_ON = re.compile(
    r"(?<=\S)[ \t]+(?=\d{1,3}(?:\.\d{1,3}){0,3}\.?[ \t]+[\"“A-Z(])")
#: The shortest text before a clause number, not ending a sentence, that the numbering alone
#: may start a line after.
_SEQUENCE_PIECE = 80
#: Words after which a number is cited, not begun: "Sections 4.1 and 4.2 Newegg ...".
_CITING = frozenset({"section", "sections", "article", "articles", "clause", "clauses",
                     "paragraph", "paragraphs", "schedule", "exhibit", "annex", "appendix",
                     "no", "no.", "nos", "nos.", "§", "§§", "part", "item", "rule"})
# A table of contents printed as one line: "1. Definitions   7  1.1 Affiliate   7  1.2 ...".
# The gap is a page number's blanks; the next entry's number opens the next piece.
_CONTENTS_GAP = re.compile(
    r"(?<=[^\s\d])[ \t]+(?P<page>\d{1,3})[ \t]+(?=\d{1,3}(?:\.\d{1,3}){0,3}[.)]?[ \t]+\S)")
#: Entries a line must list, their page numbers never falling, to be read as contents.
_CONTENTS_ENTRIES = 5
#: The longest last entry of such a line: a longer one runs on into what follows the list.
_LAST_ENTRY = 160
#: A line that holds only a clause number or an enumeration label: "2.", "1.1", "(a)", "iv.".
_BARE_MARKER = re.compile(
    r"\d{1,3}(?:\.\d{1,3}){0,3}[.)]?|\d{1,3}(?:\.\d{1,3})+|\([A-Za-z0-9]{1,4}\)|[A-Za-z]{1,4}[.)]")
# A keyword heading run into a long line: "... hereunder. Section 1.02 Excluded Assets." or
# "... as follows: ARTICLE I PURCHASE AND SALE Section 1.01 Purchase and Sale of Assets.".
# Where it may start is decided by what precedes it (``_opens_inline``): a citation
# ("pursuant to Section 6.02") follows a lower-case word, a heading does not.
_INLINE_KEYWORD = re.compile(
    r"[ \t]+(?=(?:ARTICLE|Article|SECTION|Section)[ \t]+(?:\d{1,3}(?:\.\d{1,3}){0,3}|[IVXLC]{1,7})"
    r"\b)")
#: An article's heading: its number and a title in capitals, if any ("ARTICLE I PURCHASE AND
#: SALE"), up to where a keyword heading run into it begins.
_ARTICLE_RUN = re.compile(
    r"(?:ARTICLE|Article)[ \t]+(?:[IVXLC]{1,7}|\d{1,3})\.?(?:[ \t]+[A-Z][A-Z&'’,;-]*){0,8}[ \t]*")
_ARTICLE_WORD = re.compile(r"ARTICLE|Article")
#: How far back an article's heading is looked for.
_ARTICLE_REACH = 120


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
    so does a numbered clause run on after a sentence in a long line, or after any words
    when its number comes next in the numbering read so far ("... the Arena 4.2 Newegg").
    """
    text = plain_text(text)
    furniture = [span for span in find_furniture(text)
                 if not _whole_line(text, *span)]
    pieces: list[tuple[int, int, Marker | None]] = []
    numbering = _Numbering()
    next_span = 0
    for match in re.finditer(r"[^\n]+", text):
        raw = match.group(0)
        if not raw.strip():
            continue
        while next_span < len(furniture) and furniture[next_span][1] <= match.start():
            next_span += 1
        inside: list[tuple[int, int]] = []
        while (next_span + len(inside) < len(furniture)
               and furniture[next_span + len(inside)][0] < match.end()):
            inside.append(furniture[next_span + len(inside)])
        pieces.extend(_segments(raw, match.start(),
                                [(a - match.start(), b - match.start()) for a, b in inside],
                                numbering))
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


def _whole_line(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is all of its line, blanks aside."""
    before = text.rfind("\n", 0, start) + 1
    after = text.find("\n", end)
    after = len(text) if after == -1 else after
    return not text[before:start].strip() and not text[end:after].strip()


def _contents_gaps(raw: str, lead: int) -> list[tuple[int, int, bool]]:
    """Where a contents list printed on one line divides into its entries, each piece ending
    in its page number; none unless the line lists enough entries in page order."""
    found = list(_CONTENTS_GAP.finditer(raw, lead))
    pages = [int(gap.group("page")) for gap in found]
    if len(found) < _CONTENTS_ENTRIES or any(b < a for a, b in pairwise(pages)) \
            or len(raw.rstrip()) - found[-1].end() > _LAST_ENTRY:
        return []
    # The gap runs from after the page number to the next entry's number.
    return [(gap.end("page"), gap.end(), False) for gap in found]


def _segments(raw: str, offset: int, furniture: list[tuple[int, int]],
              numbering: _Numbering) -> list[tuple[int, int, Marker | None]]:
    """The pieces of one physical line, each with the marker opening it (or None);
    ``furniture`` holds the page furniture inside the line (offsets into it), each its own
    piece, after which a page's first heading may begin; ``numbering`` carries the last clause
    number from the lines before and takes this line's."""
    lead = len(raw) - len(raw.lstrip())
    opening = classify(raw) if not any(a <= lead < b for a, b in furniture) else None
    cuts = [(lead, opening)]
    numbering.read(opening)
    # A gap: (where the piece before it ends, where the next may begin, whether it is a
    # page break, which lets any structural heading begin there).
    gaps = [(gap.start(), gap.end(), False) for gap in _SOFT_BREAK.finditer(raw, lead)]
    sequenced: set[int] = set()
    if len(raw) > _RUN_ON_LINE:
        gaps += [(gap.start(), gap.end(), False) for gap in _RUN_ON.finditer(raw, lead)]
        gaps += [(gap.start(), gap.end(), False) for gap in _INLINE_KEYWORD.finditer(raw, lead)
                 if _opens_inline(raw, lead, gap.start())]
    gaps += _contents_gaps(raw, lead)
    if len(raw) > _RUN_ON_LINE:
        # Only where no other rule begins a line (a contents entry's included) does the
        # numbering decide.
        ruled = {end for _, end, _ in gaps}
        for gap in _SEQUENCE_RUN_ON.finditer(raw, lead):
            if gap.end() not in ruled:
                gaps.append((gap.start(), gap.end(), False))
                sequenced.add(gap.end())
    for start, end in furniture:
        gaps.append((start, start, True))
        gaps.append((end, end, True))
    gaps.sort(key=lambda gap: (gap[1], not gap[2]))
    for gap_start, gap_end, page_break in gaps:
        if gap_end <= cuts[-1][0] and not (page_break and gap_end > cuts[-1][0] - 1
                                           and gap_end != cuts[-1][0]):
            continue
        at = gap_end
        while at < len(raw) and raw[at] in " \t":
            at += 1
        if at >= len(raw) or at <= cuts[-1][0]:
            continue
        if any(a <= at < b for a, b in furniture):
            # The furniture itself: a piece of its own, never a heading.
            cuts.append((at, None))
            continue
        opened_at, opened = cuts[-1]
        # Inside the marker that opens the piece (its number printed twice, read past by
        # ``markers.classify``): no new piece. The line's opening counts from 0, the others
        # from their cut.
        if opened is not None and at < (0 if len(cuts) == 1 else opened_at) + opened.body_offset:
            continue
        # Positions, not copies of the rest of the line: a long line has many gaps.
        marker = classify(raw, at)
        if page_break and (marker is None or marker.kind in ("whereas", "toc_heading")):
            cuts.append((at, None))
            continue
        if marker is None or marker.kind in ("whereas", "toc_heading"):
            continue
        if gap_end in sequenced and not (
                marker.kind.startswith("decimal") and _continues(numbering.last, marker.number)
                and _begins_after(raw, cuts[-1][0], gap_start,
                                  first=marker.number == (*numbering.last, 1))):
            continue
        numbering.read(marker)
        if marker.kind in LIST_KINDS and not _closes_sentence(raw, cuts[-1][0], gap_start):
            if page_break:
                cuts.append((at, None))
            continue
        cuts.append((at, marker))
    segments = []
    for position, (start, marker) in enumerate(cuts):
        stop = cuts[position + 1][0] if position + 1 < len(cuts) else len(raw)
        piece = raw[start:stop].rstrip()
        if marker is not None and stop < len(raw):
            # Read again inside the piece, so that a title ends where the piece does (the next
            # heading or the page's footer), not at the end of the physical line.
            marker = classify(piece) or marker
        if piece:
            segments.append((offset + start, offset + start + len(piece), marker))
    return segments


class _Numbering:
    """The last clause number read ("Section 4.1", "4.1"), carried from line to line."""

    def __init__(self) -> None:
        self.last: tuple[int, ...] = ()

    def read(self, marker: Marker | None) -> None:
        """Remember ``marker``'s number when it numbers a clause."""
        if marker is not None and marker.number and (
                marker.kind == "section" or marker.kind.startswith("decimal")):
            self.last = marker.number


def _continues(previous: tuple[int, ...], number: tuple[int, ...] | None) -> bool:
    """Whether ``number`` comes next after ``previous``: its first part ("4.1" after "4"),
    or the next at any of its levels ("2.12" or "3" after "2.11")."""
    if not number or not previous:
        return False
    if number == (*previous, 1):
        return True
    depth = len(number)
    return depth <= len(previous) and number == (*previous[:depth - 1], previous[depth - 1] + 1)


def _begins_after(raw: str, start: int, end: int, *, first: bool = False) -> bool:
    """Whether a clause may begin after ``raw[start:end]``: after the end of a sentence, or
    after a word in capitals that does not cite ("the Arena 4.2", not "Section 4.2" or
    "and 4.2"). Without the end of a sentence, a clause's next sibling comes only after a
    clause's worth of text, which the entries of a contents list run into one line ("1.1
    Affiliate 1.2 Agreement") are not; its ``first`` part may follow its heading alone ("4.
    Sponsor Obligations 4.1 The Sponsor")."""
    if _closes_sentence(raw, start, end):
        return True
    if end - start < _SEQUENCE_PIECE and not first:
        return False
    words = raw[start:end].split()
    if not words:
        return False
    word = words[-1]
    return word[:1].isupper() and word.casefold() not in _CITING


def _opens_inline(raw: str, start: int, end: int) -> bool:
    """Whether a keyword heading may begin after ``raw[start:end]``: after the end of a
    sentence, or after an article's heading ("ARTICLE I PURCHASE AND SALE"), never after
    running words ("pursuant to Section 6.02", "SET FORTH IN SECTION 13")."""
    if _closes_sentence(raw, start, end):
        return True
    words = list(_ARTICLE_WORD.finditer(raw, max(start, end - _ARTICLE_REACH), end))
    if not words:
        return False
    # The article's heading itself opens the piece or follows the end of a sentence: a
    # sentence in capitals ("... UNDER ARTICLE XI OR INTELLECTUAL PROPERTY UNDER") does not.
    at = words[-1].start()
    # A page's number may come before it, on a page of text run into one line.
    return (_ARTICLE_RUN.fullmatch(raw, at, end) is not None
            and (raw[start:at].strip().isdigit() or not raw[start:at].strip()
                 or _closes_sentence(raw, start, at)))


def _closes_sentence(raw: str, start: int, end: int) -> bool:
    """Whether ``raw[start:end]``, trailing blanks aside, ends with ".", ":" or ";"."""
    while end > start and raw[end - 1].isspace():
        end -= 1
    return end > start and raw[end - 1] in ".:;"
