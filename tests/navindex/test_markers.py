"""Recognising the numbering that opens a line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.navindex.headings import split_title
from pytest_legalbench.navindex.markers import classify, letter_value, roman_value


@pytest.mark.parametrize(
    ("line", "kind", "number", "title"),
    [
        ("ARTICLE VII", "article", (7,), ""),
        ("Article 3. Payment Terms", "article", (3,), "Payment Terms"),
        ("Section 2.01(b) Fees. The Borrower shall pay", "section", (2, 1), "Fees"),
        ("SECTION 5. Term.", "section", (5,), "Term"),
        ("§ 5 Notices", "section", (5,), "Notices"),
        ("2.1 The Commitment. Subject to the terms", "decimal2", (2, 1), "The Commitment"),
        ("12.3.4 Audit Rights", "decimal3", (12, 3, 4), "Audit Rights"),
        ("7. WARRANTIES", "decimal1", (7,), "WARRANTIES"),
        ("2.1 | Closing.", "decimal2", (2, 1), "Closing"),
        ("(a) Committed Amount. Each Lender agrees", "paren_lower", (1,), "Committed Amount"),
        ("(iv) the conditions precedent", "paren_roman", (4,), ""),
        ("(B) any other Person", "paren_upper", (2,), ""),
        ("(3) Reports: monthly", "paren_digit", (3,), "Reports"),
        ("EXHIBIT A", "schedule", (), ""),
        ("Schedule 3.1(c) | Conflicts", "schedule", (), "Conflicts"),
        ("IN WITNESS WHEREOF, the parties", "signature", (), "Signatures"),
        ("TABLE OF CONTENTS", "toc_heading", (), "Table of Contents"),
        ("RECITALS:", "recitals", (), "Recitals"),
        ("WHEREAS, the Company wishes", "whereas", (), ""),
        ("B. The Lenders are willing", "dot_upper", (2,), ""),
    ],
)
def test_markers_recognised(line: str, kind: str, number: tuple[int, ...], title: str) -> None:
    marker = classify(line)
    assert marker is not None, line
    assert (marker.kind, marker.number, marker.title) == (kind, number, title)


@pytest.mark.parametrize(
    "line",
    [
        "Section 2 of the Agreement is hereby amended",  # prose about a section
        "30 days after the Closing Date",  # a wrapped number
        "1996. The parties agree",  # a year, not a clause
        "Exhibit 10.1",  # the SEC exhibit number of the filing
        "Exhibit A attached hereto sets out the Properties and everything else we need here",
        "(c) ",  # a bare marker with nothing after it
        "The Borrower shall pay",
    ],
)
def test_prose_is_not_a_marker(line: str) -> None:
    marker = classify(line)
    assert marker is None


def test_ambiguous_letter_offers_both_readings() -> None:
    marker = classify("(i) after giving effect")
    assert marker is not None
    assert (marker.kind, marker.alternative) == ("paren_lower", "paren_roman")
    assert (marker.number, marker.alternative_number) == ((9,), (1,))


@pytest.mark.parametrize(("numeral", "value"), [("i", 1), ("iv", 4), ("ix", 9), ("xiv", 14),
                                                ("XXXIX", 39), ("iiii", None), ("vx", None)])
def test_roman_values(numeral: str, value: int | None) -> None:
    assert roman_value(numeral) == value


def test_letter_values() -> None:
    assert [letter_value(x) for x in ("a", "z", "aa", "bb", "ab")] == [1, 26, 27, 28, None]


def test_titles_are_headings_not_sentences() -> None:
    assert split_title("Defined Terms. For the purposes") == "Defined Terms"
    assert split_title("the Borrower shall repay the Loans on the Maturity Date.") == ""
    assert split_title("[Reserved].") == "[Reserved]"


@given(st.text(max_size=200))
def test_classify_never_crashes(line: str) -> None:
    marker = classify(line)
    assert marker is None or 0 <= marker.body_offset <= len(line)


_MARKER_TEXT = st.lists(st.sampled_from(
    [*" \t|.:;()-–—§\"“[\n\xa0", *"aivxAIVXZ019", "ARTICLE ", "Section ", "EXHIBIT ",
     "TABLE OF CONTENTS", "RECITALS", "WHEREAS", "Defined Terms"]), max_size=16).map("".join)


@given(st.text(max_size=20), _MARKER_TEXT, _MARKER_TEXT)
def test_classifying_at_a_position_reads_as_the_rest_would(prefix: str, line: str,
                                                           tail: str) -> None:
    # A long line is classified at each of its breaks by position, never by a copy of its rest.
    text = prefix + line + tail
    assert classify(text, len(prefix)) == classify(line + tail)
    assert split_title(text, len(prefix)) == split_title(line + tail)


@pytest.mark.parametrize(
    ("line", "label", "title", "body"),
    [
        ("SECTION 1.03. SECTION 1.03. Terms Generally. The terms", "SECTION 1.03",
         "Terms Generally", 28),
        ("(a) (a) Each Borrowing shall", "(a)", "", 8),
        ("ARTICLE II ARTICLE II", "ARTICLE II", "", 21),
        # Not a repeat: another number, or the same one cited in running words.
        ("Section 2.1 Interest. Section 2.1 applies", "Section 2.1", "Interest", 12),
        ("(a) (i) the Borrower", "(a)", "", 4),
    ],
)
def test_a_marker_printed_twice_is_read_past(line: str, label: str, title: str,
                                             body: int) -> None:
    marker = classify(line)
    assert marker is not None
    assert (marker.label, marker.title, marker.body_offset) == (label, title, body)


def test_a_name_in_lower_case_opens_a_numbered_heading_but_a_word_of_prose_does_not() -> None:
    named = classify("  1.20 ctDNA Platform")
    assert named is not None and (named.kind, named.number, named.title) == (
        "decimal2", (1, 20), "ctDNA Platform")
    assert classify("8.1   eBix shall receive all page views") is not None
    assert classify("5.5 million shares were issued") is None
    assert classify("2.1 days after notice") is None
