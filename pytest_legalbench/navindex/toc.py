"""Finding tables of contents, so their entries are never taken for the provisions they list."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.navindex.lines import Line
from pytest_legalbench.navindex.markers import Marker

#: A listing line is short; a provision's first line usually runs on.
_SHORT = 160
_PAGE_NUMBER = re.compile(r"(?:\||\s)\s*(?:\d{1,3}|[ivxlcIVXLC]{1,6})\s*$")
_PAGE_MARKER = re.compile(r"^\s*(?:-\s*[\divxlc]+\s*-|\[?\s*page\s*\d*\s*\]?|\|?\s*page)\s*$", re.IGNORECASE)
_LIST_HEADING = re.compile(
    r"\b(?:table of contents|contents|index|list of (?:exhibits|schedules|annexes|appendices)|"
    r"schedules and exhibits|exhibits and schedules)\b",
    re.IGNORECASE,
)
_LISTABLE = ("article", "section", "decimal1", "decimal2", "decimal3", "schedule")


@dataclass(frozen=True)
class TocRegion:
    """Consecutive lines that list provisions rather than state them."""

    first: int
    last: int
    """Positions in the non-blank line sequence, inclusive."""
    heading: int | None
    """Position of the "Table of Contents" line, when there is one."""


def _key(marker: Marker) -> tuple[str, str]:
    return marker.kind, re.sub(r"\s+", " ", marker.label.lower())


def find_toc_regions(lines: Sequence[Line]) -> list[TocRegion]:
    """Return the table-of-contents regions among ``lines`` (the non-blank lines, in order).

    A run of at least three short listing lines is a table of contents when a contents
    heading introduces it, when most entries end in page numbers, when most entries are
    repeated later as real headings, or when it lists schedules before the body begins.
    """
    regions: list[TocRegion] = []
    position = 0
    while position < len(lines):
        run_end = position
        seen: set[tuple[str, str]] = set()
        while run_end < len(lines) and _is_listing_line(lines[run_end]):
            marker = lines[run_end].marker
            # A heading listed twice means the body has begun after its own contents list.
            if marker is not None and marker.kind in _LISTABLE:
                if _key(marker) in seen:
                    break
                seen.add(_key(marker))
            run_end += 1
        if run_end - position >= 3:
            region = _judge_run(lines, position, run_end - 1)
            if region is not None:
                regions.append(region)
        position = max(run_end, position + 1)
    return regions


def _is_listing_line(line: Line) -> bool:
    return len(line.text.strip()) <= _SHORT


def _is_contents_heading(line: Line) -> bool:
    if line.marker is not None:
        return line.marker.kind == "toc_heading"
    return len(line.text.strip()) <= 80 and _LIST_HEADING.search(line.text) is not None


def _judge_run(lines: Sequence[Line], first: int, last: int) -> TocRegion | None:
    entries = [(i, line.marker) for i, line in enumerate(lines[first:last + 1], first)
               if line.marker is not None and line.marker.kind in _LISTABLE]
    if len(entries) < 3:
        return None
    headings = [i for i in range(first, entries[0][0]) if _is_contents_heading(lines[i])]
    heading = headings[-1] if headings else _heading_after_cover(lines, entries)
    if heading is not None:
        # What stands above the contents heading (an attachment's label, a cover page's
        # title) is the body's, not the list's.
        entries = [(i, marker) for i, marker in entries if i > heading]
    # The page number follows the entry's title ("ARTICLE I" alone ends in a numeral too).
    paged = sum(1 for i, marker in entries
                if _PAGE_NUMBER.search(lines[i].text[len(marker.label):]))
    later = {_key(line.marker) for line in lines[last + 1:] if line.marker is not None}
    repeated = sum(1 for _, marker in entries if _key(marker) in later)
    schedules_first = all(marker.kind == "schedule" for _, marker in entries) and any(
        line.marker is not None and line.marker.kind in _LISTABLE[:5] for line in lines[last + 1:]
    )
    # Entries name provisions: a run of numbered sentences ('1.2 "Days" shall mean ...') that
    # a later exhibit happens to number alike is a provision list, not a contents list.
    titled = sum(1 for _, marker in entries if marker.title)
    is_toc = (
        heading is not None
        or paged * 2 >= len(entries)
        or (repeated * 2 >= len(entries) and titled * 2 >= len(entries))
        or schedules_first
    )
    if not is_toc:
        return _attachment_list(lines, entries)
    start = heading if heading is not None else entries[0][0]
    # Trailing page numbers and the repeated title belong to the body that follows.
    end = entries[-1][0]
    while end + 1 <= last and _PAGE_MARKER.match(lines[end + 1].text):
        end += 1
    return TocRegion(first=start, last=end, heading=heading)


#: Entries a cover page may show above its contents heading ("EXHIBIT A", "ARTICLE I").
_COVER_ENTRIES = 2


def _heading_after_cover(lines: Sequence[Line], entries: list[tuple[int, Marker]]) -> int | None:
    """A contents heading a few entries into the run, with at least three entries below it."""
    for position in range(1, min(_COVER_ENTRIES, len(entries) - 3) + 1):
        between = range(entries[position - 1][0] + 1, entries[position][0])
        found = next((i for i in between if _is_contents_heading(lines[i])), None)
        if found is not None:
            return found
    return None


#: Lines an attachment list may hold between two entries (a title wrapped under its label).
_ENTRY_GAP = 3


def _attachment_list(lines: Sequence[Line], entries: list[tuple[int, Marker]]) -> TocRegion | None:
    """The list of schedules and exhibits that opens a run whose later entries are the body's
    own headings: at least three schedule entries in a row, each within a few lines of the
    last, before the first article or section. Read as provisions, the last entry of the list
    would hold the whole body."""
    listed = 1
    while (listed < len(entries) and entries[listed][1].kind == "schedule"
           and entries[listed][0] - entries[listed - 1][0] <= _ENTRY_GAP):
        listed += 1
    if (entries[0][1].kind != "schedule" or listed < 3 or listed == len(entries)
            or entries[listed][1].kind == "schedule"):
        return None
    return TocRegion(first=entries[0][0], last=entries[listed - 1][0], heading=None)
