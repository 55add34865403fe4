"""When the extractive answer to a yes/no question opens with "Yes": the question's form, the
share of what it asks that the passages hold, and negations that deny it."""

from __future__ import annotations

import pytest

from pytest_legalbench.reference_backend.answering import Passage, answer_from
from pytest_legalbench.reference_backend.lexical import stem
from pytest_legalbench.reference_backend.polarity import (
    affirms,
    asks_yes_or_no,
    negated_terms,
    predicate_share,
    predicate_terms,
)


@pytest.mark.parametrize(("question", "expected"), [
    ("Does the agreement cap the supplier's liability?", True),
    ("Is the licence exclusive?", True),
    ("May either party terminate for convenience?", True),
    ("Under the Supply Agreement, does the buyer have a right of first refusal?", True),
    ("What is the governing law?", False),
    ("When does the lease expire?", False),
    ("Which party may assign, and is consent needed?", False),
    ("", False),
])
def test_a_yes_or_no_question_opens_with_an_auxiliary(question: str, expected: bool) -> None:
    assert asks_yes_or_no(question) is expected


def test_a_negator_denies_the_first_content_word_after_it() -> None:
    assert negated_terms("This licence is non-exclusive.") == {stem("exclusive")}
    assert negated_terms("The rights shall not be assignable by the Licensee.") == {
        stem("assignable")}
    # A negation with an exception after it is a condition, not a denial.
    # ("without" still denies the word after it.)
    assert negated_terms("The Licensee shall not assign without the consent of Licensor.") \
        == {stem("consent")}
    assert negated_terms("Nothing here is negated.") == set()


def test_the_predicate_is_what_the_question_writes_in_lower_case() -> None:
    question = "Does the Supply Agreement between Northwind Foods and Ostara Mills cap liability?"
    assert predicate_terms(question) == {stem("cap"), stem("liability")}
    # The opening of a contract names the parties and the instrument, not the clause asked for.
    opening = ["This Supply Agreement is made between Northwind Foods Inc. and Ostara Mills."]
    assert predicate_share(question, opening) == 0.0
    clause = ["The liability cap of either party is the fees paid."]
    assert predicate_share(question, clause) == pytest.approx(1.0)
    assert predicate_share("Is Acme Beta?", ["anything"]) == 1.0  # nothing asked in lower case


def test_a_yes_needs_a_yes_no_question_passages_that_hold_it_and_no_denial() -> None:
    question = "Is the licence granted by Acme Corp exclusive?"
    assert affirms(question, ["Acme Corp grants an exclusive licence to the Licensee."])
    assert not affirms(question, ["Acme Corp grants a non-exclusive licence to the Licensee."])
    assert not affirms(question, ["This Agreement is made by Acme Corp."])  # the opening only
    assert not affirms(question, [])
    assert not affirms("Which licence does Acme Corp grant?",
                       ["Acme Corp grants an exclusive licence."])


def test_a_question_about_a_restriction_is_affirmed_by_the_restriction() -> None:
    question = "Does the agreement restrict assignment by the distributor?"
    passage = ["The distributor shall not assign this agreement; any assignment is void."]
    assert affirms(question, passage)
    negative = "Can a party terminate without cause?"
    assert affirms(negative, [("Either party may terminate this agreement without cause on "
                               "notice.")])


def test_the_answer_opens_with_yes_only_when_the_passages_affirm() -> None:
    passage = Passage(doc_id="lic", clause="§2", text="Acme Corp grants the Licensee an "
                                                     "exclusive licence in the Territory.",
                      order=0)
    affirmed = answer_from("Is the licence granted by Acme Corp exclusive?", [passage])
    assert affirmed.startswith("Yes. ")
    assert "[lic] §2" in affirmed
    plain = answer_from("Which licence does Acme Corp grant in the Territory?", [passage])
    assert not plain.startswith("Yes") and "[lic] §2" in plain
