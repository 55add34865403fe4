"""Page furniture: what a filing prints on every page besides its provisions.

Running headers and footers ("S. Simpson Transition Agreement", "Exhibit B - 1", a signing
service's "Doc ID: 44e0d9...") and page numbers are not part of any provision, yet they sit
inside the provisions' text wherever a page breaks a clause. Left in, they become words a
clause is ranked by, end up in heading titles ("MISCELLANEOUS Doc ID"), and in text converted
from PDF one page per line they hide the start of the next page's heading behind a page number
("16 Section 7.01 Expenses.").

Furniture is found from repetition alone, never from a list of phrases:

- **lines**: a short line (digits read as one placeholder, so "page 2" and "page 3" are one
  line) printed at least ``MIN_PAGES`` times, its copies spread over the document and never
  close together, as one per page is; a numbered heading never counts ("Section 2" over
  "Section 3" is structure);
- **page numbers**: a line holding only a number ("7", "- 7 -", "Page 7 of 19", "vii") in a
  document printing at least ``MIN_PAGES`` of them;
- **in long lines** (one page per line): a page number opening the line, a tail the long
  lines share and a head they share after their page numbers, at least ``MIN_PAGES`` times.

Furniture is reported as spans of the text; the text itself is never changed (node text stays
verbatim). The parser reads a span's end as where a line may begin, and ranking reads a
provision's text without its furniture (``blanked``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

#: Copies a line needs to be furniture: a running header repeated on fewer pages is not told
#: apart from a phrase a document happens to repeat.
MIN_PAGES = 3
#: The longest line read as a running header or footer.
MAX_FURNITURE_CHARS = 80
#: Copies of a running line are at least this far apart (a page holds more than this), so a
#: signature block's repeated "Name:" lines and a table's repeated cells are never furniture.
MIN_PAGE_CHARS = 600
#: The copies span at least this share of the document (a header runs through it).
MIN_SPREAD = 0.3
#: A line at least this long is a page of text run together (PDF text, one page per line).
PAGE_LINE_CHARS = 500
#: Characters of a long line's end (or start) compared to find a shared tail (or head).
EDGE_CHARS = 24
#: A shared tail or head shorter than this is a phrase, not furniture.
MIN_EDGE_CHARS = 12

_LINE = re.compile(r"[^\n]+")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
#: A line that is only a page number: "7", "- 7 -", "Page 7", "Page 7 of 19", "vii", "A-3".
_PAGE_NUMBER = re.compile(
    r"[-–—\s]*(?:(?i:page)\s*)?(?:\d{1,4}|[ivxlc]{1,7}|[A-Z]-\d{1,3})(?:\s+(?i:of)\s+\d{1,4})?"
    r"[-–—\s]*")
#: A page number opening a long line, before the page's first word.
_PAGE_PREFIX = re.compile(r"[ \t]*\d{1,3}[ \t]+(?=\S)")
#: Numbered headings: a repeated line opening so is structure, not a running header.
_HEADING = re.compile(r"\s*(?:(?i:article|section|§)\s*[\dIVXLC]|\d{1,3}\.\d)")
_SENTENCE_END = ".;:,"


def find_furniture(text: str) -> tuple[tuple[int, int], ...]:
    """Spans of ``text`` (start, end), in text order and disjoint, that are page furniture."""
    lines = [(m.start(), m.end()) for m in _LINE.finditer(text)]
    spans: list[tuple[int, int]] = []
    spans.extend(_running_lines(text, lines))
    spans.extend(_page_numbers(text, lines))
    long_lines = [(s, e) for s, e in lines if e - s >= PAGE_LINE_CHARS]
    if len(long_lines) >= MIN_PAGES:
        spans.extend(_page_prefixes(text, long_lines))
        spans.extend(_shared_edges(text, long_lines, tail=True))
        spans.extend(_shared_edges(text, long_lines, tail=False))
    return _merged(spans)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _spread(positions: Sequence[int], length: int) -> bool:
    """Whether copies at ``positions`` (in text order) are printed once per page: most of
    them far apart, and across the document. Short pages (signature pages, a one-paragraph
    exhibit) bring some copies close; a phrase repeated in one place brings most."""
    if len(positions) < MIN_PAGES:
        return False
    apart = [positions[0]]
    for position in positions[1:]:
        if position - apart[-1] >= MIN_PAGE_CHARS:
            apart.append(position)
    return (len(apart) >= MIN_PAGES and 2 * len(apart) >= len(positions)
            and apart[-1] - apart[0] >= MIN_SPREAD * length)


def _running_lines(text: str, lines: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Short lines repeated once per page, digits aside."""
    copies: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for start, end in lines:
        start, end = _trimmed(text, start, end)
        if (not 0 < end - start <= MAX_FURNITURE_CHARS or _HEADING.match(text, start, end)
                or text[end - 1] == ":"):
            # A label line ("Name:", "Address:") repeats in every signature block and form.
            continue
        key = _DIGITS.sub("#", _SPACES.sub(" ", text[start:end])).casefold()
        if any(c.isalpha() for c in key):
            copies[key].append((start, end))
    found = []
    for spans in copies.values():
        if _spread([s for s, _ in spans], len(text)):
            found.extend(spans)
    return found


