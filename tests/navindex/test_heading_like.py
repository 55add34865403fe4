"""The independent heading detector the parser's heading recall is measured against."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.navindex.heading_like import (
    classify_line,
    heading_like_lines,
    inline_heading_like,
    plain,
    table_rows,
)


@pytest.mark.parametrize(("line", "kind"), [
    ("1. Term of Engagement", "numbered"),
    ("2.1 \"Affiliate\" means any person", "numbered"),
    ("10.3.2 Notices", "numbered"),
    ("4) (a) the Seller", "numbered"),
    ("1.20 ctDNA", "numbered"),
    ("ARTICLE IV", "keyword"),
    ("Section 2.03. Payments", "keyword"),
    ("SECTION 7", "keyword"),
    ("Exhibit B-1", "keyword"),
    ("Schedule 3 | Permitted Liens", "keyword"),
    ("§ 12 Governing Law", "keyword"),
    ("(a) the Buyer shall pay", "lettered"),
    ("(iv) no Default exists", "lettered"),
    ("(B) Interest Period", "lettered"),
    ("A. Purchase Price", "lettered"),
])
def test_heading_like_openings(line: str, kind: str) -> None:
    assert classify_line(line) == kind


@pytest.mark.parametrize("line", [
    "Section 2 of the Agreement is amended to read as follows:",
    "Exhibit A, attached hereto, sets out the schedule.",
    "12 months after the Closing Date",
    "2023 was a good year for the Company.",
    "1. the first item in lower case",
    "5.5 million shares were issued",
    "The Borrower shall pay interest monthly.",
    "$1,000,000 of principal",
])
def test_prose_is_not_heading_like(line: str) -> None:
    assert classify_line(line) is None


def test_a_label_alone_on_its_line_opens_the_heading_after_it() -> None:
    text = "1.\n\nEmployment Term. The term.\n\na.\n\nPosition.\n\n2.\n\nthe lower case\n\n7\n\nPage"
    found = [(f.kind, text[f.start:f.end]) for f in heading_like_lines(text)]
    assert found == [("numbered", "1."), ("lettered", "a.")]


def test_the_filing_exhibit_number_is_not_a_heading() -> None:
    assert classify_line("Exhibit 10.1") is None
    assert classify_line("EXHIBIT 10.27.2") is None
    assert classify_line("Exhibit 10.1 SUPPLY AGREEMENT", first=True) is None
    assert classify_line("Exhibit 10.1 SUPPLY AGREEMENT") == "keyword"
    assert classify_line("Exhibit A", first=True) == "keyword"
    text = "Exhibit 99.1 Cooperation Agreement\n\n1. Term. One year.\n\nExhibit 2.1\n"
    assert [f.kind for f in heading_like_lines(text)] == ["numbered"]


def test_unicode_spaces_and_dashes_are_read_plainly() -> None:
    text = "intro\n\u00a0\u00a0Section\u202f5.2\u2007Fees\n7.\u2003Term\u2014Renewal\n"
    found = list(heading_like_lines(text))
    assert [(f.kind, text[f.start:f.end]) for f in found] == [
        ("keyword", "Section\u202f5.2\u2007Fees"), ("numbered", "7.\u2003Term\u2014Renewal")]


@given(st.text())
def test_plain_keeps_every_offset(text: str) -> None:
    flat = plain(text)
    assert len(flat) == len(text)
    assert [i for i, c in enumerate(flat) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"]


def test_table_rows_need_two_filled_cells() -> None:
    text = "Term | Value\n | only one |\nplain line\n  Rate | 5% | fixed\n"
    assert [text[s:e] for s, e in table_rows(text)] == ["Term | Value", "Rate | 5% | fixed"]


def test_a_lines_own_heading_printed_twice_is_not_an_in_line_heading() -> None:
    running = "The Borrower shall pay interest on each Loan at the rate set out here. " * 7
    line = f"SECTION 1.03. SECTION 1.03. Terms Generally. {running}Section 1.04 Other Terms. More"
    found = list(inline_heading_like(line))
    assert [line[h.start:h.start + 12] for h in found] == ["Section 1.04"]
