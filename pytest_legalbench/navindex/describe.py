"""Deterministic extractive descriptors of a node: its one-line and full summaries and its
opening snippet (its keywords are ``navindex.keywords``)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from pytest_legalbench.navindex.stop_words import NOT_KEYWORDS, WORD

ELLIPSIS = "…"

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


def _check_limit(name: str, value: int) -> None:
    """Reject a size limit below one, naming the parameter."""
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")


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
    words = [set(WORD.findall(sentence.lower())) - NOT_KEYWORDS for sentence in sentences]
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
