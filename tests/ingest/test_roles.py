"""Inferring roles and amendment links from documents' own words."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.ingest.document import ROLES, Document
from pytest_legalbench.ingest.loading import describe_inference, load_folder
from pytest_legalbench.ingest.roles import (
    infer_role,
    link_amendments,
    link_choices,
    referenced_agreement,
)
from pytest_legalbench.ingest.titles import guess_title

REPO = Path(__file__).resolve().parents[2]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=600))
def test_guess_title_and_infer_role_never_fail(text: str) -> None:
    title = guess_title(text)
    assert "\n" not in title and len(title) <= 310
    assert infer_role(title, text).role in ROLES


_LINE = st.sampled_from([
    "EXHIBIT 10.2", "Execution Copy", "WHEREAS, the parties wish to amend", "SCHEDULE 1",
    "AMENDMENT NO. 3", "TO THE", "SUPPLY AGREEMENT", "This Amendment is made", "- 2 -",
    "Dear Sirs:", "Re: Services Agreement", "CONFORMED COPY", "by and between A and B",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_structured_openings_never_fail(lines: list[str]) -> None:
    text = "\n".join(lines)
    guess = infer_role(guess_title(text), text)
    assert guess.role in ROLES and guess.reason


@pytest.mark.parametrize(
    ("title", "role", "reference"),
    [
        ("Amendment No. 2 to the Distributor Agreement", "amendment", "Distributor Agreement"),
        ("Second Amendment to Revolving Credit Agreement", "amendment",
         "Revolving Credit Agreement"),
        ("AMENDMENT TO THE DISTRIBUTOR AGREEMENT", "amendment", "DISTRIBUTOR AGREEMENT"),
        ("First Amendment to Amended and Restated Credit Agreement", "amendment",
         "Amended and Restated Credit Agreement"),
        ("Addendum to Reseller Agreement", "amendment", "Reseller Agreement"),
        ("Side Letter to the Fund Subscription Agreement", "side_letter",
         "Fund Subscription Agreement"),
        ("Schedule 1 to the Credit Agreement", "schedule", "Credit Agreement"),
        ("Exhibit A", "schedule", None),
        ("Annex B Pricing", "schedule", None),
        ("Disclosure Schedules to Unit Purchase Agreement", "schedule",
         "Unit Purchase Agreement"),
        ("Amended and Restated Credit Agreement", "conformed", None),
        ("Conformed Credit Agreement", "conformed", None),
        ("Annex A to Third Amendment (Conformed Loan Agreement)", "conformed", None),
        ("Credit Agreement, as amended through March 3, 2021", "conformed", None),
        ("Joinder to the Guaranty Agreement", "ancillary", "Guaranty Agreement"),
        ("Supply Agreement", "base", None),
        ("Letter Agreement", "base", None),  # with no agreement named it stands on its own
        ("Consent", "base", None),
    ],
)
def test_infer_role_from_title(title: str, role: str, reference: str | None) -> None:
    guess = infer_role(title, f"{title}\n\nThe parties agree as follows.")
    assert (guess.role, guess.amends_title) == (role, reference)
    assert guess.reason


def test_infer_role_from_opening_text() -> None:
    amendment = infer_role(
        "Agreement",
        "AGREEMENT\n\nThis Amendment is entered into by Alpha Corp and Beta LLC and amends the "
        "Equipment Lease dated March 1, 2015.",
    )
    assert amendment.role == "amendment" and amendment.amends_title == "Equipment Lease"
    conformed = infer_role("Credit Agreement", "CONFORMED COPY\n\nCREDIT AGREEMENT\n...")
    assert conformed.role == "conformed"
    letter = infer_role(
        "Northwind Holdings",
        "Dear Ms. Quill:\n\nReference is made to the Investment Management Agreement between "
        "us. This letter confirms our understanding of the fee waiver.",
    )
    assert letter.role == "side_letter"
    assert letter.amends_title == "Investment Management Agreement"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (("Reference is hereby made to that certain fully executed Catering Services "
          "Agreement dated as of June 1, 2001 between the parties."),
         "Catering Services Agreement"),
        ("The parties previously entered into a Purchase and Sale Agreement (the PSA).",
         "Purchase and Sale Agreement"),
        ("This amendment modifies THE MASTER LEASE between the parties.", "MASTER LEASE"),
        ("Nothing here names an instrument. This Agreement is short.", None),
    ],
)
def test_referenced_agreement(text: str, name: str | None) -> None:
    assert referenced_agreement(text) == name


def doc(path: str, title: str, text: str, role: str, amends: tuple[str, ...] = ()) -> Document:
    doc_id = path.replace("/", "-").removesuffix(".txt")
    return Document(doc_id=doc_id, title=title, text=f"{title.upper()}\n\n{text}", role=role,
                    path=f"/docs/{path}", amends=amends)


ORCHARD = "made between Orchard Growers Cooperative and Riverton Provisions Company."
HALCYON = "made between Halcyon Medical Devices and Quarry Street Logistics."


def test_links_amendments_and_schedules_to_their_agreements() -> None:
    docs = [
        doc("orchard/1.txt", "Supply Agreement", f"This Supply Agreement is {ORCHARD}", "base"),
        doc("orchard/2.txt", "Amendment No. 1", "Reference is made to the Supply Agreement "
            f"{ORCHARD}", "amendment"),
        doc("orchard/3.txt", "Schedule 1 to the Supply Agreement", f"Prices {ORCHARD}",
            "schedule"),
        doc("halcyon/1.txt", "Logistics Services Agreement", f"This Agreement is {HALCYON}",
            "base"),
        doc("halcyon/2.txt", "First Amendment to Logistics Services Agreement", HALCYON,
            "amendment"),
        doc("halcyon/3.txt", "Side Letter", f"Dear Sirs, Re: Logistics Services Agreement "
            f"{HALCYON}", "side_letter", amends=("orchard-1",)),
    ]
    linked = {d.doc_id: d.amends for d in link_amendments(docs)}
    assert linked == {
        "orchard-1": (), "orchard-2": ("orchard-1",), "orchard-3": ("orchard-1",),
        "halcyon-1": (), "halcyon-2": ("halcyon-1",),
        "halcyon-3": ("orchard-1",),  # links a document already has are kept as they are
    }
    choices = link_choices(docs)
    assert set(choices) == {"orchard-2", "orchard-3", "halcyon-2", "halcyon-3"}
    assert 'refers to "Supply Agreement"' in choices["orchard-2"].reason
    assert choices["halcyon-3"].target == "halcyon-1"  # what inference alone would pick


def test_same_folder_wins_and_ties_are_not_guessed() -> None:
    shared = "made between Orchard Growers Cooperative and Riverton Provisions Company."
    docs = [
        doc("a/1.txt", "Storage Agreement", shared, "base"),
        doc("b/1.txt", "Storage Agreement", shared, "base"),
        doc("b/2.txt", "Amendment to Storage Agreement", shared, "amendment"),
        doc("c/1.txt", "Amendment to Storage Agreement", shared, "amendment"),
    ]
    choices = link_choices(docs)
    assert choices["b-2"].target == "b-1"
    assert "same folder" in choices["b-2"].reason
    assert choices["c-1"].target is None
    assert "a-1" in choices["c-1"].reason and "b-1" in choices["c-1"].reason


def test_unrelated_documents_are_not_linked() -> None:
    docs = [
        doc("1.txt", "Supply Agreement", f"This Supply Agreement is {ORCHARD}", "base"),
        doc("2.txt", "Office Lease", f"This Office Lease is {HALCYON}", "base"),
        doc("3.txt", "Amendment to Supply Agreement", HALCYON, "amendment"),
    ]
    choice = link_choices(docs)["3"]
    assert choice.target is None
    assert "Supply Agreement" in choice.reason
    # With nothing to compare, the only base document in a folder is taken ...
    alone = [docs[0], doc("9.txt", "Amendment No. 1", "The parties agree.", "amendment")]
    assert link_choices(alone)["9"].target == "1"
    # ... but not when the agreement named is a different one.
    other = [docs[1], doc("9.txt", "Amendment to Supply Agreement", "Agreed.", "amendment")]
    assert link_choices(other)["9"].target is None


_TITLES = st.sampled_from([
    "Supply Agreement", "Amendment to Supply Agreement", "Schedule A", "Office Lease",
    "First Amendment to Office Lease", "Side Letter", "Amendment No. 2", "Credit Agreement",
])
_PARTIES = st.sampled_from([ORCHARD, HALCYON, "made by the parties."])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), _TITLES, _PARTIES,
                          st.sampled_from(ROLES), st.booleans()), min_size=1, max_size=8))
def test_links_only_attach_documents_to_targets(
    specs: list[tuple[str, str, str, str, bool]]
) -> None:
    docs = []
    for index, (folder, title, parties, role, preset) in enumerate(specs):
        amends = (f"{folder}-x",) if preset else ()
        docs.append(doc(f"{folder}/{index}.txt", title, parties, role, amends))
    by_id = {d.doc_id: d for d in docs}
    for before, after in zip(docs, link_amendments(docs), strict=True):
        assert (after.doc_id, after.role, after.title) == (before.doc_id, before.role, before.title)
        if before.amends or before.role not in ("amendment", "side_letter", "schedule",
                                                "ancillary"):
            assert after.amends == before.amends
        else:
            assert len(after.amends) <= 1
            for target in after.amends:
                assert target != after.doc_id
                assert by_id[target].role in ("base", "conformed")
    lines = describe_inference(docs)
    assert [line.split(":", 1)[0] for line in lines] == [d.doc_id for d in docs]


@pytest.mark.corpus
def test_transactions_as_a_bare_folder_match_the_manifest(corpus_root: Path) -> None:
    documents = {d.doc_id: d for d in load_folder(corpus_root / "transactions")}
    manifest = yaml.safe_load((REPO / "corpus" / "transactions.yaml").read_text("utf-8"))
    expected = {e["doc_id"]: (e["role"], tuple(e.get("amends") or ())) for e in
                manifest["documents"]}
    assert {i: (d.role, d.amends) for i, d in documents.items()} == expected
    assert documents["stonepoint-02_revolving_credit_agreement_conformed"].role == "conformed"
    for amendment, base in [
        ("netgear-02_amendment_1996-10-01", "netgear-01_distributor_agreement_1996"),
        ("netgear-03_amendment_no2_1998-07-15", "netgear-01_distributor_agreement_1996"),
        ("glufox-03_amendment_no2_2006-03-27",
         "glufox-01_wireless_content_license_agreement_12965_2004"),
        ("stonepoint-01_second_amendment", "stonepoint-02_revolving_credit_agreement_conformed"),
    ]:
        assert documents[amendment].role == "amendment"
        assert documents[amendment].amends == (base,)
    assert documents["netgear-02_amendment_1996-10-01"].title == (
        "Amendment to the Distributor Agreement")
    assert documents["guerrilla-01_unit_purchase_agreement"].title == "Unit Purchase Agreement"
