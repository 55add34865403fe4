"""The reference backend's deterministic navigator, on requests the navindex scan would send."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
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
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.reference_backend.navigator import select_documents_input, select_nodes_input
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.wire import MessagesRequest, WireError
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, lease_corpus


def _request(system: Sequence[SystemBlock], user: str, tool: ToolSpec) -> MessagesRequest:
    body = {"model": "m", "max_tokens": 256, "system": [b.to_param() for b in system],
            "messages": [{"role": "user", "content": user}], "tools": [tool.to_param()],
            "tool_choice": {"type": "tool", "name": tool.name}}
    return parse_request(json.dumps(body).encode(), needs_max_tokens=True)


def _scan(indexes: Sequence[DocumentIndex], question: str, cap: int = 10) -> list[str]:
    block = index_block(index_entry(i) for i in indexes)
    chosen = select_nodes_input(_request(scan_blocks(block), scan_user(question, cap),
                                         select_nodes_tool(cap)))
    pairs = chosen["nodes"]
    assert isinstance(pairs, list)
    return [f"{p['doc_id']}:{p['node_id']}" for p in pairs]


@pytest.fixture(scope="module")
def indexes() -> tuple[DocumentIndex, ...]:
    return lease_corpus().indexes


def test_an_amount_question_finds_the_rent_clause_and_its_amendment(
        indexes: tuple[DocumentIndex, ...]) -> None:
    chosen = _scan(indexes, "What is the monthly rent amount payable for the cranes?")
    # The rent clause, or the Rent section holding it (the fetch reads its parts).
    assert {f"{LEASE}:2.1", f"{LEASE}:2"} & set(chosen)
    # The amendment's clause citing Section 2.1 travels with it.
    assert f"{LEASE_AMENDMENT}:1" in chosen


def test_a_defined_term_question_routes_to_the_definition(
        indexes: tuple[DocumentIndex, ...]) -> None:
    chosen = _scan(indexes, 'What does "Commencement Date" mean?')
    assert chosen[0] == f"{LEASE}:def-commencement-date"


def test_contents_entries_are_never_chosen(indexes: tuple[DocumentIndex, ...]) -> None:
    # "Rent" and "Term" are also lines of the contents; only the provisions may be chosen.
    chosen = _scan(indexes, "What are the rent and the term of the lease?")
    contents = {n.node_id for i in indexes for n in i.nodes if n.flags.is_toc_entry}
    assert chosen and not set(chosen) & contents


def test_the_cap_in_the_tool_schema_is_obeyed(indexes: tuple[DocumentIndex, ...]) -> None:
    question = "rent term equipment insurance liability law lessee lessor amendment"
    assert len(_scan(indexes, question)) > 2
    assert len(_scan(indexes, question, cap=2)) == 2


def test_no_chosen_node_contains_another(indexes: tuple[DocumentIndex, ...]) -> None:
    chosen = _scan(indexes, "rent term equipment insurance liability law lessee lessor")
    nodes = {n.node_id: n for i in indexes for n in i.nodes}
    for first in chosen:
        for second in chosen:
            if first != second:
                a, b = nodes[first], nodes[second]
                assert a.doc_id != b.doc_id or a.end <= b.start or b.end <= a.start


def test_a_question_the_index_never_mentions_chooses_nothing(
        indexes: tuple[DocumentIndex, ...]) -> None:
    assert _scan(indexes, "Who captains the company football team?") == []


def test_the_same_request_gets_the_same_choice(indexes: tuple[DocumentIndex, ...]) -> None:
    question = "When does the lease term begin and how long does it run?"
    assert _scan(indexes, question) == _scan(indexes, question)


def test_an_unreadable_index_is_a_clear_error() -> None:
    block = '<indexes>\n<index doc_id="x">{"fv": 1, broken</index>\n</indexes>'
    with pytest.raises(WireError, match="index of 'x' cannot be read"):
        select_nodes_input(_request(scan_blocks(block), scan_user("q", 10),
                                    select_nodes_tool(10)))


def test_a_scan_without_indexes_is_a_clear_error() -> None:
    with pytest.raises(WireError, match="no <index"):
        select_nodes_input(_request([SystemBlock("no index")], scan_user("q", 10),
                                    select_nodes_tool(10)))


def _pick_documents(lines: Sequence[str], question: str, most: int = 5) -> list[str]:
    request = _request([SystemBlock(documents_system(most))],
                       documents_user(question, lines, most), select_documents_tool(most))
    picked = select_documents_input(request)["doc_ids"]
    assert isinstance(picked, list)
    return [str(d) for d in picked]


def test_documents_are_picked_by_their_line_and_amendments_come_along(
        indexes: tuple[DocumentIndex, ...]) -> None:
    lines = [document_line(i) for i in indexes] + [
        "netting-pact | Master Netting Agreement | base |  | close-out, netting, derivatives"]
    picked = _pick_documents(lines, "What rent does the equipment lease charge?")
    assert picked[:1] == [LEASE] and LEASE_AMENDMENT in picked
    assert "netting-pact" not in picked
    assert _pick_documents(lines, "How are derivatives netted on close-out?") == ["netting-pact"]


def test_the_document_cap_is_obeyed() -> None:
    lines = [f"doc-{n} | Loan Agreement {n} | base |  | loan, interest" for n in range(8)]
    assert _pick_documents(lines, "What interest does the loan carry?", most=3) == [
        "doc-0", "doc-1", "doc-2"]


def test_a_document_request_without_a_list_is_refused() -> None:
    request = _request([SystemBlock("s")], "no list here", select_documents_tool(5))
    with pytest.raises(WireError, match="document_list"):
        select_documents_input(request)
