"""navindex S2: the deterministic fetch of the scan's choice and what it needs to be read.

The selected nodes are hits in the scan's order (the first worth most); each brings its
closure (``modes.closure``: amendments and base provisions, the definitions it uses, the
clauses it cites, its parent's lead-in, and the other clauses of its section, since a scan
reading headings finds the section more surely than the clause), and everything is chosen
by value per token under the payload budget (``modes.budget``), a hard maximum. A selected
node too large for what is left is not cut and not dropped: its parts come instead, the ones
whose words best match the question first. Nothing is fetched twice, and no fetched text contains another's.

What a scan names is a few nodes, and what it misses is what it did not name: so the units of
the chosen documents that share the question's words join the choice, ranked after it
(``WORD_HITS`` of them, best match first), and a provision holding one already taken (a
section whose clause came as a word match) brings its other parts instead of nothing
(``OPEN_HELD``). Both were decided on CUAD's tuning split and the QA tuning sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.modes.base import Provision
from pytest_legalbench.modes.budget import Chosen, choose, rank_value
from pytest_legalbench.modes.closure import KINDS, Closure
from pytest_legalbench.modes.routing import flag_boost, question_flags
from pytest_legalbench.modes.units import UnitContext, named_definitions
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.vectors.lexical_index import LexicalIndex

#: How many word-matched units of the chosen documents join the scan's choice as hits
#: ranked after it (10 / 30 / 60 / 120 tried on the tuning material: 60 and 120 measure
#: alike, the budget is spent before the 60th).
WORD_HITS = 60
#: Whether a provision holding one already taken brings its other parts.
OPEN_HELD = True


@dataclass(frozen=True)
class Fetched:
    """The provisions of a fetch, and the selection that chose them."""

    provisions: tuple[Provision, ...]
    chosen: Chosen

    def notes(self, budget: int) -> tuple[str, ...]:
        """What the fetch did, in words, for the retrieval record."""
        return (f"fetch: {self.chosen.note(budget)}",)


class Fetcher:
    """The fetch of one corpus: its closure links and the words of every provision."""

    def __init__(self, indexes: Sequence[DocumentIndex], *, definitions_per_node: int) -> None:
        self.closure = Closure(indexes, definitions_per_node=definitions_per_node, kinds=KINDS)
        self.context = context = UnitContext(indexes)
        # The retrieval tree: a selected leaf too large for the budget has parts to descend to.
        self.by_id: Mapping[str, Node] = context.by_id
        self._nodes = tuple(self.by_id.values())
        self._definitions = [n for n in self._nodes if n.kind == "definition"]
        self._lexical = LexicalIndex([context.text(n) for n in self._nodes], stem_words=True)

    def fetch(self, selected: Sequence[Node], question: str, budget: int) -> Fetched:
        """The provisions for the scan's ``selected`` nodes, best first, within ``budget``."""
        words = dict(zip((n.node_id for n in self._nodes), self._lexical.scores(question)))
        flags = question_flags(question)
        asked = frozenset(n.node_id for n in named_definitions(question, self._definitions))
        hits = [(node, rank_value(rank)) for rank, node in enumerate(selected, start=1)]
        chosen_ids = {node.node_id for node in selected}
        found = [u for u in self._word_matches(selected, words) if u.node_id not in chosen_ids]
        # Ranked after the scan's last choice: a word match never outranks what a scan chose.
        matched = [(unit, rank_value(len(selected) + rank))
                   for rank, unit in enumerate(found[:WORD_HITS], start=1)]
        chosen = choose(hits, budget, self.by_id, closure=self.closure, asked=asked,
                        boost=lambda node: flag_boost(node, flags),
                        relevance=lambda node: words.get(node.node_id, 0.0), matched=matched,
                        open_held=OPEN_HELD)
        return Fetched(tuple(Provision.from_node(n, self.context.line(n)) for n in chosen.nodes),
                       chosen)

    def _word_matches(self, selected: Sequence[Node],
                      words: Mapping[str, float]) -> list[Node]:
        """The units of the documents ``selected`` comes from that share a word with the
        question, best match first (ties by node id, so every machine ranks alike)."""
        documents = dict.fromkeys(node.doc_id for node in selected)
        units = [unit for doc_id in documents for unit in self.context.units.get(doc_id, ())
                 if words.get(unit.node_id, 0.0) > 0.0]
        return sorted(units, key=lambda unit: (-words[unit.node_id], unit.node_id))
