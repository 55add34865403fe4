"""Whether an extractive answer to a yes/no question may open with "Yes".

A question asks for a yes or a no when it opens with an auxiliary verb ("Does the agreement
cap ...?", "Is the licence exclusive?", "May a party terminate ...?"), possibly after a
leading phrase closed by a comma ("Under the agreement, does ...?"). The extractive answerer
cannot weigh what a provision means, so it states the polarity only in the plain case: it
found passages that address the question (its ranking's own threshold) and hold enough of
what the question asks (``PREDICATE_SHARE`` of its lower-case content words: the capitalised
ones name the instrument and its parties, and a contract's opening holds those), and none of
them denies a word the question asks about.

A passage denies a word when a negator ("not", "no", "non", "never", "neither", "nor",
"without") governs it: the word is the first content word after the negator ("non-exclusive"
denies "exclusive"; "shall not be assignable" denies "assignable"). Two cases are not
denials: the question asks about a restriction or a negation itself (it names one, such as
"bar", "restrict", "prohibit", "limit", "cap", or carries a negator: "terminate without
cause"), where a provision that forbids or negates is the "yes"; and the negation is
conditional, with an exception later in the passage ("shall not assign without consent" says
that assignment needs consent).

Anything else leaves the answer as it was: quoted passages with their citations, no polarity.
A "No" is never inferred: an answer that found nothing is the refusal sentence, which a control
question about a clause that is not there accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pytest_legalbench.reference_backend.lexical import STOP_WORDS, stem

#: Verbs a yes/no question opens with.
AUXILIARIES = frozenset([
    "is", "are", "was", "were", "does", "do", "did", "has", "have", "had", "may", "can",
    "could", "must", "shall", "will", "would", "should"])
#: Words that negate the content word after them.
NEGATORS = frozenset(["not", "no", "non", "never", "neither", "nor", "without"])
#: Words after a negation that make it a condition rather than a denial.
EXCEPTIONS = frozenset(["without", "unless", "except", "save", "other"])
#: Question words that ask about a restriction (stemmed as the answerer stems).
RESTRICTIONS = frozenset(stem(word) for word in [
    "bar", "bars", "barred", "prohibit", "prohibits", "prohibited", "restrict", "restricts",
    "restricted", "restriction", "restrictions", "prevent", "prevents", "preclude",
    "precludes", "forbid", "forbids", "limit", "limits", "limited", "limitation", "cap", "caps",
    "capped", "refrain", "refrains"])

#: The share of the question's predicate terms the passages must hold: a passage found by the
#: names of the parties and the instrument alone (a contract's opening) says nothing about the
#: clause asked for. Chosen on the tuning families of CUAD's yes/no questions, reported on the
#: test families (``perf/reference_polarity.py``, ``perf/output/reference_polarity.json``).
PREDICATE_SHARE = 0.2

_WORD = re.compile(r"[A-Za-z0-9]+")
#: "Under the agreement, does ..." and "Besides X, is ...": a leading phrase and its comma.
_LEADING_PHRASE = re.compile(r"^[^?]*?,\s*")


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` opens (after an optional leading phrase) with an auxiliary verb."""
    text = question.strip()
    candidates = [text]
    leading = _LEADING_PHRASE.match(text)
    if leading is not None:
        candidates.append(text[leading.end():])
    for candidate in candidates:
        words = _words(candidate)
        if words and words[0] in AUXILIARIES:
            return True
    return False


def negated_terms(text: str) -> set[str]:
    """The stemmed content words of ``text`` that a negator governs; a negation followed by
    an exception word in the same text ("not ... without ...") governs nothing."""
    words = _words(text)
    found: set[str] = set()
    for position, word in enumerate(words):
        if word not in NEGATORS:
            continue
        rest = words[position + 1:]
        if EXCEPTIONS & set(rest):
            continue
        governed = next((w for w in rest if w not in STOP_WORDS and w not in NEGATORS), None)
        if governed is not None:
            found.add(stem(governed))
    return found


def predicate_terms(question: str) -> set[str]:
    """The stemmed content words the question writes in lower case: what it asks, as opposed
    to the capitalised names of the instrument and its parties it names."""
    return {stem(word.lower()) for word in _WORD.findall(question)
            if word.islower() and word not in STOP_WORDS}


def predicate_share(question: str, passages: Iterable[str]) -> float:
    """The share of the question's predicate terms that ``passages`` hold (1.0 when the
    question has none)."""
    wanted = predicate_terms(question)
    if not wanted:
        return 1.0
    held = {stem(word) for text in passages for word in _words(text)}
    return len(wanted & held) / len(wanted)


def affirms(question: str, passages: Iterable[str], *,
            least_share: float = PREDICATE_SHARE) -> bool:
    """Whether an answer made of ``passages`` may open with "Yes" (see the module's rule)."""
    if not asks_yes_or_no(question):
        return False
    texts = list(passages)
    if not texts or predicate_share(question, texts) < least_share:
        return False
    words = _words(question)
    if NEGATORS & set(words) or RESTRICTIONS & {stem(word) for word in words}:
        return True
    asked = {stem(word) for word in words if word not in STOP_WORDS}
    return not any(negated_terms(text) & asked for text in texts)
