"""Explicit cross-references: what they name and which instrument they point into."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.navindex.references import find_references, instrument_names

BASE = instrument_names(["Credit Agreement"], [])
AMENDMENT = instrument_names(["Amendment"], ["Credit Agreement"], has_parent=True)


def _refs(text: str, instrument: object = BASE) -> list[tuple[tuple[str, ...], str]]:
    return [(r.keys, r.target) for r in find_references(text, instrument)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as set out in Section 2.01(b) hereof", [(("2.1(b)",), "self")]),
        ("Sections 3.01 through 3.10", [(("3.1", "3.10"), "self")]),
        ("under Sections 2.1, 2.3 and 2.5(a)", [(("2.1", "2.3", "2.5(a)"), "self")]),
        ("see Section 2.1(b)(i) and (ii)", [(("2.1(b)(i)", "2.1(b)(ii)"), "self")]),
        ("see § 5 and clause 12.3(b)", [(("5",), "self"), (("12.3(b)",), "self")]),
        ("see Paragraph 2(a)(i) below", [(("2(a)(i)",), "self")]),
        ("in accordance with Article VII", [(("article:7",), "self")]),
        ("listed on Exhibit A and Schedule 3.1(c)", [(("exhibit:a",), "self"),
                                                     (("schedule:3.1(c)",), "self")]),
        ("as filed as Exhibit 10.1 to the 8-K", []),
        ("Section 5.2 of this Agreement", [(("5.2",), "self")]),
        ("Section 5.2 of the Credit Agreement", [(("5.2",), "self")]),
        # Limitation clauses are often printed in capitals, lists without spaces.
        ("BREACH OF SECTIONS 6.C AND 12,13 OR 17, IN NO EVENT",
         [(("6(C)", "12", "13", "17"), "self")]),
        ("SECTIONS 4 THROUGH 7", [(("4", "7"), "self")]),
        # A lettered subsection written after a dot is keyed as the outline keys it.
        ("under Section 3.2.A hereof", [(("3.2(A)",), "self")]),
        ("Section 6. Customers shall", [(("6",), "self")]),
    ],
)
def test_internal_references(text: str, expected: list[tuple[tuple[str, ...], str]]) -> None:
    assert _refs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a plan within Section 3(42) of ERISA",
        "prohibited under Section 4975 of the Internal Revenue Code",
        "registered under Section 12(b) or 12(g) of the Exchange Act",
        "as defined in 29 C.F.R. §2510.3-101(d)(5)",
        "pursuant to 6 Del. C. § 17-502(b)",
        "subject to Section 4.2 of the Guaranty",
    ],
)
def test_named_outside_statutes_and_instruments_are_external(text: str) -> None:
    targets = {r.target for r in find_references(text, BASE)}
    assert targets == {"external"}


def test_a_chain_shares_the_statute_named_at_its_end() -> None:
    text = "as defined in Section 4001(a)(15) and in Section 4001(a)(3) of ERISA"
    assert [r.target for r in find_references(text, BASE)] == ["external", "external"]


def test_an_amendment_points_into_the_amended_instrument() -> None:
    assert _refs("Section 2 of the Agreement is amended", AMENDMENT) == [(("2",), "parent")]
    assert _refs("Section 1.1 of the Credit Agreement", AMENDMENT) == [(("1.1",), "parent")]
    assert _refs("Section 3 of this Amendment", AMENDMENT) == [(("3",), "self")]
    assert _refs("Section 3 of the Securities Act", AMENDMENT) == [(("3",), "external")]


def test_a_base_document_calls_itself_the_agreement() -> None:
    assert _refs("Section 2 of the Agreement") == [(("2",), "self")]


@given(st.text(max_size=300))
def test_never_crashes(text: str) -> None:
    for reference in find_references(text, BASE):
        assert reference.keys and reference.target in ("self", "parent", "external")
