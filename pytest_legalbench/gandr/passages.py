"""The passages every GANDR system retrieves from: node passages of the profile, searched
with BM25, each shown to the model under its node id (the only ids a citation may use).

A document is cut into passages along its structure: a node whose whole text fits in
``max_chars`` is one passage; a longer node gives its own words (the text outside its
children, e.g. a lead-in) as a passage when they carry at least ``_MIN_WORDS`` words, and its
children are cut the same way. The passages partition the text outside tables of contents
and signature blocks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html import escape

from pytest_legalbench.defaults import DEFAULT_PASSAGE_CHARS
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.vectors.lexical_index import LexicalIndex, tokenise

#: Node kinds left out: contents lists repeat headings, and signature blocks repeat the
#: parties' names (which every question carries) without stating any term.
_SKIPPED_KINDS = frozenset({"toc", "toc_entry", "signature"})
_MIN_WORDS = 5


@dataclass(frozen=True)
class Passage:
    """One citable passage: the node it comes from and the text shown for it."""

    passage_id: str
    doc_id: str
    clause: str
    text: str


def node_passages(indexes: Sequence[DocumentIndex],
                  max_chars: int = DEFAULT_PASSAGE_CHARS) -> list[Passage]:
    """Every passage of ``indexes``, document by document in text order."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    found: list[Passage] = []
    for index in indexes:
        by_id = index.by_id()
        found.extend(_cut(index.root, by_id, max_chars))
    return found


def _cut(node: Node, by_id: dict[str, Node], max_chars: int) -> Iterator[Passage]:
    if node.kind in _SKIPPED_KINDS:
        return
    clause = node.full_reference or node.clause_reference or node.title
    if len(node.text) <= max_chars or not node.children:
        if len(tokenise(node.text)) >= 1:
            yield Passage(node.node_id, node.doc_id, clause, node.text.strip())
        return
    children = sorted((by_id[c] for c in node.children if c in by_id), key=lambda n: n.start)
    own, cursor = [], node.start
    for child in children:
        own.append(node.text[cursor - node.start:child.start - node.start])
        cursor = max(cursor, child.end)
    own.append(node.text[cursor - node.start:])
    words = " ".join(part.strip() for part in own if part.strip())
    if len(tokenise(words)) >= _MIN_WORDS:
        yield Passage(node.node_id, node.doc_id, clause, words)
    for child in children:
        yield from _cut(child, by_id, max_chars)


class PassageIndex:
    """BM25 over passages, built once per session; the top k of a question, best first."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = tuple(passages)
        self._lexical = LexicalIndex([p.text for p in self.passages])

    def top(self, question: str, k: int) -> tuple[Passage, ...]:
        """The ``k`` best passages for ``question``; ties go to the earlier passage."""
        scores = self._lexical.scores(question)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return tuple(self.passages[i] for i in order[:k])


def context_block(passages: Sequence[Passage]) -> str:
    """The passages as the prompts show them: one ``<passage id=...>`` element each."""
    return "\n\n".join(f'<passage id="{escape(p.passage_id)}" clause="{escape(p.clause)}">\n'
                       f"{p.text}\n</passage>" for p in passages)
