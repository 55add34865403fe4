"""Lines that look like the start of a provision, found without the parser.

This is the yardstick the parser's heading recall is measured against (``navindex.
structure_quality``), so it shares nothing with ``navindex.markers``: a handful of plain
patterns, read on each physical line of the text with every Unicode space read as a space and
every dash as a hyphen. A line is heading-like when, after its indentation, it opens with

- **numbering**: ``1.``, ``2)``, ``2.1``, ``10.3.2`` followed by a capital, a quote or an
  opening bracket ("1. Term", "2.1 "Affiliate" means", "3) (a) the Borrower");
- **a keyword**: ARTICLE, Section, §, Schedule, Exhibit, Annex, Appendix with a number or a
  letter ("ARTICLE IV", "Section 2.03", "Exhibit B-1"), unless a lower-case word or a comma
  follows the number ("Section 2 of the Agreement is amended": a sentence, not a heading);
- **a lettered paragraph**: ``(a)``, ``(iv)``, ``(B)``, ``(12)`` followed by text, or a
  single letter with a dot or bracket followed by a capital ("A. Purchase Price").

A number or label printed alone on its line ("2." over "Scope of Employment.") is heading-like
when the next non-blank line opens with a capital or a quote. One keyword line is not
heading-like: "Exhibit" with a dotted number ("Exhibit 10.1",
"EXHIBIT 10.27.2") alone on its line or opening the document, which is the filing's exhibit
number under the SEC's Item 601 (a page header, or the label before the title), not an
attachment.

The patterns over-count a little (a sentence that happens to start "3. The ..." in a wrapped
paragraph) and under-count text whose paragraphs are run together on one line; both are the
same before and after a change to the parser, which is what a yardstick needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Characters read as a plain hyphen: hyphen, non-breaking hyphen, figure dash, en and em
#: dash, horizontal bar, minus sign, small and full-width hyphen-minus.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
#: Characters read as a plain space besides what ``str.isspace`` accepts: zero-width space,
#: word joiner and the byte-order mark (used as invisible glue in filings).
INVISIBLE = "\u200b\u2060\ufeff"

_KEYWORD = re.compile(
    r"(?:ARTICLE|Article|SECTION|Section|SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|"
    r"APPENDIX|Appendix)[ ]+(?:\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7}|[A-Z]{1,2}(?:-?\d{1,2})?)"
    r"\b\.?(?P<rest>.*)"
    r"|§[ ]*\d{1,3}(?:\.\d{1,3})*\.?(?P<rest2>.*)")
_FILING_LABEL = re.compile(r"(?:EXHIBIT|Exhibit)[ ]+\d{1,3}(?:\.\d{1,3})+\S*(?P<rest>.*)")
_NUMBERED = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})+\.?|\d{1,3}[.)])[ ]+(?P<rest>.*)")
_LETTERED = re.compile(
    r"\((?:[a-z]{1,2}|[ivxlc]{1,6}|[A-Z]{1,2}|[IVXLC]{1,6}|\d{1,2})\)[ ]*\S"
    r"|[A-Za-z][.)][ ]+[A-Z“\"(]")


_BARE_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,3})*[.)]?")
_BARE_LETTER = re.compile(r"\((?:[A-Za-z]{1,4}|\d{1,2})\)|[A-Za-z]{1,4}[.)]")


@dataclass(frozen=True)
class HeadingLike:
    """A heading-like line: where its text starts and which pattern it matched."""

    start: int
    """Offset of the line's first visible character in the text."""
    end: int
    kind: str
    """``numbered``, ``keyword`` or ``lettered``."""


def plain(text: str) -> str:
    """``text`` with every space-like character as a space and every dash as a hyphen, the
    same length (offsets carry over)."""
    return "".join(" " if (c.isspace() and c != "\n") or c in INVISIBLE
                   else "-" if c in DASHES else c for c in text)


# "ctDNA", "eBix": a name printed with a lower-case first letter, a capital inside it.
_LOWER_CASE_NAME = re.compile(r"[a-z]+[A-Z][A-Za-z0-9]*\b")


