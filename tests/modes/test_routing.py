"""Routing a question to the transaction it names, on two small transactions and the real set."""

from __future__ import annotations

import pytest

from pytest_legalbench.modes.routing import (
    OFF_ROUTE,
    Router,
    asked_names,
    asks_about_instrument,
    flag_boost,
    name_words,
    party_words,
    question_flags,
    routed_first,
)
from pytest_legalbench.navindex.node import Flags, Node
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    SUPPLY,
    SUPPLY_AMENDMENT,
    two_deal_corpus,
)


@pytest.fixture(scope="module")
def router() -> Router:
    corpus = two_deal_corpus()
    return Router.of_corpus(corpus.indexes, corpus.documents)


def test_name_words_leave_out_roles_instruments_and_short_numbers() -> None:
    assert name_words("the Supply Agreement between Northwind Foods Inc. and the Buyer") == {
        "northwind", "foods"}
    assert name_words("Agreement No. 12965 of 2004") == {"12965", "2004"}


def test_only_words_written_with_a_capital_name_anything() -> None:
    assert asked_names("What notice does Northwind give under the cap?") == {"northwind"}
    assert asked_names("Are the rights to Ice Age 2 exclusive?") == {"ice", "age"}


def test_a_party_routes_to_its_whole_transaction(router: Router) -> None:
    route = router.route("When must Northwind Foods pay an invoice?")
    assert route.routed and route.families == ((SUPPLY, SUPPLY_AMENDMENT),)
    assert route.words == ("foods", "northwind")
    assert route.weight(SUPPLY) == route.weight(SUPPLY_AMENDMENT) == 1.0
    assert route.weight(LEASE) == route.weight(LEASE_AMENDMENT) == OFF_ROUTE
    assert "northwind named supply, supply-amendment-1" in route.note()


def test_a_route_carries_the_words_of_its_documents_parties(router: Router) -> None:
    # "Inc" and "GmbH" route nothing, yet they are words of the parties' names: a question
    # that capitalises them is naming a party, not asking about a subject.
    route = router.route("When must Northwind Foods pay an invoice?")
    assert route.parties == {"northwind", "foods", "inc", "ostara", "mills", "gmbh"}
    # Stop words ("the", "party", "thereto") and single letters ("N.A.") name nothing.
    assert party_words(["The Lenders party thereto", "Acme Bank, N.A."]) == {
        "lenders", "acme", "bank"}
    assert not router.route("What is the monthly rent?").parties


def test_a_question_naming_nothing_keeps_every_document_in_scope(router: Router) -> None:
    route = router.route("What is the monthly rent and when is it due?")
    assert not route.routed and route.weight(LEASE) == route.weight(SUPPLY) == 1.0
    assert "names no document" in route.note()
    assert routed_first([SUPPLY, LEASE], route) == [SUPPLY, LEASE]


def test_a_question_naming_both_transactions_routes_to_both(router: Router) -> None:
    route = router.route("Compare what Harbour Cranes and Ostara Mills must deliver.")
    assert {f[0] for f in route.families} == {LEASE, SUPPLY}
    assert routed_first([LEASE_AMENDMENT, SUPPLY], route) == [LEASE_AMENDMENT, SUPPLY]


def test_routing_works_on_names_given_directly() -> None:
    router = Router.of_identities({"a": {"acme"}, "a2": {"acme"}, "b": {"beta"}},
                                  {"a2": ("a",)})
    assert router.route("Does Acme owe Beta anything?").families[0] in (("a", "a2"), ("b",))
    assert router.route("What does Acme owe?").families == (("a", "a2"),)
    assert router.route("What is owed?").families == ()


def test_question_words_ask_for_flags() -> None:
    assert question_flags("How much is the fee, and when is it due?") == ("has_money", "has_date")
    assert question_flags('What does "Delivery Point" mean?') == ("is_definition",)
    assert question_flags("Is there a 5% discount?") == ("has_percentage",)
    money = Node("d:1", "d", "section", "1", "", 0, 1, "x", flags=Flags(has_money=True))
    assert flag_boost(money, ("has_money", "has_date")) == 1.25
    assert flag_boost(money, ()) == 1.0


@pytest.mark.corpus
def test_every_question_of_the_real_set_routes_to_its_documents(
        transactions_corpus: object) -> None:
    from pytest_legalbench.files.locations import question_sets_dir
    from pytest_legalbench.ingest.questions import load_question_set

    corpus = transactions_corpus
    router = Router.of_corpus(corpus.indexes, corpus.documents)  # type: ignore[attr-defined]
    for question in load_question_set(question_sets_dir() / "transactions"):
        route = router.route(question.question)
        assert set(question.documents) <= set(route.documents()), question.id
        # One transaction at a time: every question of the set names exactly its own.
        assert len(route.families) == 1, (question.id, route.families)


def test_questions_about_who_made_an_instrument_and_when_are_recognised() -> None:
    assert asks_about_instrument("Who are the parties to the Distributor Agreement?")
    assert asks_about_instrument("What is the effective date of Amendment No. 2?")
    assert asks_about_instrument("On what date was the licence entered into?")
    assert not asks_about_instrument("What is the royalty rate for wireless products?")
    assert not asks_about_instrument("Can the licensee assign its rights?")
