"""Inline definitions and definition heads on small texts written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.defined_terms import (
    defines_term,
    definition_head,
    find_inline_definitions,
)
from pytest_legalbench.navindex.flags import extract_flags

# Text made of the characters the rules care about, so properties meet quotes, digits and
# currency signs often rather than almost never.
legal_text = st.text(
    alphabet=st.sampled_from(list('abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ '
                                  '0123456789 .,;:()[]*%$€/-\'"“”‘’\n\t')),
    max_size=300,
) | st.text(max_size=200)


@pytest.mark.parametrize(("text", "terms"), [
    ('"Account Bank" means the bank named below.', ("Account Bank",)),
    ("“Affiliate” of any Person means a controlled entity.", ("Affiliate",)),
    ('"Agent-Related Person" has the meaning given in Section 9.', ("Agent-Related Person",)),
    ('"Loans" and "Loan" mean the advances.', ("Loans", "Loan")),
    ("“Convert,” “Conversion,” and “Converted” shall refer to a conversion.",
     ("Convert", "Conversion", "Converted")),
    ('As used herein, the term "Products" includes spare parts.', ("Products",)),
    ("‘Business Day’ means a day on which banks open.", ("Business Day",)),
    ('This agreement (the "Agreement") is made by Acme Ltd. (“Supplier”).',
     ("Agreement", "Supplier")),
    ('the banks (each, a "Lender" and collectively, the "Lenders")', ("Lender", "Lenders")),
    ('Beta Inc. (hereinafter referred to as "Buyer")', ("Buyer",)),
    ('labels (marked "Confidential") and quotes such as "Robots"', ()),
    ('"Term" means one year. The "Term" means more. "Fee" means money.', ("Term", "Fee")),
])
def test_find_inline_definitions(text: str, terms: tuple[str, ...]) -> None:
    assert find_inline_definitions(text) == terms


@pytest.mark.parametrize(("text", "term"), [
    ('"Account Bank" means the bank.', "Account Bank"),
    ("“Affiliate” of any Person means another Person.", "Affiliate"),
    ('  "Agent-Related Person" has the meaning set forth in Section 9.3.', "Agent-Related Person"),
    ('(a) "Net Sales" shall mean gross sales less returns.', "Net Sales"),
    ("1.4 “Territory” means the United States.", "Territory"),
    ("(j) the term “documents” includes any instrument.", "documents"),
    ("“SOFR Day” is defined in the definition of “Daily SOFR”.", "SOFR Day"),
])
def test_definition_head_finds_the_leading_term(text: str, term: str) -> None:
    assert definition_head(text) == term


@pytest.mark.parametrize("text", [
    'The Borrower agrees that "Account Bank" means the bank.',
    "Affiliate means a controlled entity.",
    '"Robots" and other titles are listed below.',
    "",
])
def test_definition_head_is_none_unless_the_text_starts_with_a_definition(text: str) -> None:
    assert definition_head(text) is None


@given(legal_text)
@settings(max_examples=300, deadline=None)
def test_inline_definitions_are_distinct_terms_of_the_text(text: str) -> None:
    terms = find_inline_definitions(text)
    collapsed = " ".join(text.split())
    assert len(set(terms)) == len(terms)
    assert all(term and term in collapsed for term in terms)
    head = definition_head(text)
    assert head is None or head in terms
    assert defines_term(text) == bool(terms)
    assert extract_flags(text).is_definition == bool(terms)
