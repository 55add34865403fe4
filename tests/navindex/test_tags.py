"""Document tags: governing-law jurisdiction and topics, on written texts and the real corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.tags import TOPIC_VOCABULARY, jurisdiction, topics


@pytest.mark.parametrize(("text", "place"), [
    (("This Agreement shall be governed by and construed in accordance with the laws of the "
      "State of New York."), "New York"),
    ("This Agreement is governed by the laws of England and Wales.", "England and Wales"),
    ("Delaware law shall govern this Agreement.", "Delaware"),
    ("This Agreement shall be construed under the laws of the Commonwealth of Massachusetts.",
     "Massachusetts"),
    (("This Agreement shall be governed by the laws of Ontario and the federal laws of Canada "
      "applicable therein."), "Ontario"),
    (("THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF TEXAS WITHOUT REGARD TO "
      "CONFLICT OF LAWS PRINCIPLES."), "Texas"),
    (("This Agreement shall be governed by the laws, other than choice of law rules, of the "
      "state of Florida."), "Florida"),
    (("This Agreement is made in the State of Nevada and shall be governed by and construed in "
      "accordance with the laws thereof."), "Nevada"),
    (("This Agreement shall be governed by the laws of the United States and the State of "
      "Georgia."), "Georgia"),
    ("Governing Law. The laws of the Province of British Columbia apply to this Agreement.",
     "British Columbia"),
    ("This Agreement shall be governed by English law.", "England"),
    ("THIS AGREEMENT IS GOVERNED BY THE LAWS OF THE PEOPLE'S REPUBLIC OF CHINA.",
     "People's Republic of China"),
    ("İ. This Agreement is governed by the laws of Japan.", "Japan"),
])
def test_jurisdiction_from_the_governing_law_clause(text: str, place: str) -> None:
    assert jurisdiction(text) == place


@pytest.mark.parametrize("text", [
    "Acme Inc., a Delaware corporation, and Beta LLC agree as follows.",
    "The Company is organized under the laws of the State of Delaware.",
    "Each order is governed by this Agreement.",
    "Patents shall be construed under the patent laws of the United States.",
    "",
])
def test_no_jurisdiction_without_a_governing_law_clause(text: str) -> None:
    assert jurisdiction(text) is None


def test_a_clause_about_the_agreement_outweighs_an_earlier_mention() -> None:
    text = ("Counsel's opinion is limited to matters governed by the laws of Tennessee. "
            "This Agreement shall be construed in accordance with the laws of the State of "
            "New York.")
    assert jurisdiction(text) == "New York"


def test_topics_follow_the_subject_matter() -> None:
    credit = ("The Lenders agree to make Loans to the Borrower under this revolving credit "
              "facility. Each Loan bears interest; the Borrower repays each Loan on the "
              "Maturity Date and grants the Lenders collateral.")
    assert topics(credit)[0] == "credit facility"
    licence = ("Licensor grants Licensee a license to the Licensed Property. Licensee pays "
               "royalties on each sublicense.")
    assert topics(licence)[0] == "license"
    assert topics("The weather was fine.") == ()


def test_the_title_weighs_in_and_limits_hold() -> None:
    text = "The Distributor resells products and pays an invoice for each payment."
    assert topics(text, title="Distributor Agreement")[0] == "distribution"
    assert len(topics(text, title="Supply and Distribution Agreement", limit=1)) == 1
    with pytest.raises(ValueError, match="limit"):
        topics(text, limit=0)


@given(st.text(max_size=400), st.text(max_size=40))
@settings(max_examples=200, deadline=None)
def test_tags_are_deterministic_and_never_crash(text: str, title: str) -> None:
    labels = {label for label, _, _ in TOPIC_VOCABULARY}
    found = topics(text, title=title)
    assert found == topics(text, title=title)
    assert set(found) <= labels and len(found) <= 6 and len(set(found)) == len(found)
    assert jurisdiction(text) == jurisdiction(text)


@pytest.mark.corpus
def test_stone_point_credit_agreement_is_governed_by_new_york_law(corpus_root: Path) -> None:
    path = corpus_root / "transactions/stonepoint/02_revolving_credit_agreement_conformed.txt"
    text = path.read_text(encoding="utf-8")
    assert jurisdiction(text) == "New York"
    assert topics(text, title="Revolving Credit Agreement")[0] == "credit facility"


@pytest.mark.corpus
def test_netgear_distributor_agreement_is_governed_by_california_law(corpus_root: Path) -> None:
    # Section 19: "... is governed by the laws of the State of California except that body of
    # law dealing with conflicts of law"; the preamble's "organized under the laws of the State
    # of Delaware" is incorporation, not a choice of law.
    path = corpus_root / "transactions/netgear/01_distributor_agreement_1996.txt"
    text = path.read_text(encoding="utf-8")
    assert jurisdiction(text) == "California"
    assert "distribution" in topics(text, title="Distributor Agreement")
