"""Provision closure: what a provision brings with it, on two small transactions."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.modes.closure import DEFAULT_KINDS, KINDS, WEIGHTS, Closure, Link
from pytest_legalbench.modes.node_ranking import without_names
from pytest_legalbench.modes.routing import Route, party_words
from pytest_legalbench.modes.units import heading_only, named_definitions, unit_nodes
from pytest_legalbench.navindex.node import Node
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    two_deal_corpus,
)


@pytest.fixture(scope="module")
def closure() -> Closure:
    return Closure(two_deal_corpus().indexes, kinds=KINDS)


def _kinds(links: list[Link]) -> dict[str, str]:
    return {link.target: link.kind for link in links}


def test_a_base_clause_brings_the_amendment_that_changes_it(closure: Closure) -> None:
    links = _kinds(closure.links(closure.by_id[f"{LEASE}:2.1"]))
    assert links[f"{LEASE_AMENDMENT}:1"] == "amendment"


def test_an_amending_clause_brings_the_base_clause_it_changes(closure: Closure) -> None:
    links = _kinds(closure.links(closure.by_id[f"{SUPPLY_AMENDMENT}:1"]))
    assert links[f"{SUPPLY}:4"] == "base"
    # A short amendment is read whole: its effectiveness clause comes too.
    assert links[f"{SUPPLY_AMENDMENT}:2"] == "amendment_context"


def test_a_used_defined_term_brings_its_definition_node(closure: Closure) -> None:
    node = closure.by_id[f"{SUPPLY}:2.1"]
    links = _kinds(closure.links(node))
    assert links[f"{SUPPLY}:def-minimum-volume"] == "definition"
    # The definition node, not the whole definitions article.
    assert f"{SUPPLY}:1" not in links
    asked = frozenset({f"{SUPPLY}:def-minimum-volume"})
    assert _kinds(closure.links(node, asked))[f"{SUPPLY}:def-minimum-volume"] == \
        "asked_definition"


def test_references_lead_ins_and_siblings(closure: Closure) -> None:
    links = _kinds(closure.links(closure.by_id[f"{SUPPLY}:2.2"]))
    assert links[f"{SUPPLY}:5.1"] == "reference"
    assert links[f"{SUPPLY}:2-intro"] == "lead_in"
    assert links[f"{SUPPLY}:2.1"] == "sibling"
    # Links are offered in their kind's order and never point back at the node itself.
    order = [KINDS.index(link.kind) for link in closure.links(closure.by_id[f"{SUPPLY}:2.2"])]
    assert order == sorted(order)


def test_siblings_are_left_to_a_scan_s_choice() -> None:
    assert "sibling" not in DEFAULT_KINDS
    plain = Closure(two_deal_corpus().indexes)
    assert "sibling" not in {link.kind for link in plain.links(plain.by_id[f"{SUPPLY}:2.2"])}


def test_rarer_definitions_weigh_more(closure: Closure) -> None:
    # "Minimum Volume" is used by three provisions, "Delivery Point" by one.
    weights = {link.target: link.weight for link in closure.links(closure.by_id[f"{SUPPLY}:2.1"])
               if link.kind == "definition"}
    assert weights[f"{SUPPLY}:def-delivery-point"] > weights[f"{SUPPLY}:def-minimum-volume"]


def test_units_are_leaves_and_small_subtrees_never_contents() -> None:
    index = two_deal_corpus().indexes[0]
    units = {n.node_id for n in unit_nodes(index)}
    assert f"{LEASE}:2.1" in units and f"{LEASE}:2" in units
    assert not units & {f"{LEASE}:root", f"{LEASE}:toc", f"{LEASE}:toc-entry"}


def test_a_question_writing_a_defined_term_names_its_definition() -> None:
    nodes = [n for i in two_deal_corpus().indexes for n in i.nodes]
    found = named_definitions("Where is the delivery point, and what are the Minimum Volumes?",
                              nodes)
    # Longest term first, ties by id; case and a plural "s" do not matter.
    assert [n.node_id for n in found] == [f"{SUPPLY}:def-delivery-point",
                                         f"{SUPPLY}:def-minimum-volume"]
    assert named_definitions("What is the price?", nodes)[0].node_id == f"{SUPPLY}:def-price"


def _node(node_id: str, text: str, *, reference: str = "", title: str = "",
          parent: str | None = None) -> Node:
    return Node(node_id=node_id, doc_id="d", kind="section", clause_reference=reference,
                title=title, start=0, end=len(text), text=text, parent=parent)


def test_a_unit_that_only_repeats_headings_is_a_heading() -> None:
    article = _node("d:2", "ARTICLE 2 LICENSE GRANT", reference="ARTICLE 2", title="License Grant")
    lead = _node("d:2-lead", "ARTICLE 2\nLICENSE GRANT", parent="d:2")
    clause = _node("d:2.1", "2.1 Grant. Licensor grants a licence.", reference="2.1",
                   title="Grant", parent="d:2")
    recitals = _node("d:recitals", "RECITALS\n\nWHEREAS:", title="Recitals")
    by_id = {n.node_id: n for n in (article, lead, clause, recitals)}
    # Its own heading and its parent's are not words it says; "WHEREAS" is one word.
    assert heading_only(article, by_id) and heading_only(lead, by_id)
    assert heading_only(recitals, by_id)
    assert not heading_only(clause, by_id)


def test_the_words_that_routed_a_question_are_left_out_of_its_ranking() -> None:
    route = Route({}, (("netgear",),), ("ingram", "micro", "netgear"))
    assert without_names("What cap does NETGEAR's agreement with Ingram-Micro set?",
                         route) == "What cap does agreement with set?"
    # An unrouted question, or one that is nothing but names, is ranked as written.
    assert without_names("What is the cap?", Route({}, (), ())) == "What is the cap?"
    assert without_names("NETGEAR Ingram", route) == "NETGEAR Ingram"


def test_the_words_of_a_routed_partys_name_leave_word_matching_with_the_routing_ones() -> None:
    # "Western" routed the question; "Alliance" and "Bank" are generic words that route
    # nothing, yet they print where the bank is named (its definition, the opening).
    route = Route({}, (("landsea",),), ("landsea", "western"),
                  party_words(["Landsea Homes Corporation", "Western Alliance Bank"]))
    assert without_names("When does Landsea's Western Alliance Bank facility mature?",
                         route) == "When does facility mature?"
    # Written in lower case, a word of a party's name is what the question asks about.
    assert without_names("Must Landsea tell the bank?", route) == "Must tell the bank?"
    # Only the routed documents' parties: another instrument's are words like any other.
    assert without_names("Must Landsea tell Alliance Bank?",
                         replace(route, parties=frozenset())) == "Must tell Alliance Bank?"
    # A party's word apart from a routing word is no name: "Lenders" of "The Lenders party
    # thereto" is also a term of the agreement ("Required Lenders").
    amazon = Route({}, (("amazon",),), ("amazon",),
                   party_words(["Amazon.com, Inc.", "The Lenders party thereto"]))
    assert without_names("Which Lenders are the Required Lenders under Amazon Inc.'s loan?",
                         amazon) == "Which Lenders are the Required Lenders under loan?"


_WORDS = st.sampled_from(["Western", "western", "Alliance", "alliance", "Bank", "bank's",
                          "Landsea's", "fee", "When", "the", "Inc.", "N.A.", "(Texas)", "2024"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=10),
       st.sets(st.sampled_from(["western", "alliance", "bank", "inc", "texas", "landsea"])))
def test_names_out_keeps_every_lower_case_word_and_the_order(words: list[str],
                                                              parties: set[str]) -> None:
    question = " ".join(words)
    kept = without_names(question, Route({}, (("d",),), ("landsea",), frozenset(parties)))
    rest = iter(words)
    # What is left is the question's words in order (a subsequence), never empty ...
    assert kept.split() and all(any(w == r for r in rest) for w in kept.split())
    # ... and a word written in lower case stays (only "Landsea's" routed the question).
    for word in words:
        if word[0].islower():
            assert word in kept.split()


POINTER_TEXT = """LOAN AGREEMENT

