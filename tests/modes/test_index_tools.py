"""The index tool layer: documents, search, reads, references, definitions, amendments and
outlines, on the transactions corpus and on two small transactions; every result bounded and
sized, every unanswerable call a ToolError."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_legalbench.modes.base import Corpus, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.index_tools import bounds
from pytest_legalbench.modes.index_tools.bounds import ToolError, ToolResult
from pytest_legalbench.modes.index_tools.specs import TOOL_NAMES, TOOL_SPECS
from pytest_legalbench.modes.index_tools.toolbox import IndexTools
from pytest_legalbench.modes.navagent import searcher_of
from pytest_legalbench.modes.navembed import ClosureMode
from pytest_legalbench.tokens import estimate_tokens
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    WordEmbedder,
    two_deal_corpus,
)

NETGEAR = "netgear-01_distributor_agreement_1996"
TERRITORY = f"{NETGEAR}:2"
AMENDMENTS = ("netgear-02_amendment_1996-10-01:1", "netgear-03_amendment_no2_1998-07-15:1")
STONEPOINT = "stonepoint-02_revolving_credit_agreement_conformed"


@pytest.fixture(scope="module")
def transactions(transactions_corpus: Corpus) -> IndexTools:
    return IndexTools(transactions_corpus)


@pytest.fixture(scope="module")
def deals() -> IndexTools:
    corpus = two_deal_corpus()
    return IndexTools(corpus, searcher_of(ClosureMode(corpus, ModeSettings(), WordEmbedder())))


def _sized(result: ToolResult) -> dict[str, Any]:
    """The result as a client reads it, checked to state its own size and truncation."""
    data = json.loads(result.to_json())
    assert data["result_tokens"] == result.tokens
    assert abs(estimate_tokens(result.to_json()) - result.tokens) <= 1
    assert isinstance(data["truncated"], bool) and ("note" in data) == data["truncated"]
    return data


# The transactions corpus.

def test_the_netgear_territory_lists_both_amendments(transactions: IndexTools) -> None:
    read = _sized(transactions.read_provision(TERRITORY))
    assert read["clause"] == "2" and read["heading"] == "2. TERRITORY"
    assert [a["node_id"] for a in read["amended_by"]] == list(AMENDMENTS)
    assert "United States" in read["text"] and read["truncated"] is False
    node = transactions.lookup.nodes[TERRITORY]
    assert read["span"] == [node.start, node.end] and read["text"] == node.text
    assert "hasCondition" in read["flags"]
    listed = _sized(transactions.amendments(TERRITORY))
    assert [a["node_id"] for a in listed["amended_by"]] == list(AMENDMENTS)
    assert all(a["snippet"] and a["document"] for a in listed["amended_by"])
    assert listed["amends"] == []


def test_an_amendment_leads_back_to_the_base_provision(transactions: IndexTools) -> None:
    for amending in AMENDMENTS:
        assert [b["node_id"] for b in _sized(transactions.amendments(amending))["amends"]] \
            == [TERRITORY]
        assert [b["node_id"] for b in _sized(transactions.read_provision(amending))["amends"]] \
            == [TERRITORY]
    cites = _sized(transactions.follow_references(AMENDMENTS[0]))["cites"]
    assert [c["node_id"] for c in cites] == [TERRITORY]


def test_a_defined_term_resolves_to_its_definition_node(transactions: IndexTools) -> None:
    found = transactions.define_term("applicable margin")
    data = _sized(found)
    assert data["node_id"] == f"{STONEPOINT}:def-applicable-margin"
    assert data["defined_in"] == STONEPOINT and "195 basis points" in data["text"]
    assert [p.node_id for p in found.read] == [data["node_id"]]
    # Quotes, case and a plural make no difference.
    assert transactions.define_term("“Applicable Margins”").data["node_id"] == data["node_id"]


def test_the_documents_are_listed_with_their_transaction_sets(transactions: IndexTools) -> None:
    data = _sized(transactions.list_documents())
    rows = {row["doc_id"]: row for row in data["documents"]}
    assert data["total_documents"] == len(rows) == 10
    assert rows[NETGEAR]["amended_by"] == ["netgear-02_amendment_1996-10-01",
                                           "netgear-03_amendment_no2_1998-07-15"]
    assert rows[NETGEAR]["date"] == "1996-03-01" and "NETGEAR, Inc." in rows[NETGEAR]["parties"]
    assert rows["netgear-02_amendment_1996-10-01"]["amends"] == [NETGEAR]
    sets = {s["name"]: s["documents"] for s in data["transaction_sets"]}
    assert set(sets) == {"netgear", "glufox", "stonepoint", "guerrilla"}
    assert len(sets["glufox"]) == 4
    paged = _sized(transactions.list_documents(offset=8, limit=5))
    assert len(paged["documents"]) == 2 and paged["truncated"] is False
    first = _sized(transactions.list_documents(limit=3))
    assert first["truncated"] and "offset=3" in first["note"]


def test_a_large_provision_is_cut_and_says_so(transactions: IndexTools) -> None:
    root = transactions.lookup.indexes[STONEPOINT].root
    found = transactions.read_provision(root.node_id)
    data = _sized(found)
    assert data["truncated"] and "parts" in data and data["parts"]
    assert len(data["text"]) == bounds.TEXT_CHARS and root.text.startswith(data["text"])
    assert data["tokens"] == estimate_tokens(root.text)
    shown, = found.read
    assert (shown.start, shown.end) == (root.start, root.start + bounds.TEXT_CHARS)
    assert data["result_tokens"] < bounds.TEXT_CHARS // 4 + 3000


def test_outlines_are_bounded_by_depth_and_entries(transactions: IndexTools) -> None:
    shallow = _sized(transactions.outline(NETGEAR, depth=1))["outline"]
    assert shallow["kind"] == "document" and shallow["children"]
    assert all("children" not in child for child in shallow["children"])
    assert any(child["node_id"] == TERRITORY for child in shallow["children"])
    whole = _sized(transactions.outline(STONEPOINT, depth=4))
    assert whole["truncated"] and "node_id" in whole["note"]

    def count(entry: dict[str, Any]) -> int:
        return 1 + sum(count(child) for child in entry.get("children", ()))

    assert count(whole["outline"]) <= bounds.OUTLINE_ITEMS
    part = _sized(transactions.outline(NETGEAR, node_id=TERRITORY))["outline"]
    assert part["node_id"] == TERRITORY
    assert _sized(transactions.outline(NETGEAR, depth=99))["depth"] == bounds.OUTLINE_DEEPEST


@pytest.mark.parametrize(("tool", "arguments", "message"), [
    ("read_provision", {"node_id": "nowhere:2"}, "no document is called 'nowhere'"),
    ("read_provision", {"node_id": f"{NETGEAR}:2x"}, f"close ids: {TERRITORY}"),
    ("amendments", {"node_id": ""}, "node_id must be a non-empty string"),
    ("outline", {"doc_id": "netgear"}, f"close ids: {NETGEAR}"),
    ("outline", {"doc_id": NETGEAR, "node_id": TERRITORY.replace(NETGEAR, STONEPOINT)},
     "unknown node id"),
    ("define_term", {"term": "Margin Thing"}, "'Applicable Margin'"),
    ("define_term", {"term": "Territory", "doc_id": "nowhere"}, "unknown document"),
    ("search", {"query": "territory"}, "search is unavailable"),
    ("read_provision", {}, "missing required property 'node_id'"),
    ("read_provision", {"node_id": 7}, "expected string"),
    ("outline", {"doc_id": NETGEAR, "colour": "red"}, "colour"),
    ("teleport", {}, "unknown tool 'teleport'"),
])
def test_unanswerable_calls_are_tool_errors(transactions: IndexTools, tool: str,
                                            arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError) as error:
        transactions.call(tool, arguments)
    assert message in str(error.value)


# Two small transactions (lease and supply, each amended).

def test_search_names_provisions_with_snippets_only(deals: IndexTools) -> None:
    data = _sized(deals.call("search", {"query": "What is the monthly rent?", "limit": 5}))
    hits = data["hits"]
    assert len(hits) == 5 and data["truncated"] and "offset=5" in data["note"]
    assert {f"{LEASE}:2.1", f"{LEASE_AMENDMENT}:1"} <= {h["node_id"] for h in hits}
    assert all(len(h["snippet"]) <= bounds.SNIPPET_CHARS + 2 and "text" not in h for h in hits)
    assert all(h["context"].startswith(("Equipment Lease", "First Amendment")) for h in hits)
    assert deals.search("monthly rent").read == ()
    most = _sized(deals.search("rent", limit=500))
    assert len(most["hits"]) <= bounds.SEARCH_MOST
    # The next page starts where the first ended, and the last page says nothing is left.
    after = _sized(deals.call("search", {"query": "What is the monthly rent?", "limit": 5,
                                         "offset": 5}))
    assert after["offset"] == 5
    assert not {h["node_id"] for h in after["hits"]} & {h["node_id"] for h in hits}
    last = _sized(deals.search("What is the monthly rent?", limit=20, offset=10_000))
    assert last["hits"] == [] and last["truncated"] is False


def test_an_amendment_uses_the_definition_of_the_agreement_it_amends(deals: IndexTools) -> None:
    data = _sized(deals.define_term("Minimum Volume", SUPPLY_AMENDMENT))
    assert (data["defined_in"], data["node_id"]) == (SUPPLY, f"{SUPPLY}:def-minimum-volume")
    read = _sized(deals.read_provision(f"{SUPPLY_AMENDMENT}:1"))
    assert [b["node_id"] for b in read["amends"]] == [f"{SUPPLY}:4"]
    rent = _sized(deals.read_provision(f"{LEASE}:2.1"))
    assert {"term": "Monthly Rent", "node_id": f"{LEASE}:def-monthly-rent"} in rent["uses_terms"]
    assert [a["node_id"] for a in rent["amended_by"]] == [f"{LEASE_AMENDMENT}:1"]
    assert rent["path"] == [{"node_id": f"{LEASE}:2", "heading": "2. RENT"}]


def test_references_and_outlines_of_a_small_agreement(deals: IndexTools) -> None:
    cites = _sized(deals.follow_references(f"{SUPPLY}:2.2"))["cites"]
    assert [c["node_id"] for c in cites] == [f"{SUPPLY}:5.1"]
    outline = _sized(deals.outline(LEASE))["outline"]
    headings = [child["heading"] for child in outline["children"]]
    assert "2. RENT" in headings
    rent = next(c for c in outline["children"] if c["heading"] == "2. RENT")
    assert [c["node_id"] for c in rent["children"]][-2:] == [f"{LEASE}:2.1", f"{LEASE}:2.2"]
    contents = next(c for c in outline["children"] if c["kind"] == "toc")
    assert "children" not in contents


def test_list_documents_groups_each_deal(deals: IndexTools) -> None:
    data = _sized(deals.list_documents())
    assert data["transaction_sets"] == [{"name": LEASE, "documents": [LEASE, LEASE_AMENDMENT]},
                                        {"name": SUPPLY, "documents": [SUPPLY, SUPPLY_AMENDMENT]}]


def test_every_tool_has_a_spec_and_an_implementation(deals: IndexTools) -> None:
    assert [spec.name for spec in TOOL_SPECS] == list(TOOL_NAMES)
    arguments = {"list_documents": {}, "search": {"query": "rent"},
                 "read_provision": {"node_id": f"{LEASE}:2.1"},
                 "follow_references": {"node_id": f"{LEASE}:2.1"},
                 "define_term": {"term": "Equipment"}, "amendments": {"node_id": f"{LEASE}:3"},
                 "outline": {"doc_id": LEASE}}
    assert set(arguments) == set(TOOL_NAMES)
    for name, given in arguments.items():
        assert deals.call(name, given).tool == name
    with pytest.raises(ModeUnavailable):
        IndexTools(Corpus(two_deal_corpus().documents, (), None))


def test_the_bounds_helpers() -> None:
    assert bounds.snippet("a  b\n c") == "a b c"
    cut = bounds.snippet("word " * 100, 20)
    assert cut.endswith(" …") and len(cut) <= 22
    assert bounds.clipped("abcdef", 4) == ("abcd", True) and bounds.clipped("ab", 4) == ("ab", False)
    assert bounds.capped([1, 2, 3], 2) == ([1, 2], 1)
    assert bounds.whole_number(None, "n", 3, 1, 5) == 3
    assert bounds.whole_number(50, "n", 3, 1, 5) == 5
    with pytest.raises(ToolError, match="whole number"):
        bounds.whole_number(True, "n", 3, 1, 5)
    result = bounds.finished("x", {"a": 1}, ["cut"])
    assert result.data["truncated"] is True and result.data["note"] == "cut"
    grown = bounds.with_fields(result, b="2" * 400)
    assert grown.data["note"] == "cut" and grown.tokens > result.tokens + 90
