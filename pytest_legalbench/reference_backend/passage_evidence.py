"""Evidence for GANDR's writing roles: the sentences of the shown passages that answer a
question, ranked as the extractive answerer ranks them, and a seeded pick among them.

Each passage's sentences become candidates whose "document" is the passage id, so the
answerer's diversity rule (every passage's best sentence before any second one) applies per
passage. Only sentences within ``answering``'s near-best band are ever returned, so whatever
a seed picks is a defensible answer; without a seed every near-best sentence is used, best
first, exactly as before seeds existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.reference_backend.answering import Passage, rank
from pytest_legalbench.reference_backend.gandr_prompt import ShownPassage
from pytest_legalbench.reference_backend.lexical import content_terms, split_sentences

# A findings line stays a summary: longer sentences are cut at a word boundary.
_SUMMARY_WORDS = 24


@dataclass(frozen=True)
class Evidence:
    """One sentence of a shown passage, with the passage id that backs it."""

    passage_id: str
    clause: str
    text: str


def ranked_evidence(question: str, passages: Sequence[ShownPassage]) -> list[Evidence]:
    """The near-best sentences answering ``question``, best first; empty when none passes."""
    candidates: list[Passage] = []
    for passage in passages:
        for sentence in split_sentences(passage.text):
            candidates.append(Passage(passage.passage_id, passage.clause, sentence.text,
                                      len(candidates)))
    return [Evidence(p.doc_id, p.clause, p.text) for p in rank(question, candidates)]


def seeded_choice(seed: int | None, purpose: str, count: int) -> int:
    """An index below ``count``: 0 without a seed, else fixed by ``seed`` and ``purpose``.

    A digest rather than ``random`` keeps the choice the same on every Python version.
    """
    if seed is None or count <= 1:
        return 0
    digest = hashlib.sha256(f"{purpose}:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def seeded_evidence(ranked: Sequence[Evidence], seed: int | None) -> list[Evidence]:
    """The evidence a seeded writer uses: which near-best sentence leads, and how many follow.

    Without a seed: all of ``ranked`` in its order. With one: the list rotated to the chosen
    lead, then cut to a chosen length of at least one.
    """
    if not ranked:
        return []
    lead = seeded_choice(seed, "lead", len(ranked))
    rotated = [*ranked[lead:], *ranked[:lead]]
    return rotated[:len(rotated) - seeded_choice(seed, "drop", len(rotated))]


def passages_of(evidence: Sequence[Evidence]) -> list[str]:
    """The distinct passage ids behind ``evidence``, in order of first use."""
    return list(dict.fromkeys(item.passage_id for item in evidence))


def best_sentence(question: str, passage: ShownPassage) -> str:
    """The sentence of ``passage`` sharing most question terms (ties: the earlier one)."""
    wanted = set(content_terms(question))
    sentences = [s.text for s in split_sentences(passage.text)] or [passage.text]
    return max(sentences, key=lambda text: len(wanted & set(content_terms(text))))


def summary(text: str) -> str:
    """``text`` cut to ``_SUMMARY_WORDS`` words, marked with an ellipsis when cut."""
    words = text.split()
    if len(words) <= _SUMMARY_WORDS:
        return " ".join(words)
    return " ".join(words[:_SUMMARY_WORDS]) + " …"
