"""Locating a copied stretch of text in its document: whitespace-tolerant always, and with
``marks`` tolerant of quote marks and dashes too (a user's retriever's passages)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.ingest.text_location import DASHES, QUOTE_MARKS, locate

TEXT = ('1. The "Term" means the period from 1 January 2020 - 31 December 2024.\n'
        "2. The Tenant\u2019s rent is payable monthly.")


def test_quote_marks_and_dashes_match_any_of_their_kind_only_when_asked() -> None:
    copied = "The \u201cTerm\u201d means the period from 1 January 2020 \u2013 31 December 2024."
    assert locate(copied, TEXT) is None
    span = locate(copied, TEXT, marks=True)
    assert span is not None
    assert TEXT[span[0]:span[1]] == ('The "Term" means the period from 1 January 2020 - '
                                     "31 December 2024.")
    straightened = "The Tenant's rent is\n payable monthly."
    found = locate(straightened, TEXT, marks=True)
    assert found is not None and TEXT[found[0]:found[1]].startswith("The Tenant\u2019s rent")
    # Letters are never folded: a different word is not found.
    assert locate("The Landlord's rent is payable monthly.", TEXT, marks=True) is None


def test_an_exact_copy_is_found_first_and_taken_spans_are_avoided() -> None:
    text = "Rent is due. Rent is due."
    assert locate("Rent is due.", text, marks=True) == (0, 12)
    assert locate("Rent is due.", text, [(0, 12)], marks=True) == (13, 25)


words = st.text("abcdefgh.,()", min_size=1, max_size=6)
marks = st.sampled_from(list(QUOTE_MARKS + DASHES))


@given(st.lists(st.tuples(words, marks), min_size=1, max_size=20), st.data())
def test_a_copy_with_its_marks_swapped_and_respaced_is_found_where_it_came_from(
        pieces: list[tuple[str, str]], data: st.DataObject) -> None:
    text = "Preamble. " + " ".join(word + mark for word, mark in pieces) + " End."
    start = len("Preamble. ")
    end = len(text) - len(" End.")

    def swapped(mark: str) -> str:
        kind = QUOTE_MARKS if mark in QUOTE_MARKS else DASHES
        return data.draw(st.sampled_from(list(kind)))

    gaps = data.draw(st.lists(st.sampled_from([" ", "  ", "\n", "\t"]),
                              min_size=len(pieces), max_size=len(pieces)))
    copy = "".join(word + swapped(mark) + gap for (word, mark), gap in zip(pieces, gaps,
                                                                         strict=True))
    found = locate(copy, text, marks=True)
    assert found is not None
    assert found[0] == start and found[1] == end
