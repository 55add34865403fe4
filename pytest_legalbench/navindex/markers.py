"""Recognising the numbering that opens a line of a legal instrument.

A marker is only a candidate: the outline builder decides from context (sequence, nesting)
whether it really starts a provision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    "dot_lower", "dot_roman", "dot_upper", "dot_upper_roman", "num_list",
)

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_ROMAN_RE = re.compile(r"^(?:x{0,3})(?:ix|iv|v?i{0,3})$")

# A title must look like a heading: mostly capitalised words, not a running sentence.
_SMALL_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "per", "the", "to", "under", "upon", "with", "without", "its", "their", "his", "her", "not", "vs"]
)


def roman_value(numeral: str) -> int | None:
    """Return the value of a lower- or upper-case roman numeral up to 39, else None."""
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
_PAREN = re.compile(r"(?P<label>\((?P<tok>[a-z]{1,4}|[A-Z]{1,4}|\d{1,3})\))" + _SEP)
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
    r"(?P<label>TABLE OF CONTENTS|Table of Contents|CONTENTS|INDEX)[ \t]*(?:\|.*)?$"
)


def split_title(rest: str) -> str:
    """Return the heading title at the start of ``rest``, or "" when it reads as prose."""
    rest = rest.strip().lstrip("|").strip()
    if not rest:
        return ""
    match = re.match(r"(.{1,100}?)(?:[.:](?:[ \t]|$)|[ \t]+\||[ \t]*[-–—][ \t]|$)", rest)
    if match is None:
        return ""
    candidate = match.group(1).strip().rstrip(".:;,").strip()
    if not candidate or not (candidate[0].isupper() or candidate[0] in "[“\"'("):
        return ""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'’\-]*", candidate)]
    if not words or len(words) > 14:
        return ""
    capitalised = sum(1 for w in words if w[0].isupper() or w.lower() in _SMALL_WORDS)
    if capitalised < len(words) * 0.75:
        return ""
    return candidate


def _rest_is_prose_continuation(rest: str) -> bool:
    # "Section 2 of the Agreement is amended" or "5 days after": a sentence, not a heading.
    stripped = rest.lstrip(" \t|")
    return bool(stripped) and (stripped[0].islower() or stripped[0] in ",;")


def classify(line: str) -> Marker | None:
    """Return the numbering candidate that opens ``line`` (leading blanks ignored), if any."""
    stripped = line.lstrip(" \t")
    indent = len(line) - len(stripped)
    if not stripped:
        return None
    first = stripped[0]
    if first == "(":
        return _paren(stripped, indent)
    if first.isdigit():
        return _decimal(stripped, indent)
    if first == "§":
        return _section(stripped, indent)
    if not first.isalpha():
        return None
    for finder in (_article, _section, _schedule, _recitals, _signature, _toc, _whereas):
        found = finder(stripped, indent)
        if found is not None:
            return found
    return _dotted(stripped, indent)


def _article(text: str, indent: int) -> Marker | None:
    match = _ARTICLE.match(text)
    if match is None:
        return None
    rest = text[match.end():]
    if _rest_is_prose_continuation(rest):
        return None
    num = match.group("num")
    value = int(num) if num.isdigit() else roman_value(num)
    if value is None:
        return None
    return Marker("article", match.group("label"), (value,), split_title(rest), indent + match.end())


def _section(text: str, indent: int) -> Marker | None:
    match = _SECTION.match(text)
    if match is None:
        return None
    rest = text[match.end():]
    if _rest_is_prose_continuation(rest):
        return None
    number = tuple(int(part) for part in match.group("num").split("."))
    return Marker("section", match.group("label"), number, split_title(rest), indent + match.end())


def _decimal(text: str, indent: int) -> Marker | None:
    match = _DECIMAL.match(text)
    if match is None:
        return None
    parts = match.group("num").split(".")
    # A bare "12" needs its own dot or bracket; "2.1" stands alone.
    if len(parts) == 1 and not match.group("dot"):
        return None
    label = match.group("label")
    after = text[len(label):len(label) + 1]
    if not after or not (after.isspace() or after == "|"):
        return None
    rest = text[match.end():]
    opening = rest.lstrip(" \t|")[:1]
    # "1. | the name of the Company" (an item laid out as a table row) is an item too.
    in_table = rest.lstrip(" \t")[:1] == "|"
    if not opening or not (opening.isupper() or opening in "(“\"'[" or in_table):
        return None
    number = tuple(int(part) for part in parts)
    if number[0] == 0 or number[0] > 300:
        return None
    kind = f"decimal{min(len(number), 4)}"
    return Marker(kind, label, number, split_title(rest), indent + match.end())


def _paren(text: str, indent: int) -> Marker | None:
    match = _PAREN.match(text)
    if match is None:
        return None
    rest = text[match.end():]
    if not rest.strip():
        return None
    return _enumerated("paren", match.group("tok"), match.group("label"), rest, indent + match.end())


def _dotted(text: str, indent: int) -> Marker | None:
    match = _DOTTED.match(text)
    if match is None:
        return None
    token = match.group("tok")
    rest = text[match.end():]
    # Dotted letters are easily prose ("A. Smith"); require a capitalised continuation.
    if not rest.strip() or not (rest.lstrip(" \t|")[:1].isupper() or rest.lstrip()[:1] in "“\"("):
        return None
    if len(token) > 1 and roman_value(token) is None:
        return None
    return _enumerated("dot", token, match.group("label"), rest, indent + match.end())


def _enumerated(style: str, token: str, label: str, rest: str, offset: int) -> Marker | None:
    title = split_title(rest)
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


def _schedule(text: str, indent: int) -> Marker | None:
    match = _SCHEDULE.match(text)
    if match is None:
        return None
    rest = text[match.end():]
    word = match.group("word")
    if _rest_is_prose_continuation(rest):
        return None
    # "Exhibit A attached hereto ..." in title case is prose unless the line is short;
    # an upper-case keyword opens a schedule even when its first paragraph runs on.
    if not word.isupper() and (len(text.strip()) > 100 or not match.group("num")):
        return None
    # "Exhibit 10.1" alone is the filing's exhibit number (SEC Item 601), not an attachment.
    if re.fullmatch(r"\d{1,3}\.\d{1,3}[a-z]?", match.group("num") or "") and not rest.strip():
        return None
    title = rest.strip().strip("|:").strip()[:100]
    return Marker("schedule", match.group("label"), (), title, indent + match.end())


def _recitals(text: str, indent: int) -> Marker | None:
    match = _RECITALS.match(text)
    if match is None:
        return None
    return Marker("recitals", match.group("label"), (), "Recitals", indent + match.end())


def _whereas(text: str, indent: int) -> Marker | None:
    match = _WHEREAS.match(text)
    if match is None:
        return None
    return Marker("whereas", match.group("label"), (), "", indent)


def _signature(text: str, indent: int) -> Marker | None:
    match = _SIGNATURE.match(text)
    if match is None:
        return None
    return Marker("signature", match.group("label"), (), "Signatures", indent)


def _toc(text: str, indent: int) -> Marker | None:
    match = _TOC_HEADING.match(text)
    if match is None:
        return None
    return Marker("toc_heading", match.group("label"), (), "Table of Contents", indent + match.end())