1. DEFINITIONS

"Event of Default" has the meaning given in Section 3.1.

"Threshold Amount" means $5,000,000.

"Material Debt" means Indebtedness of the Borrower exceeding the Threshold Amount, other than Indebtedness under this Agreement, owed to any Person other than the Lender.

2. LOANS

2.1 The Lender shall make Loans of up to four times the Threshold Amount.

2.2 Each Loan bears interest at 5% a year, or 7% while an Event of Default continues.

3. DEFAULT

3.1 Each of the following is an "Event of Default": (a) the Borrower fails to pay any amount when due; (b) the Borrower defaults on any Material Debt; (c) the Borrower becomes insolvent.

IN WITNESS WHEREOF the parties have signed this Agreement.

LENDER: Harbour Bank plc
By: ______________
BORROWER: Quill Logistics Ltd
By: ______________
"""


@pytest.fixture(scope="module")
def pointer_closure() -> Closure:
    from pytest_legalbench.navindex.build import build_corpus
    from tests.support.modes_samples import document

    return Closure(build_corpus((document("loan", POINTER_TEXT, "Loan Agreement"),)), kinds=KINDS)


def test_a_definition_that_only_points_passes_on_its_whole_weight(
        pointer_closure: Closure) -> None:
    links = {link.target: link for link in
             pointer_closure.links(pointer_closure.by_id["loan:def-event-of-default"])}
    assert links["loan:3.1"].kind == "reference"
    assert links["loan:3.1"].weight == WEIGHTS["pointer"] > WEIGHTS["reference"]
    # A clause citing the same section is an ordinary citation.
    cited = {link.target: link for link in
             pointer_closure.links(pointer_closure.by_id["loan:2.2"])}
    assert cited["loan:def-event-of-default"].kind == "definition"


def test_a_signature_block_is_never_a_neighbour(pointer_closure: Closure) -> None:
    top = pointer_closure.by_id["loan:2"]
    siblings = {link.target for link in pointer_closure.links(top) if link.kind == "sibling"}
    kinds = {pointer_closure.by_id[target].kind for target in siblings}
    assert "signature" not in kinds and siblings


def test_a_whole_section_brings_definitions_for_each_of_its_clauses() -> None:
    from pytest_legalbench.navindex.build import build_corpus
    from tests.support.modes_samples import document

    one = Closure(build_corpus((document("loan", POINTER_TEXT, "Loan Agreement"),)),
                  definitions_per_node=1)
    section = one.by_id["loan:2"]
    clauses = [n for n in (one.by_id[c] for c in section.children)
               if not n.children and n.kind != "lead_in"]
    defined = {link.target for link in one.links(section) if link.kind == "definition"}
    # One definition per clause, not one for the whole section: each clause uses its own.
    assert [c.uses_definitions for c in clauses] == [("loan:def-threshold-amount",),
                                                     ("loan:def-event-of-default",)]
    assert defined == {"loan:def-threshold-amount", "loan:def-event-of-default"}


GRID_TEXT = """CREDIT AGREEMENT

