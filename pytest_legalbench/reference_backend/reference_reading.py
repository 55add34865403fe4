"""What kind of answer a reference is, and reading a figure, written for the backend.

The correctness judge's prompt tells a model how to grade a plain yes or no, a single
provision and a figure; the backend tells these apart itself, from the reference alone:

- ``yes-no``: yes, no, true or false, in any case, perhaps with trailing punctuation;
- ``provision``: one provision and nothing else ("Section 12.3", "§ 4", "Clause 7(b)",
  "Article IV", "28 U.S.C. § 1332");
- ``figure``: exactly one figure (see ``figure``);
- ``other``: anything else.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Literal

ReferenceKind = Literal["yes-no", "provision", "figure", "other"]

_ANSWER_WORDS = frozenset({"yes", "no", "true", "false"})
_END_PUNCTUATION = ".!?,;:"
# A provision's number: "4", "12.3", "2A", "240.10b-5", a Roman numeral or one capital, then
# any parenthesised parts: "7(b)", "4.2(a)(iii)".
_NUMBER = r"(?:[0-9]+[A-Za-z]?(?:[.\-–][0-9]+[A-Za-z]?)*|[IVXLCDM]+|[A-Z])(?:\([0-9A-Za-z]{1,6}\))*"
_WORDS = ("section", "subsection", "clause", "article", "rule", "paragraph", "schedule",
          "exhibit", "annex", "appendix", "regulation", "chapter", "part", "title", "item",
          "recital")
_SHORT_WORDS = ("sec", "art", "cl", "para", "sched", "ex", "reg", "ch")
_NAMED = re.compile(rf"(?i:{'|'.join(_WORDS)})\s+{_NUMBER}|(?i:{'|'.join(_SHORT_WORDS)})\.\s*"
                    rf"{_NUMBER}")
# What may stand before a section sign: the code it belongs to ("17 C.F.R.", "Cal. Civ.
# Code"), capitalised words apart by spaces, perhaps led by a title number. Words are never
# glued together, so a failed match cannot try every way of cutting a run of capitals.
_CODE = re.compile(r"(?:[0-9]+\s+)?[A-Z][A-Za-z.]*(?:\s+[A-Z][A-Za-z.]*)*")
_SECTION_NUMBER = re.compile(rf"\s*{_NUMBER}")

_CURRENCY_SIGNS = ("$", "€", "£", "¥", "₹")
_CURRENCY_CODES = frozenset({"USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD"})
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_LEADING = re.compile(
    r"(?P<sign>[-+−])?\s*(?P<currency>(?:[A-Z]{1,2})?\$|[€£¥₹]|[A-Z]{3}(?=\s))?\s*"
    r"(?P<number>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)")
_UNIT = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def reference_kind(reference: str) -> ReferenceKind:
    """The kind of ``reference``, by the rules in the module docstring."""
    if reference.strip().rstrip(_END_PUNCTUATION).strip().lower() in _ANSWER_WORDS:
        return "yes-no"
    if is_single_provision(reference):
        return "provision"
    if figure(reference) is not None:
        return "figure"
    return "other"


def is_single_provision(text: str) -> bool:
    """Whether ``text`` names one provision and says nothing more."""
    name = text.strip().rstrip(_END_PUNCTUATION).strip()
    if _NAMED.fullmatch(name):
        return True
    code, sign, number = name.partition("§")
    code = code.strip()
    return bool(sign and _SECTION_NUMBER.fullmatch(number)
                and (not code or _CODE.fullmatch(code)))


def _tail_words(tail: str) -> list[str] | None:
    """The words after a figure's number, a percent sign split off; None when it is glued on."""
    if tail.startswith("%"):
        return ["%", *tail[1:].split()]
    if tail and not tail[0].isspace():
        return None
    return tail.split()


def figure(text: str) -> Decimal | None:
    """The one figure ``text`` consists of, or None.

    A figure is a number (commas grouping thousands in threes, optional decimals) with an
    optional sign, an optional currency (``$``, ``US$``, ``€``, ``£``, ``¥``, ``₹`` or a code
    such as ``USD``, before the number or a code after it), an optional scale word (thousand
    to trillion), an optional percent (``%``, "percent", "per cent") and at most one unit word
    ("days"); a final period is allowed. A currency and a percent together are not a figure.
    """
    body = text.strip()
    if body.endswith((".", "!")):
        body = body[:-1].rstrip()
    leading = _LEADING.match(body)
    if leading is None:
        return None
    currency = leading.group("currency")
    if currency and currency.isalpha() and currency not in _CURRENCY_CODES:
        return None
    words = _tail_words(body[leading.end():])
    if words is None:
        return None
    value = Decimal(leading.group("number").replace(",", ""))
    if words and words[0].lower() in _SCALES:
        value = value.scaleb(_SCALES[words.pop(0).lower()])
    percent = False
    if words[:1] == ["%"] or [w.lower() for w in words[:1]] == ["percent"]:
        percent, words = True, words[1:]
    elif [w.lower() for w in words[:2]] == ["per", "cent"]:
        percent, words = True, words[2:]
    if words and words[0] in _CURRENCY_CODES:
        if currency:
            return None
        currency, words = words[0], words[1:]
    if len(words) > 1 or (words and not _UNIT.fullmatch(words[0])):
        return None
    if currency and percent:
        return None
    return -value if leading.group("sign") in ("-", "−") else value


__all__ = ["ReferenceKind", "figure", "is_single_provision", "reference_kind"]
