"""navindex S2: the deterministic fetch of the scan's choice and what it needs to be read.

The selected nodes are hits in the scan's order (the first worth most); each brings its
closure (``modes.closure``: amendments and base provisions, the definitions it uses, the
clauses it cites, its parent's lead-in, and the other clauses of its section, since a scan
reading headings finds the section more surely than the clause), and everything is chosen
by value per token under the payload budget (``modes.budget``), a hard maximum. A selected
node too large for what is left is not cut and not dropped: its parts come instead, the ones
whose words best match the question first. Nothing is fetched twice, and no fetched text contains another's.
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
        chosen = choose(hits, budget, self.by_id, closure=self.closure, asked=asked,
                        boost=lambda node: flag_boost(node, flags),
                        relevance=lambda node: words.get(node.node_id, 0.0))
        return Fetched(tuple(Provision.from_node(n, self.context.line(n)) for n in chosen.nodes),
                       chosen)
