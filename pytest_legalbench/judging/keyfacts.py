"""The model-free key-fact score (SPEC §6): does an answer state each required fact.

Facts and answers pass through the same normaliser, so a fact is found in any answer that
contains it verbatim, whatever the case and spacing. Numbers are compared as numbers: thousands
separators, the spelling of "percent" and trailing decimal zeros do not matter, and a number
never matches inside a longer one (digit boundaries), so "90" is not found in "1990" and "30" is
not found in "30.5".

A fact that is a bare "Yes" or "No" states the answer's polarity (for a question such as "Does
the agreement cap either party's liability?"): it is found only as the answer's first word,
since "no" occurs inside almost any text and "yes" may occur in a quoted clause.

A control (a question whose answer is in no document) is answered correctly by the refusal
sentence; when it lists facts too (a "No" for a yes/no question about a clause the contract
does not have), stating all of them is also correct.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
# "per cent" may be split over a line. Letters may not touch either end, so "percentage" stays
# a word, while a digit may ("5percent").
_PERCENT_WORD = re.compile(r"(?<![^\W\d_])per\s*cent(?![^\W\d_])")
_SPACE_BEFORE_PERCENT = re.compile(r"\s+%")
# A comma between digits that is followed by exactly three digits groups thousands.
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# A whole dotted number, greedy, so "1.2.10" is seen as one token and never as "2.10".
_DOTTED_NUMBER = re.compile(r"\d+(?:\.\d+)+")
_FIRST_WORD = re.compile(r"[^\W_]+")

#: Normalised facts that state polarity: found only as the answer's first word.
POLARITY_FACTS = frozenset({"yes", "no"})


@dataclass(frozen=True)
class KeyFactScore:
    """Which required facts an answer states, and whether it declined."""

    found: tuple[str, ...]
    missing: tuple[str, ...]
    declined: bool
    correct: bool

    @property
    def share(self) -> float:
        """Share of the required facts found; 1.0 when nothing was required."""
        total = len(self.found) + len(self.missing)
        return len(self.found) / total if total else 1.0


def _strip_decimal_zeros(match: re.Match[str]) -> str:
    number = match.group(0)
    # Only a plain decimal is a quantity; a multi-level clause number keeps every digit.
    if number.count(".") != 1:
        return number
    whole, fraction = number.split(".")
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def normalise(text: str) -> str:
    """Lower-case ``text``, collapse whitespace and write numbers and percentages one way."""
    text = _WHITESPACE.sub(" ", text.casefold()).strip()
    text = _PERCENT_WORD.sub("%", text)
    text = _SPACE_BEFORE_PERCENT.sub("%", text)
    text = _THOUSANDS_COMMA.sub("", text)
    return _DOTTED_NUMBER.sub(_strip_decimal_zeros, text)


def _continues_number_before(text: str, start: int) -> bool:
    """Whether the character(s) before ``start`` belong to a number the match would cut."""
    if start == 0:
        return False
    if text[start - 1].isdigit():
        return True
    return start >= 2 and text[start - 1] == "." and text[start - 2].isdigit()


def _continues_number_after(text: str, end: int) -> bool:
    """Whether the character(s) from ``end`` on extend the number the match ends with."""
    if end >= len(text):
        return False
    if text[end].isdigit():
        return True
    return end + 1 < len(text) and text[end] == "." and text[end + 1].isdigit()


def contains_fact(normalised_answer: str, normalised_fact: str) -> bool:
    """Whether the normalised fact occurs in the normalised answer on digit boundaries."""
    check_start = normalised_fact[:1].isdigit()
    check_end = normalised_fact[-1:].isdigit()
    start = normalised_answer.find(normalised_fact)
    while start != -1:
        end = start + len(normalised_fact)
        cut_before = check_start and _continues_number_before(normalised_answer, start)
        cut_after = check_end and _continues_number_after(normalised_answer, end)
        if not (cut_before or cut_after):
            return True
        start = normalised_answer.find(normalised_fact, start + 1)
    return False


def opens_with(normalised_answer: str, word: str) -> bool:
    """Whether the normalised answer's first word (punctuation and markup skipped) is ``word``."""
    first = _FIRST_WORD.search(normalised_answer)
    return first is not None and first.group(0) == word


def score_answer(
    answer: str, must_contain: Sequence[str], *, out_of_scope: bool, refusal: str
) -> KeyFactScore:
    """Score ``answer`` against the required facts and the exact refusal sentence.

    A document-bound answer is correct when it states every fact and does not decline; a
    control's when it declines, or states every one of its facts when it has any.
    """
    if isinstance(must_contain, str):
        # A bare string would be scored character by character.
        raise TypeError(f"must_contain must be a sequence of facts, not a string: {must_contain!r}")
    for name, value in (("answer", answer), ("refusal", refusal)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__}: {value!r}")
    wanted_refusal = normalise(refusal)
    if not wanted_refusal:
        raise ValueError(f"refusal must not be blank, got {refusal!r}")
    text = normalise(answer)
    found: list[str] = []
    missing: list[str] = []
    for position, fact in enumerate(must_contain):
        if not isinstance(fact, str):
            # YAML reads an unquoted 90 or 2.50 as a number, and 2.50 would lose its zero.
            raise TypeError(
                f"must_contain[{position}] must be a string, got {type(fact).__name__}: {fact!r}"
            )
        wanted = normalise(fact)
        if not wanted:
            raise ValueError(f"must_contain[{position}] is blank: {fact!r}")
        hit = (opens_with(text, wanted) if wanted in POLARITY_FACTS
               else contains_fact(text, wanted))
        (found if hit else missing).append(fact)
    declined = wanted_refusal in text
    if out_of_scope:
        correct = declined or (bool(must_contain) and not missing)
    else:
        correct = not missing and not declined
    return KeyFactScore(
        found=tuple(found), missing=tuple(missing), declined=declined, correct=correct
    )