def _opens_heading(rest: str) -> bool:
    rest = rest.lstrip(" .:-|")
    return not rest or not (rest[0].islower() or rest[0] in ",;")


def classify_line(line: str, *, first: bool = False) -> str | None:
    """The kind of heading-like opening of ``line`` (already plain, indentation removed);
    ``first`` when it is the document's first line."""
    label = _FILING_LABEL.match(line)
    if label is not None and (first or not label.group("rest").strip()):
        return None
    match = _KEYWORD.match(line)
    if match is not None:
        rest = match.group("rest") if match.group("rest") is not None else match.group("rest2")
        return "keyword" if _opens_heading(rest or "") else None
    match = _NUMBERED.match(line)
    if match is not None:
        rest = match.group("rest")
        opening = rest[:1].isupper() or rest[:1] in "“\"(|" or _LOWER_CASE_NAME.match(rest)
        return "numbered" if opening else None
    if _LETTERED.match(line):
        return "lettered"
    return None


def heading_like_lines(text: str) -> Iterator[HeadingLike]:
    """Every heading-like line of ``text``, in order."""
    flat = plain(text)
    position = 0
    first = True
    bare: HeadingLike | None = None
    for raw in flat.split("\n"):
        stripped = raw.lstrip(" ")
        if stripped:
            line = stripped.rstrip(" ")
            start = position + len(raw) - len(stripped)
            end = position + len(raw.rstrip(" "))
            if bare is not None and (line[0].isupper() or line[0] in "“\""):
                yield bare
            bare = None
            kind = classify_line(line, first=first)
            first = False
            if kind is not None:
                yield HeadingLike(start, end, kind)
            elif _BARE_NUMBER.fullmatch(line) and not line.isdigit():
                bare = HeadingLike(start, end, "numbered")
            elif _BARE_LETTER.fullmatch(line):
                bare = HeadingLike(start, end, "lettered")
        position += len(raw) + 1


#: A physical line this long is paragraphs run together (PDF text, often a page a line).
RUN_TOGETHER_CHARS = 400
_INLINE_KEYWORD = re.compile(
    r"(?<=[.;:] )(?:ARTICLE|Article|SECTION|Section) (?:\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7})\b"
    r"\.? ?[:.-]? ?(?=[A-Z“\"(])")


def inline_heading_like(text: str) -> Iterator[HeadingLike]:
    """Keyword headings run into a long line after the end of a sentence ("... hereunder.
    Section 1.02 Excluded Assets. Notwithstanding ..."): kind ``in-line``. They are not
    counted by ``heading_like_lines``, which reads line openings only. A line's own heading
    printed twice ("SECTION 1.03. SECTION 1.03. Terms ...") is one heading, not an in-line one."""
    flat = plain(text)
    position = 0
    for raw in flat.split("\n"):
        if len(raw) > RUN_TOGETHER_CHARS:
            for match in _INLINE_KEYWORD.finditer(raw):
                if not _repeats_opening(raw[:match.start()], match.group(0)):
                    yield HeadingLike(position + match.start(), position + len(raw), "in-line")
        position += len(raw) + 1


def _repeats_opening(before: str, found: str) -> bool:
    """Whether ``before`` (the line up to an in-line heading) is that same heading alone."""
    label = " ".join(found.split()[:2]).rstrip(".:-")
    return before.strip().rstrip(".:-").casefold() == label.casefold()


#: A table row as the HTML reader writes it: two or more filled cells joined by " | ".
_CELL_SEPARATOR = " | "


def table_rows(text: str) -> Iterator[tuple[int, int]]:
    """Spans (first visible character to end) of the lines of ``text`` that are table rows."""
    position = 0
    for raw in text.split("\n"):
        cells = [c for c in raw.split(_CELL_SEPARATOR) if c.strip(" |\t")]
        if len(cells) >= 2:
            stripped = raw.lstrip()
            yield position + len(raw) - len(stripped), position + len(raw.rstrip())
        position += len(raw) + 1
