"""The provision tree built from legal numbering, on small documents written for the tests."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.draft import Draft
from pytest_legalbench.navindex.outline import build_outline

CREDIT = """SAMPLE LOAN AGREEMENT

TABLE OF CONTENTS

ARTICLE I | DEFINITIONS | 1
Section 1.1 | Defined Terms | 1
Section 1.2 | Interpretation | 3
ARTICLE II | LOANS | 4
Section 2.1 | Commitment | 4

THIS LOAN AGREEMENT is made by Acme Bank (the “Lender”) and Widget Co. (the “Borrower”).

ARTICLE I

DEFINITIONS

Section 1.1 Defined Terms. In this Agreement:

“Business Day” means a day on which banks in New York are open.

“Maximum Amount” means $5,000,000, subject to Section 2.1(b).

"Loan Party" means the Borrower and (a) each Guarantor; and (b) each Subsidiary.

Section 1.2 Interpretation. Headings are for convenience only.

ARTICLE II

LOANS

Section 2.1 Commitment.

(a) Amount. The Lender agrees to lend up to the Maximum Amount.

(b) Conditions. No loan is made unless:

(i) no Default exists; and

(ii) the representations in Section 1.2 are true.

(c) Repayment. The Borrower repays each loan within 30 days.

IN WITNESS WHEREOF, the parties sign below.

EXHIBIT A

FORM OF NOTICE

