"""The navindex mode against the reference backend: scan, fetch, answer, and their accounting."""

from __future__ import annotations

from typing import Any, cast

import pytest

from pytest_legalbench.modes.base import Corpus, ModeSettings
from pytest_legalbench.modes.navigate import NavindexMode, resolve_selection
from pytest_legalbench.modes.registry import build_mode
from pytest_legalbench.reference_backend import responder
from pytest_legalbench.reference_backend.wire import MessagesRequest
from pytest_legalbench.run.answering import answer
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, lease_corpus, reference_client

RENT = "What is the monthly rent payable for the equipment?"


def _script(monkeypatch: pytest.MonkeyPatch, tool: str, data: dict[str, object]) -> None:
    """Make the reference backend answer ``tool`` with ``data``, whatever the request."""
    def scripted(request: MessagesRequest) -> dict[str, object]:
        return dict(data)
    monkeypatch.setitem(cast(dict[str, Any], responder.TOOL_HANDLERS), tool, scripted)


def test_the_scan_selects_fetches_and_accounts_for_its_tokens() -> None:
    with reference_client() as client:
        mode = build_mode("navindex", lease_corpus(), ModeSettings(), client)
        first = mode.retrieve(RENT, question_id="q1")
        second = mode.retrieve("How long does the lease run?", question_id="q2")
        calls = client.ledger.calls
    ids = [p.node_id for p in first.provisions]
    # The definition, the rent clause (inside its section) and the amendment that changes it.
    assert {f"{LEASE}:def-monthly-rent", f"{LEASE_AMENDMENT}:1"} <= set(ids)
    assert {f"{LEASE}:2.1", f"{LEASE}:2"} & set(ids)
    assert f"{LEASE}:def-equipment" in ids  # a definition the rent clause uses, fetched
    assert len(ids) == len(set(ids))
    # The scan's tokens are in the ledger, and in the retrieval's own record.
    assert [(c.stage, c.question_id) for c in calls] == [
        ("navindex.scan", "q1"), ("navindex.scan", "q2")]
    assert first.calls == calls[:1] and second.calls == calls[1:]
    assert first.scan_tokens == calls[0].usage.footprint > first.payload_tokens
    # The index block is the cached prefix: written by the first scan, read by the second.
    assert calls[0].usage.cache_creation_input_tokens > 0
    assert calls[1].usage.cache_read_input_tokens == calls[0].usage.cache_creation_input_tokens
    assert dict(first.dropped) == {"invalid_ids": 0, "toc_ids": 0, "duplicate_ids": 0,
                                   "over_cap": 0, "invalid_doc_ids": 0}


def test_the_answer_sees_only_the_fetched_provisions() -> None:
    with reference_client() as client:
        mode = NavindexMode(lease_corpus(), ModeSettings(), client)
        retrieval = mode.retrieve(RENT, question_id="q1")
        completion = answer(retrieval, RENT, client, "m", question_id="q1")
        answered = client.ledger.calls[-1]
    assert answered.stage == "navindex.answer"
    assert "$42,500" in completion.text or "$39,000" in completion.text
    # Far less than the two documents whole: the instructions, the provisions, the question.
    assert answered.usage.footprint < retrieval.scan_tokens


def test_the_cap_bounds_the_selection() -> None:
    with reference_client() as client:
        mode = NavindexMode(lease_corpus(), ModeSettings(node_cap=1), client)
        retrieval = mode.retrieve(RENT, question_id="q1")
    assert "(1 hit" in retrieval.notes[0] or ", 1 hit" in retrieval.notes[0]
    with reference_client() as client:
        uncapped = NavindexMode(lease_corpus(), ModeSettings(), client).retrieve(RENT)
    hits = [r for r in uncapped.notes[0].split("(")[1].split(",") if r.strip().endswith("hit")]
    assert int(hits[0].split()[0]) > 1
    assert retrieval.provisions[0] == uncapped.provisions[0]


