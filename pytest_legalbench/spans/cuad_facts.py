"""Key facts from CUAD's answer column, each kept only where the annotated text states it.

CUAD's answers are normalised by its annotators ("6/21/99", "successive 1 year", "New York");
a contract states them its own way ("the 21st day of June, 1999", "one (1) year", "the laws of
the State of New York"). A fact is therefore written in the forms a contract uses, and each is
kept only when the question's evidence (the located excerpts) contains it, as the key-fact
scorer would find it (``judging.keyfacts``: case, spacing and number formatting ignored, numbers
on digit boundaries). What cannot be found is reported, never guessed: a question whose answer
yields no fact found in its evidence is not generated.

A date gives its month name, day and year as separate facts ("June", "21", "1999"), so that an
answer written "June 21, 1999", "21 June 1999" or "the 21st day of June, 1999" states them all;
a duration gives its number (digits, else the number's word) and its unit ("1", "year").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pytest_legalbench.judging.keyfacts import contains_fact, normalise

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
# CUAD writes a date as m/d/yy (sometimes m/d/yyyy); an unknown part is "[]".
_YEAR_ONLY = re.compile(r"^\[\]/\[\]/(?P<year>\d{4})$")
_DATE_FORMATS = ("%m/%d/%y", "%m/%d/%Y")
_DURATION = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*\)?\s*(?P<unit>day|week|month|year)s?",
                       re.IGNORECASE)
_NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 14: "fourteen", 15: "fifteen",
    18: "eighteen", 20: "twenty", 24: "twenty-four", 30: "thirty", 36: "thirty-six",
    45: "forty-five", 60: "sixty", 90: "ninety", 120: "one hundred twenty",
    180: "one hundred eighty", 365: "three hundred sixty-five",
}
_PERPETUAL = "perpetual"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class AnswerFacts:
    """What one answer column value yields: the facts found in the evidence, and a readable
    rendering of the answer for the reference; or why no fact could be kept."""

    facts: tuple[str, ...]
    rendered: str
    problem: str = ""


def _unusable(problem: str) -> AnswerFacts:
    return AnswerFacts((), "", problem)


def _stated(fact: str, evidence: str) -> bool:
    """Whether the key-fact scorer finds ``fact`` in ``evidence`` (already normalised)."""
    return contains_fact(evidence, normalise(fact))


def date_facts(answer: str, evidence: str) -> AnswerFacts:
    """Month, day and year of a CUAD date answer, those the evidence states; the year needed."""
    evidence = normalise(evidence)
    text = answer.strip()
    partial = _YEAR_ONLY.match(text)
    if partial:
        year = partial.group("year")
        if not _stated(year, evidence):
            return _unusable(f"date {text!r}: the year is not in the annotated text")
        return AnswerFacts((year,), f"in {year} (CUAD gives the year only)")
    for fmt in _DATE_FORMATS:
        try:
            parsed = datetime.strptime(text, fmt).date()
        except ValueError:
            continue
        month, day, year = _MONTHS[parsed.month - 1], str(parsed.day), str(parsed.year)
        if not _stated(year, evidence):
            return _unusable(f"date {text!r}: the year {year} is not in the annotated text")
        kept = tuple(fact for fact in (month, day) if _stated(fact, evidence)) + (year,)
        return AnswerFacts(kept, f"{month} {day}, {year}")
    return _unusable(f"date {text!r}: not a date CUAD's format gives (m/d/yy)")


def _number_fact(number: str, evidence: str) -> str | None:
    if _stated(number, evidence):
        return number
    value = float(number)
    word = _NUMBER_WORDS.get(int(value)) if value.is_integer() else None
    return word if word is not None and _stated(word, evidence) else None


def duration_facts(answer: str, evidence: str) -> AnswerFacts:
    """The number and unit of each duration in a CUAD term answer; "perpetual" as itself."""
    evidence = normalise(evidence)
    text = _SPACES.sub(" ", answer).strip()
    if normalise(text) == _PERPETUAL:
        return _perpetual(text, evidence)
    durations = list(_DURATION.finditer(text))
    if not durations:
        return _unusable(f"term {text!r}: no number of days, weeks, months or years")
    facts: list[str] = []
    for match in durations:
        number = _number_fact(match.group("number"), evidence)
        unit = match.group("unit").lower()
        if number is None:
            return _unusable(f"term {text!r}: {match.group('number')} is not in the annotated "
                             f"text, as digits or as a word")
        facts.append(number)
        if _stated(unit, evidence):
            facts.append(unit)
    return AnswerFacts(tuple(dict.fromkeys(facts)), text)


def _perpetual(text: str, evidence: str) -> AnswerFacts:
    if not _stated(_PERPETUAL, evidence):
        return _unusable(f"{text!r}: the annotated text does not say 'perpetual'")
    return AnswerFacts((_PERPETUAL,), "perpetual: it has no fixed end")


def expiry_facts(answer: str, evidence: str) -> AnswerFacts:
    """A CUAD expiration answer: a date, or "perpetual"."""
    evidence = normalise(evidence)
    if normalise(answer) == _PERPETUAL:
        return _perpetual(answer.strip(), evidence)
    return date_facts(answer, evidence)


def jurisdiction_facts(answer: str, evidence: str) -> AnswerFacts:
    """Each jurisdiction of a CUAD governing-law answer that the evidence names."""
    evidence = normalise(evidence)
    text = _SPACES.sub(" ", answer).strip()
    facts: list[str] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        if _stated(part, evidence):
            facts.append(part)
            continue
        # "Ontario, Canada" may be written "the Province of Ontario and the laws of Canada".
        facts.extend(piece for piece in (p.strip() for p in part.split(","))
                     if piece and _stated(piece, evidence))
    if not facts:
        return _unusable(f"governing law {text!r}: no jurisdiction of it is in the annotated text")
    return AnswerFacts(tuple(dict.fromkeys(facts)), text)


def title_facts(title: str, evidence: str) -> AnswerFacts:
    """The contract's title, when the annotated text gives it."""
    evidence = normalise(evidence)
    text = _SPACES.sub(" ", title).strip()
    if not text or not _stated(text, evidence):
        return _unusable(f"title {text!r}: not in the annotated text")
    return AnswerFacts((text,), text)


def party_facts(parties: Sequence[str], evidence: str) -> AnswerFacts:
    """The parties (other than the one the question names) that the annotated text gives."""
    evidence = normalise(evidence)
    kept = [party for party in parties if _stated(party, evidence)]
    if not kept:
        return _unusable(f"parties {list(parties)!r}: none is in the annotated text")
    return AnswerFacts(tuple(dict.fromkeys(kept)), " and ".join(kept))


YES = "Yes"
NO = "No"
