"""The reference backend's own reading of what GANDR sends: blocks, claims, citation markers,
reference kinds and figures (written apart from GANDR's checks, so tested on their own)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.gandr.wire import BLOCK_LABELS
from pytest_legalbench.reference_backend.grading import closeness
from pytest_legalbench.reference_backend.markers import (
    cited_ids,
    find_markers,
    has_marker,
    marker_text,
    unresolved_ids,
    without_corpus_prefix,
    without_markers,
)
from pytest_legalbench.reference_backend.memo_reading import Block, claims, split_blocks
from pytest_legalbench.reference_backend.reference_reading import (
    figure,
    is_single_provision,
    reference_kind,
)

MEMO = """Preamble the reader skips.
[CONCLUSION]
Yes, within 10 days.

[RULE]
Section 3.1 {cite: supply:3.1}.
  [explanation]  The period runs from each order. {cite: supply:3.1}
[APPLICATION]
See [RULE] above; a [NOTE] label is text.
[NOTE]
still the application
[CONCLUSION]
Yes, within 10 days."""


# -- blocks ---------------------------------------------------------------------------------
def test_blocks_are_read_in_order_with_their_stripped_text() -> None:
    assert split_blocks(MEMO) == (
        Block("CONCLUSION", "Yes, within 10 days."),
        Block("RULE", "Section 3.1 {cite: supply:3.1}."),
        Block("EXPLANATION", "The period runs from each order. {cite: supply:3.1}"),
        Block("APPLICATION", "See [RULE] above; a [NOTE] label is text.\n[NOTE]\n"
                             "still the application"),
        Block("CONCLUSION", "Yes, within 10 days."),
    )


def test_text_without_labels_has_no_blocks() -> None:
    assert split_blocks("") == ()
    assert split_blocks("A plain answer that cites [RULE] mid-line.") == ()
    assert split_blocks("[CONCLUSION]") == (Block("CONCLUSION", ""),)


_BODY = st.text(st.characters(blacklist_characters="[]"), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BLOCK_LABELS), _BODY), max_size=7))
def test_joined_blocks_split_back_into_every_label_and_its_text(
        written: list[tuple[str, str]]) -> None:
    memo = "".join(f"[{label}]\n{body}\n" for label, body in written)
    assert split_blocks(memo) == tuple(Block(label, body.strip()) for label, body in written)


# -- claims ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("", ()),
    ("The Supplier delivers. The Buyer pays.", ("The Supplier delivers.", "The Buyer pays.")),
    ("It delivers {cite: a:1}. It pays {cite: a:2}", ("It delivers {cite: a:1}.",
                                                     "It pays {cite: a:2}")),
    # A run of markers ends the claim once, with the punctuation after it.
    ("Both agree {cite: a:1}, {cite: a:2}; then more", ("Both agree {cite: a:1}, {cite: a:2};",
                                                       "then more")),
    # Markers alone after a sentence end join the claim before them.
    ("The fee is due. {cite: a:1}", ("The fee is due. {cite: a:1}",)),
    ("{cite: a:1} opens it", ("{cite: a:1}", "opens it")),
    # No split after an abbreviation, initials, a lone lower-case letter, or before a digit.
    ("Acme Inc. The Buyer pays.", ("Acme Inc. The Buyer pays.",)),
    ("Under U.S. Law it pays.", ("Under U.S. Law it pays.",)),
    ("Smith v. Jones Ltd holds.", ("Smith v. Jones Ltd holds.",)),
    ("See Sec. 4 and No. 2 at 1.5 days.", ("See Sec. 4 and No. 2 at 1.5 days.",)),
    # A lone capital may end a sentence; so may a closing quote or bracket.
    ("It is in Exhibit B. The Buyer signs.", ("It is in Exhibit B.", "The Buyer signs.")),
    ('He said "stop." "Then" it ended.', ('He said "stop."', '"Then" it ended.')),
    ("It ends (as agreed.) Then more.", ("It ends (as agreed.)", "Then more.")),
    # Lower case after a stop continues the claim.
    ("Fees apply; see below.", ("Fees apply; see below.",)),
    # List items and blank lines end claims; bullets go.
    ("The Buyer shall:\n- pay the fee;\n2. sign the form\n(c) return it",
     ("The Buyer shall:", "pay the fee;", "sign the form", "(c) return it")),
    ("First point\n\nSecond point", ("First point", "Second point")),
    # Punctuation alone is no claim.
    (". ; ?", ()),
])
def test_claims(text: str, expected: tuple[str, ...]) -> None:
    assert claims(text) == expected


def test_a_boundary_inside_a_marker_does_not_cut() -> None:
    text = "It holds. {cite: doc:1. The; doc:2\n\n- x} Next one."
    assert claims(text) == ("It holds. {cite: doc:1. The; doc:2\n\n- x}", "Next one.")


_CLAIM_TEXT = st.lists(st.one_of(
    st.sampled_from(["The Buyer pays", ". ", "; ", "? ", "\n", "\n\n", "- ", "1. ", ", ",
                     "Inc. ", "e.g. ", "(a) ", '"', ")", "{cite: a:1}", "{ CITE : b; corpus:c }",
                     "{cite:}", "{", "}", "[RULE]\n"]),
    st.text(max_size=8)), max_size=16).map("".join)


@settings(max_examples=300, deadline=None)
@given(_CLAIM_TEXT)
def test_every_marker_lands_in_exactly_one_claim(text: str) -> None:
    found = claims(text)
    assert sum(len(find_markers(claim)) for claim in found) == len(find_markers(text))
    assert all(claim and claim in text and claim == claim.strip() for claim in found)


# -- markers --------------------------------------------------------------------------------
def test_markers_are_read_with_their_ids() -> None:
    text = "A {cite: a:1} B {  CITE :corpus:b:2 ; ; c:3 } C {cite a:4} D {cite: x{y} E {cite:}"
    assert [m.ids for m in find_markers(text)] == [("a:1",), ("b:2", "c:3"), ()]
    assert cited_ids(text) == ["a:1", "b:2", "c:3"]
    assert without_markers(text) == "A   B   C {cite a:4} D {cite: x{y} E  "
    assert without_markers("x{cite: a}y", "") == "xy"
    assert has_marker("{cite:a}") and not has_marker("{cite a}") and not has_marker("cite: a")


def test_the_corpus_prefix_is_dropped_once() -> None:
    assert without_corpus_prefix("  Corpus: doc:2.1 ") == "doc:2.1"
    assert without_corpus_prefix("corpus:corpus:x") == "corpus:x"
    assert without_corpus_prefix("doc:corpus:x") == "doc:corpus:x"


def test_unresolved_ids_name_each_missing_id_once() -> None:
    draft = "A {cite: a:1} B {cite: z:9} C {cite: corpus:z:9; a:1} D {cite: } E {cite: ;}"
    assert unresolved_ids(draft, ["corpus:a:1", "b:2", ""]) == ["z:9", ""]
    assert unresolved_ids("no markers at all", ["a:1"]) == []


_ID = st.text(st.characters(blacklist_characters="{};", blacklist_categories=("Zs", "Cc")),
              min_size=1, max_size=12).filter(
                  lambda i: i == i.strip() and not i.lower().startswith("corpus:"))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID, min_size=1, max_size=4), st.text(st.characters(
    blacklist_characters="{}"), max_size=20))
def test_a_written_marker_reads_back_its_ids(ids: list[str], around: str) -> None:
    [marker] = find_markers(f"{around}{marker_text(ids)}{around}")
    assert marker.ids == tuple(ids)
    assert find_markers(marker_text(f"corpus:{i}" for i in ids))[0].ids == tuple(ids)


# -- reference kinds and figures -------------------------------------------------------------
@pytest.mark.parametrize(("reference", "kind"), [
    ("Yes", "yes-no"), ("no.", "yes-no"), (" TRUE! ", "yes-no"), ("False", "yes-no"),
    ("Section 12.3", "provision"), ("§ 4", "provision"), ("Clause 7(b).", "provision"),
    ("Article IV", "provision"), ("Sec. 4", "provision"), ("Schedule A", "provision"),
    ("28 U.S.C. § 1332", "provision"), ("17 C.F.R. § 240.10b-5", "provision"),
    ("$1,000,000", "figure"), ("10 days", "figure"), ("12.5%", "figure"),
    ("Yes. The cap applies.", "other"), ("Section 4.2 of the Agreement", "other"),
    ("§§ 1331 and 1332", "other"), ("30-60 days", "other"), ("", "other"),
    ("The documents do not address this.", "other"),
])
def test_reference_kind(reference: str, kind: str) -> None:
    assert reference_kind(reference) == kind


def test_a_run_of_capitals_is_refused_quickly() -> None:
    assert not is_single_provision("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ x § 4")


@pytest.mark.parametrize(("text", "value"), [
    ("$1,000,000", Decimal(1000000)), ("$1.01 million", Decimal(1010000)), ("3%", Decimal(3)),
    ("10 days", Decimal(10)), ("USD 3,390.50", Decimal("3390.50")),
    ("3,390.50 USD.", Decimal("3390.50")), ("12.5 per cent", Decimal("12.5")),
    ("-$5", Decimal(-5)), ("−5%", Decimal(-5)), (".5", Decimal("0.5")), ("US$ 7", Decimal(7)),
    ("4 thousand", Decimal(4000)),
])
def test_figure_reads_one_figure(text: str, value: Decimal) -> None:
    assert figure(text) == value


@pytest.mark.parametrize("text", [
    "", "$", "about $5", "3,39", "1,0000", "$3 and $4", "5 to 6", "$5%", "USD 5 EUR", "1.2.3",
    "1,000,000 shares of stock", "XYZ 5",
])
def test_figure_refuses_anything_else(text: str) -> None:
    assert figure(text) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-10**12, max_value=10**12), st.sampled_from(
    ["{:,}", "${:,}", "{} days", "{}%", "EUR {}"]))
def test_a_written_whole_number_reads_back(number: int, form: str) -> None:
    written = form.format(abs(number))
    assert figure(("-" if number < 0 else "") + written) == number


@pytest.mark.parametrize(("expected", "given", "score"), [
    ("1000", "1000.00", 5), ("1000", "1010", 4), ("1000", "1010.01", 3), ("1000", "900", 3),
    ("1000", "1100.01", 2), ("1000", "100", 2), ("1000", "99", 1), ("1000", "-1000", 1),
    ("0", "0", 5), ("0", "1", 1),
])
def test_closeness_bands(expected: str, given: str, score: int) -> None:
    assert closeness(Decimal(expected), Decimal(given)) == score