def _page_numbers(text: str, lines: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Lines that are only a page number, when the document prints several."""
    numbers = []
    for start, end in lines:
        start, end = _trimmed(text, start, end)
        if end > start and _PAGE_NUMBER.fullmatch(text, start, end):
            numbers.append((start, end))
    return numbers if len(numbers) >= MIN_PAGES else []


def _page_prefixes(text: str, long_lines: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Numbers opening the long lines, when they count pages (each larger than the last)."""
    found: list[tuple[int, int]] = []
    last = 0
    for start, end in long_lines:
        match = _PAGE_PREFIX.match(text, start, end)
        if match is None:
            continue
        value = int(text[match.start():match.end()].strip())
        if value > last:
            found.append(_trimmed(text, match.start(), match.end()))
            last = value
    return found if len(found) >= MIN_PAGES else []


def _shared_edges(text: str, long_lines: Sequence[tuple[int, int]],
                  tail: bool) -> list[tuple[int, int]]:
    """The tail (or head, after any page number) that long lines share: a footer (header)
    printed inside each page's line."""
    groups: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for start, end in long_lines:
        start, end = _trimmed(text, start, end)
        if not tail:
            # A running header inside a page's line follows the page's number; long lines
            # that merely open alike ("(i) The Company and the Association ...") are
            # paragraphs.
            prefix = _PAGE_PREFIX.match(text, start, end)
            if prefix is None:
                continue
            start = prefix.end()
        key = text[end - EDGE_CHARS:end] if tail else text[start:start + EDGE_CHARS]
        groups[key].append((start, end))
    found: list[tuple[int, int]] = []
    for members in groups.values():
        if not _spread([s for s, _ in members], len(text)):
            continue
        pieces = [text[s:e] for s, e in members]
        size = _common_edge(pieces, tail)
        edge = pieces[0][-size:] if tail else pieces[0][:size]
        # Cut back to a word boundary, so that a word the shared edge begins mid-way (or
        # ends mid-way) stays with the provision.
        cut = _word_bounded(edge, tail)
        if len(cut.strip()) < MIN_EDGE_CHARS or cut.strip()[-1] in _SENTENCE_END:
            continue
        for start, end in members:
            found.append(_trimmed(text, end - len(cut), end) if tail
                         else _trimmed(text, start, start + len(cut)))
    return found


def _common_edge(pieces: Sequence[str], tail: bool) -> int:
    """Length of the longest suffix (or prefix) every piece shares, at most a line's worth."""
    size = 0
    limit = min(min(len(p) for p in pieces), MAX_FURNITURE_CHARS * 2)
    while size < limit:
        chars = {p[-1 - size] if tail else p[size] for p in pieces}
        if len(chars) != 1:
            break
        size += 1
    return size


def _word_bounded(edge: str, tail: bool) -> str:
    """``edge`` without the part word it may start (tail) or end (head) with."""
    if tail:
        space = edge.find(" ")
        return edge if space == -1 else edge[space:]
    space = edge.rfind(" ")
    return edge if space == -1 else edge[:space + 1]


def _merged(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((start, end) for start, end in merged)


def blanked(text: str, furniture: Sequence[tuple[int, int]]) -> str:
    """``text`` with every furniture span blanked (spaces, line breaks kept), the same length,
    so that a provision's offsets read its words without the page's furniture."""
    if not furniture:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in furniture:
        pieces.append(text[cursor:start])
        pieces.append("".join("\n" if c == "\n" else " " for c in text[start:end]))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)
