"""Key-fact judging: which of two answers carries more of the reference's facts.

An answer's score is the number of key facts it covers minus the number it contradicts; a
fact is contradicted when the answer omits it yet states a different value of the same kind
(another date where the reference has a date). Higher score wins, equal scores tie. When the
reference is itself the refusal sentence, an answer that declines beats one that does not.
Without a reference, the key facts are the question's plus those both answers share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.reference_backend.facts import (
    VALUE_KINDS,
    Fact,
    citation_matches,
    extract_facts,
)
from pytest_legalbench.reference_backend.identity import without_note
from pytest_legalbench.reference_backend.prompt_parts import tagged_text
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

#: The forced tool through which a judge reports its verdict.
VERDICT_TOOL = "record_verdict"
#: The same without ties (the forced-decision protocol).
FORCED_VERDICT_TOOL = "record_forced_verdict"


@dataclass(frozen=True)
class Verdict:
    """A verdict ("A", "B" or "tie") with its one-sentence reason."""

    verdict: str
    reason: str


@dataclass(frozen=True)
class _Standing:
    covered: tuple[Fact, ...]
    contradicted: tuple[Fact, ...]

    @property
    def score(self) -> int:
        return len(self.covered) - len(self.contradicted)


def _folded(text: str) -> str:
    return " ".join(text.split()).lower()


def declines(text: str) -> bool:
    """Whether ``text`` gives the refusal sentence."""
    return _folded(REFUSAL) in _folded(text)


def _covers(fact: Fact, found: frozenset[Fact], text: str) -> bool:
    if fact.kind == "citation":
        return any(f.kind == "citation" and citation_matches(fact.value, f.value) for f in found)
    if fact.kind == "term":
        return re.search(rf"(?<!\w){re.escape(fact.value)}(?!\w)", _folded(text)) is not None
    return any(f.value == fact.value and (f.kind == fact.kind or "number" in (f.kind, fact.kind))
               for f in found if f.kind in VALUE_KINDS)


def _standing(facts: frozenset[Fact], answer: str, contradictions: bool) -> _Standing:
    found = extract_facts(answer)
    covered = tuple(sorted(f for f in facts if _covers(f, found, answer)))
    contradicted: tuple[Fact, ...] = ()
    if contradictions:
        stated = {f.kind for f in found}
        contradicted = tuple(sorted(f for f in facts if f.kind in VALUE_KINDS
                                    and f not in covered and f.kind in stated))
    return _Standing(covered, contradicted)


def judge(question: str, reference: str | None, answer_a: str, answer_b: str) -> Verdict:
    """Compare two answers by key facts (deterministic)."""
    answer_a, answer_b = without_note(answer_a), without_note(answer_b)
    if reference is not None and declines(reference):
        return _declining_verdict(declines(answer_a), declines(answer_b))
    if reference is not None:
        facts = extract_facts(reference)
    else:
        facts = extract_facts(question) | (extract_facts(answer_a) & extract_facts(answer_b))
    check = reference is not None
    a, b = _standing(facts, answer_a, check), _standing(facts, answer_b, check)
    summary = (f"A covers {len(a.covered)} of {len(facts)} key facts with "
               f"{len(a.contradicted)} contradicted, B covers {len(b.covered)} with "
               f"{len(b.contradicted)} contradicted")
    if a.score == b.score:
        return Verdict("tie", f"{summary}; equal scores.")
    winner, loser, name = (a, b, "A") if a.score > b.score else (b, a, "B")
    return Verdict(name, f"{summary}; deciding fact: {_deciding(winner, loser)}.")


def _deciding(winner: _Standing, loser: _Standing) -> str:
    gained = sorted(set(winner.covered) - set(loser.covered))
    if gained:
        return f"{gained[0]} (only the winner has it)"
    against = sorted(set(loser.contradicted) - set(winner.contradicted))
    return f"{against[0]} (the other answer contradicts it)" if against else "overall score"


def _declining_verdict(a_declines: bool, b_declines: bool) -> Verdict:
    silent = "The reference says the documents are silent"
    if a_declines == b_declines:
        both = "both answers decline" if a_declines else "neither answer declines"
        return Verdict("tie", f"{silent}, and {both}.")
    name = "A" if a_declines else "B"
    return Verdict(name, f"{silent}; only {name} declines.")


def verdict_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_verdict`` input for a judging request (its tagged user turn)."""
    text = request.last_user_text
    answers = tagged_text(text, "answer_a"), tagged_text(text, "answer_b")
    if answers[0] is None or answers[1] is None:
        raise invalid(f"{VERDICT_TOOL}: the last user message needs <answer_a> and <answer_b>")
    verdict = judge(tagged_text(text, "question") or "", tagged_text(text, "reference"),
                    answers[0], answers[1])
    return {"verdict": verdict.verdict, "reason": verdict.reason}


def forced_verdict_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_forced_verdict`` input: a key-fact verdict, a tie settled by content.

    The tie-break looks only at the answers' content (more checkable facts, then the text
    itself), never at their positions, so swapping A and B swaps the choice."""
    data = verdict_input(request)
    if data["verdict"] != "tie":
        return data
    text = request.last_user_text
    a = without_note(tagged_text(text, "answer_a") or "")
    b = without_note(tagged_text(text, "answer_b") or "")
    key_a, key_b = (len(extract_facts(a)), a), (len(extract_facts(b)), b)
    if key_a == key_b:
        return {"verdict": "A", "reason": "The answers are identical; A by default."}
    choice = "A" if key_a > key_b else "B"
    return {"verdict": choice,
            "reason": f"Equal on key facts; {choice} states more checkable facts."}
