"""Key facts of a text: citations, amounts, percentages, dates, numbers and defined terms.

Each fact is normalised so that the same fact written two ways compares equal ("$1.5 million"
and "$1,500,000"; "March 1, 1996" and "1996-03-01"). Facts are taken in a fixed order and each
match is blanked before the next kind is looked for, so the "2.1" of a citation is never
also counted as a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from pytest_legalbench.reference_backend.lexical import STOP_WORDS

#: Kinds whose values can contradict one another (a different date is a wrong date).
VALUE_KINDS = ("money", "percent", "date", "number")

_MONTHS = {name: n for n, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
     ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
     ("october", "oct"), ("november", "nov"), ("december", "dec")], 1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_AMOUNT = r"\d[\d,]*(?:\.\d+)?"
_SCALE = r"(?:\s?(?P<scale>thousand|million|billion))?"
# Capitalised or upper case only: "schedule a meeting" is not a clause reference.
_CLAUSE_WORD = (r"(?:[Ss]ections?|SECTIONS?|Clauses?|CLAUSES?|Articles?|ARTICLES?|Schedules?|"
                r"SCHEDULES?|Exhibits?|EXHIBITS?|Annex|ANNEX|Appendix|APPENDIX|§)")
_CITED_WORD = r"(?:" + _CLAUSE_WORD + r"|[Pp]aragraph|Recitals?|Signature)\.?\s+"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("citation", re.compile(r"\[(?P<doc>[^\[\]\s]+)\]\s*(?P<clause>(?:" + _CITED_WORD + r")?"
                            r"[0-9A-Za-z][0-9A-Za-z.]*(?:\([0-9A-Za-z]{1,4}\))*)")),
    ("clause", re.compile(_CLAUSE_WORD + r"\s+(?P<clause>[0-9IVXLC]+[0-9.]*"
                          r"(?:\([0-9A-Za-z]{1,4}\))*|[A-Z]\b)")),
    ("date", re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})"
                        r"|(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH.replace("month", "m2")
                        + r",?\s+(?P<year2>\d{4})"
                        r"|(?P<iso>\d{4}-\d{2}-\d{2})"
                        r"|(?P<us>\d{1,2})/(?P<usd>\d{1,2})/(?P<usy>\d{4})", re.IGNORECASE)),
    ("money", re.compile(r"(?:US\$|\$|USD\s?|€|£)\s?(?P<amount>" + _AMOUNT + r")" + _SCALE
                         + r"|(?P<amount2>" + _AMOUNT + r")" + _SCALE.replace("scale", "scale2")
                         + r"\s?(?:dollars|USD)\b", re.IGNORECASE)),
    ("percent", re.compile(r"(?P<amount>" + _AMOUNT + r")\s?(?:%|percent\b|per cent\b)",
                           re.IGNORECASE)),
    ("number", re.compile(r"(?<![\w.])(?P<amount>" + _AMOUNT + r")(?![\w])")),
    ("term", re.compile(r"[“\"](?P<term>[^”\"\n]{2,60})[”\"]")),
)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z&'-]*(?:\s+[A-Z][A-Za-z&'-]*)*")
# Words that open sentences in capitals without naming anything.
_NOT_TERMS = frozenset({"yes", "subject", "notwithstanding", "except", "unless", "provided"})
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}


@dataclass(frozen=True, order=True)
class Fact:
    """One key fact: its kind and its normalised value."""

    kind: str
    value: str

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


def extract_facts(text: str) -> frozenset[Fact]:
    """Every key fact of ``text``."""
    facts: set[Fact] = set()
    rest = text
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(rest):
            value = _normalised(kind, match)
            if value:
                facts.add(Fact("citation" if kind == "clause" else kind, value))
        rest = pattern.sub(lambda m: " " * len(m.group(0)), rest)
    for match in _CAPITALISED.finditer(rest):
        words = match.group(0).split()
        # "The Territory" is the term "territory"; a lone "The" or "If" is no term at all.
        while words and (words[0].lower() in STOP_WORDS or words[0].lower() in _NOT_TERMS):
            words.pop(0)
        while words and words[-1].lower() in STOP_WORDS:
            words.pop()
        if words and (len(words) > 1 or len(words[0]) > 1):
            facts.add(Fact("term", " ".join(words).lower()))
    return frozenset(facts)


def _normalised(kind: str, match: re.Match[str]) -> str:
    found = {k: v for k, v in match.groupdict().items() if v}
    if kind == "citation":
        doc = found.get("doc", "")
        return f"{doc}|{clause_key(found['clause'])}"
    if kind == "clause":
        return f"|{clause_key(found['clause'])}"
    if kind == "date":
        return _date(found)
    if kind == "term":
        return " ".join(found["term"].split()).lower()
    amount = found.get("amount") or found.get("amount2", "")
    scale = found.get("scale") or found.get("scale2")
    return _decimal(amount, _SCALES[scale.lower()] if scale else 1)


def clause_key(clause: str) -> str:
    """A clause reference without its leading word and case ("Section 2.1(a)" → "2.1(a)")."""
    words = clause.split()
    if len(words) > 1 and re.fullmatch(_CLAUSE_WORD + r"\.?", words[0], re.IGNORECASE):
        words = words[1:]
    return " ".join(words).lower().rstrip(".")


def _date(found: dict[str, str]) -> str:
    if "iso" in found:
        return found["iso"]
    if "us" in found:
        year, month, day = found["usy"], int(found["us"]), int(found["usd"])
    elif "month" in found:
        year, month, day = found["year"], _MONTHS[found["month"].lower()], int(found["day"])
    else:
        year, month, day = found["year2"], _MONTHS[found["m2"].lower()], int(found["day2"])
    return f"{year}-{month:02d}-{day:02d}"


def _decimal(amount: str, scale: int) -> str:
    try:
        value = Decimal(amount.replace(",", "")) * scale
    except InvalidOperation:
        return ""
    # "1,500,000.00" and "1.5 million" normalise to the same plain integer text.
    return format(value.normalize(), "f")


def citation_matches(wanted: str, found: str) -> bool:
    """Whether a found citation ``doc|clause`` supports a wanted one (one may be finer)."""
    wanted_doc, _, wanted_clause = wanted.partition("|")
    found_doc, _, found_clause = found.partition("|")
    if wanted_doc and found_doc != wanted_doc:
        return False
    short, long = sorted((wanted_clause, found_clause), key=len)
    return long == short or long.startswith((short + "(", short + "."))
