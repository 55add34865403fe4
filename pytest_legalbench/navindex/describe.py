"""Deterministic extractive descriptors of a node: keywords, summaries and the opening snippet."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter

from pytest_legalbench.navindex.defined_terms import find_inline_definitions
from pytest_legalbench.navindex.first_occurrence import first_occurrences

ELLIPSIS = "…"

_FUNCTION_WORD_TEXT = """
a about above after again against all also am among an and any are as at be because been
before being below between both but by can could did do does doing down during each either
else etc even ever every few for from further had has have having he her here hers him his
how however i if in into is it its itself just may me might more most must my neither no nor
not now of off on once one only or other others otherwise our ours out over own per same she
should so some such than that the their theirs them then there these they this those through
thus to too two under until up upon us very via was we were what when where whether which
while who whom whose why will with within without would yet you your shall
"""
_BOILERPLATE_TEXT = """
hereby herein hereof hereto hereunder hereafter heretofore thereof therein thereto
thereunder thereby therefor therefrom whereas whereby wherein whereof aforesaid said
agreement agreements party parties section sections article articles clause clauses paragraph
paragraphs subsection subsections provision provisions pursuant including include includes
included limitation provided provide provides set forth following applicable accordance
respect respective respectively time times term terms hereinafter extent made make makes
deemed thereafter subject certain case cases manner means mean meaning defined
"""
#: Words that never start or end a capitalised term ("The Borrower" is "borrower").
FUNCTION_WORDS = frozenset(_FUNCTION_WORD_TEXT.split())
#: Function words and contract boilerplate that never make a useful keyword.
STOP_WORDS = FUNCTION_WORDS | frozenset(_BOILERPLATE_TEXT.split())

# Lower-cased words of three letters or more.
_WORD = re.compile(r"[a-z][a-z'’-]+[a-z]")
# A run of capitalised words on one line, with short connectors inside ("Change of Control").
# The boundary check follows the first capital so the engine can skip ahead to capitals.
_CAPITALISED_RUN = re.compile(
    r"[A-Z](?<![\w'’-][A-Z])[A-Za-z'’-]*"
    r"(?:[ \t]+(?:(?:of|and|for|the|to|in|on)[ \t]+)?[A-Z][A-Za-z'’-]*)*"
)


def _roman(number: int) -> str:
    """Lower-case roman numeral of ``number`` (1-3999)."""
    digits = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
              (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))
    out = ""
    for value, letters in digits:
        count, number = divmod(number, value)
        out += letters * count
    return out


_INNER_WORDS = frozenset({"of", "for"})
#: Ties of up to this many terms are placed by one substring search each.
_SEARCHES_PER_TIE = 64
# Clause labels ("(iii)", "(xiv)") are no keywords; real words like "mix" or "civil" stay.
_NOT_KEYWORDS = STOP_WORDS | {_roman(n) for n in range(1, 60)}

# A leading printed reference: "Section 12.7", "ARTICLE VII", "2.1.3", "(b)", "A.", "iv.".
_LEADING_REFERENCE = re.compile(
    r"\s*(?:(?i:article|section|clause|schedule|exhibit|annex|appendix|part)\s+[\w.()-]+"
    r"|\d+(?:\.\d+)*[.)]?|\([A-Za-z0-9]{1,6}\)|[A-Za-z]\.|[ivxlcIVXLC]{1,6}\.)(?=\s|$)[\s.:—–-]*"
)
# A short heading that ends with a period or a line break before the body starts.
_LEADING_HEADING = re.compile(r"([A-Z][^.\n]{0,80}?)(?:\.[ \t]+|[ \t]*\n\s*)(?=\S)")
_HEADING_FILLERS = frozenset({"of", "and", "or", "the", "to", "in", "for", "on", "with", "a", "an",
                              "by", "&"})
_BLOCK_BREAK = re.compile(r"\n\s*\n")
# The end of a sentence: a stop before a capital or a number (a clause label such as "(b)").
_SENTENCE_END = re.compile(r"[.!?](?=\s+[\"“(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset({
    "inc", "co", "corp", "ltd", "no", "nos", "sec", "secs", "u.s", "e.g", "i.e", "n.a", "l.l.c",
    "llc", "l.p", "lp", "s.a", "mr", "mrs", "ms", "dr", "st", "art", "para", "vs", "v", "jr",
    "sr", "etc", "approx", "dept", "fig", "p", "pp", "u.s.a", "cf", "viz", "plc", "bros",
})
_LAST_TOKEN = re.compile(r"([A-Za-z.]+)\.\Z")


def _collapse(text: str) -> str:
    """Collapse every whitespace run to one space and strip the ends."""
    return " ".join(text.split())


def _trim(text: str, max_chars: int) -> str:
    """Cut collapsed ``text`` to ``max_chars`` at a word boundary, ending with an ellipsis."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    if text[max_chars - 1] != " ":
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
    return cut.rstrip(" ,;:") + ELLIPSIS


def snippet(text: str, max_chars: int = 160) -> str:
    """Return the opening of ``text``, whitespace collapsed, cut at a word boundary."""
    _check_limit("max_chars", max_chars)
    return _trim(_collapse(text), max_chars)


