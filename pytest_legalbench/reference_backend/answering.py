"""Extractive answers: the sentences of the prompt's documents that best match the question.

Sentences are ranked by how much of the question's weight they cover, each question term
weighted by how rare it is among the candidate sentences (so "agreement" counts for little in
a corpus of agreements); a question term no sentence has weighs most, since a question about
something the documents never mention should be declined. A sentence must cover at least
``_MIN_COVERAGE`` of that weight, and more than words of document titles when the question
has other words; when none does, the answer is the refusal sentence.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise

from pytest_legalbench.llm.prompts import REFUSAL
from pytest_legalbench.reference_backend.clauses import clause_map
from pytest_legalbench.reference_backend.lexical import content_terms, split_sentences
from pytest_legalbench.reference_backend.polarity import affirms
from pytest_legalbench.reference_backend.prompt_parts import (
    find_documents,
    find_provisions,
    question_of,
)
from pytest_legalbench.reference_backend.wire import MessagesRequest

_MIN_COVERAGE = 0.5
# Sentences close to the best one are kept too, up to ``_MOST_SENTENCES``.
_NEAR_BEST = 0.8
_MOST_SENTENCES = 3
# Headings and table cells carry no statement worth quoting.
_MIN_WORDS = 4
_LONGEST_QUOTE = 1000
_TITLE_WEIGHT = 0.25
_PHRASE_BONUS = 0.15
_NAMED_DOCUMENT_BONUS = 0.25


@dataclass(frozen=True)
class Passage:
    """A candidate sentence with the citation it would carry."""

    doc_id: str
    clause: str
    text: str
    order: int


@dataclass(frozen=True)
class _Scored:
    score: float
    density: float
    passage: Passage


def passages(prompt_text: str) -> Iterator[Passage]:
    """The citable sentences of every document and provision in ``prompt_text``, in order."""
    order = 0
    for document in find_documents(prompt_text):
        clauses = clause_map(document.text)
        for sentence in split_sentences(document.text):
            if clauses.in_contents(sentence.start):
                continue
            yield Passage(document.doc_id, clauses.clause_at(sentence.start), sentence.text, order)
            order += 1
    for provision in find_provisions(prompt_text):
        clause = provision.clause or provision.node_id
        for sentence in split_sentences(provision.text):
            yield Passage(provision.doc_id, clause, sentence.text, order)
            order += 1


def rank(question: str, candidates: list[Passage],
         titles: Mapping[str, str] | None = None) -> list[Passage]:
    """The passages that answer ``question``, best first; empty when none passes.

    ``titles`` maps doc ids to document titles. Question words from a title ("under the
    distributor agreement") say where to look more than what to find: they weigh
    ``_TITLE_WEIGHT`` as much as other words, and the documents whose titles they name get a
    bonus of up to ``_NAMED_DOCUMENT_BONUS``.
    """
    sequence = content_terms(question)
    wanted = set(sequence)
    if not wanted:
        return []
    named = _named_documents(wanted, titles or {})
    in_titles = {t for terms in named.values() for t in terms}
    phrases = set(pairwise(sequence))
    terms = {p.order: content_terms(p.text) for p in candidates if _quotable(p)}
    present = Counter(t for found in terms.values() for t in set(found) & wanted)
    weight = {t: math.log(1 + len(terms) / (1 + present[t]))
              * (_TITLE_WEIGHT if t in in_titles else 1.0) for t in wanted}
    total = sum(weight.values())
    most_named = max((len(t) for t in named.values()), default=0)
    scored = []
    for passage in candidates:
        found = terms.get(passage.order)
        if not found:
            continue
        matched = set(found) & wanted
        coverage = sum(weight[t] for t in matched) / total
        if coverage < _MIN_COVERAGE or (matched <= in_titles < wanted):
            continue
        # A question phrase found as a phrase ("price per unit") beats scattered words.
        joined = len(phrases & set(pairwise(found)))
        score = coverage + _PHRASE_BONUS * min(joined, 2)
        if most_named:
            score += _NAMED_DOCUMENT_BONUS * len(named.get(passage.doc_id, ())) / most_named
        density = sum(1 for t in found if t in wanted) / len(found)
        scored.append(_Scored(score, density, passage))
    if not scored:
        return []
    scored.sort(key=lambda s: (-s.score, -s.density, s.passage.order))
    floor = scored[0].score * _NEAR_BEST
    return _diverse([item.passage for item in scored if item.score >= floor])


def _named_documents(wanted: set[str], titles: Mapping[str, str]) -> dict[str, set[str]]:
    """Per document, the question terms its title shares (words in every title excluded)."""
    title_terms = {doc_id: set(content_terms(title)) for doc_id, title in titles.items()}
    common = set.intersection(*title_terms.values()) if len(title_terms) > 1 else set()
    return {doc_id: (terms & wanted) - common for doc_id, terms in title_terms.items()}


def _diverse(ranked: list[Passage]) -> list[Passage]:
    """Up to ``_MOST_SENTENCES`` distinct passages, each document's best before any second.

    An amendment and the instrument it amends often both address the question; the answer
    should show both rather than three sentences of one of them.
    """
    firsts: list[Passage] = []
    rest: list[Passage] = []
    docs: set[str] = set()
    seen: set[str] = set()
    for passage in ranked:
        key = passage.text.lower()
        if key in seen:
            continue
        seen.add(key)
        (rest if passage.doc_id in docs else firsts).append(passage)
        docs.add(passage.doc_id)
    chosen = (firsts + rest)[:_MOST_SENTENCES]
    return sorted(chosen, key=ranked.index)


def _quotable(passage: Passage) -> bool:
    return len(passage.text.split()) >= _MIN_WORDS


def _quote(text: str) -> str:
    return text if len(text) <= _LONGEST_QUOTE else text[:_LONGEST_QUOTE].rstrip() + " …"


def extractive_answer(request: MessagesRequest) -> str:
    """Answer the request's question from the documents or provisions in its prompt."""
    prompt_text = "\n".join([request.system, *(turn.text for turn in request.turns)])
    titles = {d.doc_id: d.title for d in find_documents(prompt_text)}
    return answer_from(question_of(request.last_user_text), list(passages(prompt_text)), titles)


def answer_from(question: str, candidates: list[Passage],
                titles: Mapping[str, str] | None = None) -> str:
    """The best passages for ``question``, each quoted with its citation, opened by "Yes."
    when the question asks for a yes or a no and the passages affirm it
    (``reference_backend.polarity``); the refusal sentence when none passes."""
    chosen = rank(question, candidates, titles)
    if not chosen:
        return REFUSAL
    quoted = "\n".join(f"{_quote(p.text)} [{p.doc_id}] {p.clause}" for p in chosen)
    return f"Yes. {quoted}" if affirms(question, (p.text for p in chosen)) else quoted
