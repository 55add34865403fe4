"""The equivalence judge played by rule: do two answers reach the same conclusion?

Each answer's conclusion is its first [CONCLUSION] block, else its first sentence, read
without markers or the backend's note. Two answers that both decline are equivalent; one that
declines is not equivalent to one that answers. Two conclusions that each open with an
explicit yes or no must agree on it. Otherwise they are equivalent when they share at least
``EQUIVALENT_SHARE`` of the content terms of the longer conclusion.
"""

from __future__ import annotations

from pytest_legalbench.gandr.wire import EQUIVALENCE_TOOL
from pytest_legalbench.reference_backend.answer_reading import (
    conclusion_of,
    declines,
    has_stated_polarity,
    polarity,
)
from pytest_legalbench.reference_backend.gandr_prompt import fenced
from pytest_legalbench.reference_backend.identity import with_note, without_note
from pytest_legalbench.reference_backend.lexical import content_terms
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

#: "Most" of the terms: more than half, with a margin so one shared clause name is not enough.
EQUIVALENT_SHARE = 0.6


def equivalent(answer_a: str, answer_b: str) -> tuple[bool, str]:
    """Whether the two answers reach the same conclusion, and why."""
    declined = declines(without_note(answer_a)), declines(without_note(answer_b))
    if all(declined):
        return True, "Both answers decline."
    if any(declined):
        return False, f"Only answer {'A' if declined[0] else 'B'} declines."
    first, second = conclusion_of(answer_a), conclusion_of(answer_b)
    if has_stated_polarity(first) and has_stated_polarity(second) \
            and polarity(first) != polarity(second):
        return False, (f"The conclusions answer differently: A says {polarity(first)}, "
                       f"B says {polarity(second)}.")
    terms_a, terms_b = set(content_terms(first)), set(content_terms(second))
    larger = max(len(terms_a), len(terms_b))
    share = len(terms_a & terms_b) / larger if larger else 0.0
    same = share >= EQUIVALENT_SHARE
    return same, (f"The conclusions share {share:.0%} of their content terms "
                  f"({'at least' if same else 'below'} {EQUIVALENT_SHARE:.0%}).")


def equivalence_input(request: MessagesRequest) -> dict[str, object]:
    """The ``record_equivalence`` input for the two fenced answers of the last user turn."""
    text = request.last_user_text
    answer_a, answer_b = fenced(text, "ANSWER A"), fenced(text, "ANSWER B")
    if answer_a is None or answer_b is None:
        raise invalid(f"{EQUIVALENCE_TOOL}: the last user turn needs ANSWER A: and ANSWER B: "
                      "sections between --- lines")
    same, why = equivalent(answer_a, answer_b)
    return {"equivalent": same, "rationale": with_note(why)}
