"""navembed:titles: a model picks provisions from a listing of their titles alone.

Kept as a reference point: without flags, summaries or references a model can only guess
from headings, which in the published study made it over-select. Here the pick is capped at
k by the tool's schema. When the listing of the whole corpus exceeds the scan budget (CUAD's
57,000 provisions), the model first picks documents from navindex's one-line-per-document
listing, and the titles of those documents alone are listed.
"""

from __future__ import annotations

from pytest_legalbench.llm.call_types import StructuredResult, SystemBlock, ToolSpec
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.scan_prompt import (
    document_line,
    documents_system,
    documents_user,
    select_documents_tool,
)
from pytest_legalbench.modes.base import Corpus, ModeSettings, Provision, Retrieval, payload_tokens
from pytest_legalbench.modes.traits import RETRIEVED
from pytest_legalbench.modes.units import UnitContext
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.tokens import estimate_tokens
from pytest_legalbench.vectors.ranking import EXCLUDED_KINDS, candidate_nodes, disjoint

#: The forced tool through which the model names its picks.
SELECT_TITLES = "select_titles"
#: The ledger stage of a titles pick.
TITLES_STAGE = "navembed.titles"
#: The ledger stage of the document pick that comes first when the listing is too large.
TITLES_DOCUMENTS_STAGE = "navembed.titles_documents"
_MAX_TOKENS = 1024

TITLES_SYSTEM = (
    "You decide which provisions of a set of legal documents must be read to answer a "
    "question. You are shown only a titles index: one line per provision, written as "
    "node_id | doc_id | clause | title. Call select_titles with the node_ids of the "
    "provisions most likely to hold the answer, the most relevant first, and no more than "
    "the number given in <max_nodes>. Copy node_ids exactly as listed. Do not answer the "
    "question."
)


def titles_tool(limit: int) -> ToolSpec:
    """The ``select_titles`` tool, allowing at most ``limit`` node ids."""
    return ToolSpec(
        name=SELECT_TITLES,
        description="Name the provisions to read, by node_id, most relevant first.",
        input_schema={
            "type": "object",
            "properties": {"node_ids": {"type": "array", "maxItems": limit,
                                        "items": {"type": "string"}}},
            "required": ["node_ids"], "additionalProperties": False,
        },
    )


def within_budget(nodes: list[Node], budget: int) -> tuple[list[Node], int]:
    """The picks in the model's order that fit ``budget`` tokens together, and how many did
    not (a pick that does not fit is passed over, the next may still fit)."""
    kept: list[Node] = []
    spent = over = 0
    for node in nodes:
        cost = estimate_tokens(node.text)
        if spent + cost > budget:
            over += 1
            continue
        kept.append(node)
        spent += cost
    return kept, over


def _one_line(text: str) -> str:
    # A line of the listing is one provision: no newlines, no runs of spaces.
    return " ".join(text.split())


def titles_listing(nodes: tuple[Node, ...]) -> str:
    """One ``node_id | doc_id | clause | title`` line per node."""
    return "\n".join(
        f"{node.node_id} | {node.doc_id} | "
        f"{_one_line(node.full_reference or node.clause_reference)} | {_one_line(node.title)}"
        for node in nodes)


def titles_user(question: str, listing: str, limit: int) -> str:
    """The user turn of a titles pick: the question, the cap and the listing."""
    return (f"<question>\n{question}\n</question>\n<max_nodes>{limit}</max_nodes>\n"
            f"<titles>\n{listing}\n</titles>")


