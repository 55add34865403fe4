"""A node's keywords: content words, capitalised multi-word terms and the terms it defines,
scored and placed deterministically (ties by first occurrence)."""

from __future__ import annotations

import re
from collections import Counter
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
    text: str, *, title: str = "", limit: int = 8, defines: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """Return up to ``limit`` lower-cased keywords, best score first, ties by first occurrence.

    ``defines`` passes the terms the text defines when the caller has them already.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    # Words count once, capitalised terms twice, terms defined here three times; the title
    # counts double, since the heading names the topic. Counters keep first-insertion order,
    # so words tied on score already stand in order of first occurrence.
    haystack = f"{title}\n{text}" if title else text
    scores = _word_counts(haystack)
    if title:
        scores.update(_word_counts(title))
    placed: set[str] = set()
    for source, weight in ((title, 4), (text, 2)) if title else ((text, 2),):
        for phrase, seen in _phrase_counts(source).items():
            scores[phrase] += weight * seen
            placed.add(phrase)
    for term in find_inline_definitions(text) if defines is None else defines:
        lowered = " ".join(term.lower().split())
        if lowered:
            scores[lowered] += 3
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
    for _, group in groupby(scores.most_common(), key=itemgetter(1)):
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
