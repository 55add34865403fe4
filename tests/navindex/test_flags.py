"""Flags on small texts written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.flags import extract_flags
from pytest_legalbench.navindex.node import Flags

# Text made of the characters the rules care about, so properties meet quotes, digits and
# currency signs often rather than almost never.
legal_text = st.text(
    alphabet=st.sampled_from(list('abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ '
                                  '0123456789 .,;:()[]*%$€/-\'"“”‘’\n\t')),
    max_size=300,
) | st.text(max_size=200)


@pytest.mark.parametrize("text", [
    "The fee is $1,000 per month.",
    "a price of $[***] per unit",
    "the Purchase Price ($[*]) shall be paid",
    "US$5 million in cash",
    "an amount of USD 2,000",
    "a fee of EUR 500",
    "a deposit of €300",
    "a balance of 300 € at closing",
    "£25 per licence",
    "five hundred thousand dollars",
    "Ten Dollars ($10.00) and other consideration",
    "a payment of [***] dollars",
    "2,500 U.S. dollars",
])
def test_money_is_found(text: str) -> None:
    assert extract_flags(text).has_money


@pytest.mark.parametrize("text", [
    "Section 5 applies.",
    "All payments shall be made in U.S. Dollars.",
    "See clause 3.2(b) and Schedule 4.",
    "the percentage of shares",
])
def test_money_is_not_found(text: str) -> None:
    assert not extract_flags(text).has_money


@pytest.mark.parametrize("text", [
    "dated as of December 29, 2020",
    "effective 12/29/2020",
    "on 2020-12-29 the term begins",
    "this 29th day of December, 2020",
    "in March 2021",
    "within thirty (30) days after notice",
    "no later than the tenth day",
    "not less than 10 Business Days before",
    "on or before the closing",
    "for a period of two years",
    "by 5:00 p.m. (New York time)",
    "on the Maturity Date",
    "upon each anniversary of the Effective Date",
])
def test_dates_and_deadlines_are_found(text: str) -> None:
    assert extract_flags(text).has_date


@pytest.mark.parametrize("text", [
    "Section 3.2 governs.",
    "The Licensee may assign this licence.",
    "payable in accordance with clause 7",
    "during daylight hours",
])
def test_dates_are_not_found(text: str) -> None:
    assert not extract_flags(text).has_date


@pytest.mark.parametrize("text", [
    "a discount of 5%",
    "five percent of net sales",
    "ten per cent of the price",
    "the Applicable Margin plus 25 basis points",
    "interest at 3.5% per annum",
    "a royalty of [***]% of Net Sales",
    "the interest rate then in effect",
])
def test_percentages_and_rates_are_found(text: str) -> None:
    assert extract_flags(text).has_percentage


@pytest.mark.parametrize("text", ["1.5", "Section 1.5 applies", "the rate card is attached"])
def test_percentages_are_not_found(text: str) -> None:
    assert not extract_flags(text).has_percentage


@pytest.mark.parametrize("text", [
    "In no event shall either party be liable for lost profits.",
    "LIMITATION OF LIABILITY",
    "The aggregate liability of the Supplier shall not exceed the fees paid.",
    "neither party is responsible for consequential damages",
    "subject to a cap on liability equal to the fees",
    "The Seller shall not be liable for delays.",
    "replacement is the sole and exclusive remedy of the Buyer",
])
def test_liability_limits_are_found(text: str) -> None:
    assert extract_flags(text).has_liability_limit


@pytest.mark.parametrize("text", [
    "The Seller shall be liable for its own acts.",
    "Each party shall maintain liability insurance.",
    "liquidated damages of one week's fees",
])
def test_liability_limits_are_not_found(text: str) -> None:
    assert not extract_flags(text).has_liability_limit


@pytest.mark.parametrize("text", [
    "subject to Section 4",
    "provided that the notice is in writing",
    "provided, however, that no default exists",
    "the conditions precedent set out below",
    "If the Borrower fails to pay, the Lender may accelerate.",
    "unless otherwise agreed",
    "in the event that the Licensee breaches",
    "upon the occurrence of an Event of Default",
    "contingent upon regulatory approval",
    "so long as no default is continuing",
])
def test_conditions_are_found(text: str) -> None:
    assert extract_flags(text).has_condition


@pytest.mark.parametrize("text", [
    "Taxes, if any, shall be borne by the Buyer.",
    "treated as if it were a party",
    "the specified goods shall be delivered",
    "If to the Company: 1 Main Street",
])
def test_conditions_are_not_found(text: str) -> None:
    assert not extract_flags(text).has_condition


def test_named_parties_match_case_sensitively_as_whole_words() -> None:
    parties = ("NETGEAR", "Distributor")
    assert extract_flags("NETGEAR shall ship the Products.", parties=parties).has_party
    assert extract_flags("as agreed with the Distributor", parties=parties).has_party
    assert not extract_flags("netgear products", parties=parties).has_party
    assert not extract_flags("NETGEARS and distributors", parties=parties).has_party
    # Given names replace the generic roles.
    assert not extract_flags("the Licensee shall pay", parties=parties).has_party


def test_party_names_that_extend_one_another() -> None:
    parties = ("Acme", "Acme Group", "Acme Group Holdings")
    assert extract_flags("Acme Grou", parties=parties).has_party
    assert extract_flags("the Acme Group Holdings board", parties=parties).has_party
    assert not extract_flags("AcmeGroup", parties=parties).has_party


@given(legal_text, legal_text, st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4))
@settings(max_examples=300, deadline=None)
def test_a_named_party_standing_alone_is_found(before: str, after: str, names: list[str]) -> None:
    name = names[0].strip()
    text = f"{before} {name} {after}"
    flags = extract_flags(text, parties=tuple(names))
    assert flags == extract_flags(text, parties=tuple(names))
    assert flags.has_party or not name


def test_generic_party_roles_apply_without_named_parties() -> None:
    assert extract_flags("The Licensee shall pay the Licensor.").has_party
    assert extract_flags("each of the Lenders").has_party
    assert extract_flags("the Parties agree").has_party
    assert not extract_flags("the licensee shall pay").has_party
    assert not extract_flags("a third-party supplier").has_party


def test_definition_and_toc_flags() -> None:
    assert extract_flags('"Affiliate" means any controlled entity.').is_definition
    assert extract_flags("no terms here", defines=True).is_definition
    assert not extract_flags("the Affiliate shall comply").is_definition
    assert extract_flags("Section 1 Definitions 5", is_toc_entry=True).is_toc_entry
    assert not extract_flags("Section 1 Definitions 5").is_toc_entry


def test_plain_text_gets_no_flags() -> None:
    assert extract_flags("The goods shall be delivered to the warehouse.") == Flags()


@given(legal_text)
@settings(max_examples=300, deadline=None)
def test_flags_are_deterministic_and_never_crash(text: str) -> None:
    assert extract_flags(text) == extract_flags(text)
    assert extract_flags(text, defines=True).is_definition
    assert extract_flags(text, is_toc_entry=True).is_toc_entry


@given(legal_text)
@settings(max_examples=300, deadline=None)
def test_long_texts_get_the_same_flags_as_short_ones(text: str) -> None:
    # Long texts are scanned by substring search, short ones by one regex pass.
    filler = "z " * 1100
    assert extract_flags(f"{filler}{text} {filler}") == extract_flags(text)