class TitlesMode:
    """A model picks up to k provisions from the titles-only listing of every node."""

    name = "navembed:titles"
    traits = RETRIEVED

    def __init__(self, corpus: Corpus, settings: ModeSettings, client: ModelClient) -> None:
        self.settings = settings
        self.client = client
        self.by_id = {node.node_id: node for index in corpus.indexes for node in index.nodes}
        candidates = candidate_nodes(corpus.indexes)
        self._order = tuple(index.doc_id for index in corpus.indexes)
        self._listings = {doc_id: titles_listing(tuple(n for n in candidates
                                                       if n.doc_id == doc_id))
                          for doc_id in self._order}
        self.listing = titles_listing(candidates)
        self.two_stage = estimate_tokens(self.listing) > settings.scan_budget_tokens
        self._lines = tuple(document_line(index) for index in corpus.indexes)
        self.context = UnitContext(corpus.indexes, without_furniture=True)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Ask the model for its picks and return the valid ones in the model's order."""
        limit = self.settings.k
        mark = len(self.client.ledger)
        notes: list[str] = []
        results: list[StructuredResult] = []
        listing = self.listing
        if self.two_stage:
            picked = self._pick_documents(question, question_id)
            results.append(picked)
            chosen = self._documents(picked)
            listing = "\n".join(self._listings[d] for d in chosen if self._listings[d])
            notes.append(f"two-stage pick: the titles listing exceeds "
                         f"{self.settings.scan_budget_tokens} tokens; listed the titles of "
                         f"{', '.join(chosen) or 'no documents'}")
        picked_ids: list[object] = []
        if listing:
            result = self.client.structured(
                stage=TITLES_STAGE, model=self.settings.titles_model,
                system=[SystemBlock(TITLES_SYSTEM)],
                messages=[{"role": "user", "content": titles_user(question, listing, limit)}],
                tool=titles_tool(limit), max_tokens=_MAX_TOKENS, question_id=question_id)
            results.append(result)
            found = result.data.get("node_ids") if result.data is not None else None
            picked_ids = found if isinstance(found, list) else []
        calls = tuple(call for call in self.client.ledger.calls[mark:]
                      if call.stage in (TITLES_STAGE, TITLES_DOCUMENTS_STAGE)
                      and call.question_id == question_id)
        nodes, dropped = self._resolve(picked_ids)
        notes.extend(f"the model never returned a valid {SELECT_TITLES} call "
                     f"({result.attempts} attempts); nothing was retrieved"
                     for result in results if not result.valid)
        kept, over = within_budget(nodes, self.settings.payload_budget_tokens)
        if over:
            notes.append(f"{over} picks left out: they did not fit the "
                         f"{self.settings.payload_budget_tokens}-token payload budget")
        provisions = tuple(Provision.from_node(node, self.context.line(node)) for node in kept)
        return Retrieval(mode=self.name, provisions=provisions,
                         payload_tokens=payload_tokens(provisions), calls=calls,
                         dropped=dropped, notes=tuple(notes))

    def _pick_documents(self, question: str, question_id: str | None) -> StructuredResult:
        most = self.settings.max_scan_documents
        return self.client.structured(
            stage=TITLES_DOCUMENTS_STAGE, model=self.settings.titles_model,
            question_id=question_id, system=[SystemBlock(documents_system(most))],
            messages=[{"role": "user", "content": documents_user(question, self._lines, most)}],
            tool=select_documents_tool(most), max_tokens=_MAX_TOKENS)

    def _documents(self, picked: StructuredResult) -> tuple[str, ...]:
        """The known documents picked, at most ``max_scan_documents``, in corpus order."""
        wanted = (picked.data or {}).get("doc_ids")
        listed = [d for d in (wanted if isinstance(wanted, list) else [])
                  if isinstance(d, str) and d in self._listings]
        chosen = set(list(dict.fromkeys(listed))[:self.settings.max_scan_documents])
        return tuple(d for d in self._order if d in chosen)

    def _resolve(self, picked: list[object]) -> tuple[list[Node], tuple[tuple[str, int], ...]]:
        """The picked nodes that exist and may be provisions, and counts of the rest."""
        counts = {"invalid_ids": 0, "toc_ids": 0, "document_ids": 0, "repeated_ids": 0,
                  "overlapping": 0}
        valid: list[Node] = []
        seen: set[str] = set()
        for value in picked:
            node = self.by_id.get(value) if isinstance(value, str) else None
            if node is None:
                counts["invalid_ids"] += 1
            elif node.kind == "document":
                counts["document_ids"] += 1
            elif node.kind in EXCLUDED_KINDS or node.flags.is_toc_entry:
                counts["toc_ids"] += 1
            elif node.node_id in seen:
                counts["repeated_ids"] += 1
            else:
                seen.add(node.node_id)
                valid.append(node)
        chosen, counts["overlapping"] = disjoint(range(len(valid)), valid, len(valid))
        dropped = tuple((reason, count) for reason, count in counts.items() if count)
        return [valid[i] for i in chosen], dropped