def _word_counts(text: str) -> Counter[str]:
    """Count the content words of ``text``, lower-cased (no stop words or roman numerals)."""
    counts = Counter(_WORD.findall(text.lower()))
    for word in counts.keys() & _NOT_KEYWORDS:
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


def _check_limit(name: str, value: int) -> None:
    """Reject a size limit below one, naming the parameter."""
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")


def keywords(
    text: str, *, title: str = "", limit: int = 8, defines: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """Return up to ``limit`` lower-cased keywords, best score first, ties by first occurrence.

    ``defines`` passes the terms the text defines when the caller has them already.
    """
    _check_limit("limit", limit)
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


def _drop_title(body: str, title: str) -> str | None:
    """Return ``body`` after a leading copy of ``title`` that ends in a stop or a line break."""
    wanted = [word.lower() for word in title.split()]
    if not wanted:
        return None
    words = body.split(maxsplit=len(wanted))
    if len(words) <= len(wanted):
        return None
    stops = ".:—–-"
    head = [word.lower() for word in words[: len(wanted)]]
    if head[:-1] != wanted[:-1] or head[-1].rstrip(stops) != wanted[-1].rstrip(stops):
        return None
    rest = words[-1]
    gap = body[: len(body) - len(rest)]
    # "Term. The term is ..." drops the heading; "Term of this Agreement ..." is a sentence.
    ended = head[-1][-1] in stops or "\n" in gap[len(gap.rstrip()):]
    return rest if ended else None


def _strip_reference_and_heading(text: str, title: str) -> str:
    """Drop leading clause numbers and headings (the title or a short Title Case line)."""
    body = text.lstrip()
    # Nested openings ("ARTICLE VII / EVENTS OF DEFAULT / Section 9.1 Events of Default.")
    # repeat the pattern; a few rounds cover them and bound the work.
    for _ in range(4):
        before = body
        reference = _LEADING_REFERENCE.match(body)
        if reference:
            body = body[reference.end():].lstrip()
        after_title = _drop_title(body, title)
        if after_title is not None:
            body = after_title
        else:
            heading = _LEADING_HEADING.match(body)
            if heading and _looks_like_heading(heading.group(1)):
                body = body[heading.end():]
        if body == before:
            break
    return body


def _looks_like_heading(candidate: str) -> bool:
    """A short run of capitalised words with small connectors."""
    words = candidate.split()
    return 0 < len(words) <= 10 and all(
        word[0].isupper() or word.lower() in _HEADING_FILLERS for word in words
    )


def _sentences(text: str) -> Iterator[str]:
    """Yield the whitespace-collapsed sentences of ``text``; abbreviations do not end one."""
    block_start = 0
    for block_end, next_start in [*((m.start(), m.end()) for m in _BLOCK_BREAK.finditer(text)),
                                  (len(text), len(text))]:
        start = block_start
        for mark in _SENTENCE_END.finditer(text, block_start, block_end):
            last = _LAST_TOKEN.search(text, max(mark.end() - 24, start), mark.end())
            if last and (last.group(1).lower() in _ABBREVIATIONS or len(last.group(1)) == 1):
                continue
            sentence = _collapse(text[start:mark.end()])
            if sentence:
                yield sentence
            start = mark.end()
        rest = _collapse(text[start:block_end])
        if rest:
            yield rest
        block_start = next_start


def _is_informative(sentence: str) -> bool:
    """A sentence says something: several words and not an all-capitals heading."""
    return len(sentence.split(maxsplit=4)) >= 4 and sentence.upper() != sentence


def summarise(text: str, *, title: str = "", max_chars: int = 200) -> str:
    """Return the first informative sentence after the clause number and heading, trimmed."""
    _check_limit("max_chars", max_chars)
    body = _strip_reference_and_heading(text, title)
    chosen = next((s for s in _sentences(body) if _is_informative(s)), None)
    return _trim(chosen or _collapse(body) or _collapse(text), max_chars)


def full_summary(text: str, *, title: str = "", max_chars: int = 600) -> str:
    """Return the best sentences by term frequency, first one always, in document order."""
    _check_limit("max_chars", max_chars)
    sentences = [s for s in _sentences(_strip_reference_and_heading(text, title))
                 if _is_informative(s)]
    if not sentences:
        return summarise(text, title=title, max_chars=max_chars)
    if len(sentences[0]) >= max_chars:
        return _trim(sentences[0], max_chars)
    if sum(map(len, sentences)) + len(sentences) - 1 <= max_chars:
        return " ".join(sentences)
    words = [set(_WORD.findall(sentence.lower())) - _NOT_KEYWORDS for sentence in sentences]
    frequency = Counter(word for distinct in words for word in distinct)
    score = [sum(frequency[w] for w in distinct) / math.sqrt(len(distinct) + 1)
             for distinct in words]
    # The lead sentence is the one-line summary; the rest join by score while they fit.
    kept = [0]
    used = len(sentences[0])
    for index in sorted(range(1, len(sentences)), key=lambda i: (-score[i], i)):
        if used + 1 + len(sentences[index]) <= max_chars:
            kept.append(index)
            used += 1 + len(sentences[index])
    return " ".join(sentences[i] for i in sorted(kept))
