"""The special cases of the 1-5 correctness judge (SPEC §11): which kind of reference an item
has, how a numeric answer is scored by closeness, and how the judge's score is settled.

Kinds, tried in this order:

- ``binary``: the reference is one of yes/no/true/false, any case, with optional trailing
  punctuation ("Yes", "No.", "TRUE").
- ``citation``: the reference is a single provision: "§ 4", "Section 12.3", "Sec. 4",
  "Rule 23", "Clause 7(b)", "Article IV", "Schedule A", "28 U.S.C. § 1332",
  "17 C.F.R. § 240.10b-5", "Fed. R. Civ. P. 23(b)(3)". A provision number is digits with
  optional letter, dotted or hyphenated parts and parenthesised sub-parts, an upper-case
  Roman numeral, or a single capital letter. "§§" (several sections) is not single.
- ``numeric``: the reference is exactly one figure (see ``figure``).
- ``open``: anything else, the empty reference included.
"""

from __future__ import annotations

import re
from decimal import Decimal

#: The scores a judge may give per reference kind; binary and citation items are all or nothing.
ALLOWED_SCORES: dict[str, tuple[int, ...]] = {
    "binary": (1, 5),
    "citation": (1, 5),
    "numeric": (1, 2, 3, 4, 5),
    "open": (1, 2, 3, 4, 5),
}

_BINARY = re.compile(r"\s*(?:yes|no|true|false)\s*[.!?,;:]*\s*", re.IGNORECASE)

_PROVISION = (
    r"(?:\d+[A-Za-z]?(?:[.\-–]\d+[A-Za-z]?)*|[IVXLCDM]+|[A-Z])(?:\([A-Za-z0-9]{1,6}\))*"
)
_PROVISION_WORD = (
    r"(?i:(?:section|subsection|article|rule|clause|paragraph|schedule|exhibit|annex|appendix|"
    r"regulation|chapter|part|title|item|recital)\s+|(?:sec|art|cl|para|sched|ex|reg|ch)\.\s*)"
)
_CITATIONS = (
    re.compile(rf"§\s*{_PROVISION}"),
    re.compile(rf"{_PROVISION_WORD}{_PROVISION}"),
    # A code or statute before the section sign: "28 U.S.C. § 1332", "Cal. Civ. Code § 1542".
    # Each word ends in a full stop, a space or the section sign, so a run of capitals splits
    # one way only (an optional ending lets the engine try every split: exponential time).
    re.compile(rf"(?:\d+\s+)?(?:[A-Z][A-Za-z]*(?:\.\s*|\s+|(?=§)))+§\s*{_PROVISION}"),
    # Federal rules: "Fed. R. Civ. P. 23(b)(3)", "Fed. R. Evid. 803".
    re.compile(rf"Fed\.\s*R\.\s*(?:[A-Z][a-z]*\.\s*)+{_PROVISION}"),
)

_CURRENCY_CODES = r"USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|HKD|SGD|INR|SEK|NOK|DKK"
_SCALES = {"thousand": Decimal(10) ** 3, "million": Decimal(10) ** 6,
           "billion": Decimal(10) ** 9, "trillion": Decimal(10) ** 12}
_FIGURE = re.compile(
    rf"""\s*
    (?P<sign>[-+\u2212])?\s*
    (?:(?P<symbol>(?:[A-Z]{{1,2}})?\$|[€£¥₹])\s*|(?P<code>{_CURRENCY_CODES})\s*)?
    (?P<number>(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?|\.\d+)
    (?:\s*(?P<scale>thousand|million|billion|trillion)\b)?
    (?:\s*(?P<percent>%|percent\b|per\s+cent\b))?
    (?:\s+(?P<code_after>{_CURRENCY_CODES})\b)?
    (?:\s+(?P<unit>[^\W\d_][^\W\d_\-]*(?:-[^\W\d_]+)*))?
    \s*[.!]?\s*""",
    re.IGNORECASE | re.VERBOSE,
)


def _is_citation(reference: str) -> bool:
    text = reference.strip().rstrip(".,;:").strip()
    return any(pattern.fullmatch(text) for pattern in _CITATIONS)


def figure(text: str) -> Decimal | None:
    """The one figure ``text`` consists of, or None.

    A figure is a number (thousands grouped by commas in threes, optional decimals) with an
    optional sign, an optional currency (a symbol such as ``$``, ``US$``, ``€``, or an ISO
    code before or after), an optional scale word (thousand, million, billion, trillion), an
    optional percent sign or word, and at most one trailing unit word ("shares", "days").
    Percentages keep their number ("12.5%" -> 12.5). Anything more, such as a second number,
    a range or a sentence, is not one figure.
    """
    match = _FIGURE.fullmatch(text)
    if match is None:
        return None
    currency = match.group("symbol") or match.group("code") or match.group("code_after")
    if currency and match.group("percent"):
        return None
    if match.group("code") and match.group("code_after"):
        return None
    value = Decimal(match.group("number").replace(",", ""))
    if match.group("scale"):
        value *= _SCALES[match.group("scale").lower()]
    return -value if match.group("sign") in ("-", "\u2212") else value


def reference_kind(reference: str) -> str:
    """``binary``, ``citation``, ``numeric`` or ``open``, by the rules in the module docstring."""
    if _BINARY.fullmatch(reference):
        return "binary"
    if _is_citation(reference):
        return "citation"
    if figure(reference) is not None:
        return "numeric"
    return "open"


def closeness_score(reference: Decimal, candidate: Decimal) -> int:
    """Score a candidate figure 1-5 by how close it is to the reference figure.

    5 exact; 4 within 1% of the reference; 3 within 10%; 2 within a factor of ten (0.1x to
    10x) on the same side of zero; else 1. Every bound is inclusive: exactly 1% off is 4,
    exactly 10% off is 3, exactly ten times is 2. Against a zero reference only the exact
    figure scores (5); anything else is 1.
    """
    for name, value in (("reference", reference), ("candidate", candidate)):
        if not value.is_finite():
            raise ValueError(f"closeness_score: {name} must be a finite number, got {value}")
    if candidate == reference:
        return 5
    if reference == 0:
        return 1
    size = abs(reference)
    miss = abs(candidate - reference)
    if miss * 100 <= size:
        return 4
    if miss * 10 <= size:
        return 3
    same_sign = (candidate > 0) == (reference > 0) and candidate != 0
    if same_sign and size <= abs(candidate) * 10 and abs(candidate) <= size * 10:
        return 2
    return 1


def settle(
    kind: str, judged: int | None, *, reference: str, candidate_figure: str | None
) -> int | None:
    """The final correctness score of an item, or None for no score.

    For a numeric item whose reference and candidate figure both parse, ``closeness_score``
    decides and the judge's score is ignored. Otherwise the judge's score stands if it is
    allowed for ``kind`` (``ALLOWED_SCORES``); anything else, None included, is no score.
    """
    if kind not in ALLOWED_SCORES:
        raise ValueError(
            f"settle: unknown reference kind {kind!r}; expected one of {', '.join(ALLOWED_SCORES)}"
        )
    if kind == "numeric" and candidate_figure is not None:
        expected, produced = figure(reference), figure(candidate_figure)
        if expected is not None and produced is not None:
            return closeness_score(expected, produced)
    # A score outside the allowed set is a protocol violation: recorded as no score, never
    # rounded to the nearest allowed one. bool is an int subclass but never a score.
    if isinstance(judged, bool) or not isinstance(judged, int):
        return None
    return judged if judged in ALLOWED_SCORES[kind] else None
