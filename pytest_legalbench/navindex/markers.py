"""Recognising the numbering that opens a line of a legal instrument.

A marker is only a candidate: the outline builder decides from context (sequence, nesting)
whether it really starts a provision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pytest_legalbench.navindex.headings import (
    BARS_OR_COLONS,
    BLANKS,
    INDENT,
    INDENT_OR_BAR,
    char_after,
    has_text,
    is_lower_case_name,
    skip,
    split_title,
    trim_end,
)

#: Kinds whose place in the hierarchy is fixed; smaller ranks sit higher in the tree.
STRUCTURAL_RANKS = {
    "schedule": 0,
    "signature": 0,
    "toc_heading": 0,
    "recitals": 1,
    "article": 1,
    "section": 2,
    "decimal1": 2,
    "decimal2": 3,
    "decimal3": 4,
    "decimal4": 5,
    "whereas": 6,
    "definition": 7,
}

#: Enumeration kinds: their nesting is learnt from the order in which they appear.
LIST_KINDS = (
    "paren_lower", "paren_roman", "paren_upper", "paren_upper_roman", "paren_digit",
    "dot_lower", "dot_roman", "dot_upper", "dot_upper_roman", "num_list", "ordinal",
)

#: Ordinal words that number the steps of a waterfall or the paragraphs of a letter
#: ("First, to the payment of fees; Second, ..."), by value.
ORDINALS = {word: value for value, word in enumerate(
    ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
     "tenth", "eleventh", "twelfth"), start=1)}

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_ROMAN_RE = re.compile(r"^(?:xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")

def roman_value(numeral: str) -> int | None:
    """Return the value of a lower- or upper-case roman numeral up to 89, else None."""
    low = numeral.lower()
    if not low or not _ROMAN_RE.match(low):
        return None
    total = 0
    for index, char in enumerate(low):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[low[index + 1]] if index + 1 < len(low) else 0
        total += -value if value < following else value
    return total


def letter_value(label: str) -> int | None:
    """Return 1 for ``a``, 26 for ``z``, 27 for ``aa``; None for anything else."""
    low = label.lower()
    if len(low) == 1 and low.isalpha():
        return ord(low) - ord("a") + 1
    if len(low) == 2 and low[0] == low[1] and low.isalpha():
        return 26 + ord(low[0]) - ord("a") + 1
    return None


@dataclass(frozen=True)
class Marker:
    """A numbering candidate found at the start of a line."""

    kind: str
    label: str
    """The marker as printed, e.g. ``Section 2.1``, ``(b)``, ``ARTICLE VII``."""
    number: tuple[int, ...]
    """Ordinal(s): ``(2, 1)`` for 2.1, ``(2,)`` for (b); empty when not numbered."""
    title: str
    body_offset: int
    """Offset within the line where the text after the marker begins."""
    alternative: str | None = None
    """For ambiguous letters such as ``(i)``: the other kind it could be."""
    alternative_number: tuple[int, ...] = ()


_SEP = r"[ \t]*(?:\|[ \t]*)?"
_ARTICLE = re.compile(
    r"(?P<label>(?:ARTICLE|Article)[ \t]+(?P<num>[IVXLC]+|\d{1,3}))\b\.?[ \t]*[:.\-–—]?" + _SEP
)
_SECTION = re.compile(
    r"(?P<label>(?:SECTION|Section|Sec\.|§)[ \t]*(?P<num>\d{1,3}(?:\.\d{1,3}){0,3})"
    r"(?P<paren>(?:\([a-zA-Z0-9]{1,4}\))*))\.?[ \t]*[:.\-–—]?" + _SEP
)
_DECIMAL = re.compile(r"(?P<label>(?P<num>\d{1,3}(?:\.\d{1,3}){0,3})(?P<dot>[.)]?))" + _SEP)
# Letters up to eight: the longest roman numeral of a long list is "(xxxviii)".
_PAREN = re.compile(r"(?P<label>\((?P<tok>[a-z]{1,8}|[A-Z]{1,8}|\d{1,3})\))" + _SEP)
_DOTTED = re.compile(r"(?P<label>(?P<tok>[a-z]{1,4}|[A-Z]{1,4})[.)])[ \t]+" + r"(?:\|[ \t]*)?")
_SCHEDULE = re.compile(
    r"(?P<label>(?P<word>SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix|"
    r"ATTACHMENT|Attachment|ADDENDUM|Addendum)(?:[ \t]+(?P<num>[A-Z0-9][A-Za-z0-9.\-()]*))?)"
    r"[ \t]*[:.\-–—]?" + _SEP
)
_RECITALS = re.compile(
    r"(?P<label>RECITALS|Recitals|BACKGROUND|W[ \t]*I[ \t]*T[ \t]*N[ \t]*E[ \t]*S[ \t]*S[ \t]*E"
    r"[ \t]*T[ \t]*H|PRELIMINARY STATEMENTS?)[ \t]*[:.\-–—]?[ \t]*$"
)
_WHEREAS = re.compile(r"(?P<label>WHEREAS|Whereas)\b")
_SIGNATURE = re.compile(r"(?P<label>IN WITNESS WHEREOF|In Witness Whereof)\b")
_TOC_HEADING = re.compile(
    r"(?P<label>TABLE OF CONTENTS|Table of Contents|CONTENTS|INDEX)[ \t]*(?:(?P<bar>\|)|$)"
)


def _rest_is_prose_continuation(text: str, start: int) -> bool:
    # "Section 2 of the Agreement is amended" or "5 days after": a sentence, not a heading.
    opening = char_after(INDENT_OR_BAR, text, start)
    return bool(opening) and (opening.islower() or opening in ",;")


def classify(line: str, start: int = 0) -> Marker | None:
    """Return the numbering candidate that opens ``line[start:]`` (leading blanks ignored)."""
    found = _opening(line, start)
    return None if found is None else _past_repeat(line, start, found)


def _past_repeat(line: str, start: int, marker: Marker) -> Marker:
    """``marker`` read past the same marker printed again right after it ("SECTION 1.03.
    SECTION 1.03. Terms Generally.", "(a) (a) Each ..."), as comparison and conforming tools
    print a heading whose style changed: its title is the one after the repeat."""
    again = _opening(line, start + marker.body_offset)
    if again is None or (again.kind, again.number) != (marker.kind, marker.number) \
            or not marker.number:
        return marker
    return replace(again, label=marker.label, body_offset=marker.body_offset + again.body_offset)


def _opening(line: str, start: int) -> Marker | None:
    # Offsets in the marker count from ``start``, as if ``line[start:]`` had been passed.
    at = skip(INDENT, line, start)
    if at >= len(line):
        return None
    first = line[at]
    if first == "(":
        return _paren(line, at, start)
    if first.isdigit():
        return _decimal(line, at, start)
    if first == "§":
        return _section(line, at, start)
    if not first.isalpha():
        return None
    for finder in (_article, _section, _schedule, _recitals, _signature, _toc, _whereas,
                   _ordinal):
        found = finder(line, at, start)
        if found is not None:
            return found
    return _dotted(line, at, start)


def _article(text: str, at: int, start: int) -> Marker | None:
    match = _ARTICLE.match(text, at)
    if match is None or _rest_is_prose_continuation(text, match.end()):
        return None
    num = match.group("num")
    value = int(num) if num.isdigit() else roman_value(num)
    if value is None:
        return None
    title = split_title(text, match.end())
    return Marker("article", match.group("label"), (value,), title, match.end() - start)


def _section(text: str, at: int, start: int) -> Marker | None:
    match = _SECTION.match(text, at)
    if match is None or _rest_is_prose_continuation(text, match.end()):
        return None
    number = _top_level(tuple(int(part) for part in match.group("num").split(".")))
    title = split_title(text, match.end())
    return Marker("section", match.group("label"), number, title, match.end() - start)


def _decimal(text: str, at: int, start: int) -> Marker | None:
    match = _DECIMAL.match(text, at)
    if match is None:
        return None
    parts = match.group("num").split(".")
    # A bare "12" needs its own dot or bracket; "2.1" stands alone.
    if len(parts) == 1 and not match.group("dot"):
        return None
    label = match.group("label")
    after = text[at + len(label):at + len(label) + 1]
    if not after or not (after.isspace() or after == "|"):
        return None
    opening = char_after(INDENT_OR_BAR, text, match.end())
    # "1. | the name of the Company" (an item laid out as a table row) is an item too.
    in_table = char_after(INDENT, text, match.end()) == "|"
    if not opening or not (opening.isupper() or opening in "(“\"'[" or in_table
                           or _opens_with_name(text, match.end())):
        return None
    number = _top_level(tuple(int(part) for part in parts))
    if number[0] == 0 or number[0] > 300:
        return None
    kind = f"decimal{min(len(number), 4)}"
    return Marker(kind, label, number, split_title(text, match.end()), match.end() - start)


def _opens_with_name(text: str, start: int) -> bool:
    # "1.20 ctDNA" or "8.1 eBix shall ...": a name in lower case opens a heading or a clause
    # as a capital would; "5.5 million" does not.
    words = text[skip(INDENT_OR_BAR, text, start):].split(maxsplit=1)
    return bool(words) and is_lower_case_name(words[0].rstrip(".,:;\"”"))


def _top_level(number: tuple[int, ...]) -> tuple[int, ...]:
    """``(2,)`` for "2.0": numbering that writes its sections "1.0", "2.0" over clauses "2.1"."""
    return number[:1] if len(number) == 2 and number[1] == 0 else number


def _paren(text: str, at: int, start: int) -> Marker | None:
    match = _PAREN.match(text, at)
    if match is None or not has_text(text, match.end()):
        return None
    return _enumerated("paren", match.group("tok"), match.group("label"), text, match.end(),
                       start)


def _dotted(text: str, at: int, start: int) -> Marker | None:
    match = _DOTTED.match(text, at)
    if match is None:
        return None
    token = match.group("tok")
    rest = match.end()
    # Dotted letters are easily prose ("A. Smith"); require a capitalised continuation.
    if not has_text(text, rest) or not (
        char_after(INDENT_OR_BAR, text, rest).isupper() or char_after(BLANKS, text, rest) in "“\"("
    ):
        return None
    if len(token) > 1 and roman_value(token) is None:
        return None
    return _enumerated("dot", token, match.group("label"), text, rest, start)


def _enumerated(style: str, token: str, label: str, text: str, rest: int,
                start: int) -> Marker | None:
    title = split_title(text, rest)
    offset = rest - start
    if token.isdigit():
        if style == "dot":
            return None
        return Marker("paren_digit", label, (int(token),), title, offset)
    upper = token.isupper()
    letter = letter_value(token)
    roman = roman_value(token)
    letter_kind = f"{style}_{'upper' if upper else 'lower'}"
    roman_kind = f"{style}_{'upper_roman' if upper else 'roman'}"
    if letter is not None and roman is not None:
        # "(i)" or "(v)": the outline builder picks from the sequence it is in.
        return Marker(letter_kind, label, (letter,), title, offset, roman_kind, (roman,))
    if roman is not None:
        return Marker(roman_kind, label, (roman,), title, offset)
    if letter is not None:
        return Marker(letter_kind, label, (letter,), title, offset)
    return None


def _schedule(text: str, at: int, start: int) -> Marker | None:
    match = _SCHEDULE.match(text, at)
    if match is None or _rest_is_prose_continuation(text, match.end()):
        return None
    word = match.group("word")
    # "Exhibit A attached hereto ..." in title case is prose unless the line is short;
    # an upper-case keyword opens a schedule even when its first paragraph runs on. A short
    # title-case line that only ends a sentence ("Appendix A.", wrapped from "... as set out
    # in") is the end of a reference, not a heading.
    if not word.isupper() and (trim_end(text, at, len(text)) - at > 100
                               or not match.group("num")
                               or (text[at:trim_end(text, at, len(text))].endswith(".")
                                   and not has_text(text, match.end()))):
        return None
    # "Exhibit 10.1" or "EXHIBIT 10.27.2" alone is the filing's exhibit number (SEC Item
    # 601), printed as a page header, not an attachment ("Schedule 2.2.1" alone is one).
    if (word.lower() == "exhibit" and is_filing_number(match.group("num"))
            and not has_text(text, match.end())):
        return None
    # The rest stripped of blanks, then of bars and colons, then of blanks, cut to 100.
    begin = skip(BLANKS, text, match.end())
    end = trim_end(text, begin, len(text))
    begin = skip(BARS_OR_COLONS, text, begin, end)
    while end > begin and text[end - 1] in "|:":
        end -= 1
    begin = skip(BLANKS, text, begin, end)
    title = text[begin:min(trim_end(text, begin, end), begin + 100)]
    return Marker("schedule", match.group("label"), (), title, match.end() - start)


#: An exhibit number of the SEC's Item 601 list: "10.1", "10.27.2", "4.17", "10.38(1)", "99.1a".
_FILING_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,3}){1,3}[a-z]?(?:\(\d{1,2}\))?")


def is_filing_number(number: str | None) -> bool:
    """Whether an attachment's number is dotted like a filing's exhibit number."""
    return number is not None and _FILING_NUMBER.fullmatch(number.rstrip(".")) is not None


_ORDINAL = re.compile(r"(?P<label>(?P<word>[A-Z][a-z]{2,7}|[A-Z]{3,8}),)[ \t]+")


def _ordinal(text: str, at: int, start: int) -> Marker | None:
    match = _ORDINAL.match(text, at)
    if match is None or not has_text(text, match.end()):
        return None
    value = ORDINALS.get(match.group("word").lower())
    if value is None:
        return None
    return Marker("ordinal", match.group("label"), (value,), "", match.end() - start)


def _recitals(text: str, at: int, start: int) -> Marker | None:
    match = _RECITALS.match(text, at)
    if match is None:
        return None
    return Marker("recitals", match.group("label"), (), "Recitals", match.end() - start)


def _whereas(text: str, at: int, start: int) -> Marker | None:
    match = _WHEREAS.match(text, at)
    if match is None:
        return None
    return Marker("whereas", match.group("label"), (), "", at - start)


def _signature(text: str, at: int, start: int) -> Marker | None:
    match = _SIGNATURE.match(text, at)
    if match is None:
        return None
    return Marker("signature", match.group("label"), (), "Signatures", at - start)


def _toc(text: str, at: int, start: int) -> Marker | None:
    match = _TOC_HEADING.match(text, at)
    if match is None:
        return None
    end = match.end()
    if match.group("bar"):
        # The rest of the line is part of the heading (the original pattern read "\|.*$").
        newline = text.find("\n", end)
        if newline != -1 and newline != len(text) - 1:
            return None
        end = len(text) if newline == -1 else newline
    return Marker("toc_heading", match.group("label"), (), "Table of Contents", end - start)