The Borrower requests a loan.
"""


def _by_local(drafts: tuple[Draft, ...]) -> dict[str, Draft]:
    return {d.local_id: d for d in drafts}


def _path(draft: Draft) -> list[str]:
    names = []
    node: Draft | None = draft
    while node is not None:
        names.append(node.local_id)
        node = node.parent
    return names[::-1]


def test_hierarchy_follows_the_numbering() -> None:
    nodes = _by_local(build_outline(CREDIT).drafts)
    assert _path(nodes["2.1(b)(ii)"]) == ["root", "art-2", "2.1", "2.1(b)", "2.1(b)(ii)"]
    assert (nodes["2.1(b)(ii)"].kind, nodes["2.1(b)(ii)"].stack_key) == ("subclause", "paren_roman")
    assert nodes["2.1(c)"].parent is nodes["2.1"]
    assert nodes["art-1"].title == "DEFINITIONS"
    assert nodes["1.1"].title == "Defined Terms"
    assert nodes["exhibit-a"].parent is nodes["root"]
    assert nodes["exhibit-a"].title == "FORM OF NOTICE" and nodes["exhibit-a"].full_reference == "exhibit:a"
    assert nodes["signatures"].parent is nodes["root"]


def test_each_defined_term_is_its_own_node_with_its_sub_clauses() -> None:
    nodes = _by_local(build_outline(CREDIT).drafts)
    definitions = [d for d in nodes.values() if d.kind == "definition"]
    assert [d.defines for d in definitions] == [["Business Day"], ["Maximum Amount"], ["Loan Party"]]
    assert all(d.parent is nodes["1.1"] for d in definitions)
    assert nodes["def-maximum-amount"].title == "Maximum Amount"


def test_table_of_contents_entries_are_flagged_not_provisions() -> None:
    outline = build_outline(CREDIT)
    entries = [d for d in outline.drafts if d.kind == "toc_entry"]
    assert len(entries) == 5 and all(d.is_toc_entry for d in entries)
    assert all(d.parent is not None and d.parent.kind == "toc" for d in entries)
    # The real sections are the ones after the contents, never the listed entries.
    real = _by_local(outline.drafts)["1.1"]
    assert CREDIT[real.start:].startswith("Section 1.1 Defined Terms.")
    (start, end), = outline.toc_spans
    assert CREDIT[start:end].startswith("TABLE OF CONTENTS") and real.start > end


def test_spans_are_verbatim_and_leaves_tile_the_text() -> None:
    outline = build_outline(CREDIT)
    leaves = sorted((d for d in outline.drafts if not d.children), key=lambda d: d.start)
    for earlier, later in itertools.pairwise(leaves):
        assert earlier.end <= later.start
        assert not CREDIT[earlier.end:later.start].strip()
    assert not CREDIT[:leaves[0].start].strip() and not CREDIT[leaves[-1].end:].strip()


def test_parent_heading_text_gets_a_lead_in_leaf() -> None:
    nodes = _by_local(build_outline(CREDIT).drafts)
    lead = nodes["2.1(b)-intro"]
    assert lead.kind == "lead_in" and lead.parent is nodes["2.1(b)"]
    assert CREDIT[lead.start:lead.end] == "(b) Conditions. No loan is made unless:"


def test_wrapped_numbers_and_out_of_sequence_letters_stay_in_the_text() -> None:
    text = ("1. Term. This Agreement runs for\n30 days. Either party may end it.\n\n"
            "2. Fees. Fees are due\n(q) as invoiced.\n\n3. Law. New York law governs.\n")
    nodes = build_outline(text).drafts
    assert [d.local_id for d in nodes if d.kind == "section"] == ["1", "2", "3"]
    assert not any(d.label == "(q)" for d in nodes)


def test_enumerated_lists_inside_sections_do_not_become_sections() -> None:
    text = ("Section 1. Scope. The services are:\n1. Consulting;\n2. Training.\n\n"
            "Section 2. Price. The price is fixed.\n")
    nodes = _by_local(build_outline(text).drafts)
    assert nodes["1(1)"].stack_key == "num_list" and nodes["1(1)"].parent is nodes["1"]
    assert nodes["2"].parent is nodes["root"]


def test_roman_and_letter_readings_follow_the_sequence() -> None:
    text = "\n".join(f"({c}) item {c}." for c in "abcdefghij") + "\n"
    nodes = build_outline(text).drafts
    assert [d.stack_key for d in nodes if d.kind == "subclause"] == ["paren_lower"] * 10
    text = "(a) First.\n(i) one;\n(ii) two;\n(b) Second.\n"
    kinds = {d.label: d.stack_key for d in build_outline(text).drafts if d.kind != "lead_in"}
    assert kinds == {"(a)": "paren_lower", "(i)": "paren_roman", "(ii)": "paren_roman",
                     "(b)": "paren_lower", "": "document"}


def test_unnumbered_text_falls_back_to_headings_and_paragraphs() -> None:
    text = ("CONSULTING LETTER\n\nWe are pleased to engage you.\n\nFEES\n\n"
            "You will be paid monthly.\n\nPlease sign below.\n")
    nodes = build_outline(text).drafts
    headings = [d for d in nodes if d.kind == "section"]
    assert [h.title for h in headings] == ["CONSULTING LETTER", "FEES"]
    paragraphs = [d for d in nodes if d.kind == "paragraph"]
    assert [p.parent for p in paragraphs] == [headings[0], headings[1], headings[1]]


_LINES = st.sampled_from([
    "ARTICLE I", "ARTICLE II", "Section 1.1 Terms.", "Section 1.2 Other.", "1. Scope", "2. Fees",
    "2.1 Amount.", "(a) first;", "(b) second;", "(i) one", "(ii) two", "EXHIBIT A",
    "“Term” means a thing.", "TABLE OF CONTENTS", "WHEREAS, the parties agree", "A. The Lender",
    "IN WITNESS WHEREOF", "plain words here", "  indented text  ", "", "Section 2 of the Agreement",
    # Contents entries with page numbers, a signature line and running text.
    "ARTICLE I | DEFINITIONS | 1", "ARTICLE II | LOANS | 4", "ARTICLE III | DEFAULTS | 9",
    "CONTENTS", "By: /s/ Jane Roe", "the parties agree that each of them shall " * 6,
])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_LINES, st.text(max_size=40)), max_size=40))
def test_spans_hold_for_any_document(lines: list[str]) -> None:
    _assert_spans_hold("\n".join(lines))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINES, max_size=12), st.lists(st.sampled_from(
           ["AMENDED CREDIT AGREEMENT", "[See attached]", "plain words here", "EXHIBIT B"]),
           max_size=4), st.lists(_LINES, max_size=16))
def test_spans_hold_when_a_cover_stands_above_a_contents_list(
        before: list[str], cover: list[str], body: list[str]) -> None:
    # An attachment's label and cover above a contents heading, after signatures, with
    # anything before, in and after them.
    text = "\n".join([*before, "IN WITNESS WHEREOF", "By: /s/ Jane Roe", "EXHIBIT A", *cover,
                      "TABLE OF CONTENTS", "ARTICLE I | DEFINITIONS | 1", "ARTICLE II | LOANS | 4",
                      "ARTICLE III | DEFAULTS | 9", *body])
    _assert_spans_hold(text)


def _assert_spans_hold(text: str) -> None:
    """Ids are unique, children sit inside their parents, leaves never overlap, and every
    visible character is in a leaf."""
    outline = build_outline(text)
    ids = [d.local_id for d in outline.drafts]
    assert len(ids) == len(set(ids))
    for draft in outline.drafts:
        assert 0 <= draft.start <= draft.end <= len(text)
        for child in draft.children:
            assert draft.start <= child.start and child.end <= draft.end
    leaves = sorted((d for d in outline.drafts if not d.children), key=lambda d: d.start)
    for earlier, later in itertools.pairwise(leaves):
        assert earlier.end <= later.start
    covered = "".join(text[d.start:d.end] for d in leaves)
    outside_toc = [c for c in covered if not c.isspace()]
    assert len(outside_toc) == sum(1 for c in text if not c.isspace())


LICENSE = """CONTENT LICENSE AGREEMENT

This Agreement is made between Alpha Ltd ("Licensor") and Beta Inc ("Licensee").

RECITALS:

WHEREAS, Licensor owns certain film rights; and

WHEREAS, Licensee wishes to develop games based on them.

NOW, THEREFORE, in consideration of the promises below, the parties agree as follows:

1. DEFINITIONS. Terms used here have the meanings below.

2. GRANT. Licensor grants Licensee a licence to the film rights.

3. TERM. This Agreement runs for three years.
"""


def test_recitals_end_at_the_words_of_agreement() -> None:
    nodes = _by_local(build_outline(LICENSE).drafts)
    # The numbered provisions after "NOW, THEREFORE" are the agreement, siblings of the
    # recitals, though no ARTICLE heading outranks them.
    assert [nodes[n].parent is nodes["root"] for n in ("recitals", "1", "2", "3")] == [True] * 4
    assert [d.kind for d in nodes["recitals"].children].count("recital") == 2
    assert "NOW, THEREFORE" in LICENSE[nodes["recitals"].start:nodes["recitals"].end]
    # Without the words of agreement nothing says where the recitals end: ranks decide.
    plain = _by_local(build_outline(LICENSE.replace(
        "NOW, THEREFORE, in consideration of the promises below, the parties agree as follows:",
        "The parties record the following.")).drafts)
    assert plain["1"].parent is plain["recitals"]
