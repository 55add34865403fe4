"""Key facts from CUAD answers, and contract names: each fact kept only where the text states it."""

from __future__ import annotations

import pytest

from pytest_legalbench.spans.contract_names import (
    contract_name,
    display_title,
    distinct_names,
    listed,
    usable_parties,
)
from pytest_legalbench.spans.cuad_facts import (
    date_facts,
    duration_facts,
    expiry_facts,
    jurisdiction_facts,
    party_facts,
    title_facts,
)


@pytest.mark.parametrize(("answer", "evidence", "facts"), [
    ("6/21/99", "made on June 21, 1999", ("June", "21", "1999")),
    ("6/21/99", "this 21st day of June, 1999", ("June", "21", "1999")),
    ("6/21/99", "dated 6/21/1999", ("21", "1999")),
    ("12/31/06", "until December 31, 2006", ("December", "31", "2006")),
    ("[]/[]/2020", "entered into in 2020", ("2020",)),
])
def test_dates_give_the_parts_the_text_states(answer: str, evidence: str,
                                              facts: tuple[str, ...]) -> None:
    assert date_facts(answer, evidence).facts == facts


@pytest.mark.parametrize(("answer", "evidence", "problem"), [
    ("6/21/00", "three years after the Effective Date", "the year 2000 is not in"),
    ("[]/[]/[]", "undated", "not a date CUAD's format gives"),
    ("03/[]/2018", "March 2018", "not a date CUAD's format gives"),
])
def test_dates_the_text_does_not_state_are_reported(answer: str, evidence: str,
                                                    problem: str) -> None:
    result = date_facts(answer, evidence)
    assert result.facts == () and problem in result.problem


@pytest.mark.parametrize(("answer", "evidence", "facts"), [
    ("successive 1 year", "for successive one (1) year periods", ("1", "year")),
    ("successive 1 year", "for successive one year periods", ("one", "year")),
    ("90 days", "at least ninety (90) days before", ("90", "day")),
    ("60) days", "sixty (60) days' notice", ("60", "day")),
    ("6 months; 12 months", "six (6) months or twelve (12) months", ("6", "month", "12")),
    ("perpetual", "renews in perpetuity, perpetual unless terminated", ("perpetual",)),
])
def test_durations_give_number_and_unit(answer: str, evidence: str,
                                        facts: tuple[str, ...]) -> None:
    assert duration_facts(answer, evidence).facts == facts


def test_durations_without_a_stated_number_are_reported() -> None:
    assert "1 is not in the annotated text" in duration_facts(
        "successive 1 year", "renews for additional annual periods").problem
    assert "no number of days" in duration_facts("[]", "renews").problem


def test_expiry_is_a_date_or_perpetual() -> None:
    assert expiry_facts("Perpetual", "a perpetual licence").facts == ("perpetual",)
    assert expiry_facts("12/31/06", "ends December 31, 2006").facts == (
        "December", "31", "2006")
    assert "does not say 'perpetual'" in expiry_facts("perpetual", "until terminated").problem


@pytest.mark.parametrize(("answer", "evidence", "facts"), [
    ("New York", "the laws of the State of New York", ("New York",)),
    ("Ontario, Canada", "the laws of the Province of Ontario", ("Ontario",)),
    ("England; Wales", "the laws of England and Wales", ("England", "Wales")),
])
def test_jurisdictions_named_in_the_text(answer: str, evidence: str,
                                         facts: tuple[str, ...]) -> None:
    assert jurisdiction_facts(answer, evidence).facts == facts


def test_titles_and_parties_must_be_in_the_text() -> None:
    assert title_facts("SUPPLY  AGREEMENT", "This Supply Agreement").facts == (
        "SUPPLY AGREEMENT",)
    assert title_facts("LICENSE", "Services Agreement").problem
    assert party_facts(["Beta Inc.", "Gamma"], "Beta Inc. and Delta").facts == ("Beta Inc.",)
    assert party_facts(["Gamma"], "Beta").problem


def test_display_titles_read_as_prose() -> None:
    assert display_title("CO-BRANDING AND ADVERTISING AGREEMENT") == \
        "Co-Branding and Advertising Agreement"
    assert display_title("GLOBAL MAINTENANCE AGREEMENT (") == "Global Maintenance Agreement"
    assert display_title("AMENDMENT NO. 2 TO THE U.S. AGREEMENT") == \
        "Amendment No. 2 to the U.S. Agreement"
    assert display_title("Joint Venture Agreement") == "Joint Venture Agreement"


def test_parties_are_names_without_their_short_forms() -> None:
    parties = ['I-ESCROW, INC. ("i-Escrow" )', '2THEMART.COM, INC. ("2TheMart")',
               '(the "Parties" or "Joint Venturers")', "Each of the foregoing parties is a Party",
               "[ * * * ]", "i-escrow, inc."]
    assert usable_parties(parties) == ("I-ESCROW, INC.", "2THEMART.COM, INC.")


def test_contract_names() -> None:
    assert contract_name("SUPPLY AGREEMENT", ["Alpha Ltd. (\"Alpha\")", "Beta Inc."]) == \
        "the Supply Agreement between Alpha Ltd. and Beta Inc."
    assert contract_name("The Master Agreement", ["Alpha Ltd."], "June 1, 2019") == \
        "The Master Agreement of Alpha Ltd., dated June 1, 2019"
    assert listed(["A", "B", "C", "D", "E"]) == "A, B and 3 other parties"
    assert listed(["A"]) == "A"


def test_names_that_coincide_are_dated_or_dropped() -> None:
    names = {"a": "the Sponsorship Agreement", "b": "the Sponsorship Agreement",
             "c": "the Supply Agreement", "d": "the Licence", "e": "the Licence"}
    dates = {"a": "the Sponsorship Agreement dated May 1, 2019",
             "b": "the Sponsorship Agreement dated May 2, 2019",
             "c": "unused", "d": "the Licence dated May 3, 2019",
             "e": "the Licence dated May 3, 2019"}
    chosen = distinct_names(list(names), names.get, dates.get)
    assert chosen == {"a": dates["a"], "b": dates["b"], "c": "the Supply Agreement",
                      "d": None, "e": None}
