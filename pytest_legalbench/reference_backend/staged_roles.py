"""The planning and reviewing steps of the staged (B5) conversation, played by rule.

The plan turns the question's own words into sub-questions. The review checks the previous
assistant turn (the draft) the way the grounding check will: every statement needs a
``{cite: ID}`` marker and every marker must name a passage shown in the conversation.
"""

from __future__ import annotations

import re

from pytest_legalbench.reference_backend.gandr_prompt import (
    conversation_passages,
    conversation_question,
    last_assistant_text,
)
from pytest_legalbench.reference_backend.identity import without_note
from pytest_legalbench.reference_backend.judging import declines
from pytest_legalbench.reference_backend.lexical import STOP_WORDS, content_terms, stem
from pytest_legalbench.reference_backend.markers import has_marker, unresolved_ids
from pytest_legalbench.reference_backend.memo_reading import claims
from pytest_legalbench.reference_backend.wire import MessagesRequest

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")
# Short words ("law", "fee") do carry meaning, but two-letter ones are initials or noise.
_MIN_KEY_LETTERS = 3
_TOPICS = 3
_MIN_LINES = 3
_QUOTED_WORDS = 12
_NO_PROBLEM = ("No problem found: every statement carries a {cite: ID} marker that matches a "
               "passage id exactly.")


def key_words(question: str) -> list[str]:
    """The question's non-stop words in order, lower case, one per stem."""
    seen: set[str] = set()
    found = []
    for match in _WORD.finditer(question):
        word = match.group(0).lower()
        if word in STOP_WORDS or len(word) < _MIN_KEY_LETTERS or stem(word) in seen:
            continue
        seen.add(stem(word))
        found.append(word)
    return found


def plan_lines(question: str) -> list[str]:
    """Three to five sub-questions: what governs, one per leading topic word, what changed it."""
    words = key_words(question)
    subject = " ".join(words[:_TOPICS]) if words else "the question"
    lines = [f"Which retrieved passage governs {subject}?"]
    lines.extend(f"What do the passages say about {word}?" for word in words[:_TOPICS])
    if len(lines) + 1 < _MIN_LINES:
        lines.append("Which facts, figures or dates settle the question?")
    lines.append("Has a later instrument, such as an amendment, changed that answer?")
    return lines


def plan(request: MessagesRequest) -> str:
    """The plan step: one ``- `` sub-question per line."""
    return "\n".join(f"- {line}" for line in plan_lines(conversation_question(request)))


def draft_problems(draft: str, passage_ids: list[str]) -> list[str]:
    """The citation problems of ``draft``: markers naming no passage, statements without one."""
    text = without_note(draft)
    if not text:
        return ["The draft is empty."]
    problems = [f"The marker {{cite: {cited}}} matches no passage id." if cited else
                "A {cite: } marker names no id." for cited in unresolved_ids(text, passage_ids)]
    if declines(text) and not has_marker(text):
        # A refusal states no fact of the passages, so it needs no marker.
        return problems
    for claim in claims(text):
        if not has_marker(claim) and content_terms(claim):
            problems.append(f"No {{cite: ID}} marker after: \"{_quoted(claim)}\"")
    return problems


def _quoted(text: str) -> str:
    words = text.split()
    return " ".join(words[:_QUOTED_WORDS]) + (" …" if len(words) > _QUOTED_WORDS else "")


def review(request: MessagesRequest) -> str:
    """The review step: one ``- `` problem per line, or one line saying there is none."""
    ids = [p.passage_id for p in conversation_passages(request)]
    problems = draft_problems(last_assistant_text(request), ids)
    return "\n".join(f"- {problem}" for problem in problems) if problems else _NO_PROBLEM
