"""The correctness judge played by rule: how much of the reference answer the graded answer
carries, mapped onto the scores the forced tool's schema allows.

By the reference's kind (``reference_reading.reference_kind``):

- a reference that declines or says the documents are silent: the top score when the answer
  declines too, else the lowest; an answer that declines against any other reference scores
  the lowest;
- ``yes-no``: the top score when the answer's conclusion reads as the same yes or no
  (``answer_reading.polarity``), else the lowest;
- ``provision``: the top score when the answer names the provision, in its text or as the
  clause part of a cited passage id ("doc:2.1" names 2.1), else the lowest;
- ``figure``: the answer's figure closest to the reference, scored by closeness (the bands
  the judge's prompt states: exact 5, within 1% 4, within 10% 3, the right order of
  magnitude 2, otherwise 1);
- ``other``: the share of the reference's key content covered (its content terms that the
  question does not already hold, and its figures, dates and clause references), in bands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from pytest_legalbench.gandr.wire import CORRECTNESS_TOOL
from pytest_legalbench.reference_backend.answer_reading import (
    conclusion_of,
    declines,
    plain,
    polarity,
    says_absent,
)
from pytest_legalbench.reference_backend.facts import (
    VALUE_KINDS,
    Fact,
    citation_matches,
    clause_key,
    extract_facts,
)
from pytest_legalbench.reference_backend.gandr_prompt import fenced, section
from pytest_legalbench.reference_backend.identity import with_note, without_note
from pytest_legalbench.reference_backend.lexical import content_terms
from pytest_legalbench.reference_backend.markers import cited_ids
from pytest_legalbench.reference_backend.reference_reading import (
    ReferenceKind,
    figure,
    reference_kind,
)
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

#: Coverage of the reference's key content at or above each bound earns the score beside it.
COVERAGE_BANDS = ((0.8, 5), (0.6, 4), (0.4, 3), (0.2, 2))
_LOWEST, _HIGHEST = 1, 5
# Without a score enum in the tool's schema: a yes or no, or a provision, is right or wrong.
_ALL_OR_NOTHING = (_LOWEST, _HIGHEST)
_ANY_SCORE = (1, 2, 3, 4, 5)
# Candidate figures: an optional currency, a number, an optional scale word and percent sign;
# ``figure`` then decides which candidates are figures.
_FIGURE_SPAN = re.compile(
    r"(?<![\w.,])(?:(?:[A-Z]{1,2})?\$|[€£¥₹]|(?:USD|EUR|GBP)\s?)?\s?\d[\d,]*(?:\.\d+)?"
    r"(?:\s?(?:thousand|million|billion|trillion)\b)?(?:\s?(?:%|percent\b|per cent\b))?",
    re.IGNORECASE)


@dataclass(frozen=True)
class Grade:
    """A grade before it is fitted to the allowed scores: score, why, and the figure used."""

    score: int
    rationale: str
    candidate_figure: str | None = None


def _cited_clauses(answer: str) -> list[str]:
    """``doc|clause`` keys of the passage ids the answer cites (``DOC:LOCAL`` ids)."""
    keys = []
    for cited in cited_ids(answer):
        doc, _, local = cited.partition(":")
        if local:
            keys.append(f"{doc}|{clause_key(local)}")
    return keys


def _named_provisions(answer: str) -> list[str]:
    found = [f.value for f in extract_facts(plain(answer)) if f.kind == "citation"]
    return found + _cited_clauses(answer)


def _covers(fact: Fact, stated: frozenset[Fact], provisions: Sequence[str]) -> bool:
    if fact.kind == "citation":
        return any(citation_matches(fact.value, found) for found in provisions)
    # A bare number matches an amount or percentage of the same value, as in key-fact judging.
    return any(f.value == fact.value and (f.kind == fact.kind or "number" in (f.kind, fact.kind))
               for f in stated if f.kind in VALUE_KINDS)


def _open(question: str, reference: str, answer: str) -> Grade:
    reference_terms = set(content_terms(reference))
    terms = (reference_terms - set(content_terms(question))) or reference_terms
    found_terms = terms & set(content_terms(plain(answer)))
    facts = [f for f in extract_facts(reference) if f.kind in VALUE_KINDS or f.kind == "citation"]
    stated = extract_facts(plain(answer))
    provisions = _named_provisions(answer)
    found_facts = [f for f in facts if _covers(f, stated, provisions)]
    shares = [len(found_terms) / len(terms)] if terms else []
    if facts:
        shares.append(len(found_facts) / len(facts))
    coverage = sum(shares) / len(shares) if shares else 0.0
    score = next((s for bound, s in COVERAGE_BANDS if coverage >= bound), _LOWEST)
    missing = sorted(str(f) for f in facts if f not in found_facts)
    return Grade(score, f"The answer covers {coverage:.0%} of the reference's key content "
                        f"({len(found_terms)} of {len(terms)} key terms, {len(found_facts)} of "
                        f"{len(facts)} facts" + (f"; missing {', '.join(missing[:3])}"
                                                 if missing else "") + ").")


def _binary(reference: str, answer: str) -> Grade:
    wanted, conclusion = polarity(reference), conclusion_of(answer)
    given = polarity(conclusion)
    score = _HIGHEST if given == wanted else _LOWEST
    return Grade(score, f"The reference says {wanted}; the answer's conclusion reads as "
                        f"{given}: \"{conclusion[:120]}\".")


def _citation(reference: str, answer: str) -> Grade:
    wanted = f"|{clause_key(reference.strip().rstrip('.,;:'))}"
    provisions = _named_provisions(answer)
    named = any(citation_matches(wanted, found) for found in provisions)
    shown = ", ".join(dict.fromkeys(p.partition("|")[2] for p in provisions)) or "none"
    return Grade(_HIGHEST if named else _LOWEST,
                 f"The reference provision is {reference.strip()}; the answer "
                 f"{'names' if named else 'does not name'} it (provisions named: {shown}).")


def figures_in(text: str) -> list[tuple[str, Decimal]]:
    """Every figure written in ``text``: as written, and its value."""
    found = []
    for match in _FIGURE_SPAN.finditer(text):
        written = match.group(0).strip().rstrip(",")
        value = figure(written)
        if value is not None:
            found.append((written, value))
    return found


def closeness(expected: Decimal, given: Decimal) -> int:
    """Score ``given`` 1-5 by how near it is to ``expected``; every bound is inclusive."""
    if given == expected:
        return 5
    if expected == 0:
        return 1
    size, miss = abs(expected), abs(given - expected)
    # Multiplied out rather than divided, so that "exactly 1% off" is never lost to rounding.
    if miss * 100 <= size:
        return 4
    if miss * 10 <= size:
        return 3
    same_side = (given > 0) == (expected > 0) and given != 0
    return 2 if same_side and abs(given) * 10 >= size and abs(given) <= size * 10 else 1


def _numeric(reference: str, answer: str) -> Grade:
    expected = figure(reference)
    if expected is None:
        return Grade(_LOWEST, f"The reference {reference!r} is not one figure.")
    candidates = figures_in(plain(answer))
    if not candidates:
        return Grade(_LOWEST, f"The answer gives no figure; the reference is {reference.strip()}.")

    def nearness(item: tuple[str, Decimal]) -> tuple[int, Decimal]:
        return closeness(expected, item[1]), -abs(item[1] - expected)

    written, value = max(candidates, key=nearness)
    return Grade(closeness(expected, value),
                 f"The answer's figure closest to the reference {reference.strip()} is "
                 f"{written}.", written)


def grade(question: str, reference: str, answer: str) -> Grade:
    """Grade ``answer`` against ``reference`` by the rules in the module docstring."""
    text = without_note(answer)
    if says_absent(reference):
        if declines(text):
            return Grade(_HIGHEST, "The reference says the documents are silent, and the "
                                   "answer declines too.")
        return Grade(_LOWEST, "The reference says the documents are silent, but the answer "
                              "gives an answer.")
    if declines(text):
        return Grade(_LOWEST, "The answer declines, but the reference gives an answer.")
    kind = reference_kind(reference)
    if kind == "yes-no":
        return _binary(reference, text)
    if kind == "provision":
        return _citation(reference, text)
    if kind == "figure":
        return _numeric(reference, text)
    return _open(question, reference, text)


def allowed_scores(schema: Mapping[str, object] | None, kind: ReferenceKind) -> tuple[int, ...]:
    """The ``score`` enum of the forced tool's schema, as a model reads it; without one, 1 or
    5 for a yes-no or provision reference and any score otherwise."""
    properties = schema.get("properties") if schema is not None else None
    field = properties.get("score") if isinstance(properties, Mapping) else None
    enum = field.get("enum") if isinstance(field, Mapping) else None
    if isinstance(enum, list):
        scores = tuple(v for v in enum if isinstance(v, int) and not isinstance(v, bool))
        if scores:
            return scores
    return _ALL_OR_NOTHING if kind in ("yes-no", "provision") else _ANY_SCORE


def fitted(score: int, allowed: Sequence[int]) -> int:
    """The allowed score nearest to ``score`` (the lower one on a tie)."""
    return min(allowed, key=lambda value: (abs(value - score), value))


def correctness_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_correctness`` input for the graded answer of the last user turn."""
    text = request.last_user_text
    reference = section(text, "REFERENCE ANSWER")
    answer = fenced(text, "ANSWER TO GRADE")
    if reference is None or answer is None:
        raise invalid(f"{CORRECTNESS_TOOL}: the last user turn needs a REFERENCE ANSWER: "
                      "section and an ANSWER TO GRADE: section between --- lines")
    found = grade(section(text, "QUESTION") or "", reference, answer)
    allowed = allowed_scores(request.tool_schemas.get(CORRECTNESS_TOOL),
                             reference_kind(reference))
    data: dict[str, object] = {"score": fitted(found.score, allowed),
                               "rationale": with_note(found.rationale)}
    if found.candidate_figure is not None:
        data["candidate_figure"] = found.candidate_figure
    return data
