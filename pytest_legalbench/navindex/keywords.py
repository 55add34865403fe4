"""A node's keywords: content words, capitalised multi-word terms and the terms it defines,
scored and placed deterministically (ties by first occurrence)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from pytest_legalbench.navindex.defined_terms import find_inline_definitions
from pytest_legalbench.navindex.first_occurrence import first_occurrences
from pytest_legalbench.navindex.stop_words import FUNCTION_WORDS, NOT_KEYWORDS, WORD

# A run of capitalised words on one line, with short connectors inside ("Change of Control").
# The boundary check follows the first capital so the engine can skip ahead to capitals.
_CAPITALISED_RUN = re.compile(
    r"[A-Z](?<![\w'’-][A-Z])[A-Za-z'’-]*"
    r"(?:[ \t]+(?:(?:of|and|for|the|to|in|on)[ \t]+)?[A-Z][A-Za-z'’-]*)*"
)
_INNER_WORDS = frozenset({"of", "for"})
#: Ties of up to this many terms are placed by one substring search each.
_SEARCHES_PER_TIE = 64


def _word_counts(text: str) -> Counter[str]:
    """Count the content words of ``text``, lower-cased (no stop words or roman numerals)."""
    counts = Counter(WORD.findall(text.lower()))
    for word in counts.keys() & NOT_KEYWORDS:
        counts.pop(word)
    return counts


@dataclass(frozen=True)
class Rarity:
    """How few of a document's clauses use each word: a word most clauses use ("party",
    "agreement") says little about any one of them, one a single clause uses names its topic."""

    clauses: int
    using: Mapping[str, int]

    @classmethod
    def of(cls, clauses: Iterable[str]) -> Rarity:
        """The rarity of every word over ``clauses`` (one text per clause)."""
        using: Counter[str] = Counter()
        count = 0
        for text in clauses:
            count += 1
            using.update(set(WORD.findall(text.lower())))
        return cls(count, using)

    def weight(self, term: str) -> float:
        """1 for a word every clause uses, more the fewer use it (1 + ln of the inverse share);
        a term of several words weighs the mean of its words."""
        words = WORD.findall(term) or [term]
        return sum(1.0 + math.log(max(self.clauses, 1) / max(self.using.get(w, 0), 1))
                   for w in words) / len(words)


def _phrase_counts(text: str) -> Counter[str]:
    """Count capitalised multi-word terms of ``text``, lower-cased.

    A run of capitals splits at function words, except the "of" and "for" inside a name
    ("Change of Control"), so "The Borrower and Such Party" gives no term at all.
    """
    counts: Counter[str] = Counter()
    for run, seen in Counter(_CAPITALISED_RUN.findall(text)).items():
        term: list[str] = []
        for word in [*run.lower().split(), "and"]:
            if word not in FUNCTION_WORDS or (word in _INNER_WORDS and term):
                term.append(word)
                continue
            while term and term[-1] in _INNER_WORDS:
                term.pop()
            if len(term) >= 2:
                counts[" ".join(term)] += seen
            term = []
    return counts


def keywords(
    text: str, *, title: str = "", limit: int = 8, defines: tuple[str, ...] | None = None,
    rarity: Rarity | None = None,
) -> tuple[str, ...]:
    """Return up to ``limit`` lower-cased keywords, best score first, ties by first occurrence.

    ``defines`` passes the terms the text defines when the caller has them already.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    # Words count once per use (times their rarity in the document, when given), capitalised
    # terms twice, terms defined here three times; the title counts double, since the heading
    # names the topic. Dicts keep first-insertion order and the sort below is stable, so words
    # tied on score already stand in order of first occurrence.
    haystack = f"{title}\n{text}" if title else text
    counted = _word_counts(haystack)
    if title:
        counted.update(_word_counts(title))
    def scale(term: str) -> float:
        return round(rarity.weight(term), 3) if rarity is not None else 1

    scores: dict[str, float] = {word: seen * scale(word) for word, seen in counted.items()}
    placed: set[str] = set()
    for source, weight in ((title, 4), (text, 2)) if title else ((text, 2),):
        for phrase, seen in _phrase_counts(source).items():
            scores[phrase] = scores.get(phrase, 0) + weight * seen * scale(phrase)
            placed.add(phrase)
    for term in find_inline_definitions(text) if defines is None else defines:
        lowered = " ".join(term.lower().split())
        if lowered:
            scores[lowered] = scores.get(lowered, 0) + 3 * scale(lowered)
            placed.add(lowered)
    lowered_haystack = haystack.lower()

    def first_seen(term: str) -> int:
        found = lowered_haystack.find(term)
        return found if found >= 0 else len(lowered_haystack)

    def first_seen_all(terms: list[str]) -> dict[str, int]:
        # One pass for a large tie (thousands of defined terms in one long node), one search
        # per term otherwise; the same positions either way.
        if len(terms) <= _SEARCHES_PER_TIE:
            return {term: first_seen(term) for term in terms}
        where = first_occurrences(terms, lowered_haystack)
        return {t: where.get(t, 0) if where.get(t, 0) >= 0 else len(lowered_haystack)
                for t in terms}

    chosen: list[str] = []
    in_phrases: set[str] = set()
    for _, group in groupby(sorted(scores.items(), key=itemgetter(1), reverse=True),
                            key=itemgetter(1)):
        terms = [term for term, _ in group]
        # Phrases and defined terms were counted apart from the words, so place them by search.
        if placed.intersection(terms):
            positions = first_seen_all(terms)
            terms.sort(key=positions.__getitem__)
        for term in terms:
            # A single word inside a chosen phrase adds nothing; a phrase displaces its words.
            if " " in term:
                in_phrases.update(term.split())
                chosen = [c for c in chosen if c not in in_phrases]
            elif term in in_phrases:
                continue
            chosen.append(term)
            if len(chosen) == limit:
                return tuple(chosen)
    return tuple(chosen)