def test_selections_over_the_cap_are_dropped_and_counted() -> None:
    corpus = lease_corpus()
    nodes = {n.node_id: n for i in corpus.indexes for n in i.nodes}
    pairs = [{"doc_id": LEASE, "node_id": local} for local in ("2.1", "2.2", "3", "4")]
    selection = resolve_selection(pairs, nodes, frozenset({LEASE}), cap=2)
    assert [n.node_id for n in selection.nodes] == [f"{LEASE}:2.1", f"{LEASE}:2.2"]
    assert selection.dropped["over_cap"] == 2


def test_invalid_and_contents_ids_are_dropped_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    _script(monkeypatch, "select_nodes", {"nodes": [
        {"doc_id": LEASE, "node_id": "toc-entry_2"},          # a line of the contents
        {"doc_id": LEASE, "node_id": "99.9"},                 # no such node
        {"doc_id": "elsewhere", "node_id": "2.1"},            # no such document
        {"doc_id": LEASE, "node_id": "3"},
        {"doc_id": LEASE, "node_id": f"{LEASE}:3"},           # the same node, written whole
        {"doc_id": LEASE_AMENDMENT, "node_id": "2"},
    ]})
    with reference_client() as client:
        retrieval = NavindexMode(lease_corpus(), ModeSettings(), client).retrieve(
            "How long does the lease run?", question_id="q1")
    dropped = dict(retrieval.dropped)
    assert (dropped["invalid_ids"], dropped["toc_ids"], dropped["duplicate_ids"]) == (2, 1, 1)
    assert [p.node_id for p in retrieval.provisions][:2] == [f"{LEASE}:3",
                                                            f"{LEASE_AMENDMENT}:2"]


def test_a_scan_that_never_conforms_selects_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _script(monkeypatch, "select_nodes", {"nodes": "all of them"})
    with reference_client() as client:
        retrieval = NavindexMode(lease_corpus(), ModeSettings(), client).retrieve(RENT)
        calls = client.ledger.calls
    assert retrieval.provisions == () and retrieval.payload_tokens == 0
    assert [c.valid for c in calls] == [False, False]  # one retry, then recorded as invalid
    assert retrieval.scan_tokens == sum(c.usage.footprint for c in calls)
    assert any("never conformed" in note for note in retrieval.notes)


def test_an_index_over_the_scan_budget_is_scanned_in_two_stages() -> None:
    settings = ModeSettings(scan_budget_tokens=50, max_scan_documents=1)
    with reference_client() as client:
        mode = NavindexMode(lease_corpus(), settings, client)
        retrieval = mode.retrieve("What does the first amendment change?", question_id="q1")
        calls = client.ledger.calls
    assert mode.two_stage
    assert [c.stage for c in calls] == ["navindex.scan_documents", "navindex.scan"]
    assert retrieval.scan_tokens == sum(c.usage.footprint for c in calls)
    assert retrieval.notes[0].endswith(f"scanned {LEASE_AMENDMENT}")
    # Only the picked document's index was scanned, so every selection comes from it.
    selected = retrieval.provisions[:1]
    assert selected and selected[0].doc_id == LEASE_AMENDMENT


def test_unknown_documents_picked_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    _script(monkeypatch, "select_documents", {"doc_ids": ["nowhere", LEASE]})
    settings = ModeSettings(scan_budget_tokens=50)
    with reference_client() as client:
        retrieval = NavindexMode(lease_corpus(), settings, client).retrieve(RENT)
    assert dict(retrieval.dropped)["invalid_doc_ids"] == 1
    assert {p.doc_id for p in retrieval.provisions[:1]} == {LEASE}


def test_a_corpus_without_indexes_cannot_be_scanned() -> None:
    corpus = lease_corpus()
    with reference_client() as client, pytest.raises(Exception, match="no indexes"):
        NavindexMode(Corpus(corpus.documents, (), None), ModeSettings(), client)
