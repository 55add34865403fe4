"""Keywords, summaries and snippets on small texts written for these tests."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.describe import ELLIPSIS, full_summary, snippet, summarise
from pytest_legalbench.navindex.keywords import Rarity, keywords

GOVERNING_LAW = (
    "Section 12.7 Governing Law. This Agreement and any dispute arising under it shall be "
    "governed by the laws of the State of New York, without regard to conflict of law "
    "principles. Capital One, N.A. shall act as agent for the Lenders. The Administrative "
    "Agent may resign upon thirty days' notice to the Borrower."
)

prose = st.text(
    alphabet=st.sampled_from(list("abcdefgh ABCDEFGH 0123 .,;:()\"“”\n\t")), max_size=400,
) | st.text(max_size=200)


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def test_keywords_rank_capitalised_and_defined_terms_first() -> None:
    text = ('"Purchase Price" means the price. The Purchase Price is payable to the Seller. '
            "The Seller ships goods; goods are inspected.")
    found = keywords(text)
    assert found[0] == "purchase price"
    assert "goods" in found and "seller" in found
    assert all(term == term.lower() for term in found)


def test_keywords_drop_stop_words_and_clause_numerals() -> None:
    found = keywords("(iii) the Agreement shall be hereby made pursuant to this Section; (iv) the")
    assert not {"the", "shall", "hereby", "agreement", "pursuant", "iii", "section"} & set(found)


def test_capitalised_runs_split_at_function_words() -> None:
    found = keywords("The Borrower and Such Party shall meet. LIMITATION OF LIABILITY applies "
                     "after a Change of Control.")
    assert {"limitation of liability", "change of control", "borrower"} <= set(found)
    assert not any(" and " in term or term.startswith(("the ", "such ")) for term in found)


def test_keywords_break_ties_by_first_occurrence() -> None:
    assert keywords("zebra apple mango", limit=3) == ("zebra", "apple", "mango")


def test_a_chosen_phrase_displaces_its_own_words() -> None:
    found = keywords("The Event of Default occurs. An Event of Default is serious. default default")
    assert "event of default" in found
    assert "default" not in found


def test_keywords_respect_the_limit_and_title() -> None:
    found = keywords(GOVERNING_LAW, title="Governing Law", limit=3)
    assert len(found) == 3
    assert found[0] == "governing law"
    assert keywords(GOVERNING_LAW, limit=1) == keywords(GOVERNING_LAW, limit=8)[:1]


def test_keywords_use_the_terms_a_caller_passes() -> None:
    text = "the licensed territory covers Canada and the licensed territory grows"
    assert keywords(text, defines=("Licensed Territory",))[0] == "licensed territory"


def test_rarity_weighs_a_word_by_how_few_clauses_use_it() -> None:
    rarity = Rarity.of(["Late payment bears interest.", "Payment is due.",
                        "Payment after notice.", "The notice period."])
    assert rarity.clauses == 4
    assert rarity.weight("payment") == pytest.approx(1 + math.log(4 / 3))   # 1.2877
    assert rarity.weight("late") == pytest.approx(2.386294)
    assert rarity.weight("late payment") == pytest.approx(1.836988)         # the mean
    assert rarity.weight("unseen") == pytest.approx(2.386294)               # as rare as can be


def test_keywords_put_a_word_few_clauses_use_before_one_all_use() -> None:
    text = "payment payment interest"
    assert keywords(text) == ("payment", "interest")
    rarity = Rarity.of([text, "payment due", "payment notice", "payment period"])
    assert keywords(text, rarity=rarity) == ("interest", "payment")


@given(text=prose, title=prose)
def test_keywords_of_a_one_clause_document_ignore_rarity(text: str, title: str) -> None:
    assert keywords(text, title=title, rarity=Rarity.of([text])) == keywords(text, title=title)


def test_summary_drops_the_clause_number_and_heading() -> None:
    summary = summarise(GOVERNING_LAW, title="Governing Law")
    assert summary.startswith("This Agreement and any dispute")
    assert summarise(GOVERNING_LAW) == summary


def test_a_sentence_that_starts_with_the_title_is_kept_whole() -> None:
    text = "Term of this Agreement is five years from signing."
    assert summarise(text, title="Term") == text
    assert summarise("2.1 Term\nThe term is five years.", title="Term") == "The term is five years."


def test_summary_skips_nested_headings() -> None:
    text = ("ARTICLE VII\nEVENTS OF DEFAULT\n\nSection 9.1 Events of Default. Each of the "
            "following is an Event of Default: (a) the Borrower fails to pay.")
    assert summarise(text) == ("Each of the following is an Event of Default: "
                               "(a) the Borrower fails to pay.")


def test_summary_keeps_abbreviations_inside_the_sentence() -> None:
    text = "2.1 Agent. Capital One, N.A. acts as agent for the Lenders. Nothing else applies."
    assert summarise(text, title="Agent") == "Capital One, N.A. acts as agent for the Lenders."


def test_summary_of_a_bare_heading_or_reserved_clause() -> None:
    assert summarise("5.3 [Reserved]") == "[Reserved]"
    assert summarise("") == ""


def test_summary_is_cut_at_a_word_boundary_with_an_ellipsis() -> None:
    summary = summarise(GOVERNING_LAW, title="Governing Law", max_chars=60)
    assert summary.endswith(ELLIPSIS) and len(summary) <= 60
    assert _collapsed(GOVERNING_LAW).find(summary[:-1]) > 0
    assert summary[:-1].split()[-1] in GOVERNING_LAW.split()


def test_full_summary_keeps_the_lead_and_document_order() -> None:
    text = ("The Supplier shall deliver the goods. Weather was fine that day in spring. "
            "Goods delivered by the Supplier are inspected. The Supplier invoices delivered goods.")
    summary = full_summary(text, max_chars=120)
    assert summary.startswith("The Supplier shall deliver the goods.")
    assert "Weather" not in summary
    assert len(summary) <= 120
    assert full_summary(text, max_chars=1000) == _collapsed(text)


def test_full_summary_trims_a_long_lead_sentence() -> None:
    summary = full_summary(GOVERNING_LAW, title="Governing Law", max_chars=50)
    assert summary.endswith(ELLIPSIS) and len(summary) <= 50


def test_snippet_collapses_whitespace_and_cuts_at_a_word() -> None:
    assert snippet("  Payment \n\n terms\tapply.  ") == "Payment terms apply."
    assert snippet("alpha beta gamma delta", max_chars=12) == "alpha beta" + ELLIPSIS
    assert snippet("unbreakableword", max_chars=5) == "unbr" + ELLIPSIS


@pytest.mark.parametrize("call", [
    lambda: snippet("x", max_chars=0),
    lambda: summarise("x", max_chars=0),
    lambda: full_summary("x", max_chars=-3),
    lambda: keywords("x", limit=0),
])
def test_limits_below_one_are_rejected(call: object) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        call()  # type: ignore[operator]


@given(prose, st.integers(min_value=1, max_value=300))
@settings(max_examples=300, deadline=None)
def test_snippet_is_a_bounded_prefix_of_the_collapsed_text(text: str, max_chars: int) -> None:
    cut = snippet(text, max_chars=max_chars)
    assert len(cut) <= max_chars
    body = cut.removesuffix(ELLIPSIS)
    assert _collapsed(text).startswith(body)
    # Short text comes back whole (even text that itself ends in an ellipsis); long text is
    # cut and marked.
    if len(_collapsed(text)) <= max_chars:
        assert cut == _collapsed(text)
    else:
        assert cut.endswith(ELLIPSIS)


@given(prose, st.integers(min_value=1, max_value=300), st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_summaries_are_bounded_and_deterministic(text: str, max_chars: int, title: str) -> None:
    for describe in (summarise, full_summary):
        summary = describe(text, title=title, max_chars=max_chars)
        assert len(summary) <= max_chars
        assert summary == describe(text, title=title, max_chars=max_chars)
        assert "\n" not in summary and summary == summary.strip()


@given(prose, st.text(max_size=30), st.integers(min_value=1, max_value=12))
@settings(max_examples=300, deadline=None)
def test_keywords_are_distinct_lower_case_and_bounded(text: str, title: str, limit: int) -> None:
    found = keywords(text, title=title, limit=limit)
    assert len(found) <= limit
    assert len(set(found)) == len(found)
    assert all(term == term.lower() and term.strip() for term in found)
    assert found == keywords(text, title=title, limit=limit)