7.14 Financial Covenants.

(a) Leverage. The Borrower shall not permit the Leverage Ratio on any test date to exceed the ratio set out below for that date:

Test Date | Maximum Leverage Ratio
March 31, 2022 and each Fiscal Quarter thereafter | 0.60:1.00
March 31, 2023 and each Fiscal Quarter thereafter | 0.55:1.00

(b) Liquidity. The Borrower shall maintain Liquidity of at least $30,000,000 at all times.
"""


def test_a_table_row_brings_the_other_rows_of_its_table() -> None:
    from pytest_legalbench.navindex.build import build_corpus
    from tests.support.modes_samples import document

    grid = Closure(build_corpus((document("loan", GRID_TEXT, "Credit Agreement"),)))
    rows = [n for n in grid.by_id.values() if n.kind == "row"]
    assert len(rows) == 3, [n.node_id for n in rows]
    dated = next(n for n in rows if n.text.startswith("March 31, 2023"))
    links = {link.target: link for link in grid.links(dated)}
    others = {n.node_id for n in rows} - {dated.node_id}
    assert {t for t, link in links.items() if link.kind == "table"} == others
    assert all(links[t].weight == WEIGHTS["table"] for t in others)
    # Only rows: a clause of the section brings no table link.
    clause = next(n for n in grid.by_id.values() if n.text.startswith("(b) Liquidity"))
    assert "table" not in {link.kind for link in grid.links(clause)}
