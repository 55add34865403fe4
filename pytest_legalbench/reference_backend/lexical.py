"""Sentences and content terms: the lexical ground the extractive answerer ranks on."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# Function words and drafting boilerplate: they match everywhere and decide nothing.
STOP_WORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
    "either", "else", "for", "from", "further", "had", "has", "have", "having", "he", "her",
    "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "of", "off", "on",
    "once", "only", "or", "other", "our", "ours", "out", "over", "own", "per", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "upon", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "whose", "why", "will", "with", "within", "would", "you", "your", "yours", "shall",
    "may", "hereby", "herein", "hereof", "hereto", "hereunder", "thereof", "therein", "thereto",
    "thereunder", "whereas", "whether", "said", "such", "tell", "say", "says", "please", "give",
    "list", "many", "much"
])

_WORD = re.compile(r"[A-Za-z0-9]+(?:[.,'][0-9A-Za-z]+)*")
# A sentence ends at . ! ? or ; before whitespace and a capital, digit, quote or bracket.
_BOUNDARY = re.compile(r"(?<=[.!?;])[\"”’)]?\s+(?=[\"“‘(\[A-Z0-9])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Inc|Ltd|Co|Corp|No|Nos|Sec|Secs|Art|Para|Sched|Ex|St|Mr|Mrs|Ms|Dr|Jr|Sr|vs|v|"
    r"etc|e\.g|i\.e|U\.S|U\.K|P\.O|N\.A|L\.P|L\.L\.C)|\b[A-Za-z]|^\s*\d{1,3}|\(\w{1,4}\))\.$")
_MIN_FRAGMENT_WORDS = 4
# A list item ending in ";" is split off only when it could stand as a statement.
_MIN_CLAUSE_WORDS = 8
_SUFFIXES = (
    ("ification", "ify"), ("ified", "ify"), ("ifies", "ify"), ("ational", "ate"),
    ("ations", "ate"), ("ation", "ate"), ("nesses", ""), ("ness", ""), ("ments", ""),
    ("ment", ""), ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"), ("edly", ""),
    ("ed", ""), ("sses", "ss"), ("ly", ""), ("es", ""), ("s", ""),
)


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text: its span and its text with runs of whitespace folded."""

    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences: at line breaks and at sentence-final punctuation."""
    sentences: list[Sentence] = []
    for line in re.finditer(r"[^\n]+", text):
        offset = line.start()
        start = 0
        body = line.group(0)
        for boundary in _BOUNDARY.finditer(body):
            head = body[start:boundary.start()].rstrip()
            # "(e) Governing Law; Jurisdiction: This Agreement ..." stays whole: a fragment
            # too short to be a statement is a run-in heading of what follows.
            least = _MIN_CLAUSE_WORDS if head.endswith(";") else _MIN_FRAGMENT_WORDS
            if len(head.split()) < least:
                continue
            if _ABBREVIATION.search(head.rstrip("\"”’)")):
                continue
            _add(sentences, body, offset, start, boundary.start())
            start = boundary.end()
        _add(sentences, body, offset, start, len(body))
    return sentences


def _add(sentences: list[Sentence], body: str, offset: int, start: int, end: int) -> None:
    piece = body[start:end]
    folded = " ".join(piece.split())
    if folded:
        lead = len(piece) - len(piece.lstrip())
        sentences.append(Sentence(offset + start + lead, offset + end, folded))


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix-stripping stem of a lower-case word (same input, same stem)."""
    if word.isdigit() or len(word) <= 4:
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: -len(suffix)] + replacement
            break
    # "terminate" and "terminated" meet at "terminat".
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def content_terms(text: str) -> list[str]:
    """The stemmed words of ``text`` that are not stop words, in order (repeats kept)."""
    terms = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower().replace(",", "").replace("'s", "")
        if word not in STOP_WORDS:
            terms.append(stem(word))
    return terms
