"""Page furniture (running headers, footers, page numbers) is found from repetition alone, and
a page of text run into one line is read for the headings inside it."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.build import build_corpus
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.page_furniture import blanked, find_furniture

FOOTER = "Northwind Supply Agreement - Confidential"


def _clause(number: int) -> str:
    return (f"{number}. Obligation {number}. The Supplier shall deliver the goods of schedule "
            f"{number} to the Buyer within {number + 10} days of each order, at its own cost, "
            "and shall keep the goods insured until the Buyer accepts them in writing. " * 3)


def _paged(pages: int) -> str:
    """A document of ``pages`` pages, each ending with a running footer and a page number."""
    parts = ["NORTHWIND SUPPLY AGREEMENT"]
    for page in range(1, pages + 1):
        parts += [_clause(page), FOOTER, str(page)]
    return "\n".join(parts)


def _spans_text(text: str) -> list[str]:
    return [text[start:end] for start, end in find_furniture(text)]


def test_a_running_footer_and_page_numbers_are_furniture() -> None:
    text = _paged(6)
    found = _spans_text(text)
    assert found.count(FOOTER) == 6
    assert [s for s in found if s.isdigit()] == [str(n) for n in range(1, 7)]
    # Nothing of a provision is furniture.
    assert not any("Supplier" in s for s in found)


def test_a_line_repeated_on_too_few_pages_is_not_furniture() -> None:
    text = "\n".join([_clause(1), FOOTER, _clause(2), FOOTER, _clause(3)])
    assert find_furniture(text) == ()


def test_signature_labels_and_close_repeats_are_not_furniture() -> None:
    block = "By: ____________\nName:\nTitle: Director\nDate"
    text = "\n".join([_clause(1), block, block, block, block, _clause(2)])
    found = _spans_text(text)
    assert "Name:" not in found
    # "Title: Director" repeats four times, but close together: a block, not a page's footer.
    assert "Title: Director" not in found


def test_numbered_headings_are_never_furniture() -> None:
    text = "\n".join(f"Section {n}\n{_clause(n)}" for n in range(1, 8))
    assert not any(s.startswith("Section") for s in _spans_text(text))


def _one_line_pages() -> str:
    """A filing converted from PDF, one page a line: page number first, a footer last."""
    pages = []
    for page in range(1, 6):
        body = (f"Section {page}.01 Delivery Terms. The Supplier shall deliver the goods of "
                f"schedule {page} within ten days, pursuant to Section {page}.02 below. "
                f"Section {page}.02 Price Terms. The price of the goods of schedule {page} is "
                f"one thousand dollars a shipment, payable within thirty days of invoice. ")
        # Pages end differently (here, mid-sentence), as real pages do.
        ending = ("the Buyer may", "each shipment is", "notice shall be", "the Supplier",
                  "all invoices")[page - 1]
        pages.append(f"{page} {body * 2}Thereafter {ending} {FOOTER}")
    return "\n".join(pages)


def test_furniture_inside_long_lines_is_found() -> None:
    text = _one_line_pages()
    found = _spans_text(text)
    assert found.count(FOOTER) == 5
    assert [s for s in found if s.isdigit()] == ["1", "2", "3", "4", "5"]


def _index(text: str) -> DocumentIndex:
    document = Document(doc_id="supply", title="Northwind Supply Agreement", text=text,
                        sha256=hashlib.sha256(text.encode()).hexdigest())
    return build_corpus([document])[0]


def test_headings_run_into_a_page_line_are_found_and_citations_are_not() -> None:
    index = _index(_one_line_pages())
    titled = {n.clause_reference: n.title for n in index.nodes
              if n.clause_reference.startswith("Section")}
    # The heading that follows the page number opens a provision, and so does the one run
    # on after the end of a sentence; "pursuant to Section 1.02" stays inside its clause.
    assert titled["Section 1.01"] == "Delivery Terms"
    assert titled["Section 1.02"] == "Price Terms"
    assert titled["Section 5.02"] == "Price Terms"
    for node in index.nodes:
        if node.clause_reference.startswith("Section") and node.is_leaf:
            assert "pursuant to" not in node.text[:40]
            # No title runs into the page's footer.
            assert FOOTER not in node.title


@given(st.text(alphabet="ab \n", max_size=200), st.data())
def test_blanking_keeps_length_line_breaks_and_every_other_character(
        text: str, data: st.DataObject) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6))))
    spans = tuple((cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2))
    out = blanked(text, spans)
    assert len(out) == len(text)
    for position, (before, after) in enumerate(zip(text, out, strict=True)):
        inside = any(start <= position < end for start, end in spans)
        assert after == (before if not inside else "\n" if before == "\n" else " ")
