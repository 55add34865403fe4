"""HTML to text: block structure, table rows, hidden content, entities; and the real exhibits."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.html_text import html_to_text

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*[\s/>]")


def test_paragraphs_become_lines_separated_by_one_blank_line() -> None:
    source = "<p>First   clause\n continues.</p>\n\n\n<p>Second.</p><p> </p><p>Third.</p>"
    assert html_to_text(source) == "First clause continues.\n\nSecond.\n\nThird."


def test_nested_divs_and_inline_markup() -> None:
    source = (
        "<div><div>ARTICLE <b>I</b></div><div>Section 1.1 <u>Definitions</u>."
        "<div>(a) nested</div>tail</div></div>"
    )
    assert html_to_text(source) == "ARTICLE I\n\nSection 1.1 Definitions.\n\n(a) nested\n\ntail"


def test_br_and_headings_break_lines() -> None:
    source = "<h2>Schedule A</h2>Acme Corp.<br>12 Main Street<BR/>Springfield"
    assert html_to_text(source) == "Schedule A\n\nAcme Corp.\n\n12 Main Street\n\nSpringfield"


def test_entities_are_unescaped_and_nbsp_becomes_a_space() -> None:
    source = (
        "<p>Smith&nbsp;&amp;&nbsp;Jones &lt;b&gt; &#147;Agreement&#148; "
        "Party&#8217;s\u00a0\u00a0share &sect;2</p>"
    )
    text = html_to_text(source)
    assert text == "Smith & Jones <b> \u201cAgreement\u201d Party\u2019s share \u00a72"
    assert "\u00a0" not in text


def test_script_style_head_title_and_comments_are_dropped() -> None:
    source = (
        "<html><head><title>EX-10.1</title><style>p { color: red }</style>"
        "<script>var x = '<p>no</p>';</script></head><body><!-- hidden note -->"
        "<p>Visible.</p><script type='text/javascript'>alert(1)</script></body></html>"
    )
    assert html_to_text(source) == "Visible."


def test_unclosed_head_ends_at_body() -> None:
    assert html_to_text("<head><title>Cover<body><p>Kept text.</p>") == "Kept text."


def test_table_row_is_one_line_with_filled_cells_joined() -> None:
    source = (
        "<table><tr><th>Section</th><th>Title</th><th>Page</th></tr>"
        "<tr><td>Section 2.1</td><td></td><td>&nbsp;</td><td>The <b>Commitment</b></td>"
        "<td>35</td></tr></table><p>After.</p>"
    )
    assert html_to_text(source) == (
        "Section | Title | Page\n\nSection 2.1 | The Commitment | 35\n\nAfter."
    )


def test_blocks_inside_a_cell_stay_on_the_row_line() -> None:
    source = (
        "<table><tr><td><p>By:</p></td>"
        "<td><p>/s/ Jane Roe</p><p>Name: Jane Roe</p>Title: CFO<br>Acme</td></tr></table>"
    )
    assert html_to_text(source) == "By: | /s/ Jane Roe Name: Jane Roe Title: CFO Acme"


def test_row_with_one_filled_cell_keeps_its_blocks() -> None:
    # Filers wrap whole documents in one-cell layout tables; their paragraphs must survive.
    source = "<table><tr><td>&nbsp;</td><td><p>ARTICLE I</p><p>Terms.</p></td></tr></table>"
    assert html_to_text(source) == "ARTICLE I\n\nTerms."


def test_unclosed_cells_rows_and_tables_are_closed() -> None:
    source = "<p>Before<table><tr><td>a<td>b<tr><td>c<td>d"
    assert html_to_text(source) == "Before\n\na | b\n\nc | d"


def test_nested_table_inside_a_cell() -> None:
    source = (
        "<table><tr><td>Outer</td><td><table><tr><td>x</td><td>y</td></tr></table></td></tr>"
        "</table>"
    )
    assert html_to_text(source) == "Outer | x | y"


def test_preformatted_text_keeps_its_lines() -> None:
    source = '<pre>\n  1.  DEFINITIONS\n\n\n  1.1   "Term" means\n        a thing.\n</pre><p>x</p>'
    assert html_to_text(source) == '1.  DEFINITIONS\n\n1.1   "Term" means\na thing.\n\nx'


def test_an_invisible_text_layer_keeps_its_printed_line_breaks() -> None:
    # Page-image filings carry their text in white one-point type, each line break as spaces.
    layer = ('<div><img src="p1.jpg"><div><font size="1" style="font-size:1pt;color:white">'
             "  12  ACME-DOCS 4411.2  SECTION 2.01.  Loans.  The Lender shall lend\n"
             "up to  $5,000,000.    (a) Each Loan is due</font></div></div>")
    assert html_to_text(layer) == ("12\nACME-DOCS 4411.2\nSECTION 2.01.\nLoans.\n"
                                   "The Lender shall lend up to\n$5,000,000.\n(a) Each Loan is due")


def test_white_or_tiny_text_alone_is_not_a_layer() -> None:
    white = '<p style="color:#ffffff">Section 1.  Term.</p>'
    tiny = '<p style="font-size:1pt">Section 1.  Term.</p>'
    small_white = '<p style="font-size:2.5pt;color:white">Section 1.  Term.</p>'
    assert html_to_text(white) == html_to_text(tiny) == html_to_text(small_white) \
        == "Section 1. Term."


def test_uppercase_markup_and_crlf_line_endings() -> None:
    source = "<P ALIGN=center>One\r\ntwo</P>\r\n<DIV>Three</DIV>"
    assert html_to_text(source) == "One two\n\nThree"


def test_a_malformed_declaration_is_read_as_text() -> None:
    assert html_to_text("<p>Fees <![0 apply</p>") == "Fees <![0 apply"


def test_markup_without_text_yields_empty_string() -> None:
    assert html_to_text("<html><body><p>&nbsp;</p><table><tr><td></td></tr></table>") == ""


def _assert_layout(text: str) -> None:
    assert "\r" not in text and "\u00a0" not in text
    assert "\n\n\n" not in text
    assert text == text.strip()
    for line in text.split("\n"):
        assert line == line.strip()


@given(st.text())
def test_arbitrary_input_never_crashes_and_is_laid_out(source: str) -> None:
    text = html_to_text(source)
    _assert_layout(text)
    assert html_to_text(source) == text


_WRAPPERS = st.sampled_from(["p", "div", "li", "h3", "b", "span", "u", "font", "center"])
_TEXT_ONLY = st.text(st.characters(codec="utf-8", exclude_characters="<"))


@given(st.lists(st.tuples(_WRAPPERS, _TEXT_ONLY, st.booleans()), max_size=8))
def test_text_only_content_keeps_its_words_and_gains_no_markup(
    parts: list[tuple[str, str, bool]],
) -> None:
    source = "".join(
        f"<{tag}>{html.escape(text, quote=False)}</{tag}>" + ("<br>" if br else "")
        for tag, text, br in parts
    )
    result = html_to_text(source)
    _assert_layout(result)
    assert "<" not in result
    # Inline tags may join neighbouring texts, so compare with all whitespace removed.
    assert "".join(result.split()) == "".join("".join(text for _, text, _ in parts).split())


_EXHIBITS = {
    "stonepoint_d406704dex101.htm": (
        "stonepoint/01_second_amendment.txt",
        "stonepoint/02_revolving_credit_agreement_conformed.txt",
    ),
    "guerrilla_ex_453028.htm": ("guerrilla/01_unit_purchase_agreement.txt",),
}


def _exhibit_text(corpus_root: Path, file_name: str) -> str:
    path = corpus_root / "transactions" / "_html" / file_name
    return read_document(path).text


def _mirror_lines(corpus_root: Path, relative_paths: tuple[str, ...]) -> list[str]:
    root = corpus_root / "transactions"
    lines: list[str] = []
    for relative in relative_paths:
        text = (root / relative).read_text(encoding="utf-8")
        lines.extend(line for line in text.split("\n") if line.strip())
    return lines


@pytest.mark.corpus
@pytest.mark.parametrize("file_name", sorted(_EXHIBITS))
def test_real_exhibit_matches_the_mirror_text(corpus_root: Path, file_name: str) -> None:
    text = _exhibit_text(corpus_root, file_name)
    _assert_layout(text)
    assert not _TAG.search(text), _TAG.search(text)
    mine = set(text.split("\n"))
    mirror = _mirror_lines(corpus_root, _EXHIBITS[file_name])
    share = sum(line in mine for line in mirror) / len(mirror)
    assert share >= 0.95, f"{file_name}: only {share:.1%} of the mirror's lines reproduced"


@pytest.mark.corpus
def test_stonepoint_exhibit_keeps_headings_and_table_rows(corpus_root: Path) -> None:
    lines = _exhibit_text(corpus_root, "stonepoint_d406704dex101.htm").split("\n")
    assert sum(line.startswith("ARTICLE ") for line in lines) >= 10
    assert any(line.startswith("Section 2.1 The Commitment") for line in lines)
    # The table of contents: section number, title and page on one row.
    assert "Section 2.1 | The Commitment | 35" in lines
    assert "SECOND AMENDMENT" in lines


@pytest.mark.corpus
def test_guerrilla_exhibit_keeps_articles_and_sections(corpus_root: Path) -> None:
    lines = _exhibit_text(corpus_root, "guerrilla_ex_453028.htm").split("\n")
    for heading in ("ARTICLE I.", "ARTICLE II.", "ARTICLE III.", "ARTICLE IV.", "ARTICLE V."):
        assert heading in lines
    assert any(line.startswith("1.1 Definitions.") for line in lines)
    assert any(
        line.startswith("3.1 Representations and Warranties of the Company.") for line in lines
    )
    # Section numbers laid out in a table cell beside their headings.
    assert "2.1 | Closing." in lines
    assert any(line.startswith("Name of Purchaser | ") for line in lines)


def test_a_number_in_a_fixed_width_box_is_set_apart_from_its_heading() -> None:
    source = ('<p><font style="display:inline-block;width:36pt">2.</font><b>Payments.</b> '
              'The Company pays you.</p><p><span style="float:left">(a)</span>First item.</p>')
    assert html_to_text(source) == "2. Payments. The Company pays you.\n\n(a) First item."


def test_a_block_tag_displayed_inline_stays_on_its_line() -> None:
    source = ('<div style="display:flex"><font style="display:inline-flex;min-width:4.7%">1.'
              '</font><div style="display:inline;"><b>Employment Term. </b>The term starts '
              'now.</div></div><div style="display:inline-block;width:100%">Next.</div>')
    assert html_to_text(source) == "1. Employment Term. The term starts now.\n\nNext."


def test_zero_width_spaces_are_blank() -> None:
    source = "<p>\u200b</p><table><tr><td>\u200b</td><td>\ufeff</td></tr></table><p>A\u200bB</p>"
    assert html_to_text(source) == "A B"


def test_unicode_spaces_inside_a_heading_become_plain_spaces() -> None:
    source = "<p>Section\u202f5.2\u2007Fees.\u2009The\u3000fee is due.</p>"
    assert html_to_text(source) == "Section 5.2 Fees. The fee is due."


def test_struck_through_text_is_left_out() -> None:
    # A filing marked to show changes: the struck date is deleted, the underlined one inserted.
    source = ('<p>“Maturity Date” means October 6, <font style="color:red"><STRIKE>2024'
              '</STRIKE></font><font style="color:blue"><U>2025</U></font>.</p>'
              '<p>at least <s>five (5</s><u>three (3</u>) Business Days <del>before</del></p>'
              '<p><span style="font-size:10pt;text-decoration:line-through">Old</span>New '
              '<span style="text-decoration-line: underline line-through">gone</span>kept</p>')
    assert html_to_text(source) == ("“Maturity Date” means October 6, 2025.\n\n"
                                    "at least three (3) Business Days\n\nNew kept")


def test_an_underlined_or_coloured_span_is_kept() -> None:
    source = ('<p><span style="text-decoration:underline;color:red">Inserted</span> and '
              '<span style="text-decoration: none">plain</span>.</p>')
    assert html_to_text(source) == "Inserted and plain."


def test_a_struck_block_leaves_out_every_paragraph_inside_it() -> None:
    source = ('<p>Before.</p><div style="text-decoration:line-through"><p>Deleted one.</p>'
              '<table><tr><td>Deleted</td><td>row</td></tr></table><p>Deleted two.</p></div>'
              '<p>After.</p>')
    assert html_to_text(source) == "Before.\n\nAfter."


def test_an_unclosed_strike_ends_with_its_paragraph() -> None:
    # A missing </strike> must not hide the rest of the document.
    source = ("<p>Kept <strike>deleted words</p><p>Next paragraph.</p>"
              "<table><tr><td>Cell <del>gone</td><td>other cell</td></tr></table><p>End.</p>")
    assert html_to_text(source) == "Kept\n\nNext paragraph.\n\nCell | other cell\n\nEnd."
    # Nor may one whose paragraph is never closed: the next block ends it.
    assert html_to_text("<p>Kept <strike>deleted<p>Next.<p>Last.") == "Kept\n\nNext.\n\nLast."


def test_a_struck_block_left_unclosed_ends_with_the_block_around_it() -> None:
    source = ('<div><p>One.</p><div style="text-decoration:line-through"><p>Deleted.</p></div>'
              '<p>Two.</p></div><p>Three.</p>')
    assert html_to_text(source) == "One.\n\nTwo.\n\nThree."
    unclosed = ('<div><p>One.</p><section style="text-decoration:line-through"><p>Deleted.</p>'
                '</div><p>Three.</p>')
    assert html_to_text(unclosed) == "One.\n\nThree."
