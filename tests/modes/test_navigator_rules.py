"""The model-free navigator's rules for questions that name their instrument, on small indexes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.modes import navigator
from pytest_legalbench.modes.navigator import IndexView, Navigator, read_index

SUPPLY = "supply-acme"
OTHER = "services-zenith"


def _node(node_id: str, title: str, snippet: str, **fields: Any) -> dict[str, Any]:
    return {"nodeId": node_id, "title": title, "snippet": snippet, "textLength": len(snippet),
            **fields}


def _view(doc_id: str, title: str, parties: list[str], nodes: list[dict[str, Any]]) -> IndexView:
    return read_index(doc_id, {"documentTitle": title, "parties": parties, "documentIndex":
                               {"nodeId": "root", "children": nodes}})


def _views() -> list[IndexView]:
    supply = _view(SUPPLY, "Supply Agreement", ["Acme Chemical Company", "Beta Distribution"], [
        _node("front", "", "This Supply Agreement is made on 1 May 2019 between Acme Chemical "
              "Company and Beta Distribution, the Distributor.", hasDate=True),
        _node("2", "Supply of Products", "Acme shall supply the products under this supply "
              "agreement to the Distributor on the supply schedule."),
        _node("9", "Assignment", "Neither party may assign this agreement without the prior "
              "written consent of the other."),
        _node("10", "Warranty", "Products are warranted free of defects for twelve months."),
    ])
    other = _view(OTHER, "Services Agreement", ["Zenith Services"], [
        _node("front", "", "This Services Agreement is made between Zenith Services and its "
              "customers."),
        _node("4", "Assignment and Consent", "Assignment of this agreement requires consent; "
              "an assignment without consent is void; consent to assignment is not to be "
              "withheld."),
    ])
    return [supply, other]


@pytest.fixture(scope="module")
def nav() -> Navigator:
    return Navigator(_views())


def _chosen(nav: Navigator, question: str, cap: int = 3) -> list[str]:
    return [e.node_id for e in nav.select(question, cap)]


QUESTION = ("In the SUPPLY AGREEMENT between Acme Chemical Company and Beta Distribution, can "
            "the agreement be assigned without consent?")


def test_the_instruments_own_names_do_not_pick_its_opening(nav: Navigator) -> None:
    assert _chosen(nav, QUESTION)[0] == f"{SUPPLY}:9"
    assert f"{SUPPLY}:front" not in _chosen(nav, QUESTION)


def test_left_in_the_same_names_pick_the_opening(nav: Navigator,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # What the rule is for: with the title's words matched, the opening and the section
    # sharing the title's word outrank the clause asked about.
    monkeypatch.setattr(navigator, "TITLE_NAMES_OUT", False)
    assert _chosen(nav, QUESTION)[0] != f"{SUPPLY}:9"


def test_a_name_word_written_lower_case_is_still_the_subject() -> None:
    named = frozenset({"supply", "agreement", "acme"})
    assert navigator._unnamed("How much supply does the SUPPLY AGREEMENT with Acme require?",
                              named).split() == ["How", "much", "supply", "does", "the",
                                                 "with", "require?"]


@given(st.text(alphabet=st.sampled_from("aAbBcC sS,"), max_size=40),
       st.frozensets(st.sampled_from(["a", "b", "ab", "ca", "s"])))
def test_only_capitalised_words_are_ever_left_out(question: str, named: frozenset[str]) -> None:
    kept = navigator._unnamed(question, named)
    assert [w for w in kept.split() if w.islower()] == \
        [w for w in question.split() if w.islower()]


def test_a_routed_question_reads_other_documents_only_when_far_better(nav: Navigator) -> None:
    # Zenith's clause matches assignment and consent more often than Acme's, but the question
    # names Acme's agreement.
    route = nav.router.route(QUESTION)
    assert route.documents() == (SUPPLY,)
    scores = nav.scores(QUESTION, route)
    assert scores[f"{SUPPLY}:9"] > scores[f"{OTHER}:4"]
    assert f"{OTHER}:4" not in _chosen(nav, QUESTION)


def test_a_question_about_the_instrument_reads_its_opening(nav: Navigator) -> None:
    question = "Who are the parties to the SUPPLY AGREEMENT between Acme Chemical Company?"
    scores = nav.scores(question, nav.router.route(question))
    assert scores[f"{SUPPLY}:front"] == max(scores.values())
    assert f"{SUPPLY}:front" in _chosen(nav, question, cap=2)
    # The opening of a document the question does not name is not brought.
    assert f"{OTHER}:front" not in scores or scores[f"{OTHER}:front"] < scores[f"{SUPPLY}:front"]


def test_without_the_opening_rule_the_parties_question_misses_the_opening(
        nav: Navigator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(navigator, "OPENING_FACTOR", 0.0)
    question = "Who are the parties to the SUPPLY AGREEMENT between Acme Chemical Company?"
    assert f"{SUPPLY}:front" not in _chosen(nav, question, cap=2)


def _sibling_views() -> list[IndexView]:
    # Two filings of the same parties: the agreement and, filed apart, an amendment to it.
    base = _view("maint-1", "Global Maintenance Agreement", ["Azure Air", "Rotor Works"], [
        _node("front", "", "This Global Maintenance Agreement is made between Azure Air and "
              "Rotor Works."),
        _node("20", "Governing Law", "This agreement is governed by the laws of France."),
    ])
    amendment = _view("maint-2", "Amendment No. 1 to the Global Maintenance Agreement",
                      ["Azure Air", "Rotor Works"], [
        _node("front", "", "This Amendment No. 1 is made between Azure Air and Rotor Works."),
        _node("3", "Governing Law", "This amendment is governed by the laws of England."),
    ])
    # Other transactions, so that the two filings' party names are rare enough to route by.
    return [base, amendment, *_views()]


def test_a_question_naming_one_of_two_sibling_instruments_reads_that_one() -> None:
    nav = Navigator(_sibling_views())
    base = ("In the GLOBAL MAINTENANCE AGREEMENT between Azure Air and Rotor Works, which law "
            "governs?")
    amended = ("In the Amendment No. 1 to the Global Maintenance Agreement between Azure Air and "
               "Rotor Works, which law governs?")
    assert nav.router.route(base).documents() == ("maint-1", "maint-2")
    assert nav.route(base).documents() == ("maint-1",)
    # Both titles are written in full here; the longer one is the more specific name.
    assert nav.route(amended).documents() == ("maint-2",)
    assert _chosen(nav, base, 1) == ["maint-1:20"]
    assert _chosen(nav, amended, 1) == ["maint-2:3"]


def test_a_question_naming_neither_title_keeps_both_siblings() -> None:
    nav = Navigator(_sibling_views())
    question = "Between Azure Air and Rotor Works, which law governs?"
    assert nav.route(question).documents() == ("maint-1", "maint-2")


def test_without_the_rule_the_siblings_share_the_route(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(navigator, "NAMED_TITLE", False)
    nav = Navigator(_sibling_views())
    question = ("In the GLOBAL MAINTENANCE AGREEMENT between Azure Air and Rotor Works, which "
                "law governs?")
    assert nav.route(question).documents() == ("maint-1", "maint-2")
