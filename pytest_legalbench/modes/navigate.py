"""navindex: a model scans the structured index (S1), a deterministic fetch follows it (S2).

S3, the answer from the fetched provisions alone, is ``answering.answer``. When the indexes of
the whole corpus exceed the scan budget, S1 first picks documents from a one-line-per-document
list and then scans only their indexes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.llm.call_types import StructuredResult, SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.scan_prompt import (
    document_line,
    documents_system,
    documents_user,
    index_block,
    index_entry,
    scan_blocks,
    scan_user,
    select_documents_tool,
    select_nodes_tool,
)
from pytest_legalbench.modes.base import (
    Corpus,
    ModeSettings,
    ModeUnavailable,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.fetch import Fetcher
from pytest_legalbench.modes.traits import SCANNED
from pytest_legalbench.navindex.node import Node
from pytest_legalbench.navindex.serialise import absolute_id
from pytest_legalbench.tokens import estimate_tokens

SCAN_STAGE = "navindex.scan"
DOCUMENTS_STAGE = "navindex.scan_documents"
#: Output room of a scan: ten id pairs take a few hundred tokens.
SCAN_MAX_TOKENS = 1024
#: Reasons a selection is thrown away, in the order a retrieval reports them.
DROP_REASONS = ("invalid_ids", "toc_ids", "duplicate_ids", "over_cap", "invalid_doc_ids")


@dataclass(frozen=True)
class Selection:
    """The nodes a scan chose that can be fetched, and counts of those thrown away."""

    nodes: tuple[Node, ...]
    dropped: Mapping[str, int]


def is_contents(node: Node) -> bool:
    """Whether ``node`` is a table of contents or a line of one."""
    return node.flags.is_toc_entry or node.kind in ("toc", "toc_entry")


def resolve_selection(pairs: object, nodes: Mapping[str, Node], scanned: frozenset[str],
                      cap: int) -> Selection:
    """Turn a scan's ``nodes`` list into corpus nodes: invalid, contents, repeated and
    over-the-cap entries are dropped and counted, never guessed at."""
    dropped = dict.fromkeys(DROP_REASONS[:4], 0)
    chosen: dict[str, Node] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        doc_id = pair.get("doc_id") if isinstance(pair, dict) else None
        written = pair.get("node_id") if isinstance(pair, dict) else None
        if not isinstance(doc_id, str) or not isinstance(written, str) or doc_id not in scanned:
            dropped["invalid_ids"] += 1
            continue
        node = nodes.get(absolute_id(written.strip(), doc_id))
        if node is None:
            dropped["invalid_ids"] += 1
        elif is_contents(node):
            dropped["toc_ids"] += 1
        elif node.node_id in chosen:
            dropped["duplicate_ids"] += 1
        elif len(chosen) >= cap:
            dropped["over_cap"] += 1
        else:
            chosen[node.node_id] = node
    return Selection(tuple(chosen.values()), dropped)


class NavindexMode:
    """The structured-index scan and deterministic fetch of one corpus."""

    name = "navindex"
    traits = SCANNED

    def __init__(self, corpus: Corpus, settings: ModeSettings, client: ModelClient) -> None:
        if not corpus.indexes:
            raise ModeUnavailable(self.name, "the corpus has no indexes to scan")
        self.settings = settings
        self.client = client
        self._order = tuple(index.doc_id for index in corpus.indexes)
        self._entries = {index.doc_id: index_entry(index) for index in corpus.indexes}
        self._nodes = {node.node_id: node for index in corpus.indexes for node in index.nodes}
        self._fetcher = Fetcher(corpus.indexes,
                                definitions_per_node=settings.definitions_per_node)
        self._full_block = index_block(self._entries[d] for d in self._order)
        self.two_stage = estimate_tokens(self._full_block) > settings.scan_budget_tokens
        self._lines = tuple(document_line(index) for index in corpus.indexes)

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Scan the index for ``question`` and fetch what the scan chose."""
        seen = len(self.client.ledger)
        results: list[StructuredResult] = []
        dropped = dict.fromkeys(DROP_REASONS, 0)
        notes: list[str] = []
        scanned = self._order
        if self.two_stage:
            picked = self._pick_documents(question, question_id)
            results.append(picked)
            scanned, dropped["invalid_doc_ids"] = self._documents(picked)
            notes.append(f"two-stage scan: the index exceeds {self.settings.scan_budget_tokens} "
                         f"tokens; scanned {', '.join(scanned) or 'no documents'}")
        selection = Selection((), {})
        if scanned:
            scan = self._scan(question, question_id, scanned)
            results.append(scan)
            selection = resolve_selection((scan.data or {}).get("nodes"), self._nodes,
                                          frozenset(scanned), self.settings.node_cap)
        if any(not result.valid for result in results):
            notes.append("a scan's output never conformed to its tool schema; nothing selected "
                         "from it")
        dropped.update(selection.dropped)
        fetched = self._fetcher.fetch(selection.nodes, question,
                                      self.settings.payload_budget_tokens)
        notes.extend(fetched.notes(self.settings.payload_budget_tokens))
        return Retrieval(
            mode=self.name, provisions=fetched.provisions,
            payload_tokens=payload_tokens(fetched.provisions),
            scan_tokens=sum(result.usage.footprint for result in results),
            calls=self._calls_since(seen, question_id), dropped=tuple(dropped.items()),
            notes=tuple(notes))

    def _pick_documents(self, question: str, question_id: str | None) -> StructuredResult:
        most = self.settings.max_scan_documents
        return self.client.structured(
            stage=DOCUMENTS_STAGE, model=self.settings.scan_model, question_id=question_id,
            system=[SystemBlock(documents_system(most))],
            messages=[{"role": "user", "content": documents_user(question, self._lines, most)}],
            tool=select_documents_tool(most), max_tokens=SCAN_MAX_TOKENS)

    def _documents(self, picked: StructuredResult) -> tuple[tuple[str, ...], int]:
        """The valid picked documents in corpus order (so a set scans one cached block),
        and how many picks were unknown."""
        wanted = (picked.data or {}).get("doc_ids")
        listed = wanted if isinstance(wanted, list) else []
        known = set(self._order)
        valid = [d for d in dict.fromkeys(d for d in listed if isinstance(d, str) and d in known)]
        chosen = set(valid[:self.settings.max_scan_documents])
        invalid = sum(1 for d in listed if not isinstance(d, str) or d not in known)
        return tuple(d for d in self._order if d in chosen), invalid

    def _scan(self, question: str, question_id: str | None,
              scanned: Sequence[str]) -> StructuredResult:
        block = (self._full_block if len(scanned) == len(self._order)
                 else index_block(self._entries[d] for d in scanned))
        cap = self.settings.node_cap
        return self.client.structured(
            stage=SCAN_STAGE, model=self.settings.scan_model, question_id=question_id,
            system=scan_blocks(block),
            messages=[{"role": "user", "content": scan_user(question, cap)}],
            tool=select_nodes_tool(cap), max_tokens=SCAN_MAX_TOKENS)

    def _calls_since(self, seen: int, question_id: str | None) -> tuple[Call, ...]:
        # Filtered as well as sliced: another thread may share the client and its ledger.
        return tuple(call for call in self.client.ledger.calls[seen:]
                     if call.stage in (SCAN_STAGE, DOCUMENTS_STAGE)
                     and call.question_id == question_id)
