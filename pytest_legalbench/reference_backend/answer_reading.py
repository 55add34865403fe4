"""Reading an answer the way the judges need it: its plain text, its conclusion, its yes or
no, and whether it (or a reference) says the documents are silent."""

from __future__ import annotations

import re

from pytest_legalbench.reference_backend.identity import without_note
from pytest_legalbench.reference_backend.judging import declines
from pytest_legalbench.reference_backend.lexical import split_sentences
from pytest_legalbench.reference_backend.markers import without_markers
from pytest_legalbench.reference_backend.memo_reading import split_blocks

_LEADING_POLARITY = re.compile(r"^\W*(?P<word>yes|no|true|false)\b", re.IGNORECASE)
# Words that turn a statement into its negation ("don't" and the like end in "n't").
_NEGATIONS = frozenset({"no", "not", "never", "neither", "nor", "none", "cannot", "without",
                        "nothing", "nowhere"})
_WORDS = re.compile(r"[A-Za-z]+(?:['’]t)?")
# Phrases with which a reference answer says the instruments do not address the point.
_ABSENCE = re.compile(r"\b(?:silent|not addressed|do(?:es)? not (?:address|mention)|"
                      r"no provision (?:of|in)|nothing in the)\b", re.IGNORECASE)


def plain(answer: str) -> str:
    """``answer`` without the backend's note, block labels and citation markers."""
    text = without_note(answer)
    blocks = split_blocks(text)
    # A label such as "[RULE]" would otherwise read as a bracketed citation of "RULE".
    body = "\n".join(block.text for block in blocks) if blocks else text
    return " ".join(without_markers(body).split())


def conclusion_of(answer: str) -> str:
    """The answer's conclusion in plain text: its first non-empty [CONCLUSION] block, else
    its first sentence ("" for an empty answer)."""
    text = without_note(answer)
    for block in split_blocks(text):
        if block.label == "CONCLUSION" and plain(block.text):
            return plain(block.text)
    sentences = split_sentences(without_markers(text))
    return sentences[0].text if sentences else ""


def polarity(statement: str) -> str:
    """``"yes"`` or ``"no"``: a leading yes/no/true/false decides; otherwise a negation word
    makes it "no" and its absence "yes"."""
    leading = _LEADING_POLARITY.match(statement)
    if leading:
        return "yes" if leading.group("word").lower() in ("yes", "true") else "no"
    words = [w.lower().replace("’", "'") for w in _WORDS.findall(statement)]
    negated = any(w in _NEGATIONS or w.endswith("n't") for w in words)
    return "no" if negated else "yes"


def has_stated_polarity(statement: str) -> bool:
    """Whether ``statement`` opens with an explicit yes, no, true or false."""
    return _LEADING_POLARITY.match(statement) is not None


def says_absent(reference: str) -> bool:
    """Whether a reference answer is the refusal sentence or says the documents are silent."""
    return declines(reference) or _ABSENCE.search(reference) is not None


__all__ = ["conclusion_of", "declines", "has_stated_polarity", "plain", "polarity",
           "says_absent"]
